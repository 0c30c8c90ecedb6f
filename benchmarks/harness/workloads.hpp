#pragma once
// The harness's plain part, read by the cases and by unison-bench alike: the kinds of case, and
// the workload registry, the families in report order with what is known of each.
#include <string>
#include <vector>

namespace unison::bench {

// What a case is for (Case::kind): a seed workload, a ceiling of the machine, or a point of a
// sweep. Named fields, never learnt from a case's name.
enum class Kind {
  workload,   // a seed workload of docs/workloads.md
  peak,       // a ceiling of the machine: a stream ("copy", "read", "add") or the fma case
  crossover,  // a size of a sweep for where the GPU overtakes the CPU (--crossover)
  sizes,      // a size of the sweep past the caches (--sizes)
  probe,      // an exploration probe (the cases' own program only: benchmarks/main.cpp)
};
// "workload", "peak", "crossover", "sizes", "probe": the manifest's and the CSV's word.
const char* kind_name(Kind kind);

// A peer program and its arguments (a part of it, or the suite's scale).
struct PeerScript {
  std::string script;
  std::vector<std::string> args;
};

// The workload registry (workloads.cpp): one entry per workload family of docs/workloads.md (its
// section 6 is three: random, histogram, examples), in report order. What --workloads takes and
// the help text names, the peers that run beside it; the cases register each family's cases by
// its name (register_workloads, case.hpp), and each case names its family (Case::family).
struct Workload {
  std::string name;
  bool plain_c = false;           // unison-plain-c has a part of this name
  std::vector<PeerScript> peers;  // its peers with its parts: Python scripts in benchmarks/peers/,
                                  // programs built beside unison-bench (unison-cuda-c)
  // The peers that time its sweeps too, each given the part "crossover" (--crossover) or "sizes"
  // (--sizes). (The sweeps' cases are registered by kind: add_registration, case.hpp.)
  std::vector<std::string> crossover_peers, sizes_peers;
  // Its figures in the report beyond its times (plot.py's files, "diffusion.png").
  std::vector<std::string> figures;
  bool start_field = false;  // its peer programs take the run's start field (--field=FILE.npy)
};
const std::vector<Workload>& workloads();

// The workload families' names, in report order.
const std::vector<std::string>& workload_names();

}  // namespace unison::bench
