// unison-bench's option parsing and report writing (the unison_suite library);
// not its timings.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "cgroup.hpp"
#include "harness/workloads.hpp"
#include "headline.hpp"
#include "options.hpp"
#include "peers.hpp"
#include "report.hpp"
#include "roofline.hpp"

namespace {

using unison::suite::Kind;
using unison::suite::Options;
using unison::suite::parse_options;
using unison::suite::Row;
const std::vector<std::string> enabled{"Serial", "OpenMP", "Cuda"};

Options ok(const std::vector<std::string>& args) {
  const auto p = parse_options(args, enabled);
  EXPECT_EQ(p.error, "") << args.size();
  return p.options;
}

// A row of a case of `workload` (the streams and the fma case: peaks; "crossover": a sweep's
// size), its function the name's first part, as the cases name themselves.
Row row(const std::string& workload, const std::string& name, const std::string& backend,
        double median_s, double spread, double gb_per_s, double gflop_per_s) {
  Row r;
  r.workload = workload;
  r.function = name.substr(0, name.find('/'));
  r.kind = workload == "crossover"                                               ? Kind::crossover
           : r.function == "copy" || r.function == "read" || r.function == "fma" ? Kind::peak
                                                                                 : Kind::workload;
  r.name = name;
  r.backend = backend;
  r.median_s = median_s;
  r.spread = spread;
  r.gb_per_s = gb_per_s;
  r.gflop_per_s = gflop_per_s;
  return r;
}

std::string error(const std::vector<std::string>& args) {
  const auto p = parse_options(args, enabled);
  EXPECT_NE(p.error, "");
  EXPECT_EQ(p.error.find('\n'), std::string::npos) << "one line: " << p.error;
  return p.error;
}

}  // namespace

TEST(Suite, defaults) {
  const Options o = ok({});
  EXPECT_EQ(o.workloads, unison::bench::workload_names());
  EXPECT_EQ(o.backends, enabled);
  EXPECT_EQ(o.repetitions, 0);  // 3, or 5 with --full
  EXPECT_FALSE(o.full);
  EXPECT_EQ(o.scale, 1.0);
  EXPECT_EQ(o.out, "unison-bench-out");
  EXPECT_FALSE(o.list);
  EXPECT_FALSE(o.help);
  EXPECT_TRUE(o.plots);
  EXPECT_TRUE(o.checks);
  EXPECT_TRUE(o.peers);
  EXPECT_EQ(o.results_limit_mib, 64);
  EXPECT_FALSE(o.crossover);
  EXPECT_FALSE(o.sizes);
}

TEST(Suite, options) {
  // Lists in the suite's own order, whatever the order given, without repeats, any case.
  Options o = ok({"--workloads=diffusion,elementwise,DIFFUSION", "--backends", "cuda,Serial"});
  EXPECT_EQ(o.workloads, (std::vector<std::string>{"elementwise", "diffusion"}));
  EXPECT_EQ(o.backends, (std::vector<std::string>{"Serial", "Cuda"}));
  o = ok({"--repetitions", "1", "--out=/tmp/x y", "--list"});
  EXPECT_EQ(o.repetitions, 1);
  EXPECT_EQ(o.out, "/tmp/x y");
  EXPECT_TRUE(o.list);
  EXPECT_EQ(ok({"--repetitions=1000"}).repetitions, 1000);
  EXPECT_EQ(ok({"--scale=0.01"}).scale, 0.01);
  EXPECT_EQ(ok({"--scale", "1"}).scale, 1.0);
  EXPECT_EQ(ok({"--scale=1e-3"}).scale, 1e-3);
  EXPECT_TRUE(ok({"-h"}).help);
  EXPECT_FALSE(ok({"--no-plots"}).plots);
  EXPECT_FALSE(ok({"--no-checks"}).checks);
  EXPECT_TRUE(ok({"--full"}).full);
  EXPECT_FALSE(ok({"--no-peers"}).peers);
  EXPECT_EQ(ok({"--results-limit=1024"}).results_limit_mib, 1024);
  EXPECT_EQ(ok({"--results-limit", "0"}).results_limit_mib, 0);
  EXPECT_TRUE(ok({"--crossover"}).crossover);
  EXPECT_TRUE(ok({"--list", "--json"}).json);
  EXPECT_FALSE(ok({"--list"}).json);
  EXPECT_EQ(error({"--json"}), "--json: only with --list");
  EXPECT_TRUE(ok({"--sizes"}).sizes);
  EXPECT_FALSE(ok({"--sizes"}).crossover);
  EXPECT_EQ(ok({"--filter=^copy/.*/OpenMP$"}).filter, "^copy/.*/OpenMP$");
  EXPECT_EQ(ok({"--filter", "gaussian_pdf|hypot"}).filter, "gaussian_pdf|hypot");
  EXPECT_EQ(ok({}).filter, "");
  EXPECT_TRUE(ok({"--help", "--workloads=counting"}).help);
  // "counting": the random-number, histogram and small-example families together.
  EXPECT_EQ(ok({"--workloads=counting"}).workloads,
            (std::vector<std::string>{"random", "histogram", "examples"}));
  EXPECT_EQ(ok({"--workloads=examples,Counting,matmul"}).workloads,
            (std::vector<std::string>{"matmul", "random", "histogram", "examples"}));
  // A later option overrides an earlier one.
  EXPECT_EQ(ok({"--out=a", "--out=b"}).out, "b");
}

TEST(Suite, bad_options) {
  EXPECT_NE(error({"--bogus"}).find("unknown option '--bogus'"), std::string::npos);
  EXPECT_NE(error({"extra"}).find("unknown option 'extra'"), std::string::npos);
  EXPECT_NE(error({"--workloads=fft"}).find("'fft' is not one of elementwise, rowwise"),
            std::string::npos);
  EXPECT_NE(error({"--workloads="}).find("--workloads needs a value"), std::string::npos);
  EXPECT_NE(error({"--workloads"}).find("--workloads needs a value"), std::string::npos);
  EXPECT_NE(error({"--workloads", "--list"}).find("--workloads needs a value"), std::string::npos);
  EXPECT_NE(error({"--workloads=diffusion,"}).find("comma-separated list"), std::string::npos);
  EXPECT_NE(error({"--workloads=,"}).find("--workloads"), std::string::npos);
  EXPECT_NE(error({"--workloads=diffusion,,convolve"}).find("'' is not one of"), std::string::npos);
  // Empty items around the group "counting" too, first or last.
  EXPECT_NE(error({"--workloads=,counting"}).find("'' is not one of"), std::string::npos);
  EXPECT_NE(error({"--workloads=counting,"}).find("comma-separated list"), std::string::npos);
  EXPECT_NE(error({"--workloads=counting,,matmul"}).find("'' is not one of"), std::string::npos);
  EXPECT_NE(error({"--backends=HIP"}).find("'HIP' is not one of Serial, OpenMP, Cuda"),
            std::string::npos);
  // A backend this build did not enable.
  EXPECT_NE(parse_options({"--backends=Cuda"}, {"Serial", "OpenMP"})
                .error.find("'Cuda' is not one of Serial, OpenMP"),
            std::string::npos);
  for (const char* r : {"0", "-1", "1001", "2x", "x", "1.5", "99999999999999999999"})
    EXPECT_NE(
        error({std::string("--repetitions=") + r}).find("is not a whole number from 1 to 1000"),
        std::string::npos)
        << r;
  EXPECT_NE(error({"--out"}).find("--out needs a value"), std::string::npos);
  for (const char* f : {"0", "-0.5", "1.5", "nan", "inf", "0.5x", "x", "1e400"})
    EXPECT_NE(error({std::string("--scale=") + f}).find("is not a number above 0 and at most 1"),
              std::string::npos)
        << f;
  EXPECT_NE(error({"--help=yes"}).find("unknown option '--help=yes'"), std::string::npos);
  EXPECT_NE(error({"--no-plots=1"}).find("unknown option '--no-plots=1'"), std::string::npos);
  EXPECT_NE(error({"--no-checks=0"}).find("unknown option '--no-checks=0'"), std::string::npos);
  EXPECT_NE(error({"--filter=(unclosed"}).find("--filter: '(unclosed' is not a regular expression"),
            std::string::npos);
  EXPECT_NE(error({"--filter"}).find("--filter needs a value"), std::string::npos);
  for (const char* m : {"-1", "x", "1.5", "1000001"})
    EXPECT_NE(error({std::string("--results-limit=") + m}).find("is not a whole number of MiB"),
              std::string::npos)
        << m;
}

TEST(Suite, help_names_every_option_and_value) {
  const std::string h = unison::suite::help_text({"Serial", "OpenMP"});
  for (const char* s :
       {"--full", "--workloads", "--backends", "--filter", "--repetitions", "--scale", "--out",
        "--no-plots", "--no-checks", "--no-peers", "--results-limit", "--crossover", "--sizes",
        "--list", "--json", "--help",
        "elementwise, rowwise, convolve, diffusion, matmul, random, histogram, examples",
        "Serial, OpenMP", "exit code 2"})
    EXPECT_NE(h.find(s), std::string::npos) << s;
}

TEST(Suite, describe) {
  // A row takes its family, function and kind from the manifest's entry of its case; the table
  // shows a crossover sweep's sizes in a section of their own.
  Row r;
  unison::suite::describe(r, {"elementwise", "hypot", Kind::workload});
  EXPECT_EQ(r.workload, "elementwise");
  EXPECT_EQ(r.function, "hypot");
  EXPECT_EQ(r.kind, Kind::workload);
  unison::suite::describe(r, {"convolve", "convolve", Kind::crossover});
  EXPECT_EQ(r.workload, "crossover");
  EXPECT_EQ(r.kind, Kind::crossover);
  unison::suite::describe(r, {"diffusion", "diffusion", Kind::sizes});
  EXPECT_EQ(r.workload, "diffusion");
  EXPECT_EQ(r.kind, Kind::sizes);
}

TEST(Suite, crossover_lines) {
  std::vector<Row> rows;
  const auto add = [&](const std::string& name, const std::string& backend, double t) {
    rows.push_back(row("crossover", name, backend, t, 0, 0, 0));
  };
  // gaussian_pdf: on the device the GPU wins from 1e5; with copies never; the CPU's times from
  // OpenMP (Serial is slower and ignored).
  for (const auto& [size, cpu, gpu, copies] :
       std::vector<std::tuple<std::string, double, double, double>>{{"1e3", 2e-6, 6e-6, 30e-6},
                                                                    {"1e4", 5e-6, 6e-6, 40e-6},
                                                                    {"1e5", 30e-6, 7e-6, 200e-6},
                                                                    {"1e6", 300e-6, 9e-6, 2e-3}}) {
    add("crossover/gaussian_pdf/" + size + "/device", "OpenMP", cpu);
    add("crossover/gaussian_pdf/" + size + "/device", "Serial", 10 * cpu);
    add("crossover/gaussian_pdf/" + size + "/device", "Cuda", gpu);
    add("crossover/gaussian_pdf/" + size + "/with_copies", "Cuda", copies);
  }
  // diffusion: the GPU wins at every size, also with copies; sizes as sides.
  for (const auto& [side, cpu, gpu] : std::vector<std::tuple<std::string, double, double>>{
           {"100x100", 20e-6, 3e-6}, {"32x32", 5e-6, 2e-6}}) {
    add("crossover/diffusion_every_step/" + side + "/device", "OpenMP", cpu);
    add("crossover/diffusion_every_step/" + side + "/device", "Cuda", gpu);
    add("crossover/diffusion_every_step/" + side + "/with_copies", "Cuda", 2 * gpu);
  }
  const auto lines = unison::suite::crossover_lines(rows);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "gaussian_pdf, data on the device: the GPU is faster from 1e5 on (at 1e4: CPU 5 us, "
            "GPU 6 us)");
  EXPECT_EQ(lines[1],
            "gaussian_pdf, with the host copies: the CPU is faster at every size, up to 1e6 (300 "
            "us against the GPU's 2 ms)");
  EXPECT_EQ(lines[2],
            "diffusion_every_step, data on the device: the GPU is faster at every size, from 32x32 "
            "(2 us against the CPU's 5 us)");
  EXPECT_EQ(lines[3],
            "diffusion_every_step, with the host copies: the GPU is faster at every size, from "
            "32x32 (4 us against the CPU's 5 us)");
  // A GPU that wins at a small size but loses at a larger one is faster only from where it stops
  // losing.
  std::vector<Row> dip;
  for (const auto& [size, cpu, gpu] : std::vector<std::tuple<std::string, double, double>>{
           {"1e3", 9e-6, 5e-6}, {"1e4", 9e-6, 10e-6}, {"1e5", 20e-6, 10e-6}})
    for (const auto& [backend, t] :
         std::vector<std::pair<std::string, double>>{{"OpenMP", cpu}, {"Cuda", gpu}})
      dip.push_back(row("crossover", "crossover/convolve_f32_taps5/" + size + "/device", backend, t,
                        0, 0, 0));
  const auto dip_lines = unison::suite::crossover_lines(dip);
  ASSERT_EQ(dip_lines.size(), 1u);
  EXPECT_EQ(dip_lines[0],
            "convolve_f32_taps5, data on the device: the GPU is faster from 1e5 on (at 1e4: CPU 9 "
            "us, GPU 10 us)");
}

TEST(Suite, join) {
  EXPECT_EQ(unison::suite::join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(unison::suite::join({"a"}, ","), "a");
  EXPECT_EQ(unison::suite::join({}, ","), "");
}

TEST(Suite, format_time) {
  EXPECT_EQ(unison::suite::format_time(1.87e-3), "1.87 ms");
  EXPECT_EQ(unison::suite::format_time(15.2e-6), "15.2 us");
  EXPECT_EQ(unison::suite::format_time(250e-9), "250 ns");
  EXPECT_EQ(unison::suite::format_time(2.5), "2.5 s");
  EXPECT_EQ(unison::suite::format_time(0), "0");
}

TEST(Suite, table_and_csv) {
  std::vector<Row> rows{
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "Serial", 4e-3, 0.01, 12, 0),
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "OpenMP", 250e-6, 0.05, 192, 0),
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "Cuda", 15e-6, 0.002, 3200, 0),
      row("histogram", "histogram/f32/1e8/bins100", "OpenMP", 40e-3, 0.1, 10, 0),
      row("histogram", "histogram/f32/1e8/bins100", "Cuda", 0.2e-3, 0, 2000, 0),
      row("elementwise", "hidden_layer_fused/1e8/device", "Serial", 1.88, 0, 0, 0),
      row("elementwise", "hidden_layer_fused/1e8/device", "Cuda", 399e-6, 0, 0, 0),
  };
  std::ostringstream table;
  unison::suite::write_table(table, rows, enabled);
  const std::string t = table.str();
  // Sections in the rows' order, a column per backend, the speedups where both times exist.
  const auto diffusion = t.find("\ndiffusion\n"), histogram = t.find("\nhistogram\n");
  ASSERT_NE(diffusion, std::string::npos) << t;
  ASSERT_NE(histogram, std::string::npos) << t;
  EXPECT_LT(diffusion, histogram);
  for (const char* s :
       {"Serial", "OpenMP", "Cuda", "OpenMP/Serial", "Cuda/Serial", "Cuda/OpenMP", "4 ms ±1%",
        "250 us ±5%", "15 us ±0%", "16x", "267x", "16.7x", "200x", "40 ms ±10%", "4712x"})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  // The histogram has no Serial time: no speedups over Serial on its line.
  const std::string histogram_line =
      t.substr(t.find("  histogram"), t.find('\n', t.find("  histogram")) - t.find("  histogram"));
  EXPECT_NE(histogram_line.find("200x"), std::string::npos) << histogram_line;
  EXPECT_EQ(std::count(histogram_line.begin(), histogram_line.end(), '-'), 3) << histogram_line;
  // Only the backends asked for.
  std::ostringstream gpu_only;
  unison::suite::write_table(gpu_only, rows, {"Cuda"});
  EXPECT_EQ(gpu_only.str().find("OpenMP"), std::string::npos) << gpu_only.str();
  EXPECT_EQ(gpu_only.str().find("Cuda/"), std::string::npos) << gpu_only.str();

  std::ostringstream csv;
  unison::suite::write_csv(csv, rows);
  const std::string c = csv.str();
  EXPECT_EQ(c.substr(0, c.find('\n')),
            "workload,case,backend,median_s,spread,gb_per_s,gflop_per_s,peak,peak_fraction,check,"
            "error,tolerance,note,function,kind,headline,peak_rate,peer");
  EXPECT_NE(c.find("\"diffusion\",\"diffusion/every_step/streaming/"
                   "2000x2000\",\"OpenMP\",0.00025,0.0500,192,0,\"\",0.0000,\"\",0,0,\"\","
                   "\"diffusion\",\"workload\",0,0,0\n"),
            std::string::npos)
      << c;
  EXPECT_EQ(std::count(c.begin(), c.end(), '\n'), 8);
  // The run's context first, a comment line each (a value's line breaks made spaces).
  std::ostringstream with_context;
  unison::suite::write_csv(with_context, rows, {{"CPU", "Xeon"}, {"OpenMP threads", "16\n(x)"}});
  const std::string w = with_context.str();
  EXPECT_EQ(w.substr(0, w.find("workload,")), "# CPU: Xeon\n# OpenMP threads: 16 (x)\n") << w;
  EXPECT_EQ(w.substr(w.find("workload,")), c);
}

namespace {

// The rows of the peaks' tests: rates chosen so that a case's bytes (GB/s times its time) put it
// at a level: OpenMP's L2 holds 32 MB, its L3 300 MB; the GPU's L2 50 MB. The streams are sized as
// unison-bench sizes them: half the L2, then 1.25 times the level inside.
std::vector<Row> peak_rows() {
  return {
      row("elementwise", "copy/1e8/device", "OpenMP", 10e-3, 0, 80, 0),     // 800 MB: DRAM
      row("elementwise", "copy/L3/device", "OpenMP", 0.125e-3, 0, 320, 0),  // 40 MB: L3
      row("elementwise", "copy/L2/device", "OpenMP", 0.04e-3, 0, 400, 0),   // 16 MB: L2
      row("elementwise", "copy/1e8/device", "Cuda", 0.27e-3, 0, 3000, 0),   // 810 MB: DRAM
      row("elementwise", "copy/L2/device", "Cuda", 5e-6, 0, 5000, 0),       // 25 MB: L2
      row("elementwise", "copy/DRAM/device", "OpenMP", 5e-3, 0, 75, 0),     // 375 MB: DRAM
      row("elementwise", "copy/DRAM/device", "Cuda", 25e-6, 0, 2500, 0),    // 62.5 MB: DRAM
      row("elementwise", "fma/f32/device", "Cuda", 0.3e-3, 0, 0, 45000),
      row("elementwise", "fma/f32/device", "OpenMP", 10e-3, 0, 0, 2000),
      row("convolve", "convolve/valid/f32/1e7/taps257/direct", "OpenMP", 5e-3, 0, 8, 1000),
      row("elementwise", "gaussian_pdf/1e8/device", "Cuda", 0.28e-3, 0, 2850, 1000),
      row("elementwise", "gaussian_pdf/1e8/with_copies", "Cuda", 30e-3, 0, 26, 10),
      row("elementwise", "add_float32/1e5/device", "OpenMP", 5e-6, 0, 240, 0),  // 1.2 MB: L2
      row("elementwise", "add_float32/1e5/device", "Cuda", 8e-6, 0, 150, 0),
      row("elementwise", "hypot/1e6/device", "OpenMP", 100e-6, 0, 120, 0),
      row("elementwise", "hypot/1e6/device", "Cuda", 9e-6, 0, 120, 0),
      row("diffusion", "diffusion/every_step/plain/2000x2000", "OpenMP", 200e-6, 0, 240, 0),
      row("diffusion", "diffusion/every_step/plain/2000x2000", "Cuda", 16e-6, 0, 3000, 0),
      row("matmul", "matmul_reduce/gemm/f32/10000x5000x7000", "Cuda", 15e-3, 0, 30, 45000),
      row("matmul", "matmul_reduce/tiled/f32/10000x5000x7000", "Cuda", 20e-3, 0, 20, 36000),
      row("rowwise", "l2_norm/f32/1000000x2", "Cuda", 10e-6, 0, 900, 400),
      row("examples", "lucas/40", "Cuda", 6e-6, 0, 0, 0),
      row("examples", "lucas/40", "OpenMP", 5.5e-6, 0, 0, 0),
      row("convolve", "convolve/valid/f32/1e8/taps5/direct", "Cuda", 0.27e-3, 0, 2900, 0),
      row("convolve", "convolve/valid/f32/1e8/taps5/direct/with_copies", "Cuda", 80e-3, 0, 10, 0),
      // A peer with no copy of its own: no fraction.
      row("elementwise", "gaussian_pdf/1e8/device", "cupy", 0.5e-3, 0, 1600, 0),
  };
}

// The memory levels of peak_rows().
unison::suite::MemoryLevels peak_levels() {
  return {
      {"OpenMP", {{"L2", 32e6}, {"L3", 300e6}, {"DRAM", INFINITY}}},
      {"Cuda", {{"L2", 50e6}, {"DRAM", INFINITY}}},
  };
}

// The row of rows named `name` on `backend` (a failure if there is none).
const Row& find_row(const std::vector<Row>& rows, const std::string& name,
                    const std::string& backend) {
  for (const Row& r : rows)
    if (r.name == name && r.backend == backend) return r;
  ADD_FAILURE() << name << " " << backend;
  return rows[0];
}

}  // namespace

TEST(Suite, peaks) {
  std::vector<Row> rows = peak_rows();
  const unison::suite::MemoryLevels levels = peak_levels();
  EXPECT_EQ(unison::suite::level_of(rows[0], levels.at("OpenMP")), "DRAM");
  EXPECT_EQ(unison::suite::level_of(rows[1], levels.at("OpenMP")), "L3");
  EXPECT_EQ(unison::suite::level_of(rows[2], levels.at("OpenMP")), "L2");
  EXPECT_EQ(unison::suite::level_of(rows[7], levels.at("Cuda")), "");  // counts no bytes
  EXPECT_EQ(unison::suite::level_of(rows[0], {}), "DRAM");
  unison::suite::apply_peaks(rows, levels);
  const auto find = [&](const std::string& name, const std::string& backend) -> const Row& {
    return find_row(rows, name, backend);
  };
  // Each copy is its own level's peak.
  EXPECT_EQ(find("copy/1e8/device", "Cuda").peak, "DRAM");
  EXPECT_DOUBLE_EQ(find("copy/1e8/device", "Cuda").peak_fraction, 1.0);
  EXPECT_EQ(find("copy/L2/device", "Cuda").peak, "L2");
  EXPECT_DOUBLE_EQ(find("copy/L2/device", "Cuda").peak_fraction, 1.0);
  EXPECT_EQ(find("copy/L3/device", "OpenMP").peak, "L3");
  EXPECT_EQ(unison::suite::fraction_text(find("copy/L3/device", "OpenMP")), "1.00 of L3");
  EXPECT_EQ(find("copy/DRAM/device", "Cuda").peak, "DRAM");  // against the copy of 1e8
  EXPECT_DOUBLE_EQ(find("copy/DRAM/device", "Cuda").peak_fraction, 2500.0 / 3000);
  EXPECT_DOUBLE_EQ(find("gaussian_pdf/1e8/device", "Cuda").peak_fraction, 0.95);
  EXPECT_EQ(find("gaussian_pdf/1e8/device", "Cuda").peak, "DRAM");
  // In a cache: against that cache's copy, not DRAM's (240 of 400, not 3x 80).
  EXPECT_EQ(find("add_float32/1e5/device", "OpenMP").peak, "L2");
  EXPECT_DOUBLE_EQ(find("add_float32/1e5/device", "OpenMP").peak_fraction, 0.6);
  EXPECT_EQ(find("diffusion/every_step/plain/2000x2000", "OpenMP").peak, "L3");  // 48 MB
  EXPECT_DOUBLE_EQ(find("diffusion/every_step/plain/2000x2000", "OpenMP").peak_fraction, 0.75);
  EXPECT_EQ(find("diffusion/every_step/plain/2000x2000", "Cuda").peak, "L2");  // 48 MB
  EXPECT_DOUBLE_EQ(find("diffusion/every_step/plain/2000x2000", "Cuda").peak_fraction, 0.6);
  EXPECT_EQ(find("fma/f32/device", "OpenMP").peak, "FMA");
  EXPECT_DOUBLE_EQ(find("fma/f32/device", "OpenMP").peak_fraction, 1.0);
  EXPECT_EQ(unison::suite::fraction_text(find("fma/f32/device", "OpenMP")), "1.00 of FMA");
  EXPECT_EQ(find("matmul_reduce/tiled/f32/10000x5000x7000", "Cuda").peak, "FMA");
  EXPECT_DOUBLE_EQ(find("matmul_reduce/tiled/f32/10000x5000x7000", "Cuda").peak_fraction, 0.8);
  EXPECT_EQ(find("convolve/valid/f32/1e7/taps257/direct", "OpenMP").peak,
            "FMA");  // 50 % of FMA beats 3 % of L3's copy
  EXPECT_DOUBLE_EQ(find("convolve/valid/f32/1e7/taps257/direct", "OpenMP").peak_fraction, 0.5);
  EXPECT_EQ(find("l2_norm/f32/1000000x2", "Cuda").peak, "L2");  // 9 MB: 18 % of L2 beats FMA's
  EXPECT_DOUBLE_EQ(find("l2_norm/f32/1000000x2", "Cuda").peak_fraction, 0.18);
  EXPECT_EQ(find("lucas/40", "Cuda").peak, "");
  EXPECT_EQ(find("gaussian_pdf/1e8/with_copies", "Cuda").peak,
            "");  // the host link: no peak measured
  EXPECT_EQ(find("gaussian_pdf/1e8/with_copies", "Cuda").peak_fraction, 0.0);
  EXPECT_EQ(find("gaussian_pdf/1e8/device", "cupy").peak, "");
  // Each fraction is the row's rate on its resource over that resource's ceiling (the roofline's
  // point against its line), and the ceilings are the ones written for the roofline.
  for (const Row& r : rows) {
    if (r.peak.empty()) {
      EXPECT_EQ(r.peak_rate, 0) << r.name;
      continue;
    }
    EXPECT_DOUBLE_EQ(r.peak_rate / r.peak_ceiling, r.peak_fraction) << r.name << " " << r.backend;
    EXPECT_DOUBLE_EQ(r.peak_rate, r.peak == "FMA" ? r.gflop_per_s : r.gb_per_s) << r.name;
  }
  EXPECT_DOUBLE_EQ(find("gaussian_pdf/1e8/device", "Cuda").peak_ceiling, 3000);
  std::ostringstream ceilings;
  unison::suite::write_ceilings_csv(ceilings, rows, levels);
  EXPECT_EQ(ceilings.str(),
            "backend,resource,rate,unit\n"
            "\"OpenMP\",\"L2\",400,\"GB/s\"\n"
            "\"OpenMP\",\"L3\",320,\"GB/s\"\n"
            "\"OpenMP\",\"DRAM\",80,\"GB/s\"\n"
            "\"OpenMP\",\"FMA\",2000,\"GFLOP/s\"\n"
            "\"Cuda\",\"L2\",5000,\"GB/s\"\n"
            "\"Cuda\",\"DRAM\",3000,\"GB/s\"\n"
            "\"Cuda\",\"FMA\",45000,\"GFLOP/s\"\n");
}

TEST(Suite, peaks_without_a_level) {
  const unison::suite::MemoryLevels levels = peak_levels();
  // A level with no copy of its own takes the next level's (a cache is no slower than what is
  // beyond it); a copy slower than the level beyond counts as that level's speed.
  std::vector<Row> few{
      row("elementwise", "copy/1e8/device", "OpenMP", 10e-3, 0, 80, 0),
      row("elementwise", "copy/L2/device", "OpenMP", 0.4e-3, 0, 40, 0),     // 16 MB, slower
      row("elementwise", "read/1e8/device", "OpenMP", 4e-3, 0, 100, 0),     // 400 MB read: DRAM
      row("elementwise", "copy/1e8/transform", "OpenMP", 10e-3, 0, 90, 0),  // 900 MB: DRAM
      row("elementwise", "hypot/1e6/device", "OpenMP", 100e-6, 0, 120, 0),  // 12 MB: L2
      row("diffusion", "diffusion/every_step/plain/2000x2000", "OpenMP", 1e-3, 0, 48, 0),
  };
  unison::suite::apply_peaks(few, levels);
  // The fastest stream of a level is its peak: the read of 1e8 (100 GB/s), not the copies.
  EXPECT_EQ(few[0].peak, "DRAM");
  EXPECT_DOUBLE_EQ(few[0].peak_fraction, 0.8);
  EXPECT_DOUBLE_EQ(few[2].peak_fraction, 1.0);
  EXPECT_DOUBLE_EQ(few[3].peak_fraction, 0.9);
  EXPECT_EQ(few[1].peak, "L2");
  EXPECT_DOUBLE_EQ(few[1].peak_fraction, 0.4);
  EXPECT_DOUBLE_EQ(few[4].peak_fraction, 1.2);
  // 48 MB, in L3 by its size; but no stream of L3 or of 48 MB or less beyond L2 was measured:
  // set against L2's, which is taken to be as fast as DRAM's.
  EXPECT_EQ(unison::suite::level_of(few[5], levels.at("OpenMP")), "L3");
  EXPECT_EQ(few[5].peak, "L2");
  EXPECT_DOUBLE_EQ(few[5].peak_fraction, 0.48);
  // A stream's peak is its fastest repetition: 80 GB/s at a median of 10 ms is 100 at 8 ms.
  few[0].best_s = 8e-3;
  unison::suite::apply_peaks(few, levels);
  EXPECT_DOUBLE_EQ(few[0].peak_fraction, 0.8);  // a case is taken at its median
  EXPECT_DOUBLE_EQ(few[3].peak_fraction, 0.9);  // (the read of 100 GB/s stays the peak)
  few[0].best_s = 5e-3;                         // 160 GB/s
  unison::suite::apply_peaks(few, levels);
  EXPECT_DOUBLE_EQ(few[3].peak_fraction, 90.0 / 160);
  EXPECT_DOUBLE_EQ(few[0].peak_fraction, 0.5);
  few[0].best_s = 0;
  // Without levels, every backend has DRAM alone.
  unison::suite::apply_peaks(few);
  EXPECT_EQ(few[4].peak, "DRAM");
  EXPECT_DOUBLE_EQ(few[4].peak_fraction, 1.2);
}

TEST(Suite, peaks_of_a_working_set) {
  const unison::suite::MemoryLevels levels = peak_levels();
  // A case's declared working set sets its level; its bytes written past the caches are judged
  // against DRAM at the same time, and its fraction is the larger of the two.
  std::vector<Row> split{
      row("elementwise", "copy/1e8/device", "OpenMP", 10e-3, 0, 80, 0),     // DRAM: 80 GB/s
      row("elementwise", "copy/L3/device", "OpenMP", 0.125e-3, 0, 320, 0),  // L3: 320
      row("elementwise", "copy/L2/device", "OpenMP", 0.04e-3, 0, 400, 0),   // L2: 400
      // 48 MB a step at 240 GB/s: 32 MB of fields (an L2's worth) and 16 MB of Laplacian
      // written past the caches.
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "OpenMP", 200e-6, 0, 240, 0),
      // 192 MB at 200 GB/s: 144 MB read (L3), 48 MB of results past the caches.
      row("examples", "rgb_to_grayscale/f32/4000x3000", "OpenMP", 0.96e-3, 0, 200, 0),
      // 16 MB a step (two steps a pass) over a working set of 32 MB: L2 (on the GPU: 50 MB).
      row("diffusion", "diffusion/final_only/streaming/2000x2000", "OpenMP", 50e-6, 0, 320, 0),
  };
  split[3].working_set_bytes = 32e6;
  split[3].out_bytes = 16e6;
  split[4].out_bytes = 48e6;
  split[5].working_set_bytes = 32e6;
  EXPECT_EQ(unison::suite::level_of(split[3], levels.at("OpenMP")), "L2");
  EXPECT_EQ(unison::suite::level_of(split[4], levels.at("OpenMP")), "L3");  // 144 MB
  EXPECT_EQ(unison::suite::level_of(split[5], levels.at("OpenMP")), "L2");
  unison::suite::apply_peaks(split, levels);
  // Fields: 160 GB/s of L2's 400 (0.4); Laplacian: 80 GB/s of DRAM's 80 (1.0).
  EXPECT_EQ(split[3].peak, "DRAM");
  EXPECT_DOUBLE_EQ(split[3].peak_fraction, 1.0);
  // Image: 150 GB/s of L3's 320 (0.47); gray: 50 GB/s of DRAM's 80 (0.625).
  EXPECT_EQ(split[4].peak, "DRAM");
  EXPECT_DOUBLE_EQ(split[4].peak_fraction, 0.625);
  EXPECT_EQ(split[5].peak, "L2");
  EXPECT_DOUBLE_EQ(split[5].peak_fraction, 0.8);
  // Its declared working set, not its bytes, sets its level: 50 MB are past the L3 stream's 40.
  split[5].working_set_bytes = 50e6;
  unison::suite::apply_peaks(split, levels);
  EXPECT_EQ(split[5].peak, "L3");
  EXPECT_DOUBLE_EQ(split[5].peak_fraction, 1.0);
  split[5].working_set_bytes = 32e6;
  // Without the declarations: the 48 MB, all at L3 (0.75 of 320); the 192 MB likewise.
  split[3].working_set_bytes = split[3].out_bytes = 0;
  split[4].out_bytes = 0;
  unison::suite::apply_peaks(split, levels);
  EXPECT_EQ(split[3].peak, "L3");
  EXPECT_DOUBLE_EQ(split[3].peak_fraction, 0.75);
  EXPECT_EQ(split[4].peak, "L3");
  EXPECT_DOUBLE_EQ(split[4].peak_fraction, 200.0 / 320);
  // A working set past a cache by less than the next level's stream: set against that cache
  // (33 MB outgrow the 32 MB of L2, but the L3 stream has 40).
  split[3].working_set_bytes = 33e6;
  unison::suite::apply_peaks(split, levels);
  EXPECT_EQ(unison::suite::level_of(split[3], levels.at("OpenMP")), "L3");
  EXPECT_EQ(split[3].peak, "L2");
  EXPECT_DOUBLE_EQ(split[3].peak_fraction, 240.0 / 400);
  split[3].working_set_bytes = 0;
  // A working set at DRAM: the results go to the same memory, all the bytes against DRAM
  // (120 GB/s of 80 is 1.5, not 0.75 for each half).
  Row big =
      row("convolve", "convolve/valid/f32/1e8/taps5/direct", "OpenMP", 800e6 / 120e9, 0, 120, 0);
  big.out_bytes = 400e6;
  big.working_set_bytes = 800e6;  // (as large as the DRAM stream here)
  std::vector<Row> with_big = split;
  with_big.push_back(big);
  unison::suite::apply_peaks(with_big, levels);
  EXPECT_EQ(with_big.back().peak, "DRAM");
  EXPECT_DOUBLE_EQ(with_big.back().peak_fraction, 1.5);
  // Out bytes beyond the case's own are its bytes, all of them past the caches.
  split[4].out_bytes = 1e12;
  unison::suite::apply_peaks(split, levels);
  EXPECT_EQ(split[4].peak, "DRAM");
  EXPECT_DOUBLE_EQ(split[4].peak_fraction, 200.0 / 80);
}

TEST(Suite, notes) {
  std::vector<Row> rows = peak_rows();
  const unison::suite::MemoryLevels levels = peak_levels();
  unison::suite::apply_peaks(rows, levels);
  const auto find = [&](const std::string& name, const std::string& backend) -> const Row& {
    return find_row(rows, name, backend);
  };
  unison::suite::advise(rows);
  EXPECT_NE(
      find("gaussian_pdf/1e8/with_copies", "Cuda").note.find("host copies take 99% of this call"),
      std::string::npos);
  EXPECT_NE(find("add_float32/1e5/device", "Cuda").note.find("the GPU is 1.6x slower than the CPU"),
            std::string::npos);
  EXPECT_NE(
      find("hypot/1e6/device", "Cuda").note.find("too short to fill the GPU (9 us, 0.02 of L2)"),
      std::string::npos)
      << find("hypot/1e6/device", "Cuda").note;
  EXPECT_NE(find("convolve/valid/f32/1e8/taps5/direct/with_copies", "Cuda")
                .note.find("host copies take 100% of this call"),
            std::string::npos)
      << find("convolve/valid/f32/1e8/taps5/direct/with_copies", "Cuda")
             .note;  // the twin of a case without "/device"
  EXPECT_EQ(find("gaussian_pdf/1e8/device", "Cuda").note, "");
  EXPECT_EQ(find("lucas/40", "Cuda").note, "");  // 1.09x the CPU's time, within the noise
  EXPECT_EQ(find("hypot/1e6/device", "OpenMP").note, "");

  std::ostringstream table;
  unison::suite::write_table(table, rows, {"OpenMP", "Cuda"});
  const std::string t = table.str();
  for (const char* s :
       {"2.85 TB/s 0.95 of DRAM", "36 TFLOP/s 0.80 of FMA", "80 GB/s 1.00 of DRAM",
        "240 GB/s 0.75 of L3", "note: hypot/1e6/device on Cuda: too short to fill the GPU"})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
}

TEST(Suite, cgroup_cpu_limit) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("unison-cgroup-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto put = [&](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  };
  using unison::suite::cgroup_cpu_limit;
  // No files: no limit.
  EXPECT_EQ(cgroup_cpu_limit(root.string(), "0::/\n"), 0);
  // v2: the process's cgroup, and the smallest limit of those above it.
  put(root / "cpu.max", "max 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root.string(), "0::/\n"), 0);
  put(root / "a" / "cpu.max", "400000 100000\n");
  put(root / "a" / "b" / "cpu.max", "max 100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_limit(root.string(), "0::/a/b\n"), 4);
  put(root / "a" / "b" / "cpu.max", "150000 100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_limit(root.string(), "0::/a/b\n"), 1.5);
  put(root / "cpu.max", "50000 100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_limit(root.string(), "0::/a/b\n"), 0.5);
  // v1: the cpu controller's line, its quota over its period (-1: none).
  put(root / "cpu" / "cpu.cfs_quota_us", "-1\n");
  put(root / "cpu" / "cpu.cfs_period_us", "100000\n");
  put(root / "cpu" / "job" / "cpu.cfs_quota_us", "200000\n");
  put(root / "cpu" / "job" / "cpu.cfs_period_us", "100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_limit(root.string(), "4:memory:/x\n1:cpu,cpuacct:/job\n"), 2);
  EXPECT_EQ(cgroup_cpu_limit(root.string(), "1:cpu,cpuacct:/\n"), 0);
  EXPECT_EQ(cgroup_cpu_limit(root.string(), "4:memory:/job\n"), 0);  // not the cpu controller
  // Garbage: no limit.
  put(root / "g" / "cpu.max", "lots 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root.string(), "0::/g\n"), 0.5);  // (the root's limit still holds)
  EXPECT_EQ(cgroup_cpu_limit(root.string(), "garbage"), 0);
  fs::remove_all(root);
}

TEST(Suite, peers_join_the_json) {
  const std::string json =
      "{\n  \"context\": {\n    \"date\": \"x\"\n  },\n  \"benchmarks\": [\n    {\n      \"name\": "
      "\"copy/1e8/device/OpenMP\"\n    }\n  ]\n}\n";
  Row numba = row("elementwise", "gaussian_pdf/1e8/device", "numba_cpu", 2e-3, 0, 400, 0);
  numba.peer = true;
  numba.checked = true;
  numba.error = 1e-7;
  numba.tolerance = 1e-5;
  Row plain = row("convolve", "convolve/valid/f32/1e8/taps5/direct", "plain_c", 10e-3, 0, 80, 0);
  plain.peer = true;
  plain.peak = "DRAM";
  plain.peak_fraction = 0.5;
  const std::string joined = unison::suite::add_rows_to_json(json, {numba, plain});
  ASSERT_FALSE(joined.empty());
  for (const char* s :
       {"\"name\": \"copy/1e8/device/OpenMP\"\n    },\n    {\n",
        "\"run_name\": \"gaussian_pdf/1e8/device/numba_cpu\"", "\"run_type\": \"aggregate\"",
        "\"aggregate_name\": \"median\"", "\"real_time\": 2000000", "\"time_unit\": \"ns\"",
        "\"GB/s\": 400", "\"check_error\": 9.9999999999999995e-08",
        "\"check_tolerance\": 1.0000000000000001e-05",
        "\"run_name\": \"convolve/valid/f32/1e8/taps5/direct/plain_c\"", "\"peak\": \"DRAM\"",
        "\"peak_fraction\": 0.5"})
    EXPECT_NE(joined.find(s), std::string::npos) << s << "\n" << joined;
  EXPECT_EQ(joined.substr(joined.size() - 8), "}\n  ]\n}\n") << joined;
  EXPECT_EQ(std::count(joined.begin(), joined.end(), '{'),
            std::count(joined.begin(), joined.end(), '}'));
  // An empty list takes them without a leading comma.
  const std::string none = unison::suite::add_rows_to_json(
      "{\n  \"context\": {},\n  \"benchmarks\": [\n  ]\n}\n", {numba});
  EXPECT_NE(none.find("[\n    {"), std::string::npos) << none;
  // Not Google Benchmark's JSON: nothing.
  EXPECT_EQ(unison::suite::add_rows_to_json("not json", {numba}), "");
  EXPECT_EQ(unison::suite::add_rows_to_json("", {numba}), "");
}

TEST(Suite, checks) {
  std::vector<Row> rows{
      row("elementwise", "hypot/1e6/device", "OpenMP", 1e-4, 0, 120, 0),
      row("elementwise", "hypot/1e6/device", "Cuda", 9e-6, 0, 120, 0),
      row("histogram", "histogram/f32/1e8/bins100", "Cuda", 0.2e-3, 0, 2000, 0),
      row("examples", "lucas/40", "Cuda", 6e-6, 0, 0, 0),
  };
  const auto check = [&](std::size_t i, double error, double tolerance) {
    rows[i].checked = true;
    rows[i].error = error;
    rows[i].tolerance = tolerance;
  };
  check(0, 3.1e-8, 1e-5);
  check(1, 2e-3, 1e-5);
  check(2, 0, 0);  // exact: passes at 0
  EXPECT_EQ(unison::suite::check_text(rows[0]), "ok 3.1e-08");
  EXPECT_EQ(unison::suite::check_text(rows[1]), "FAIL 0.002 > 1e-05");
  EXPECT_EQ(unison::suite::check_text(rows[2]), "ok 0");
  EXPECT_EQ(unison::suite::check_text(rows[3]), "");  // not checked
  EXPECT_TRUE(rows[3].passed());
  Row off = rows[2];
  off.error = 1;  // one value miscounted against an exact reference
  EXPECT_FALSE(off.passed());
  // A check that judged another call than the timed one fails, whatever its error.
  Row other = rows[0];
  other.as_timed = false;
  EXPECT_FALSE(other.passed());
  EXPECT_EQ(unison::suite::check_text(other), "FAIL not the timed call");
  EXPECT_EQ(unison::suite::check_summary({other})[0],
            "hypot/1e6/device on OpenMP: the check judged other calls than the timed one");

  const auto summary = unison::suite::check_summary(rows);
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0], "hypot/1e6/device on Cuda: error 0.002 > tolerance 1e-05");
  EXPECT_EQ(summary[1], "checks against the float64 reference: 2 passed, 1 failed, 1 without one");

  std::ostringstream table;
  unison::suite::write_table(table, rows, {"OpenMP", "Cuda"});
  const std::string t = table.str();
  for (const char* s : {"ok 3.1e-08", "FAIL 0.002 > 1e-05",
                        "checks against the float64 reference: 2 passed, 1 failed"})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  // lucas, not checked, has no check line: its time line is followed by the summary's blank line.
  const auto lucas = t.find("  lucas/40");
  ASSERT_NE(lucas, std::string::npos);
  EXPECT_EQ(t.substr(t.find('\n', lucas) + 1, 1), "\n") << t;

  std::ostringstream csv;
  unison::suite::write_csv(csv, rows);
  const std::string c = csv.str();
  EXPECT_NE(c.find("\"hypot/1e6/"
                   "device\",\"Cuda\",9e-06,0.0000,120,0,\"\",0.0000,\"fail\",0.002,1e-05,\"\","
                   "\"hypot\",\"workload\",0,0,0\n"),
            std::string::npos)
      << c;
  EXPECT_NE(
      c.find(
          "\"histogram/f32/1e8/bins100\",\"Cuda\",0.0002,0.0000,2000,0,\"\",0.0000,\"pass\",0,0,"),
      std::string::npos)
      << c;
  EXPECT_NE(c.find("\"lucas/40\",\"Cuda\",6e-06,0.0000,0,0,\"\",0.0000,\"\",0,0,"),
            std::string::npos)
      << c;
}

TEST(Suite, peers) {
  using unison::suite::PeerScript;
  const auto scripts = unison::suite::peer_scripts({"elementwise", "diffusion", "histogram"});
  ASSERT_EQ(scripts.size(), 6u);
  // The plain C loops first, with the chosen workloads that have a part there, in report order.
  EXPECT_EQ(scripts[0].script, "unison-plain-c");
  EXPECT_EQ(scripts[0].args,
            (std::vector<std::string>{"elementwise", "diffusion", "histogram", "--scale=1"}));
  EXPECT_EQ(scripts[1].script, "elementwise_peers.py");
  // Unison from Python: once, with the parts of both of its families.
  EXPECT_EQ(scripts[2].script, "python_peers.py");
  EXPECT_EQ(scripts[2].args, (std::vector<std::string>{"elementwise", "histogram", "--scale=1"}));
  EXPECT_EQ(scripts[3].script, "stencil_peers.py");
  EXPECT_EQ(scripts[3].args, (std::vector<std::string>{"gpu", "cpu", "--scale=1"}));
  EXPECT_EQ(scripts[4].script, "histogram_peers.py");
  EXPECT_EQ(scripts[4].args, (std::vector<std::string>{"--scale=1"}));
  // The GPU libraries called directly (run only where the Cuda backend is), with their parts.
  EXPECT_EQ(scripts[5].script, "unison-cuda-c");
  EXPECT_EQ(scripts[5].args, (std::vector<std::string>{"histogram", "--scale=1"}));
  // The size sweep: python_peers.py's crossover part, only with the element-wise family.
  const auto sweep = unison::suite::peer_scripts({"elementwise"}, 0.5, true);
  ASSERT_EQ(sweep.size(), 3u);
  EXPECT_EQ(sweep[2].args, (std::vector<std::string>{"elementwise", "crossover", "--scale=0.5"}));
  // One program for two families: unison-cuda-c once, with both parts.
  const auto counting_sweep =
      unison::suite::peer_scripts({"random", "histogram", "examples"}, 1, true);
  ASSERT_EQ(counting_sweep.size(), 5u);
  EXPECT_EQ(counting_sweep[0].args, (std::vector<std::string>{"histogram", "--scale=1"}));
  EXPECT_EQ(counting_sweep[1].script, "random_peers.py");
  EXPECT_EQ(counting_sweep[2].script, "unison-cuda-c");
  EXPECT_EQ(counting_sweep[2].args, (std::vector<std::string>{"random", "histogram", "--scale=1"}));
  EXPECT_EQ(counting_sweep[3].script, "histogram_peers.py");
  EXPECT_EQ(counting_sweep[4].args, (std::vector<std::string>{"histogram", "--scale=1"}));
  // The sweep past the caches: the peers that have its sizes take the part "sizes".
  const auto sizes =
      unison::suite::peer_scripts({"elementwise", "diffusion", "histogram"}, 1, false, true);
  ASSERT_EQ(sizes.size(), 6u);
  EXPECT_EQ(sizes[0].args, (std::vector<std::string>{"elementwise", "diffusion", "histogram",
                                                     "sizes", "--scale=1"}));
  EXPECT_EQ(sizes[2].args, (std::vector<std::string>{"elementwise", "histogram", "--scale=1"}));
  EXPECT_EQ(sizes[3].args, (std::vector<std::string>{"gpu", "cpu", "sizes", "--scale=1"}));
  EXPECT_EQ(sizes[5].args, (std::vector<std::string>{"histogram", "sizes", "--scale=1"}));
  const auto convolve_sizes = unison::suite::peer_scripts({"convolve"}, 1, false, true);
  ASSERT_EQ(convolve_sizes.size(), 2u);
  EXPECT_EQ(convolve_sizes[0].args, (std::vector<std::string>{"convolve", "sizes", "--scale=1"}));
  EXPECT_EQ(convolve_sizes[1].args, (std::vector<std::string>{"convolve", "--scale=1"}));
  const auto convolve = unison::suite::peer_scripts({"convolve"}, 0.01);
  ASSERT_EQ(convolve.size(), 2u);
  EXPECT_EQ(convolve[0].args, (std::vector<std::string>{"convolve", "--scale=0.01"}));
  EXPECT_EQ(convolve[1].args, (std::vector<std::string>{"convolve", "--scale=0.01"}));
  const auto rowwise = unison::suite::peer_scripts({"rowwise", "matmul"});  // no plain C loops
  ASSERT_EQ(rowwise.size(), 3u);
  EXPECT_EQ(rowwise[0].script, "rowwise_peers.py");
  EXPECT_EQ(rowwise[2].script, "unison-cuda-c");
  EXPECT_EQ(rowwise[2].args, (std::vector<std::string>{"matmul", "--scale=1"}));
  EXPECT_EQ(unison::suite::peer_scripts(unison::bench::workload_names()).size(), 9u);
  // The scale as the scripts read it back: the same double, so the same sizes and case names.
  EXPECT_EQ(unison::suite::exact_text(1e-3), "0.001");
  EXPECT_EQ(unison::suite::exact_text(0.25), "0.25");
  for (const double f : {1.0 / 3, 0.1 + 0.2, 2.0 / 7, 1e-3 * 3})
    EXPECT_EQ(std::strtod(unison::suite::exact_text(f).c_str(), nullptr), f)
        << unison::suite::exact_text(f);

  std::istringstream csv(
      "histogram/f32/1e8/bins100,numba_cuda,0.0233,1078,0\n"
      "histogram/f32/1e8/bins100,cupy,0.00117,0,0\r\n"
      "diffusion/every_step/streaming/2000x2000,numba_cuda,4.5e-05,,\n"
      "\n"
      "fft/1d,numpy,0.1,,\n"                       // no such case in the run: left out
      "histogram/f32/1e8/bins100,numpy,x,0,0\n"    // no time: refused
      "histogram/f32/1e8/bins100,numpy,0.5,0\n");  // four fields: refused
  std::string error;
  int not_in_run = -1;
  const std::map<std::string, unison::suite::CaseKind> manifest{
      {"histogram/f32/1e8/bins100", {"histogram", "histogram", Kind::workload}},
      {"diffusion/every_step/streaming/2000x2000", {"diffusion", "diffusion", Kind::workload}}};
  auto peers = unison::suite::read_peer_rows(csv, manifest, error, not_in_run);
  ASSERT_EQ(peers.size(), 3u);
  EXPECT_EQ(not_in_run, 1);
  EXPECT_NE(error.find("line 7 is not case,peer,seconds,error,tolerance"), std::string::npos)
      << error;
  EXPECT_TRUE(peers[0].peer);
  EXPECT_EQ(peers[0].workload, "histogram");
  EXPECT_EQ(peers[0].backend, "numba_cuda");
  EXPECT_DOUBLE_EQ(peers[0].median_s, 0.0233);
  EXPECT_TRUE(peers[0].checked);
  EXPECT_FALSE(peers[0].passed());  // 1078 values off an exact count
  EXPECT_TRUE(peers[1].passed());
  EXPECT_FALSE(peers[2].checked);
  EXPECT_EQ(peers[2].workload, "diffusion");

  // Beside Unison's rows: a peer column only where the peer has results, the fastest peer over
  // Unison's fastest, and the peers' checks counted apart from Unison's (not failing the run).
  std::vector<Row> rows{
      row("histogram", "histogram/f32/1e8/bins100", "OpenMP", 40e-3, 0, 10, 0),
      row("histogram", "histogram/f32/1e8/bins100", "Cuda", 0.2e-3, 0, 2000, 0),
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "Cuda", 15e-6, 0, 3200, 0),
      row("elementwise", "hypot/1e6/device", "Cuda", 9e-6, 0, 120, 0),
  };
  rows[1].checked = true;
  rows.insert(rows.end(), peers.begin(), peers.end());
  std::ostringstream table;
  unison::suite::write_table(table, rows, {"OpenMP", "Cuda", "numba_cuda", "cupy"});
  const std::string t = table.str();
  const auto section = [&](const std::string& name) {
    const auto at = t.find("\n" + name + "\n");
    return at == std::string::npos ? std::string() : t.substr(at, t.find("\n\n", at + 1) - at);
  };
  const std::string histogram = section("histogram"), diffusion = section("diffusion"),
                    elementwise = section("elementwise");
  for (const char* s :
       {"numba_cuda", "cupy", "peer/best", "5.85x", "23.3 ms", "1.17 ms", "FAIL 1.1e+03 > 0"})
    EXPECT_NE(histogram.find(s), std::string::npos) << s << "\n" << t;
  EXPECT_NE(diffusion.find("numba_cuda"), std::string::npos) << t;
  EXPECT_NE(diffusion.find("3x"), std::string::npos) << t;  // 45 us against 15 us
  EXPECT_EQ(diffusion.find("cupy"), std::string::npos) << t;
  EXPECT_EQ(elementwise.find("numba_cuda"), std::string::npos) << t;
  EXPECT_EQ(elementwise.find("peer/best"), std::string::npos) << t;
  const auto summary = unison::suite::check_summary(rows);
  ASSERT_EQ(summary.size(), 1u) << summary[0];
  EXPECT_EQ(summary[0],
            "checks against the float64 reference: 1 passed, 0 failed, 3 without one (the peers' "
            "results: 1 passed, 1 failed)");
}

TEST(Suite, plain_c_ratio) {
  // OpenMP against the plain C loops of the same case: their time over OpenMP's (above 1,
  // Unison is faster); a "-" where either is missing.
  std::vector<Row> rows{row("histogram", "histogram/f32/1e8/bins100", "OpenMP", 40e-3, 0, 10, 0),
                        row("histogram", "histogram/f32/1e8/bins100", "plain_c", 30e-3, 0, 13, 0),
                        row("random", "monte_carlo_pi/2e9", "OpenMP", 0.1, 0, 0, 0)};
  rows[1].peer = true;
  std::ostringstream table;
  unison::suite::write_table(table, rows, {"OpenMP", "plain_c"});
  const std::string t = table.str();
  EXPECT_NE(t.find("OpenMP/plain_c"), std::string::npos) << t;
  const auto line = [&](const std::string& name) {
    const auto at = t.find("  " + name);
    return t.substr(at, t.find('\n', at) - at);
  };
  EXPECT_NE(line("histogram/f32/1e8/bins100").find("0.75x"), std::string::npos) << t;
  EXPECT_EQ(line("monte_carlo_pi/2e9").find("x "), std::string::npos) << t;
  std::ostringstream without;
  unison::suite::write_table(without, {rows[0]}, {"OpenMP"});
  EXPECT_EQ(without.str().find("plain_c"), std::string::npos) << without.str();
}

TEST(Suite, python_columns) {
  // Unison's kernels called from Python: their columns beside the backends', the Python call's
  // time over the C++ call's, and not a peer: peer/best stays the real peers' against Unison's.
  std::vector<Row> rows{
      row("elementwise", "gaussian_pdf/1e8/device", "Cuda", 1e-3, 0, 800, 0),
      row("elementwise", "gaussian_pdf/1e8/device", "python_cuda", 1.02e-3, 0, 0, 0),
      row("elementwise", "gaussian_pdf/1e8/device", "cupy", 2e-3, 0, 0, 0),
      row("elementwise", "hypot/1e6/device", "OpenMP", 20e-6, 0, 0, 0),
      row("elementwise", "hypot/1e6/device", "python_openmp", 25e-6, 0, 0, 0)};
  for (auto& r : rows) r.peer = r.backend != "Cuda" && r.backend != "OpenMP";
  std::ostringstream table;
  unison::suite::write_table(table, rows,
                             {"OpenMP", "Cuda", "python_openmp", "python_cuda", "cupy"});
  const std::string t = table.str();
  for (const char* s : {"Cuda/python_cuda", "OpenMP/python_openmp", "peer/best"})
    EXPECT_NE(t.find(s), std::string::npos) << s << "\n" << t;
  const auto line = [&](const std::string& name) {
    const auto at = t.find("  " + name);
    return t.substr(at, t.find('\n', at) - at);
  };
  const std::string pdf = line("gaussian_pdf/1e8/device"), hyp = line("hypot/1e6/device");
  EXPECT_NE(pdf.find("1.02x"), std::string::npos) << t;  // Python's time over C++'s
  EXPECT_NE(pdf.find(" 2x"), std::string::npos) << t;    // cupy over Cuda, not over Python
  EXPECT_NE(hyp.find("1.25x"), std::string::npos) << t;
  EXPECT_EQ(hyp.substr(hyp.rfind(' ') + 1), "-") << t;  // no peer here: python_openmp is not one
}

TEST(Suite, report) {
  std::vector<Row> rows{
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "OpenMP", 250e-6, 0.05, 192, 0),
      row("histogram", "histogram/f32/1e8/bins100", "OpenMP", 40e-3, 0.1, 10, 0),
      row("histogram", "histogram/f32/1e8/bins100", "numba_cpu", 60e-3, 0.1, 0, 0),
  };
  rows[0].checked = true, rows[0].error = 2e-6, rows[0].tolerance = 1e-5;
  rows[1].checked = true, rows[1].error = 3, rows[1].tolerance = 0;  // a failed check
  rows[2].peer = true;
  rows[2].note = "a <note> & more";
  rows[1].headline = rows[2].headline = true;
  std::ostringstream html;
  unison::suite::write_report(
      html, rows, {"OpenMP", "numba_cpu"}, {{"CPU", "a <fast> one"}},
      {{"diffusion.png", unison::suite::base64("PNG")},
       {"headline.svg", "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg id=\"h\"></svg>\n"},
       {"roofline_OpenMP.svg", "<svg id=\"r\"></svg>"},
       {"times_histogram.svg", "<svg id=\"t\"></svg>"},
       {"other.svg", "<svg id=\"o\"></svg>"}});
  const std::string h = html.str();
  // First the headline chart (inline, without its XML prologue) and the findings, then the
  // roofline, the checks and the machine; each family's figure after its table; the rest last.
  const auto at = [&](const std::string& s) {
    const auto i = h.find(s);
    EXPECT_NE(i, std::string::npos) << s << "\n" << h;
    return i;
  };
  EXPECT_LT(
      at("<figure class=\"plot\" data-name=\"headline.svg\" id=\"headline-chart\"><svg id=\"h\">"),
      at("<ul class=\"findings\">"));
  EXPECT_EQ(h.find("<?xml"), std::string::npos);
  EXPECT_LT(at("<ul class=\"findings\">"), at("<svg id=\"r\">"));
  EXPECT_LT(at("<svg id=\"r\">"), at("<h2>Checks</h2>"));
  EXPECT_LT(at("<h2>Checks</h2>"), at("<h2 id=\"machine\">"));
  EXPECT_LT(at("data-family=\"histogram\""), at("<svg id=\"t\">"));
  EXPECT_LT(at("data-family=\"diffusion\""), at("src=\"data:image/png;base64,UE5H\""));
  EXPECT_LT(at("src=\"data:image/png;base64,UE5H\""), at("data-family=\"histogram\""));
  EXPECT_LT(at("<h2 id=\"plots\">"), at("<svg id=\"o\">"));
  EXPECT_NE(h.find("the fastest peer, numba_cpu"), std::string::npos) << h;
  // A table per family in the rows' order, its times, checks, the peer's column and the notes
  // escaped, the machine, the image embedded; one self-contained page.
  const auto diffusion = h.find("<table class=\"family\" data-family=\"diffusion\">"),
             histogram = h.find("<table class=\"family\" data-family=\"histogram\">");
  ASSERT_NE(diffusion, std::string::npos) << h;
  ASSERT_NE(histogram, std::string::npos) << h;
  EXPECT_LT(diffusion, histogram);
  EXPECT_NE(h.find("<td>250 us ±5%"), std::string::npos) << h;
  EXPECT_NE(h.find("class=\"ok\">ok 2e-06"), std::string::npos) << h;
  EXPECT_NE(h.find("class=\"fail\">FAIL 3 &gt; 0"), std::string::npos) << h;
  EXPECT_NE(h.find("<th>numba_cpu</th>"), std::string::npos) << h;
  EXPECT_NE(h.find("a &lt;note&gt; &amp; more"), std::string::npos) << h;
  EXPECT_NE(h.find("a &lt;fast&gt; one"), std::string::npos) << h;
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(h.find("</html>"), std::string::npos);
}

TEST(Suite, headline) {
  std::vector<Row> rows{
      row("elementwise", "gaussian_pdf/1e8/device", "Serial", 400e-3, 0, 0, 0),
      row("elementwise", "gaussian_pdf/1e8/device", "OpenMP", 40e-3, 0, 0, 0),
      row("elementwise", "gaussian_pdf/1e8/device", "Cuda", 0.5e-3, 0, 0, 0),
      row("elementwise", "gaussian_pdf/1e8/device", "cupy", 0.4e-3, 0, 0, 0),
      row("elementwise", "gaussian_pdf/1e8/device", "numpy", 500e-3, 0, 0, 0),
      row("elementwise", "gaussian_pdf/1e8/device", "numba_cpu", 100e-3, 0, 0, 0),
      row("elementwise", "gaussian_pdf/1e8/device", "python_cuda", 0.6e-3, 0, 0, 0),
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "OpenMP", 300e-6, 0, 0, 0),
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "Cuda", 15e-6, 0, 0, 0),
      row("diffusion", "diffusion/every_step/streaming/2000x2000", "numba_cpu", 600e-6, 0, 0, 0),
      row("random", "monte_carlo_pi/2e9", "OpenMP", 0.2, 0, 0, 0),
      row("elementwise", "hypot/1e6/device", "OpenMP", 10e-6, 0, 0, 0),  // not in the headline
      row("elementwise", "hypot/1e6/device", "Cuda", 20e-6, 0, 0, 0),
  };
  for (Row& r : rows) {
    r.headline = r.name.rfind("hypot", 0) != 0;
    r.peer = r.backend != "Serial" && r.backend != "OpenMP" && r.backend != "Cuda";
  }
  rows[3].checked = true, rows[3].error = 1, rows[3].tolerance = 0;  // cupy's check failed
  rows[1].checked = true, rows[1].error = 0, rows[1].tolerance = 1e-5;
  const auto head = unison::suite::headline(rows);
  ASSERT_EQ(head.size(), 3u);
  // In the rows' order; the bars in the fixed order, each the baseline's time over its own.
  EXPECT_EQ(head[0].name, "gaussian_pdf/1e8/device");
  EXPECT_EQ(head[0].baseline, "numpy");
  std::vector<std::string> order;
  for (const auto& b : head[0].bars) order.push_back(b.implementation);
  EXPECT_EQ(order, (std::vector<std::string>{"Serial", "OpenMP", "Cuda", "python_cuda", "numpy",
                                             "numba_cpu", "cupy"}));
  EXPECT_DOUBLE_EQ(head[0].bars[2].speedup, 1000);
  EXPECT_TRUE(head[0].bars[6].failed);
  EXPECT_FALSE(head[0].bars[1].failed);
  // No NumPy form: over the tutorial's Numba code on the CPU; else over Serial, else the first.
  EXPECT_EQ(head[1].baseline, "numba_cpu");
  EXPECT_DOUBLE_EQ(head[1].bars[1].speedup, 40);
  EXPECT_EQ(head[2].baseline, "OpenMP");
  EXPECT_EQ(
      unison::suite::headline_text(head[1]),
      "diffusion, diffusion/every_step/streaming/2000x2000 (numba_cpu 600 us = 1x): OpenMP 2x, "
      "Cuda 40x");
  EXPECT_NE(unison::suite::headline_text(head[0]).find("cupy 1250x FAILED"), std::string::npos)
      << unison::suite::headline_text(head[0]);
  const auto f = unison::suite::findings(rows);
  std::string all;
  for (const auto& line : f) all += line + "\n";
  // The largest GPU-over-CPU ratio, where the CPU is faster, Unison against the fastest peer
  // (Python's calls of Unison are not peers), the checks.
  for (const char* s :
       {"The GPU is up to 80x faster than the CPU's fastest backend: gaussian_pdf/1e8/device, 500 "
        "us "
        "on Cuda against 40 ms on OpenMP.",
        "The CPU is faster on 1 of the 3 workload cases both ran, most on hypot/1e6/device",
        "elementwise (gaussian_pdf/1e8/device): Unison on Cuda (500 us) is 1.25x slower than the "
        "fastest peer, cupy (400 us), whose check failed.",
        "diffusion (diffusion/every_step/streaming/2000x2000): Unison on Cuda (15 us) is 40x "
        "faster "
        "than the fastest peer, numba_cpu (600 us).",
        "All 1 of Unison's checks against the float64 reference passed.",
        "1 of the peers' results failed their check: gaussian_pdf/1e8/device on cupy."})
    EXPECT_NE(all.find(s), std::string::npos) << s << "\n" << all;
  EXPECT_EQ(all.find("random ("), std::string::npos) << all;  // no peer: no sentence
  // The table starts with the headline and the findings.
  std::ostringstream t;
  unison::suite::write_table(t, rows, {"Serial", "OpenMP", "Cuda"});
  EXPECT_EQ(t.str().find("\nHeadline: "), 0u) << t.str();
  EXPECT_LT(t.str().find("Findings:"), t.str().find("\nelementwise\n")) << t.str();
  // A failed check of Unison's is named.
  rows[1].error = 1;
  all.clear();
  for (const auto& line : unison::suite::findings(rows)) all += line + "\n";
  EXPECT_NE(all.find("1 of Unison's 1 checks against the float64 reference FAILED: "
                     "gaussian_pdf/1e8/device on OpenMP."),
            std::string::npos)
      << all;
}

TEST(Suite, base64) {  // RFC 4648's test vectors
  const char* vectors[][2] = {{"", ""},
                              {"f", "Zg=="},
                              {"fo", "Zm8="},
                              {"foo", "Zm9v"},
                              {"foob", "Zm9vYg=="},
                              {"fooba", "Zm9vYmE="},
                              {"foobar", "Zm9vYmFy"}};
  for (const auto& v : vectors) EXPECT_EQ(unison::suite::base64(v[0]), v[1]) << v[0];
  EXPECT_EQ(unison::suite::base64(std::string("\xff\x00\x80", 3)), "/wCA");
}
