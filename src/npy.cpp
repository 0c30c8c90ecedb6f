// The .npy format (https://numpy.org/devdocs/reference/generated/numpy.lib.format.html):
// magic "\x93NUMPY", major and minor version bytes, the header length (2 bytes little-endian in
// version 1, 4 bytes in versions 2 and 3), then the header: a Python dict literal with the keys
// 'descr', 'fortran_order' and 'shape', padded with spaces and ended by '\n'; then the data.
#include <unison/detail/npy_format.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>
#include <utility>

namespace unison::detail {
namespace {

[[noreturn]] void bad(const char* function, const std::string& path, const std::string& why) {
  throw unison::invalid_argument(std::string(function) + ": " + path + ": " + why);
}

// A failure of the system: the message ends with its reason (errno's text).
[[noreturn]] void io_failure(const char* function, const std::string& path, const std::string& what,
                             int error) {
  throw unison::io_error(std::string(function) + ": " + path + ": " + what + ": " +
                         std::generic_category().message(error));
}

// The system refuses the path: an unison::io_error without errno's text.
[[noreturn]] void io_refusal(const char* function, const std::string& path,
                             const std::string& why) {
  throw unison::io_error(std::string(function) + ": " + path + ": " + why);
}

// Bytes of a header quoted in a message: printable ASCII kept, anything else as \xNN.
std::string printable(const std::string& bytes, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < limit; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(char(c));
    } else {
      const char hex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  if (bytes.size() > limit) out += "...";
  return out;
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

// Reads up to n bytes from fd into out, retrying interrupted and partial reads; fewer than n
// only at the end of the file.
std::size_t read_fd(int fd, char* out, std::size_t n, const char* function,
                    const std::string& path) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, out + got, std::min<std::size_t>(n - got, std::size_t(1) << 30));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) io_failure(function, path, "read error", errno);
    if (r == 0) break;
    got += std::size_t(r);
  }
  return got;
}

}  // namespace

struct NpyReader::Source {
  virtual ~Source() = default;
  // Up to n bytes into out; fewer only at the end.
  virtual std::size_t read(char* out, std::size_t n) = 0;
  // The total size in bytes when known (a regular file, a string), else -1 (a pipe, a device).
  long long size = -1;
};

namespace {

struct FileSource final : NpyReader::Source {
  FileSource(const char* function, const std::string& path) : function(function), path(path) {
    if (path.empty()) throw unison::invalid_argument(std::string(function) + ": empty path");
    do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) io_failure(function, path, "cannot open the file", errno);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      const int error = errno;
      ::close(fd);
      io_failure(function, path, "cannot inspect the file", error);
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      io_refusal(function, path, "is a directory, not a .npy file");
    }
    if (S_ISREG(st.st_mode)) size = (long long)st.st_size;
  }
  ~FileSource() override { ::close(fd); }
  std::size_t read(char* out, std::size_t n) override {
    return read_fd(fd, out, n, function, path);
  }
  int fd = -1;
  const char* function;
  const std::string& path;
};

struct StringSource final : NpyReader::Source {
  explicit StringSource(const std::string& bytes) : bytes(bytes) { size = (long long)bytes.size(); }
  std::size_t read(char* out, std::size_t n) override {
    const std::size_t got = std::min(n, bytes.size() - position);
    if (got > 0) std::memcpy(out, bytes.data() + position, got);
    position += got;
    return got;
  }
  const std::string& bytes;
  std::size_t position = 0;
};

}  // namespace

NpyReader::NpyReader(const char* function, const std::string& path, const char* descr, int rank)
    : function_(function), name_(path) {
  source_ = std::make_unique<FileSource>(function_, name_);
  read_header(descr, rank);
}

NpyReader::NpyReader(const char* function, const std::string& name, std::unique_ptr<Source> source,
                     const char* descr, int rank)
    : function_(function), name_(name), source_(std::move(source)) {
  read_header(descr, rank);
}

NpyReader::~NpyReader() = default;

void NpyReader::read_header(const char* descr, int rank) {
  const char* function = function_;
  const std::string& path = name_;
  // Magic (6 bytes), version (2), header length (2 bytes in version 1, 4 in 2 and 3).
  char prefix[12];
  std::size_t have = source_->read(prefix, 10);
  if (have < 10 || std::memcmp(prefix, magic, 6) != 0)
    bad(function, path, "not a .npy file (no \\x93NUMPY magic string)");
  const int major = static_cast<unsigned char>(prefix[6]);
  if (major < 1 || major > 3)
    bad(function, path, "unsupported .npy format version " + std::to_string(major));
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (length_bytes > 2) have += source_->read(prefix + 10, length_bytes - 2);
  if (have < 8 + length_bytes) bad(function, path, "truncated header");
  std::size_t header_length = 0;
  for (std::size_t b = 0; b < length_bytes; ++b)
    header_length |= std::size_t(static_cast<unsigned char>(prefix[8 + b])) << (8 * b);
  if (header_length > npy_max_header_bytes)
    bad(function, path,
        "header of " + std::to_string(header_length) + " bytes, at most " +
            std::to_string(npy_max_header_bytes) + " are read");
  const std::size_t data_offset = 8 + length_bytes + header_length;
  std::string header(header_length, '\0');
  const std::size_t got = source_->read(header.data(), header_length);
  if (got < header_length)
    bad(function, path,
        "truncated header (" + std::to_string(header_length) + " bytes announced, " +
            std::to_string(got) + " present)");

  std::map<std::string, Value> dict;
  if (!HeaderParser(header).dict(dict))
    bad(function, path, "malformed header: " + printable(header, 120));
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
    bad(function, path,
        "dtype " + printable(d.text, 40) + " is big-endian; only little-endian data is supported");
  if (d.text != descr)
    bad(function, path, "dtype " + printable(d.text, 40) + ", expected " + descr);
  if (int(shape.items.size()) != rank)
    bad(function, path,
        std::to_string(shape.items.size()) + "-D array, expected " + std::to_string(rank) + "-D");
  // The element count, and the product of the nonzero extents: both at most 2^50, so that a
  // zero cannot hide a huge extent, and no product overflows.
  std::size_t nonzero = 1;
  bool empty = false;
  for (auto n : shape.items) {
    if (n < 0) bad(function, path, "negative extent in shape");
    if (n > npy_max_elements) bad(function, path, "extent " + std::to_string(n) + " too large");
    if (n == 0) {
      empty = true;
      continue;
    }
    if (nonzero > std::size_t(npy_max_elements) / std::size_t(n))
      bad(function, path, "shape too large");
    nonzero *= std::size_t(n);
  }
  const std::size_t word = std::strtoul(descr + 2, nullptr, 10);  // "<f4": 4 bytes
  const std::size_t expected = empty ? 0 : nonzero * word;
  // A file of known size must hold exactly the data: checked before anything is allocated.
  if (source_->size >= 0) {
    const std::size_t total = std::size_t(source_->size);
    const std::size_t present = total - std::min(total, data_offset);
    if (present < expected)
      bad(function, path,
          "truncated data: " + std::to_string(present) + " bytes, expected " +
              std::to_string(expected));
    if (present > expected)
      bad(function, path, std::to_string(present - expected) + " unexpected bytes after the data");
  }
  shape_ = shape.items;
  fortran_order_ = order.flag;
  data_bytes_ = expected;
}

void NpyReader::read(char* out, std::size_t n) {
  n = std::min(n, data_bytes_ - done_);
  if (n == 0) return;
  const std::size_t got = source_->read(out, n);
  done_ += got;
  if (got < n)
    bad(function_, name_,
        "truncated data: " + std::to_string(done_) + " bytes, expected " +
            std::to_string(data_bytes_));
}

void NpyReader::finish() {
  if (done_ < data_bytes_)
    bad(function_, name_,
        "truncated data: " + std::to_string(done_) + " bytes read, expected " +
            std::to_string(data_bytes_));
  // A file that changed since its size was checked, or a stream: one byte more is an error.
  char extra;
  if (source_->read(&extra, 1) != 0) bad(function_, name_, "unexpected bytes after the data");
}

NpyArray parse_npy(const char* function, const std::string& name, const std::string& bytes,
                   const char* descr, int rank) {
  NpyReader reader(function, name, std::make_unique<StringSource>(bytes), descr, rank);
  NpyArray out;
  out.shape = reader.shape();
  out.fortran_order = reader.fortran_order();
  out.data.resize(reader.data_bytes());
  reader.read(out.data.data(), out.data.size());
  reader.finish();
  return out;
}

namespace {

// The temporary file of one write: removed on destruction unless kept (renamed onto the file).
struct Temporary {
  int fd = -1;
  std::string name;
  bool kept = false;
  ~Temporary() {
    if (fd >= 0) ::close(fd);
    if (!kept && !name.empty()) ::unlink(name.c_str());
  }
};

// Writes all n bytes, retrying interrupted and partial writes.
void write_all(int fd, const char* data, std::size_t n, const char* function,
               const std::string& path, const std::string& temporary) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, std::min<std::size_t>(n, std::size_t(1) << 30));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) io_failure(function, path, "cannot write " + temporary, errno);
    data += w;
    n -= std::size_t(w);
  }
}

// A name for a temporary file beside `target`, different at every call.
std::string temporary_name(const std::filesystem::path& target) {
  static std::atomic<unsigned long long> counter{0};
  unsigned long long x =
      (unsigned long long)std::chrono::steady_clock::now().time_since_epoch().count() ^
      ((unsigned long long)::getpid() << 40) ^ (counter.fetch_add(1) * 0x9e3779b97f4a7c15ull);
  // splitmix64's finalizer, so that consecutive names differ in every digit.
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", x);
  // "." + the file's name (cut to stay within NAME_MAX) + ".tmp-" + 16 hex digits.
  const std::string base = target.filename().string().substr(0, 200);
  return (target.parent_path() / ("." + base + ".tmp-" + hex)).string();
}

}  // namespace

void write_npy(const char* function, const std::string& path, const char* descr,
               const std::vector<std::int64_t>& shape, const char* data, std::size_t bytes) {
  namespace fs = std::filesystem;
  if (path.empty()) throw unison::invalid_argument(std::string(function) + ": empty path");
  if (path.back() == '/') bad(function, path, "the path ends in '/': it names a directory");
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
  std::string prefix(magic, 6);
  prefix += std::string("\x01\x00", 2);
  prefix.push_back(char(header.size() & 0xff));
  prefix.push_back(char(header.size() >> 8));
  prefix += header;

  // The file to replace: path, or the end of the chain of symbolic links that starts there.
  fs::path target = path;
  bool exists = false;
  mode_t mode = 0;
  for (int links = 0;; ++links) {
    struct stat st;
    if (::lstat(target.c_str(), &st) != 0) {
      if (errno != ENOENT) io_failure(function, path, "cannot inspect " + target.string(), errno);
      break;  // a new file
    }
    if (S_ISLNK(st.st_mode)) {
      if (links == 40) io_failure(function, path, "cannot follow the link", ELOOP);
      std::error_code error;
      const fs::path next = fs::read_symlink(target, error);
      if (error)
        io_failure(function, path, "cannot read the link " + target.string(), error.value());
      target = next.is_absolute() ? next : target.parent_path() / next;
      continue;
    }
    if (S_ISDIR(st.st_mode))
      io_refusal(
          function, path,
          (target == fs::path(path) ? std::string() : target.string() + " ") + "is a directory");
    if (!S_ISREG(st.st_mode))
      bad(function, path,
          target.string() + " is not a regular file (a device, a pipe or a socket)");
    exists = true;
    mode = st.st_mode & 0777;
    break;
  }
  if (!target.has_filename()) bad(function, path, "the link's target names a directory");

  Temporary temporary;
  for (int attempt = 0; temporary.fd < 0; ++attempt) {
    temporary.name = temporary_name(target);
    do
      temporary.fd = ::open(temporary.name.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    while (temporary.fd < 0 && errno == EINTR);
    if (temporary.fd < 0) {
      const int error = errno;
      if (error == EEXIST && attempt < 100) continue;
      temporary.name.clear();  // not ours: nothing to remove
      const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
      io_failure(function, path, "cannot open a temporary file in " + dir.string() + " for writing",
                 error);
    }
  }
  // A replaced file keeps its permissions; a new one gets 0666 less the umask, as open() gives.
  if (exists && ::fchmod(temporary.fd, mode) != 0)
    io_failure(function, path, "cannot set the permissions of " + temporary.name, errno);
  write_all(temporary.fd, prefix.data(), prefix.size(), function, path, temporary.name);
  write_all(temporary.fd, data, bytes, function, path, temporary.name);
  const int fd = temporary.fd;
  temporary.fd = -1;
  if (::close(fd) != 0) io_failure(function, path, "cannot write " + temporary.name, errno);
  if (::rename(temporary.name.c_str(), target.c_str()) != 0)
    io_failure(function, path, "cannot rename " + temporary.name + " to " + target.string(), errno);
  temporary.kept = true;
}

}  // namespace unison::detail
