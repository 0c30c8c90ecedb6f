#pragma once
// unison/detail/convolve/dispatch.hpp: part of unison/convolve.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The choice of kernel and launch shape for convolve, once its arguments are checked.

#include <unison/convolve_types.hpp>
#include <unison/detail/convolve/tiled.hpp>

namespace unison::detail::convolve {

// Enqueues y = x * k (mode) by `algorithm` (automatic: the backend's choice by the number of
// taps) on exec; fn names the public function in errors.
template <class Exec, class X, class K, class Y>
void convolve_launch(const char* fn, const Exec& exec, const X& x, const K& k, const Y& y,
                     ConvolveMode mode, ConvolveAlgorithm algorithm) {
  using T = typename Y::non_const_value_type;
  const std::int64_t n = x.extent(0), m = k.extent(0), len = y.extent(0);
  using Tuning = backends::ConvolveTuning<Exec>;
  ConvolveShape shape{n, m,
                      mode == ConvolveMode::full   ? 0
                      : mode == ConvolveMode::same ? (m - 1) / 2
                                                   : m - 1,
                      len};
  if (algorithm == ConvolveAlgorithm::automatic)
    algorithm = m >= Tuning::tiled_min_taps ? ConvolveAlgorithm::tiled : ConvolveAlgorithm::direct;
  if (algorithm == ConvolveAlgorithm::direct) {
    if constexpr (Tuning::packs && backends::has_pack_v<T>) {
      if (x.stride(0) == 1 && y.stride(0) == 1 && m <= INT32_MAX) {
        const std::int64_t threads = exec.concurrency();
        std::int64_t block = (len + 4 * threads - 1) / (4 * threads);
        block = std::clamp<std::int64_t>((block + 63) / 64 * 64, 1024, 1 << 16);
        const bool streaming = backends::host_streams(std::int64_t((n + len) * sizeof(T)));
        Kokkos::parallel_for("unison::convolve::direct",
                             Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                                 exec, 0, (len + block - 1) / block),
                             ConvolveBlocks<Tuning, X, K, Y>{x, k, y, shape, block, streaming});
        return;
      }
    }
    constexpr int V = Tuning::vector_bytes / int(sizeof(T));
    constexpr int M = Tuning::window_taps;
    if constexpr (V == 2 || V == 4) {
      if (m <= M && x.stride(0) == 1 && y.stride(0) == 1) {
        using Kernel = ConvolveWindowed<X, K, Y, V, M>;
        constexpr std::uintptr_t bytes = sizeof(T) * V;
        const auto addr = [](const T* p) { return reinterpret_cast<std::uintptr_t>(p); };
        const std::int64_t head = std::min<std::int64_t>(
            len, std::int64_t((bytes - addr(y.data()) % bytes) % bytes / sizeof(T)));
        // x[p] sits at position (p + x's offset from a 16-byte boundary) % V of its chunk.
        const std::int64_t xoff = std::int64_t(addr(x.data()) % bytes / sizeof(T));
        const int shift = int((head + shape.offset + V - 1 + xoff) % V);
        Kokkos::parallel_for("unison::convolve::direct",
                             Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                                 exec, 0, Kernel::items(head, len)),
                             Kernel{x, k, y, shape, head, shift});
        return;
      }
    }
    Kokkos::parallel_for("unison::convolve::direct",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, len),
                         ConvolveDirect<X, K, Y>{x, k, y, shape});
  } else {
    using Kernel = ConvolveTiled<Exec, X, K, Y>;
    const int tile = Tuning::tile;
    const std::int64_t league = (len + tile - 1) / tile;
    require(league <= std::int64_t(INT32_MAX), fn, "y (", len, ") has ", league, " tiles of ", tile,
            ", more than 2^31 - 1 for one launch of the tiled algorithm");
    Kokkos::TeamPolicy<Exec> policy(exec, int(league), Tuning::team_size);
    policy.set_scratch_size(Tuning::scratch_level,
                            Kokkos::PerTeam(Kernel::scratch_bytes(tile, Tuning::chunk)));
    const bool streaming = backends::host_streams(std::int64_t((n + len) * sizeof(T)));
    Kokkos::parallel_for(
        "unison::convolve::tiled", policy,
        Kernel{x, k, y, shape, tile, Tuning::chunk, Tuning::scratch_level, streaming});
  }
}

}  // namespace unison::detail::convolve
