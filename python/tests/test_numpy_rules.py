"""NumPy's argument rules where they cost no copy (broadcasting, array_likes, the output's memory
order, subclasses), and every refusal as a ValueError or TypeError naming the function and the
argument as the caller named it. Each family's own conventions are tested in its file."""
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


# --- clip as np.clip ---------------------------------------------------------------------------


# --- the histogram in NumPy's form ------------------------------------------------------------


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
