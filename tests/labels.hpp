#pragma once
// Labels, regions and instances, shared by every family's <Family>Labels and <Family>Instance
// tests: every kernel and allocation the library makes is labelled "unison::...", every public
// call opens a Kokkos Tools region "unison::<function>" with its kernels under it, and every
// function keeps to the execution-space instance it is given: recorded through Kokkos Tools
// callbacks while each function runs. (tests/main.cpp asks Kokkos, as a tool would, not to fence
// every instance around each event it reports.)
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "test_helpers.hpp"

namespace unison::test {

// What the library did while a function ran: labels ("kernel NAME", "allocation NAME"), and
// each kernel's and fence's name with the device id Kokkos Tools gives it (backend, device and
// instance), and each deep copy's destination and source.
struct Events {
  std::vector<std::string> labels;
  std::vector<std::pair<std::string, std::uint32_t>> kernels, fences;
  std::vector<std::string> last_kernel;  // for each fence: the kernel launched last before it
  std::vector<std::string> copies;
  std::vector<std::string> trace;  // in order: "push NAME" (a region opens), "pop", "kernel NAME"
};
inline Events events;  // one for the whole program: the callbacks write it

inline void record_kernel(const char* name, std::uint32_t device, std::uint64_t* id) {
  events.labels.emplace_back(std::string("kernel ") + name);
  events.trace.emplace_back(std::string("kernel ") + name);
  events.kernels.emplace_back(name, device);
  *id = 0;
}
inline void record_push(const char* name) {
  events.trace.emplace_back(std::string("push ") + name);
}
inline void record_pop() { events.trace.emplace_back("pop"); }
inline void record_alloc(Kokkos::Profiling::SpaceHandle, const char* name, const void*,
                         std::uint64_t) {
  events.labels.emplace_back(std::string("allocation ") + name);
}
inline void record_fence(const char* name, std::uint32_t device, std::uint64_t* id) {
  events.fences.emplace_back(name, device);
  events.last_kernel.push_back(events.kernels.empty() ? "none" : events.kernels.back().first);
  *id = 0;
}
inline void record_copy(Kokkos::Profiling::SpaceHandle, const char* dst, const void*,
                        Kokkos::Profiling::SpaceHandle, const char* src, const void*,
                        std::uint64_t) {
  events.copies.emplace_back(std::string(dst) + " <- " + src);
}

// Runs f with the recording callbacks on and returns what it launched, allocated, fenced and
// copied.
template <class F>
Events record(F&& f) {
  namespace tools = Kokkos::Tools::Experimental;
  events = Events{};
  tools::set_begin_parallel_for_callback(record_kernel);
  tools::set_begin_parallel_reduce_callback(record_kernel);
  tools::set_begin_parallel_scan_callback(record_kernel);
  tools::set_allocate_data_callback(record_alloc);
  tools::set_begin_fence_callback(record_fence);
  tools::set_begin_deep_copy_callback(record_copy);
  tools::set_push_region_callback(record_push);
  tools::set_pop_region_callback(record_pop);
  f();
  tools::set_push_region_callback(nullptr);
  tools::set_pop_region_callback(nullptr);
  tools::set_begin_parallel_for_callback(nullptr);
  tools::set_begin_parallel_reduce_callback(nullptr);
  tools::set_begin_parallel_scan_callback(nullptr);
  tools::set_allocate_data_callback(nullptr);
  tools::set_begin_fence_callback(nullptr);
  tools::set_begin_deep_copy_callback(nullptr);
  return events;
}

// One public call as a profiler sees it: the region it opened, and what ran inside it in order,
// at any depth ("kernel NAME", and "region NAME" for a region opened inside it).
struct Call {
  std::string region;
  std::vector<std::string> inside;
};

// The regions opened at the top level while `seen` was recorded, in order, each with what ran
// inside it. Every kernel ran inside one, and every region was closed.
inline std::vector<Call> calls(const Events& seen) {
  std::vector<Call> out;
  int depth = 0;
  for (const auto& e : seen.trace) {
    if (e.rfind("push ", 0) == 0) {
      if (depth == 0) out.push_back({e.substr(5), {}});
      else out.back().inside.push_back("region " + e.substr(5));
      ++depth;
    } else if (e == "pop") {
      EXPECT_GT(depth, 0) << "a region was closed that was not open";
      if (depth > 0) --depth;
    } else {
      EXPECT_GT(depth, 0) << e << " ran outside every region";
      if (depth > 0) out.back().inside.push_back(e);
    }
  }
  EXPECT_EQ(depth, 0) << "a region was left open";
  return out;
}

// A call the test made: the region it must open, and kernels that must run inside that region.
struct ExpectedCall {
  std::string region;
  std::vector<std::string> kernels;
};

// The regions of `seen` are those of `expected`, one per public call in the order made (regions
// opened inside them are allowed, and must be "unison::..." or Kokkos Kernels' "KokkosBlas::...");
// each holds at least one kernel, those listed among them, and every kernel inside it is
// labelled with one of `prefixes` (the family's "unison::<family>::").
inline void expect_calls(const Events& seen, const std::vector<ExpectedCall>& expected,
                         const std::vector<std::string>& prefixes) {
  const auto got = calls(seen);
  ASSERT_EQ(got.size(), expected.size()) << "regions at the top level";
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].region, expected[i].region) << "call " << i;
    int kernels = 0;
    for (const auto& e : got[i].inside) {
      const bool kernel = e.rfind("kernel ", 0) == 0;
      const std::string name = e.substr(e.find(' ') + 1);
      if (!kernel) {
        EXPECT_TRUE(name.rfind("unison::", 0) == 0 || name.rfind("KokkosBlas::", 0) == 0)
            << "region " << name << " inside " << got[i].region;
        continue;
      }
      ++kernels;
      bool known = false;
      for (const auto& p : prefixes) known = known || name.rfind(p, 0) == 0;
      EXPECT_TRUE(known) << "kernel " << name << " inside " << got[i].region;
    }
    EXPECT_GT(kernels, 0) << got[i].region << " launched no kernel";
    for (const auto& k : expected[i].kernels)
      EXPECT_NE(std::find(got[i].inside.begin(), got[i].inside.end(), "kernel " + k),
                got[i].inside.end())
          << "kernel " << k << " not inside " << got[i].region;
  }
}

// Whether `seen` recorded `label` ("kernel NAME" or "allocation NAME").
inline bool has_label(const Events& seen, const std::string& label) {
  return std::find(seen.labels.begin(), seen.labels.end(), label) != seen.labels.end();
}

// Every label seen starts with "unison::", but the team scratch that Kokkos allocates and
// labels itself for team policies.
inline void expect_unison_labels(const std::vector<std::string>& seen) {
  for (const auto& label : seen) {
    auto name = label.substr(label.find(' ') + 1);
    if (label.rfind("allocation Kokkos::", 0) == 0 &&
        (name.find("scratch") != std::string::npos || name.find("Scratch") != std::string::npos))
      continue;
    EXPECT_EQ(name.rfind("unison::", 0), 0u) << label;
  }
}

// Kokkos' own fence after a stream-ordered allocation on a GPU (every instance of the backend).
// The forms of a function that allocate temporary memory (documented: diffuse without a buffer,
// matmul_reduce without a workspace, jagged_field, atomic_counter, the first call on an instance)
// and hidden_layer returning a host View have this and no other; none frees memory.
inline bool kokkos_memory_fence(const std::string& name) {
  return name == "Kokkos::Cuda: backend fence after async malloc";
}

enum class Memory { not_allocated, allocated };

// Every kernel ran on exec's backend, device and instance, and every fence waited for exec alone:
// no global fence, no fence of another instance (but Kokkos' own when the function allocates).
// A deep_copy without an instance shows here too: Kokkos fences every instance around it.
template <class Exec>
void expect_on(const Exec& exec, const Events& seen, Memory memory = Memory::not_allocated) {
  const std::uint32_t id = Kokkos::Tools::Experimental::device_id(exec);
  EXPECT_FALSE(seen.kernels.empty());
  for (const auto& [name, device] : seen.kernels)
    EXPECT_EQ(device, id) << "kernel " << name << " ran on another instance (device id " << device
                          << ", exec's " << id << ")";
  for (std::size_t i = 0; i < seen.fences.size(); ++i)
    if (memory == Memory::not_allocated || !kokkos_memory_fence(seen.fences[i].first)) {
      EXPECT_EQ(seen.fences[i].second, id)
          << "fence \"" << seen.fences[i].first << "\" waited for another instance or all of them"
          << " (device id " << seen.fences[i].second << ", exec's " << id << "), after the kernel "
          << seen.last_kernel[i];
    }
}

// An instance that is not the default one (a new CUDA stream; a partition of the OpenMP threads; a
// new Serial instance): the <Family>Instance tests make the <Family>Labels tests' calls on it, and
// expect each kernel on that instance, no other fence.
template <class Exec>
Exec another_instance() {
  return Kokkos::Experimental::partition_space(Exec(), 1, 1)[1];
}

}  // namespace unison::test
