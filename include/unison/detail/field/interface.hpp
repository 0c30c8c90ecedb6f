#pragma once
// unison/detail/field/interface.hpp: part of unison/field.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// What the jagged field lends other components (the MPI component's distributed jagged_field):
// one block of the global field, and the noise array it needs. Everything else in
// unison/detail/field/ is the field's own and may change without notice to them: other
// components name only unison::detail::field::interface.

#include <utility>

#include <unison/detail/field/jagged.hpp>
#include <unison/field_types.hpp>

namespace unison::detail::field::interface {

// The noise array jagged_block takes (allocated by the caller, so that it can refuse early).
template <class F>
using NoiseArray = detail::field::JaggedNoiseArray<F>;

// The block of the global jagged field whose first cell is (x0, y0), of a field of `cells` cells
// in all, into f; total(count) turns the block's count of nonzero cells into the field's.
template <class Exec, class F, class Total>
void jagged_block(const char* fn, const Exec& exec, const F& f, std::uint64_t seed,
                  double zero_fraction, std::int64_t x0, std::int64_t y0, std::int64_t cells,
                  Total&& total, const NoiseArray<F>* given = nullptr) {
  detail::field::jagged_block(fn, exec, f, seed, zero_fraction, x0, y0, cells,
                              std::forward<Total>(total), given);
}

}  // namespace unison::detail::field::interface
