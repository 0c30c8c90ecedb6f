#!/usr/bin/env python3
"""Every family has the files and list entries that CONTRIBUTING.md's recipe for a new family names.

A family is a Doxygen group of the public headers (`\\defgroup NAME` in include/unison/*.hpp). For
each, this checks the rows of CONTRIBUTING.md's table "Adding a family" (each row's first cell
names the files; the rules below are keyed by those names, and the table and the rules must name
the same files, so that neither can change without the other):
  - include/unison/<family>.hpp: its public header, included by include/unison/unison.hpp (the MPI
    component, built apart, aside);
  - docs/reference/cpp/<family>.md: its page of the manual, listed in docs/reference/cpp.md;
  - tests/test_<family>.cpp: its test file, in the family list of tests/CMakeLists.txt;
  - benchmarks/cases/<family>.cpp: a workload's cases, registered under the family's name, built
    by benchmarks/CMakeLists.txt, and the family's entry in the workload registry (every entry is
    a family, and every registered family has an entry);
  - python/src/<family>.cpp: its bindings, built by python/CMakeLists.txt, with its Python half
    python/unison/_<family>.py and its tests python/tests/test_<family>.py.
A family without one of these is named in the table's note with the reason (NOT_ below); the
note and these lists must agree too. Prints what is missing and exits 1 if anything is.

    family_recipe.py [ROOT]   (ROOT: the repository, default this file's parent's parent)
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])

# Families that have no file of a row, and why (CONTRIBUTING.md's note says the same).
NOT_IN_UMBRELLA = {"mpi": "the MPI component, built apart (Unison::mpi)"}
NOT_TESTED_APART = {"core": "errors, version and temporary memory: test_temporary.cpp and every family's errors",
                    "mpi": "tests/mpi/, under mpiexec"}
NOT_A_WORKLOAD = {"core": "no kernels", "npy": "file input and output", "mpi": "benchmarks/mpi/",
                  "transform": "timed by the elementwise workload, whose functions are its instances",
                  "field": "timed by the diffusion workload, whose start field it makes"}
NOT_BOUND = {"core": "the module's own errors and memory", "npy": "NumPy reads and writes .npy itself",
             "mpi": "the module is built without MPI", "transform": "takes a C++ functor",
             "examples": "the tutorials' Kokkos patterns, kept in C++"}

ROWS = {
    "include/unison/<family>.hpp": "header",
    "docs/reference/cpp/<family>.md": "reference",
    "tests/test_<family>.cpp": "tests",
    "benchmarks/cases/<family>.cpp": "cases",
    "python/src/<family>.cpp": "bindings",
}

problems = []


def text(path):
    p = root / path
    return p.read_text() if p.exists() else ""


def families():
    found = set()
    for header in (root / "include/unison").glob("*.hpp"):
        found.update(re.findall(r"\\defgroup\s+(\w+)", header.read_text()))
    return sorted(found)


def recipe():
    """The first cells of CONTRIBUTING.md's table under "## Adding a family", and its note."""
    doc = text("CONTRIBUTING.md")
    m = re.search(r"^## Adding a family\n(.*?)(?=^## )", doc, re.S | re.M)
    if not m:
        problems.append('CONTRIBUTING.md has no section "## Adding a family"')
        return set(), ""
    section = m.group(1)
    cells = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            cells.update(re.findall(r"`([^`]*<family>[^`]*)`", line.split("|")[1]))
    return cells, section


def registry():
    """The families of the workload registry: the first string of each entry of workloads.cpp."""
    files = sorted(root.glob("apps/**/workloads.cpp")) + sorted(root.glob("benchmarks/**/workloads.cpp"))
    if not files:
        problems.append("no workload registry (workloads.cpp) under apps/ or benchmarks/")
        return set()
    return set(re.findall(r'^\s*\{\s*"(\w+)",', files[0].read_text(), re.M))


def main():
    names = families()
    if len(names) < 5:
        problems.append(f"only {len(names)} families found in include/unison: {names}")
    cells, section = recipe()
    for cell in sorted(cells - set(ROWS)):
        problems.append(f"CONTRIBUTING.md's family table names {cell}, which this test does not check")
    for row in sorted(set(ROWS) - cells):
        problems.append(f"CONTRIBUTING.md's family table does not name {row}")
    for exceptions in (NOT_IN_UMBRELLA, NOT_TESTED_APART, NOT_A_WORKLOAD, NOT_BOUND):
        for family in exceptions:
            if family not in names:
                problems.append(f"{family}: named as an exception here, but it is no family")
            elif f"`{family}`" not in section:
                problems.append(f"{family}: an exception here, not named in CONTRIBUTING.md's family note")

    umbrella = text("include/unison/unison.hpp")
    reference_index = text("docs/reference/cpp.md")
    test_list = re.search(r"foreach\(_name IN ITEMS(.*?)\)", text("tests/CMakeLists.txt"), re.S)
    test_list = set(test_list.group(1).split()) if test_list else set()
    bench_cmake = text("benchmarks/CMakeLists.txt")
    python_cmake = text("python/CMakeLists.txt")
    workloads = registry()
    registered = {}  # family: the case files that register it
    for case_file in (root / "benchmarks/cases").glob("*.cpp"):
        for family in re.findall(r'add_registration\(\s*"(\w+)"', case_file.read_text()):
            registered.setdefault(family, set()).add(case_file.stem)

    for f in names:
        if not (root / f"include/unison/{f}.hpp").exists():
            problems.append(f"{f}: no include/unison/{f}.hpp")
        if f not in NOT_IN_UMBRELLA and f"<unison/{f}.hpp>" not in umbrella:
            problems.append(f"{f}: include/unison/unison.hpp does not include <unison/{f}.hpp>")
        if not (root / f"docs/reference/cpp/{f}.md").exists():
            problems.append(f"{f}: no docs/reference/cpp/{f}.md")
        elif f"cpp/{f}.md" not in reference_index and f"cpp/{f}" not in reference_index:
            problems.append(f"{f}: docs/reference/cpp.md does not list cpp/{f}.md")
        tested = (root / f"tests/test_{f}.cpp").exists()
        if f in NOT_TESTED_APART:
            if tested:
                problems.append(f"{f}: has tests/test_{f}.cpp but is named as tested elsewhere")
        elif not tested:
            problems.append(f"{f}: no tests/test_{f}.cpp")
        elif f not in test_list:
            problems.append(f"{f}: not in tests/CMakeLists.txt's family list")
        if f in NOT_A_WORKLOAD:
            if f in workloads or f in registered:
                problems.append(f"{f}: a workload, but named as none")
        else:
            if f not in workloads:
                problems.append(f"{f}: no entry in the workload registry")
            if f not in registered.get(f, set()):
                problems.append(f"{f}: benchmarks/cases/{f}.cpp does not register it (add_registration(\"{f}\", ...))")
            if f"cases/{f}.cpp" not in bench_cmake:
                problems.append(f"{f}: benchmarks/CMakeLists.txt does not build cases/{f}.cpp")
        bound = (root / f"python/src/{f}.cpp").exists()
        if f in NOT_BOUND:
            if bound:
                problems.append(f"{f}: has python/src/{f}.cpp but is named as not bound")
        elif not bound:
            problems.append(f"{f}: no python/src/{f}.cpp")
        else:
            if f"src/{f}.cpp" not in python_cmake:
                problems.append(f"{f}: python/CMakeLists.txt does not build src/{f}.cpp")
            for path in (f"python/unison/_{f}.py", f"python/tests/test_{f}.py"):
                if not (root / path).exists():
                    problems.append(f"{f}: no {path}")
    for w in sorted(workloads - set(names)):
        problems.append(f"{w}: an entry of the workload registry, but no family")
    for family, stems in sorted(registered.items()):
        if family not in names:
            problems.append(f"benchmarks/cases/{min(stems)}.cpp registers {family}, which is no family")

    for p in problems:
        print("family_recipe:", p)
    print(f"family_recipe: {len(names)} families ({', '.join(names)}), {len(problems)} problems")
    return 1 if problems else 0


sys.exit(main())
