#pragma once
// unison/detail/matmul/schedule.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// What matmul_reduce runs, decided once from its arguments, its method and the backend's
// MatmulTuning (unison/backends/tuning.hpp): the one reader of that tuning in this folder. The
// kernels take its compile-time values from KernelShape; the launches (launch.hpp) take a
// Schedule and only launch.

#include <cstdint>
#include <limits>
#include <string>

#include <unison/backends/host/pack.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/matmul/workspace.hpp>
#include <unison/matmul_types.hpp>

namespace unison::detail::matmul {

// The schedule's compile-time part: the backend's values that the kernels are instantiated with
// (MatmulReduceTiled, MatmulReduceTiledHost, the column sums' chunk of columns).
template <class Exec>
struct KernelShape {
  using From = backends::MatmulTuning<Exec>;
  static constexpr int tile_m = From::tile_m, tile_n = From::tile_n, tile_k = From::tile_k;
  static constexpr int micro_m = From::micro_m, micro_n = From::micro_n;
  static constexpr int team_size = From::team_size, min_teams = From::min_teams;
  static constexpr int scratch_level = From::scratch_level;
  static constexpr int column_chunk = From::column_chunk;
  static constexpr bool packs = From::packs;
  static constexpr int host_tile_m = From::host_tile_m, host_tile_n = From::host_tile_n,
                       host_tile_k = From::host_tile_k;
};

// Whether the tiled method has its CPU form (register micro-tiles, MatmulReduceTiledHost) for
// value type T on Exec: where B's rows have contiguous elements it takes it.
template <class Exec, class T>
inline constexpr bool host_tiles_v = KernelShape<Exec>::packs&& backends::has_pack_v<T>;

// The method that runs for `method`: automatic is reassociated.
inline MatmulMethod resolved(MatmulMethod method) {
  return method == MatmulMethod::automatic ? MatmulMethod::reassociated : method;
}

// What runs: nothing (n = 0), out filled with zeros (m or k = 0), the tiled method on CPUs
// (register micro-tiles) or in GPU-style teams, the reassociated method or the gemm method.
enum class Launch { nothing, zeros, tiled_host, tiled, reassociated, gemm };

// One call's decision: everything the launches need that is not a View.
struct Schedule {
  MatmulMethod method = MatmulMethod::reassociated;  // the method that runs (never automatic)
  Launch launch = Launch::nothing;
  std::int64_t m = 0, k = 0, n = 0;  // A is m x k, B is k x n
  // tiled: the tile of A.B a team computes, the tiles by rows and columns, the team's threads
  // and the scratch level of its tile.
  int tile_m = 0, tile_n = 0;
  std::int64_t tiles_m = 0, tiles_n = 0;
  int team_size = 0, scratch_level = 0;
  // gemm and reassociated: the rows one work item of the column sums adds up; the workspace's
  // parts (workspace.hpp) and the elements of the value type that hold them.
  std::int64_t column_rows = 0;
  WorkspaceParts parts{};
  std::int64_t workspace_elements = 0;
};

// The schedule of matmul_reduce for A (m x k) and B (k x n) of value type T on Exec, by `method`
// (checked: checks.hpp), B's rows with contiguous elements or not. Refuses, naming fn, what it
// cannot schedule: a workspace whose size in bytes a 64-bit count cannot hold (`what` names that
// memory in the message; empty: the size asked of matmul_reduce_workspace_size, which launches
// nothing), and for a call, more tiles of A.B than one launch holds.
template <class Exec, class T>
Schedule make_schedule(const char* fn, const std::string& what, std::int64_t m, std::int64_t k,
                       std::int64_t n, MatmulMethod method, bool b_rows_contiguous) {
  using Shape = KernelShape<Exec>;
  Schedule s;
  s.method = resolved(method);
  s.m = m, s.k = k, s.n = n;
  s.column_rows = backends::MatmulTuning<Exec>::column_rows;
  if (n == 0) s.launch = Launch::nothing;
  else if (m == 0 || k == 0) s.launch = Launch::zeros;
  else if (s.method == MatmulMethod::tiled)
    s.launch = host_tiles_v<Exec, T> && b_rows_contiguous ? Launch::tiled_host : Launch::tiled;
  else s.launch = s.method == MatmulMethod::gemm ? Launch::gemm : Launch::reassociated;
  if (s.launch == Launch::tiled_host || s.launch == Launch::tiled) {
    // CPUs: a team is one thread, its tile in scratch level 1 (ordinary memory).
    const bool host = s.launch == Launch::tiled_host;
    s.tile_m = host ? Shape::host_tile_m : Shape::tile_m;
    s.tile_n = host ? Shape::host_tile_n : Shape::tile_n;
    s.team_size = host ? 1 : Shape::team_size;
    s.scratch_level = host ? 1 : Shape::scratch_level;
    s.tiles_m = (m + s.tile_m - 1) / s.tile_m;
    s.tiles_n = (n + s.tile_n - 1) / s.tile_n;
    // (Only a call's Views are held to one launch, `what` naming them: a workspace-size query may
    // name extents whose tiles overflow a 64-bit count, and needs no launch.)
    if (!what.empty())
      require(s.tiles_m <= std::int64_t(INT32_MAX) / s.tiles_n, fn, "A.B (", m, "x", n, ") has ",
              s.tiles_m * s.tiles_n, " tiles of ", s.tile_m, "x", s.tile_n,
              ", more than 2^31 - 1 for one launch of the tiled method");
  }
  if (m == 0 || k == 0 || n == 0) return s;
  s.parts = workspace_parts<T>(m, k, n, s.method, s.column_rows);
  const long double bytes = workspace_bytes<T>(s.parts);
  const bool fits = bytes <= (long double)(std::numeric_limits<std::int64_t>::max());
  if (what.empty())
    require(fits, fn, "m, k, n are ", m, ", ", k, ", ", n, ": the workspace of about ", bytes,
            " bytes overflows a 64-bit count");
  else
    require(fits, fn, what, " needs about ", bytes,
            " bytes, more than 2^63 - 1, the most a 64-bit size counts (no memory holds it)",
            s.method == MatmulMethod::tiled ? "" : "; the tiled method needs no temporary memory");
  s.workspace_elements = workspace_elements<T>(s.parts);
  return s;
}

// The caller's workspace (the second form of matmul_reduce), of `extent` elements, holds what
// the schedule needs.
inline void check_workspace_size(const char* fn, std::int64_t extent, const Schedule& s) {
  require(extent >= s.workspace_elements, fn, "workspace has ", extent,
          " elements, the method needs ", s.workspace_elements,
          " (matmul_reduce_workspace_size<Exec, T>)");
}

}  // namespace unison::detail::matmul
