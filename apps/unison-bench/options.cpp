
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "harness/workloads.hpp"

namespace unison::suite {

using unison::bench::workload_names;

namespace {

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
       "  --out=DIR          folder for the results: report.html, unison_bench.json (Google\n"
       "                     Benchmark's format, for its compare.py), unison_bench.csv,\n"
       "                     ceilings.csv and the figures (default: unison-bench-out)\n"
       "  --crossover        also sweep sizes (element-wise: gaussian_pdf 1e3 to 1e8; convolve:\n"
       "                     1e3 to 1e8 values; diffusion: 32^2 to 2000^2 cells), with the data "
       "on\n"
       "                     the device and with the host copies, for the chosen workloads among\n"
       "                     those three: where the GPU overtakes the CPU (crossover.svg)\n"
       "  --sizes            also the chosen among diffusion, convolve and histogram at sizes\n"
       "                     that leave the caches (diffusion, every step and final only, from a\n"
       "                     uniform field: 2000^2 to 16384^2 cells on a GPU, 1024^2 to 8192^2 on\n"
       "                     OpenMP, not on Serial; convolve, float32, 5 taps, and histogram:\n"
       "                     1e5 to 1e8 values), their names \"<family>/sizes/...\", with the\n"
       "                     plain C loops, a naive CUDA C diffusion (cuda_c_naive) and CUB's\n"
       "                     histogram at each size\n"
       "  --no-plots         no figures (the headline, rooflines and times, drawn by plot.py\n"
       "                     with Python's matplotlib, when python3 has it)\n"
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
       "where a case says \"with_copies\". The exploration probes are not run.\n"
       "After its timing each case's result is checked against a float64 reference computed on\n"
       "the host (the table shows \"ok\" or \"FAIL\" with the error), and on the last backend "
       "chosen\n"
       "its inputs and result are written as .npy files to DIR/results/<case>/ (cases of up to\n"
       "--results-limit MiB).\n"
       "A bad option or value is a one-line error and exit code 2; a failed check or a file that\n"
       "could not be written gives exit code 1.\n";
  return h.str();
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace unison::suite
