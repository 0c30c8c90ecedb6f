
#include "peers.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <sstream>

namespace unison::suite {

std::string exact_text(double x) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::vector<PeerScript> peer_scripts(const std::vector<std::string>& chosen, double scale,
                                     bool crossover, bool sizes) {
  const auto wanted = [&](const std::string& w) {
    return std::find(chosen.begin(), chosen.end(), w) != chosen.end();
  };
  std::vector<PeerScript> scripts;
  PeerScript plain{"unison-plain-c", {}};
  for (const auto& w : unison::bench::workloads())
    if (w.plain_c && wanted(w.name)) plain.args.push_back(w.name);
  if (!plain.args.empty()) scripts.push_back(plain);
  for (const auto& w : unison::bench::workloads()) {
    if (!wanted(w.name)) continue;
    for (const auto& peer : w.peers) {
      auto same = std::find_if(scripts.begin(), scripts.end(),
                               [&](const PeerScript& s) { return s.script == peer.script; });
      if (same == scripts.end()) same = scripts.insert(scripts.end(), {peer.script, {}});
      same->args.insert(same->args.end(), peer.args.begin(), peer.args.end());
    }
  }
  // Whether a chosen workload lists the script among the peers of a sweep (the registry's).
  using Sweep = std::vector<std::string> unison::bench::Workload::*;
  const auto sweeps = [&](const PeerScript& s, Sweep peers) {
    for (const auto& w : unison::bench::workloads())
      if (wanted(w.name) &&
          std::find((w.*peers).begin(), (w.*peers).end(), s.script) != (w.*peers).end())
        return true;
    return false;
  };
  for (auto& s : scripts) {
    if (crossover && sweeps(s, &unison::bench::Workload::crossover_peers))
      s.args.push_back("crossover");
    if (sizes && sweeps(s, &unison::bench::Workload::sizes_peers)) s.args.push_back("sizes");
    s.args.push_back("--scale=" + exact_text(scale));
  }
  return scripts;
}

std::vector<Row> read_peer_rows(std::istream& in, const std::map<std::string, CaseKind>& manifest,
                                std::string& error, int& not_in_run) {
  not_in_run = 0;
  std::vector<Row> rows;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string field; std::getline(ss, field, ',');) f.push_back(field);
    if (!line.empty() && line.back() == ',') f.push_back("");
    Row r;
    char* end = nullptr;
    const bool fields = f.size() == 5 && !f[0].empty() && !f[1].empty();
    if (fields) r.median_s = std::strtod(f[2].c_str(), &end);
    const bool time = fields && end && *end == '\0' && r.median_s > 0;
    const bool checked = fields && !f[3].empty() && !f[4].empty();
    bool check_ok = fields && f[3].empty() == f[4].empty();
    if (checked) {
      r.error = std::strtod(f[3].c_str(), &end);
      check_ok = *end == '\0';
      r.tolerance = std::strtod(f[4].c_str(), &end);
      check_ok = check_ok && *end == '\0';
    }
    if (!time || !check_ok) {
      error = "line " + std::to_string(number) + " is not case,peer,seconds,error,tolerance: '" +
              line + "'";
      continue;
    }
    const auto of = manifest.find(f[0]);
    if (of == manifest.end()) {
      ++not_in_run;
      continue;
    }
    r.name = f[0];
    r.backend = f[1];
    describe(r, of->second);
    r.peer = true;
    r.checked = checked;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace unison::suite
