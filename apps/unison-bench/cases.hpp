#pragma once
// The cases a run registers: the benchmark cases (benchmarks/cases) that the options choose.
#include "options.hpp"

namespace unison::suite {

// Sets unison::bench::settings() from the options and registers the chosen cases: the chosen
// families' workloads on the chosen backends (--filter: those whose full name it matches), their
// sweeps where asked for (--crossover, --sizes), and every backend's peaks, always, twice (again
// at the end of the run). A case's family and kind come from the case (unison::bench::Case).
void register_cases(const Options& opt);

}  // namespace unison::suite
