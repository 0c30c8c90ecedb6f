#include <cstdint>
#include <iostream>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>

int main(int argc, char* argv[]) {
  // The tests that record Kokkos Tools events (the <Family>Labels and <Family>Instance suites,
  // tests/labels.hpp) ask Kokkos, as a tool would, not to fence every instance around each
  // event it reports: else the fences they look for would be Kokkos' own. Asked before Kokkos
  // starts, which is when it asks its tools.
  Kokkos::Tools::Experimental::set_request_tool_settings_callback(
      [](std::uint32_t, Kokkos::Tools::Experimental::ToolSettings* settings) {
        settings->requires_global_fencing = false;
      });
  Kokkos::ScopeGuard kokkos(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  for (const auto& info : unison::backends::enabled_backends())
    std::cout << "[ backend  ] " << unison::backends::describe(info) << "\n";
  return RUN_ALL_TESTS();
}
