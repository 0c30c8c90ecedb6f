"""l2_norm and matmul_core on NumPy arrays against float64 NumPy references, on every layout
and odd sizes."""
import numpy as np
import pytest

import unison
from conftest import DTYPES, layouts


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (1001, 2), (33, 129), (0, 5), (4, 0)])
def test_l2_norm(rng, dtype, shape):
    v = rng.standard_normal(shape).astype(dtype)
    want = np.sqrt(np.sum(v.astype(np.float64) ** 2, axis=1))
    for name, vv in layouts(v, rng):
        got = unison.l2_norm(vv)
        assert got.dtype == dtype and got.shape == (shape[0],)
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-14,
                                   err_msg=name)
    with pytest.raises(ValueError, match="unison::l2_norm: out is"):
        unison.l2_norm(v, out=np.zeros(shape[0] + 1, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_core(rng, dtype):
    a = rng.standard_normal((37, 4, 5)).astype(dtype)
    b = rng.standard_normal((37, 5, 3)).astype(dtype)
    want = np.einsum("qmn,qnp->qmp", a.astype(np.float64), b.astype(np.float64))
    got = unison.matmul_core(a, b)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-13,
                               atol=1e-5 if dtype == np.float32 else 1e-13)
    out = np.zeros((37, 3, 4), dtype).transpose(0, 2, 1)  # a strided output
    unison.matmul_core(a, b, out=out)
    np.testing.assert_allclose(out, want, rtol=1e-5 if dtype == np.float32 else 1e-13,
                               atol=1e-5 if dtype == np.float32 else 1e-13)
    with pytest.raises(ValueError, match="unison::matmul_core"):
        unison.matmul_core(a, a)
