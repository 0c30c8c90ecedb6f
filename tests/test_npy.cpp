// .npy reading and writing: round trips from every backend's memory, Fortran order, versions 2
// and 3, and each malformed file the reader must refuse with the documented error.
// Beside them: NpyPreconditions (host code) and NpyDeterminism (tests/preconditions.hpp,
// tests/determinism.hpp).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <unison/npy.hpp>

#include "determinism.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "unison_" + name + ".npy";
}

// A .npy file of the given version with `header` (padded as NumPy does) and raw data bytes.
std::string npy_bytes(const std::string& dict, const std::string& data, int version = 1) {
  const std::size_t length_bytes = version == 1 ? 2 : 4;
  std::string header = dict;
  const std::size_t total = 8 + length_bytes + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(char(version));
  out.push_back(0);
  for (std::size_t b = 0; b < length_bytes; ++b)
    out.push_back(char((header.size() >> (8 * b)) & 0xff));
  return out + header + data;
}

template <class T>
std::string raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const auto path = temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

template <class Exec>
void test_round_trip() {
  using Mem = typename Exec::memory_space;
  const auto path = temp_path(std::string("round_trip_") + Exec::name());
  // float from a LayoutLeft View, double from a LayoutRight one, in Exec's memory.
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem> f("f", 37, 53);
  fill(f, uniform<float>(-1e3, 1e3));
  unison::write_npy(path, f);
  auto back = unison::read_npy<float>(path);
  ASSERT_EQ(back.extent(0), 37u);
  ASSERT_EQ(back.extent(1), 53u);
  EXPECT_TRUE(close(to_host(back), to_host(f), 0));
  EXPECT_FALSE(exists(path + ".tmp"));

  Kokkos::View<double**, Kokkos::LayoutRight, Mem> d("d", 1, 7);
  fill(d, uniform<double>(-1, 1));
  unison::write_npy(path, d);  // replaces the file
  auto dback = unison::read_npy<double>(path);
  EXPECT_TRUE(close(to_host(dback), to_host(d), 0));
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> empty("empty", 0, 4);
  unison::write_npy(path, empty);
  auto eback = unison::read_npy<double>(path);
  EXPECT_EQ(eback.extent(0), 0u);
  EXPECT_EQ(eback.extent(1), 4u);
  std::remove(path.c_str());
}

// Files as NumPy writes them: C and Fortran order, versions 1 to 3.
TEST(Npy, reads_numpy_files) {
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  // C order: [[1, 2, 3], [4, 5, 6]].
  auto c = unison::read_npy<float>(write_file(
      "c_order",
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", raw(values))));
  // Fortran order of the same data is [[1, 3, 5], [2, 4, 6]].
  auto f = unison::read_npy<float>(write_file(
      "f_order",
      npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", raw(values))));
  auto v2 = unison::read_npy<float>(write_file(
      "v2", npy_bytes("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3, 2)}",
                      raw(values), 2)));
  auto v3 = unison::read_npy<double>(
      write_file("v3", npy_bytes("{'shape': (1, 2), 'fortran_order': False, 'descr': '<f8'}",
                                 raw(std::vector<double>{0.5, -2}), 3)));
  EXPECT_TRUE(close(to_host(c), {1, 2, 3, 4, 5, 6}, 0));
  EXPECT_TRUE(close(to_host(f), {1, 3, 5, 2, 4, 6}, 0));
  ASSERT_EQ(v2.extent(0), 3u);
  EXPECT_TRUE(close(to_host(v2), {1, 2, 3, 4, 5, 6}, 0));
  EXPECT_TRUE(close(to_host(v3), {0.5, -2}, 0));
}

// Each malformed file, and the message that names it.
TEST(Npy, refuses_bad_files) {
  const auto floats = raw(std::vector<float>{1, 2, 3, 4, 5, 6});
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string fn = "unison::read_npy";
  struct Case {
    const char* name;
    std::string bytes;
    std::vector<std::string> message;
  };
  const std::string whole = npy_bytes(good, floats);
  const std::vector<Case> cases = {
      {"empty", "", {"not a .npy file"}},
      {"magic", "\x93NUMPZ" + whole.substr(6), {"not a .npy file"}},
      {"text", "descr,shape\n1,2\n", {"not a .npy file"}},
      {"version", npy_bytes(good, floats, 7), {"unsupported .npy format version 7"}},
      {"header_cut", whole.substr(0, 40), {"truncated header"}},
      {"data_cut", whole.substr(0, whole.size() - 3), {"truncated data: 21 bytes, expected 24"}},
      {"trailing", whole + "xyz", {"3 unexpected bytes after the data"}},
      {"dtype_f8",
       npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", floats),
       {"dtype <f8, expected <f4"}},
      {"dtype_i4",
       npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", floats),
       {"dtype <i4, expected <f4"}},
      {"big_endian",
       npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", floats),
       {"big-endian"}},
      {"rank1",
       npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", floats),
       {"1-D array, expected 2-D"}},
      {"rank3",
       npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }", floats),
       {"3-D array, expected 2-D"}},
      {"no_shape",
       npy_bytes("{'descr': '<f4', 'fortran_order': False, }", floats),
       {"no valid 'shape'"}},
      {"bad_order",
       npy_bytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", floats),
       {"malformed header"}},
      {"bad_dict",
       npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", floats),
       {"malformed header"}},
      {"extra_key",
       npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': (), }", floats),
       {"unexpected keys"}},
      {"negative",
       npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", floats),
       {"malformed header"}},
      {"huge_product",
       npy_bytes(
           "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }",
           floats),
       {"shape too large"}},
      {"huge_empty",
       npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2251799813685249), }", ""),
       {"extent 2251799813685249 too large"}},
      {"header_too_long",
       whole.substr(0, 6) + std::string("\x02\x00\x70\x11\x01\x00", 6) + whole.substr(10),
       {"header of 70000 bytes, at most 65536"}},
      {"length_past_end",
       whole.substr(0, 8) + std::string("\xff\xff", 2) + whole.substr(10),
       {"truncated header"}},
  };
  for (const auto& c : cases) {
    const auto path = write_file(std::string("bad_") + c.name, c.bytes);
    EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(path); }, fn, c.message)) << c.name;
    std::remove(path.c_str());
  }
  EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(temp_path("does_not_exist")); }, fn,
                             {"cannot open the file"}));
}

// The fuzz target's seeds and every past finding (tests/fuzz/corpus, tests/fuzz/regressions):
// each file is read or refused with unison::invalid_argument, nothing else.
TEST(Npy, fuzz_corpus_and_regressions) {
  int files = 0, read = 0;
  for (const char* dir : {UNISON_FUZZ_DIR "/corpus", UNISON_FUZZ_DIR "/regressions"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      ++files;
      try {
        auto a = unison::read_npy<float>(entry.path().string());
        EXPECT_EQ(a.size() * sizeof(float) <= std::filesystem::file_size(entry.path()), true);
        ++read;
      } catch (const unison::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind("unison::read_npy: ", 0), 0u) << e.what();
      }
    }
  }
  EXPECT_GE(files, 12);
  EXPECT_GE(read, 4);  // the seeds include valid float32 files
}

// A write that cannot happen throws and leaves nothing behind.
TEST(Npy, failed_write_leaves_nothing) {
  Kokkos::View<float**, Kokkos::HostSpace> v("v", 2, 2);
  const std::string path = ::testing::TempDir() + "unison_no_such_dir/out.npy";
  EXPECT_TRUE(throws_invalid([&] { unison::write_npy(path, v); }, "unison::write_npy",
                             {"cannot open", path}));
  EXPECT_FALSE(exists(path));
  EXPECT_FALSE(exists(path + ".tmp"));
}

// ---------------------------------------------------------------------------------------------
// Hostile files and paths: the reader's work and memory are bounded by the file (its header is
// read first, its size compared with what the header promises before anything is allocated);
// the writer never touches a file of the caller's but the one it names.

// Runs f in a forked child whose address space may grow by at most extra_mib MiB beyond what the
// process maps now and whose CPU time is limited to cpu_s seconds (a guard against a hang, not a
// timing), and returns f's verdict; the child's failure message comes back through a pipe.
// f must not free a Kokkos allocation (kept_in_child): freeing host memory fences every backend,
// and in a CUDA build the parent's CUDA context does not survive the fork (the fence throws and
// the child aborts).
::testing::AssertionResult in_limited_child(const std::function<::testing::AssertionResult()>& f,
                                            long extra_mib = 256, int cpu_s = 60,
                                            std::function<void()> setup = {}) {
  int fds[2];
  if (pipe(fds) != 0) return ::testing::AssertionFailure() << "pipe failed";
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return ::testing::AssertionFailure() << "fork failed";
  if (pid == 0) {
    close(fds[0]);
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t as = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + (rlim_t(extra_mib) << 20);
    const rlimit memory{as, as}, cpu{rlim_t(cpu_s), rlim_t(cpu_s + 5)};
    setrlimit(RLIMIT_AS, &memory);
    setrlimit(RLIMIT_CPU, &cpu);
    if (setup) setup();
    std::string message;
    try {
      const auto verdict = f();
      if (!verdict) message = std::string("failed: ") + verdict.message();
    } catch (const std::exception& e) {
      message = std::string("threw ") + e.what();
    }
    if (!message.empty() && write(fds[1], message.data(), message.size()) < 0) _exit(3);
    _exit(message.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return ::testing::AssertionSuccess();
  if (WIFSIGNALED(status))
    return ::testing::AssertionFailure()
           << "the child was killed by signal " << WTERMSIG(status)
           << (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL
                   ? " (its CPU time limit: it did not finish)"
                   : "");
  return ::testing::AssertionFailure() << "child: " << message;
}

// v, never freed: a forked child of in_limited_child exits without its destructor. (A pointer:
// GCC 13 warns of a reference returned from a temporary argument, -Wdangling-reference.)
template <class V>
const std::decay_t<V>* kept_in_child(V&& v) {
  return new std::decay_t<V>(std::forward<V>(v));
}

// A fresh empty directory under the test's temporary directory.
std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = ::testing::TempDir() + "unison_npy_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The names in dir.
std::set<std::string> entries(const std::filesystem::path& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.insert(e.path().filename().string());
  return out;
}

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A sparse file of `size` bytes that starts with `head`: no disk blocks, no memory.
std::string sparse_file(const std::string& name, const std::string& head, off_t size) {
  const auto path = temp_path(name);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  EXPECT_GE(fd, 0) << path;
  EXPECT_EQ(write(fd, head.data(), head.size()), ssize_t(head.size()));
  EXPECT_EQ(ftruncate(fd, size), 0) << path;
  close(fd);
  return path;
}

// /dev/zero, and files of 3 GiB that are not .npy files or hold far more than their header
// says, are refused after reading their first bytes: with 256 MiB of address space to spare, a
// reader that loads the file first fails with std::bad_alloc.
TEST(Npy, hostile_files_bounded_memory) {
  const std::string fn = "unison::read_npy";
  const off_t three_gib = off_t(3) << 30;
  const auto floats = raw(std::vector<float>{1, 2, 3, 4, 5, 6});
  const auto valid =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", floats);
  std::string long_header = "\x93NUMPY";
  long_header += std::string("\x02\x00\x00\x00\x00\x80", 6);  // version 2, 2^31 header bytes
  const struct {
    std::string path;
    std::vector<std::string> message;
  } cases[] = {
      {"/dev/zero", {"/dev/zero: not a .npy file"}},
      {sparse_file("hostile_zeros", "", three_gib), {"not a .npy file"}},
      {sparse_file("hostile_text", "descr,shape\n", three_gib), {"not a .npy file"}},
      {sparse_file("hostile_trailing", valid, three_gib),
       {std::to_string(three_gib - off_t(valid.size())) + " unexpected bytes after the data"}},
      {sparse_file("hostile_header", long_header, three_gib),
       {"header of 2147483648 bytes", "at most 65536"}},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(in_limited_child([&] {
      return throws_invalid([&] { unison::read_npy<float>(c.path); }, fn, c.message);
    })) << c.path;
    if (c.path != "/dev/zero") std::remove(c.path.c_str());
  }
}

// A header whose shape has a zero extent beside a huge one describes an empty array: it is read
// as an empty View of that shape without walking its rows (a CPU limit guards against a hang).
// An extent above 2^50 is refused even beside a zero.
TEST(Npy, huge_shape_with_zero_extent) {
  const std::string fn = "unison::read_npy";
  const std::int64_t huge = std::int64_t(1) << 50;
  const struct {
    const char* name;
    const char* order;
    std::int64_t rows, cols;
  } cases[] = {{"rows_c", "False", huge, 0},
               {"rows_f", "True", huge, 0},
               {"cols_c", "False", 0, huge},
               {"cols_f", "True", 0, huge}};
  for (const auto& c : cases) {
    const auto path = write_file(
        std::string("huge_empty_") + c.name,
        npy_bytes(std::string("{'descr': '<f4', 'fortran_order': ") + c.order + ", 'shape': (" +
                      std::to_string(c.rows) + ", " + std::to_string(c.cols) + "), }",
                  ""));
    EXPECT_TRUE(in_limited_child(
        [&]() -> ::testing::AssertionResult {
          const auto& v = *kept_in_child(unison::read_npy<float>(path));
          if (std::int64_t(v.extent(0)) != c.rows || std::int64_t(v.extent(1)) != c.cols)
            return ::testing::AssertionFailure()
                   << "extents " << v.extent(0) << " x " << v.extent(1);
          return ::testing::AssertionSuccess();
        },
        256, 20))
        << c.name;
    std::remove(path.c_str());
  }
  const auto path = write_file(
      "huge_empty_refused",
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1125899906842625, 0), }", ""));
  EXPECT_TRUE(throws_invalid([&] { unison::read_npy<double>(path); }, fn,
                             {path, "extent 1125899906842625 too large"}));
  std::remove(path.c_str());
}

// A directory, an empty path: refused with the function's name and the path; a directory is an
// unison::io_error (the system's refusal).
TEST(Npy, read_refuses_directories) {
  const std::string fn = "unison::read_npy";
  const auto dir = fresh_dir("read_dir").string();
  EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(dir); }, fn, {dir, "is a directory"}));
  EXPECT_THROW(unison::read_npy<double>(dir), unison::io_error);
  EXPECT_THROW(unison::read_npy<double>(temp_path("does_not_exist")), unison::io_error);
  EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(""); }, fn, {"empty path"}));
  std::filesystem::remove_all(dir);
}

// A pipe is read as a stream: the bytes the header promises, then one more to find trailing data.
TEST(Npy, reads_a_pipe) {
  const std::string fn = "unison::read_npy";
  const auto dir = fresh_dir("pipe");
  const auto fifo = (dir / "fifo.npy").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto floats = raw(std::vector<float>{1, 2, 3, 4, 5, 6});
  const auto whole =
      npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", floats);
  // One write() of fewer than PIPE_BUF bytes: all of them are in the pipe before the reader can
  // decide anything, so the reader's early close cannot raise SIGPIPE.
  const auto feed = [&](const std::string& bytes) {
    return std::thread([&fifo, bytes] {
      const int fd = open(fifo.c_str(), O_WRONLY);
      if (fd >= 0) {
        if (write(fd, bytes.data(), bytes.size()) < 0) std::perror("write to the fifo");
        close(fd);
      }
    });
  };
  auto writer = feed(whole);
  const auto v = unison::read_npy<float>(fifo);
  writer.join();
  EXPECT_TRUE(close(to_host(v), {1, 3, 5, 2, 4, 6}, 0));
  writer = feed(whole + "xyz");
  EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(fifo); }, fn,
                             {fifo, "unexpected bytes after the data"}));
  writer.join();
  writer = feed(whole.substr(0, whole.size() - 3));
  EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(fifo); }, fn,
                             {fifo, "truncated data: 21 bytes, expected 24"}));
  writer.join();
  // A header that promises 2^49 bytes: the array is refused before anything is allocated.
  writer = feed(
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (16777216, 8388608), }", ""));
  EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(fifo); }, fn,
                             {fifo, "the array needs 562949953421312 bytes, more than"}));
  writer.join();
  std::filesystem::remove_all(dir);
}

// A symbolic link is read through, and written through: its target is replaced, the link stays
// (a dangling link's target is created).
TEST(Npy, symlinks_read_and_written_through) {
  const auto dir = fresh_dir("symlink");
  const auto real = dir / "real.npy", link = dir / "link.npy", dangling = dir / "dangling.npy";
  std::filesystem::create_symlink("real.npy", link);
  std::filesystem::create_symlink("created.npy", dangling);
  Kokkos::View<double**, Kokkos::HostSpace> a("a", 3, 5), b("b", 4, 2);
  fill(a, uniform<double>(-1, 1));
  fill(b, uniform<double>(-1, 1));
  unison::write_npy(real.string(), a);
  EXPECT_TRUE(close(to_host(unison::read_npy<double>(link.string())), to_host(a), 0));
  unison::write_npy(link.string(), b);
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(std::filesystem::read_symlink(link), "real.npy");
  EXPECT_TRUE(close(to_host(unison::read_npy<double>(real.string())), to_host(b), 0));
  unison::write_npy(dangling.string(), a);
  EXPECT_TRUE(std::filesystem::is_symlink(dangling));
  EXPECT_TRUE(
      close(to_host(unison::read_npy<double>((dir / "created.npy").string())), to_host(a), 0));
  EXPECT_EQ(entries(dir),
            (std::set<std::string>{"created.npy", "dangling.npy", "link.npy", "real.npy"}));
  std::filesystem::remove_all(dir);
}

// The writer's temporary file cannot be one of the caller's: <path>.tmp is left as it was, and
// nothing else remains beside the file.
TEST(Npy, write_leaves_callers_files_alone) {
  const auto dir = fresh_dir("callers_tmp");
  const auto path = dir / "out.npy", tmp = dir / "out.npy.tmp";
  std::ofstream(tmp) << "the caller's own file";
  Kokkos::View<float**, Kokkos::HostSpace> v("v", 7, 3);
  fill(v, uniform<float>(-1, 1));
  unison::write_npy(path.string(), v);  // a new file
  unison::write_npy(path.string(), v);  // replacing it
  EXPECT_EQ(file_text(tmp), "the caller's own file");
  EXPECT_EQ(entries(dir), (std::set<std::string>{"out.npy", "out.npy.tmp"}));
  EXPECT_TRUE(close(to_host(unison::read_npy<float>(path.string())), to_host(v), 0));
  std::filesystem::remove_all(dir);
}

// Paths that name no file to write are refused, and nothing is created.
TEST(Npy, write_refuses_paths_without_a_file) {
  const std::string fn = "unison::write_npy";
  const auto dir = fresh_dir("write_refusals");
  Kokkos::View<float*, Kokkos::HostSpace> v("v", 3);
  const bool had_tmp = std::filesystem::exists(".tmp");
  EXPECT_TRUE(throws_invalid([&] { unison::write_npy("", v); }, fn, {"empty path"}));
  if (!had_tmp) {
    EXPECT_FALSE(std::filesystem::exists(".tmp"));
  }
  std::filesystem::create_directory(dir / "sub");
  EXPECT_TRUE(throws_invalid([&] { unison::write_npy((dir / "sub").string(), v); }, fn,
                             {(dir / "sub").string(), "is a directory"}));
  EXPECT_TRUE(throws_invalid([&] { unison::write_npy((dir / "new").string() + "/", v); }, fn,
                             {"names a directory"}));
  // A pipe is not replaced by a regular file.
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_TRUE(throws_invalid([&] { unison::write_npy((dir / "fifo").string(), v); }, fn,
                             {(dir / "fifo").string(), "is not a regular file"}));
  EXPECT_EQ(std::filesystem::status(dir / "fifo").type(), std::filesystem::file_type::fifo);
  EXPECT_EQ(entries(dir), (std::set<std::string>{"fifo", "sub"}));
  EXPECT_TRUE(entries(dir / "sub").empty());
  std::filesystem::remove_all(dir);
}

// A write that fails midway (here the file size limit, 4 KiB) throws naming the path, leaves the
// old file as it was and no temporary file. In this process, the limit lowered around the one call
// and restored before anything else is written (a forked child would free the writer's host
// memory, and freeing fences every backend: in a CUDA build the fork has no CUDA context).
TEST(Npy, failed_write_midway_leaves_old_file) {
  const auto dir = fresh_dir("write_midway");
  const auto path = (dir / "out.npy").string();
  std::ofstream(path) << "old contents";
  const Kokkos::View<double**, Kokkos::HostSpace> v("v", 64, 64);
  rlimit old_limit{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  const rlimit small{4096, old_limit.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto verdict =
      throws_invalid([&] { unison::write_npy(path, v); }, "unison::write_npy", {path});
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(verdict);
  EXPECT_EQ(file_text(path), "old contents");
  EXPECT_EQ(entries(dir), (std::set<std::string>{"out.npy"}));
  std::filesystem::remove_all(dir);
}

// Ranks 1 and 3 and the integer types: the file holds NumPy's header for the dtype and shape,
// then the values in C order (LayoutLeft Views are reordered).
template <class Exec>
void test_write_ranks_and_types() {
  using Mem = typename Exec::memory_space;
  const auto path = temp_path(std::string("ranks_") + Exec::name());
  const auto read_all = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const auto header_has = [&](const std::string& bytes, const std::string& what) {
    const std::size_t header_len = std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8;
    return bytes.compare(0, 6, "\x93NUMPY") == 0 &&
           bytes.substr(10, header_len).find(what) != std::string::npos;
  };
  const auto data = [&](const std::string& bytes) {
    const std::size_t header_len = std::uint8_t(bytes[8]) | std::uint8_t(bytes[9]) << 8;
    return bytes.substr(10 + header_len);
  };
  Kokkos::View<std::int16_t*, Mem> v16("v16", 5);
  fill(v16, uniform<std::int16_t>(-30000, 30000));
  unison::write_npy(path, v16);
  auto bytes = read_all();
  EXPECT_TRUE(header_has(bytes, "'descr': '<i2'"));
  EXPECT_TRUE(header_has(bytes, "'shape': (5,)"));
  auto h16 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v16);
  EXPECT_EQ(data(bytes), std::string(reinterpret_cast<const char*>(h16.data()), 10));

  Kokkos::View<std::uint8_t***, Kokkos::LayoutLeft, Mem> u8("u8", 2, 3, 4);
  auto hu = Kokkos::create_mirror_view(u8);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) hu(i, j, k) = std::uint8_t(37 * i + 11 * j + 3 * k + 1);
  Kokkos::deep_copy(u8, hu);
  unison::write_npy(path, u8);
  bytes = read_all();
  EXPECT_TRUE(header_has(bytes, "'descr': '|u1'"));
  EXPECT_TRUE(header_has(bytes, "'shape': (2, 3, 4)"));
  std::string c_order;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) c_order += char(hu(i, j, k));
  EXPECT_EQ(data(bytes), c_order);

  Kokkos::View<std::int64_t*, Mem> v64("v64", 3);
  Kokkos::deep_copy(v64, std::int64_t(-5));
  unison::write_npy(path, v64);
  bytes = read_all();
  EXPECT_TRUE(header_has(bytes, "'descr': '<i8'"));
  const std::vector<std::int64_t> minus5(3, -5);
  EXPECT_EQ(data(bytes), raw(minus5));
  std::remove(path.c_str());
}

template <class Exec>
struct NpyBackend : ::testing::Test {};
TYPED_TEST_SUITE(NpyBackend, Backends, BackendName);
TYPED_TEST(NpyBackend, round_trip) { test_round_trip<TypeParam>(); }
TYPED_TEST(NpyBackend, write_ranks_and_types) { test_write_ranks_and_types<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

// .npy files: extents in the header that are negative or too large; an empty array round trip.
std::string npy_file(const std::string& name, const std::string& shape) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes = "\x93NUMPY";
  bytes.push_back(1);
  bytes.push_back(0);
  bytes.push_back(char(header.size() & 0xff));
  bytes.push_back(char(header.size() >> 8));
  const std::string path = ::testing::TempDir() + "unison_preconditions_" + name + ".npy";
  std::ofstream(path, std::ios::binary) << bytes << header;
  return path;
}

TEST(NpyPreconditions, npy_extents) {
  const std::string fn = "unison::read_npy";
  const struct {
    const char* name;
    const char* shape;
    const char* message;
  } cases[] = {{"negative", "(-1, 3)", "malformed header"},  // the parser reads digits only
               {"extent", "(2251799813685249, 1)", "too large"},
               {"product", "(1125899906842624, 4)", "shape too large"}};
  for (const auto& c : cases) {
    const auto path = npy_file(c.name, c.shape);
    EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(path); }, fn, {c.message})) << c.name;
    std::remove(path.c_str());
  }
  // An empty array is valid both ways.
  const std::string path = ::testing::TempDir() + "unison_preconditions_empty.npy";
  Kokkos::View<float**, Kokkos::HostSpace> empty("empty", 0, 3);
  unison::write_npy(path, empty);
  const auto back = unison::read_npy<float>(path);
  EXPECT_EQ(back.extent(0), 0u);
  EXPECT_EQ(back.extent(1), 3u);
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// The same View written twice gives the same file, read back bit for bit (NaN payloads,
// -0.0, subnormals and infinities included).

namespace determinism {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <class Exec, class T>
void check_npy() {
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem<Exec>> v("v", 37, 53);
  fill(v, uniform<T>(-1e3, 1e3));
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  h(0, 0) = T(-0.0);
  h(1, 0) = other_poison<T>();
  h(2, 0) = std::numeric_limits<T>::denorm_min();
  h(3, 0) = -std::numeric_limits<T>::infinity();
  h(4, 0) = poison<T>();
  Kokkos::deep_copy(v, h);
  const std::string base =
      ::testing::TempDir() + "unison_determinism_" + Exec::name() + "_" + std::to_string(sizeof(T));
  const std::string p1 = base + "_1.npy", p2 = base + "_2.npy";
  unison::write_npy(p1, v);
  unison::write_npy(p2, v);
  const std::string bytes1 = file_bytes(p1), bytes2 = file_bytes(p2);
  EXPECT_FALSE(bytes1.empty());
  EXPECT_TRUE(bytes1 == bytes2) << "the two files differ";
  const auto r1 = unison::read_npy<T>(p1), r2 = unison::read_npy<T>(p2);
  EXPECT_TRUE(bitwise_equal(r1, r2)) << "read back twice";
  EXPECT_TRUE(bitwise_equal(r1, v)) << "round trip";
  std::remove(p1.c_str());
  std::remove(p2.c_str());
}

template <class Exec>
void test_npy() {
  check_npy<Exec, float>();
  check_npy<Exec, double>();
}

}  // namespace determinism

template <class Exec>
struct NpyDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(NpyDeterminism, Backends, BackendName);
TYPED_TEST(NpyDeterminism, npy_round_trip) { determinism::test_npy<TypeParam>(); }

}  // namespace
