# unison_kokkos_sources(<target>)
#
# Kokkos built for CUDA as a CMake language (how Unison builds it) needs every translation unit
# that launches Kokkos kernels compiled as CUDA. This marks the C++ sources of <target> so, and
# gives the target the CUDA architectures Kokkos was built for. Without CUDA it does nothing.
# Installed with the Unison package, so consumers can call it on their own targets.
include_guard(GLOBAL)

function(unison_kokkos_sources target)
  if(NOT Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
    return()
  endif()
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  foreach(_src IN LISTS _sources)
    if(_src MATCHES "\\.(cpp|cxx|cc)$")
      set_source_files_properties(${_src} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CUDA)
    endif()
  endforeach()
  if(Kokkos_CUDA_ARCHITECTURES)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${Kokkos_CUDA_ARCHITECTURES}")
  elseif(CMAKE_CUDA_ARCHITECTURES)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
endfunction()
