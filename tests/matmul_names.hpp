#pragma once
// The name of a MatmulMethod, for the messages of the tests that loop over the methods.
#include <unison/matmul.hpp>

namespace unison::test {

inline const char* name(unison::MatmulMethod m) {
  switch (m) {
    case unison::MatmulMethod::automatic:
      return "automatic";
    case unison::MatmulMethod::tiled:
      return "tiled";
    case unison::MatmulMethod::gemm:
      return "gemm";
    default:
      return "reassociated";
  }
}

}  // namespace unison::test
