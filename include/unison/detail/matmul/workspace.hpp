#pragma once
// unison/detail/matmul/workspace.hpp: part of unison/matmul.hpp, which includes it after
// the family's public types (not a header to include on its own).
// The method's check, and the layout of matmul_reduce's workspace: written once, read by
// matmul_reduce_workspace_size and by each method's launches.

#include <array>

#include <unison/detail/matmul/fill.hpp>

namespace unison::detail {

// Throws unison::invalid_argument naming fn unless method is a MatmulMethod.
inline void check_method(const char* fn, MatmulMethod method) {
  require(method == MatmulMethod::automatic || method == MatmulMethod::tiled ||
              method == MatmulMethod::gemm || method == MatmulMethod::reassociated,
          fn, "unknown method ", int(method));
}

// One part of the workspace: a rows x cols array, row-major, after the parts before it.
struct WorkspacePart {
  std::int64_t rows, cols;
};

// The parts of the workspace of `method` (automatic: reassociated) for A (m x k) and B (k x n),
// in order:
//   reassociated: the column sums of A (1 x k), A's partial column sums by blocks of rows
//                 (column_blocks(m) x k), B's weighted partial column sums (column_blocks(k) x n);
//   gemm:         A.B (m x n), its partial column sums (column_blocks(m) x n);
//   tiled:        none.
template <class Exec>
std::array<WorkspacePart, 3> workspace_parts(std::int64_t m, std::int64_t k, std::int64_t n,
                                             MatmulMethod method) {
  switch (method) {
    case MatmulMethod::tiled:
      return {{{0, 0}, {0, 0}, {0, 0}}};
    case MatmulMethod::gemm:
      return {{{m, n}, {column_blocks<Exec>(m), n}, {0, 0}}};
    default:
      return {{{1, k}, {column_blocks<Exec>(m), k}, {column_blocks<Exec>(k), n}}};
  }
}

// Where part `i` starts, in elements from the workspace's start.
inline std::int64_t workspace_offset(const std::array<WorkspacePart, 3>& parts, int i) {
  std::int64_t offset = 0;
  for (int j = 0; j < i; ++j) offset += parts[j].rows * parts[j].cols;
  return offset;
}

}  // namespace unison::detail
