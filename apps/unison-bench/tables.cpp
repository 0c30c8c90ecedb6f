// The terminal table and report.html: the same sections, one family each.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>

#include "harness/workloads.hpp"
#include "headline.hpp"
#include "roofline.hpp"

namespace unison::suite {

namespace {

// A speedup: three significant digits ("16.7x", "267x"), whole above 1000 ("4724x").
std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, r < 1000 ? "%.3gx" : "%.0fx", r);
  return buf;
}

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
  const auto head = headline(rows);
  if (!head.empty()) {
    out << "\nHeadline: each family's seed-size case, every implementation's speedup over NumPy "
           "(where NumPy did not run it, over numba_cpu, else Serial)\n";
    for (const auto& c : head) out << "  " << headline_text(c) << "\n";
    out << "Findings:\n";
    for (const auto& line : findings(rows)) out << "  " << line << "\n";
  }
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

namespace {
// A figure of plot.py, embedded: an SVG inline (its XML prologue left out), a PNG as a data: URL;
// `id` names the figure element.
void write_figure(std::ostream& out, const Figure& f, const std::string& id = "") {
  out << "<figure class=\"plot\" data-name=\"" << html_escaped(f.name) << "\""
      << (id.empty() ? "" : " id=\"" + id + "\"") << ">";
  if (f.name.size() > 4 && f.name.compare(f.name.size() - 4, 4, ".svg") == 0) {
    const auto at = f.content.find("<svg");
    out << (at == std::string::npos ? std::string() : f.content.substr(at));
  } else {
    // (drawn at twice the pixels of the page's width: shown scaled down, at twice the density)
    out << "<img alt=\"" << html_escaped(f.name)
        << "\" style=\"max-width:100%\" src=\"data:image/png;base64," << f.content << "\">";
  }
  out << "</figure>\n";
}
}  // namespace

void write_report(std::ostream& out, const std::vector<Row>& rows,
                  const std::vector<std::string>& backends,
                  const std::vector<std::pair<std::string, std::string>>& about,
                  const std::vector<Figure>& figures) {
  std::vector<bool> shown(figures.size(), false);
  // The figures named `name` (a prefix where it ends in '*'), each once.
  const auto show = [&](const std::string& name, const std::string& id = "") {
    const bool prefix = !name.empty() && name.back() == '*';
    const std::string stem = prefix ? name.substr(0, name.size() - 1) : name;
    bool any = false;
    for (std::size_t i = 0; i < figures.size(); ++i) {
      const bool match = prefix ? figures[i].name.rfind(stem, 0) == 0 : figures[i].name == stem;
      if (shown[i] || !match) continue;
      write_figure(out, figures[i], id);
      shown[i] = any = true;
    }
    return any;
  };
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<title>unison-bench report</title>\n<style>\n"
         "body{font-family:sans-serif;margin:1em 2em;color:#222}\n"
         "h1{font-size:1.4em;margin:0.2em 0}\n"
         "table{border-collapse:collapse;margin:0.5em 0 1em}\n"
         "th,td{border:1px solid #bbb;padding:0.25em "
         "0.6em;text-align:right;vertical-align:top;white-space:nowrap}\n"
         "th:first-child,td:first-child{text-align:left;font-family:monospace}\n"
         "th{background:#e8eef6}\n"
         "td small{color:#555;display:block}\n"
         ".fail{color:#b00;font-weight:bold}\n"
         ".ok{color:#070}\n"
         "figure{margin:0.5em 0}\n"
         "figure svg{max-width:100%;height:auto}\n"
         "ul.findings{margin:0.3em 0;padding-left:1.2em;max-width:75em}\n"
         "</style>\n</head>\n<body>\n<h1>unison-bench</h1>\n";
  // The headline: the chart, the findings; without plots, the chart's numbers as text.
  const auto head = headline(rows);
  if (!head.empty()) {
    out << "<section id=\"headline\">\n";
    if (!show("headline.svg", "headline-chart")) {
      out << "<ul class=\"headline\">\n";
      for (const auto& c : head) out << "<li>" << html_escaped(headline_text(c)) << "</li>\n";
      out << "</ul>\n";
    }
    out << "<ul class=\"findings\">\n";
    for (const auto& line : findings(rows)) out << "<li>" << html_escaped(line) << "</li>\n";
    out << "</ul>\n</section>\n";
  }
  bool roofline = false;
  for (const auto& f : figures) roofline = roofline || f.name.rfind("roofline", 0) == 0;
  if (roofline) {
    out << "<h2 id=\"roofline\">Roofline</h2>\n";
    show("roofline*");
  }
  out << "<h2>Checks</h2>\n<ul>\n";
  for (const auto& line : check_summary(rows)) out << "<li>" << html_escaped(line) << "</li>\n";
  out << "</ul>\n";
  out << "<h2 id=\"machine\">Machine and versions</h2>\n<table class=\"about\">\n";
  for (const auto& [key, value] : about)
    out << "<tr><td>" << html_escaped(key) << "</td><td style=\"text-align:left\">"
        << html_escaped(value) << "</td></tr>\n";
  out << "</table>\n<p>Times per call (a diffusion case: per step), median of the repetitions ± "
         "their "
         "spread; under each, the rate and its fraction of the same run's peak (for memory, the "
         "fastest stream at the level the case's working set fits in: L2, L3 or DRAM; FMA for "
         "arithmetic) "
         "and the check against the float64 reference. Speedup columns: X/Y is Y's time over "
         "X's (above 1, X is faster; Cuda/python_cuda: what the Python call costs beyond the C++ "
         "call); peer/best: the fastest peer's time over Unison's "
         "fastest (above 1, Unison is faster).</p>\n";
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
    // The family's figures: its times; the crossover's lines; the diffusion's fields.
    show("times_" + sec.workload + ".svg");
    if (sec.workload == "crossover") show("crossover.svg");
    for (const auto& w : unison::bench::workloads())
      if (w.name == sec.workload)
        for (const auto& figure : w.figures) show(figure);
  }
  if (std::find(shown.begin(), shown.end(), false) != shown.end()) {
    out << "<h2 id=\"plots\">Plots</h2>\n";
    for (std::size_t i = 0; i < figures.size(); ++i)
      if (!shown[i]) write_figure(out, figures[i]);
  }
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

}  // namespace unison::suite
