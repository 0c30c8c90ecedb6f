#pragma once
// What a run leaves: the table on the standard output, unison_bench.csv and unison_bench.json
// (the peers' results joined in), the diffusion's pictures, the plots and report.html.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "report.hpp"
#include "roofline.hpp"

namespace unison::suite {

// The machine's lines (CPUs, vectors, OpenMP threads, host BLAS), then write_table's table, and
// a note under a seed run that ran fewer steps.
void print_table(const std::vector<Row>& rows, const std::vector<std::string>& columns);

// unison_bench.csv, the peers' rows added to Google Benchmark's unison_bench.json (`json`),
// ceilings.csv (the measured ceilings of `levels`, write_ceilings_csv), and a line saying where
// they are; false (having said why) where a file could not be written.
bool write_results(const std::filesystem::path& out, const std::string& json,
                   const std::vector<Row>& rows,
                   const std::vector<std::pair<std::string, std::string>>& about,
                   const MemoryLevels& levels);

// The tutorial's pictures of the diffusion workload (.npy files that plot.py draws), on
// `backend`.
void diffusion_images(const std::string& out, const std::string& backend);

// Draws the plots (plot.py), having removed those of an earlier run in `out`; says what happened
// (a missing Python or matplotlib is not an error).
void draw_plots(const std::string& out);

// report.html in out: the rows, `about`, and the plots that draw_plots wrote (embedded).
bool write_report_file(const std::filesystem::path& out, const std::vector<Row>& rows,
                       const std::vector<std::string>& columns,
                       const std::vector<std::pair<std::string, std::string>>& about);

}  // namespace unison::suite
