"""Unison's kernels on your own arrays.

Every function takes NumPy, CuPy, PyTorch or Numba arrays (any object that speaks DLPack, the
CUDA Array Interface or the buffer protocol) and works on their memory in place: no copy, no
conversion, but where NumPy's ufuncs convert (add, hypot and clip: mixed dtypes, dtype=, an out=
of another dtype, where=), which go through a temporary as NumPy's do. Arrays in host memory run
on the OpenMP backend (``backend="serial"`` for Serial),
arrays in CUDA device memory on the Cuda backend, on the caller's current stream (CuPy's,
PyTorch's) or on ``stream=``. The result goes into ``out=`` when it is given, else into a new
array of the first input's library, which the function returns.

Host calls release the GIL and return when the result is in memory. Device calls are enqueued
on the stream and return at once, ordered with the caller's own work on that stream.

Bad input raises ``ValueError`` (or ``TypeError`` for a wrong type) naming the function, the
argument and its dtype, shape, strides and device; nothing is written.
"""

import os as _os

from . import _build_info

# The CPU flags (as Linux's /proc/cpuinfo names them) of the compiler's instruction-set macros
# that _build_info.MACROS lists.
_CPU_FLAGS = {
    "SSE": "sse", "SSE2": "sse2", "SSE3": "pni", "SSSE3": "ssse3", "SSE4_1": "sse4_1",
    "SSE4_2": "sse4_2", "POPCNT": "popcnt", "AVX": "avx", "AVX2": "avx2", "FMA": "fma",
    "F16C": "f16c", "BMI": "bmi1", "BMI2": "bmi2", "LZCNT": "abm", "MOVBE": "movbe",
    "AVX512F": "avx512f", "AVX512CD": "avx512cd", "AVX512BW": "avx512bw", "AVX512DQ": "avx512dq",
    "AVX512VL": "avx512vl", "AVX512IFMA": "avx512ifma", "AVX512VBMI": "avx512vbmi",
    "AVX512VBMI2": "avx512_vbmi2", "AVX512VNNI": "avx512_vnni", "AVX512BITALG": "avx512_bitalg",
    "AVX512VPOPCNTDQ": "avx512_vpopcntdq", "AVX512BF16": "avx512_bf16",
    "AVX512FP16": "avx512_fp16", "AVXVNNI": "avx_vnni", "GFNI": "gfni", "VAES": "vaes",
    "VPCLMULQDQ": "vpclmulqdq", "PCLMUL": "pclmulqdq", "AES": "aes", "SHA": "sha_ni",
    "ADX": "adx", "RDRND": "rdrand", "RDSEED": "rdseed",
}


def _cpu_instruction_sets():
    """{macro: supported} for the instruction sets this CPU and its operating system support, by
    the CPU's own word (cpuid and xgetbv, asked by the small module _cpu, which is compiled for
    the compiler's baseline so that any CPU of the architecture loads it); None where that
    module is not there or knows no instruction set of this architecture."""
    try:
        from . import _cpu
    except ImportError:
        return None
    return dict(_cpu.instruction_sets()) or None


def _missing_instruction_sets(cpuinfo="/proc/cpuinfo"):
    """The instruction sets the compiled module may use that this CPU lacks, by the flags line of
    Linux's /proc/cpuinfo (none where it cannot be read or has no such line: other systems and
    other architectures are not checked). The import asks the CPU itself first
    (_cpu_instruction_sets): a kernel's list can lack a feature the CPU has."""
    try:
        with open(cpuinfo) as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags") and ":" in line), None)
    except OSError:
        return []
    if flags is None:
        return []
    have = set(flags)
    return [m for m in _build_info.MACROS if m in _CPU_FLAGS and _CPU_FLAGS[m] not in have]


# Before the compiled module is loaded: on a CPU without its instructions it would end the
# process with an illegal instruction. (UNISON_SKIP_CPU_CHECK=1 skips the check, should it be
# wrong.)
_missing, _said = [], ""
if _os.environ.get("UNISON_SKIP_CPU_CHECK") != "1":
    _sets = _cpu_instruction_sets()
    if _sets is not None:
        _missing = [m for m in _build_info.MACROS if _sets.get(m) is False]
        _said = "by the CPU's cpuid and xgetbv"
    else:
        _missing = _missing_instruction_sets()
        _said = f"/proc/cpuinfo has no {', '.join(_CPU_FLAGS[m] for m in _missing)}"
if _missing:
    _arch = f"-march={_build_info.ARCH}" if _build_info.ARCH else "the compiler's default"
    raise ImportError(
        f"unison: this build of the module is compiled for {_arch}"
        f"{' (the CPU of the machine that built it)' if _build_info.ARCH == 'native' else ''} and "
        f"uses instructions this CPU lacks: {', '.join(_missing)} ({_said}); loading it would end "
        "the process with an illegal instruction. Build the module on this machine (`pip install "
        "--no-build-isolation .` in Unison's source tree), or once for every machine it must run "
        "on: UNISON_CMAKE_ARGS=-DUNISON_HOST_ARCH=x86-64-v3 (AVX2 and FMA, x86-64 CPUs since "
        "about 2015; docs/python.md).")

from . import _unison  # noqa: E402  (after the check above)

__version__ = _unison.version

__all__ = [
    "add", "hypot", "gaussian_pdf", "polar_distance", "zero_suppress", "clip", "make_pulses",
    "hidden_layer", "l2_norm", "matmul_core", "histogram", "monte_carlo_pi", "diffusion_step",
    "histogram_bin_edges", "diffuse", "diffuse_history", "jagged_field", "convolve",
    "convolve_extent",
    "matmul_reduce", "backends", "finalize", "release_temporary_memory", "temporary_memory_bytes",
    "serial_below", "build_info",
]

backends = _unison.backends
finalize = _unison.finalize
release_temporary_memory = _unison.release_temporary_memory
temporary_memory_bytes = _unison.temporary_memory_bytes


def build_info():
    """What this build of the module is compiled for, as a dict: "version" (Unison's), "arch"
    (the -march value; "" for the compiler's default), "instruction_sets" (the compiler's
    instruction-set macros for it: "AVX2", "AVX512F", ...; the import checks the CPU has them),
    "backends" (as backends()), "cuda_architectures" (CMake's, "" without Cuda),
    "kokkos_version" and "compiler"."""
    return {
        "version": __version__,
        "arch": _build_info.ARCH,
        "instruction_sets": list(_build_info.MACROS),
        "backends": list(backends()),
        "cuda_architectures": _build_info.CUDA_ARCHITECTURES,
        "kokkos_version": _unison.kokkos_version,
        "compiler": _build_info.COMPILER,
    }


def serial_below(elements=None):
    """Host calls on the default backend (no backend= given) whose largest array has fewer than
    `elements` elements run on one thread, the Serial backend, with the same bits: no fork-join
    of OpenMP's threads, and no wait for one that another process's threads have pushed off its
    core. Returns the value before; None leaves it. 0: always OpenMP."""
    if elements is not None:
        elements = _integer("serial_below", "elements", elements, 0)
    return _unison.serial_below(elements)

# A child forked after import has neither OpenMP's threads nor a CUDA context: its host calls run
# on Serial (one RuntimeWarning says so), its device calls are refused (_unison's Call).
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_unison._after_fork_in_child)

from ._arrays import _integer  # noqa: E402
from ._convolve import convolve, convolve_extent  # noqa: E402
from ._diffusion import diffuse, diffuse_history, diffusion_step  # noqa: E402
from ._elementwise import (  # noqa: E402
    gaussian_pdf, hidden_layer, make_pulses, polar_distance, zero_suppress)
from ._field import jagged_field  # noqa: E402
from ._histogram import histogram, histogram_bin_edges  # noqa: E402
from ._matmul import matmul_reduce  # noqa: E402
from ._random import monte_carlo_pi  # noqa: E402
from ._rowwise import l2_norm, matmul_core  # noqa: E402
from ._ufuncs import add, clip, hypot  # noqa: E402

# The functions are unison's (their help, their reprs, the manual), whichever file defines them.
for _name in __all__:
    if type(globals()[_name]).__name__ == "function":
        globals()[_name].__module__ = __name__
del _name
