"""convolve and matmul_reduce on NumPy arrays against float64 NumPy references."""

import numpy as np
import pytest

import unison
from conftest import DTYPES, layouts


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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", ["automatic", "tiled", "gemm", "reassociated"])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (37, 19, 53), (130, 70, 9), (0, 4, 3)])
def test_matmul_reduce(rng, dtype, method, m, k, n):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    want = (a.astype(np.float64) @ b.astype(np.float64)).sum(axis=0)
    tol = (1e-4 if dtype == np.float32 else 1e-11) * np.sqrt(max(m * k, 1))
    for order in ("C", "F"):
        got = unison.matmul_reduce(np.asarray(a, order=order), np.asarray(b, order=order),
                                   method=method)
        np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg=order)
    if method != "gemm":
        got = unison.matmul_reduce(layouts(a, rng)[2][1], b, method=method)  # strided A
        np.testing.assert_allclose(got, want, rtol=0, atol=tol)


def test_matmul_reduce_errors():
    a = np.ones((4, 3))
    with pytest.raises(ValueError, match="gemm method takes"):
        unison.matmul_reduce(a, np.ones((3, 2), order="F"), method="gemm")
    with pytest.raises(ValueError, match="unison::matmul_reduce"):
        unison.matmul_reduce(a, np.ones((4, 2)))
    with pytest.raises(ValueError, match="method is 'fast'"):
        unison.matmul_reduce(a, np.ones((3, 2)), method="fast")
