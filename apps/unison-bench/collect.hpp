#pragma once
// Running the registered cases: progress on stderr as they end, and their results as rows.
#include <map>
#include <string>
#include <vector>

#include "options.hpp"
#include "report.hpp"

namespace unison::suite {

// Runs every case registered (Google Benchmark's), saying on stderr what it runs and each case as
// it ends, and returns their rows: each described by its case (the harness's record of what
// was registered under its name: unison::bench::registered), a stream measured again at the end
// of the run (Case::again_of) kept at the faster of its two measures.
std::vector<Row> run_cases(const Options& opt);

// The manifest's entry of each case registered so far (unison::bench::manifest()), by name.
std::map<std::string, CaseKind> manifest_kinds();

}  // namespace unison::suite
