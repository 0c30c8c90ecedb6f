#pragma once
// unison/detail/convolve/schedule.hpp: part of unison/convolve.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// What convolve runs, decided once from its arguments, its algorithm and the backend's
// ConvolveTuning (unison/backends/tuning.hpp): the one reader of that tuning in this folder. The
// kernels take its compile-time values from KernelShape; the launches (launch.hpp) take a
// Schedule and only launch.

#include <algorithm>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/convolve_types.hpp>
#include <unison/detail/checks.hpp>

namespace unison::detail::convolve {

// y[i] = full[i + offset]; terms x[t - j] * k[j] for j from j_first(t) to j_last(t), ascending.
struct ConvolveShape {
  std::int64_t n, m, offset, out;
};

// The schedule's compile-time part: the backend's values that the kernels are instantiated with.
// The CPU kernels (ConvolveBlocks, window_sums) take `Host`, the backend's type itself, as a
// template argument.
template <class Exec>
struct KernelShape {
  using Host = backends::ConvolveTuning<Exec>;
  static constexpr bool packs = Host::packs;  // CPUs: outputs in packs
  // The tiled kernel's outputs and taps a team stages at a time, its threads, its scratch level.
  static constexpr int tile = Host::tile, chunk = Host::chunk, team_size = Host::team_size,
                       scratch_level = Host::scratch_level;
};

// The direct algorithm's CPU form (ConvolveBlocks) exists for value type T on Exec.
template <class Exec, class T>
inline constexpr bool blocks_v = KernelShape<Exec>::packs&& backends::has_pack_v<T>;
// The direct algorithm's wide form (ConvolveWindowed): W outputs a work item (2 or 4; else none),
// for up to M taps.
template <class Exec, class T>
inline constexpr int window_width_v = backends::ConvolveTuning<Exec>::vector_bytes / int(sizeof(T));
template <class Exec>
inline constexpr int window_taps_v = backends::ConvolveTuning<Exec>::window_taps;

// What runs: the direct algorithm on CPUs (a block of outputs per work item, ConvolveBlocks), in
// wide accesses (ConvolveWindowed) or one output per work item (ConvolveDirect); or the tiled
// algorithm (ConvolveTiled).
enum class Launch { blocks, windowed, direct, tiled };

// One call's decision: everything the launches need that is not a View.
struct Schedule {
  ConvolveAlgorithm algorithm = ConvolveAlgorithm::direct;  // never automatic
  Launch launch = Launch::direct;
  ConvolveShape shape{};
  // blocks: outputs per work item; blocks and tiled: y written with non-temporal stores.
  std::int64_t block = 0;
  bool streaming = false;
  // windowed: the outputs before y's first aligned chunk, and where the last element of an
  // item's window sits in its chunk of x.
  std::int64_t head = 0;
  int shift = 0;
  // tiled: outputs and taps a team stages at a time, its threads, its scratch level, the teams.
  int tile = 0, chunk = 0, team_size = 0, scratch_level = 0;
  std::int64_t league = 0;
};

// The schedule of y = x * k (mode) by `algorithm` (automatic: by the number of taps) on exec,
// the arguments checked (checks.hpp). Refuses, naming fn, more tiles than one launch holds.
template <class Exec, class X, class K, class Y>
Schedule make_schedule(const char* fn, const Exec& exec, const X& x, const K& k, const Y& y,
                       ConvolveMode mode, ConvolveAlgorithm algorithm) {
  using T = typename Y::non_const_value_type;
  using Tuning = backends::ConvolveTuning<Exec>;
  const std::int64_t n = x.extent(0), m = k.extent(0), len = y.extent(0);
  Schedule s;
  s.shape = ConvolveShape{n, m,
                          mode == ConvolveMode::full   ? 0
                          : mode == ConvolveMode::same ? (m - 1) / 2
                                                       : m - 1,
                          len};
  s.algorithm = algorithm != ConvolveAlgorithm::automatic ? algorithm
                : m >= Tuning::tiled_min_taps             ? ConvolveAlgorithm::tiled
                                                          : ConvolveAlgorithm::direct;
  if (s.algorithm == ConvolveAlgorithm::tiled) {
    s.launch = Launch::tiled;
    using Shape = KernelShape<Exec>;
    s.tile = Shape::tile;
    s.chunk = Shape::chunk;
    s.team_size = Shape::team_size;
    s.scratch_level = Shape::scratch_level;
    s.league = (len + s.tile - 1) / s.tile;
    require(s.league <= std::int64_t(INT32_MAX), fn, "y (", len, ") has ", s.league, " tiles of ",
            s.tile, ", more than 2^31 - 1 for one launch of the tiled algorithm");
    s.streaming = backends::host_streams(std::int64_t((n + len) * sizeof(T)));
    return s;
  }
  if (blocks_v<Exec, T> && x.stride(0) == 1 && y.stride(0) == 1 && m <= INT32_MAX) {
    s.launch = Launch::blocks;
    const std::int64_t threads = exec.concurrency();
    std::int64_t block = (len + 4 * threads - 1) / (4 * threads);
    s.block = std::clamp<std::int64_t>((block + 63) / 64 * 64, 1024, 1 << 16);
    s.streaming = backends::host_streams(std::int64_t((n + len) * sizeof(T)));
    return s;
  }
  constexpr int V = window_width_v<Exec, T>;
  if constexpr (V == 2 || V == 4) {
    if (m <= window_taps_v<Exec> && x.stride(0) == 1 && y.stride(0) == 1) {
      s.launch = Launch::windowed;
      constexpr std::uintptr_t bytes = sizeof(T) * V;
      const auto addr = [](const T* p) { return reinterpret_cast<std::uintptr_t>(p); };
      s.head = std::min<std::int64_t>(
          len, std::int64_t((bytes - addr(y.data()) % bytes) % bytes / sizeof(T)));
      // x[p] sits at position (p + x's offset from a 16-byte boundary) % V of its chunk.
      const std::int64_t xoff = std::int64_t(addr(x.data()) % bytes / sizeof(T));
      s.shift = int((s.head + s.shape.offset + V - 1 + xoff) % V);
      return s;
    }
  }
  s.launch = Launch::direct;
  return s;
}

}  // namespace unison::detail::convolve
