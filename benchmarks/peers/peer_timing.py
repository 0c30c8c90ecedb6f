"""Wall-clock timing shared by the peer scripts that time a call and then wait for it."""
import time

import numpy as np


def median_wall_ms(fn, reps, sync=lambda: None):
    """Median milliseconds of fn() followed by sync(), over reps calls after one warm-up call."""
    fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))
