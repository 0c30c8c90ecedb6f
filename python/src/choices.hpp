// The words the module takes for each choice of the C++ API (an enum), one table a choice: the
// binding looks the caller's word up in its table, and exports the table's words in
// _unison.choices, from which the package's wrappers take them (and against which a test holds
// the package's type stubs).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "arrays.hpp"

namespace unison::python {

template <class E, std::size_t N>
using Choices = std::array<std::pair<const char*, E>, N>;

/// The value of `word` in `choices`; anything else refused as "<what> is 'word', expected 'a',
/// 'b' or 'c'".
template <class E, std::size_t N>
E choose(const std::string& fn, const char* what, const Choices<E, N>& choices,
         const std::string& word) {
  for (const auto& [name, value] : choices)
    if (word == name) return value;
  std::string expected;
  for (std::size_t i = 0; i < N; ++i)
    expected += std::string(i == 0 ? "'" : i + 1 == N ? " or '" : ", '") + choices[i].first + "'";
  refuse(fn, std::string(what) + " is '" + word + "', expected " + expected);
}

/// choices' words as _unison.choices[key], a tuple in the table's order.
template <class E, std::size_t N>
void export_choices(pybind11::module_& m, const char* key, const Choices<E, N>& choices) {
  pybind11::list words;
  for (const auto& choice : choices) words.append(choice.first);
  m.attr("choices")[key] = pybind11::tuple(words);
}

}  // namespace unison::python
