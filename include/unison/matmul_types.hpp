#pragma once
/// \file unison/matmul_types.hpp
/// The matmul family's public type (unison/matmul.hpp): the methods of matmul_reduce. Included by
/// that header and by its kernels (unison/detail/matmul/).

namespace unison {

/// \defgroup matmul Matmul-reduce
/// \{

/// How matmul_reduce computes out = 1^T (A B), and the range of values each one handles (T: the
/// value type; every method gives out[j] = +-inf where the exact value is beyond T's range):
///  - tiled: A.B one tile at a time in team scratch (MatmulTuning in unison/backends/tuning.hpp),
///    each tile summed over its rows there and added to out atomically; A.B is never stored.
///    2mkn flops. The order of the atomic additions varies from run to run: so do the last bits.
///    All in T: every element of A.B, and every partial sum of a column of it (in a tile, and in
///    out), must stay within T's range, else out[j] is +-inf or NaN.
///  - gemm: the library baseline: KokkosBlas::gemm into a temporary m x n matrix, then its
///    column sums. cuBLAS underneath on CUDA; on CPUs the host BLAS that the build found
///    (matmul_gemm_library() says which). 2mkn flops and m*n temporary elements. A.B in T, so
///    every element of it (and the BLAS's partial sums) must stay within T's range; its column
///    sums as the reassociated method's below.
///  - reassociated: the column sums s = 1^T A (length k), then out = s B: 2mk + 2kn flops,
///    every element of A and B read once. Rounds differently from the others (other sums).
///    Handles every finite A and B whose out[j] is within T's range: the sums are in T, and
///    where one leaves T's range (s[p] or out[j] infinite or NaN from finite data: a partial
///    sum, or a product s[p] B[p, j], beyond it) it is summed again in double with a wider
///    exponent, every product and partial sum then kept in range: a second pass over that
///    column of A (m elements) or of B (k elements), on such data only. out[j] is then within
///    double's rounding of sum_i sum_p |A[i, p]| |B[p, j]|, rounded to T once.
///  - automatic: reassociated.
/// Sums of products below T's normal range (about 1e-38 for float, 1e-308 for double) lose
/// relative precision with every method, as IEEE arithmetic does.
enum class MatmulMethod { automatic, tiled, gemm, reassociated };

/// \}

}  // namespace unison
