#pragma once
// The harness the benchmark cases (benchmarks/cases) register on and unison-bench drives: what a
// case is (Case, its Kind), the settings every registration follows, the manifest of the cases
// registered, and each family's registration by its name in the workload registry.
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "workloads.hpp"

namespace unison::bench {

// What a case is: the family of the workload registry it belongs to (workloads.hpp), the
// function it times, its kind, its sizes, what one call counts and how it is timed; named
// fields, read by the suite and listed in the manifest (unison-bench --list --json), so that
// nothing has to be learnt from a case's name. The name itself ("hypot/f32/1e6/device", without the
// backend) is what the tables show and the peers' results are matched by.
struct Case {
  Case(std::string family_, std::string function_, std::string name_, Kind kind_ = Kind::workload)
      : family(std::move(family_)),
        function(std::move(function_)),
        name(std::move(name_)),
        kind(kind_) {}
  std::string family, function, name;
  Kind kind = Kind::workload;
  // The public functions a timed call runs, as their Kokkos Tools regions name them
  // ("diffuse", "examples::lucas"; tests/api_coverage.py checks every public function has a
  // case): empty for a ceiling of the machine measured by plain Kokkos (read, copy, fma).
  std::vector<std::string> api;
  // The family's case in the report's headline: a seed size of its tutorial, where the
  // tutorials' tools run too (one case a family).
  bool headline = false;
  bool with_copies = false;  // timed with the host copies of its inputs and results
  // Its sizes as the peers need them to time the same work: ("n", 1e8), ("rows", 1000), ...
  std::vector<std::pair<std::string, double>> sizes;
  // What one call counts, per unit (`units` units a call: a diffusion's steps): the bytes it
  // moves and the flops it does (0: not counted), and `cells` of the rate named `cells_name`.
  double bytes = 0, flops = 0, units = 1, cells = 0;
  const char* cells_name = "Gcells/s";
  benchmark::TimeUnit time_unit = benchmark::kMillisecond;
  int batches = 3, repetitions = 5;  // batches per repetition, repetitions (with full)
  // A case that measures another once more, at the end of the run (a stream: the machine's load
  // varies during a run, and unison-bench keeps the faster of the two measures): the other's
  // name; empty for every other case.
  std::string again_of;
  // The same case timed with the host copies: "<name>/with_copies".
  Case copies() const {
    Case c = *this;
    c.name += "/with_copies";
    c.with_copies = true;
    c.headline = false;
    return c;
  }
};

// The manifest: every case registered so far, in order, with the backends it was registered on.
struct ManifestEntry {
  Case c;
  std::vector<std::string> backends;
};
const std::vector<ManifestEntry>& manifest();
void add_to_manifest(const Case& c, const std::string& backend);
// The name a case is registered under on a backend, in Google Benchmark and its results:
// "<name>/<backend>".
std::string benchmark_name(const Case& c, const std::string& backend);
// The case and backend registered under a benchmark name (benchmark_name), or none where no
// case was (the pointer: into the manifest, valid until the next registration).
struct Registered {
  const Case* c;
  std::string backend;
};
std::optional<Registered> registered(const std::string& benchmark_name);
// The manifest as JSON: {"cases": [{"name", "family", "function", "kind", "with_copies", "api",
// "headline", "backends", "sizes": {...}, "bytes", "flops", "units"}, ...]}.
void write_manifest_json(std::ostream& out);

// What the programs that register the cases want of every registration (the cases' own program,
// benchmarks/main.cpp: everything; unison-bench: the suite's options).
struct Settings {
  // Every case with its own batches and repetitions at the seed sizes (the cases' own program,
  // and the suite's --full); otherwise one batch per repetition, and the cases that offer a smaller
  // size (the diffusion's seed run) use it where the seed size would take more than
  // case_seconds a call.
  bool full = true;
  double min_sample_s = 1e-3;  // the least time one timed batch lasts
  double case_seconds = 5.0;   // without full: the longest a call may take at a seed size
  int registered = 0;          // cases registered so far
  // Called as each case starts (its first repetition), with "<case>/<backend>".
  std::function<void(const std::string&)> on_start;
  bool probes = true;                     // register the exploration probes (Kind::probe)
  std::function<bool(const Case&)> keep;  // register only the cases it keeps (if set)
  // and, if set, only the cases it keeps with their full name "<name>/<backend>"
  std::function<bool(const Case&, const std::string& full)> keep_full;
  std::vector<std::string> backends;  // register only these backends (empty: every one)
  int repetitions = 0;                // repetitions of every case (0: each case's own)
  double scale = 1;                   // sizes: the seed sizes times this (0 < scale <= 1)
  bool checks = true;                 // run the cases' checks
  // Where each case's inputs and result go as .npy files (<dir>/<case name>/*.npy), from the
  // backend named here, for cases of at most results_limit bytes (empty dir: none saved).
  std::string results_dir, results_backend;
  double results_limit = 64.0 * 1024 * 1024;
  bool results_failed = false;  // set when a case's .npy files could not be written
};
Settings& settings();

// A family's registration: the function that adds its cases of one kind on every backend. Each
// cases/<family>.cpp adds its own under the family's name in the workload registry
// (workloads.hpp) with a static `const bool registered = add_registration(...)`: its cases
// (Kind::workload), and the sweeps it has (Kind::crossover, Kind::sizes).
using Registration = void (*)();
bool add_registration(const std::string& family, Registration registration,
                      Kind kind = Kind::workload);
// Registers the cases of `kind` of every family of the registry that `wanted` accepts, in the
// registry's order, each registration once. Throws std::logic_error for a family that has no
// registration of its cases (a family without a sweep of that kind has none to register).
void register_workloads(const std::function<bool(const std::string&)>& wanted,
                        Kind kind = Kind::workload);

}  // namespace unison::bench
