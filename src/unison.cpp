#include <mutex>
#include <vector>

#include <Kokkos_Core.hpp>

#include <unison/core.hpp>
#include <unison/detail/temporary.hpp>

// The oldest Kokkos Unison supports (docs/building.md): whichever way Kokkos came to the build
// (installed, the project's own, or bundled), the library is compiled against it here.
static_assert(KOKKOS_VERSION >= 40601, "Unison needs Kokkos 4.6.01 or newer");

namespace unison {

std::string version() { return UNISON_VERSION_STRING; }

namespace {

// The pools of temporary memory, one an execution space type (detail/temporary.hpp).
struct Registry {
  std::mutex mutex;
  std::vector<detail::TemporaryPoolHooks> pools;
};

Registry& registry() {
  static Registry* const r = new Registry;  // never destroyed: pools may outlive static objects
  return *r;
}

std::vector<detail::TemporaryPoolHooks> pools() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.pools;
}

}  // namespace

namespace detail {

void register_temporary_pool(const TemporaryPoolHooks& hooks) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.pools.empty()) Kokkos::push_finalize_hook([] { release_temporary_memory(); });
  r.pools.push_back(hooks);
}

}  // namespace detail

void release_temporary_memory() {
  for (const auto& pool : pools()) pool.release_idle();
}

std::size_t temporary_memory_bytes() {
  std::size_t bytes = 0;
  for (const auto& pool : pools()) bytes += pool.bytes();
  return bytes;
}

}  // namespace unison
