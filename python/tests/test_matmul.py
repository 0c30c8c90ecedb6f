"""matmul_reduce on NumPy arrays against float64 NumPy references."""
import numpy as np
import pytest

import unison
from conftest import DTYPES, layouts


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
