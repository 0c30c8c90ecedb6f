#pragma once
// unison/detail/histogram/dispatch.hpp: part of unison/histogram.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). The zeroing of the counts and the choice of
// counting kernel and launch shape for histogram, once its arguments are checked.

#include <unison/detail/histogram/global.hpp>

namespace unison::detail::histogram {

// The private histograms per team that histogram keeps in team scratch for nbins bins of values
// of type T on exec (a power of two: as many as fit, up to Tuning::copies; on CPUs that count in
// packs, one per lane), or 0 where even one does not fit: then every value takes a global atomic.
template <class Exec, class T>
int histogram_team_copies(const Exec& exec, std::int64_t nbins) {
  using Tuning = backends::HistogramTuning<Exec>;
  using Teams = HistogramTeams<Exec, Kokkos::View<const T*, typename Exec::memory_space>,
                               Kokkos::View<std::int64_t*, typename Exec::memory_space>, true>;
  using Policy = Kokkos::TeamPolicy<Exec>;
  std::size_t room = Policy(exec, 1, Tuning::team_size).scratch_size_max(Tuning::scratch_level);
  if (room > Tuning::max_scratch_bytes) room = Tuning::max_scratch_bytes;
  int copies = Tuning::copies;
  if constexpr (Tuning::packs && backends::has_pack_v<T>) copies = Teams::host_copies;
  while (copies > 1 && Teams::scratch_bytes(copies, nbins) > room) copies /= 2;
  return nbins < INT32_MAX && Teams::scratch_bytes(copies, nbins) <= room ? copies : 0;
}

// Enqueues counts = 0, then the counts of x in `bins` on exec; fn names the public function in
// errors.
template <class Exec, class XV, class CV>
void histogram_launch(const char* fn, const Exec& exec, const XV& x, const CV& counts,
                      const Bins& bins) {
  const std::int64_t nbins = counts.extent(0), n = x.extent(0);
  const double xmin = bins.xmin, xmax = bins.xmax;
  Kokkos::parallel_for(
      "unison::histogram::zero",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, nbins),
      KOKKOS_LAMBDA(std::int64_t k) { counts(k) = 0; });
  if (n == 0) return;

  using Tuning = backends::HistogramTuning<Exec>;
  using Teams = HistogramTeams<Exec, XV, CV, true>;
  using T = typename XV::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  const int copies = histogram_team_copies<Exec, T>(exec, nbins);
  if (copies > 0) {
    const auto [league, per_team] = team_blocks(fn, exec, n);
    // The estimate in T when its error stays below a quarter bin: E_0 within a quarter bin of
    // xmin, and few enough bins for T's rounding of (v - E_0) / width (always for double).
    const double origin_error = (double(threshold<T>(xmin)) - xmin) * bins.inverse_width;
    // The estimate's margin (count_packs): twice the bound on its error in bins, the offset
    // of E_0 from xmin, T's rounding of (v - E_0), of 1 / width and of the product (below
    // 4 eps (nbins + 1)), and the edges' own rounding in double.
    const double eps = std::numeric_limits<T>::epsilon();
    const double reach = std::fabs(xmin) > std::fabs(xmax) ? std::fabs(xmin) : std::fabs(xmax);
    const double margin =
        2 * (std::fabs(origin_error) + 4 * eps * double(nbins + 1) +
             4 * std::numeric_limits<double>::epsilon() * reach * bins.inverse_width);
    // (a margin of 1: no lane is ever clear, every pack is checked against the edges)
    const T margin_t = margin < 0.25 ? T(margin * (1 + 4 * eps)) : T(1);
    // (and E_nbins - E_0 finite in T: every estimate is finite, below about nbins)
    const T inverse_t = T(bins.inverse_width), span_t = threshold<T>(xmax) - threshold<T>(xmin);
    const bool estimate_in_t = std::is_same_v<T, double> ||
                               (origin_error <= 0.25 && nbins <= (std::int64_t(1) << 20) &&
                                inverse_t > 0 && inverse_t < Kokkos::Experimental::infinity_v<T> &&
                                span_t < Kokkos::Experimental::infinity_v<T>);
    Policy policy(exec, int(league), Tuning::team_size);
    policy.set_scratch_size(Tuning::scratch_level,
                            Kokkos::PerTeam(Teams::scratch_bytes(copies, nbins)));
    if (estimate_in_t)
      Kokkos::parallel_for(
          "unison::histogram::bins", policy,
          Teams{x, counts, bins, n, per_team, copies, T(bins.inverse_width), margin_t});
    else if constexpr (!std::is_same_v<T, double>)
      Kokkos::parallel_for("unison::histogram::bins", policy,
                           HistogramTeams<Exec, XV, CV, false>{x, counts, bins, n, per_team, copies,
                                                               T(bins.inverse_width), margin_t});
  } else {
    Kokkos::parallel_for("unison::histogram::bins",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                         HistogramGlobal<XV, CV>{x, counts, bins});
  }
}

}  // namespace unison::detail::histogram
