// The workload registry: each workload family of docs/workloads.md that unison-bench runs (its
// section 6 is three: random, histogram, examples), in report order, with the peers that run
// beside it. A new family is added here once; --workloads, the help text and the peers read this
// list, and the cases are registered by family name (benchmarks/cases/<family>.cpp, whose cases
// name their family).
#include "workloads.hpp"

#include <string>
#include <vector>

namespace unison::bench {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::workload:
      return "workload";
    case Kind::peak:
      return "peak";
    case Kind::crossover:
      return "crossover";
    case Kind::sizes:
      return "sizes";
    case Kind::probe:
      return "probe";
  }
  return "";
}

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> list{
      // name, plain_c, peers, crossover_peers, sizes_peers, figures, start_field
      {"elementwise",
       true,
       {{"elementwise_peers.py", {}}, {"python_peers.py", {"elementwise"}}},
       {"python_peers.py"},
       {},
       {},
       false},
      {"rowwise", false, {{"rowwise_peers.py", {}}}, {}, {}, {}, false},
      {"convolve", true, {{"stencil_peers.py", {"convolve"}}}, {}, {"unison-plain-c"}, {}, false},
      {"diffusion",
       true,
       {{"stencil_peers.py", {"gpu", "cpu"}}},
       {},
       {"unison-plain-c", "stencil_peers.py"},
       {"diffusion.png"},
       true},
      {"matmul",
       false,
       {{"matmul_peers.py", {}}, {"unison-cuda-c", {"matmul"}}},
       {},
       {},
       {},
       false},
      {"random",
       false,
       {{"random_peers.py", {}}, {"unison-cuda-c", {"random"}}},
       {},
       {},
       {},
       false},
      {"histogram",
       true,
       {{"histogram_peers.py", {}},
        {"python_peers.py", {"histogram"}},
        {"unison-cuda-c", {"histogram"}}},
       {},
       {"unison-plain-c", "unison-cuda-c"},
       {},
       false},
      {"examples", false, {}, {}, {}, {}, false},
  };
  return list;
}

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& w : workloads()) n.push_back(w.name);
    return n;
  }();
  return names;
}

}  // namespace unison::bench
