#pragma once
// The memory levels of each backend and each row's fraction of its measured peak.
#include <iosfwd>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "report.hpp"

namespace unison::suite {

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
//   functions "copy", "read" and "add" whose own working set is at that level by level_of; a
//   level is at least as fast as those beyond it, so a level without a stream of its own takes the
//   next one's), taken at the stream's fastest repetition (best_s). A row's bytes (at its median)
//   are set against the level of the largest stream whose working set is at most the row's (the
//   innermost level measured where there is none), except its out_bytes, which are set against
//   DRAM: a row that declares out_bytes uses two resources at once (its inputs from a cache, its
//   results to memory); where its level is DRAM too, all its bytes are set against DRAM.
// - Arithmetic: the GFLOP/s of the backend's peak case of "fma" (chains of fused
//   multiply-adds).
// None for a case timed with host copies ("/with_copies": the host link's peak is not measured),
// or at a level no stream measured.
void apply_peaks(std::vector<Row>& rows, const MemoryLevels& levels = {});

// The ceilings apply_peaks sets the rows against, as CSV: "backend,resource,rate,unit", a line
// per backend and memory level measured (innermost first; GB/s) and per fma case (resource
// "FMA", GFLOP/s): the roofline's lines.
void write_ceilings_csv(std::ostream& out, const std::vector<Row>& rows,
                        const MemoryLevels& levels = {});

// A fraction of a peak as the table shows it: "0.93 of L3", "1.0 of FMA".
std::string fraction_text(const Row& row);

}  // namespace unison::suite
