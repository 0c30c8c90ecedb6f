#pragma once
// unison/detail/field/jagged.hpp: part of unison/field.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// jagged_field's kernels: the fill of the noise, and the count and write of the jagged shape.

#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/temporary.hpp>
#include <unison/field_types.hpp>

namespace unison::detail::field {

// The kernels of jagged_field, on the block of the image whose first cell is (x0, y0).
template <class N>
struct JaggedNoiseFill {
  N noise;
  JaggedNoise gen;
  std::int64_t x0, y0;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    noise(i, j) = gen(x0 + i, y0 + j);
  }
};
template <class N>
struct JaggedCount {
  N noise;
  std::int64_t threshold;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t j, std::int64_t& c) const {
    c += noise(i, j) <= threshold ? 1 : 0;
  }
};
template <class N, class F>
struct JaggedWrite {
  using T = typename F::non_const_value_type;
  N noise;
  F f;
  std::int64_t threshold;
  T scale;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    const std::int64_t v = noise(i, j);
    f(i, j) = v <= threshold ? T(0) : T(v) * scale;
  }
};

// jagged_field for the block f of an image of `cells` cells in all, f(0, 0) being the image's
// cell (x0, y0): `total(count)` turns the count of this block's cells at or below a threshold
// into the count over the whole image (the identity for a single block; a sum over the ranks
// under MPI). Every block then finds the same threshold and writes the same values as the whole
// image would hold.
// The noise array of a block f: one integer per cell.
template <class F>
using JaggedNoiseArray =
    Kokkos::View<std::int64_t**, Kokkos::LayoutRight, typename F::memory_space>;

// (given: a noise array the caller allocated, of f's extents; else allocated here.)
template <class Exec, class F, class Total>
void jagged_block(const char* fn, const Exec& exec, const F& f, std::uint64_t seed,
                  double zero_fraction, std::int64_t x0, std::int64_t y0, std::int64_t cells,
                  Total&& total, const JaggedNoiseArray<F>* given = nullptr) {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::jagged_field: the first argument must be a Kokkos execution space");
  static_assert(
      Kokkos::is_view_v<F> && F::rank() == 2 && std::is_floating_point_v<typename F::value_type>,
      "unison::jagged_field: f must be a rank-2 View of float or double");
  static_assert(detail::accessible_v<Exec, F>,
                "unison::jagged_field: f must be accessible from the execution space");
  detail::check_output(fn, "f", f);
  detail::require(zero_fraction >= 0 && zero_fraction <= 1, fn, "zero_fraction is ", zero_fraction,
                  ", must be in [0, 1]");
  using T = typename F::value_type;
  const std::int64_t nx = f.extent(0), ny = f.extent(1);
  if (cells == 0) return;
  using Policy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  using Noise = JaggedNoiseArray<F>;
  std::optional<detail::Temporary<Noise, Exec>> own;
  if (!given)
    own.emplace(
        detail::temporary<Noise>(fn, "the noise array", exec, "unison::field::noise", nx, ny));
  const Noise noise = given ? *given : own->view;
  if (nx > 0 && ny > 0)
    Kokkos::parallel_for("unison::field::jagged_noise", Policy(exec, {0, 0}, {nx, ny}),
                         JaggedNoiseFill<Noise>{noise, JaggedNoise{seed}, x0, y0});
  // The smallest threshold t with at least ceil(zero_fraction * cells) values <= t: bisection
  // on the integer values (exact counts, so the same t on every backend).
  const auto wanted = std::int64_t(std::ceil(zero_fraction * double(cells)));
  std::int64_t lo = -1, hi = JaggedNoise::max_value;  // count(<= lo) < wanted <= count(<= hi)
  if (wanted == 0) hi = -1;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    std::int64_t count = 0;
    if (nx > 0 && ny > 0)
      Kokkos::parallel_reduce("unison::field::jagged_count", Policy(exec, {0, 0}, {nx, ny}),
                              JaggedCount<Noise>{noise, mid}, count);
    exec.fence("unison::jagged_field: count");
    (total(count) >= wanted ? hi : lo) = mid;
  }
  if (nx > 0 && ny > 0)
    Kokkos::parallel_for("unison::field::jagged_write", Policy(exec, {0, 0}, {nx, ny}),
                         JaggedWrite<Noise, F>{noise, f, hi, T(1) / T(JaggedNoise::max_value + 1)});
}

}  // namespace unison::detail::field
