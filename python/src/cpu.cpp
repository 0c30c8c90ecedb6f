// unison._cpu: the instruction sets this CPU and its operating system support, by the CPU's own
// word: cpuid's feature bits, and xgetbv's for the register state the system saves on a context
// switch (AVX's, AVX-512's). The package asks it before it loads _unison, which is compiled for
// the build machine's CPU (-march=native by default): on a CPU without those instructions that
// module would end the process with an illegal instruction. This module is compiled for the
// compiler's baseline (no -march), so that any x86-64 CPU loads it. Linux's /proc/cpuinfo, which
// the package reads where this module is not there, can leave out a feature that the CPU has
// (a virtual machine's kernel listing no "abm" for the LZCNT its CPU runs, say).
#include <pybind11/pybind11.h>

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define UNISON_CPU_X86 1
#else
#define UNISON_CPU_X86 0
#endif

namespace py = pybind11;

namespace {

#if UNISON_CPU_X86
struct Registers {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

// cpuid's leaf (and subleaf), all zero where the CPU has no such leaf.
Registers cpuid(unsigned leaf, unsigned subleaf) {
  Registers r;
  if (__get_cpuid_max(leaf & 0x80000000u, nullptr) < leaf) return r;
  __cpuid_count(leaf, subleaf, r.a, r.b, r.c, r.d);
  return r;
}

// XCR0: the register state the operating system saves (0 where it has not enabled xgetbv).
std::uint64_t saved_state(bool osxsave) {
  if (!osxsave) return 0;
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (std::uint64_t(hi) << 32) | lo;
}

bool bit(unsigned reg, int i) { return ((reg >> i) & 1u) != 0; }
#endif

// {compiler instruction-set macro name (as unison/_build_info.py lists them): supported}.
py::dict instruction_sets() {
  py::dict d;
#if UNISON_CPU_X86
  const Registers l1 = cpuid(1, 0), l7 = cpuid(7, 0), l7s1 = cpuid(7, 1),
                  ext = cpuid(0x80000001u, 0);
  const std::uint64_t state = saved_state(bit(l1.c, 27));
  // The YMM registers' state (SSE and AVX: XCR0 bits 1, 2) and the ZMM ones' (opmask, the upper
  // halves of ZMM0-15, ZMM16-31: bits 5 to 7).
  const bool ymm = (state & 0x6) == 0x6, zmm = (state & 0xe6) == 0xe6;
  d["SSE"] = bit(l1.d, 25);
  d["SSE2"] = bit(l1.d, 26);
  d["SSE3"] = bit(l1.c, 0);
  d["PCLMUL"] = bit(l1.c, 1);
  d["SSSE3"] = bit(l1.c, 9);
  d["FMA"] = bit(l1.c, 12) && ymm;
  d["SSE4_1"] = bit(l1.c, 19);
  d["SSE4_2"] = bit(l1.c, 20);
  d["MOVBE"] = bit(l1.c, 22);
  d["POPCNT"] = bit(l1.c, 23);
  d["AES"] = bit(l1.c, 25);
  d["AVX"] = bit(l1.c, 28) && ymm;
  d["F16C"] = bit(l1.c, 29) && ymm;
  d["RDRND"] = bit(l1.c, 30);
  d["BMI"] = bit(l7.b, 3);
  d["AVX2"] = bit(l7.b, 5) && ymm;
  d["BMI2"] = bit(l7.b, 8);
  d["AVX512F"] = bit(l7.b, 16) && zmm;
  d["AVX512DQ"] = bit(l7.b, 17) && zmm;
  d["RDSEED"] = bit(l7.b, 18);
  d["ADX"] = bit(l7.b, 19);
  d["AVX512IFMA"] = bit(l7.b, 21) && zmm;
  d["AVX512CD"] = bit(l7.b, 28) && zmm;
  d["SHA"] = bit(l7.b, 29);
  d["AVX512BW"] = bit(l7.b, 30) && zmm;
  d["AVX512VL"] = bit(l7.b, 31) && zmm;
  d["AVX512VBMI"] = bit(l7.c, 1) && zmm;
  d["AVX512VBMI2"] = bit(l7.c, 6) && zmm;
  d["GFNI"] = bit(l7.c, 8);
  d["VAES"] = bit(l7.c, 9) && ymm;
  d["VPCLMULQDQ"] = bit(l7.c, 10) && ymm;
  d["AVX512VNNI"] = bit(l7.c, 11) && zmm;
  d["AVX512BITALG"] = bit(l7.c, 12) && zmm;
  d["AVX512VPOPCNTDQ"] = bit(l7.c, 14) && zmm;
  d["AVX512VP2INTERSECT"] = bit(l7.d, 8) && zmm;
  d["AVX512FP16"] = bit(l7.d, 23) && zmm;
  d["AVXVNNI"] = bit(l7s1.a, 4) && ymm;
  d["AVX512BF16"] = bit(l7s1.a, 5) && zmm;
  d["LZCNT"] = bit(ext.c, 5);
#endif
  return d;
}

}  // namespace

PYBIND11_MODULE(_cpu, m) {
  m.doc() = "The instruction sets this CPU and its operating system support (cpuid, xgetbv).";
  m.def("instruction_sets", &instruction_sets,
        "{instruction-set macro name ('AVX2', 'AVX512F', 'LZCNT', ...): whether this CPU and its "
        "operating system support it}; empty on other architectures than x86-64.");
}
