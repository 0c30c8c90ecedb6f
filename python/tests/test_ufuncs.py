"""add, hypot and clip as NumPy's ufuncs (dtypes, casting=, dtype=, out= of another dtype, where=,
any rank), and clip's bounds, against NumPy."""
import re

import numpy as np
import pytest

import unison


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
