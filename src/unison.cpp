#include <unison/core.hpp>

namespace unison {

std::string version() { return UNISON_VERSION_STRING; }

}  // namespace unison
