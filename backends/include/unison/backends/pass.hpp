#pragma once
/// \file unison/backends/pass.hpp
/// Which pass of the compiler reads the including code. A GPU build compiles every translation
/// unit twice: once for the host and once for the device (nvcc and clang for CUDA, hipcc for HIP).
/// The device pass still sees the host's predefined macros: clang defines the host target's
/// (__x86_64__, __SSE2__, __AVX512F__ ...) so that host headers parse, and nvcc mirrors the host
/// compiler's. A test of an instruction set's macro therefore does not say "host code"; this one
/// does, for every GPU compiler Unison builds with. Plain preprocessor tests, no other header.
///
/// UNISON_BACKENDS_DEVICE_PASS: 1 in a device pass (CUDA's __CUDA_ARCH__, HIP's
/// __HIP_DEVICE_COMPILE__, SYCL's __SYCL_DEVICE_ONLY__), 0 in host code. Every CPU path (host
/// vectors, intrinsics, non-temporal stores) is guarded by !UNISON_BACKENDS_DEVICE_PASS, and the
/// host vector types refuse to be instantiated in a device pass (unison/backends/host/memory.hpp).

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
#define UNISON_BACKENDS_DEVICE_PASS 1
#else
#define UNISON_BACKENDS_DEVICE_PASS 0
#endif
