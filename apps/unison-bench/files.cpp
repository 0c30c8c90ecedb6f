// The CSV and the JSON of the run.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace unison::suite {

void write_csv(std::ostream& out, const std::vector<Row>& rows,
               const std::vector<std::pair<std::string, std::string>>& context) {
  for (const auto& [key, value] : context) {
    std::string v = value;
    std::replace(v.begin(), v.end(), '\n', ' ');
    out << "# " << key << ": " << v << "\n";
  }
  out << "workload,case,backend,median_s,spread,gb_per_s,gflop_per_s,peak,peak_fraction,check,"
         "error,tolerance,note,function,kind,headline,peak_rate,peer\n";
  char buf[240];
  for (const Row& r : rows) {
    std::snprintf(buf, sizeof buf, "%.6g,%.4f,%.6g,%.6g,\"%s\",%.4f,\"%s\",%.4g,%.4g", r.median_s,
                  r.spread, r.gb_per_s, r.gflop_per_s, r.peak.c_str(), r.peak_fraction,
                  !r.checked   ? ""
                  : r.passed() ? "pass"
                               : "fail",
                  r.error, r.tolerance);
    std::string note = r.note;
    std::replace(note.begin(), note.end(), '"', '\'');
    out << '"' << r.workload << "\",\"" << r.name << "\",\"" << r.backend << "\"," << buf << ",\""
        << note << "\",\"" << r.function << "\",\"" << unison::bench::kind_name(r.kind) << "\","
        << (r.headline ? 1 : 0) << ",";
    std::snprintf(buf, sizeof buf, "%.6g,%d", r.peak_rate, r.peer ? 1 : 0);
    out << buf << "\n";
  }
}

namespace {
// s as a JSON string literal.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  char buf[8];
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}
}  // namespace

std::string add_rows_to_json(const std::string& json, const std::vector<Row>& rows) {
  // Google Benchmark ends its file with the list's closing bracket and the object's brace.
  const auto close = json.find_last_of(']');
  if (close == std::string::npos || json.find_first_not_of(" \n", close + 1) == std::string::npos ||
      json.substr(json.find_first_not_of(" \n", close + 1), 1) != "}")
    return "";
  const auto last = json.find_last_not_of(" \n", close - 1);
  bool empty = last != std::string::npos && json[last] == '[';
  std::ostringstream add;
  char buf[64];
  const auto number = [&](double x) {
    std::snprintf(buf, sizeof buf, "%.17g", std::isfinite(x) ? x : 1.7976931348623157e308);
    return std::string(buf);
  };
  for (const Row& r : rows) {
    const std::string name = r.name + "/" + r.backend;
    add << (empty ? "\n" : ",\n") << "    {\n"
        << "      \"name\": " << json_string(name + "_median") << ",\n"
        << "      \"run_name\": " << json_string(name) << ",\n"
        << "      \"run_type\": \"aggregate\",\n"
        << "      \"aggregate_name\": \"median\",\n"
        << "      \"aggregate_unit\": \"time\",\n"
        << "      \"peer\": " << json_string(r.backend) << ",\n"
        << "      \"family\": " << json_string(r.workload) << ",\n"
        << "      \"real_time\": " << number(r.median_s * 1e9) << ",\n"
        << "      \"cpu_time\": " << number(r.median_s * 1e9) << ",\n"
        << "      \"time_unit\": \"ns\"";
    if (r.gb_per_s > 0) add << ",\n      \"GB/s\": " << number(r.gb_per_s);
    if (r.gflop_per_s > 0) add << ",\n      \"GFLOP/s\": " << number(r.gflop_per_s);
    if (!r.peak.empty())
      add << ",\n      \"peak\": " << json_string(r.peak)
          << ",\n      \"peak_fraction\": " << number(r.peak_fraction);
    if (r.checked)
      add << ",\n      \"check_error\": " << number(r.error)
          << ",\n      \"check_tolerance\": " << number(r.tolerance);
    add << "\n    }";
    empty = false;
  }
  return json.substr(0, last + 1) + add.str() + "\n  " + json.substr(close);
}

}  // namespace unison::suite
