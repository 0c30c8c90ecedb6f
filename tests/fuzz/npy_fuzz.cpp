// libFuzzer target over the .npy parser: any byte string must either parse into an array
// whose shape and data agree, no larger than the input, or throw unison::invalid_argument whose
// message starts with the function's name and the input's name. A crash, a sanitizer report,
// another exception, a hang, an allocation beyond the memory limit (run.sh: 512 MB) or an
// inconsistent result is a finding.
// Built and run by tests/fuzz/run.sh (clang's -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <string>

#include <unison/detail/npy_format.hpp>

namespace {

void check(const std::string& bytes, const char* descr, int rank) {
  try {
    const auto a = unison::detail::parse_npy("npy_fuzz", "input", bytes, descr, rank);
    std::size_t count = 1;
    for (auto n : a.shape) {
      if (n < 0) __builtin_trap();
      count *= std::size_t(n);
    }
    const std::size_t word = descr[2] == '4' ? 4 : 8;
    if (int(a.shape.size()) != rank || a.data.size() != count * word ||
        a.data.size() > bytes.size())
      __builtin_trap();
  } catch (const unison::invalid_argument& e) {
    // A refused file: the expected outcome for almost every input.
    if (std::string(e.what()).rfind("npy_fuzz: input: ", 0) != 0) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  check(bytes, "<f4", 2);
  check(bytes, "<f8", 2);
  check(bytes, "<f4", 1);
  check(bytes, "<f4", 3);
  return 0;
}
