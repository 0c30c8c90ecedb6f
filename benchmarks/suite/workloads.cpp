// The workload registry: each workload family of docs/workloads.md that unison-bench runs (its
// section 6 is three: random, histogram, examples), in report order, with the functions its
// cases are named after and the peers that run beside it. A new family (or a new function of
// one) is added here once; --workloads, the help text, the family of each case in the tables and
// the peers all read this list, and unison_bench and unison-bench register each family's cases
// by its name (bench_<family>.cpp).
#include "suite.hpp"

namespace unison::suite {

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> list{
      {"elementwise",
       {"add_float32", "add_int64", "copy", "fma", "read", "gaussian_pdf", "hypot",
        "polar_distance", "zero_suppress", "clip", "make_pulses", "hidden_layer_fused",
        "hidden_layer_separate"},
       true,
       {{"elementwise_peers.py", {}}, {"python_peers.py", {"elementwise"}}}},
      {"rowwise", {"l2_norm", "matmul_core"}, false, {{"rowwise_peers.py", {}}}},
      {"convolve", {"convolve"}, true, {{"stencil_peers.py", {"convolve"}}}},
      {"diffusion", {"diffusion"}, true, {{"stencil_peers.py", {"gpu", "cpu"}}}},
      {"matmul",
       {"matmul_reduce"},
       false,
       {{"matmul_peers.py", {}}, {"unison-cuda-c", {"matmul"}}}},
      {"random",
       {"monte_carlo_pi"},
       false,
       {{"random_peers.py", {}}, {"unison-cuda-c", {"random"}}}},
      {"histogram",
       {"histogram"},
       true,
       {{"histogram_peers.py", {}},
        {"python_peers.py", {"histogram"}},
        {"unison-cuda-c", {"histogram"}}}},
      {"examples", {"atomic_counter", "rgb_to_grayscale", "loop_sum", "lucas"}, false, {}},
  };
  return list;
}

}  // namespace unison::suite
