#include "headline.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace unison::suite {

namespace {

bool is_unison(const std::string& b) { return b == "Serial" || b == "OpenMP" || b == "Cuda"; }
bool from_python(const std::string& b) { return b.rfind("python_", 0) == 0; }

// The place of an implementation in a headline case's bars; unknown peers last.
int rank(const std::string& b) {
  static const std::vector<std::string> order{
      "Serial", "OpenMP",    "Cuda",    "python_serial", "python_openmp", "python_cuda",
      "numpy",  "numba_cpu", "plain_c", "numba_cuda",    "cupy",          "cuda_c"};
  const auto it = std::find(order.begin(), order.end(), b);
  return it == order.end() ? int(order.size()) : int(it - order.begin());
}

std::string times(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 1000 ? "%.3gx" : "%.0fx", x);
  return buf;
}

}  // namespace

std::vector<HeadlineCase> headline(const std::vector<Row>& rows) {
  std::vector<HeadlineCase> out;
  for (const Row& r : rows) {
    if (!r.headline || r.median_s <= 0) continue;
    auto c = std::find_if(out.begin(), out.end(),
                          [&](const HeadlineCase& h) { return h.name == r.name; });
    if (c == out.end()) {
      out.push_back({r.workload, r.name, "", 0, {}});
      c = out.end() - 1;
    }
    HeadlineBar bar;
    bar.implementation = r.backend;
    bar.peer = r.peer;
    bar.seconds = r.median_s;
    bar.failed = !r.passed();
    c->bars.push_back(bar);
  }
  for (auto& c : out) {
    std::stable_sort(c.bars.begin(), c.bars.end(), [](const HeadlineBar& a, const HeadlineBar& b) {
      return rank(a.implementation) < rank(b.implementation);
    });
    const auto find = [&](const char* name) {
      return std::find_if(c.bars.begin(), c.bars.end(),
                          [&](const HeadlineBar& b) { return b.implementation == name; });
    };
    auto base = find("numpy");
    if (base == c.bars.end()) base = find("numba_cpu");
    if (base == c.bars.end()) base = find("Serial");
    if (base == c.bars.end()) base = c.bars.begin();
    c.baseline = base->implementation;
    c.baseline_seconds = base->seconds;
    for (auto& b : c.bars) b.speedup = c.baseline_seconds / b.seconds;
  }
  return out;
}

std::string headline_text(const HeadlineCase& c) {
  char buf[96];
  std::snprintf(buf, sizeof buf, " (%s %s = 1x):", c.baseline.c_str(),
                format_time(c.baseline_seconds).c_str());
  std::string line = c.family + ", " + c.name + buf;
  const char* sep = " ";
  for (const auto& b : c.bars) {
    if (b.implementation == c.baseline) continue;
    line += sep + b.implementation + " " + times(b.speedup) + (b.failed ? " FAILED" : "");
    sep = ", ";
  }
  if (c.bars.size() < 2) line += " no other implementation ran it";
  return line;
}

std::vector<std::string> findings(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  char buf[400];
  // The GPU against the CPU's fastest backend, case by case (Unison's workloads, data on the
  // device).
  std::map<std::string, std::map<std::string, double>> at;  // case -> backend -> time
  std::vector<std::string> order;
  for (const Row& r : rows) {
    if (r.peer || r.kind != Kind::workload || r.median_s <= 0 || !is_unison(r.backend)) continue;
    if (!at.count(r.name)) order.push_back(r.name);
    at[r.name][r.backend] = r.median_s;
  }
  struct Ratio {
    std::string name, cpu;
    double ratio = 0, cpu_s = 0, gpu_s = 0;
  };
  std::vector<Ratio> ratios;
  const bool gpu = std::any_of(rows.begin(), rows.end(),
                               [](const Row& r) { return !r.peer && r.backend == "Cuda"; });
  for (const auto& name : order) {
    const auto& t = at[name];
    const char* fast = gpu ? "Cuda" : "OpenMP";
    if (!t.count(fast)) continue;
    std::string cpu;
    double cpu_s = 0;
    for (const char* b :
         gpu ? std::vector<const char*>{"OpenMP", "Serial"} : std::vector<const char*>{"Serial"})
      if (t.count(b) && (cpu.empty() || t.at(b) < cpu_s)) cpu = b, cpu_s = t.at(b);
    if (cpu.empty()) continue;
    ratios.push_back({name, cpu, cpu_s / t.at(fast), cpu_s, t.at(fast)});
  }
  if (!ratios.empty()) {
    const auto most = *std::max_element(ratios.begin(), ratios.end(),
                                        [](auto& a, auto& b) { return a.ratio < b.ratio; });
    const auto least = *std::min_element(ratios.begin(), ratios.end(),
                                         [](auto& a, auto& b) { return a.ratio < b.ratio; });
    const long slower =
        std::count_if(ratios.begin(), ratios.end(), [](const Ratio& r) { return r.ratio < 1; });
    if (gpu) {
      std::snprintf(buf, sizeof buf,
                    "The GPU is up to %s faster than the CPU's fastest backend: %s, %s on Cuda "
                    "against %s on %s.",
                    times(most.ratio).c_str(), most.name.c_str(), format_time(most.gpu_s).c_str(),
                    format_time(most.cpu_s).c_str(), most.cpu.c_str());
      out.push_back(buf);
      if (slower > 0) {
        std::snprintf(buf, sizeof buf,
                      "The CPU is faster on %ld of the %zu workload cases both ran, most on %s "
                      "(%s on %s against %s on Cuda): too little work per call for the GPU.",
                      slower, ratios.size(), least.name.c_str(), format_time(least.cpu_s).c_str(),
                      least.cpu.c_str(), format_time(least.gpu_s).c_str());
        out.push_back(buf);
      }
    } else {
      std::snprintf(buf, sizeof buf,
                    "OpenMP is up to %s faster than Serial (%s: %s against %s); no GPU backend "
                    "ran.",
                    times(most.ratio).c_str(), most.name.c_str(), format_time(most.gpu_s).c_str(),
                    format_time(most.cpu_s).c_str());
      out.push_back(buf);
    }
  }
  // Unison's fastest backend against the fastest peer on each headline case.
  for (const auto& c : headline(rows)) {
    const HeadlineBar *mine = nullptr, *peer = nullptr;
    for (const auto& b : c.bars) {
      if (from_python(b.implementation)) continue;
      const HeadlineBar*& best = b.peer ? peer : mine;
      if (!best || b.seconds < best->seconds) best = &b;
    }
    if (!mine || !peer) continue;
    const double r = peer->seconds / mine->seconds;
    const std::string how = r > 1 / 1.05 && r < 1.05 ? "about as fast as"
                            : r >= 1                 ? times(r) + " faster than"
                                                     : times(1 / r) + " slower than";
    std::snprintf(buf, sizeof buf, "%s (%s): Unison on %s (%s) is %s the fastest peer, %s (%s)%s.",
                  c.family.c_str(), c.name.c_str(), mine->implementation.c_str(),
                  format_time(mine->seconds).c_str(), how.c_str(), peer->implementation.c_str(),
                  format_time(peer->seconds).c_str(), peer->failed ? ", whose check failed" : "");
    out.push_back(buf);
  }
  // The checks.
  int passed = 0, failed = 0, peers_failed = 0;
  std::string names, peer_names;
  for (const Row& r : rows) {
    if (!r.checked) continue;
    if (r.peer) {
      if (!r.passed()) {
        ++peers_failed;
        if (peers_failed <= 3)
          peer_names += (peers_failed > 1 ? ", " : "") + r.name + " on " + r.backend;
      }
    } else if (r.passed()) {
      ++passed;
    } else {
      ++failed;
      if (failed <= 3) names += (failed > 1 ? ", " : "") + r.name + " on " + r.backend;
    }
  }
  if (failed == 0) {
    std::snprintf(buf, sizeof buf,
                  "All %d of Unison's checks against the float64 reference passed.", passed);
  } else {
    std::snprintf(buf, sizeof buf,
                  "%d of Unison's %d checks against the float64 reference FAILED: %s%s.", failed,
                  passed + failed, names.c_str(), failed > 3 ? ", ..." : "");
  }
  out.push_back(buf);
  if (peers_failed > 0) {
    std::snprintf(buf, sizeof buf, "%d of the peers' results failed their check: %s%s.",
                  peers_failed, peer_names.c_str(), peers_failed > 3 ? ", ..." : "");
    out.push_back(buf);
  }
  return out;
}

}  // namespace unison::suite
