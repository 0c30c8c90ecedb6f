#pragma once
/// \file unison/backends/host/instruction_set.hpp
/// The CPU vector instruction set that the including translation unit is compiled for, as the
/// CPU kernels (templates, compiled in the caller's code with the caller's flags) see it. Plain
/// preprocessor tests, no other header: the installed CMake package compiles this file with a
/// consumer's flags at configure time to warn when they leave the vector paths off.
///
/// - UNISON_BACKENDS_HOST_FMA_VECTORS: 1 where the CPU kernels run their full vector paths
///   (packs with fused multiply-add: AVX-512, or AVX2 with FMA, on x86-64; NEON on 64-bit ARM),
///   else 0. Without them the
///   kernels still give correct results, but the multiply-add heavy ones (the tiled
///   matmul-reduce, the convolution, the row-wise products) run far slower (docs/building.md):
///   x86-64's baseline (SSE2) has no fused multiply-add, so each lane's is a library call.
/// - unison::backends::host_vector_isa: the instruction set in words, for reports.
///
/// In a GPU build's device pass (unison/backends/pass.hpp) there are none: "none (scalar code)".

#include <unison/backends/pass.hpp>

#if !UNISON_BACKENDS_DEVICE_PASS && defined(__AVX512F__)
#define UNISON_BACKENDS_HOST_FMA_VECTORS 1
#define UNISON_BACKENDS_HOST_ISA_NAME "AVX-512 (64-byte vectors, fused multiply-add)"
#elif !UNISON_BACKENDS_DEVICE_PASS && defined(__AVX2__) && defined(__FMA__)
#define UNISON_BACKENDS_HOST_FMA_VECTORS 1
#define UNISON_BACKENDS_HOST_ISA_NAME "AVX2 (32-byte vectors, fused multiply-add)"
#elif !UNISON_BACKENDS_DEVICE_PASS && defined(__AVX__)
#define UNISON_BACKENDS_HOST_FMA_VECTORS 0
#define UNISON_BACKENDS_HOST_ISA_NAME "AVX (32-byte vectors, no fused multiply-add)"
#elif !UNISON_BACKENDS_DEVICE_PASS && defined(__aarch64__) && defined(__ARM_NEON)
#define UNISON_BACKENDS_HOST_FMA_VECTORS 1
#define UNISON_BACKENDS_HOST_ISA_NAME "NEON (16-byte vectors, fused multiply-add)"
#elif !UNISON_BACKENDS_DEVICE_PASS && defined(__SSE2__)
#define UNISON_BACKENDS_HOST_FMA_VECTORS 0
#define UNISON_BACKENDS_HOST_ISA_NAME "SSE2 (16-byte vectors, no fused multiply-add)"
#else
#define UNISON_BACKENDS_HOST_FMA_VECTORS 0
#define UNISON_BACKENDS_HOST_ISA_NAME "none (scalar code)"
#endif

namespace unison::backends {

/// The CPU vector instruction set of the translation unit that reads this, in words (for
/// example "AVX-512 (64-byte vectors, fused multiply-add)"). A constant of each translation unit
/// (internal linkage), so that units compiled with different flags each see their own.
constexpr const char* host_vector_isa = UNISON_BACKENDS_HOST_ISA_NAME;

}  // namespace unison::backends
