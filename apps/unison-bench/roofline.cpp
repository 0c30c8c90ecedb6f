
#include "roofline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

namespace unison::suite {

std::string level_of(double bytes, const std::vector<Level>& levels) {
  if (!(bytes > 0)) return "";
  for (const Level& l : levels)
    if (bytes <= l.bytes) return l.name;
  return "DRAM";
}

namespace {
// The bytes one call (or unit) of a row moves, and the share its kernel writes past the caches.
double traffic_of(const Row& row) { return row.gb_per_s * 1e9 * row.median_s; }
double out_of(const Row& row) { return std::clamp(row.out_bytes, 0.0, traffic_of(row)); }

// A row's working set: the bytes it declared, else those of a call less its out_bytes.
double set_of(const Row& row) {
  const double set =
      row.working_set_bytes > 0 ? row.working_set_bytes : traffic_of(row) - out_of(row);
  return set > 0 ? set : traffic_of(row);
}
bool is_stream(const Row& r) {
  return r.kind == Kind::peak &&
         (r.function == "copy" || r.function == "read" || r.function == "add") && r.gb_per_s > 0;
}
}  // namespace

std::string level_of(const Row& row, const std::vector<Level>& levels) {
  if (!(traffic_of(row) > 0)) return "";
  return level_of(set_of(row), levels);
}

namespace {
const std::vector<Level>& levels_of(const MemoryLevels& levels, const std::string& backend) {
  static const std::vector<Level> dram_only{{"DRAM", INFINITY}};
  const auto it = levels.find(backend);
  return it == levels.end() ? dram_only : it->second;
}

// The measured ceilings: the streams' GB/s by backend and level (every level at least as fast
// as the next one), the working set of each level's smallest stream, the fma case's GFLOP/s.
struct Ceilings {
  std::map<std::string, std::map<std::string, double>> stream, smallest;
  std::map<std::string, double> fma;  // by backend
};

Ceilings measured_ceilings(const std::vector<Row>& rows, const MemoryLevels& levels) {
  Ceilings c;
  auto &stream = c.stream, &smallest = c.smallest;
  auto& fma = c.fma;
  const auto levels_of = [&](const std::string& b) -> const std::vector<Level>& {
    return suite::levels_of(levels, b);
  };
  for (const Row& r : rows) {
    // (at its fastest repetition)
    const double faster = r.best_s > 0 && r.best_s < r.median_s ? r.median_s / r.best_s : 1;
    if (is_stream(r)) {
      const std::string level = level_of(r, levels_of(r.backend));
      double& best = stream[r.backend][level];
      best = std::max(best, r.gb_per_s * faster);
      auto [at, fresh] = smallest[r.backend].emplace(level, set_of(r));
      if (!fresh) at->second = std::min(at->second, set_of(r));
    }
    if (r.kind == Kind::peak && r.function == "fma" && r.gflop_per_s > 0)
      fma[r.backend] = std::max(fma[r.backend], r.gflop_per_s * faster);
  }
  for (auto& [backend, at] : stream) {
    const auto& ls = levels_of(backend);
    double outer = 0;
    for (auto l = ls.rbegin(); l != ls.rend(); ++l) {
      const auto it = at.find(l->name);
      if (it != at.end()) outer = std::max(outer, it->second);
      if (outer > 0) at[l->name] = outer;
    }
  }
  return c;
}
}  // namespace

void write_ceilings_csv(std::ostream& out, const std::vector<Row>& rows,
                        const MemoryLevels& levels) {
  const Ceilings c = measured_ceilings(rows, levels);
  out << "backend,resource,rate,unit\n";
  std::vector<std::string> backends;
  for (const Row& r : rows)
    if (std::find(backends.begin(), backends.end(), r.backend) == backends.end())
      backends.push_back(r.backend);
  char buf[64];
  for (const auto& b : backends) {
    const auto s = c.stream.find(b);
    if (s != c.stream.end())
      for (const Level& l : levels_of(levels, b)) {
        const auto at = s->second.find(l.name);
        if (at == s->second.end()) continue;
        std::snprintf(buf, sizeof buf, "%.6g", at->second);
        out << '"' << b << "\",\"" << l.name << "\"," << buf << ",\"GB/s\"\n";
      }
    const auto f = c.fma.find(b);
    if (f != c.fma.end()) {
      std::snprintf(buf, sizeof buf, "%.6g", f->second);
      out << '"' << b << "\",\"FMA\"," << buf << ",\"GFLOP/s\"\n";
    }
  }
}

void apply_peaks(std::vector<Row>& rows, const MemoryLevels& levels) {
  const auto levels_of = [&](const std::string& b) -> const std::vector<Level>& {
    return suite::levels_of(levels, b);
  };
  Ceilings c = measured_ceilings(rows, levels);
  auto &stream = c.stream, &smallest = c.smallest;
  auto& fma = c.fma;
  const std::string copies = "/with_copies";  // bound by the host link, whose peak is not measured
  for (Row& r : rows) {
    r.peak_fraction = r.peak_rate = r.peak_ceiling = 0;
    r.peak.clear();
    if (r.name.size() > copies.size() &&
        r.name.compare(r.name.size() - copies.size(), copies.size(), copies) == 0)
      continue;
    // The row's rate on `level` against that level's peak, where it comes closer than so far.
    const auto s = stream.find(r.backend);
    const auto use = [&](const std::string& level, double gb_per_s) {
      if (s == stream.end() || level.empty() || !(gb_per_s > 0)) return;
      const auto peak = s->second.find(level);
      if (peak != s->second.end() && gb_per_s / peak->second > r.peak_fraction) {
        r.peak_fraction = gb_per_s / peak->second;
        r.peak = level;
        r.peak_rate = gb_per_s;
        r.peak_ceiling = peak->second;
      }
    };
    const double traffic = traffic_of(r), out = out_of(r);
    if (traffic > 0 && s != stream.end()) {
      // The level of the largest stream whose working set is at most the row's (the innermost
      // level measured where none is): a stream is sized just past the level inside its own, so
      // a row that outgrows a cache by less is set against that cache.
      std::string level;
      for (const Level& l : levels_of(r.backend)) {
        const auto at = smallest[r.backend].find(l.name);
        if (at == smallest[r.backend].end()) continue;
        if (level.empty() || at->second <= set_of(r)) level = l.name;
        if (at->second > set_of(r)) break;
      }
      if (level == "DRAM") {
        use(level, r.gb_per_s);  // (its results go to the same memory: all its bytes)
      } else {
        use(level, r.gb_per_s * (traffic - out) / traffic);
        use("DRAM", r.gb_per_s * out / traffic);
      }
    }
    const auto f = fma.find(r.backend);
    if (f != fma.end() && r.gflop_per_s > 0 && r.gflop_per_s / f->second > r.peak_fraction) {
      r.peak_fraction = r.gflop_per_s / f->second;
      r.peak = "FMA";
      r.peak_rate = r.gflop_per_s;
      r.peak_ceiling = f->second;
    }
  }
}

std::string fraction_text(const Row& row) {
  if (row.peak.empty()) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f of %s", row.peak_fraction, row.peak.c_str());
  return buf;
}

}  // namespace unison::suite
