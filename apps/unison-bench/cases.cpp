#include "cases.hpp"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>

#include "cases/common.hpp"

namespace unison::suite {

void register_cases(const Options& opt) {
  auto& settings = unison::bench::settings();
  settings.probes = false;
  settings.backends = opt.backends;
  settings.full = opt.full;
  settings.min_sample_s = opt.full ? 1e-3 : 1e-2;
  settings.repetitions = opt.repetitions > 0 ? opt.repetitions : opt.full ? 5 : 0;
  settings.scale = opt.scale;
  settings.checks = opt.checks;
  if (opt.checks) {
    settings.results_dir = (std::filesystem::path(opt.out) / "results").string();
    settings.results_backend = opt.backends.back();
    settings.results_limit = double(opt.results_limit_mib) * 1024 * 1024;
  }
  const auto wanted = [workloads = opt.workloads](const std::string& w) {
    return std::find(workloads.begin(), workloads.end(), w) != workloads.end();
  };
  // The copy and fma cases (each backend's memory and arithmetic ceilings, the peaks of the GB/s
  // and GFLOP/s fractions) always run.
  using unison::bench::Kind;
  settings.keep = [wanted, crossover = opt.crossover,
                   sizes = opt.sizes](const unison::bench::Case& c) {
    switch (c.kind) {
      case Kind::peak:
        return true;
      case Kind::crossover:
        return crossover && wanted(c.family);
      case Kind::sizes:
        return sizes && wanted(c.family);
      case Kind::probe:
        return false;
      case Kind::workload:
        break;
    }
    return wanted(c.family);
  };
  if (!opt.filter.empty()) {
    const std::regex filter(opt.filter, std::regex::ECMAScript);
    settings.keep_full = [filter](const unison::bench::Case& c, const std::string& full) {
      return c.kind == Kind::peak || std::regex_search(full, filter);
    };
  }
  unison::bench::register_copy();  // the peaks (cases/peak.cpp), first
  unison::bench::register_workloads(wanted);
  if (opt.crossover) unison::bench::register_workloads(wanted, Kind::crossover);
  if (opt.sizes) unison::bench::register_workloads(wanted, Kind::sizes);
  unison::bench::register_streams_again();  // the peaks measured at the end too
}

}  // namespace unison::suite
