#include <iostream>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  for (const auto& info : unison::backends::enabled_backends())
    std::cout << "[ backend  ] " << unison::backends::describe(info) << "\n";
  return RUN_ALL_TESTS();
}
