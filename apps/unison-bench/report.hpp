#pragma once
// A result of the run (a case on a backend, or a peer beside it) and what the report says of the
// rows: their checks, the crossover lines, the notes, and the reporters: the terminal table,
// report.html, the CSV and the JSON.
#include <iosfwd>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness/workloads.hpp"

namespace unison::suite {

using unison::bench::Kind;

// What the manifest says of a case (unison::bench::Case): its family, the function it times,
// its kind and whether it is its family's case in the headline.
struct CaseKind {
  std::string family, function;
  Kind kind = Kind::workload;
  bool headline = false;
};

// One timed case on one backend, as the report shows it.
struct Row {
  std::string workload;  // the table's section: the case's family, "crossover" for a sweep's size
  std::string function;  // the function it times; a peak's "copy", "read", "add" or "fma"
  Kind kind = Kind::workload;  // as CaseKind
  bool headline = false;       // its family's case in the headline (as CaseKind)
  std::string name;     // the benchmark name without its backend ("diffusion/every_step/...")
  std::string backend;  // "Serial", "OpenMP", "Cuda", or a peer's name ("numba_cuda", "cupy")
  bool peer = false;    // a peer's result (benchmarks/peers/) beside the case, not Unison's
  double median_s = 0;  // median time of one call (or one unit: a diffusion step)
  double best_s = 0;    // the fastest repetition's time (0: not known; the median then)
  double spread = 0;    // standard deviation over the repetitions, relative to the mean
  double gb_per_s = 0;  // 0 where the case counts no bytes
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
  // The row's rate on that resource (GB/s at the level, or GFLOP/s) and the resource's measured
  // peak: peak_fraction = peak_rate / peak_ceiling. (A row that streams out_bytes to DRAM from a
  // working set in a cache counts only the bytes of the one resource in its peak_rate.)
  double peak_rate = 0, peak_ceiling = 0;
  std::string note;  // filled by advise: what to do about a slow figure, or ""
  // The check of the case's result against its float64 reference (unison::bench::Check): the
  // error in the case's measure and the tolerance it must not exceed; none for a case without
  // a reference (the crossover sweeps, say). `as_timed`: the check judged the call the row
  // times (benchmarks/harness/call_trace.hpp); a check of another call fails, whatever its error.
  bool checked = false;
  double error = 0, tolerance = 0;
  bool as_timed = true;
  bool passed() const { return !checked || (as_timed && error <= tolerance); }
};

// A row's workload, function and kind from the manifest's entry of its case.
void describe(Row& row, const CaseKind& of);

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

// A figure of plot.py for report.html: its file name ("headline.svg", "roofline_Cuda.svg",
// "times_<family>.svg", "crossover.svg", "diffusion.png") and its content (an SVG's text, a
// PNG's bytes in base64).
struct Figure {
  std::string name, content;
};

// report.html: one self-contained page that opens offline. First the headline (the figure
// headline.svg, <figure id="headline-chart">, else its numbers as text; then the findings), the
// rooflines (roofline_*.svg), the check summary and `about` (the machine and versions, as key
// and value); then the tables of write_table (a <table class="family" data-family="<workload>">
// per family, each time with its rate, fraction of peak and check), each followed by its
// family's figures; any other figure last. SVGs are inline, PNGs data: URLs.
void write_report(std::ostream& out, const std::vector<Row>& rows,
                  const std::vector<std::string>& backends,
                  const std::vector<std::pair<std::string, std::string>>& about,
                  const std::vector<Figure>& figures);

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
