"""l2_norm, matmul_core, histogram and monte_carlo_pi on NumPy arrays against float64 NumPy
references, on every layout and odd sizes."""

from fractions import Fraction

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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 999, 100_003, 0])
@pytest.mark.parametrize("bins", [1, 100, 200_000])
def test_histogram(rng, dtype, n, bins):
    x = rng.standard_normal(n).astype(dtype)
    if n > 2:
        x[:3] = [np.nan, np.inf, 4.0]  # NaN, inf and xmax itself are not counted
    x64 = x.astype(np.float64)
    inside = x64[(x64 >= -4.0) & (x64 < 4.0)]
    # each value by the documented rule e_k <= v < e_k+1 with e_k = fma(k, w, xmin): estimated in
    # double, then exactly (Fraction, rounded once as fma rounds) for values near an edge
    w = 8.0 / bins
    k = np.floor((inside + 4.0) / w).astype(np.int64)
    k -= (inside < -4.0 + k * w)
    k += (k + 1 < bins) & (inside >= -4.0 + (k + 1) * w)
    k = np.clip(k, 0, bins - 1)

    def edge(j):
        return float(Fraction(int(j)) * Fraction(w) + Fraction(-4.0))

    near = (np.abs(inside - (-4.0 + k * w)) < 1e-9) | (np.abs(inside - (-4.0 + (k + 1) * w)) < 1e-9)
    for i in np.nonzero(near)[0]:
        j = int(k[i])
        while j > 0 and inside[i] < edge(j):
            j -= 1
        while j + 1 < bins and inside[i] >= edge(j + 1):
            j += 1
        k[i] = j
    want = np.bincount(k, minlength=bins)
    for name, xv in layouts(x, rng):
        got = unison.histogram(xv, -4.0, 4.0, bins=bins)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want, err_msg=name)
    c32 = np.zeros(bins, np.int32)
    unison.histogram(x, -4.0, 4.0, c32)
    np.testing.assert_array_equal(c32, want)


def test_histogram_errors():
    x = np.ones(5, np.float32)
    with pytest.raises(ValueError, match="xmin"):
        unison.histogram(x, 1.0, 1.0, bins=3)
    with pytest.raises(TypeError, match="int64 or int32"):
        unison.histogram(x, 0.0, 1.0, np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="counts= .* or bins="):
        unison.histogram(x, 0.0, 1.0)


def test_monte_carlo_pi():
    a = unison.monte_carlo_pi(1_000_001, seed=7)
    assert abs(a - np.pi) < 0.01
    assert unison.monte_carlo_pi(1_000_001, seed=7, backend="serial") == a  # every backend alike
    with pytest.raises(ValueError, match="samples"):
        unison.monte_carlo_pi(0)
