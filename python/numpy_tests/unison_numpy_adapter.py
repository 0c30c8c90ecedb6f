"""NumPy's own tests of the functions Unison mirrors, run against Unison's.

A pytest plugin (``-p unison_numpy_adapter``) for NumPy's test modules as installed with NumPy
(``--pyargs``). It keeps the tests listed in SELECTED and, while each of them runs, points the
names the test calls (``np.histogram``, ``np.clip``, ``ncu.hypot``, ...) at Unison's functions;
NumPy's assertions and its reference computations stay as NumPy wrote them.

expected_failures.txt lists the tests that fail, each with the documented difference from NumPy
it stands for (a phrase that must appear in docs/python.md). Such a test is strict: it must fail,
and with the TypeError or ValueError of a refusal. A test that now passes, or that fails on an
assertion (a wrong value), fails the run, so the list can only shrink.
"""
import pathlib
import types

import pytest

import unison

# The tests run, by module: (the start of a test's name in its module, the functions it tests).
# Left out, as tests of NumPy's ufunc machinery rather than of the functions: .reduce, .outer,
# .accumulate and .at; signature=/sig=; __array_ufunc__, __array_wrap__ and __array_prepare__
# overrides; ufunc attributes and low-level loops; histogramdd (Unison has no histogramdd).
SELECTED = {
    "numpy/lib/tests/test_histograms.py": [
        ("TestHistogram::", ("histogram", "histogram_bin_edges")),
        ("TestHistogramOptimBinNums::", ("histogram", "histogram_bin_edges")),
    ],
    "numpy/core/tests/test_numeric.py": [
        ("TestClip::", ("clip",)),
        ("TestConvolve::", ("convolve",)),
    ],
    "numpy/core/tests/test_umath.py": [
        ("TestHypot::test_simple", ("hypot",)),
        ("TestHypotSpecialValues::", ("hypot",)),
        ("test_addition_negative_zero", ("add",)),
    ],
    "numpy/core/tests/test_ufunc.py": [
        ("TestUfunc::test_out_broadcasts", ("add",)),
        ("TestUfunc::test_out_broadcast_errors", ("add",)),
        ("TestUfunc::test_casting_out_param", ("add",)),
        ("TestUfunc::test_where_param", ("add",)),
        ("TestUfunc::test_where_param_buffer_output", ("add",)),
        ("test_ufunc_input_casterrors", ("add",)),
        ("test_ufunc_input_floatingpoint_error", ("add",)),
    ],
}

# Tests of those classes that test something else, and why they are left out.
EXCLUDED = {
    "numpy/lib/tests/test_histograms.py::TestHistogram::test_big_arrays":
        "NumPy's histogramdd on 2.4 GB (Unison has no histogramdd)",
}

# Tests NumPy marks as its own expected failures that Unison passes: NumPy's mark is taken off,
# so that each must pass.
NUMPY_XFAILS_PASSED = {
    "numpy/core/tests/test_numeric.py::TestClip::test_clip_scalar_nan_propagation"
    "[arr0-amin0-amax0]":
        "a NaN in a 0-d bound gives NaN, as np.minimum(np.maximum(...)) (NumPy 1.24 drops it)",
}

_HERE = pathlib.Path(__file__).resolve().parent
_DOCS = _HERE.parent.parent / "docs" / "python.md"


def _expected_failures():
    """{test id: the documented difference}, from expected_failures.txt ("id  # difference")."""
    out = {}
    for n, line in enumerate((_HERE / "expected_failures.txt").read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test, sep, why = line.partition(" # ")
        if not sep or not why.strip():
            raise pytest.UsageError(f"expected_failures.txt:{n}: no documented difference named")
        out[test.strip()] = why.strip()
    return out


def _test_id(item):
    """numpy/<...>/test_x.py::Class::test_name[params]: the test's path inside NumPy."""
    path = pathlib.PurePath(item.path).as_posix()
    return path[path.rfind("/numpy/") + 1:] + "::" + item.nodeid.partition("::")[2]


def _selection(test):
    path, _, name = test.partition("::")
    for prefix, names in SELECTED.get(path, ()):
        if name.startswith(prefix):
            return names
    return None


def pytest_collection_modifyitems(session, config, items):
    expected = _expected_failures()
    docs = _DOCS.read_text()
    kept, dropped, seen, seen_own = [], [], set(), set()
    for item in items:
        test = _test_id(item)
        names = _selection(test)
        if names is None or test in EXCLUDED:
            dropped.append(item)
            continue
        item.unison_names = names
        if test in NUMPY_XFAILS_PASSED:
            item.own_markers[:] = [m for m in item.own_markers if m.name != "xfail"]
            seen_own.add(test)
        why = expected.get(test)
        if why is not None:
            seen.add(test)
            if why not in docs:
                raise pytest.UsageError(f"expected_failures.txt: {test}: the difference "
                                        f"{why!r} is not in docs/python.md")
            item.add_marker(pytest.mark.xfail(reason=why, strict=True,
                                              raises=(TypeError, ValueError)), append=False)
        kept.append(item)
    stale = sorted(set(expected) - seen)
    if stale:
        raise pytest.UsageError("expected_failures.txt names tests that were not collected: "
                                + ", ".join(stale))
    stale = sorted(set(NUMPY_XFAILS_PASSED) - seen_own)
    if stale:
        raise pytest.UsageError("NUMPY_XFAILS_PASSED names tests that were not collected: "
                                + ", ".join(stale))
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept


class _Proxy(types.ModuleType):
    """A module that is `base` but for the names given."""

    def __init__(self, base, **names):
        super().__init__(base.__name__)
        self.__dict__.update(names)
        self._base = base

    def __getattr__(self, name):
        return getattr(self._base, name)


def _clip_method(self, a, m, M, out=None, casting=None):
    # TestClip.fastclip: NumPy's a.clip(m, M, out, casting=...)
    kwargs = {} if casting is None else {"casting": casting}
    return unison.clip(a, m, M, out, **kwargs)


@pytest.fixture(autouse=True)
def _unison_names(request, monkeypatch):
    names = getattr(request.node, "unison_names", None)
    if names is None:
        yield
        return
    ours = {n: getattr(unison, n) for n in names}
    module = request.node.module
    for global_name in ("np", "ncu"):
        base = getattr(module, global_name, None)
        if isinstance(base, types.ModuleType):
            monkeypatch.setattr(module, global_name, _Proxy(base, **ours))
    for n, f in ours.items():
        if n in vars(module):
            monkeypatch.setattr(module, n, f)
    if "clip" in ours and request.cls is not None and hasattr(request.cls, "fastclip"):
        monkeypatch.setattr(request.cls, "fastclip", _clip_method)
    yield
