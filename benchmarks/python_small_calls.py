"""Small calls from Python: the fixed cost of a call and its slowest calls, beside NumPy.

  python3 benchmarks/python_small_calls.py [--before | --serial-below=N]

Three measurements, each call timed alone with time.perf_counter_ns:
  1. `add` of 10 float32 with out= (and NumPy's `np.add` of the same), back to back: median and
     99th percentile of 20000 calls;
  2. `gaussian_pdf` of 1,000 and 100,000 float32 with out=, each call right after a `np.dot` of
     two vectors of 1e6 doubles (NumPy's BLAS threads are then busy or spinning): median, the
     slowest, and how many of 200 calls took over 1 ms;
  3. `gaussian_pdf` of 1e7 float32 with out= back to back (a large array: unchanged by the
     small-call path), median of 30.
--before runs with unison.serial_below(0) (every host call on OpenMP, as before the small-call
path), where the module has it; --serial-below=N with unison.serial_below(N). A benchmark, not
a test: its numbers depend on the machine and its load."""

import sys
import time

import numpy as np

import unison


def timed(call, n, before=None, warm=50):
    for _ in range(warm):
        if before:
            before()
        call()
    t = np.empty(n)
    for i in range(n):
        if before:
            before()
        t0 = time.perf_counter_ns()
        call()
        t[i] = time.perf_counter_ns() - t0
    return t / 1000.0  # microseconds


def main():
    if "--before" in sys.argv:
        if not hasattr(unison, "serial_below"):
            print("(this module has no serial_below: every host call is on OpenMP already)")
        else:
            unison.serial_below(0)
    for arg in sys.argv[1:]:
        if arg.startswith("--serial-below="):
            unison.serial_below(int(arg.split("=", 1)[1]))
    setting = unison.serial_below() if hasattr(unison, "serial_below") else "-"
    print(f"unison {unison.__version__}, NumPy {np.__version__}, serial_below {setting}")
    x = np.ones(10, np.float32)
    o = np.empty_like(x)
    for name, call in [("unison.add, 10 float32, out=", lambda: unison.add(x, 1.0, out=o)),
                       ("np.add, 10 float32, out=", lambda: np.add(x, 1.0, out=o))]:
        t = timed(call, 20000)
        print(f"{name:34s} median {np.median(t):7.2f} us  p99 {np.percentile(t, 99):7.2f} us")
    big = np.random.default_rng(1).random(1_000_000)
    dot = lambda: np.dot(big, big)  # noqa: E731
    for n in (1_000, 100_000):
        v = np.random.default_rng(2).standard_normal(n).astype(np.float32)
        out = np.empty_like(v)
        t = timed(lambda: unison.gaussian_pdf(v, out=out), 200, before=dot, warm=5)
        print(f"gaussian_pdf {n:>7d} after np.dot 1e6   median {np.median(t):7.1f} us  "
              f"slowest {t.max():8.1f} us  over 1 ms: {int((t > 1000).sum())} of 200")
    v = np.random.default_rng(3).standard_normal(10_000_000).astype(np.float32)
    out = np.empty_like(v)
    t = timed(lambda: unison.gaussian_pdf(v, out=out), 30, warm=3)
    print(f"gaussian_pdf 1e7, back to back        median {np.median(t):7.1f} us")


if __name__ == "__main__":
    main()
