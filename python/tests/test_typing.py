"""The package's types (unison/__init__.pyi) against the functions themselves: every function of
__all__ typed, with the parameters it has."""
import ast
import inspect
import pathlib

import pytest

import unison

pytestmark = pytest.mark.host_only  # the module's own functions, not CuPy's stand-ins

_FILE = getattr(unison, "__file__", None)  # (none in CuPy's stand-in)
STUB = pathlib.Path(_FILE).with_name("__init__.pyi") if _FILE else pathlib.Path("no stub")
if not STUB.exists():  # (the build tree holds no stub: the source's)
    STUB = pathlib.Path(__file__).resolve().parents[1] / "unison" / "__init__.pyi"


def stub_functions():
    """{name: [its ast.FunctionDef, one per overload]} of the stub."""
    found = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, []).append(node)
    return found


def parameters(node):
    """(name, kind, has a default, the default's value or ...) of a stub function's parameters."""
    a = node.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for arg, default in zip(positional, defaults):
        out.append((arg.arg, "POSITIONAL_OR_KEYWORD", default))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", None))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", default))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", None))
    return out


def test_the_package_says_it_is_typed():
    assert (pathlib.Path(__file__).resolve().parents[1] / "unison" / "py.typed").exists()


def test_every_function_is_typed_with_its_parameters():
    stub = stub_functions()
    assert set(unison.__all__) <= set(stub), set(unison.__all__) - set(stub)
    for name in unison.__all__:
        real = getattr(unison, name)
        try:
            signature = inspect.signature(real)
        except ValueError:  # a compiled function: its stub takes nothing
            assert all(parameters(n) == [] for n in stub[name]), name
            continue
        params = list(signature.parameters.values())
        if len(stub[name]) > 1:  # overloads: each one's keywords are the function's
            names = {p.name for p in params}
            for node in stub[name]:
                for arg, kind, _ in parameters(node):
                    assert kind != "KEYWORD_ONLY" or arg in names, (name, arg)
            continue
        typed = parameters(stub[name][0])
        assert [(t[0], t[1]) for t in typed] == [(p.name, p.kind.name) for p in params], name
        for (arg, _, default), p in zip(typed, params):
            assert (default is None) == (p.default is inspect.Parameter.empty), (name, arg)
            if isinstance(default, ast.Constant) and default.value is not Ellipsis:
                assert default.value == p.default, (name, arg, default.value, p.default)
        for node in stub[name]:
            assert node.returns is not None, name
            assert all(a.annotation is not None for a in node.args.args + node.args.kwonlyargs), name


# Which choice of _unison.choices each parameter of a choice takes (the test's own table).
CHOICE_OF = {"backend": "backend", "laplacian": "laplacian", "mode": "convolve_mode",
             "method": "matmul_method", "fusion": "fusion"}
ALGORITHM_OF = {"convolve": "convolve_algorithm", "diffusion_step": "stencil_algorithm",
                "diffuse": "stencil_algorithm"}


def test_the_stubs_choices_are_the_modules():
    # Each choice's words are spelled once, in the binding's table (_unison.choices); the stub's
    # literal types must name the same words.
    tree = ast.parse(STUB.read_text())
    aliases = {n.targets[0].id: n.value for n in tree.body
               if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}

    def words(node):
        found = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in aliases:
                found |= words(aliases[sub.id])
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                found.add(sub.value)
        return found

    choices = unison._unison.choices
    seen = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for arg in node.args.args + node.args.kwonlyargs:
            key = ALGORITHM_OF.get(node.name) if arg.arg == "algorithm" else CHOICE_OF.get(arg.arg)
            if key is None:
                continue
            assert words(arg.annotation) == set(choices[key]), (node.name, arg.arg)
            seen.add(key)
    assert seen == set(choices), set(choices) - seen
