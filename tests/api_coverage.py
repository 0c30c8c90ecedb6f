#!/usr/bin/env python3
"""Every public function has its test, its benchmark case and its Python binding.

The public functions are those that open a Kokkos Tools region of their name (every public call
opens "unison::<function>", CONTRIBUTING.md): found in the public headers, include/unison/*.hpp.
For each, this checks that
  - a test calls it: tests/test_*.cpp (the MPI component's: tests/mpi/);
  - a benchmark case calls it: benchmarks/cases/*.cpp (the MPI component's: benchmarks/mpi/);
    and, given UNISON_BENCH (the unison-bench-cases program), a case of its manifest names it among the
    public functions it times ("api"; unison-bench-cases --unison_manifest), and every name a case
    gives there is a public function;
  - the Python module binds it in the binding file named after its header (python/src/<header>.cpp
    for include/unison/<header>.hpp), or docs/python.md's "C++ only" table names it with a reason.
Prints what is missing and exits 1 if anything is.

    api_coverage.py [ROOT [UNISON_BENCH]]   (ROOT: the repository, default this file's parent's
                                             parent)
"""
import json
import os
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
bench = sys.argv[2] if len(sys.argv) > 2 else None


def read(paths):
    return "\n".join(p.read_text() for p in paths)


def functions():
    """(qualified name, header stem) for every region a public header opens."""
    found = {}
    for header in sorted((root / "include/unison").glob("*.hpp")):
        for name in re.findall(r'Region\s*\w*\s*\(\s*"unison::([\w:]+)"', header.read_text()):
            found.setdefault(name, header.stem)
    return found


def cpp_only():
    """The names in docs/python.md's "C++ only" table, with their reasons."""
    text = (root / "docs/python.md").read_text()
    section = re.search(r"^### C\+\+ only\n(.*?)(?=^#)", text, re.M | re.S)
    names = {}
    if section:
        for row in re.findall(r"^\|(.+)\|(.+)\|\s*$", section.group(1), re.M):
            reason = row[1].strip()
            if not reason or set(reason) <= set("-:"):
                continue
            for name in re.findall(r"`([\w:]+)`", row[0]):
                names[name] = reason
    return names


def calls(text, name):
    """Whether text calls the function (its last name component, as a call or a member call)."""
    last = name.split("::")[-1]
    member = "::" in name and name.split("::")[-2][:1].isupper()  # Class::method
    pattern = rf"\.{last}\s*\(" if member else rf"(?<![\w.]){last}\s*(<[^;()]*>)?\s*\("
    return re.search(pattern, text) is not None


def manifest_api():
    """{public function: [case names]} from unison-bench-cases's manifest."""
    out = subprocess.run([bench, "--unison_manifest"], check=True, capture_output=True, text=True,
                         env={**os.environ, "OMP_PROC_BIND": "false"}).stdout
    timed = {}
    for case in json.loads(out)["cases"]:
        for name in case["api"]:
            timed.setdefault(name, []).append(case["name"])
    return timed


def main():
    fns = functions()
    timed = manifest_api() if bench else None
    only = cpp_only()
    tests = read((root / "tests").glob("test_*.cpp"))
    mpi_tests = read((root / "tests/mpi").glob("*.cpp"))
    benches = read((root / "benchmarks/cases").glob("*.cpp"))
    mpi_benches = read((root / "benchmarks/mpi").glob("*.cpp"))
    missing = []
    for name, header in sorted(fns.items()):
        mpi = name.startswith("mpi::")
        if not calls(mpi_tests if mpi else tests, name):
            missing.append(f"{name} (include/unison/{header}.hpp): no test calls it "
                           f"({'tests/mpi/' if mpi else 'tests/test_*.cpp'})")
        if not calls(mpi_benches if mpi else benches, name):
            missing.append(f"{name}: no benchmark case calls it "
                           f"({'benchmarks/mpi/' if mpi else 'benchmarks/cases/*.cpp'})")
        if timed is not None and not mpi and name not in timed:
            missing.append(f"{name}: no case of unison-bench-cases's manifest times it (Case::api)")
        binding = root / "python/src" / f"{header}.cpp"
        bound = binding.exists() and re.search(rf'm\.def\(\s*"{name.split("::")[-1]}"', binding.read_text())
        if not bound and name not in only:
            missing.append(f"{name}: not bound in python/src/{header}.cpp, and not in docs/python.md's "
                           "\"C++ only\" table")
        if bound and name in only:
            missing.append(f"{name}: bound in python/src/{header}.cpp, yet in the \"C++ only\" table")
    for name in sorted(set(timed or {}) - set(fns)):
        missing.append(f"{name}: named by the manifest's case {timed[name][0]}, but no public function")
    for name in sorted(set(only) - set(fns)):
        missing.append(f"{name}: in docs/python.md's \"C++ only\" table, but no public function")
    for line in missing:
        print("api_coverage:", line)
    cases = f", {sum(map(len, timed.values()))} (case, function) pairs in the manifest" if timed else ""
    print(f"api_coverage: {len(fns)} public functions, {len(only)} C++ only{cases}, {len(missing)} missing")
    return 1 if missing or not fns else 0


if __name__ == "__main__":
    sys.exit(main())
