# unison_host_arch(<target> [ARCH <value>])
#
# Unison's CPU kernels are templates, compiled in the consumer's translation units with the
# consumer's flags. Their vector paths need an instruction set with vectors and fused
# multiply-add (AVX2 with FMA, or AVX-512, on x86-64; NEON on 64-bit ARM, where every 64-bit
# CPU has it); the compiler's default on x86-64 (SSE2) leaves the multiply-add heavy kernels up
# to about 100 times slower. This gives <target>'s C++
# (and CUDA host) code -march=<value>, "native" by default: the building machine's own
# instruction set, so that the binaries then run only on machines like it.
#
# The installed package also checks, at the end of the consumer's configure step, every target
# that links Unison::unison or Unison::mpi: where the instruction-set flags it is compiled with
# (-march=, -mcpu=, -mavx2, ...: from CMAKE_<LANG>_FLAGS, the target's and its linked targets'
# compile options) leave the vector paths off, it warns. UNISON_HOST_ARCH_CHECK=OFF turns the
# check off. Installed with the Unison package.
include_guard(GLOBAL)

set(_unison_host_arch_dir "${CMAKE_CURRENT_LIST_DIR}")

function(unison_host_arch target)
  cmake_parse_arguments(PARSE_ARGV 1 _arg "" "ARCH" "")
  if(_arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "unison_host_arch: unexpected arguments ${_arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "unison_host_arch: ${target} is not a target")
  endif()
  set(_arch native)
  if(DEFINED _arg_ARCH)
    set(_arch "${_arg_ARCH}")
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-march=${_arch}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-march=${_arch}>)
  set_property(TARGET ${target} PROPERTY UNISON_HOST_ARCH "${_arch}")
endfunction()

# The instruction-set options (-m...) in a list of compile options or a flags string, generator
# expressions included (their options are taken as given), -Xcompiler= lists split.
function(_unison_isa_options out)
  set(_found "")
  foreach(_text IN LISTS ARGN)
    # (an option starts the text, or follows a space, a list's ";", a generator expression's
    # ":", "-Xcompiler=" or a "," of its list)
    string(REGEX MATCHALL "(^|[ \t;:,=])-m[A-Za-z0-9_.=+-]+" _options "${_text}")
    foreach(_option IN LISTS _options)
      string(REGEX REPLACE "^[^-]" "" _option "${_option}")
      list(APPEND _found "${_option}")
    endforeach()
  endforeach()
  set(${out} "${_found}" PARENT_SCOPE)
endfunction()

# Whether the instruction-set options in ${ARGN} turn Unison's vector paths on (compiled, once
# per distinct set of options, against unison/backends/host/instruction_set.hpp).
function(_unison_isa_has_vectors out include_dir)
  include(CheckCXXSourceCompiles)
  string(MD5 _key "${ARGN}")
  set(CMAKE_REQUIRED_QUIET ON)
  list(JOIN ARGN " " CMAKE_REQUIRED_FLAGS)
  set(CMAKE_REQUIRED_INCLUDES "${include_dir}")
  check_cxx_source_compiles([[
    #include <unison/backends/host/instruction_set.hpp>
    #if !UNISON_BACKENDS_HOST_FMA_VECTORS
    #error "no vector paths"
    #endif
    int main() { return 0; }
  ]] UNISON_HOST_VECTORS_${_key})
  set(${out} ${UNISON_HOST_VECTORS_${_key}} PARENT_SCOPE)
endfunction()

# The check described above, over the targets of <dir> and its subdirectories.
function(_unison_check_host_arch_in dir include_dir)
  get_property(_targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(_target IN LISTS _targets)
    get_target_property(_type ${_target} TYPE)
    if(_type STREQUAL "INTERFACE_LIBRARY" OR _type STREQUAL "UTILITY")
      continue()
    endif()
    get_target_property(_links ${_target} LINK_LIBRARIES)
    if(NOT _links MATCHES "Unison::(unison|mpi)")
      continue()
    endif()
    get_target_property(_arch ${_target} UNISON_HOST_ARCH)
    if(_arch)
      continue()  # given by unison_host_arch
    endif()
    set(_texts "${CMAKE_CXX_FLAGS}" "${CMAKE_CUDA_FLAGS}")
    if(CMAKE_BUILD_TYPE)
      string(TOUPPER "${CMAKE_BUILD_TYPE}" _config)
      list(APPEND _texts "${CMAKE_CXX_FLAGS_${_config}}" "${CMAKE_CUDA_FLAGS_${_config}}")
    endif()
    get_target_property(_options ${_target} COMPILE_OPTIONS)
    if(_options)
      list(APPEND _texts ${_options})
    endif()
    foreach(_link IN LISTS _links)
      if(TARGET "${_link}" AND NOT _link MATCHES "^Unison::")
        get_target_property(_options ${_link} INTERFACE_COMPILE_OPTIONS)
        if(_options)
          list(APPEND _texts ${_options})
        endif()
      endif()
    endforeach()
    _unison_isa_options(_isa ${_texts})
    _unison_isa_has_vectors(_vectors "${include_dir}" ${_isa})
    if(NOT _vectors)
      if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64|aarch64|arm64|ARM64")
        set(_why "its instruction-set flags (${_isa}) leave them off: give it -march=<your CPU> or call unison_host_arch(${_target})")
        if(NOT _isa)
          set(_why "it is compiled for the compiler's default instruction set (on x86-64 SSE2, without fused multiply-add): give it -march=<your CPU> or call unison_host_arch(${_target})")
        endif()
      else()
        set(_why "Unison has vector paths for x86-64 (AVX2 with FMA, AVX-512) and 64-bit ARM (NEON), not for ${CMAKE_SYSTEM_PROCESSOR}: its CPU kernels run scalar code there")
      endif()
      message(WARNING "Unison: target ${_target} compiles Unison's CPU kernels without their "
                      "vector paths (the multiply-add heavy ones up to about 100 times slower): "
                      "${_why}. UNISON_HOST_ARCH_CHECK=OFF silences this.")
    endif()
  endforeach()
  get_property(_subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(_sub IN LISTS _subdirs)
    _unison_check_host_arch_in("${_sub}" "${include_dir}")
  endforeach()
endfunction()

function(_unison_check_host_arch)
  if(DEFINED UNISON_HOST_ARCH_CHECK AND NOT UNISON_HOST_ARCH_CHECK)
    return()
  endif()
  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CXX" IN_LIST _languages OR NOT TARGET Unison::unison)
    return()
  endif()
  get_target_property(_include Unison::unison INTERFACE_INCLUDE_DIRECTORIES)
  _unison_check_host_arch_in("${CMAKE_SOURCE_DIR}" "${_include}")
endfunction()
