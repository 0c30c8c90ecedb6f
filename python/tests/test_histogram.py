"""histogram and histogram_bin_edges on NumPy arrays: Unison's form against float64 NumPy
references, and NumPy's form (edges, weights, density, estimators) against NumPy itself."""
from fractions import Fraction

import numpy as np
import pytest

import unison
from conftest import DTYPES, layouts


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bins", [1, 4, 10, 37])
def test_histogram_numpy_form(rng, dtype, bins):
    # values at every edge (the range's ends included), NaN and infinities (given a range)
    x = np.concatenate([rng.integers(0, 8, 501).astype(dtype), [0, 8, 8, 4, 2]]).astype(dtype)
    counts, edges = unison.histogram(x, bins)
    want, want_edges = np.histogram(x, bins)
    np.testing.assert_array_equal(counts, want)
    assert counts.dtype == np.int64 and edges.dtype == np.float64 and edges.shape == (bins + 1,)
    assert edges[0] == 0 and edges[-1] == 8
    # (NumPy's edges are of x's dtype, Unison's float64)
    np.testing.assert_allclose(edges, want_edges, rtol=0, atol=8 * 8 * np.finfo(dtype).eps)
    y = np.concatenate([x, np.array([np.nan, np.inf, -np.inf, -1, 9], dtype)])
    c2, e2 = unison.histogram(y, bins=bins, range=(0, 8))
    np.testing.assert_array_equal(c2, np.histogram(y[np.isfinite(y)], bins, (0, 8))[0])
    np.testing.assert_array_equal(e2, edges)


def test_histogram_numpy_form_edges_cases():
    c, e = unison.histogram(np.full(5, 3.0))  # one value: NumPy's (v - 0.5, v + 0.5)
    np.testing.assert_array_equal(c, np.histogram(np.full(5, 3.0))[0])
    np.testing.assert_array_equal(e, np.histogram(np.full(5, 3.0))[1])
    for v in ([-1.0, -0.5, 0.0, 0.0], [-3e-300, 0.0, -1e-310, 0.0]):  # an upper end at 0
        v = np.array(v)
        c, e = unison.histogram(v, 2)
        np.testing.assert_array_equal(c, np.histogram(v, 2)[0])
    c, e = unison.histogram(np.zeros(0), 3)
    assert list(c) == [0, 0, 0] and e[0] == 0 and e[-1] == 1
    with pytest.raises(ValueError, match=r"unison.histogram: the autodetected range of x, "
                                         r"\[nan, nan\], is not "
                                         r"finite: give range="):
        unison.histogram(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match=r"unison.histogram: bins is 'mad', not one of NumPy's "
                                         r"estimators: 'auto', 'fd'"):
        unison.histogram(np.ones(3), "mad")
    with pytest.raises(TypeError, match=r"unison.histogram: bins is 'auto': NumPy's automated "
                                        r"estimation .* not supported for weighted data"):
        unison.histogram(np.ones(3), "auto", weights=np.ones(3))
    with pytest.raises(ValueError, match=r"unison.histogram: bins as edges must be 1d, an array "
                                         r"of at least 2 edges; got shape \(1,\)"):
        unison.histogram(np.ones(3), [1.0])
    with pytest.raises(ValueError, match=r"unison::histogram: edges must not decrease: edges\(1\) "
                                         r"= 2 is above edges\(2\) = 1"):
        unison.histogram(np.ones(3), [0, 2, 1])
    with pytest.raises(ValueError, match=r"unison::histogram: edges\(0\) is NaN"):
        unison.histogram(np.ones(3), np.array([np.nan, 1.0]))
    with pytest.raises(TypeError, match=r"unison.histogram: bins is 2.7, not an integer"):
        unison.histogram(np.ones(3), 2.7)
    with pytest.raises(TypeError, match=r"unison.histogram: bins is 2.7, not an integer"):
        unison.histogram(np.ones(3), 0.0, 1.0, bins=2.7)
    with pytest.raises(ValueError, match=r"unison.histogram: range is \(2.0, 1.0\)"):
        unison.histogram(np.ones(3), range=(2, 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_edges_as_numpy(rng, dtype):
    # bins as edges: NumPy's counts and its edges as given, with values on the edges (float32
    # values beside float64 edges), zero-width bins, infinite outer edges, NaN and values outside.
    edges = np.sort(rng.standard_normal(41))
    edges[5] = edges[6] = edges[4]
    x = (rng.standard_normal(10007) * 1.3).astype(dtype)
    x[:41] = edges.astype(dtype)
    x[41:82] = np.nextafter(edges.astype(dtype), dtype(np.inf))
    x[-1], x[-2], x[-3] = np.nan, np.inf, -np.inf
    for bins in (edges, list(edges), np.concatenate(([-np.inf], edges, [np.inf])),
                 edges[::2], [0, 1, 2, 3]):
        want, want_edges = np.histogram(x[np.isfinite(x) | np.isinf(x)], bins)
        got, got_edges = unison.histogram(x, bins)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_edges, want_edges)
    got, _ = unison.histogram(x[::3], bins=edges, counts=np.zeros(40, np.int32))
    np.testing.assert_array_equal(got, np.histogram(x[::3][~np.isnan(x[::3])], edges)[0])


def _fsum_histogram(x, edges, w):
    """Each bin's weights summed exactly (math.fsum), the bins by NumPy's rule for edges."""
    import math
    e = np.asarray(edges, np.float64)
    v = x.astype(np.float64)
    k = np.searchsorted(e, v, side="right") - 1
    k[v == e[-1]] = len(e) - 2
    inside = (v >= e[0]) & (v <= e[-1])
    return np.array([math.fsum(w[inside & (k == b)].astype(np.float64)) for b in range(len(e) - 1)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_weights_and_density_as_numpy(rng, dtype):
    # weights= sums in the weights' dtype, added in double: each within a rounding of the exact
    # sum (NumPy's own are in the weights' dtype, by cumulative sums); density= is NumPy's
    # counts / widths / total. With equal bins and with edges.
    x = rng.standard_normal(20011).astype(dtype)
    w = rng.uniform(-1, 2, x.shape).astype(dtype)
    edges = np.sort(rng.standard_normal(33))
    x[:33] = edges.astype(dtype)
    eps = np.finfo(dtype).eps
    for bins, rng_ in ((17, None), (17, (-2.0, 2.5)), (edges, None), (list(edges[::3]), None)):
        want, want_edges = np.histogram(x, bins, range=rng_, weights=w)
        got, got_edges = unison.histogram(x, bins, range=rng_, weights=w)
        assert got.dtype == want.dtype == dtype
        exact = _fsum_histogram(x, got_edges, w)
        scale = np.abs(w).sum() * 1e-12 if dtype == np.float64 else 0
        np.testing.assert_allclose(got, exact, rtol=eps, atol=scale)
        if not isinstance(bins, int):
            np.testing.assert_array_equal(got_edges, want_edges)
        # density: counts as NumPy's (the same bins), weighted sums by NumPy's formula
        want_d, _ = np.histogram(x, got_edges, density=True)
        got_d, d_edges = unison.histogram(x, bins, range=rng_, density=True)
        np.testing.assert_array_equal(d_edges, got_edges)
        np.testing.assert_allclose(got_d, want_d, rtol=1e-14)
        got_wd, _ = unison.histogram(x, bins, range=rng_, weights=w, density=True)
        widths = np.diff(got_edges).astype(np.float64)
        np.testing.assert_allclose(got_wd, got / widths / got.sum(), rtol=1e-14)
    with pytest.raises(ValueError, match=r"unison.histogram: weights \(.*\) should have the "
                                         r"same shape as x, \(20011,\)"):
        unison.histogram(x, 10, weights=w[:5])
    with pytest.raises(TypeError, match=r"weights= and density= are NumPy's form's"):
        unison.histogram(x, 0.0, 1.0, bins=4, weights=w)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_histogram_integer_values_as_numpy(rng, dtype):
    # Integer values, compared with the edges as float64 (as NumPy compares them), with equal
    # bins (Unison's exact edges), given edges, weights and density.
    x = rng.integers(-50, 50, 10007).astype(dtype)
    for bins in (7, 100, [-60, -10.5, 0, 0, 3, 49]):
        got, edges = unison.histogram(x, bins)
        np.testing.assert_array_equal(got, np.histogram(x, edges)[0])
        if not isinstance(bins, int):
            np.testing.assert_array_equal(edges, np.asarray(bins))
    w = rng.uniform(0, 1, x.shape)
    got, edges = unison.histogram(x, 9, weights=w, density=True)
    np.testing.assert_allclose(got, np.histogram(x, edges, weights=w, density=True)[0],
                               rtol=1e-12)
    big = np.array([2**53, 2**53 + 1, 2**62, -2**62], np.int64)
    np.testing.assert_array_equal(unison.histogram(big, [-2.0**62, 2.0**53, 2.0**62])[0],
                                  np.histogram(big, [-2.0**62, 2.0**53, 2.0**62])[0])


@pytest.mark.parametrize("estimator", ["auto", "fd", "doane", "scott", "stone", "rice",
                                       "sturges", "sqrt"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_histogram_estimators_as_numpy(rng, estimator, dtype):
    # NumPy's estimators: the same edges as np.histogram_bin_edges, bit for bit, and the counts
    # over them; on fresh data of odd sizes, with and without a range
    for n in (1, 2, 7, 1001):
        x = (rng.normal(size=n) * 40).astype(dtype)
        for r in (None, (-30.5, 20.25)):
            want_c, want_e = np.histogram(x, estimator, range=r)
            c, e = unison.histogram(x, estimator, range=r)
            assert e.dtype == want_e.dtype and np.array_equal(e, want_e), (estimator, n, r)
            np.testing.assert_array_equal(c, want_c)
            assert np.array_equal(unison.histogram_bin_edges(x, estimator, range=r), want_e)


def test_histogram_bin_edges_of_equal_bins_and_edges(rng):
    x = rng.normal(size=101)
    c, e = unison.histogram(x, 9, range=(-2, 3))
    np.testing.assert_array_equal(unison.histogram_bin_edges(x, 9, range=(-2, 3)), e)
    edges = [-1.0, 0.0, 0.5, 4.0]
    np.testing.assert_array_equal(unison.histogram_bin_edges(x, edges), edges)
    with pytest.raises(ValueError, match=r"unison.histogram_bin_edges: the supplied range, "
                                         r"\[0.0, inf\], is not finite"):
        unison.histogram_bin_edges(x, 3, range=(0, np.inf))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_histogram_integer_weights_as_numpy(rng, dtype):
    # integer weights: exact sums in the weights' dtype, as NumPy's; with density, NumPy's floats
    for n in (0, 1, 1001):
        x = rng.normal(size=n)
        w = rng.integers(-1000, 1000, size=n).astype(dtype)
        for bins in (7, [-2.0, -0.5, 0.0, 0.25, 3.0]):
            want_c, want_e = np.histogram(x, bins, weights=w)
            c, e = unison.histogram(x, bins, weights=w)
            assert c.dtype == want_c.dtype
            np.testing.assert_array_equal(c, want_c)
            want_d = np.histogram(x, e, weights=w, density=True)[0]
            np.testing.assert_allclose(unison.histogram(x, bins, weights=w, density=True)[0],
                                       want_d, rtol=1e-12)


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
