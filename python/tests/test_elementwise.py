"""The element-wise family on NumPy arrays against float64 NumPy references, on every layout,
odd and zero sizes, both backends of the host build."""

import numpy as np
import pytest

import unison
from conftest import DTYPES, SIZES, broadcast_row, layouts

BACKENDS = [b for b in ("openmp", "serial") if b in unison.backends()]


def close(got, want, dtype, rtol32=2e-6, rtol64=1e-14, atol=0.0):
    rtol = rtol32 if dtype == np.float32 else rtol64
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SIZES)
def test_add_every_layout(rng, backend, dtype, shape):
    x0 = rng.standard_normal(shape).astype(dtype)
    y0 = rng.standard_normal(shape).astype(dtype)
    want = (x0.astype(np.float64) + y0).astype(dtype)  # one rounding: exact in dtype
    for xn, x in layouts(x0, rng):
        for yn, y in layouts(y0, rng):
            got = unison.add(x, y, backend=backend)
            assert type(got) is np.ndarray and got.shape == shape and got.dtype == dtype
            np.testing.assert_array_equal(got, want, err_msg=f"x {xn}, y {yn}")
        for on, out in layouts(np.zeros(shape, dtype), rng):
            r = unison.add(x, y0, out=out, backend=backend)
            assert r is out
            np.testing.assert_array_equal(out, want, err_msg=f"x {xn}, out {on}")


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_add_integers_and_scalars(rng, dtype):
    x = rng.integers(-1000, 1000, size=(13, 7)).astype(dtype)
    np.testing.assert_array_equal(unison.add(x, 5), x + 5)
    np.testing.assert_array_equal(unison.add(-3, x), x - 3)
    got = unison.add(x, 0.5)  # NumPy's rule: computed in float64
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x + 0.5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_add_broadcast_and_in_place(rng, dtype):
    shape = (9, 31)
    b, bv = broadcast_row(shape, dtype, rng)
    x = rng.standard_normal(shape).astype(dtype)
    want = (x.astype(np.float64) + bv).astype(dtype)
    np.testing.assert_array_equal(unison.add(x, b), want)
    unison.add(x, b, out=x)  # in place: out is x itself
    np.testing.assert_array_equal(x, want)
    s = np.float32(2.5) if dtype == np.float32 else np.float64(2.5)
    np.testing.assert_array_equal(unison.add(x, s), (x.astype(np.float64) + 2.5).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SIZES)
def test_hypot(rng, dtype, shape):
    x = (rng.standard_normal(shape) * 1e3).astype(dtype)
    y = (rng.standard_normal(shape) * 1e-3).astype(dtype)
    close(unison.hypot(x, y), np.hypot(x.astype(np.float64), y), dtype)
    close(unison.hypot(x, 3.0), np.hypot(x.astype(np.float64), 3.0), dtype)
    big = np.full(shape, np.finfo(dtype).max / 2, dtype)
    close(unison.hypot(big, big), np.hypot(big.astype(np.float64), big), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SIZES)
def test_gaussian_pdf(rng, dtype, shape):
    x = rng.standard_normal(shape).astype(dtype)
    for ln, xv in layouts(x, rng):
        got = unison.gaussian_pdf(xv, 0.5, 1.5)
        x64 = x.astype(np.float64)
        want = np.exp(-0.5 * ((x64 - 0.5) / 1.5) ** 2) / (1.5 * np.sqrt(2 * np.pi))
        close(got, want, dtype, rtol32=1e-5, rtol64=1e-13)
    mean = rng.standard_normal(shape).astype(dtype)
    sigma = (rng.random(shape) + 0.5).astype(dtype)
    m64, s64 = mean.astype(np.float64), sigma.astype(np.float64)
    want = np.exp(-0.5 * ((x.astype(np.float64) - m64) / s64) ** 2) / (s64 * np.sqrt(2 * np.pi))
    close(unison.gaussian_pdf(x, mean, sigma), want, dtype, rtol32=1e-5, rtol64=1e-13)
    with pytest.raises(ValueError, match="sigma"):
        unison.gaussian_pdf(x, 0.0, 0.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (1001,), (17, 33)])
def test_polar_distance(rng, dtype, shape):
    r1, r2 = (rng.random(shape) * 10).astype(dtype), (rng.random(shape) * 10).astype(dtype)
    t1, t2 = (rng.random(shape) * 6).astype(dtype), (rng.random(shape) * 6).astype(dtype)
    a, b, c, d = (v.astype(np.float64) for v in (r1, t1, r2, t2))
    want = np.hypot(a * np.cos(b) - c * np.cos(d), a * np.sin(b) - c * np.sin(d))
    tol = (1e-5 if dtype == np.float32 else 1e-13) * np.maximum(a, c)
    got = unison.polar_distance(r1, t1, r2, t2)
    assert np.all(np.abs(got - want) <= tol + 1e-30)


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64])
def test_zero_suppress(rng, dtype):
    w = (rng.standard_normal((5, 999)) * 300).astype(dtype)
    want = np.where(w < 15, 0, w).astype(dtype)
    np.testing.assert_array_equal(unison.zero_suppress(w, 15), want)
    th = np.full(w.shape, 15, dtype)
    np.testing.assert_array_equal(unison.zero_suppress(w, th), want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_clip(rng, dtype):
    x = rng.standard_normal((33, 17)).astype(dtype)
    x[3, 4] = np.nan
    for ln, xv in layouts(x, rng):
        np.testing.assert_array_equal(unison.clip(xv, -0.5, 0.25), np.clip(x, -0.5, 0.25))
    lo = np.full(x.shape, -0.1, dtype)
    np.testing.assert_array_equal(unison.clip(x, lo, 1.0), np.clip(x, lo, 1.0))
    np.testing.assert_array_equal(unison.clip(x, 1.0, 0.0), np.clip(x, 1.0, 0.0))  # lo > hi: hi


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 1001, 0])
def test_make_pulses(rng, dtype, n):
    t = (rng.random(n) * 100).astype(dtype)
    noise = (rng.standard_normal(n) * 0.01).astype(dtype)
    t64 = t.astype(np.float64)
    want = np.maximum(np.sin(t64 / 3.0) - 0.3, 0) * 2.0 + noise
    close(unison.make_pulses(t, noise, 3.0, 2.0), want, dtype, rtol32=1e-5, rtol64=1e-12,
          atol=2e-5 if dtype == np.float32 else 1e-13)  # sin of t / period up to 33
    with pytest.raises(ValueError, match="period"):
        unison.make_pulses(t, noise, 0.0, 2.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fusion", ["fused", "separate"])
def test_hidden_layer(rng, dtype, fusion):
    g = (rng.random(1003) * 255).astype(dtype)
    w = rng.standard_normal(1003).astype(dtype)
    want = np.tanh(g.astype(np.float64) / 255 * w)
    close(unison.hidden_layer(g, w, fusion=fusion), want, dtype, rtol32=1e-5, rtol64=1e-13,
          atol=1e-7 if dtype == np.float32 else 1e-15)
    with pytest.raises(ValueError, match="fusion"):
        unison.hidden_layer(g, w, fusion="both")
