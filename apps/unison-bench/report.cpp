
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "roofline.hpp"

namespace unison::suite {

void describe(Row& row, const CaseKind& of) {
  row.workload = of.kind == Kind::crossover ? "crossover" : of.family;
  row.function = of.function;
  row.kind = of.kind;
  row.headline = of.headline;
}

std::string format_time(double s) {
  char buf[32];
  const double a = s < 0 ? -s : s;
  if (a == 0) return "0";
  if (a < 1e-6) std::snprintf(buf, sizeof buf, "%.3g ns", s * 1e9);
  else if (a < 1e-3) std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  else if (a < 1) std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

void advise(std::vector<Row>& rows) {
  std::map<std::pair<std::string, std::string>, const Row*> at;
  for (const Row& r : rows) at[{r.name, r.backend}] = &r;
  char buf[200];
  for (Row& r : rows) {
    r.note.clear();
    const std::string suffix = "/with_copies";
    if (r.name.size() > suffix.size() &&
        r.name.compare(r.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      // The same case with the data on the device: "<base>/device" (element-wise) or "<base>".
      const std::string base = r.name.substr(0, r.name.size() - suffix.size());
      auto device = at.find({base + "/device", r.backend});
      if (device == at.end()) device = at.find({base, r.backend});
      if (device != at.end() && device->second->median_s > 0 &&
          r.median_s > 2 * device->second->median_s) {
        std::snprintf(
            buf, sizeof buf,
            "host copies take %.0f%% of this call: keep the data on the device between calls",
            100 * (1 - device->second->median_s / r.median_s));
        r.note = buf;
        continue;
      }
    }
    if (r.backend != "Cuda") continue;
    const auto cpu = at.find({r.name, "OpenMP"});
    if (cpu != at.end() && cpu->second->median_s > 0 && r.median_s > 1.2 * cpu->second->median_s) {
      std::snprintf(buf, sizeof buf,
                    "the GPU is %.2gx slower than the CPU here: too little work per call (%s); run "
                    "it on the CPU or batch calls",
                    r.median_s / cpu->second->median_s, format_time(r.median_s).c_str());
      r.note = buf;
    } else if (r.median_s < 20e-6 && !r.peak.empty() && r.peak_fraction < 0.1) {
      std::snprintf(buf, sizeof buf,
                    "too short to fill the GPU (%s, %s): give it more work per call",
                    format_time(r.median_s).c_str(), fraction_text(r).c_str());
      r.note = buf;
    }
  }
}

std::vector<std::string> crossover_lines(const std::vector<Row>& rows) {
  // sweep -> mode -> size -> backend -> time
  std::map<std::string, std::map<std::string, std::map<double, std::map<std::string, double>>>> t;
  std::map<std::pair<std::string, double>, std::string> label;  // (sweep, size) -> "1e5", "32x32"
  std::vector<std::string> sweeps;
  for (const Row& r : rows) {
    if (r.kind != Kind::crossover) continue;
    std::vector<std::string> parts;
    std::stringstream ss(r.name);
    for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
    if (parts.size() != 4) continue;
    const auto x = parts[2].find('x');
    const double size = x == std::string::npos ? std::atof(parts[2].c_str())
                                               : std::atof(parts[2].substr(0, x).c_str()) *
                                                     std::atof(parts[2].substr(x + 1).c_str());
    if (std::find(sweeps.begin(), sweeps.end(), parts[1]) == sweeps.end())
      sweeps.push_back(parts[1]);
    t[parts[1]][parts[3]][size][r.backend] = r.median_s;
    label[{parts[1], size}] = parts[2];
  }
  std::vector<std::string> lines;
  char buf[256];
  for (const auto& sweep : sweeps) {
    const auto& device = t[sweep]["device"];
    for (const char* mode : {"device", "with_copies"}) {
      const auto& gpu_mode = t[sweep][mode];
      // Sizes with a GPU time in this mode and a CPU time (the CPU's data is always in its memory).
      std::vector<std::pair<double, std::pair<double, double>>> points;  // size, (cpu, gpu)
      for (const auto& [size, by_backend] : gpu_mode) {
        const auto gpu = by_backend.find("Cuda");
        const auto at = device.find(size);
        if (gpu == by_backend.end() || at == device.end()) continue;
        const auto cpu =
            at->second.count("OpenMP") ? at->second.find("OpenMP") : at->second.find("Serial");
        if (cpu == at->second.end()) continue;
        points.push_back({size, {cpu->second, gpu->second}});
      }
      if (points.empty()) continue;
      std::size_t from = points.size();  // the GPU is faster from points[from] on
      while (from > 0 && points[from - 1].second.second < points[from - 1].second.first) --from;
      const std::string what = sweep + (std::string(mode) == "device" ? ", data on the device: "
                                                                      : ", with the host copies: ");
      if (from == 0) {
        std::snprintf(
            buf, sizeof buf, "the GPU is faster at every size, from %s (%s against the CPU's %s)",
            label[{sweep, points[0].first}].c_str(), format_time(points[0].second.second).c_str(),
            format_time(points[0].second.first).c_str());
      } else if (from == points.size()) {
        std::snprintf(buf, sizeof buf,
                      "the CPU is faster at every size, up to %s (%s against the GPU's %s)",
                      label[{sweep, points.back().first}].c_str(),
                      format_time(points.back().second.first).c_str(),
                      format_time(points.back().second.second).c_str());
      } else {
        std::snprintf(buf, sizeof buf, "the GPU is faster from %s on (at %s: CPU %s, GPU %s)",
                      label[{sweep, points[from].first}].c_str(),
                      label[{sweep, points[from - 1].first}].c_str(),
                      format_time(points[from - 1].second.first).c_str(),
                      format_time(points[from - 1].second.second).c_str());
      }
      lines.push_back(what + buf);
    }
  }
  return lines;
}

std::string check_text(const Row& r) {
  if (!r.checked) return "";
  char buf[64];
  if (r.passed()) std::snprintf(buf, sizeof buf, "ok %.2g", r.error);
  else if (!r.as_timed) std::snprintf(buf, sizeof buf, "FAIL not the timed call");
  else std::snprintf(buf, sizeof buf, "FAIL %.2g > %.2g", r.error, r.tolerance);
  return buf;
}

std::vector<std::string> check_summary(const std::vector<Row>& rows) {
  std::vector<std::string> lines;
  int passed = 0, failed = 0, unchecked = 0, peers_passed = 0, peers_failed = 0;
  char buf[256];
  for (const Row& r : rows) {
    if (r.peer) {
      if (r.checked) ++(r.passed() ? peers_passed : peers_failed);
    } else if (!r.checked) {
      ++unchecked;
    } else if (r.passed()) {
      ++passed;
    } else {
      ++failed;
      if (!r.as_timed)
        std::snprintf(buf, sizeof buf, "%s on %s: the check judged other calls than the timed one",
                      r.name.c_str(), r.backend.c_str());
      else
        std::snprintf(buf, sizeof buf, "%s on %s: error %.3g > tolerance %.3g", r.name.c_str(),
                      r.backend.c_str(), r.error, r.tolerance);
      lines.push_back(buf);
    }
  }
  std::snprintf(buf, sizeof buf,
                "checks against the float64 reference: %d passed, %d failed, %d without one",
                passed, failed, unchecked);
  std::string last = buf;
  if (peers_passed + peers_failed > 0) {
    std::snprintf(buf, sizeof buf, " (the peers' results: %d passed, %d failed)", peers_passed,
                  peers_failed);
    last += buf;
  }
  lines.push_back(last);
  return lines;
}

}  // namespace unison::suite
