#pragma once
// The report's headline: each family's headline case (a seed size of its tutorial, where the
// tutorials' tools run too), every implementation's speedup over NumPy on it, and a few
// sentences of findings with their numbers.
#include <string>
#include <vector>

#include "report.hpp"

namespace unison::suite {

// An implementation's result on a headline case: Unison on a backend ("OpenMP"), Unison from
// Python ("python_cuda") or a peer ("numpy", "cupy", "plain_c"...).
struct HeadlineBar {
  std::string implementation;
  bool peer = false;
  double seconds = 0;
  double speedup = 0;   // the baseline's time over this one's
  bool failed = false;  // its check against the float64 reference failed
};

// A family's headline case and its bars, in a fixed order of implementations (Unison's
// backends, Unison from Python, then the peers: the CPU's, then the GPU's). The baseline is
// NumPy where it ran the case, else the tutorial's Numba code on the CPU (numba_cpu), else
// Unison's Serial backend (else the first bar).
struct HeadlineCase {
  std::string family, name, baseline;
  double baseline_seconds = 0;
  std::vector<HeadlineBar> bars;
};
std::vector<HeadlineCase> headline(const std::vector<Row>& rows);

// The findings, a sentence each: how much faster the GPU is than the CPU at most (and where the
// CPU is faster), Unison against the fastest peer on each headline case, and the checks
// (Unison's failed ones by name, the peers' failed ones).
std::vector<std::string> findings(const std::vector<Row>& rows);

// A headline case as one line of text: "elementwise, gaussian_pdf/1e8/device (numpy 559 ms =
// 1x): Cuda 1190x, OpenMP 61.2x, ..., cupy 1150x, numba_cpu 3.04x FAILED".
std::string headline_text(const HeadlineCase& c);

}  // namespace unison::suite
