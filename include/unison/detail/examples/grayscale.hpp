#pragma once
// unison/detail/examples/grayscale.hpp: part of unison/examples.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// rgb_to_grayscale's kernels: a pixel per work item, or rows of pixels: 8-bit ones by byte
// permutes (CPUs with AVX-512 VBMI), the last pixels of a row included; float to float by float
// permutes (AVX-512), stored non-temporally past host_streaming_bytes(); and their launch.

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <unison/backends/device_info.hpp>
#include <unison/backends/host/grayscale.hpp>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/memory.hpp>
#include <unison/detail/checks.hpp>

namespace unison::detail::examples {

template <class RGB, class G>
struct Grayscale {
  using In = typename RGB::non_const_value_type;
  using Out = typename G::non_const_value_type;
  RGB rgb;
  G gray;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    const float v =
        0.299f * float(rgb(i, j, 0)) + 0.587f * float(rgb(i, j, 1)) + 0.114f * float(rgb(i, j, 2));
    if constexpr (std::is_floating_point_v<Out>) gray(i, j) = Out(v);
    else gray(i, j) = Out(v + 0.5f);  // uint8: rounded to nearest (v is in [0, 255])
  }
};

// CPUs: rows [i0, i1) of a LayoutRight-like image (channels contiguous, pixels 3 apart, gray's
// pixels contiguous), a row of pixels by permutes where the CPU has them (below), else in a
// plain loop over raw pointers that the compiler vectorises (its interleaved loads of R, G and B
// included), 64 pixels at a time with their data asked for ahead (backends::prefetch_ahead):
// the same arithmetic as Grayscale.
template <class RGB, class G>
struct GrayscaleRows {
  using In = typename RGB::non_const_value_type;
  using Out = typename G::non_const_value_type;
  RGB rgb;
  G gray;
  std::int64_t rows, width, per_item;
  bool streams;  // float-to-float results stored past the caches (backends::host_streams)
  void operator()(std::int64_t item) const {
    const std::int64_t i1 = (item + 1) * per_item < rows ? (item + 1) * per_item : rows;
    const std::int64_t w = width;  // a local: 8-bit stores could alias the member
    for (std::int64_t i = item * per_item; i < i1; ++i) {
      const In* src = &rgb(i, 0, 0);
      Out* dst = &gray(i, 0);
      // Pixels [j, j + 64)'s channels, asked for backends::host_prefetch_bytes ahead.
      const auto ask = [src](std::int64_t j) {
        backends::prefetch_ahead(src + 3 * j, 3 * 64 * sizeof(In));
      };
      // Pixel q: Grayscale's arithmetic.
      const auto pixel = [src, dst](std::int64_t q) {
        const float v = 0.299f * float(src[3 * q]) + 0.587f * float(src[3 * q + 1]) +
                        0.114f * float(src[3 * q + 2]);
        if constexpr (std::is_floating_point_v<Out>) dst[q] = Out(v);
        else dst[q] = Out(v + 0.5f);
      };
      std::int64_t j = 0;
      // 8-bit pixels 64 at a time, their bytes sorted by channel with the CPU's byte permutes
      // (the row's last block by masked loads and stores): the same float arithmetic, in the
      // same order, as the loop below.
      if constexpr (backends::pixels3_bytes && std::is_same_v<In, std::uint8_t> &&
                    (std::is_same_v<Out, std::uint8_t> || std::is_same_v<Out, float>)) {
        using V = backends::Pack<float>;
        const V r = backends::splat<V>(0.299f), g = backends::splat<V>(0.587f),
                b = backends::splat<V>(0.114f);
        for (; j < w; j += 64) {
          const int n = w - j < 64 ? int(w - j) : 64;
          ask(j);
          V c[3][4];
          if (n == 64) backends::pixels3_to_float(src + 3 * j, c);
          else backends::pixels3_to_float(src + 3 * j, n, c);
          for (int q = 0; q < 4; ++q) {
            const int m = n - 16 * q;  // the pack's pixels: 16 or more in a whole block
            if (m <= 0) break;
            const V v = r * c[0][q] + g * c[1][q] + b * c[2][q];
            if constexpr (std::is_same_v<Out, float>) {
              if (m >= 16) backends::store(dst + j + 16 * q, v);
              else backends::store_partial(dst + j + 16 * q, v, m);
            } else {
              backends::store_bytes_truncated(dst + j + 16 * q, v + backends::splat<V>(0.5f),
                                              m < 16 ? m : 16);
            }
          }
        }
      }
      // Float pixels 16 at a time, each channel gathered by permutes; past the caches stored
      // non-temporally from the row's first vector-aligned pixel on (the lines of gray are then
      // not read before they are written): the same arithmetic, in the same order, as below.
      if constexpr (backends::pixels3_floats && std::is_same_v<In, float> &&
                    std::is_same_v<Out, float>) {
        using V = backends::Pack<float>;
        const V r = backends::splat<V>(0.299f), g = backends::splat<V>(0.587f),
                b = backends::splat<V>(0.114f);
        if (streams)
          for (; j < w && reinterpret_cast<std::uintptr_t>(dst + j) % sizeof(V) != 0; ++j) pixel(j);
        for (; j + 16 <= w; j += 16) {
          backends::prefetch_ahead(src + 3 * j, 3 * 16 * sizeof(float));
          V c[3];
          backends::pixels3_to_float(src + 3 * j, c);
          const V v = r * c[0] + g * c[1] + b * c[2];
          if (streams) backends::store_vector_streaming(dst + j, v);
          else backends::store(dst + j, v);
        }
      }
      for (; j + 64 <= w; j += 64) {
        ask(j);
        for (std::int64_t q = j; q < j + 64; ++q) pixel(q);
      }
      for (; j < w; ++j) pixel(j);
    }
    if (streams) backends::store_streaming_fence();
  }
};

// rgb_to_grayscale's launch (its arguments checked, gray not empty): on CPUs, with the image's
// pixels and channels contiguous, rows in plain loops (GrayscaleRows); else a pixel per work
// item (Grayscale).
template <class Exec, class RV, class GV>
void rgb_to_grayscale(const Exec& exec, const RV& rgb, const GV& gray) {
  using In = typename RV::non_const_value_type;
  using Out = typename GV::non_const_value_type;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename Exec::memory_space>::accessible) {
    // CPUs, with the image's pixels and channels contiguous: rows in plain loops.
    if (rgb.stride(2) == 1 && rgb.stride(1) == 3 && gray.stride(1) == 1) {
      const std::int64_t rows = gray.extent(0), threads = exec.concurrency();
      const std::int64_t per = (rows + 4 * threads - 1) / (4 * threads);
      // Float results past the caches are stored non-temporally (GrayscaleRows).
      const bool streams =
          std::is_same_v<In, float> && std::is_same_v<Out, float> &&
          backends::host_streams(std::int64_t(rgb.span() * sizeof(In) + gray.span() * sizeof(Out)));
      Kokkos::parallel_for(
          "unison::examples::rgb_to_grayscale",
          Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0,
                                                                     (rows + per - 1) / per),
          GrayscaleRows<RV, GV>{rgb, gray, rows, std::int64_t(gray.extent(1)), per, streams});
      return;
    }
  }
  using Policy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      "unison::examples::rgb_to_grayscale",
      Policy(exec, {0, 0}, {std::int64_t(gray.extent(0)), std::int64_t(gray.extent(1))}),
      Grayscale<RV, GV>{rgb, gray});
}

}  // namespace unison::detail::examples
