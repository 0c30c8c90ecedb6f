#pragma once
// unison/detail/elementwise/operands.hpp: part of unison/transform.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses). A call's operands (Views or scalars) as one
// value a kernel reads element by element or in chunks of K consecutive elements.

#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <type_traits>
#include <unison/backends/device_info.hpp>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison::detail::elementwise {

template <class T>
struct is_chunk : std::false_type {};
template <class T, int K>
struct is_chunk<Chunk<T, K>> : std::true_type {};

// Element (i) or (i, j) of an operand: a View's element, a chunk's element, or the scalar itself.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) element(const T& a, std::int64_t i) {
  if constexpr (Kokkos::is_view_v<T>) {
    return a(i);
  } else if constexpr (std::is_pointer_v<T>) {
    return a[i];
  } else if constexpr (is_chunk<T>::value) {
    return a.v[i];
  } else {
    return a;
  }
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) element(const T& a, std::int64_t i, std::int64_t j) {
  if constexpr (Kokkos::is_view_v<T>) {
    return a(i, j);
  } else {
    return a;
  }
}

// What an operand becomes when K consecutive elements are loaded at once.
template <class T, int K, class = void>
struct chunk_of_t {
  using type = T;  // a scalar stays itself
};
template <class T, int K>
struct chunk_of_t<T, K, std::enable_if_t<Kokkos::is_view_v<T>>> {
  using type = Chunk<typename T::non_const_value_type, K>;
};

template <int K, class T>
KOKKOS_FORCEINLINE_FUNCTION typename chunk_of_t<T, K>::type load_chunk(const T& a,
                                                                       std::int64_t chunk) {
  if constexpr (Kokkos::is_view_v<T>) {
    using C = typename chunk_of_t<T, K>::type;
    return reinterpret_cast<const C*>(a.data())[chunk];
  } else {
    return a;
  }
}

// The operands of one launch, stored by value (a device-copyable heterogeneous list).
// at1(f, i) is f(element(op, i)...), at2(f, i, j) is f(element(op, i, j)...), load<K>(q) the
// same operands with every View replaced by its chunk q.
template <class... Args>
struct Operands;
template <>
struct Operands<> {
  template <int K>
  KOKKOS_FORCEINLINE_FUNCTION Operands<> load(std::int64_t) const {
    return {};
  }
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at1(const F& f, std::int64_t, const Vals&... v) const {
    return f(v...);
  }
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at2(const F& f, std::int64_t, std::int64_t,
                                                 const Vals&... v) const {
    return f(v...);
  }
  template <class V, class F, class... Vals>
  V packs_at(const F& f, std::int64_t, int, const Vals&... v) const {
    return f(v...);
  }
  void prefetch(std::int64_t) const {}
};
template <class Head, class... Tail>
struct Operands<Head, Tail...> {
  Head head;
  Operands<Tail...> tail;
  // The operands' chunks number `chunk` (elements K chunk ... K chunk + K - 1), loaded.
  template <int K>
  KOKKOS_FORCEINLINE_FUNCTION
      Operands<typename chunk_of_t<Head, K>::type, typename chunk_of_t<Tail, K>::type...>
      load(std::int64_t chunk) const {
    return {load_chunk<K>(head, chunk), tail.template load<K>(chunk)};
  }
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at1(const F& f, std::int64_t i,
                                                 const Vals&... v) const {
    return tail.at1(f, i, v..., element(head, i));
  }
  template <class F, class... Vals>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at2(const F& f, std::int64_t i, std::int64_t j,
                                                 const Vals&... v) const {
    return tail.at2(f, i, j, v..., element(head, i, j));
  }
  // f of the packs V of elements [i, i + count) (count <= lanes; the lanes beyond, 0): a pointer
  // operand's values, a scalar's in every lane (as V's element type).
  template <class V, class F, class... Vals>
  V packs_at(const F& f, std::int64_t i, int count, const Vals&... v) const {
    using T = backends::scalar_of_t<V>;
    if constexpr (std::is_pointer_v<Head>) {
      const V x = count == backends::lanes_v<V> ? backends::load<V>(head + i)
                                                : backends::load_partial<V>(head + i, count);
      return tail.template packs_at<V>(f, i, count, v..., x);
    } else {
      return tail.template packs_at<V>(f, i, count, v..., backends::splat<V>(static_cast<T>(head)));
    }
  }
  // Asks for every pointer operand's line backends::host_prefetch_bytes past element i.
  void prefetch(std::int64_t i) const {
    if constexpr (std::is_pointer_v<Head>) backends::prefetch_ahead(head + i);
    tail.prefetch(i);
  }
};
inline Operands<> make_operands() { return {}; }
template <class Head, class... Tail>
Operands<Head, Tail...> make_operands(const Head& h, const Tail&... t) {
  return Operands<Head, Tail...>{h, make_operands(t...)};
}

}  // namespace unison::detail::elementwise
