#pragma once
// unison/detail/matmul/workspace.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The layout of matmul_reduce's workspace: written once, read by the schedule (schedule.hpp),
// which sizes it, and by the launches, which cut it into its parts.

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/matmul_types.hpp>

namespace unison::detail::matmul {

// Whether matmul_reduce recomputes the column sums of T that come out infinite or NaN (Wide, in
// column_sums.hpp): float and double data.
template <class T>
inline constexpr bool rescued_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

// The blocks of `per` rows that `rows` rows make (at least one): the rows of the partial column
// sums.
inline std::int64_t column_blocks(std::int64_t rows, std::int64_t per) {
  return rows == 0 ? 1 : rows / per + (rows % per != 0 ? 1 : 0);
}

// One part of the workspace: a rows x cols array, row-major, of elements of `bytes` bytes
// (the value type's, or a double's), aligned to its element size.
struct WorkspacePart {
  std::int64_t rows, cols, bytes;
};
using WorkspaceParts = std::array<WorkspacePart, 4>;

// The parts of the workspace of `method` (automatic: reassociated) for A (m x k) and B (k x n)
// of value type T, whose column sums add `per` rows a work item, in order:
//   reassociated: the column sums of A (1 x k), A's partial column sums by blocks of rows
//                 (column_blocks(m) x k), B's weighted partial column sums (column_blocks(k) x
//                 n), all of T; then the column sums of A recomputed where they overflowed
//                 (2 x k doubles: each one's Wide significand and exponent);
//   gemm:         A.B (m x n), its partial column sums (column_blocks(m) x n), of T;
//   tiled:        none.
template <class T>
WorkspaceParts workspace_parts(std::int64_t m, std::int64_t k, std::int64_t n, MatmulMethod method,
                               std::int64_t per) {
  constexpr std::int64_t t = sizeof(T), d = sizeof(double);
  switch (method) {
    case MatmulMethod::tiled:
      return {{{0, 0, t}, {0, 0, t}, {0, 0, t}, {0, 0, d}}};
    case MatmulMethod::gemm:
      return {{{m, n, t}, {column_blocks(m, per), n, t}, {0, 0, t}, {0, 0, d}}};
    default:
      return {{{1, k, t},
               {column_blocks(m, per), k, t},
               {column_blocks(k, per), n, t},
               {rescued_v<T> ? 2 : 0, k, d}}};
  }
}

// The alignment the workspace's parts need, and the bytes a View of T may need to skip to
// reach it.
template <class T>
inline constexpr std::int64_t workspace_align = alignof(T) > alignof(double) ? alignof(T)
                                                                             : alignof(double);
template <class T>
inline constexpr std::int64_t workspace_slack = workspace_align<T> - alignof(T);

// The workspace's size in bytes, in long double (each term below 2^190: no overflow), for the
// checks; workspace_offset and workspace_elements count it exactly once it is known to fit.
template <class T>
long double workspace_bytes(const WorkspaceParts& parts) {
  long double bytes = workspace_slack<T>;
  for (const auto& part : parts)
    bytes += (long double)(part.rows) * (long double)(part.cols) * part.bytes + part.bytes;
  return bytes;
}

// Where part `i` starts, in bytes from the workspace's start once aligned to workspace_align.
inline std::int64_t workspace_offset(const WorkspaceParts& parts, int i) {
  std::int64_t offset = 0;
  for (int j = 0; j <= i; ++j) {
    const std::int64_t align = parts[j].bytes;
    offset = (offset + align - 1) / align * align;
    if (j < i) offset += parts[j].rows * parts[j].cols * parts[j].bytes;
  }
  return offset;
}

// The elements of T that hold the workspace, wherever a View of T starts.
template <class T>
std::int64_t workspace_elements(const WorkspaceParts& parts) {
  const std::int64_t end =
      workspace_offset(parts, 3) + parts[3].rows * parts[3].cols * parts[3].bytes;
  if (end == 0) return 0;
  const std::int64_t bytes = workspace_slack<T> + end;
  return (bytes + std::int64_t(sizeof(T)) - 1) / std::int64_t(sizeof(T));
}

// Part `i` of the workspace that starts at `work` (a View of T's data), as an unmanaged
// rows x cols View of E in memory space Mem.
template <class E, class Mem>
using WorkspaceView =
    Kokkos::View<E**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class E, class Mem, class T>
WorkspaceView<E, Mem> workspace_part(T* work, const WorkspaceParts& parts, int i) {
  constexpr std::uintptr_t align = workspace_align<T>;
  const std::uintptr_t base = (reinterpret_cast<std::uintptr_t>(work) + align - 1) / align * align;
  return WorkspaceView<E, Mem>(
      reinterpret_cast<E*>(base + std::uintptr_t(workspace_offset(parts, i))),
      std::size_t(parts[i].rows), std::size_t(parts[i].cols));
}

}  // namespace unison::detail::matmul
