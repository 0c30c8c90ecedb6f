// Kokkos Tools callbacks that record the Unison calls a piece of the suite makes
// (call_trace.hpp).
#include "call_trace.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

namespace unison::bench {
namespace {

struct Recorder {
  CallTrace trace;
  int depth = 0;             // regions open inside a recorded call (0: outside any)
  std::string call;          // the call being recorded
  std::string last_kernel;   // the kernel of the run being counted
  std::int64_t repeats = 0;  // its launches in a row
  void flush_kernel() {
    if (repeats == 0) return;
    call += "; kernel " + last_kernel;
    if (repeats > 1) call += " x" + std::to_string(repeats);
    repeats = 0;
  }
  void event(const std::string& what) {
    flush_kernel();
    call += "; " + what;
  }
};
Recorder* recorder = nullptr;

// A region of Unison's public functions ("unison::diffuse", "unison::examples::lucas"), not the
// suite's own ("unison::bench::...").
bool public_region(const std::string& name) {
  return name.rfind("unison::", 0) == 0 && name.rfind("unison::bench::", 0) != 0;
}

void on_push(const char* name) {
  Recorder& r = *recorder;
  if (r.depth == 0) {
    if (!public_region(name)) return;
    r.call = name;
  } else {
    r.event(std::string("region ") + name);
  }
  ++r.depth;
}
void on_pop() {
  Recorder& r = *recorder;
  if (r.depth == 0) return;  // (a region of the suite's own, not recorded)
  if (--r.depth > 0) {
    r.event("end");
    return;
  }
  r.flush_kernel();
  r.trace.calls.push_back(std::move(r.call));
  r.call.clear();
}
void on_kernel(const char* name, std::uint32_t, std::uint64_t* id) {
  *id = 0;
  Recorder& r = *recorder;
  if (r.depth == 0) return;
  if (r.repeats > 0 && r.last_kernel == name) {
    ++r.repeats;
    return;
  }
  r.flush_kernel();
  r.last_kernel = name;
  r.repeats = 1;
}
void on_copy(Kokkos::Profiling::SpaceHandle, const char*, const void*,
             Kokkos::Profiling::SpaceHandle, const char*, const void*, std::uint64_t bytes) {
  Recorder& r = *recorder;
  if (r.depth > 0) r.event("copy " + std::to_string(bytes) + " bytes");
}

}  // namespace

CallTrace trace_calls(const std::function<void()>& f) {
  namespace tools = Kokkos::Tools::Experimental;
  Recorder r;
  recorder = &r;
  const tools::EventSet before = tools::get_callbacks();
  tools::EventSet mine{};
  mine.push_region = on_push;
  mine.pop_region = on_pop;
  mine.begin_parallel_for = on_kernel;
  mine.begin_parallel_reduce = on_kernel;
  mine.begin_parallel_scan = on_kernel;
  mine.begin_deep_copy = on_copy;
  tools::set_callbacks(mine);
  try {
    f();
  } catch (...) {
    tools::set_callbacks(before);
    recorder = nullptr;
    throw;
  }
  tools::set_callbacks(before);
  recorder = nullptr;
  return r.trace;
}

std::string describe(const CallTrace& trace) {
  std::string out;
  for (const auto& call : trace.calls) out += (out.empty() ? "" : " | ") + call;
  return out;
}

}  // namespace unison::bench
