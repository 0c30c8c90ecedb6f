# tools/gpu/gpu-diffusion-sizes.sh: adds the probe tools/gpu/diffusion-sizes.cpp to Unison's build
# (passed as CMAKE_PROJECT_Unison_INCLUDE; the target is added once the project is read).
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _unison_probe_diffusion_sizes)
function(_unison_probe_diffusion_sizes)
  add_executable(diffusion-sizes ${CMAKE_SOURCE_DIR}/tools/gpu/diffusion-sizes.cpp)
  target_link_libraries(diffusion-sizes PRIVATE Unison::unison)
  unison_kokkos_sources(diffusion-sizes)
endfunction()
