#pragma once
// unison-bench's command line: its options, their parsing and --help.
#include <string>
#include <vector>

namespace unison::suite {

struct Options {
  std::vector<std::string> workloads;  // a subset of workload_names(), in report order
  std::vector<std::string> backends;   // a subset of the enabled backends, in their order
  bool full = false;                   // every seed size, fixed batches and repetitions
  int repetitions = 0;                 // timed repetitions of each case (the median is shown);
                                       // 0: 3, with full 5
  double scale = 1;                    // sizes: the seed sizes times this, 0 < scale <= 1
  std::string out = "unison-bench-out";
  bool list = false;   // list the cases instead of running them
  bool json = false;   // with list: the manifest, as JSON
  bool plots = true;   // draw times.png and peak.png (plot.py, when Python has matplotlib)
  bool checks = true;  // check each result against its float64 reference; save results/*.npy
  bool peers = true;   // run the peers' scripts (benchmarks/peers/) at the suite's sizes
  long results_limit_mib = 64;  // save the inputs and results of cases up to this size
  bool crossover = false;  // also the size sweeps of the chosen element-wise, convolve, diffusion
  bool sizes = false;      // also the diffusion, convolve and histogram at sizes past the caches
  std::string filter;      // an ECMAScript regular expression: only the cases whose full name
                           // ("<case>/<backend>") it matches anywhere (the copy, read and fma
                           // cases, the peaks, always run); empty: every case
  bool help = false;
};

struct Parsed {
  Options options;
  std::string error;  // not empty: a one-line reason; the command exits with code 2
};

// Parses unison-bench's arguments (without the program name). `enabled`: the backends this
// build has (Serial, OpenMP, Cuda), the default. Kokkos' own --kokkos-* arguments are not
// options of unison-bench: the caller removes them first.
Parsed parse_options(const std::vector<std::string>& args, const std::vector<std::string>& enabled);

// What --help prints.
std::string help_text(const std::vector<std::string>& enabled);

// The items of v separated by sep: join({"a", "b"}, ",") is "a,b".
std::string join(const std::vector<std::string>& v, const char* sep);

}  // namespace unison::suite
