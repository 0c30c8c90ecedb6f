// The .npy format (https://numpy.org/devdocs/reference/generated/numpy.lib.format.html):
// magic "\x93NUMPY", major and minor version bytes, the header length (2 bytes little-endian in
// version 1, 4 bytes in versions 2 and 3), then the header: a Python dict literal with the keys
// 'descr', 'fortran_order' and 'shape', padded with spaces and ended by '\n'; then the data.
#include <unison/detail/npy_format.hpp>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

namespace unison::detail {
namespace {

[[noreturn]] void bad(const char* function, const std::string& path, const std::string& why) {
  throw unison::invalid_argument(std::string(function) + ": " + path + ": " + why);
}

// A value of the header dict: a string, a boolean or a tuple of integers.
struct Value {
  enum { string, boolean, tuple } kind;
  std::string text;
  bool flag = false;
  std::vector<std::int64_t> items;
};

// The restricted Python literal grammar that NumPy writes: {'key': value, ...}.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& s) : s_(s) {}

  bool dict(std::map<std::string, Value>& out) {
    if (!eat('{')) return false;
    while (true) {
      skip();
      if (eat('}')) return rest_is_blank();
      std::string key;
      if (!quoted(key) || !eat(':')) return false;
      Value v;
      if (!value(v) || out.count(key)) return false;
      out[key] = v;
      if (!eat(',')) return eat('}') && rest_is_blank();
    }
  }

 private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  bool word(const char* w) {
    skip();
    const std::size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) == 0) return i_ += n, true;
    return false;
  }
  bool quoted(std::string& out) {
    skip();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return false;
    const char q = s_[i_++];
    const std::size_t end = s_.find(q, i_);
    if (end == std::string::npos) return false;
    out = s_.substr(i_, end - i_);
    i_ = end + 1;
    return true;
  }
  bool integer(std::int64_t& out) {
    skip();
    std::size_t j = i_;
    while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
    if (j == i_ || j - i_ > 18) return false;
    out = std::stoll(s_.substr(i_, j - i_));
    i_ = j;
    return true;
  }
  bool value(Value& v) {
    if (quoted(v.text)) return v.kind = Value::string, true;
    if (word("True")) return v.kind = Value::boolean, v.flag = true, true;
    if (word("False")) return v.kind = Value::boolean, v.flag = false, true;
    if (!eat('(')) return false;
    v.kind = Value::tuple;
    if (eat(')')) return true;
    while (true) {
      std::int64_t n;
      if (!integer(n)) return false;
      // NumPy's shape literals may end integers with 'L' (Python 2 files).
      eat('L');
      v.items.push_back(n);
      if (eat(')')) return true;
      if (!eat(',')) return false;
      if (eat(')')) return true;  // (n,)
    }
  }
  bool rest_is_blank() {
    skip();
    return i_ == s_.size();
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

const char magic[] = "\x93NUMPY";

}  // namespace

NpyArray read_npy(const char* function, const std::string& path, const char* descr, int rank) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(function, path, "cannot open the file");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) bad(function, path, "read error");
  return parse_npy(function, path, bytes, descr, rank);
}

NpyArray parse_npy(const char* function, const std::string& path, const std::string& bytes,
                   const char* descr, int rank) {
  if (bytes.size() < 10 || bytes.compare(0, 6, magic, 6) != 0)
    bad(function, path, "not a .npy file (no \\x93NUMPY magic string)");
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    bad(function, path, "unsupported .npy format version " + std::to_string(major));
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) bad(function, path, "truncated header");
  std::size_t header_length = 0;
  for (std::size_t b = 0; b < length_bytes; ++b)
    header_length |= std::size_t(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
  const std::size_t data_offset = 8 + length_bytes + header_length;
  if (bytes.size() < data_offset)
    bad(function, path,
        "truncated header (" + std::to_string(header_length) + " bytes announced, " +
            std::to_string(bytes.size() - 8 - length_bytes) + " present)");
  const std::string header = bytes.substr(8 + length_bytes, header_length);

  std::map<std::string, Value> dict;
  if (!HeaderParser(header).dict(dict))
    bad(function, path, "malformed header: " + header.substr(0, 120));
  auto key = [&](const char* name, auto kind) -> const Value& {
    auto it = dict.find(name);
    if (it == dict.end() || it->second.kind != kind)
      bad(function, path, std::string("malformed header: no valid '") + name + "'");
    return it->second;
  };
  const Value& d = key("descr", Value::string);
  const Value& order = key("fortran_order", Value::boolean);
  const Value& shape = key("shape", Value::tuple);
  if (dict.size() != 3) bad(function, path, "malformed header: unexpected keys");

  if (d.text.size() > 1 && d.text[0] == '>')
    bad(function, path, "dtype " + d.text + " is big-endian; only little-endian data is supported");
  if (d.text != descr) bad(function, path, "dtype " + d.text + ", expected " + descr);
  if (int(shape.items.size()) != rank)
    bad(function, path,
        std::to_string(shape.items.size()) + "-D array, expected " + std::to_string(rank) + "-D");
  std::size_t count = 1;
  for (auto n : shape.items) {
    if (n < 0) bad(function, path, "negative extent in shape");
    if (n > (std::int64_t(1) << 50))
      bad(function, path, "extent " + std::to_string(n) + " too large");
    if (n > 0 && count > (std::size_t(1) << 50) / std::size_t(n))
      bad(function, path, "shape too large");
    count *= std::size_t(n);
  }
  const std::size_t word = descr[2] == '4' ? 4 : 8;
  const std::size_t expected = count * word, present = bytes.size() - data_offset;
  if (present < expected)
    bad(function, path,
        "truncated data: " + std::to_string(present) + " bytes, expected " +
            std::to_string(expected));
  if (present > expected)
    bad(function, path, std::to_string(present - expected) + " unexpected bytes after the data");

  NpyArray out;
  out.shape = shape.items;
  out.fortran_order = order.flag;
  out.data.assign(bytes.begin() + std::ptrdiff_t(data_offset), bytes.end());
  return out;
}

void write_npy(const char* function, const std::string& path, const char* descr,
               const std::vector<std::int64_t>& shape, const char* data, std::size_t bytes) {
  const std::uint16_t one = 1;
  if (*reinterpret_cast<const unsigned char*>(&one) != 1)
    bad(function, path, "writing .npy files needs a little-endian host");
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) dict << (i ? ", " : "") << shape[i];
  dict << (shape.size() == 1 ? ",), }" : "), }");
  std::string header = dict.str();
  // Magic, version, 2-byte length, header and '\n' together a multiple of 64 bytes.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');

  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) bad(function, path, "cannot open " + tmp + " for writing");
    out.write(magic, 6);
    const char version[2] = {1, 0};
    out.write(version, 2);
    const char length[2] = {char(header.size() & 0xff), char(header.size() >> 8)};
    out.write(length, 2);
    out << header;
    out.write(data, std::streamsize(bytes));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      bad(function, path, "write error");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    bad(function, path, "cannot rename " + tmp + " to the file");
  }
}

}  // namespace unison::detail
