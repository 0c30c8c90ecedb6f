#pragma once
// unison/detail/diffusion/tiled.hpp: part of unison/diffusion.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// `tiled` and `blocked`: a tile and its halo in team scratch, one step or several per pass.

#include <unison/detail/diffusion/schedule.hpp>
#include <unison/detail/diffusion/stencil.hpp>

namespace unison::detail::diffusion {

// One pass of `steps` steps over tiles of tile_rows x tile_cols cells. A team copies its tile
// with a halo `steps` cells wide (zeros outside the field) into scratch buffer a (a CPU team
// reads the field in place instead), then each step computes one ring fewer of halo into the
// other buffer and swaps them, so that the last step's region is exactly the tile; that step
// writes the new field and, if asked, its Laplacian to memory. Its team scratch:
// tile_scratch_bytes (schedule.hpp). Cells outside the field are never
// computed and stay 0 in both buffers, as the neighbour rule requires.
template <class Exec, bool Transposed, class F, class FN, class L>
struct DiffusionPass {
  using T = typename FN::non_const_value_type;
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  F f;
  FN next;
  L lapl;
  T coeff;
  bool write_lapl;
  std::int64_t rows, cols, tiles_across;
  int tile_rows, tile_cols, steps;
  int scratch_level;  // team scratch level
  bool reverse;       // tiles in reverse order (see diffusion_pass)

  // Elements per wide access on this backend (1: none).
  static constexpr int K = StaticSchedule<Exec>::vector_bytes >= int(2 * sizeof(T))
                               ? StaticSchedule<Exec>::vector_bytes / int(sizeof(T))
                               : 1;

  // Stores the n cells of a row: value(p, lap, v) computes cell p; out[p * stride] = v, and
  // extra(p, lap) / extra_chunk(p, laps) store the Laplacians. With stride 1, K consecutive
  // cells are stored with one wide access.
  template <class Member, class Value, class Extra, class ExtraChunk = int>
  KOKKOS_FORCEINLINE_FUNCTION static void store_row(const Member& team, T* out, std::int64_t stride,
                                                    int n, const Value& value, const Extra& extra,
                                                    const ExtraChunk& extra_chunk = 0) {
    const auto one = [&](int p) {
      T lap, v;
      value(p, lap, v);
      out[p * stride] = v;
      extra(p, lap);
    };
    if (stride != 1) return vector_for(team, 0, n, one);
    by_chunks<T, K>([&](int b0, int e0, const auto& g) { vector_for(team, b0, e0, g); }, out, n,
                    one,
                    [&](int p) {
                      Chunk<T, K> vs, laps;
                      for (int e = 0; e < K; ++e) value(p + e, laps.v[e], vs.v[e]);
                      *reinterpret_cast<Chunk<T, K>*>(out + p) = vs;
                      if constexpr (std::is_same_v<ExtraChunk, int>) {
                        for (int e = 0; e < K; ++e) extra(p + e, laps.v[e]);
                      } else {
                        extra_chunk(p, laps);
                      }
                    });
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t tile =
        reverse ? team.league_size() - 1 - team.league_rank() : team.league_rank();
    const std::int64_t r0 = tile / tiles_across * tile_rows - steps;
    const std::int64_t c0 = tile % tiles_across * tile_cols - steps;
    const int h = tile_rows + 2 * steps, w = tile_cols + 2 * steps;
    Scratch sa(team.team_scratch(scratch_level), h * w);
    Scratch sb = steps > 1 ? Scratch(team.team_scratch(scratch_level), h * w) : sa;
    T* a = sa.data();
    T* b = sb.data();
    // The scratch rows [y0, y1) and columns [x0, x1) that lie inside the field.
    const int y0 = r0 < 0 ? int(-r0) : 0, x0 = c0 < 0 ? int(-c0) : 0;
    const int y1 = rows - r0 < h ? int(rows - r0) : h, x1 = cols - c0 < w ? int(cols - c0) : w;

    // The first step reads its cells from scratch buffer a (the tile and its halo, copied
    // there) or, for a CPU team (one thread) on a field with contiguous grid rows, from the field
    // itself: a CPU team's scratch is ordinary memory, so the copy would only add a pass over the
    // tile (a large share of the Serial `tiled` step's time when profiled: docs/tuning.md).
    const std::int64_t f_stride = column_stride<Transposed>(f);
    bool staged = true;
    if constexpr (StaticSchedule<Exec>::read_in_place) staged = f_stride != 1;
    // Zeros outside the field, in both buffers, and the tile and its halo copied into a if
    // staged (asynchronous copies on GPUs: all of a thread's in flight at once). In place, the
    // first step takes the field's edges as zeros itself, and only later steps read the zeros
    // around the field's part of each buffer.
    if (staged || (steps > 1 && (y0 > 0 || x0 > 0 || y1 < h || x1 < w))) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, h), [&](int y) {
        T* ay = a + y * w;
        T* by = b + y * w;
        const bool row_inside = y >= y0 && y < y1 && x1 > x0;
        const int xa = row_inside ? x0 : w, xb = row_inside ? x1 : w;
        vector_for(team, 0, xa, [&](int x) { ay[x] = 0; });
        vector_for(team, xb, w, [&](int x) { ay[x] = 0; });
        if (steps > 1) {
          vector_for(team, 0, xa, [&](int x) { by[x] = 0; });
          vector_for(team, xb, w, [&](int x) { by[x] = 0; });
        }
        if (row_inside && staged) {
          const T* src = &cell<Transposed>(f, r0 + y, c0 + x0);
          T* dst = ay + x0;
          vector_for(team, 0, x1 - x0,
                     [&](int p) { backends::copy_to_scratch_async(dst + p, src + p * f_stride); });
        }
      });
      backends::copy_scratch_wait();
      team.team_barrier();
    }

    const std::int64_t next_stride = column_stride<Transposed>(next),
                       lapl_stride = column_stride<Transposed>(lapl);
    for (int s = 1; s <= steps; ++s) {
      const int ya = s > y0 ? s : y0, yb = h - s < y1 ? h - s : y1;
      const int xa = s > x0 ? s : x0, xb = w - s < x1 ? w - s : x1;
      if (xb <= xa) break;  // nothing of the field in this tile's region (cannot happen at s=1)
      const bool last = s == steps;
      if constexpr (StaticSchedule<Exec>::read_in_place) {
        static_assert(StaticSchedule<Exec>::team_size == 1,
                      "read_in_place: a team of one thread computes its rows in turn");
        // A CPU team: each row's cells by stencil_cells, the streaming kernel's row code, from
        // the field (in place: a row outside it reads as zeros, and the field's first and last
        // columns have no neighbour beyond) or from buffer a (zeros around the field's part).
        const bool in_place = s == 1 && !staged;
        const bool left_edge = in_place && c0 + xa == 0, right_edge = in_place && c0 + xb == cols;
        for (int y = ya; y < yb; ++y) {
          const std::int64_t r = r0 + y;
          const T* mid = a + y * w + xa;
          const T *up = mid - w, *down = mid + w;
          bool u = true, d = true;
          if (in_place) {
            mid = &cell<Transposed>(f, r, c0 + xa);
            u = y - 1 >= y0;
            d = y + 1 < y1;
            up = u ? &cell<Transposed>(f, r - 1, c0 + xa) : mid;
            down = d ? &cell<Transposed>(f, r + 1, c0 + xa) : mid;
          }
          if (!last) {
            stencil_cells<T, host_chunk_v<T>, false>(u, d, up, mid, down, 1, b + y * w + xa, 1,
                                                     nullptr, 1, xb - xa, left_edge, right_edge,
                                                     coeff);
          } else if (write_lapl) {
            stencil_cells<T, host_chunk_v<T>, true>(
                u, d, up, mid, down, 1, &cell<Transposed>(next, r, c0 + xa), next_stride,
                &cell<Transposed>(lapl, r, c0 + xa), lapl_stride, xb - xa, left_edge, right_edge,
                coeff);
          } else {
            stencil_cells<T, host_chunk_v<T>, false>(
                u, d, up, mid, down, 1, &cell<Transposed>(next, r, c0 + xa), next_stride, nullptr,
                1, xb - xa, left_edge, right_edge, coeff);
          }
        }
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ya, yb > ya ? yb : ya), [&](int y) {
          const T* KOKKOS_RESTRICT up = a + (y - 1) * w;
          const T* KOKKOS_RESTRICT mid = a + y * w;
          const T* KOKKOS_RESTRICT down = a + (y + 1) * w;
          const auto at = [&](int x, T& lap, T& v) {
            stencil<T>(mid[x], up[x], down[x], mid[x - 1], mid[x + 1], coeff, lap, v);
          };
          if (!last) {
            T* KOKKOS_RESTRICT dst = b + y * w;
            vector_for(team, xa, xb, [&](int x) {
              T lap, v;
              at(x, lap, v);
              dst[x] = v;
            });
            return;
          }
          T* out = &cell<Transposed>(next, r0 + y, c0 + xa);
          const int n = xb - xa;
          if (!write_lapl) {
            store_row(
                team, out, next_stride, n, [&](int p, T& lap, T& v) { at(xa + p, lap, v); },
                [&](int, T) {});
            return;
          }
          T* lout = &cell<Transposed>(lapl, r0 + y, c0 + xa);
          // Both outputs in chunks when they are equally aligned; else one element at a time.
          const bool together = reinterpret_cast<std::uintptr_t>(out) % 16 ==
                                reinterpret_cast<std::uintptr_t>(lout) % 16;
          if (together && lapl_stride == 1) {
            store_row(
                team, out, next_stride, n, [&](int p, T& lap, T& v) { at(xa + p, lap, v); },
                [&](int p, T lap) { backends::store_streaming(lout + p, lap); },
                [&](int p, const Chunk<T, K>& laps) {
                  backends::store_streaming(reinterpret_cast<Chunk<T, K>*>(lout + p), laps);
                });
          } else {
            vector_for(team, 0, n, [&](int p) {
              T lap, v;
              at(xa + p, lap, v);
              out[p * next_stride] = v;
              backends::store_streaming(lout + p * lapl_stride, lap);
            });
          }
        });
      }
      if (!last) {
        team.team_barrier();
        T* t = a;
        a = b;
        b = t;
      }
    }
    backends::store_streaming_fence();  // CPUs: the Laplacian's non-temporal stores
  }
};

}  // namespace unison::detail::diffusion
