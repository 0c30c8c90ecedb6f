#pragma once
// The workload registry: the families unison-bench runs, in report order, and their peers.
#include <string>
#include <vector>

namespace unison::suite {

// The items of v separated by sep: join({"a", "b"}, ",") is "a,b".
std::string join(const std::vector<std::string>& v, const char* sep);

// A peer program and its arguments (a part of it, or the suite's scale).
struct PeerScript {
  std::string script;
  std::vector<std::string> args;
};

// The workload registry (workloads.cpp): one entry per workload family of docs/workloads.md (its
// section 6 is three: random, histogram, examples), in report order. What --workloads takes and the
// help text names, the peers that run beside it; unison_bench and unison-bench register each
// family's cases by its name (unison::bench::register_workloads), and each case names its family
// (unison::bench::Case).
struct Workload {
  std::string name;
  bool plain_c = false;           // unison-plain-c has a part of this name
  std::vector<PeerScript> peers;  // its peers with its parts: Python scripts in benchmarks/peers/,
                                  // programs built beside unison-bench (unison-cuda-c)
};
const std::vector<Workload>& workloads();

// The workload families' names, in report order.
const std::vector<std::string>& workload_names();

}  // namespace unison::suite
