#include "outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include <sys/wait.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/enabled.hpp>
#include <unison/diffusion.hpp>
#include <unison/field.hpp>
#include <unison/npy.hpp>

#include "cases/common.hpp"
#include "environment.hpp"

namespace unison::suite {

namespace {

// plot.py: next to an installed unison-bench (<prefix>/share/unison), else the source tree's.
std::string plot_script() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "unison" / "plot.py";
    if (std::filesystem::exists(installed, ec)) return installed.string();
  }
  return UNISON_SUITE_PLOT_SCRIPT;
}

// The tutorial's pictures of the diffusion workload, as .npy files that plot.py draws: the
// jagged field, the field after the seed run's 10,000 steps (coeff 0.25; both scaled with the
// suite's sizes) and its Laplacian.
template <class Exec>
void diffusion_images(const std::string& out) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  const long n = long(unison::bench::scaled(2000, 3, 2));
  const std::int64_t steps = unison::bench::scaled(10000);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> f(
      Kokkos::view_alloc(exec, std::string("unison::bench::image_field")), n, n),
      lapl(Kokkos::view_alloc(exec, std::string("unison::bench::image_lapl")), n, n);
  unison::jagged_field(exec, f);
  unison::write_npy(out + "/diffusion_initial.npy", f);
  unison::diffuse(exec, f, steps, 0.25, lapl, unison::Laplacian::final_only);
  unison::write_npy(out + "/diffusion_field.npy", f);
  unison::write_npy(out + "/diffusion_laplacian.npy", lapl);
  std::fprintf(stderr, "unison-bench: diffusion images (%ldx%ld, %lld steps on %s) in %s\n", n, n,
               static_cast<long long>(steps), Exec::name(), out.c_str());
}

// The figures plot.py writes that are in `out`, in name order: headline.svg, roofline_*.svg,
// times_*.svg, crossover.svg, diffusion.png.
std::vector<std::string> figure_files(const std::filesystem::path& out) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(out, ec)) {
    const std::string name = entry.path().filename().string();
    const auto ends = [&](const char* tail) {
      const std::string t = tail;
      return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
    };
    if (name == "headline.svg" || name == "crossover.svg" || name == "diffusion.png" ||
        ((name.rfind("roofline_", 0) == 0 || name.rfind("times_", 0) == 0) && ends(".svg")))
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

void print_table(const std::vector<Row>& rows, const std::vector<std::string>& columns) {
  std::cout << "CPUs: " << cpus_line() << "\n";
  std::cout << "CPU vectors: " << unison::bench::cpu_vectors() << "\n";
  if (!openmp_line().empty()) std::cout << "OpenMP threads: " << openmp_line() << "\n";
  if (!threads_warning().empty()) std::cout << "WARNING: " << threads_warning() << "\n";
  if (!host_blas_line().empty()) std::cout << "host BLAS: " << host_blas_line() << "\n";
  unison::suite::write_table(std::cout, rows, columns);
  if (std::any_of(rows.begin(), rows.end(), [](const auto& r) {
        return r.name.find("/seed_run/") != std::string::npos &&
               r.name.find("/steps") != std::string::npos;
      }))
    std::cout
        << "\nA seed run named \"/steps<N>\" ran N of its 10,000 steps: all of them take more "
           "than 5 s a call here (--full runs them).\n";
}

bool write_results(const std::filesystem::path& out, const std::string& json,
                   const std::vector<Row>& rows,
                   const std::vector<std::pair<std::string, std::string>>& about,
                   const MemoryLevels& levels) {
  std::ofstream csv(out / "unison_bench.csv");
  unison::suite::write_csv(csv, rows, about);
  csv.close();
  std::ofstream ceilings(out / "ceilings.csv");
  unison::suite::write_ceilings_csv(ceilings, rows, levels);
  ceilings.close();
  for (const auto& [file, ok] : {std::pair<const char*, bool>{"unison_bench.csv", bool(csv)},
                                 {"ceilings.csv", bool(ceilings)}})
    if (!ok) {
      std::fprintf(stderr, "unison-bench: cannot write %s\n", (out / file).string().c_str());
      return false;
    }
  // The peers' results (the plain C loops' included) join Unison's in the JSON.
  if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.peer; })) {
    std::vector<unison::suite::Row> peers_of_json;
    for (const auto& r : rows)
      if (r.peer) peers_of_json.push_back(r);
    std::ifstream in(json);
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    const std::string joined = unison::suite::add_rows_to_json(text.str(), peers_of_json);
    std::ofstream again(json);
    again << joined;
    again.close();
    if (joined.empty() || !again) {
      std::fprintf(stderr, "unison-bench: cannot add the peers' results to %s\n", json.c_str());
      return false;
    }
  }
  std::cout << "\nunison-bench: " << rows.size() << " results in " << json << " and "
            << (out / "unison_bench.csv").string() << "\n"
            << std::flush;
  return true;
}

// On the last backend chosen (Cuda where it is, else the CPU's widest).
void diffusion_images(const std::string& out, const std::string& backend) {
  unison::backends::for_each_enabled_space([&](auto tag) {
    using Exec = typename decltype(tag)::type;
    if (backend == Exec::name()) diffusion_images<Exec>(out);
  });
}

// report.html in out: the rows, `about`, and the plots that draw_plots wrote (embedded).
bool write_report_file(const std::filesystem::path& out,
                       const std::vector<unison::suite::Row>& rows,
                       const std::vector<std::string>& columns,
                       const std::vector<std::pair<std::string, std::string>>& about) {
  std::vector<Figure> figures;
  for (const auto& name : figure_files(out)) {
    std::ifstream in(out / name, std::ios::binary);
    if (!in) continue;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const bool svg = name.size() > 4 && name.compare(name.size() - 4, 4, ".svg") == 0;
    figures.push_back({name, svg ? bytes.str() : unison::suite::base64(bytes.str())});
  }
  std::ofstream html(out / "report.html");
  write_report(html, rows, columns, about, figures);
  html.close();
  if (!html) {
    std::fprintf(stderr, "unison-bench: cannot write %s\n", (out / "report.html").string().c_str());
    return false;
  }
  std::fprintf(stderr, "unison-bench: report in %s (%zu plots embedded)\n",
               (out / "report.html").string().c_str(), figures.size());
  return true;
}

// Draws the plots; says what happened (a missing Python or matplotlib is not an error).
void draw_plots(const std::string& out) {
  std::error_code ec;
  for (const auto& name : figure_files(out)) std::filesystem::remove(out + "/" + name, ec);
  std::filesystem::remove(out + "/plotted.json", ec);  // (the data the figures draw)
  const std::string script = plot_script();
  std::string why;
  const std::string python = find_python("matplotlib", why);
  if (python.empty()) {
    std::fprintf(stderr, "unison-bench: no plots: %s\n", why.c_str());
    return;
  }
  const std::string command =
      shell_quoted(python) + " " + shell_quoted(script) + " " + shell_quoted(out);
  const int status = std::system(command.c_str());
  const int code = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0) return;  // plot.py said what it wrote
  if (code == 3) std::fprintf(stderr, "unison-bench: no plots: python3 has no matplotlib\n");
  else if (code == 127) std::fprintf(stderr, "unison-bench: no plots: python3 not found\n");
  else std::fprintf(stderr, "unison-bench: no plots: %s failed (exit %d)\n", script.c_str(), code);
}

}  // namespace unison::suite
