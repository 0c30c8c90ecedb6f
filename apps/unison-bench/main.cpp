// unison-bench: the side-by-side suite. Runs the benchmark cases of the chosen workload families
// on the chosen backends (benchmarks/cases, without the exploration probes), prints progress
// while it runs and a table grouped by family with a column per backend and the speedups, checks
// every result against its float64 reference, runs the peers beside them, and writes the results
// to a folder: unison_bench.json (Google Benchmark's format), unison_bench.csv, each case's inputs
// and result as .npy, plots, report.html. `unison-bench --help` lists the options.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>
#include <system_error>
#include <vector>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include "cases.hpp"
#include "cases/common.hpp"
#include "collect.hpp"
#include "environment.hpp"
#include "options.hpp"
#include "outputs.hpp"
#include "report.hpp"
#include "roofline.hpp"
#include "run_peers.hpp"
#include "workloads.hpp"

int main(int argc, char** argv) {
  using namespace unison::suite;
  cpus() = cpus_available();  // before any thread is bound or the environment changed
  run_again_if_needed(argv);
  // Kokkos' own arguments go to Kokkos; the rest are unison-bench's.
  std::vector<std::string> args;
  std::vector<char*> kokkos_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--kokkos-", 0) == 0) kokkos_argv.push_back(argv[i]);
    else args.push_back(a);
  }
  const std::vector<std::string> enabled = enabled_backends();
  const Parsed parsed = parse_options(args, enabled);
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "unison-bench: %s (see unison-bench --help)\n", parsed.error.c_str());
    return 2;
  }
  const Options& opt = parsed.options;
  if (opt.help) {
    std::cout << help_text(enabled);
    return 0;
  }
  const std::filesystem::path out(opt.out);
  if (!opt.list) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec || !std::filesystem::is_directory(out)) {
      std::fprintf(stderr, "unison-bench: --out: cannot create the folder '%s'\n", opt.out.c_str());
      return 2;
    }
  }

  const bool flushed = unison::bench::flush_subnormals_if_asked();  // before Kokkos' threads
  int kokkos_argc = int(kokkos_argv.size());
  Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_argv.data());

  const std::string json = (out / "unison_bench.json").string();
  std::vector<std::string> gb_args{argv[0]};
  if (opt.list) gb_args.push_back("--benchmark_list_tests=true");
  else gb_args.insert(gb_args.end(), {"--benchmark_out=" + json, "--benchmark_out_format=json"});
  std::vector<char*> gb_argv;
  for (auto& a : gb_args) gb_argv.push_back(a.data());
  int gb_argc = int(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  unison::bench::add_context(flushed);
  add_machine_context();
  register_cases(opt);
  if (opt.list && opt.json) {
    unison::bench::write_manifest_json(std::cout);
    return 0;
  }
  if (opt.list) {
    say_cpus_and_threads();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }

  auto rows = run_cases(opt);
  std::vector<std::string> columns = opt.backends;
  if (opt.peers) {
    const std::regex filter(opt.filter.empty() ? std::string("") : opt.filter,
                            std::regex::ECMAScript);
    for (const auto& r : run_peers(out, opt.workloads, opt.scale, opt.crossover, opt.sizes)) {
      if (!opt.filter.empty() && r.kind != unison::bench::Kind::peak &&
          !std::regex_search(r.name + "/" + r.backend, filter))
        continue;
      if (std::find(columns.begin(), columns.end(), r.backend) == columns.end())
        columns.push_back(r.backend);
      rows.push_back(r);
    }
  }
  const auto levels = memory_levels();
  apply_peaks(rows, levels);
  advise(rows);
  print_table(rows, columns);
  const auto about = about_this_run(args);
  if (!write_results(out, json, rows, about, levels)) return 1;
  // The field images that the diffusion figure draws, where a chosen workload has that figure.
  const auto chosen_with_figure = [&](const unison::bench::Workload& w) {
    return std::find(opt.workloads.begin(), opt.workloads.end(), w.name) != opt.workloads.end() &&
           std::find(w.figures.begin(), w.figures.end(), "diffusion.png") != w.figures.end();
  };
  if (std::any_of(unison::bench::workloads().begin(), unison::bench::workloads().end(),
                  chosen_with_figure))
    diffusion_images(opt.out, opt.backends.back());
  if (opt.plots) draw_plots(opt.out);
  const bool reported = write_report_file(out, rows, columns, about);
  const auto summary = check_summary(rows);
  if (summary.size() > 1) {  // a line per failed check, then the counts
    for (const auto& line : summary) std::fprintf(stderr, "unison-bench: %s\n", line.c_str());
    return 1;
  }
  return unison::bench::settings().results_failed || !reported ? 1 : 0;
}
