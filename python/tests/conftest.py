"""Shared helpers of the Python module's tests: fresh random data, odd sizes, every layout.

With UNISON_TEST_ARRAYS=cupy (a GPU machine with CuPy and a build with Cuda), the same tests run
on CuPy arrays of the same layouts in a non-blocking stream (cupy_arrays.py); the tests marked
host_only (the host protocols: the buffer protocol, NumPy's read-only arrays, DLPack producers of
host memory) are skipped there."""

import os
import sys

import numpy as np
import pytest

ON_DEVICE = os.environ.get("UNISON_TEST_ARRAYS", "numpy") == "cupy"
if ON_DEVICE:
    import unison as _real_unison
    from cupy_arrays import make_stand_in

    sys.modules["unison"] = make_stand_in(_real_unison)
elif os.environ.get("UNISON_TEST_ARRAYS", "numpy") != "numpy":
    raise RuntimeError("UNISON_TEST_ARRAYS is 'numpy' (the default) or 'cupy'")


def pytest_configure(config):
    config.addinivalue_line("markers", "host_only: a test of host arrays alone (not on CuPy's)")


def pytest_collection_modifyitems(config, items):
    if ON_DEVICE:
        skip = pytest.mark.skip(reason="host arrays only")
        for item in items:
            if "host_only" in item.keywords:
                item.add_marker(skip)


@pytest.fixture
def rng():
    # fresh data every run; the seed is printed on failure by pytest's report of the fixture
    seed = np.random.SeedSequence().entropy % (2**32)
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def layouts(a, rng, broadcast=False):
    """(name, array) pairs with a's values: C order, Fortran order, a strided view into a larger
    array, a sliced view, and (for inputs that may broadcast) a stride-0 view where a is
    constant along an axis."""
    out = [("C", np.ascontiguousarray(a)), ("F", np.asfortranarray(a))]
    big = np.empty(tuple(3 * n + 2 for n in a.shape), dtype=a.dtype)
    idx = tuple(slice(1, 1 + 3 * n, 3) for n in a.shape)
    big[idx] = a
    out.append(("strided", big[idx]))
    if a.ndim == 2:
        wide = np.empty((a.shape[0], a.shape[1] + 5), dtype=a.dtype)
        wide[:, 2:-3] = a
        out.append(("sliced", wide[:, 2:-3]))
    return out


def broadcast_row(shape, dtype, rng):
    """A read-only stride-0 array (NumPy's broadcast_to) of the given shape, and its values."""
    row = rng.standard_normal(shape[-1]).astype(dtype)
    b = np.broadcast_to(row, shape)
    return b, np.array(b)


SIZES = [(1,), (7,), (1001,), (3, 5), (17, 33), (0,), (0, 4)]
DTYPES = [np.float32, np.float64]
