# Where Unison's dependencies come from, in this order:
#   1. an installed Kokkos (>= 4.6.01) and Kokkos Kernels, found with find_package
#      (CMAKE_PREFIX_PATH, Kokkos_ROOT, KokkosKernels_ROOT);
#   2. else the pinned releases (Kokkos 4.6.01, Kokkos Kernels 4.6.02), built as part of this
#      project: taken from the folder UNISON_DEPS_DIR when it holds the release archives (offline
#      builds: CI and the GPU machine use ../shared/deps), otherwise downloaded from upstream.
# GoogleTest and Google Benchmark follow the same rule (unison_provide_gtest/benchmark).
#
# The backends wanted come from UNISON_KOKKOS_DEVICES (e.g. "SERIAL;OPENMP;CUDA"), the GPU
# architecture from UNISON_CUDA_ARCH (a compute capability such as 90), Kokkos' bounds checking
# from UNISON_BOUNDS_CHECK. An installed Kokkos is checked against them.

include_guard(GLOBAL)
include(FetchContent)
include(${CMAKE_CURRENT_LIST_DIR}/UnisonKokkosSources.cmake)
set(_unison_cmake_dir ${CMAKE_CURRENT_LIST_DIR})

set(UNISON_DEPS_DIR "$ENV{UNISON_DEPS_DIR}" CACHE PATH
    "Folder of dependency release archives (kokkos-4.6.01.tar.gz, ...) used instead of downloads")
set(UNISON_KOKKOS_DEVICES "SERIAL;OPENMP" CACHE STRING "Kokkos backends Unison needs (SERIAL, OPENMP, CUDA)")
set(UNISON_CUDA_ARCH "90" CACHE STRING "CUDA compute capability to build for when CUDA is enabled (90: H100/H200)")
option(UNISON_BOUNDS_CHECK "Build the fetched Kokkos with bounds checking (debug preset)" OFF)
set(UNISON_HOST_BLAS "AUTO" CACHE STRING
    "OpenBLAS under Kokkos Kernels' GEMM on CPUs: AUTO (when found), ON (required) or OFF")
set_property(CACHE UNISON_HOST_BLAS PROPERTY STRINGS AUTO ON OFF)

if(UNISON_DEPS_DIR AND NOT IS_ABSOLUTE "${UNISON_DEPS_DIR}")
  # A relative folder is taken from the project's root (UNISON_DEPS_DIR=../shared/deps).
  get_filename_component(UNISON_DEPS_DIR "${UNISON_DEPS_DIR}" ABSOLUTE BASE_DIR "${CMAKE_SOURCE_DIR}")
endif()

set(_unison_kokkos_version 4.6.01)
set(_unison_kokkos_sha256 43190b118d0cf108b39a28f985058eecdc73370be57082a1d961c1d978ede104)
set(_unison_kk_version 4.6.02)
set(_unison_kk_sha256 52be6846f24ece6699c55fc1a59194992b05401c25d6684158679c5112c775ed)
set(_unison_gtest_version 1.17.0)
set(_unison_gtest_sha256 65fab701d9829d38cb77c14acdc431d2108bfdbf8979e40eb8ae567edf10b27c)
set(_unison_benchmark_version 1.9.5)
set(_unison_benchmark_sha256 9631341c82bac4a288bef951f8b26b41f69021794184ece969f8473977eaa340)

# Declare a FetchContent dependency from UNISON_DEPS_DIR/<file> if present, else from <url>.
function(_unison_declare name file url sha256)
  if(UNISON_DEPS_DIR AND EXISTS "${UNISON_DEPS_DIR}/${file}")
    set(_where "${UNISON_DEPS_DIR}/${file}")
  elseif(UNISON_DEPS_DIR)
    message(FATAL_ERROR "Unison: UNISON_DEPS_DIR is ${UNISON_DEPS_DIR} but it has no ${file}")
  else()
    set(_where "${url}")
  endif()
  message(STATUS "Unison: building ${name} from ${_where}")
  FetchContent_Declare(${name} URL "${_where}" URL_HASH SHA256=${sha256} ${ARGN})
endfunction()

function(_unison_cuda_arch_name cc out)
  set(_map 70 VOLTA70 72 VOLTA72 75 TURING75 80 AMPERE80 86 AMPERE86 89 ADA89 90 HOPPER90
           100 BLACKWELL100 120 BLACKWELL120)
  list(FIND _map "${cc}" _i)
  if(_i EQUAL -1 OR NOT cc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "Unison: UNISON_CUDA_ARCH=${cc} is not a compute capability Kokkos 4.6 knows "
                        "(70 72 75 80 86 89 90 100 120)")
  endif()
  math(EXPR _i "${_i} + 1")
  list(GET _map ${_i} _name)
  set(${out} ${_name} PARENT_SCOPE)
endfunction()

# Kokkos' CUDA 13 problem: 4.6.01 calls three runtime functions whose signatures changed in CUDA 13.
# A fetched 4.6.01 gets our patch; an installed Kokkos older than 4.7.01 must already carry the fix.
function(_unison_check_installed_kokkos_cuda13)
  if(NOT Kokkos_ENABLE_CUDA OR Kokkos_VERSION VERSION_GREATER_EQUAL 4.7.01)
    return()
  endif()
  find_package(CUDAToolkit REQUIRED)
  if(CUDAToolkit_VERSION VERSION_LESS 13)
    return()
  endif()
  file(GLOB_RECURSE _hdr "${Kokkos_DIR}/../../../include/*Kokkos_Cuda_Instance.hpp")
  set(_fixed FALSE)
  if(_hdr)
    list(GET _hdr 0 _hdr)
    file(STRINGS "${_hdr}" _lines REGEX "CUDART_VERSION >= 13000")
    if(_lines)
      set(_fixed TRUE)
    endif()
  endif()
  if(NOT _fixed)
    message(FATAL_ERROR
      "Unison: the installed Kokkos ${Kokkos_VERSION} (${Kokkos_DIR}) was built with CUDA, and CUDA "
      "${CUDAToolkit_VERSION} is in use. Kokkos before 4.7.01 calls cudaGraphAddDependencies, "
      "cudaMemAdvise and cudaMemPrefetchAsync with their pre-CUDA-13 signatures and does not "
      "compile with CUDA 13. Use Kokkos >= 4.7.01, or let Unison build Kokkos 4.6.01 with its "
      "patch (cmake/patches/kokkos-4.6.01-cuda13.patch) by not pointing CMake at this install.")
  endif()
endfunction()

macro(_unison_enable_cuda_language arch)
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${arch})
  endif()
  enable_language(CUDA)
endmacro()

# The host BLAS under KokkosBlas::gemm on CPU backends: OpenBLAS, found with FindBLAS
# (BLA_VENDOR OpenBLAS; CMAKE_PREFIX_PATH leads it to another copy) or given as the library
# file in UNISON_BLAS_LIBRARY, handed to Kokkos Kernels as its BLAS TPL. Without one Kokkos
# Kernels runs its own GEMM kernel. The configure log says which, and at run time
# unison::matmul_gemm_library().
macro(_unison_host_blas)
  set(_unison_blas_lib "")
  if(NOT UNISON_HOST_BLAS STREQUAL "OFF")
    if(NOT UNISON_BLAS_LIBRARY)
      set(BLA_VENDOR OpenBLAS)
      find_package(BLAS QUIET)
      unset(BLA_VENDOR)
      if(BLAS_FOUND AND BLAS_LIBRARIES)
        list(GET BLAS_LIBRARIES 0 _unison_found)
        set(UNISON_BLAS_LIBRARY "${_unison_found}" CACHE FILEPATH
            "The OpenBLAS library under Kokkos Kernels' GEMM on CPUs" FORCE)
      endif()
    endif()
    if(UNISON_BLAS_LIBRARY AND EXISTS "${UNISON_BLAS_LIBRARY}")
      set(_unison_blas_lib "${UNISON_BLAS_LIBRARY}")
    elseif(UNISON_HOST_BLAS STREQUAL "ON")
      message(FATAL_ERROR "Unison: UNISON_HOST_BLAS is ON but no OpenBLAS was found (set "
                          "CMAKE_PREFIX_PATH to its prefix, or UNISON_BLAS_LIBRARY to the library)")
    endif()
  endif()
  if(_unison_blas_lib)
    # Kokkos Kernels looks the library up by name in a folder, and calls the Fortran symbols
    # (sgemm_): OpenBLAS's naming, so no Fortran compiler is needed to find it out.
    get_filename_component(_unison_blas_dir "${_unison_blas_lib}" DIRECTORY)
    get_filename_component(_unison_blas_name "${_unison_blas_lib}" NAME_WE)
    string(REGEX REPLACE "^lib" "" _unison_blas_name "${_unison_blas_name}")
    set(KokkosKernels_ENABLE_TPL_BLAS ON CACHE BOOL "" FORCE)
    set(BLAS_LIBRARIES "${_unison_blas_name}")
    set(BLAS_LIBRARY_DIRS "${_unison_blas_dir}")
    set(F77_BLAS_MANGLE "(name,NAME) name ## _" CACHE STRING "" FORCE)
    message(STATUS "Unison: GEMM on CPUs: ${_unison_blas_lib} under Kokkos Kernels")
  else()
    set(KokkosKernels_ENABLE_TPL_BLAS OFF CACHE BOOL "" FORCE)
    message(STATUS "Unison: GEMM on CPUs: Kokkos Kernels' own kernel (no OpenBLAS; "
                   "UNISON_HOST_BLAS=${UNISON_HOST_BLAS})")
  endif()
  set(KokkosKernels_ENABLE_TPL_LAPACK OFF CACHE BOOL "" FORCE)
endmacro()

macro(unison_provide_kokkos)
  string(TOUPPER "${UNISON_KOKKOS_DEVICES}" _unison_devices)
  find_package(Kokkos ${_unison_kokkos_version} CONFIG QUIET)
  if(Kokkos_FOUND)
    message(STATUS "Unison: using the installed Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}")
    kokkos_check(DEVICES ${_unison_devices} RETURN_VALUE _unison_ok)
    if(NOT _unison_ok)
      message(FATAL_ERROR "Unison: UNISON_KOKKOS_DEVICES asks for ${_unison_devices}, but the "
                          "installed Kokkos at ${Kokkos_DIR} provides only ${Kokkos_DEVICES}")
    endif()
    if(UNISON_BOUNDS_CHECK AND NOT "DEBUG_BOUNDS_CHECK" IN_LIST Kokkos_OPTIONS)
      message(FATAL_ERROR "Unison: UNISON_BOUNDS_CHECK is ON but the installed Kokkos at "
                          "${Kokkos_DIR} was built without Kokkos_ENABLE_DEBUG_BOUNDS_CHECK")
    endif()
    _unison_check_installed_kokkos_cuda13()
    if(Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
      _unison_enable_cuda_language("${Kokkos_CUDA_ARCHITECTURES}")
    endif()
  else()
    foreach(_d SERIAL OPENMP CUDA)
      if(_d IN_LIST _unison_devices)
        set(Kokkos_ENABLE_${_d} ON CACHE BOOL "" FORCE)
      else()
        set(Kokkos_ENABLE_${_d} OFF CACHE BOOL "" FORCE)
      endif()
    endforeach()
    set(Kokkos_ENABLE_DEBUG_BOUNDS_CHECK ${UNISON_BOUNDS_CHECK} CACHE BOOL "" FORCE)
    set(_unison_patch "")
    # Kokkos_COMPILE_LANGUAGE is what an installed Kokkos reports; Kokkos Kernels and
    # unison_kokkos_sources() read it, so an in-tree Kokkos sets it here too.
    set(Kokkos_COMPILE_LANGUAGE CXX)
    if(Kokkos_ENABLE_CUDA)
      # CUDA is compiled as a CMake language (no nvcc_wrapper: its sm_70 default is gone in
      # CUDA 13); the architecture comes from UNISON_CUDA_ARCH.
      _unison_cuda_arch_name("${UNISON_CUDA_ARCH}" _unison_arch)
      set(Kokkos_ARCH_${_unison_arch} ON CACHE BOOL "" FORCE)
      set(Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE ON CACHE BOOL "" FORCE)
      set(CMAKE_CUDA_ARCHITECTURES ${UNISON_CUDA_ARCH} CACHE STRING "" FORCE)
      _unison_enable_cuda_language(${UNISON_CUDA_ARCH})
      set(Kokkos_COMPILE_LANGUAGE CUDA)
      find_package(CUDAToolkit REQUIRED)
      if(CUDAToolkit_VERSION VERSION_GREATER_EQUAL 13)
        find_program(UNISON_PATCH_EXECUTABLE patch REQUIRED)
        set(_unison_patch PATCH_COMMAND ${UNISON_PATCH_EXECUTABLE} -p1 -i
            ${_unison_cmake_dir}/patches/kokkos-4.6.01-cuda13.patch)
        message(STATUS "Unison: CUDA ${CUDAToolkit_VERSION}: Kokkos 4.6.01 gets cmake/patches/kokkos-4.6.01-cuda13.patch")
      endif()
    endif()
    _unison_declare(Kokkos kokkos-${_unison_kokkos_version}.tar.gz
      https://github.com/kokkos/kokkos/archive/refs/tags/${_unison_kokkos_version}.tar.gz
      ${_unison_kokkos_sha256} ${_unison_patch})
    FetchContent_MakeAvailable(Kokkos)
  endif()

  # Kokkos Kernels: BLAS only, header-only use (no explicit instantiation), cuBLAS under it on CUDA.
  find_package(KokkosKernels ${_unison_kk_version} CONFIG QUIET)
  if(KokkosKernels_FOUND AND TARGET Kokkos::kokkos AND NOT TARGET kokkos)
    message(STATUS "Unison: using the installed Kokkos Kernels ${KokkosKernels_VERSION} from ${KokkosKernels_DIR}")
  else()
    if(KokkosKernels_FOUND)
      message(STATUS "Unison: ignoring the installed Kokkos Kernels: it needs the installed Kokkos")
    endif()
    set(KokkosKernels_ENABLE_ALL_COMPONENTS OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_COMPONENT_BLAS ON CACHE BOOL "" FORCE)
    set(KokkosKernels_ADD_DEFAULT_ETI OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_TESTS OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_PERFTESTS OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_EXAMPLES OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_TPL_CUSPARSE OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_TPL_CUSOLVER OFF CACHE BOOL "" FORCE)
    _unison_host_blas()
    if(Kokkos_ENABLE_CUDA)
      set(KokkosKernels_ENABLE_TPL_CUBLAS ON CACHE BOOL "" FORCE)
    else()
      set(KokkosKernels_ENABLE_TPL_CUBLAS OFF CACHE BOOL "" FORCE)
    endif()
    _unison_declare(KokkosKernels kokkos-kernels-${_unison_kk_version}.tar.gz
      https://github.com/kokkos/kokkos-kernels/archive/refs/tags/${_unison_kk_version}.tar.gz
      ${_unison_kk_sha256})
    FetchContent_MakeAvailable(KokkosKernels)
  endif()
endmacro()

macro(unison_provide_gtest)
  find_package(GTest CONFIG QUIET)
  if(NOT GTest_FOUND)
    find_package(GTest QUIET)
  endif()
  if(GTest_FOUND)
    message(STATUS "Unison: using the installed GoogleTest")
  else()
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    _unison_declare(googletest googletest-${_unison_gtest_version}.tar.gz
      https://github.com/google/googletest/archive/refs/tags/v${_unison_gtest_version}.tar.gz
      ${_unison_gtest_sha256} EXCLUDE_FROM_ALL)
    FetchContent_MakeAvailable(googletest)
  endif()
endmacro()

# Google Benchmark is built from its release archive by default, as a release build whatever the
# project's build type (NDEBUG, -O2): a distribution's package is often built without NDEBUG and
# then prints "Library was built as DEBUG" and reports library_build_type "debug".
# UNISON_USE_INSTALLED_BENCHMARK=ON takes an installed one instead.
option(UNISON_USE_INSTALLED_BENCHMARK "Use an installed Google Benchmark instead of building the pinned release" OFF)
macro(unison_provide_benchmark)
  if(UNISON_USE_INSTALLED_BENCHMARK)
    find_package(benchmark CONFIG REQUIRED)
    message(STATUS "Unison: using the installed Google Benchmark ${benchmark_VERSION}")
  else()
    set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
    set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
    set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
    set(BENCHMARK_ENABLE_WERROR OFF CACHE BOOL "" FORCE)
    _unison_declare(benchmark benchmark-${_unison_benchmark_version}.tar.gz
      https://github.com/google/benchmark/archive/refs/tags/v${_unison_benchmark_version}.tar.gz
      ${_unison_benchmark_sha256} EXCLUDE_FROM_ALL)
    FetchContent_MakeAvailable(benchmark)
    target_compile_definitions(benchmark PRIVATE NDEBUG)
    target_compile_options(benchmark PRIVATE $<$<NOT:$<CONFIG:Release,RelWithDebInfo,MinSizeRel>>:-O2>)
  endif()
endmacro()
