"""What the module says it is compiled for, and the import's check that the CPU has it."""
import os
import subprocess
import sys

import pytest

import unison


def test_build_info_says_what_the_module_is_compiled_for():
    info = unison.build_info()
    assert set(info) == {"version", "arch", "instruction_sets", "backends", "cuda_architectures",
                         "kokkos_version", "compiler"}
    assert info["version"] == unison.__version__
    assert info["backends"] == list(unison.backends())
    assert "openmp" in info["backends"]
    major, minor, patch = info["kokkos_version"].split(".")
    assert int(major) >= 4 and minor.isdigit() and patch.isdigit()
    assert info["compiler"].split()[0] in {"GNU", "Clang", "NVHPC", "IntelLLVM"}
    assert all(isinstance(m, str) and m.isupper() for m in info["instruction_sets"])
    if os.uname().machine == "x86_64":
        assert "SSE2" in info["instruction_sets"]  # every x86-64 compiler's baseline


def test_the_check_reads_cpuinfo_and_skips_what_it_cannot_read(tmp_path):
    assert unison._missing_instruction_sets(str(tmp_path / "no-such-file")) == []
    other = tmp_path / "cpuinfo"
    other.write_text("processor\t: 0\nFeatures\t: fp asimd\n")  # 64-bit ARM: not checked
    assert unison._missing_instruction_sets(str(other)) == []
    known = [m for m in unison._build_info.MACROS if m in unison._CPU_FLAGS]
    other.write_text("processor\t: 0\nflags\t\t: fpu\n")
    assert unison._missing_instruction_sets(str(other)) == known


def test_the_cpu_answers_for_itself():
    """The import asks the CPU (cpuid and xgetbv, through unison._cpu, compiled for the
    compiler's baseline): what it says agrees with the kernel's list where the kernel lists a
    feature (the kernel never lists one the CPU lacks; it may leave out one the CPU has)."""
    sets = unison._cpu_instruction_sets()
    if os.uname().machine != "x86_64":
        assert sets is None
        return
    assert sets["SSE2"] is True  # every x86-64 CPU's
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    listed = [m for m, flag in unison._CPU_FLAGS.items() if flag in flags and m in sets]
    assert listed, "no feature both know"
    assert [m for m in listed if not sets[m]] == []
    # What the module is compiled for, this CPU runs (it is running it).
    assert [m for m in unison._build_info.MACROS if sets.get(m) is False] == []


def _import_on_a_cpu_with(flags, cpu=None, **env):
    """A fresh Python's `import unison` where /proc/cpuinfo says `flags` and unison._cpu (the
    CPU's own word) says {macro: bool} `cpu`, or is not there (None)."""
    code = (
        "import builtins, io, sys, types\n"
        "real = builtins.open\n"
        "def fake(path, *args, **kwargs):\n"
        "    if path == '/proc/cpuinfo':\n"
        f"        return io.StringIO('processor\\t: 0\\nflags\\t\\t: {flags}\\n')\n"
        "    return real(path, *args, **kwargs)\n"
        "builtins.open = fake\n")
    if cpu is None:
        code += "sys.modules['unison._cpu'] = None\n"  # its import fails
    else:
        code += ("cpu = types.ModuleType('unison._cpu')\n"
                 f"cpu.instruction_sets = lambda: {cpu!r}\n"
                 "sys.modules['unison._cpu'] = cpu\n")
    code += "import unison\nprint('imported', unison.build_info()['arch'])\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def _refusal(result):
    assert result.returncode != 0 and "imported" not in result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: unison: this build of the module is compiled for"), last
    assert "UNISON_HOST_ARCH=x86-64-v3" in last and "illegal instruction" in last, last
    return last


def _imports(result):
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("imported")


def test_import_refuses_a_cpu_that_lacks_an_instruction_set():
    need = [m for m in unison._build_info.MACROS if m in unison._CPU_FLAGS]
    if not need:
        pytest.skip("compiled for no instruction set the check knows")
    flags = [unison._CPU_FLAGS[m] for m in need]
    missing = need[-1]
    every = {m: True for m in unison._build_info.MACROS}
    # The CPU's own word first: it lacks one, whatever the kernel lists.
    last = _refusal(_import_on_a_cpu_with(" ".join(flags), cpu={**every, missing: False}))
    assert f"lacks: {missing} (by the CPU's cpuid and xgetbv)" in last, last
    # It has them all, though the kernel's list lacks one (as on a virtual machine whose kernel
    # lists no "abm" for the LZCNT its CPU runs): it imports.
    _imports(_import_on_a_cpu_with(" ".join(flags[:-1]), cpu=every))
    # Without unison._cpu (another architecture's build, say): by the kernel's list.
    last = _refusal(_import_on_a_cpu_with(" ".join(flags[:-1])))
    assert f"/proc/cpuinfo has no {flags[-1]})" in last, last
    _imports(_import_on_a_cpu_with(" ".join(flags)))
    # The check skipped: it imports.
    _imports(_import_on_a_cpu_with(" ".join(flags[:-1]), cpu={**every, missing: False},
                                   UNISON_SKIP_CPU_CHECK="1"))
