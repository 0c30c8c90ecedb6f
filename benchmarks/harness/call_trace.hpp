#pragma once
// The Unison calls a piece of the suite makes, recorded through Kokkos Tools: what the suite
// records of a case's check, which must make none (common.hpp, report_check). A check judges the
// result of a timed call (for a case whose calls carry state, such as a diffusion, the suite
// makes that call from the case's fresh start right before the check); a check that called
// Unison itself, with other steps, another size or another method, would judge a call the suite
// never timed.

#include <functional>
#include <string>
#include <vector>

namespace unison::bench {

// The calls of Unison's public functions that something made, in order: one string per call,
// its region's name ("unison::diffuse") and what it launched inside, in order: nested regions,
// kernels (a run of one kernel as "kernel NAME x1000") and deep copies with their bytes. Kernels
// and copies outside such a region (the suite's own: references, host copies) are not recorded,
// nor are allocations.
struct CallTrace {
  std::vector<std::string> calls;
};

// The Unison calls f makes (any Kokkos Tools callbacks set before are restored after).
CallTrace trace_calls(const std::function<void()>& f);

// The calls of a trace, one after the other ("" for none).
std::string describe(const CallTrace& trace);

}  // namespace unison::bench
