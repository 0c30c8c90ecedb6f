"""convolve and convolve_extent on NumPy arrays against float64 NumPy references, and NumPy's
modes."""
import numpy as np
import pytest

import unison
from conftest import DTYPES, layouts


def close(got, want, dtype):
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,m", [(1, 1), (7, 3), (1001, 5), (1000, 33), (5000, 257), (40, 40)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve(rng, dtype, n, m, mode):
    x = rng.standard_normal(n).astype(dtype)
    k = rng.standard_normal(m).astype(dtype)
    want = np.convolve(x.astype(np.float64), k.astype(np.float64), mode)
    scale = np.sqrt(m) * (1e-6 if dtype == np.float32 else 1e-14) * 4
    got = []
    for alg in ("automatic", "direct", "tiled"):
        for name, xv in layouts(x, rng):
            y = unison.convolve(xv, k, mode, algorithm=alg)
            assert y.shape == want.shape and y.dtype == dtype
            assert np.max(np.abs(y - want), initial=0) <= scale * (1 + np.abs(want).max(initial=0))
            got.append(y)
    for y in got[1:]:  # every algorithm and layout: the same bits
        np.testing.assert_array_equal(y, got[0])


def test_convolve_errors():
    x = np.ones(10, np.float32)
    np.testing.assert_array_equal(unison.convolve(x[:3], x), np.convolve(x[:3], x))  # either order
    with pytest.raises(ValueError, match="mode is 'wide'"):
        unison.convolve(x, x[:2], "wide", out=np.zeros(11, np.float32))
    with pytest.raises(ValueError, match=r"unison.convolve: out .*expected shape \(11,\)"):
        unison.convolve(x, x[:2], "full", out=np.zeros(10, np.float32))
    assert unison.convolve_extent(10, 3, "valid") == 8


@pytest.mark.parametrize("n,m", [(3, 10), (1, 7), (10, 3), (4, 4), (2, 9)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_either_order(rng, n, m, mode):
    x = rng.standard_normal(n)
    k = rng.standard_normal(m)
    want = np.convolve(x, k, mode)
    got = unison.convolve(x, k, mode)
    assert got.shape == want.shape
    close(got, want, np.float64)
    assert unison.convolve_extent(n, m, mode) == want.shape[0]
    out = np.empty(want.shape)
    unison.convolve(x, k, mode, out=out)
    close(out, want, np.float64)


def test_convolve_extent_refusals():
    with pytest.raises(ValueError, match=r"unison.convolve_extent: n is -1, expected at least 0"):
        unison.convolve_extent(-1, 3)
    with pytest.raises(ValueError, match=r"unison.convolve_extent: n is 0 and m is 3"):
        unison.convolve_extent(0, 3)
    with pytest.raises(TypeError, match=r"unison.convolve_extent: m is 2.5, not an integer"):
        unison.convolve_extent(3, 2.5)
    with pytest.raises(ValueError, match=r"mode is 'wide', expected 'valid', 'same' or 'full'"):
        unison.convolve_extent(3, 2, "wide")
    with pytest.raises(ValueError, match=r"unison.convolve: k \(float64, shape \(0,\), \w+\) "
                                         r"is empty"):
        unison.convolve(np.ones(3), np.ones(0))


def test_convolve_modes_as_numpy(rng):
    x, k = rng.normal(size=37), rng.normal(size=5)
    for code, word in ((0, "valid"), (1, "same"), (2, "full")):
        np.testing.assert_array_equal(unison.convolve(x, k, code), unison.convolve(x, k, word))
        assert unison.convolve_extent(37, 5, code) == unison.convolve_extent(37, 5, word)
    for short, word in (("f", "full"), ("S", "same"), ("Valid", "valid")):
        with pytest.warns(DeprecationWarning, match=rf"mode '{short}' taken as '{word}'"):
            np.testing.assert_array_equal(unison.convolve(x, k, short),
                                          unison.convolve(x, k, word))
    with pytest.raises(ValueError, match=r"mode is -1, expected 0, 1 or 2 \(NumPy's 0 for 'valid', "
                                         r"1 for 'same', 2 for 'full'\)"):
        unison.convolve(x, k, -1)
    with pytest.raises(TypeError, match=r"mode is None, expected 'valid', 'same' or 'full' "
                                        r"\(or NumPy's 0, 1 or 2\)"):
        unison.convolve(x, k, None)
    with pytest.raises(ValueError, match=r"mode is 'middle', expected 'valid', 'same' or"):
        unison.convolve(x, k, "middle")
