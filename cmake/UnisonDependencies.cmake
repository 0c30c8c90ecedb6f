# Where Unison's Kokkos and Kokkos Kernels come from: UNISON_KOKKOS_SOURCE.
#   AUTO (default)  the project's own Kokkos when it already defines the target Kokkos::kokkos
#                   (a parent project that added Kokkos with add_subdirectory or FetchContent),
#                   else an installed Kokkos (>= 4.6.01) found with find_package
#                   (CMAKE_PREFIX_PATH, Kokkos_ROOT), else the pinned releases built here.
#   INSTALLED       the project's or an installed Kokkos and Kokkos Kernels, both required:
#                   nothing is downloaded or built, and Unison's install carries no Kokkos (its
#                   package finds the same Kokkos again with find_dependency).
#   BUNDLED         the pinned releases (Kokkos 4.6.01, Kokkos Kernels 4.6.02) built as part of
#                   this project: from the folder UNISON_DEPS_DIR when it holds the release
#                   archives (offline builds), otherwise downloaded from upstream. Installed with
#                   Unison.
# GoogleTest and Google Benchmark: found, else built the same way (unison_provide_gtest/benchmark).
#
# The backends come from the Kokkos Unison is given: those of Serial, OpenMP, Cuda and HIP that
# it enables. Any other execution space it enables is named at configure time. A bundled Kokkos
# enables UNISON_KOKKOS_DEVICES (default SERIAL;OPENMP; CUDA and HIP add a GPU), for the GPU
# architecture UNISON_CUDA_ARCH (a compute capability such as 90) or UNISON_HIP_ARCH (gfx90a),
# with bounds checking where UNISON_BOUNDS_CHECK is ON. A given Kokkos is checked against them
# where they are set.

include_guard(GLOBAL)
include(FetchContent)
include(${CMAKE_CURRENT_LIST_DIR}/UnisonKokkosSources.cmake)
set(_unison_cmake_dir ${CMAKE_CURRENT_LIST_DIR})

set(UNISON_DEPS_DIR "$ENV{UNISON_DEPS_DIR}" CACHE PATH
    "Folder of dependency release archives (kokkos-4.6.01.tar.gz, ...) used instead of downloads")
set(UNISON_KOKKOS_SOURCE "AUTO" CACHE STRING
    "Where Kokkos and Kokkos Kernels come from: AUTO (the project's, else installed, else built here), INSTALLED (the project's or installed, required; nothing built), BUNDLED (the pinned releases built here)")
set_property(CACHE UNISON_KOKKOS_SOURCE PROPERTY STRINGS AUTO INSTALLED BUNDLED)
set(UNISON_KOKKOS_DEVICES "" CACHE STRING
    "Kokkos backends Unison needs (SERIAL, OPENMP, CUDA, HIP); a bundled Kokkos enables them (empty: SERIAL;OPENMP), a given one must have them (empty: any)")
set(UNISON_CUDA_ARCH "90" CACHE STRING "CUDA compute capability a bundled Kokkos is built for when CUDA is enabled (90: H100/H200)")
set(UNISON_HIP_ARCH "gfx90a" CACHE STRING "AMD GPU architecture a bundled Kokkos is built for when HIP is enabled (gfx906, gfx908, gfx90a, gfx940, gfx942, gfx1030, gfx1100)")
option(UNISON_BOUNDS_CHECK "Build the bundled Kokkos with bounds checking (debug preset); a given Kokkos must have it" OFF)
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

# The minimum Kokkos and Kokkos Kernels a given (installed or project) one must be.
set(_unison_kokkos_minimum 4.6.01)
set(_unison_kk_minimum 4.6.00)

# Every execution space Kokkos may enable, and those Unison supports (tested, tuned): the names
# of Kokkos_ENABLE_<NAME> and of the execution spaces.
set(_unison_kokkos_spaces SERIAL OPENMP THREADS HPX CUDA HIP SYCL OPENMPTARGET OPENACC)
set(_unison_kokkos_space_names Serial OpenMP Threads HPX Cuda HIP SYCL OpenMPTarget OpenACC)
set(_unison_supported_spaces SERIAL OPENMP CUDA HIP)

function(_unison_hip_arch_name arch out)
  set(_map gfx906 AMD_GFX906 gfx908 AMD_GFX908 gfx90a AMD_GFX90A gfx940 AMD_GFX940
           gfx942 AMD_GFX942 gfx1030 AMD_GFX1030 gfx1100 AMD_GFX1100)
  string(TOLOWER "${arch}" arch)
  list(FIND _map "${arch}" _i)
  math(EXPR _odd "${_i} % 2")
  if(_i EQUAL -1 OR _odd EQUAL 1)
    message(FATAL_ERROR "Unison: UNISON_HIP_ARCH=${arch} is not an AMD GPU architecture Unison "
                        "builds Kokkos for (gfx906 gfx908 gfx90a gfx940 gfx942 gfx1030 gfx1100)")
  endif()
  math(EXPR _i "${_i} + 1")
  list(GET _map ${_i} _name)
  set(${out} ${_name} PARENT_SCOPE)
endfunction()

# The execution spaces the given Kokkos enables (Kokkos_ENABLE_<NAME>: set by an installed Kokkos's
# package, and a cache variable of a Kokkos added to the project), checked against what Unison
# supports and what UNISON_KOKKOS_DEVICES asks for. Sets UNISON_BACKENDS (Serial, OpenMP, Cuda,
# HIP: those enabled, in that order) in the caller's scope.
function(_unison_backends_of_kokkos where)
  set(_enabled "")
  set(_unsupported "")
  foreach(_space _name IN ZIP_LISTS _unison_kokkos_spaces _unison_kokkos_space_names)
    if(Kokkos_ENABLE_${_space})
      list(APPEND _enabled ${_space})
      if(NOT _space IN_LIST _unison_supported_spaces)
        list(APPEND _unsupported ${_name})
      endif()
    endif()
  endforeach()
  set(_backends "")
  foreach(_space _name IN ZIP_LISTS _unison_kokkos_spaces _unison_kokkos_space_names)
    if(_space IN_LIST _enabled AND _space IN_LIST _unison_supported_spaces)
      list(APPEND _backends ${_name})
    endif()
  endforeach()
  string(TOUPPER "${UNISON_KOKKOS_DEVICES}" _wanted)
  foreach(_space IN LISTS _wanted)
    if(NOT _space IN_LIST _enabled)
      message(FATAL_ERROR "Unison: UNISON_KOKKOS_DEVICES asks for ${_space}, but ${where} "
                          "enables only ${_enabled}")
    endif()
  endforeach()
  if(Kokkos_ENABLE_CUDA AND Kokkos_ENABLE_HIP)
    message(FATAL_ERROR "Unison: ${where} enables both CUDA and HIP")
  endif()
  if(_unsupported)
    list(JOIN _unsupported ", " _unsupported_words)
    # Kokkos' default execution space is its device's if it has one: Unison's own compiled part
    # and its tests run there, so a device Unison does not support stops the configuration.
    foreach(_space IN ITEMS SYCL OPENMPTARGET OPENACC)
      if(Kokkos_ENABLE_${_space})
        message(FATAL_ERROR
          "Unison: ${where} enables ${_unsupported_words}, which Unison does not support. "
          "Unison supports Serial, OpenMP, Cuda (NVIDIA GPUs) and HIP (AMD GPUs); Kokkos' default "
          "execution space would be one Unison cannot run on. Use a Kokkos built with supported "
          "backends.")
      endif()
    endforeach()
    if(NOT Kokkos_ENABLE_SERIAL AND NOT Kokkos_ENABLE_OPENMP)
      message(FATAL_ERROR
        "Unison: ${where} enables ${_unsupported_words} as its host backend, which Unison does "
        "not support (it supports Serial and OpenMP on CPUs, Cuda and HIP on GPUs)")
    endif()
    set(_how "")
    if(Kokkos_ENABLE_THREADS)
      list(APPEND _how "Threads takes the CPU values of Unison's tuning but is not tested")
    endif()
    if(Kokkos_ENABLE_HPX)
      list(APPEND _how "Unison's functions refuse HPX at compile time")
    endif()
    list(JOIN _how "; " _how)
    list(JOIN _backends ", " _backend_words)
    message(WARNING
      "Unison: ${where} also enables ${_unsupported_words}, which Unison does not support "
      "(supported: Serial, OpenMP, Cuda, HIP): ${_how}. Unison's tests and benchmarks run on "
      "${_backend_words} only.")
  endif()
  if(NOT _backends)
    message(FATAL_ERROR "Unison: ${where} enables no backend Unison supports (Serial, OpenMP, Cuda, HIP)")
  endif()
  set(UNISON_BACKENDS ${_backends} PARENT_SCOPE)
endfunction()

# A Kokkos that Unison does not build (the project's, or an installed one): bounds checking where
# asked for, CUDA 13, and the language Kokkos is compiled as.
macro(_unison_check_given_kokkos where)
  if(UNISON_BOUNDS_CHECK AND NOT Kokkos_ENABLE_DEBUG_BOUNDS_CHECK)
    message(FATAL_ERROR "Unison: UNISON_BOUNDS_CHECK is ON but ${where} was built without "
                        "Kokkos_ENABLE_DEBUG_BOUNDS_CHECK")
  endif()
  if(Kokkos_DIR)
    _unison_check_installed_kokkos_cuda13()
  endif()
  if(NOT DEFINED Kokkos_COMPILE_LANGUAGE)
    # A Kokkos added to the project: it compiles as a CMake language only where it was asked to.
    set(Kokkos_COMPILE_LANGUAGE CXX)
    if(Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE AND Kokkos_ENABLE_CUDA)
      set(Kokkos_COMPILE_LANGUAGE CUDA)
    elseif(Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE AND Kokkos_ENABLE_HIP)
      set(Kokkos_COMPILE_LANGUAGE HIP)
    endif()
  endif()
  if(Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
    _unison_enable_cuda_language("${Kokkos_CUDA_ARCHITECTURES}")
  elseif(Kokkos_COMPILE_LANGUAGE STREQUAL "HIP")
    message(FATAL_ERROR "Unison: ${where} compiles HIP as a CMake language "
                        "(Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE); Unison builds with hipcc as "
                        "the C++ compiler instead (docs/building.md)")
  endif()
endmacro()

# find_package(<package>) of an installed one, required where UNISON_KOKKOS_SOURCE is INSTALLED;
# one older than <minimum> is refused there and ignored otherwise (<package>_FOUND then FALSE).
macro(_unison_find_installed package words minimum)
  if(_unison_source STREQUAL "INSTALLED")
    find_package(${package} CONFIG REQUIRED)
  else()
    find_package(${package} CONFIG QUIET)
  endif()
  if(${package}_FOUND AND ${package}_VERSION VERSION_LESS ${minimum})
    if(_unison_source STREQUAL "INSTALLED")
      message(FATAL_ERROR "Unison: the installed ${words} ${${package}_VERSION} "
                          "(${${package}_DIR}) is older than ${minimum}, the oldest Unison supports")
    endif()
    message(STATUS "Unison: ignoring the installed ${words} ${${package}_VERSION} "
                   "(${${package}_DIR}): older than ${minimum}")
    set(${package}_FOUND FALSE)
  endif()
endmacro()

# Kokkos and Kokkos Kernels, from where UNISON_KOKKOS_SOURCE says. Sets UNISON_KOKKOS_ORIGIN
# (project, installed or bundled), UNISON_BACKENDS, and Kokkos_COMPILE_LANGUAGE.
macro(unison_provide_kokkos)
  string(TOUPPER "${UNISON_KOKKOS_SOURCE}" _unison_source)
  if(NOT _unison_source MATCHES "^(AUTO|INSTALLED|BUNDLED)$")
    message(FATAL_ERROR "Unison: UNISON_KOKKOS_SOURCE is ${UNISON_KOKKOS_SOURCE}; it takes AUTO, "
                        "INSTALLED or BUNDLED")
  endif()
  set(UNISON_KOKKOS_ORIGIN "")
  if(TARGET Kokkos::kokkos)
    if(_unison_source STREQUAL "BUNDLED")
      message(FATAL_ERROR "Unison: UNISON_KOKKOS_SOURCE is BUNDLED, but this project already "
                          "defines Kokkos::kokkos: a second Kokkos cannot be built beside it. "
                          "Leave UNISON_KOKKOS_SOURCE at AUTO (or INSTALLED) to use that one.")
    endif()
    set(UNISON_KOKKOS_ORIGIN project)
    if(Kokkos_DIR AND Kokkos_VERSION)
      set(_unison_where "the project's Kokkos ${Kokkos_VERSION} (${Kokkos_DIR})")
    else()
      set(_unison_where "the project's Kokkos (target Kokkos::kokkos)")
    endif()
  elseif(NOT _unison_source STREQUAL "BUNDLED")
    _unison_find_installed(Kokkos "Kokkos" ${_unison_kokkos_minimum})
    if(Kokkos_FOUND)
      set(UNISON_KOKKOS_ORIGIN installed)
      set(_unison_where "the installed Kokkos ${Kokkos_VERSION} (${Kokkos_DIR})")
    endif()
  endif()

  if(UNISON_KOKKOS_ORIGIN)
    message(STATUS "Unison: using ${_unison_where}")
    _unison_check_given_kokkos("${_unison_where}")
  else()
    set(UNISON_KOKKOS_ORIGIN bundled)
    string(TOUPPER "${UNISON_KOKKOS_DEVICES}" _unison_devices)
    if(NOT _unison_devices)
      set(_unison_devices SERIAL OPENMP)
    endif()
    foreach(_d IN LISTS _unison_devices)
      if(NOT _d IN_LIST _unison_supported_spaces)
        message(FATAL_ERROR "Unison: UNISON_KOKKOS_DEVICES names ${_d}; Unison builds Kokkos with "
                            "SERIAL, OPENMP, CUDA or HIP")
      endif()
    endforeach()
    if("CUDA" IN_LIST _unison_devices AND "HIP" IN_LIST _unison_devices)
      message(FATAL_ERROR "Unison: UNISON_KOKKOS_DEVICES names both CUDA and HIP")
    endif()
    foreach(_d IN LISTS _unison_supported_spaces)
      if(_d IN_LIST _unison_devices)
        set(Kokkos_ENABLE_${_d} ON CACHE BOOL "" FORCE)
      else()
        set(Kokkos_ENABLE_${_d} OFF CACHE BOOL "" FORCE)
      endif()
    endforeach()
    set(Kokkos_ENABLE_DEBUG_BOUNDS_CHECK ${UNISON_BOUNDS_CHECK} CACHE BOOL "" FORCE)
    set(_unison_patch "")
    # Kokkos_COMPILE_LANGUAGE is what an installed Kokkos reports; Kokkos Kernels and
    # unison_kokkos_sources() read it, so a bundled Kokkos sets it here too.
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
    if(Kokkos_ENABLE_HIP)
      # HIP with hipcc as the C++ compiler (CMAKE_CXX_COMPILER=hipcc), for UNISON_HIP_ARCH;
      # without rocThrust (Kokkos' sort uses its own kernels then).
      if(NOT CMAKE_CXX_COMPILER MATCHES "hipcc|amdclang|clang")
        message(FATAL_ERROR "Unison: HIP needs hipcc as the C++ compiler "
                            "(CMAKE_CXX_COMPILER=hipcc; the hip preset sets it)")
      endif()
      _unison_hip_arch_name("${UNISON_HIP_ARCH}" _unison_arch)
      set(Kokkos_ARCH_${_unison_arch} ON CACHE BOOL "" FORCE)
      set(Kokkos_ENABLE_ROCTHRUST OFF CACHE BOOL "" FORCE)
    endif()
    _unison_declare(Kokkos kokkos-${_unison_kokkos_version}.tar.gz
      https://github.com/kokkos/kokkos/archive/refs/tags/${_unison_kokkos_version}.tar.gz
      ${_unison_kokkos_sha256} ${_unison_patch})
    FetchContent_MakeAvailable(Kokkos)
    set(Kokkos_VERSION ${_unison_kokkos_version})
    set(_unison_where "the bundled Kokkos ${_unison_kokkos_version}")
  endif()
  _unison_backends_of_kokkos("${_unison_where}")

  # Kokkos Kernels: BLAS only, header-only use (no explicit instantiation), cuBLAS under it on
  # CUDA. The project's target, else an installed one (which needs an installed Kokkos), else
  # built here (not with INSTALLED).
  set(_unison_kk_given FALSE)
  if(TARGET Kokkos::kokkoskernels)
    if(UNISON_KOKKOS_ORIGIN STREQUAL "bundled")
      message(FATAL_ERROR "Unison: this project defines Kokkos::kokkoskernels but not "
                          "Kokkos::kokkos; add Kokkos before Kokkos Kernels")
    endif()
    message(STATUS "Unison: using the project's Kokkos Kernels (target Kokkos::kokkoskernels)")
    set(_unison_kk_given TRUE)
  elseif(UNISON_KOKKOS_ORIGIN STREQUAL "installed")
    _unison_find_installed(KokkosKernels "Kokkos Kernels" ${_unison_kk_minimum})
    if(KokkosKernels_FOUND)
      message(STATUS "Unison: using the installed Kokkos Kernels ${KokkosKernels_VERSION} from ${KokkosKernels_DIR}")
      set(_unison_kk_given TRUE)
    endif()
  endif()
  if(NOT _unison_kk_given)
    if(_unison_source STREQUAL "INSTALLED")
      message(FATAL_ERROR "Unison: UNISON_KOKKOS_SOURCE is INSTALLED and ${_unison_where} is used, "
                          "but no Kokkos Kernels comes with it: add Kokkos Kernels to the project "
                          "(target Kokkos::kokkoskernels) before Unison, or install it beside "
                          "that Kokkos")
    endif()
    set(KokkosKernels_ENABLE_ALL_COMPONENTS OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_COMPONENT_BLAS ON CACHE BOOL "" FORCE)
    set(KokkosKernels_ADD_DEFAULT_ETI OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_TESTS OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_PERFTESTS OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_EXAMPLES OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_TPL_CUSPARSE OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_TPL_CUSOLVER OFF CACHE BOOL "" FORCE)
    # (no rocBLAS, rocSPARSE or rocSOLVER: Kokkos Kernels' own GEMM on AMD GPUs)
    set(KokkosKernels_ENABLE_TPL_ROCBLAS OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_TPL_ROCSPARSE OFF CACHE BOOL "" FORCE)
    set(KokkosKernels_ENABLE_TPL_ROCSOLVER OFF CACHE BOOL "" FORCE)
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
