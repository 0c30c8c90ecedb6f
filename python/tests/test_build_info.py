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
    if info["arch"] == "native":  # this machine built it: it has what it uses
        assert unison._missing_instruction_sets() == []


def test_the_check_reads_cpuinfo_and_skips_what_it_cannot_read(tmp_path):
    assert unison._missing_instruction_sets(str(tmp_path / "no-such-file")) == []
    other = tmp_path / "cpuinfo"
    other.write_text("processor\t: 0\nFeatures\t: fp asimd\n")  # 64-bit ARM: not checked
    assert unison._missing_instruction_sets(str(other)) == []
    known = [m for m in unison._build_info.MACROS if m in unison._CPU_FLAGS]
    other.write_text("processor\t: 0\nflags\t\t: fpu\n")
    assert unison._missing_instruction_sets(str(other)) == known


def _import_on_a_cpu_with(flags, **env):
    """A fresh Python's `import unison` where /proc/cpuinfo says `flags`."""
    code = (
        "import builtins, io\n"
        "real = builtins.open\n"
        "def fake(path, *args, **kwargs):\n"
        "    if path == '/proc/cpuinfo':\n"
        f"        return io.StringIO('processor\\t: 0\\nflags\\t\\t: {flags}\\n')\n"
        "    return real(path, *args, **kwargs)\n"
        "builtins.open = fake\n"
        "import unison\n"
        "print('imported', unison.build_info()['arch'])\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_import_refuses_a_cpu_that_lacks_an_instruction_set():
    need = [unison._CPU_FLAGS[m] for m in unison._build_info.MACROS if m in unison._CPU_FLAGS]
    if not need:
        pytest.skip("compiled for no instruction set the check knows")
    missing = need[-1]
    refused = _import_on_a_cpu_with(" ".join(f for f in need if f != missing))
    assert refused.returncode != 0 and "imported" not in refused.stdout
    last = refused.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: unison: this build of the module is compiled for"), last
    assert f"/proc/cpuinfo has no {missing})" in last, last
    assert "UNISON_HOST_ARCH=x86-64-v3" in last and "illegal instruction" in last, last
    # The same flags with the missing one: it imports; and without it where the check is
    # skipped (this CPU has the instruction: the kernel's list is what lacks it).
    for flags, env in ((need, {}), (need[:-1], {"UNISON_SKIP_CPU_CHECK": "1"})):
        imported = _import_on_a_cpu_with(" ".join(flags), **env)
        assert imported.returncode == 0, imported.stderr
        assert imported.stdout.startswith("imported")
