#pragma once
// Running the peers (benchmarks/peers/: the plain C loops, the Python scripts, the CUDA C
// program) at the suite's sizes.
#include <filesystem>
#include <string>
#include <vector>

#include "report.hpp"

namespace unison::suite {

// Runs the peers for the chosen workloads at the suite's scale (each one's output in
// <out>/peers/<script or program>.log): unison-plain-c, then the Python scripts (where a Python
// with NumPy is found), and returns their results as peer rows, described by the manifest's
// entries of their cases; says on stderr what ran, what each skipped (a line of its output
// starting with "skipped") and what failed.
std::vector<Row> run_peers(const std::filesystem::path& out,
                           const std::vector<std::string>& workloads, double scale, bool crossover,
                           bool sizes);

}  // namespace unison::suite
