"""pip's way into the CMake build of the Python module (docs/python.md, "pip install").

The module is the CMake target unison_python; this script configures a build folder, builds that
target and puts the module where pip packages it. Environment variables:
  UNISON_BUILD_DIR   the build folder (default build/pip-<python version>; an existing one, such
                     as a preset's, keeps its configuration, with UNISON_ENABLE_PYTHON turned on)
  UNISON_CMAKE_ARGS  more arguments for a new folder's configuration, e.g.
                     "-DUNISON_KOKKOS_DEVICES=SERIAL;OPENMP;CUDA -DUNISON_CUDA_ARCH=90"
  UNISON_DEPS_DIR    the dependency archives for an offline build (as for any build)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    match = re.search(r"project\(Unison VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    return match.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        tag = f"{sys.version_info[0]}.{sys.version_info[1]}"
        build = Path(os.environ.get("UNISON_BUILD_DIR") or ROOT / "build" / f"pip-{tag}")
        build = build if build.is_absolute() else ROOT / build
        args = ["-DUNISON_ENABLE_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
        if not (build / "CMakeCache.txt").exists():
            args += ["-DCMAKE_BUILD_TYPE=Release", "-DUNISON_ENABLE_TESTS=OFF",
                     "-DUNISON_ENABLE_BENCHMARKS=OFF"]
            if shutil.which("ninja"):
                args += ["-G", "Ninja"]
            args += shlex.split(os.environ.get("UNISON_CMAKE_ARGS", ""))
        if not getattr(self, "_unison_built", False):  # (one build makes both modules)
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), *args], check=True)
            subprocess.run(["cmake", "--build", str(build), "--target", "unison_python"],
                           check=True)
            self._unison_built = True
        # The module as CMake built it (python/unison/_unison<suffix>, _cpu<suffix>), under pip's
        # name for it.
        name = ext.name.split(".")[-1]
        built = [p for p in (build / "python" / "unison").glob(f"{name}.*")
                 if p.name.endswith(tuple(self._suffixes()))]
        if len(built) != 1:
            sys.exit(f"unison: expected one built {name} in {build}/python/unison, found {built}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)
        # What it is compiled for, which the package reads before it loads the module.
        shutil.copyfile(build / "python" / "unison" / "_build_info.py", target.parent / "_build_info.py")

    @staticmethod
    def _suffixes():
        import importlib.machinery
        return importlib.machinery.EXTENSION_SUFFIXES


setup(
    version=project_version(),
    packages=["unison"],
    package_dir={"unison": "python/unison"},
    package_data={"unison": ["__init__.pyi", "py.typed"]},  # its types
    exclude_package_data={"unison": ["_build_info.py.in"]},  # (the build's template)
    # _unison (the kernels, compiled for the build machine's CPU) and _cpu (what this CPU has,
    # asked before _unison is loaded; compiled for any CPU of the architecture).
    ext_modules=[Extension("unison._unison", sources=[]), Extension("unison._cpu", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
