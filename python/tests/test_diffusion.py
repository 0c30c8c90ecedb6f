"""The diffusion family on NumPy arrays: against a float64 NumPy reference, every algorithm and
layout bitwise alike, diffuse_history's planes, and the errors."""

import numpy as np
import pytest

import unison
from conftest import DTYPES, ON_DEVICE, layouts

# Every stencil algorithm the module offers (its own list: a new one is tested here at once).
ALGORITHMS = tuple(unison._unison.choices["stencil_algorithm"])
# diffusion_step's (`resident` runs diffuse's steps in one launch) and diffuse's here (`resident`
# on a CUDA GPU only).
STEP_ALGORITHMS = tuple(a for a in ALGORITHMS if a != "resident")
DIFFUSE_ALGORITHMS = ALGORITHMS if ON_DEVICE else STEP_ALGORITHMS


def reference_step(f):
    f = f.astype(np.float64)
    p = np.pad(f, 1)
    lap = 4 * f - ((p[:-2, 1:-1] + p[2:, 1:-1]) + (p[1:-1, :-2] + p[1:-1, 2:]))
    return lap


def reference(f, steps, coeff):
    f = f.astype(np.float64)
    lap = np.zeros_like(f)
    for _ in range(steps):
        lap = reference_step(f)
        f = f - coeff * lap
    return f, lap


def tol(dtype, steps=1):
    return dict(rtol=0, atol=(2e-6 if dtype == np.float32 else 1e-14) * steps)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (1, 37), (37, 1), (13, 29), (130, 67)])
def test_diffusion_step(rng, dtype, shape):
    f = rng.random(shape).astype(dtype)
    want_f, want_lap = reference(f, 1, 0.2)
    results = []
    for alg in STEP_ALGORITHMS:
        for name, fv in layouts(f, rng):
            nxt, lap = unison.diffusion_step(fv, 0.2, algorithm=alg)
            np.testing.assert_allclose(lap, want_lap, **tol(dtype), err_msg=f"{alg} {name}")
            np.testing.assert_allclose(nxt, want_f, **tol(dtype), err_msg=f"{alg} {name}")
            results.append((nxt, lap))
    for nxt, lap in results[1:]:  # every algorithm and layout: the same bits
        np.testing.assert_array_equal(nxt, results[0][0])
        np.testing.assert_array_equal(lap, results[0][1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("laplacian", ["every_step", "final_only"])
def test_diffuse(rng, dtype, laplacian):
    f0 = rng.random((61, 45)).astype(dtype)
    want_f, want_lap = reference(f0, 9, 0.1)
    got = []
    for alg in DIFFUSE_ALGORITHMS:
        for name, fv in layouts(f0, rng):
            f = fv.copy(order="K") if name in ("C", "F") else fv
            f[...] = f0
            lap = unison.diffuse(f, 9, 0.1, laplacian=laplacian, algorithm=alg)
            np.testing.assert_allclose(f, want_f, **tol(dtype, 9), err_msg=f"{alg} {name}")
            np.testing.assert_allclose(lap, want_lap, **tol(dtype, 9), err_msg=f"{alg} {name}")
            got.append((np.array(f), np.array(lap)))
    for f, lap in got[1:]:
        np.testing.assert_array_equal(f, got[0][0])
        np.testing.assert_array_equal(lap, got[0][1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_diffuse_history(rng, dtype):
    f0 = rng.random((33, 50)).astype(dtype)
    f = f0.copy()
    history = np.zeros((4, 33, 50), dtype)
    planes = []

    def on_history(first, count):
        for k in range(count):
            planes.append((first + k, history[k].copy()))

    unison.diffuse_history(f, 10, 0.15, history, on_history)
    assert [p[0] for p in planes] == list(range(1, 11))
    g = f0.copy()
    for step, plane in planes:  # each plane: that step's Laplacian as diffuse gives it
        lap = unison.diffuse(g, 1, 0.15)
        np.testing.assert_array_equal(plane, lap, err_msg=f"step {step}")
    np.testing.assert_array_equal(f, g)


def test_diffusion_errors():
    f = np.ones((8, 8), np.float32)
    with pytest.raises(ValueError, match="algorithm is 'fast'"):
        unison.diffusion_step(f, 0.1, algorithm="fast")
    with pytest.raises(ValueError, match="diffusion_step takes plain"):
        unison.diffusion_step(f, 0.1, algorithm="resident")
    with pytest.raises(ValueError, match="tile_rows, tile_cols, steps_per_pass"):
        unison.diffuse(f, 2, 0.1, laplacian="final_only", algorithm="resident", steps_per_pass=2)
    if not ON_DEVICE:
        with pytest.raises(ValueError, match="resident algorithm needs a CUDA GPU"):
            unison.diffuse(f, 2, 0.1, algorithm="resident")
    with pytest.raises(ValueError, match="laplacian is 'some'"):
        unison.diffuse(f, 2, 0.1, laplacian="some")
    with pytest.raises(ValueError, match="unison.diffuse: steps is -1"):
        unison.diffuse(f, -1, 0.1)
    with pytest.raises(ValueError, match="coeff"):
        unison.diffuse(f, 1, float("nan"))
    lap = np.zeros((8, 7), np.float32)
    with pytest.raises(ValueError, match="unison::diffuse"):
        unison.diffuse(f, 1, 0.1, lap)
    with pytest.raises(ValueError, match="overlaps"):
        unison.diffuse(f, 1, 0.1, f)
    if not ON_DEVICE:  # (CuPy has no read-only arrays)
        ro = np.ones((4, 4))
        ro.flags.writeable = False
        with pytest.raises(ValueError, match="f .*read-only"):
            unison.diffuse(ro, 1, 0.1)


def test_temporary_memory_is_kept_and_released():
    """diffuse keeps its second buffer between calls; release_temporary_memory frees it."""
    unison.release_temporary_memory()
    assert unison.temporary_memory_bytes() == 0
    f = np.random.default_rng().uniform(-1, 1, (37, 53)).astype(np.float32)
    expected = reference(f, 3, 0.2)[0]
    for _ in range(2):
        g = f.copy()
        unison.diffuse(g, 3, 0.2)
        np.testing.assert_allclose(g, expected, **tol(np.float32, 3))
        assert unison.temporary_memory_bytes() >= f.nbytes
    unison.release_temporary_memory()
    assert unison.temporary_memory_bytes() == 0


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
