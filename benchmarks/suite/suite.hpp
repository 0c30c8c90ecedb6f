#pragma once
// unison-bench's options and report, apart from running anything (no Kokkos, no Google
// Benchmark here), so that the tests can check them.

#include <iosfwd>
#include <map>
#include <string>
#include <utility>
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

struct Options {
  std::vector<std::string> workloads;  // a subset of workload_names(), in report order
  std::vector<std::string> backends;   // a subset of the enabled backends, in their order
  bool full = false;                   // every seed size, fixed batches and repetitions
  int repetitions = 0;                 // timed repetitions of each case (the median is shown);
                                       // 0: 3, with full 5
  double scale = 1;                    // sizes: the seed sizes times this, 0 < scale <= 1
  std::string out = "unison-bench-out";
  bool list = false;   // list the cases instead of running them
  bool json = false;   // with list: the manifest, as JSON
  bool plots = true;   // draw times.png and peak.png (plot.py, when Python has matplotlib)
  bool checks = true;  // check each result against its float64 reference; save results/*.npy
  bool peers = true;   // run the peers' scripts (benchmarks/peers/) at the suite's sizes
  long results_limit_mib = 64;  // save the inputs and results of cases up to this size
  bool crossover = false;  // also the size sweeps of the chosen element-wise, convolve, diffusion
  bool sizes = false;      // also the diffusion, convolve and histogram at sizes past the caches
  std::string filter;      // an ECMAScript regular expression: only the cases whose full name
                           // ("<case>/<backend>") it matches anywhere (the copy, read and fma
                           // cases, the peaks, always run); empty: every case
  bool help = false;
};

struct Parsed {
  Options options;
  std::string error;  // not empty: a one-line reason; the command exits with code 2
};

// Parses unison-bench's arguments (without the program name). `enabled`: the backends this
// build has (Serial, OpenMP, Cuda), the default. Kokkos' own --kokkos-* arguments are not
// options of unison-bench: the caller removes them first.
Parsed parse_options(const std::vector<std::string>& args, const std::vector<std::string>& enabled);

// What --help prints.
std::string help_text(const std::vector<std::string>& enabled);

// What the manifest says of a case (unison::bench::Case): its family, the function it times and
// its kind ("workload", "peak", "crossover", "sizes").
struct CaseKind {
  std::string family, function, kind;
};

// One timed case on one backend, as the report shows it.
struct Row {
  std::string workload;  // the table's section: the case's family, "crossover" for a sweep's size
  std::string function;  // the function it times; a peak's "copy", "read" or "fma"
  std::string kind;      // as CaseKind
  std::string name;      // the benchmark name without its backend ("diffusion/every_step/...")
  std::string backend;   // "Serial", "OpenMP", "Cuda", or a peer's name ("numba_cuda", "cupy")
  bool peer = false;     // a peer's result (benchmarks/peers/) beside the case, not Unison's
  double median_s = 0;   // median time of one call (or one unit: a diffusion step)
  double best_s = 0;     // the fastest repetition's time (0: not known; the median then)
  double spread = 0;     // standard deviation over the repetitions, relative to the mean
  double gb_per_s = 0;   // 0 where the case counts no bytes
  double gflop_per_s = 0;
  // Where the case's bytes live, as the case declares them (Google Benchmark counters of the
  // same names; 0: not declared): `working_set_bytes`, the arrays the case reads again call after
  // call (its level is the one they fit in; not declared: the bytes of one call, or unit, less
  // out_bytes); `out_bytes`, the bytes of a call (or unit) that its kernel writes past the caches
  // to memory (non-temporal stores of results that no later call reads).
  double working_set_bytes = 0;
  double out_bytes = 0;
  // Filled by apply_peaks: the fraction of this machine's measured peak, and which peak.
  double peak_fraction = 0;
  std::string
      peak;  // a memory level, "L2", "L3" or "DRAM" (GB/s against the backend's fastest
             // copy or read at the level the case's working set fits in), "FMA" (GFLOP/s against
             // its fma case: chains of fused multiply-adds) or "" (no peak measured)
  std::string note;  // filled by advise: what to do about a slow figure, or ""
  // The check of the case's result against its float64 reference (unison::bench::Check): the
  // error in the case's measure and the tolerance it must not exceed; none for a case without
  // a reference (the crossover sweeps, say).
  bool checked = false;
  double error = 0, tolerance = 0;
  bool passed() const { return !checked || error <= tolerance; }
};

// The peers that stand beside the chosen workloads (the registry's), each with its arguments, in
// report order: first unison-plain-c, the plain C loops (a program built beside unison-bench,
// from benchmarks/peers/plain_c.c), with the chosen workloads that have a part there (the caller
// adds --field=<the start field> for diffusion), then each Python script once, at its first
// workload, with the parts of every chosen workload it serves (stencil_peers.py: convolve's and
// diffusion's), and so each peer program (unison-cuda-c: random's, histogram's and matmul's);
// every one with "--scale=<scale>" last (the shortest text that reads back as the same double),
// so that its sizes, and so its results' case names, are the suite's at that scale. With
// `crossover` (the suite's size sweep) and the element-wise family chosen, python_peers.py
// (Unison's kernels called from Python) also takes the part "crossover". With `sizes` (the
// sweep past the caches), unison-plain-c, stencil_peers.py (with diffusion chosen) and
// unison-cuda-c (with histogram chosen) take the part "sizes": their peers at the sweep's sizes.
std::vector<PeerScript> peer_scripts(const std::vector<std::string>& workloads, double scale = 1,
                                     bool crossover = false, bool sizes = false);

// The shortest "%.<p>g" text of x that strtod reads back as x ("0.01", "0.33333333333333331").
std::string exact_text(double x);

// A row's workload, function and kind from the manifest's entry of its case.
void describe(Row& row, const CaseKind& of);

// The rows of the peers' CSV (peer_timing.record: case,peer,median_s,error,tolerance; error and
// tolerance empty where the peer's result was not checked), as peer rows, described by the
// manifest's entry of their case (`manifest`: by case name). A malformed line sets `error`
// (naming the line) and is skipped; a line of a case the manifest lacks (one the run left out)
// is skipped and counted in `not_in_run`.
std::vector<Row> read_peer_rows(std::istream& in, const std::map<std::string, CaseKind>& manifest,
                                std::string& error, int& not_in_run);

// "ok 3.1e-07", "FAIL 0.002 > 1e-05" (the error against the tolerance), or "" (not checked).
std::string check_text(const Row& row);

// Unison's rows whose check failed, one line each ("hypot/1e6/device on Cuda: error 0.002 >
// tolerance 1e-05"), and a last line counting the checks passed, failed and not run (and, where
// peers ran, how many of their results passed theirs: a peer's failure is shown, not counted).
std::vector<std::string> check_summary(const std::vector<Row>& rows);

// Where the GPU overtakes the CPU in each crossover sweep, with the data on the device and with
// the host copies: a line per sweep and mode, comparing Cuda with the fastest CPU backend run
// (OpenMP, else Serial) size by size, e.g. "gaussian_pdf, data on the device: the GPU is faster
// from 1e4 on (at 1e3: CPU 2.1 us, GPU 6.3 us)".
std::vector<std::string> crossover_lines(const std::vector<Row>& rows);

// A level of memory a backend's data can live in, innermost first, and its capacity: "L2" (the
// L2 caches of the cores a CPU backend's threads run on, or a GPU's L2), "L3" (the L2s and the
// last-level caches of those cores: a CPU's last-level cache does not keep copies of the L2s'
// lines), "DRAM" (infinite bytes). By backend or peer name; a backend without an entry has DRAM
// alone.
struct Level {
  std::string name;
  double bytes = 0;
};
using MemoryLevels = std::map<std::string, std::vector<Level>>;

// The level `bytes` of data live in: the first of `levels` that holds them; "DRAM" past them all,
// "" for no bytes.
std::string level_of(double bytes, const std::vector<Level>& levels);
// The level a row's working set lives in (Row::working_set_bytes; not declared, the bytes one
// call, or unit, moves less its out_bytes: gb_per_s * median_s - out_bytes); "" for a row that
// counts no bytes.
std::string level_of(const Row& row, const std::vector<Level>& levels);

// Each row's fraction of its backend's measured peak, from the rows themselves, as on a roofline
// with one ceiling per resource: the fraction is the largest of the row's rate on each resource
// it uses over that resource's peak, and Row::peak names that resource.
// - Memory: the GB/s of the backend's fastest stream at a level (the peak cases of the
//   functions "copy" and "read" whose own working set is at that level by level_of; a level is at
//   least as fast as those beyond it, so a level without a stream of its own takes the next
//   one's), taken at the stream's fastest repetition (best_s). A row's bytes (at its median) are
//   set against the level of the largest stream whose working set is at most the row's (the
//   innermost level measured where there is none), except its out_bytes, which are set against
//   DRAM: a row that declares out_bytes uses two resources at once (its inputs from a cache, its
//   results to memory); where its level is DRAM too, all its bytes are set against DRAM.
// - Arithmetic: the GFLOP/s of the backend's peak case of "fma" (chains of fused
//   multiply-adds).
// None for a case timed with host copies ("/with_copies": the host link's peak is not measured),
// or at a level no stream measured.
void apply_peaks(std::vector<Row>& rows, const MemoryLevels& levels = {});

// A fraction of a peak as the table shows it: "0.93 of L3", "1.0 of FMA".
std::string fraction_text(const Row& row);

// Notes where a figure says the call is badly placed: a GPU case over 1.2x slower than the same
// case on the CPU, or one too short to fill the GPU (under 20 us and under 10 % of its peak); a
// case whose time with host copies ("<case>/with_copies") is more than twice its time with data on
// the device ("<case>/device" or "<case>").
void advise(std::vector<Row>& rows);

// A time in the unit that keeps 3 significant digits readable: "15.2 us", "1.87 ms".
std::string format_time(double seconds);

// The terminal table: one section per workload, a line per case, a column per backend (a peer's
// column only in the sections it has results in), then the speedups over Serial, of Cuda over
// OpenMP and of OpenMP over the plain C loops (plain_c; where both columns have a time) and, in
// sections with peers, the fastest peer's time
// over Unison's fastest ("peer/best": above 1, Unison is faster); under each
// time its GB/s (or GFLOP/s) and fraction of peak; then the workload's notes.
void write_table(std::ostream& out, const std::vector<Row>& rows,
                 const std::vector<std::string>& backends);

// report.html: one self-contained page with the tables of write_table (a <table
// class="family" data-family="<workload>"> per family, each time with its rate, fraction of
// peak and check), the check summary, `about` (the machine and versions, as key and value) and
// `images` (name, the PNG's bytes in base64) embedded as data: URLs.
void write_report(std::ostream& out, const std::vector<Row>& rows,
                  const std::vector<std::string>& backends,
                  const std::vector<std::pair<std::string, std::string>>& about,
                  const std::vector<std::pair<std::string, std::string>>& images);

// The CPU limit of the cgroup this process runs in, as a number of CPUs (1.5: one and a half
// CPUs' time), the smallest over its cgroup and the cgroups above it: cgroup v2's cpu.max
// ("<quota> <period>", or "max") and v1's cpu.cfs_quota_us over cpu.cfs_period_us; 0 where no
// limit is set or none can be read. `root`: where the cgroup file systems are mounted
// (/sys/fs/cgroup); `self`: the text of /proc/self/cgroup, whose lines name the process's cgroup
// ("0::/path" for v2, "<n>:cpu,cpuacct:/path" for v1's cpu controller).
double cgroup_cpu_limit(const std::string& root, const std::string& self);

// The base64 text of bytes (RFC 4648, with padding).
std::string base64(const std::string& bytes);

// The CSV: first the run's context as comment lines ("# key: value", a line each; readers skip
// lines starting with '#'), then a header line, then a line per row; text quoted (names hold no
// quote or comma; a note's quotes become apostrophes).
void write_csv(std::ostream& out, const std::vector<Row>& rows,
               const std::vector<std::pair<std::string, std::string>>& context = {});

// Google Benchmark's JSON of the run with `rows` added to its "benchmarks" (the peers' results,
// each an aggregate "median" entry named "<case>/<peer>" with its counters): the text of `json`
// with them inserted before the list's end. Empty if json does not end as that format does.
std::string add_rows_to_json(const std::string& json, const std::vector<Row>& rows);

}  // namespace unison::suite
