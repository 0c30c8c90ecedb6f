// The harness: each family's registration, the manifest of the cases registered, the settings.
#include "case.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace unison::bench {

namespace {
std::map<std::pair<std::string, Kind>, Registration>& registrations() {
  static std::map<std::pair<std::string, Kind>, Registration> r;
  return r;
}
}  // namespace

bool add_registration(const std::string& family, Registration registration, Kind kind) {
  registrations()[{family, kind}] = registration;
  return true;
}

void register_workloads(const std::function<bool(const std::string&)>& wanted, Kind kind) {
  std::vector<Registration> done;
  for (const auto& w : workloads()) {
    if (!wanted(w.name)) continue;
    const auto it = registrations().find({w.name, kind});
    if (it == registrations().end() && kind != Kind::workload) continue;  // no such sweep
    if (it == registrations().end())
      throw std::logic_error(
          "unison bench: the workload \"" + w.name +
          "\" of the registry has no registration (benchmarks/cases/<family>.cpp)");
    if (std::find(done.begin(), done.end(), it->second) != done.end()) continue;
    it->second();
    done.push_back(it->second);
  }
}

namespace {
std::vector<ManifestEntry>& manifest_entries() {
  static std::vector<ManifestEntry> m;
  return m;
}
// A JSON string of s (names, families and backends: printable ASCII).
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') q += '\\';
    q += ch;
  }
  return q + "\"";
}
}  // namespace

const std::vector<ManifestEntry>& manifest() { return manifest_entries(); }

std::string benchmark_name(const Case& c, const std::string& backend) {
  return c.name + "/" + backend;
}

std::optional<Registered> registered(const std::string& name) {
  for (const auto& [c, backends] : manifest())
    for (const auto& backend : backends)
      if (benchmark_name(c, backend) == name) return Registered{&c, backend};
  return std::nullopt;
}

void add_to_manifest(const Case& c, const std::string& backend) {
  auto& m = manifest_entries();
  const auto same =
      std::find_if(m.begin(), m.end(), [&](const ManifestEntry& e) { return e.c.name == c.name; });
  if (same == m.end()) m.push_back({c, {backend}});
  else same->backends.push_back(backend);
}

void write_manifest_json(std::ostream& out) {
  const auto number = [](double x) {
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
  };
  out << "{\n  \"cases\": [";
  const char* sep = "\n";
  for (const auto& [c, backends] : manifest()) {
    out << sep << "    {\"name\": " << quoted(c.name) << ", \"family\": " << quoted(c.family)
        << ", \"function\": " << quoted(c.function) << ", \"kind\": " << quoted(kind_name(c.kind))
        << ", \"with_copies\": " << (c.with_copies ? "true" : "false") << ", \"api\": [";
    for (std::size_t i = 0; i < c.api.size(); ++i) out << (i ? ", " : "") << quoted(c.api[i]);
    out << "], \"headline\": " << (c.headline ? "true" : "false") << ",\n     \"backends\": [";
    for (std::size_t i = 0; i < backends.size(); ++i) out << (i ? ", " : "") << quoted(backends[i]);
    out << "], \"sizes\": {";
    for (std::size_t i = 0; i < c.sizes.size(); ++i)
      out << (i ? ", " : "") << quoted(c.sizes[i].first) << ": " << number(c.sizes[i].second);
    out << "}, \"bytes\": " << number(c.bytes) << ", \"flops\": " << number(c.flops)
        << ", \"units\": " << number(c.units) << "}";
    sep = ",\n";
  }
  out << "\n  ]\n}\n";
}

Settings& settings() {
  static Settings s;
  return s;
}

}  // namespace unison::bench
