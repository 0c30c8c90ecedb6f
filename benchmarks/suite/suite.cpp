#include "suite.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <regex>
#include <sstream>

namespace unison::suite {

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& w : workloads()) n.push_back(w.name);
    return n;
  }();
  return names;
}

void describe(Row& row, const CaseKind& of) {
  row.workload = of.kind == "crossover" ? "crossover" : of.family;
  row.function = of.function;
  row.kind = of.kind;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

namespace {

// A speedup: three significant digits ("16.7x", "267x"), whole above 1000 ("4724x").
std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, r < 1000 ? "%.3gx" : "%.0fx", r);
  return buf;
}

// Whether text is a whole number from lo to hi (decimal digits, nothing after), put in `out`.
bool whole_number(const std::string& text, long lo, long hi, long& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtol(text.c_str(), &end, 10);
  return *end == '\0' && errno == 0 && out >= lo && out <= hi;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// --workloads' group: "counting", the random-number, histogram and small-example families.
// Every other item, empty ones among them, is kept as it is, for pick() to judge.
std::string expand_groups(const std::string& value) {
  std::stringstream items(value);
  std::string item, out;
  for (bool first = true; std::getline(items, item, ','); first = false)
    out += (first ? "" : ",") + (lower(item) == "counting" ? "random,histogram,examples" : item);
  return value.empty() || value.back() != ',' ? out : out + ",";
}

// A comma-separated list of names from `allowed` (case-insensitive), returned in allowed's
// order, without repeats; an empty item or an unknown name is an error.
bool pick(const std::string& option, const std::string& value,
          const std::vector<std::string>& allowed, std::vector<std::string>& picked,
          std::string& error) {
  std::vector<bool> want(allowed.size(), false);
  std::stringstream items(value);
  std::string item;
  bool any = false;
  while (std::getline(items, item, ',')) {
    const auto it = std::find_if(allowed.begin(), allowed.end(),
                                 [&](const std::string& a) { return lower(a) == lower(item); });
    if (it == allowed.end()) {
      error = option + ": '" + item + "' is not one of " + join(allowed, ", ");
      return false;
    }
    want[std::size_t(it - allowed.begin())] = any = true;
  }
  if (!any || value.back() == ',') {
    error = option + ": expected a comma-separated list of " + join(allowed, ", ");
    return false;
  }
  picked.clear();
  for (std::size_t i = 0; i < allowed.size(); ++i)
    if (want[i]) picked.push_back(allowed[i]);
  return true;
}

}  // namespace

Parsed parse_options(const std::vector<std::string>& args,
                     const std::vector<std::string>& enabled) {
  Parsed p;
  p.options.workloads = workload_names();
  p.options.backends = enabled;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      p.options.help = true;
      continue;
    }
    if (a == "--list") {
      p.options.list = true;
      continue;
    }
    if (a == "--json") {
      p.options.json = true;
      continue;
    }
    if (a == "--crossover") {
      p.options.crossover = true;
      continue;
    }
    if (a == "--sizes") {
      p.options.sizes = true;
      continue;
    }
    if (a == "--no-plots") {
      p.options.plots = false;
      continue;
    }
    if (a == "--no-checks") {
      p.options.checks = false;
      continue;
    }
    if (a == "--no-peers") {
      p.options.peers = false;
      continue;
    }
    if (a == "--full") {
      p.options.full = true;
      continue;
    }
    // --name=value or --name value
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    const bool takes_value = name == "--workloads" || name == "--backends" ||
                             name == "--repetitions" || name == "--out" || name == "--scale" ||
                             name == "--results-limit" || name == "--filter";
    if (!takes_value) {
      p.error = "unknown option '" + a + "'";
      return p;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      value = args[++i];
    } else {
      p.error = name + " needs a value";
      return p;
    }
    if (value.empty()) {
      p.error = name + " needs a value";
      return p;
    }
    if (name == "--workloads") {
      if (!pick(name, expand_groups(value), workload_names(), p.options.workloads, p.error))
        return p;
    } else if (name == "--backends") {
      if (!pick(name, value, enabled, p.options.backends, p.error)) return p;
    } else if (name == "--repetitions") {
      long r = 0;
      if (!whole_number(value, 1, 1000, r)) {
        p.error = "--repetitions: '" + value + "' is not a whole number from 1 to 1000";
        return p;
      }
      p.options.repetitions = int(r);
    } else if (name == "--scale") {
      char* end = nullptr;
      errno = 0;
      const double f = std::strtod(value.c_str(), &end);
      if (*end != '\0' || errno != 0 || !(f > 0 && f <= 1)) {
        p.error = "--scale: '" + value + "' is not a number above 0 and at most 1";
        return p;
      }
      p.options.scale = f;
    } else if (name == "--results-limit") {
      long mb = 0;
      if (!whole_number(value, 0, 1000000, mb)) {
        p.error = "--results-limit: '" + value + "' is not a whole number of MiB from 0 to 1000000";
        return p;
      }
      p.options.results_limit_mib = mb;
    } else if (name == "--filter") {
      try {
        std::regex check(value, std::regex::ECMAScript);
      } catch (const std::regex_error&) {
        p.error = "--filter: '" + value + "' is not a regular expression";
        return p;
      }
      p.options.filter = value;
    } else {
      p.options.out = value;
    }
  }
  if (p.options.json && !p.options.list) p.error = "--json: only with --list";
  return p;
}

std::string help_text(const std::vector<std::string>& enabled) {
  std::ostringstream h;
  h << "unison-bench: every workload of docs/workloads.md on every enabled backend, side by\n"
       "side.\n"
       "\n"
       "Usage: unison-bench [options] [--kokkos-... Kokkos options]\n"
       "\n"
       "  --workloads=LIST   which workload families, comma-separated, from: "
    << join(workload_names(), ", ")
    << "\n"
       "                     (default: all; counting: random, histogram and examples)\n"
       "  --backends=LIST    which backends, comma-separated, from those this build enabled: "
    << join(enabled, ", ")
    << "\n"
       "                     (default: all of them)\n"
       "  --filter=REGEX     only the cases whose full name, \"<case>/<backend>\" (such as\n"
       "                     \"copy/1e8/device/OpenMP\"), the ECMAScript regular expression\n"
       "                     matches anywhere, and the\n"
       "                     peers' results whose \"<case>/<peer>\" it matches; the copy, read\n"
       "                     and fma cases (the peaks) always run (default: every case)\n"
       "  --full             every seed size, each case timed in 5 repetitions of 3 batches;\n"
       "                     without it (as in the reference runs) each case takes 3\n"
       "                     repetitions of one batch (a batch: calls that last at least 10 ms),\n"
       "                     and a case whose seed size would take more than 5 s a call runs\n"
       "                     a smaller size that its name gives (the diffusion's seed run:\n"
       "                     \"/steps<N>\" of its 10,000 steps): minutes on a laptop\n"
       "  --repetitions=N    timed repetitions of each case, 1 to 1000; the table shows their\n"
       "                     median and spread (default: 3, with --full 5; the peaks'\n"
       "                     streams and fma case at least 10)\n"
       "  --scale=F          sizes: the seed sizes of docs/workloads.md times F, above 0 and at\n"
       "                     most 1 (areas and volumes scale as a whole; default: 1)\n"
       "  --out=DIR          folder for the results: unison_bench.json (Google Benchmark's\n"
       "                     format, for its compare.py) and unison_bench.csv (default:\n"
       "                     unison-bench-out)\n"
       "  --crossover        also sweep sizes (element-wise: gaussian_pdf 1e3 to 1e8; convolve:\n"
       "                     1e3 to 1e8 values; diffusion: 32^2 to 2000^2 cells), with the data "
       "on\n"
       "                     the device and with the host copies, for the chosen workloads among\n"
       "                     those three: where the GPU overtakes the CPU (crossover.png)\n"
       "  --sizes            also the chosen among diffusion, convolve and histogram at sizes\n"
       "                     that leave the caches (diffusion, every step and final only, from a\n"
       "                     uniform field: 2000^2 to 16384^2 cells on a GPU, 1024^2 to 8192^2 on\n"
       "                     OpenMP, not on Serial; convolve, float32, 5 taps, and histogram:\n"
       "                     1e5 to 1e8 values), their names \"<family>/sizes/...\", with the\n"
       "                     plain C loops, a naive CUDA C diffusion (cuda_c_naive) and CUB's\n"
       "                     histogram at each size\n"
       "  --no-plots         no times.png and peak.png (drawn by plot.py with Python's\n"
       "                     matplotlib, when python3 has it)\n"
       "  --no-checks        time only: no check of the results against the float64 reference\n"
       "                     and no results/ folder\n"
       "  --results-limit=MB save the inputs and result of cases of up to MB MiB as .npy in\n"
       "                     DIR/results/ (default: 64; 0: none; 2048 saves every seed size)\n"
       "  --no-peers         do not run the peers, at the same sizes: plain_c (plain C loops with\n"
       "                     OpenMP, the program unison-plain-c beside unison-bench), cuda_c\n"
       "                     (with the Cuda backend, the program unison-cuda-c: CUB, cuBLAS and\n"
       "                     cuRAND called directly), and the\n"
       "                     tutorials' Numba, NumPy and CuPy codes of benchmarks/peers/, by\n"
       "                     $UNISON_BENCH_PYTHON, else the first of python3 and /usr/bin/python3\n"
       "                     that has NumPy: the CPU peers, numba_cpu and numpy, run anywhere, "
       "the\n"
       "                     GPU ones where CuPy and a CUDA device are found; each says when a\n"
       "                     package is missing)\n"
       "  --list             list the cases the other options select, and run nothing\n"
       "  --json             with --list: the manifest of those cases as JSON (each case's\n"
       "                     name, family, function, kind, backends, sizes, bytes and flops;\n"
       "                     what the peers read their cases from)\n"
       "  --help, -h         this text\n"
       "\n"
       "Each case's data is made on the backend before timing; times are per call with the data\n"
       "already in the backend's memory (a diffusion case: per step), and with the host copies\n"
       "where a case says \"with_copies\". The exploration probes of unison_bench are not run.\n"
       "After its timing each case's result is checked against a float64 reference computed on\n"
       "the host (the table shows \"ok\" or \"FAIL\" with the error), and on the last backend "
       "chosen\n"
       "its inputs and result are written as .npy files to DIR/results/<case>/ (cases of up to\n"
       "--results-limit MiB).\n"
       "A bad option or value is a one-line error and exit code 2; a failed check or a file that\n"
       "could not be written gives exit code 1.\n";
  return h.str();
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
  return r.kind == "peak" && (r.function == "copy" || r.function == "read") && r.gb_per_s > 0;
}
}  // namespace

std::string level_of(const Row& row, const std::vector<Level>& levels) {
  if (!(traffic_of(row) > 0)) return "";
  return level_of(set_of(row), levels);
}

void apply_peaks(std::vector<Row>& rows, const MemoryLevels& levels) {
  static const std::vector<Level> dram_only{{"DRAM", INFINITY}};
  const auto levels_of = [&](const std::string& backend) -> const std::vector<Level>& {
    const auto it = levels.find(backend);
    return it == levels.end() ? dram_only : it->second;
  };
  // The streams' GB/s by backend and level, then every level at least as fast as the next one;
  // and the working set of each level's smallest stream.
  std::map<std::string, std::map<std::string, double>> stream, smallest;
  std::map<std::string, double> fma;  // by backend
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
    if (r.kind == "peak" && r.function == "fma" && r.gflop_per_s > 0)
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
  const std::string copies = "/with_copies";  // bound by the host link, whose peak is not measured
  for (Row& r : rows) {
    r.peak_fraction = 0;
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
    }
  }
}

std::string fraction_text(const Row& row) {
  if (row.peak.empty()) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f of %s", row.peak_fraction, row.peak.c_str());
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
    if (r.kind != "crossover") continue;
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

namespace {

// One line of a family's table, as text: the times, speedups, the fastest peer over Unison,
// the rates (with their fraction of the peak) and the checks.
struct CaseLine {
  std::string name;
  std::vector<std::string> times, ratios, rates, checks;
  std::string peer_best;
  bool any_rate = false, any_check = false;
};
// A family's table: its columns (Unison's backends asked for, then the peers with a result in
// it), the speedup titles, its lines, its notes and (crossover) the lines that say where the GPU
// overtakes the CPU.
struct Section {
  std::string workload;
  std::vector<std::string> columns, ratio_titles, notes, extra;
  bool peers = false;
  std::vector<CaseLine> lines;
};

std::vector<Section> sections(const std::vector<Row>& rows,
                              const std::vector<std::string>& backends) {
  // Cases in the order they first appear, grouped by workload in the order workloads appear.
  std::vector<std::string> workloads;
  std::map<std::string, std::vector<std::string>> cases;
  std::map<std::pair<std::string, std::string>, const Row*> at;
  for (const Row& r : rows) {
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end())
      workloads.push_back(r.workload);
    auto& c = cases[r.workload];
    if (std::find(c.begin(), c.end(), r.name) == c.end()) c.push_back(r.name);
    at[{r.name, r.backend}] = &r;
  }
  const auto has = [&](const char* b) {
    return std::find(backends.begin(), backends.end(), b) != backends.end();
  };
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>>
      ratios;  // title, (slow, fast)
  if (has("Serial") && has("OpenMP")) ratios.push_back({"OpenMP/Serial", {"Serial", "OpenMP"}});
  if (has("Serial") && has("Cuda")) ratios.push_back({"Cuda/Serial", {"Serial", "Cuda"}});
  if (has("OpenMP") && has("Cuda")) ratios.push_back({"Cuda/OpenMP", {"OpenMP", "Cuda"}});
  if (has("OpenMP") && has("plain_c")) ratios.push_back({"OpenMP/plain_c", {"plain_c", "OpenMP"}});
  char buf[64];
  const auto unison_backend = [](const std::string& b) {
    return b == "Serial" || b == "OpenMP" || b == "Cuda";
  };
  // Unison's kernels called from Python (python_peers.py): beside their backend's column, and
  // not a peer of Unison's for peer/best.
  const auto from_python = [](const std::string& b) { return b.rfind("python_", 0) == 0; };
  if (has("OpenMP") && has("python_openmp"))
    ratios.push_back({"OpenMP/python_openmp", {"python_openmp", "OpenMP"}});
  if (has("Cuda") && has("python_cuda"))
    ratios.push_back({"Cuda/python_cuda", {"python_cuda", "Cuda"}});
  std::vector<Section> out;
  for (const auto& w : workloads) {
    Section sec;
    sec.workload = w;
    for (const auto& b : backends) {
      const bool here = std::any_of(rows.begin(), rows.end(), [&](const Row& r) {
        return r.workload == w && r.backend == b;
      });
      if (unison_backend(b) || here) sec.columns.push_back(b);
      sec.peers = sec.peers || (here && !unison_backend(b) && !from_python(b));
    }
    for (const auto& r : ratios) sec.ratio_titles.push_back(r.first);
    for (const auto& name : cases[w]) {
      CaseLine line;
      line.name = name;
      for (const auto& b : sec.columns) {
        const auto it = at.find({name, b});
        std::string time = "-", rate, check;
        if (it != at.end()) {
          const Row& r = *it->second;
          std::snprintf(buf, sizeof buf, "%s ±%.0f%%", format_time(r.median_s).c_str(),
                        100 * r.spread);
          time = buf;
          // The achieved rate, with its fraction of the backend's measured peak.
          const bool flops =
              r.peak == "FMA" || (r.peak.empty() && r.gb_per_s <= 0 && r.gflop_per_s > 0);
          const double value = flops ? r.gflop_per_s : r.gb_per_s;
          if (value > 0) {
            std::snprintf(buf, sizeof buf, "%.3g %s", value >= 1000 ? value / 1000 : value,
                          flops ? (value >= 1000 ? "TFLOP/s" : "GFLOP/s")
                                : (value >= 1000 ? "TB/s" : "GB/s"));
            rate = buf;
            if (!r.peak.empty()) rate += " " + fraction_text(r);
          }
          check = check_text(r);  // against the float64 reference
        }
        line.any_rate = line.any_rate || !rate.empty();
        line.any_check = line.any_check || !check.empty();
        line.times.push_back(time);
        line.rates.push_back(rate);
        line.checks.push_back(check);
      }
      for (const auto& r : ratios) {
        const auto slow = at.find({name, r.second.first}), fast = at.find({name, r.second.second});
        line.ratios.push_back(slow != at.end() && fast != at.end() && fast->second->median_s > 0
                                  ? ratio_text(slow->second->median_s / fast->second->median_s)
                                  : "-");
      }
      if (sec.peers) {  // the fastest peer's time over Unison's fastest
        double best = 0, best_peer = 0;
        for (const Row& r : rows) {
          if (r.name != name || r.median_s <= 0 || from_python(r.backend)) continue;
          double& t = r.peer ? best_peer : best;
          if (r.peer ||
              std::find(sec.columns.begin(), sec.columns.end(), r.backend) != sec.columns.end())
            t = t > 0 ? std::min(t, r.median_s) : r.median_s;
        }
        line.peer_best = best > 0 && best_peer > 0 ? ratio_text(best_peer / best) : "-";
      }
      sec.lines.push_back(line);
    }
    for (const Row& r : rows)
      if (r.workload == w && !r.note.empty())
        sec.notes.push_back(r.name + " on " + r.backend + ": " + r.note);
    if (w == "crossover") {
      sec.extra = crossover_lines(rows);
      if (sec.extra.empty())
        sec.extra.push_back("(no Cuda and CPU times at the same sizes: no crossover to show)");
    }
    out.push_back(sec);
  }
  return out;
}

std::string html_escaped(const std::string& s) {
  std::string e;
  for (char c : s) {
    if (c == '&') e += "&amp;";
    else if (c == '<') e += "&lt;";
    else if (c == '>') e += "&gt;";
    else if (c == '"') e += "&quot;";
    else e += c;
  }
  return e;
}

}  // namespace

void write_table(std::ostream& out, const std::vector<Row>& rows,
                 const std::vector<std::string>& backends) {
  std::size_t width = 4;
  for (const Row& r : rows) width = std::max(width, r.name.size());
  char buf[64];
  const auto cells = [&](const std::vector<std::string>& v, int w) {
    std::string t;
    for (const auto& c : v) {
      std::snprintf(buf, sizeof buf, " %*s", w, c.c_str());
      t += buf;
    }
    return t;
  };
  for (const auto& sec : sections(rows, backends)) {
    out << "\n" << sec.workload << "\n";
    out << "  case" << std::string(width - 4, ' ') << cells(sec.columns, 16)
        << cells(sec.ratio_titles, 14);
    if (sec.peers) out << cells({"peer/best"}, 14);
    out << "\n";
    const std::string indent = "  " + std::string(width, ' ');
    for (const auto& line : sec.lines) {
      out << "  " << line.name << std::string(width - line.name.size(), ' ')
          << cells(line.times, 16) << cells(line.ratios, 14);
      if (sec.peers) out << cells({line.peer_best}, 14);
      out << "\n";
      if (line.any_rate) out << indent << cells(line.rates, 16) << "\n";
      if (line.any_check) out << indent << cells(line.checks, 16) << "\n";
    }
    for (const auto& note : sec.notes) out << "  note: " << note << "\n";
    for (const auto& extra : sec.extra) out << "  " << extra << "\n";
  }
  out << "\n";
  for (const auto& line : check_summary(rows)) out << line << "\n";
}

void write_report(std::ostream& out, const std::vector<Row>& rows,
                  const std::vector<std::string>& backends,
                  const std::vector<std::pair<std::string, std::string>>& about,
                  const std::vector<std::pair<std::string, std::string>>& images) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<title>unison-bench report</title>\n<style>\n"
         "body{font-family:sans-serif;margin:2em;color:#222}\n"
         "table{border-collapse:collapse;margin:0.5em 0 1em}\n"
         "th,td{border:1px solid #bbb;padding:0.25em "
         "0.6em;text-align:right;vertical-align:top;white-space:nowrap}\n"
         "th:first-child,td:first-child{text-align:left;font-family:monospace}\n"
         "th{background:#e8eef6}\n"
         "td small{color:#555;display:block}\n"
         ".fail{color:#b00;font-weight:bold}\n"
         ".ok{color:#070}\n"
         "img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}\n"
         "</style>\n</head>\n<body>\n<h1>unison-bench</h1>\n";
  out << "<h2 id=\"machine\">Machine and versions</h2>\n<table class=\"about\">\n";
  for (const auto& [key, value] : about)
    out << "<tr><td>" << html_escaped(key) << "</td><td style=\"text-align:left\">"
        << html_escaped(value) << "</td></tr>\n";
  out << "</table>\n<p>Times per call (a diffusion case: per step), median of the repetitions ± "
         "their "
         "spread; under each, the rate and its fraction of the same run's peak (for memory, the "
         "copy at the level the case's working set fits in: L2, L3 or DRAM; FMA for arithmetic) "
         "and the check against the float64 reference. Speedup columns: X/Y is Y's time over "
         "X's (above 1, X is faster; Cuda/python_cuda: what the Python call costs beyond the C++ "
         "call); peer/best: the fastest peer's time over Unison's "
         "fastest (above 1, Unison is faster).</p>\n";
  out << "<h2>Checks</h2>\n<ul>\n";
  for (const auto& line : check_summary(rows)) out << "<li>" << html_escaped(line) << "</li>\n";
  out << "</ul>\n";
  for (const auto& sec : sections(rows, backends)) {
    out << "<h2 id=\"" << html_escaped(sec.workload) << "\">" << html_escaped(sec.workload)
        << "</h2>\n"
        << "<table class=\"family\" data-family=\"" << html_escaped(sec.workload)
        << "\">\n<tr><th>case</th>";
    for (const auto& c : sec.columns) out << "<th>" << html_escaped(c) << "</th>";
    for (const auto& t : sec.ratio_titles) out << "<th>" << html_escaped(t) << "</th>";
    if (sec.peers) out << "<th>peer/best</th>";
    out << "</tr>\n";
    for (const auto& line : sec.lines) {
      out << "<tr><td>" << html_escaped(line.name) << "</td>";
      for (std::size_t i = 0; i < line.times.size(); ++i) {
        const std::string& check = line.checks[i];
        out << "<td>" << html_escaped(line.times[i]);
        if (!line.rates[i].empty()) out << "<small>" << html_escaped(line.rates[i]) << "</small>";
        if (!check.empty())
          out << "<small class=\"" << (check.rfind("FAIL", 0) == 0 ? "fail" : "ok") << "\">"
              << html_escaped(check) << "</small>";
        out << "</td>";
      }
      for (const auto& r : line.ratios) out << "<td>" << html_escaped(r) << "</td>";
      if (sec.peers) out << "<td>" << html_escaped(line.peer_best) << "</td>";
      out << "</tr>\n";
    }
    out << "</table>\n";
    if (!sec.notes.empty() || !sec.extra.empty()) {
      out << "<ul class=\"notes\">\n";
      for (const auto& note : sec.notes) out << "<li>" << html_escaped(note) << "</li>\n";
      for (const auto& extra : sec.extra) out << "<li>" << html_escaped(extra) << "</li>\n";
      out << "</ul>\n";
    }
  }
  if (!images.empty()) out << "<h2 id=\"plots\">Plots</h2>\n";
  for (const auto& [name, png_base64] : images)
    out << "<figure><img alt=\"" << html_escaped(name) << "\" src=\"data:image/png;base64,"
        << png_base64 << "\"><figcaption>" << html_escaped(name) << "</figcaption></figure>\n";
  out << "</body>\n</html>\n";
}

std::string base64(const std::string& bytes) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = unsigned(std::uint8_t(bytes[i])) << 16 |
                       unsigned(std::uint8_t(bytes[i + 1])) << 8 |
                       unsigned(std::uint8_t(bytes[i + 2]));
    for (int k = 3; k >= 0; --k) out += digits[(v >> (6 * k)) & 63];
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const unsigned v = unsigned(std::uint8_t(bytes[i])) << 16 |
                       (two ? unsigned(std::uint8_t(bytes[i + 1])) << 8 : 0u);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += two ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string check_text(const Row& r) {
  if (!r.checked) return "";
  char buf[64];
  if (r.passed()) std::snprintf(buf, sizeof buf, "ok %.2g", r.error);
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

std::string exact_text(double x) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::vector<PeerScript> peer_scripts(const std::vector<std::string>& chosen, double scale,
                                     bool crossover, bool sizes) {
  const auto wanted = [&](const std::string& w) {
    return std::find(chosen.begin(), chosen.end(), w) != chosen.end();
  };
  std::vector<PeerScript> scripts;
  PeerScript plain{"unison-plain-c", {}};
  for (const auto& w : workloads())
    if (w.plain_c && wanted(w.name)) plain.args.push_back(w.name);
  if (!plain.args.empty()) scripts.push_back(plain);
  for (const auto& w : workloads()) {
    if (!wanted(w.name)) continue;
    for (const auto& peer : w.peers) {
      auto same = std::find_if(scripts.begin(), scripts.end(),
                               [&](const PeerScript& s) { return s.script == peer.script; });
      if (same == scripts.end()) same = scripts.insert(scripts.end(), {peer.script, {}});
      same->args.insert(same->args.end(), peer.args.begin(), peer.args.end());
    }
  }
  for (auto& s : scripts) {
    if (crossover && s.script == "python_peers.py" && wanted("elementwise"))
      s.args.push_back("crossover");
    if (sizes &&
        (s.script == "unison-plain-c" || (s.script == "stencil_peers.py" && wanted("diffusion")) ||
         (s.script == "unison-cuda-c" && wanted("histogram"))))
      s.args.push_back("sizes");
    s.args.push_back("--scale=" + exact_text(scale));
  }
  return scripts;
}

std::vector<Row> read_peer_rows(std::istream& in, const std::map<std::string, CaseKind>& manifest,
                                std::string& error, int& not_in_run) {
  not_in_run = 0;
  std::vector<Row> rows;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string field; std::getline(ss, field, ',');) f.push_back(field);
    if (!line.empty() && line.back() == ',') f.push_back("");
    Row r;
    char* end = nullptr;
    const bool fields = f.size() == 5 && !f[0].empty() && !f[1].empty();
    if (fields) r.median_s = std::strtod(f[2].c_str(), &end);
    const bool time = fields && end && *end == '\0' && r.median_s > 0;
    const bool checked = fields && !f[3].empty() && !f[4].empty();
    bool check_ok = fields && f[3].empty() == f[4].empty();
    if (checked) {
      r.error = std::strtod(f[3].c_str(), &end);
      check_ok = *end == '\0';
      r.tolerance = std::strtod(f[4].c_str(), &end);
      check_ok = check_ok && *end == '\0';
    }
    if (!time || !check_ok) {
      error = "line " + std::to_string(number) + " is not case,peer,seconds,error,tolerance: '" +
              line + "'";
      continue;
    }
    const auto of = manifest.find(f[0]);
    if (of == manifest.end()) {
      ++not_in_run;
      continue;
    }
    r.name = f[0];
    r.backend = f[1];
    describe(r, of->second);
    r.peer = true;
    r.checked = checked;
    rows.push_back(r);
  }
  return rows;
}

void write_csv(std::ostream& out, const std::vector<Row>& rows,
               const std::vector<std::pair<std::string, std::string>>& context) {
  for (const auto& [key, value] : context) {
    std::string v = value;
    std::replace(v.begin(), v.end(), '\n', ' ');
    out << "# " << key << ": " << v << "\n";
  }
  out << "workload,case,backend,median_s,spread,gb_per_s,gflop_per_s,peak,peak_fraction,check,"
         "error,tolerance,note\n";
  char buf[240];
  for (const Row& r : rows) {
    std::snprintf(buf, sizeof buf, "%.6g,%.4f,%.6g,%.6g,\"%s\",%.4f,\"%s\",%.4g,%.4g", r.median_s,
                  r.spread, r.gb_per_s, r.gflop_per_s, r.peak.c_str(), r.peak_fraction,
                  !r.checked   ? ""
                  : r.passed() ? "pass"
                               : "fail",
                  r.error, r.tolerance);
    std::string note = r.note;
    std::replace(note.begin(), note.end(), '"', '\'');
    out << '"' << r.workload << "\",\"" << r.name << "\",\"" << r.backend << "\"," << buf << ",\""
        << note << "\"\n";
  }
}

namespace {

// The first number of the file `path` over the second (v2's "<quota> <period>"), or of `path`
// over `period_path` (v1's two files); 0 for "max", a negative quota or no file.
double cpu_quota(const std::string& path, const std::string& period_path) {
  std::ifstream in(path);
  std::string quota_text;
  double period = 0;
  if (!(in >> quota_text)) return 0;
  if (period_path.empty()) {
    if (!(in >> period)) return 0;
  } else {
    std::ifstream p(period_path);
    if (!(p >> period)) return 0;
  }
  char* end = nullptr;
  const double quota = std::strtod(quota_text.c_str(), &end);
  if (*end != '\0' || !(quota > 0) || !(period > 0)) return 0;
  return quota / period;
}

}  // namespace

double cgroup_cpu_limit(const std::string& root, const std::string& self) {
  double limit = 0;
  std::istringstream lines(self);
  for (std::string line; std::getline(lines, line);) {
    // "<id>:<controllers>:<path>"
    const auto a = line.find(':'), b = line.find(':', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    bool v1 = false;
    if (controllers.empty() && line.substr(0, a) == "0") {
      v1 = false;
    } else {
      std::istringstream names(controllers);
      bool cpu = false;
      for (std::string n; std::getline(names, n, ',');) cpu = cpu || n == "cpu";
      if (!cpu) continue;
      v1 = true;
    }
    // The cgroup and every one above it, up to the root.
    for (;;) {
      double q = 0;
      if (v1) {
        for (const char* mount : {"/cpu", "/cpu,cpuacct", "/cpuacct,cpu"}) {
          const std::string dir = root + mount + (path == "/" ? "" : path);
          q = cpu_quota(dir + "/cpu.cfs_quota_us", dir + "/cpu.cfs_period_us");
          if (q > 0) break;
        }
      } else {
        q = cpu_quota(root + (path == "/" ? "" : path) + "/cpu.max", "");
      }
      if (q > 0 && (limit == 0 || q < limit)) limit = q;
      if (path.empty() || path == "/") break;
      const auto slash = path.find_last_of('/');
      path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
  }
  return limit;
}

namespace {
// s as a JSON string literal.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  char buf[8];
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}
}  // namespace

std::string add_rows_to_json(const std::string& json, const std::vector<Row>& rows) {
  // Google Benchmark ends its file with the list's closing bracket and the object's brace.
  const auto close = json.find_last_of(']');
  if (close == std::string::npos || json.find_first_not_of(" \n", close + 1) == std::string::npos ||
      json.substr(json.find_first_not_of(" \n", close + 1), 1) != "}")
    return "";
  const auto last = json.find_last_not_of(" \n", close - 1);
  bool empty = last != std::string::npos && json[last] == '[';
  std::ostringstream add;
  char buf[64];
  const auto number = [&](double x) {
    std::snprintf(buf, sizeof buf, "%.17g", std::isfinite(x) ? x : 1.7976931348623157e308);
    return std::string(buf);
  };
  for (const Row& r : rows) {
    const std::string name = r.name + "/" + r.backend;
    add << (empty ? "\n" : ",\n") << "    {\n"
        << "      \"name\": " << json_string(name + "_median") << ",\n"
        << "      \"run_name\": " << json_string(name) << ",\n"
        << "      \"run_type\": \"aggregate\",\n"
        << "      \"aggregate_name\": \"median\",\n"
        << "      \"aggregate_unit\": \"time\",\n"
        << "      \"peer\": " << json_string(r.backend) << ",\n"
        << "      \"family\": " << json_string(r.workload) << ",\n"
        << "      \"real_time\": " << number(r.median_s * 1e9) << ",\n"
        << "      \"cpu_time\": " << number(r.median_s * 1e9) << ",\n"
        << "      \"time_unit\": \"ns\"";
    if (r.gb_per_s > 0) add << ",\n      \"GB/s\": " << number(r.gb_per_s);
    if (r.gflop_per_s > 0) add << ",\n      \"GFLOP/s\": " << number(r.gflop_per_s);
    if (!r.peak.empty())
      add << ",\n      \"peak\": " << json_string(r.peak)
          << ",\n      \"peak_fraction\": " << number(r.peak_fraction);
    if (r.checked)
      add << ",\n      \"check_error\": " << number(r.error)
          << ",\n      \"check_tolerance\": " << number(r.tolerance);
    add << "\n    }";
    empty = false;
  }
  return json.substr(0, last + 1) + add.str() + "\n  " + json.substr(close);
}

}  // namespace unison::suite
