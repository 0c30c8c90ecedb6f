#pragma once
// The peers that run beside the chosen workloads, and their results read back as rows.
#include <iosfwd>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "harness/workloads.hpp"
#include "report.hpp"

namespace unison::suite {

using unison::bench::PeerScript;

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

// The rows of the peers' CSV (peer_timing.record: case,peer,median_s,error,tolerance; error and
// tolerance empty where the peer's result was not checked), as peer rows, described by the
// manifest's entry of their case (`manifest`: by case name). A malformed line sets `error`
// (naming the line) and is skipped; a line of a case the manifest lacks (one the run left out)
// is skipped and counted in `not_in_run`.
std::vector<Row> read_peer_rows(std::istream& in, const std::map<std::string, CaseKind>& manifest,
                                std::string& error, int& not_in_run);

}  // namespace unison::suite
