"""NumPy's rules where they cost no copy (broadcasting, array_likes, the output's memory order,
convolve's and clip's conventions, the histogram's NumPy form), and every refusal as a
ValueError or TypeError naming the function and the argument as the caller named it."""

import re

import numpy as np
import pytest

import unison


def close(got, want, dtype):
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=tol, atol=tol)


# --- broadcasting ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs,ys", [((3, 4), (4,)), ((3, 1), (1, 5)), ((5,), (1,)), ((2, 3), ()),
                                   ((1, 7), (6, 7)), ((0, 4), (4,))])
def test_broadcasting(rng, dtype, xs, ys):
    x = rng.standard_normal(xs).astype(dtype)
    y = rng.standard_normal(ys).astype(dtype)
    want = x.astype(np.float64) + y.astype(np.float64)
    got = unison.add(x, y)
    assert got.shape == want.shape and got.dtype == dtype
    close(got, want, dtype)
    close(unison.add(y, x), want, dtype)
    h = unison.hypot(x, y)
    close(h, np.hypot(x.astype(np.float64), y.astype(np.float64)), dtype)
    out = np.zeros(want.shape, dtype)
    assert unison.add(x, y, out=out) is out
    close(out, want, dtype)


def test_broadcasting_of_bounds_and_parameters(rng):
    x = rng.standard_normal((4, 6))
    mean = rng.standard_normal(6)
    sigma = rng.uniform(0.5, 2.0, (4, 1))
    want = np.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))
    close(unison.gaussian_pdf(x, mean, sigma), want, np.float64)
    lo, hi = np.full(6, -0.5), 0.5
    close(unison.clip(x, lo, hi), np.clip(x, lo, hi), np.float64)


def test_broadcast_refusals():
    x = np.ones((3, 4))
    with pytest.raises(ValueError, match=r"unison.add: the shapes do not broadcast together: "
                                         r"x \(3, 4\), y \(3,\)"):
        unison.add(x, np.ones(3))
    with pytest.raises(ValueError, match=r"unison.add: non-broadcastable output: out has "
                                         r"shape \(4,\), but the inputs broadcast to \(3, 4\)"):
        unison.add(x, 1.0, out=np.ones(4))


# --- array_likes, 0-d arrays and Python numbers ------------------------------------------------

def test_array_likes(rng):
    x = rng.standard_normal(5).astype(np.float32)
    got = unison.add(x, [1, 2, 3, 4, 5])  # NumPy's int64 array: float32 + int64 is float64
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x + np.array([1, 2, 3, 4, 5]))
    got = unison.gaussian_pdf(x, [0, 0, 1, 1, 2])  # not a ufunc: converted to x's dtype
    assert got.dtype == np.float32
    assert np.array_equal(unison.add([1, 2], (3, 4)), np.array([4, 6]))  # NumPy's int64
    assert unison.add([1, 2], (3, 4)).dtype == np.int64
    assert unison.add([1.5], 2).dtype == np.float64
    r = unison.add(np.float64(1.5), 2.0)
    assert isinstance(r, np.ndarray) and r.shape == () and r[()] == 3.5
    r = unison.add(np.array(1.5), np.array(2.0))  # 0-d arrays: a 0-d result
    assert r.shape == () and r[()] == 3.5
    out = np.zeros(())
    assert unison.add(np.array(1.5), 1.0, out=out) is out and out[()] == 2.5
    close(unison.gaussian_pdf([0.0, 1.0]), [1 / np.sqrt(2 * np.pi),
                                            np.exp(-0.5) / np.sqrt(2 * np.pi)], np.float64)
    close(unison.gaussian_pdf([0, 1]), [1 / np.sqrt(2 * np.pi),
                                        np.exp(-0.5) / np.sqrt(2 * np.pi)], np.float64)
    close(unison.l2_norm([[3.0, 4.0], [6.0, 8.0]]), [5.0, 10.0], np.float64)
    close(unison.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]),
          np.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]), np.float64)
    c, e = unison.histogram([0.5, 1.5, 2.0], 2)
    assert list(c) == [1, 2] and list(e) == [0.5, 1.25, 2.0]


# --- the output's memory order ---------------------------------------------------------------

def test_output_order_follows_the_input(rng):
    x = np.asfortranarray(rng.standard_normal((5, 7)).astype(np.float32))
    for r in (unison.add(x, 1.0), unison.gaussian_pdf(x), unison.clip(x, -1, 1),
              unison.add(1.0, x), unison.hypot(x, x[0]), *unison.diffusion_step(x, 0.1),
              unison.diffuse(x.copy(order="F"), 2, 0.1)):
        assert r.flags.f_contiguous and not r.flags.c_contiguous
    c = np.ascontiguousarray(x)
    assert unison.add(c, 1.0).flags.c_contiguous
    assert unison.add(x[::2], 1.0).flags.c_contiguous  # neither order: C's
    f_next, lapl = unison.diffusion_step(x, 0.1)
    g_next, g_lapl = unison.diffusion_step(c, 0.1)
    np.testing.assert_array_equal(f_next, g_next)
    np.testing.assert_array_equal(lapl, g_lapl)


# --- convolve and convolve_extent as np.convolve ----------------------------------------------

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
    with pytest.raises(ValueError, match=r"mode is 'wide', expected 'full', 'same' or 'valid'"):
        unison.convolve_extent(3, 2, "wide")
    with pytest.raises(ValueError, match=r"unison.convolve: k \(float64, shape \(0,\), \w+\) "
                                         r"is empty"):
        unison.convolve(np.ones(3), np.ones(0))


# --- clip as np.clip ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_clip_as_numpy(rng, dtype):
    x = (rng.standard_normal(101) * 10).astype(dtype)
    for lo, hi in [(None, 3), (-2, None), (4, -4), (-3, 5)]:
        want = np.clip(x, lo, hi)
        got = unison.clip(x, lo, hi)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want, err_msg=f"{lo}, {hi}")
    with pytest.raises(ValueError, match=r"unison.clip: lo and hi are both None"):
        unison.clip(x, None, None)


def test_clip_keeps_infinities_and_nan():
    x = np.array([-np.inf, -1.0, np.nan, 2.0, np.inf])
    np.testing.assert_array_equal(unison.clip(x, None, 1.0), np.clip(x, None, 1.0))
    np.testing.assert_array_equal(unison.clip(x, 0.0, None), np.clip(x, 0.0, None))
    np.testing.assert_array_equal(unison.clip(x, 3.0, 1.0), np.clip(x, 3.0, 1.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_nan_bounds_as_numpy(rng, dtype):
    # A NaN bound, scalar or in an array (contiguous, strided, Fortran order, broadcast), gives
    # NaN there: NumPy's minimum(maximum(x, lo), hi), which np.clip computes since NumPy 1.25
    # (1.17 to 1.24 ignored a scalar NaN bound, with a DeprecationWarning).
    x = rng.uniform(-3, 3, (37, 41)).astype(dtype)
    lo = rng.uniform(-4, 0, (37, 41)).astype(dtype)
    hi = rng.uniform(0, 4, (37, 41)).astype(dtype)
    lo[rng.random(lo.shape) < 0.25] = np.nan
    hi[rng.random(hi.shape) < 0.25] = np.nan
    x[::7, ::5] = np.nan
    cases = [(x, lo, hi), (np.asfortranarray(x), np.asfortranarray(lo), hi),
             (x[:, :40:2], lo[:, 1::2], hi[:, :40:2]), (x, lo[0], hi[:, :1]), (x, np.nan, 1.0),
             (x, -1.0, np.nan), (x, lo, 1.0), (x, None, hi), (x.T, lo.T, None)]
    for i, (a, l, h) in enumerate(cases):
        want = a if l is None else np.maximum(a, l)
        want = want if h is None else np.minimum(want, h)
        got = unison.clip(a, l, h)
        assert got.dtype == dtype, i
        np.testing.assert_array_equal(got, want, err_msg=str(i))


# --- the histogram in NumPy's form ------------------------------------------------------------

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


# --- refusals that name the caller's own argument --------------------------------------------

@pytest.mark.parametrize("bad,what", [
    (np.ones(4, np.int32), "int32"), (np.ones(4, np.float16), "float16"),
    (np.ones(4, ">f8"), "float64 \\(non-native byte order\\)"),
])
def test_input_dtype_refusals_name_the_input(bad, what):
    # hypot computes where NumPy's hypot computes: int32 and >f8 in float64, float16 refused
    if bad.dtype == np.float16:
        with pytest.raises(TypeError, match=r"unison.hypot: x \(float16, shape \(4,\), numpy\): "
                                            r"NumPy computes this call in float16, which Unison "
                                            r"does not: expected float32 or float64"):
            unison.hypot(bad, 1.0)
    else:
        np.testing.assert_array_equal(unison.hypot(bad, 1.0), np.hypot(bad, 1.0))
    with pytest.raises(TypeError, match=rf"unison.gaussian_pdf: x \({what}"):
        unison.gaussian_pdf(bad)
    with pytest.raises(TypeError, match=rf"unison.convolve: x \({what}"):
        unison.convolve(bad, bad[:2])
    with pytest.raises(TypeError, match=rf"unison.diffuse: f \({what}"):
        unison.diffuse(bad.reshape(2, 2), 1, 0.1)


def test_byte_order_refusal_says_so():
    # Outputs and operands taken by the buffer protocol: the message names the byte order.
    swapped = np.ones(4, ">f8")
    with pytest.raises(TypeError, match=r"unison.gaussian_pdf: out has non-native byte order "
                                        r"\(buffer format '>d'\)"):
        unison.gaussian_pdf(np.ones(4), out=swapped)
    with pytest.raises(TypeError, match=r"unison.gaussian_pdf: mean has non-native byte order"):
        unison.gaussian_pdf(np.ones(4), swapped, 2.0)
    # add, hypot and clip convert it, as NumPy's ufuncs do
    unison.add(np.arange(4.0), 1.0, out=swapped)
    np.testing.assert_array_equal(swapped, np.arange(1.0, 5.0))
    np.testing.assert_array_equal(unison.clip(np.arange(4.0), swapped, 2.0),
                                  np.clip(np.arange(4.0), swapped, 2.0))
    with pytest.raises(TypeError, match=r"unison.histogram: counts has non-native byte order "
                                        r"\(buffer format '>q'\)"):
        unison.histogram(np.ones(4), 0.0, 1.0, np.zeros(3, ">i8"))


def test_refusals_name_the_argument():
    x = np.ones(4)
    with pytest.raises(TypeError, match=r"unison.gaussian_pdf: x \(float64.*\) and out \(float32\) "
                                        r"differ in dtype"):
        unison.gaussian_pdf(x, out=np.zeros(4, np.float32))
    with pytest.raises(TypeError, match=r"unison.convolve: k \(float32.*\) and out \(float64\)"):
        unison.convolve(x, np.ones(2, np.float32))
    with pytest.raises(ValueError, match=r"unison.convolve: out \(float64, shape \(3,\), \w+\): "
                                         r"expected shape \(5,\) \(full mode, x of 4, k of 2\)"):
        unison.convolve(x, x[:2], out=np.zeros(3))
    with pytest.raises(ValueError, match=r"unison.matmul_core: A \(float64, shape \(2, 2\), "
                                         r"\w+\): expected 3 dimensions"):
        unison.matmul_core(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"unison.matmul_core: out \(float64, shape \(1, 2, 3\), "
                                         r"\w+\): expected shape \(1, 2, 2\)"):
        unison.matmul_core(np.ones((1, 2, 2)), np.ones((1, 2, 2)), out=np.zeros((1, 2, 3)))
    with pytest.raises(ValueError, match=r"unison.gaussian_pdf: x \(float64, shape \(1, 1, 2\), "
                                         r"\w+\): expected 1 or 2 dimensions"):
        unison.gaussian_pdf(np.ones((1, 1, 2)), 1.0)
    with pytest.raises(ValueError, match=r"unison: stream is -1, not a CUDA stream handle"):
        unison.add(x, 1.0, stream=-1)
    with pytest.raises(TypeError, match=r"unison.add: backend is 5, expected one of 'openmp', "
                                        r"'serial', 'cuda'"):
        unison.add(x, 1.0, backend=5)
    with pytest.raises(ValueError, match=r"unison.add: backend is 'gpu'"):
        unison.add(x, 1.0, backend="gpu")
    with pytest.raises(ValueError, match=r"unison.monte_carlo_pi: seed is -1, expected 0 to "
                                         r"2\*\*64 - 1"):
        unison.monte_carlo_pi(10, seed=-1)
    with pytest.raises(TypeError, match=r"unison.monte_carlo_pi: samples is 2.5, not an integer"):
        unison.monte_carlo_pi(2.5)
    with pytest.raises(TypeError, match=r"unison.diffuse: steps is 1.5, not an integer"):
        unison.diffuse(np.ones((3, 3)), 1.5, 0.1)
    with pytest.raises(TypeError, match=r"unison.diffuse: f is a list; it is written into"):
        unison.diffuse([[1.0, 2.0]], 1, 0.1)
    with pytest.raises(TypeError, match=r"unison.add: y \(str\) is not an array_like"):
        unison.add(x, "abc")
    with pytest.raises(TypeError, match=r"unison.add: y \(list\) is not an array_like"):
        unison.add(x, [[1.0], [1.0, 2.0]])
    with pytest.raises(TypeError, match=r"unison.diffuse_history: on_history is 3, not callable"):
        unison.diffuse_history(np.ones((3, 3)), 1, 0.1, np.ones((1, 3, 3)), 3)
    with pytest.raises(TypeError, match=r"unison.hidden_layer: fusion is None"):
        unison.hidden_layer(x, x, fusion=None)


@pytest.mark.host_only
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # (np.matrix's own)
def test_subclasses_are_refused_by_name():
    m = np.ma.masked_array([1.0, 2.0, 1e30], mask=[0, 0, 1])
    with pytest.raises(TypeError, match=r"unison.add: x is a masked array: its mask would be "
                                        r"lost; pass numpy.asarray\(x\)"):
        unison.add(m, 1.0)
    with pytest.raises(TypeError, match=r"unison.add: out is a masked array"):
        unison.add(np.ones(3), 1.0, out=np.ma.masked_array(np.zeros(3)))
    with pytest.raises(TypeError, match=r"unison.l2_norm: V is a numpy.matrix, a subclass of "
                                        r"numpy.ndarray: its class would be lost"):
        unison.l2_norm(np.matrix([[1.0, 2.0]]))
    with pytest.raises(TypeError, match=r"unison.histogram: x is a masked array"):
        unison.histogram(m, 3)


@pytest.mark.host_only
def test_memmap_is_memory(tmp_path):
    mm = np.memmap(tmp_path / "a.bin", dtype=np.float64, mode="w+", shape=(5,))
    mm[:] = np.arange(5)
    close(unison.add(mm, 1.0), np.arange(1, 6), np.float64)
    unison.add(mm, 1.0, out=mm)
    close(np.asarray(mm), np.arange(1, 6), np.float64)


# --- diffuse of zero steps ---------------------------------------------------------------------

def test_diffuse_zero_steps_is_defined(rng):
    f = rng.standard_normal((9, 11)).astype(np.float32)
    before = f.copy()
    for laplacian in ("every_step", "final_only"):
        lapl = unison.diffuse(f, 0, 0.1, laplacian=laplacian)
        np.testing.assert_array_equal(lapl, np.zeros_like(f))
        np.testing.assert_array_equal(f, before)
    given = np.full_like(f, 7.0)
    assert unison.diffuse(f, 0, 0.1, given) is given
    np.testing.assert_array_equal(given, np.full_like(f, 7.0))  # a given lapl: untouched


def in_chunks_of(work, call):
    """call() with the long host calls checking for Ctrl-C every `work` cell updates or
    samples (the module's default is 2^27)."""
    before = unison._unison._interrupt_work(work)
    try:
        return call()
    finally:
        unison._unison._interrupt_work(before)


def test_long_calls_in_chunks_have_the_same_bits(rng):
    # the chunks between checks for Ctrl-C (whole passes of the diffusion; an even number of
    # samples) compute what one call does: here 8 or 16 steps a chunk, and 1000 samples
    f = rng.standard_normal((37, 53)).astype(np.float32)
    for laplacian, steps_per_pass in (("every_step", 0), ("final_only", 0), ("final_only", 2)):
        g = f.copy()
        a = in_chunks_of(37 * 53 * 8, lambda: unison.diffuse(
            g, 61, 0.05, laplacian=laplacian, steps_per_pass=steps_per_pass))
        h = f.copy()
        b = unison.diffuse(h, 61, 0.05, laplacian=laplacian, steps_per_pass=steps_per_pass)
        np.testing.assert_array_equal(g, h)
        np.testing.assert_array_equal(a, b)
    for samples in (100_001, 100_000, 4_321):
        one = unison.monte_carlo_pi(samples, seed=11)
        assert in_chunks_of(1000, lambda: unison.monte_carlo_pi(samples, seed=11)) == one
        assert in_chunks_of(999, lambda: unison.monte_carlo_pi(samples, seed=11)) == one


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


def same(got, want, fn):
    """Bit for bit as NumPy (add, clip); hypot within its documented ulps of NumPy's."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if fn is unison.hypot and want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps)
    else:
        np.testing.assert_array_equal(got, want)


UFUNCS = [(unison.add, np.add), (unison.hypot, np.hypot),
          (lambda x, y, **k: unison.clip(x, y, 3, **k), lambda x, y, **k: np.clip(x, y, 3, **k))]
MIXED = ["int32", "int64", "float32", "float64", "bool", "int16", "uint8", "float16", ">f8"]


@pytest.mark.parametrize("ours,theirs", UFUNCS)
def test_ufunc_dtypes_as_numpy(rng, ours, theirs):
    # Every pair of dtypes: NumPy's result dtype and values where NumPy computes in one of
    # Unison's dtypes (the operands converted), a TypeError naming it otherwise.
    fn = unison.hypot if ours is unison.hypot else None
    for dx in MIXED:
        for dy in MIXED:
            x = (rng.standard_normal((7, 5)) * 20).astype(dx)
            y = (rng.standard_normal(5) * 20).astype(dy)
            want = theirs(x, y)
            if want.dtype.name in ("float32", "float64", "int32", "int64") and not (
                    ours is unison.hypot and want.dtype.kind != "f"):
                same(ours(x, y), want, fn)
            else:
                with pytest.raises(TypeError, match=rf"NumPy computes this call in "
                                                    rf"{want.dtype.name}, which Unison does not"):
                    ours(x, y)
    x = rng.standard_normal(6).astype(np.float32)
    for scalar in (2, 2.5, np.float64(2.5), np.int64(3), np.float32(0.5), True):
        same(ours(x, scalar), theirs(x, scalar), fn)
        same(ours(x.astype(np.int32), scalar), theirs(x.astype(np.int32), scalar), fn)


@pytest.mark.parametrize("ours,theirs", UFUNCS)
def test_ufunc_keywords(rng, ours, theirs):
    fn = unison.hypot if ours is unison.hypot else None
    x, y = rng.normal(size=(5, 3)) * 10, rng.normal(size=3) * 10
    want = theirs(x, y)
    for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
        try:
            theirs(x, y, casting=casting, dtype=np.float64)
        except TypeError as e:  # clip's int bound with casting="no": NumPy's own refusal
            with pytest.raises(TypeError, match=re.escape(str(e))):
                ours(x, y, casting=casting, dtype=np.float64)
            continue
        same(ours(x, y, casting=casting, dtype=np.float64), want, fn)
    same(ours(x, y, dtype="float32", casting="same_kind"),
         theirs(x, y, dtype="float32", casting="same_kind"), fn)
    with pytest.raises(ValueError, match=r"casting is 'sometimes': casting must be one of 'no'"):
        ours(x, y, casting="sometimes")
    with pytest.raises(TypeError) as e:
        theirs(x, y, dtype=np.float32, casting="safe")
    with pytest.raises(TypeError, match=re.escape(str(e.value))):
        ours(x, y, dtype=np.float32, casting="safe")  # NumPy's own refusal
    for out_dtype in ("float32", "int32", "int64"):
        for casting in ("same_kind", "unsafe"):
            out, out_np = np.full((5, 3), 7, out_dtype), np.full((5, 3), 7, out_dtype)
            try:
                theirs(x, y, out=out_np, casting=casting)
            except TypeError as e:
                with pytest.raises(TypeError, match=re.escape(str(e))):
                    ours(x, y, out=out, casting=casting)
                assert (out == 7).all()  # refused before anything is written
                continue
            assert ours(x, y, out=out, casting=casting) is out
            same(out, out_np, fn)
    # where=: the elements it selects, the others of out as they were
    for where in (x > 0, [True, False, True], np.array(True), False):
        for out_dtype in ("float64", "float32"):
            out, out_np = np.full((5, 3), 7, out_dtype), np.full((5, 3), 7, out_dtype)
            assert ours(x, y, out=out, where=where) is out
            theirs(x, y, out=out_np, where=where)
            same(out, out_np, fn)
    got = ours(x, y, where=x > 0)  # no out: the elements where= skips are undefined
    same(got[x > 0], want[x > 0], fn)
    out = np.zeros((5, 3))
    with pytest.raises(ValueError, match=r"the shapes do not broadcast together: x \(5, 3\), "
                                         r"\w+ \(3,\), out \(5, 3\), where \(4,\)"):
        ours(x, y, out=out, where=np.ones(4, bool))
    with pytest.raises(ValueError, match=r"where= of shape \(2, 5, 3\) does not broadcast to "
                                         r"the result's shape \(5, 3\)"):
        ours(x, y, out=out, where=np.ones((2, 5, 3), bool))
    assert not out.any()


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_arrays_take_python_ints_they_hold(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min + 1, -3, 0, 5, info.max - 7], dtype=dtype)
    for big in (info.max - 2, info.min + 3, 2**53 + 1, -(2**53) - 1):
        if not info.min <= big <= info.max:
            continue
        np.testing.assert_array_equal(unison.clip(x, big, None), np.clip(x, big, None))
        np.testing.assert_array_equal(unison.clip(x, None, big), np.clip(x, None, big))
        np.testing.assert_array_equal(unison.add(np.zeros(3, dtype), big),
                                      np.zeros(3, dtype) + np.array(big, dtype))
    with pytest.raises(ValueError, match=rf"unison.add: y is {2**70}, which {dtype} cannot hold"):
        unison.add(x, 2**70)
    for lo in (0.5, np.float64(0), 2**40, -(2**63), 2**63):  # NumPy's result dtype and values
        try:
            want = np.clip(x, lo, 3)
        except OverflowError:  # NumPy 2: an int its dtype cannot hold
            with pytest.raises(ValueError, match=rf"unison.clip: .*{lo}"):
                unison.clip(x, lo, 3)
            continue
        got = unison.clip(x, lo, 3)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_convolve_modes_as_numpy(rng):
    x, k = rng.normal(size=37), rng.normal(size=5)
    for code, word in ((0, "valid"), (1, "same"), (2, "full")):
        np.testing.assert_array_equal(unison.convolve(x, k, code), unison.convolve(x, k, word))
        assert unison.convolve_extent(37, 5, code) == unison.convolve_extent(37, 5, word)
    for short, word in (("f", "full"), ("S", "same"), ("Valid", "valid")):
        with pytest.warns(DeprecationWarning, match=rf"mode '{short}' taken as '{word}'"):
            np.testing.assert_array_equal(unison.convolve(x, k, short),
                                          unison.convolve(x, k, word))
    with pytest.raises(ValueError, match=r"mode is -1, expected 0 \(valid\), 1 \(same\) or 2"):
        unison.convolve(x, k, -1)
    with pytest.raises(TypeError, match=r"mode is None, expected 'full', 'same' or 'valid'"):
        unison.convolve(x, k, None)
    with pytest.raises(ValueError, match=r"mode is 'middle', expected 'full', 'same' or"):
        unison.convolve(x, k, "middle")


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


@pytest.mark.parametrize("ours,theirs", UFUNCS)
def test_ufuncs_of_any_rank(rng, ours, theirs):
    # Past rank 2, the axes the strides let merge are merged (no copy), the others looped over.
    fn = unison.hypot if ours is unison.hypot else None
    x = rng.standard_normal((4, 5, 6, 7))
    cases = [(x, rng.standard_normal((6, 1))), (x[:, ::2, :, 1:], 0.5),
             (np.asfortranarray(x), rng.standard_normal(7)), (x.transpose(2, 0, 3, 1), 1.5),
             (rng.standard_normal((1, 3, 1)), rng.standard_normal((2, 1, 1, 4)))]
    for a, b in cases:
        same(ours(a, b), theirs(a, b), fn)
    out, out_np = np.zeros((5, 4, 3)), np.zeros((5, 4, 3))  # out broadcasts the operands
    ours(np.arange(3.0).reshape(1, 3), 2.0, out=out)
    theirs(np.arange(3.0).reshape(1, 3), 2.0, out=out_np)
    same(out, out_np, fn)

