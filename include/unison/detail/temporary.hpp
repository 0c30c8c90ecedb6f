#pragma once
// Temporary memory kept between calls: the forms of Unison's functions that need memory of their
// own (matmul_reduce without a workspace, diffuse without a buffer, jagged_field, ...) take it
// from a pool kept per execution space instance, so that such a call enqueues its work and
// returns, as the form with the caller's memory does, instead of allocating, waiting and freeing
// (Kokkos fences every instance of the backend when memory is freed).
//
// Why reuse needs no fence: the work enqueued on one instance runs in the order it was enqueued.
// A slot belongs to one instance and one label; a call takes it while it enqueues its work and
// gives it back before it returns, so the work of the next call that takes it runs after.
// - A slot keeps a copy of its instance: the instance lives as long as the slot, so that no later
//   instance can take its place (its internal object, its stream) while work of the old one may
//   still run. A program that destroys a CUDA stream it gave to a Kokkos::Cuda instance calls
//   unison::release_temporary_memory() first.
// - A call that finds its slot taken (another host thread enqueuing on the same instance at the
//   same time) or every slot of the pool taken gets memory of its own, which it waits for on its
//   instance and frees before it returns.
// - A call that needs more than its slot holds waits for the slot's instance, frees the old memory
//   and allocates the new.
// - At most max_slots slots a pool (execution space type): the least recently used idle one is
//   freed to make room (after a fence of every instance, as any freeing of memory).
// The memory goes back with unison::release_temporary_memory() and at Kokkos::finalize.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <list>
#include <mutex>
#include <string>
#include <utility>

#include <Kokkos_Core.hpp>

#include <unison/core.hpp>
#include <unison/detail/allocate.hpp>

namespace unison::detail {

// What the registry of pools (src/unison.cpp) calls on each pool, whatever its execution space.
struct TemporaryPoolHooks {
  void (*release_idle)();  // frees every slot not taken (after a fence of every instance)
  std::size_t (*bytes)();  // the bytes held
};
// Adds a pool to the registry (thread safe); the first call also asks Kokkos::finalize to
// release every pool's memory.
void register_temporary_pool(const TemporaryPoolHooks& hooks);

// The pool of an execution space type and a memory space (the memory of a View of f's space, say,
// for a field in CUDA managed memory, comes from its own pool).
template <class Exec, class Mem = typename Exec::memory_space>
class TemporaryPool {
 public:
  using Bytes = Kokkos::View<unsigned char*, Mem>;
  static constexpr std::size_t max_slots = 16;

  struct Slot {
    Exec exec;
    std::string label;
    Bytes bytes;
    bool taken = false;
    std::uint64_t last_use = 0;
  };

  // The one pool of this execution space type (never destroyed: its memory goes back at
  // Kokkos::finalize, before the backends end, not when static objects are destroyed after it).
  static TemporaryPool& get() {
    static TemporaryPool* const pool = [] {
      auto* p = new TemporaryPool;
      register_temporary_pool({&release_idle_slots, &held_bytes});
      return p;
    }();
    return *pool;
  }

  // The slot of (exec, label), now taken; a new one (its memory empty) if there was none.
  // nullptr when that slot is taken already or every slot of the pool is.
  Slot* take(const Exec& exec, const std::string& label) {
    std::list<Slot> evicted;
    Slot* slot = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& s : slots_)
        if (s.exec == exec && s.label == label) {
          if (s.taken) return nullptr;
          slot = &s;
          break;
        }
      if (!slot) {
        if (slots_.size() >= max_slots) {
          auto lru = slots_.end();
          for (auto it = slots_.begin(); it != slots_.end(); ++it)
            if (!it->taken && (lru == slots_.end() || it->last_use < lru->last_use)) lru = it;
          if (lru == slots_.end()) return nullptr;
          evicted.splice(evicted.end(), slots_, lru);
        }
        slots_.push_back(Slot{exec, label, Bytes(), false, 0});
        slot = &slots_.back();
      }
      slot->taken = true;
      slot->last_use = ++clock_;
    }
    try {
      release(evicted);
    } catch (...) {
      give_back(slot);
      throw;
    }
    return slot;
  }

  void give_back(Slot* slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    slot->taken = false;
  }

  // Puts `bytes` into a slot this thread has taken and leaves the slot's former memory in
  // `bytes` (under the lock: held_bytes reads every slot's).
  void swap_bytes(Slot* slot, Bytes& bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::swap(slot->bytes, bytes);
  }

  static void release_idle_slots() {
    auto& pool = get();
    std::list<Slot> idle;
    {
      std::lock_guard<std::mutex> lock(pool.mutex_);
      for (auto it = pool.slots_.begin(); it != pool.slots_.end();) {
        auto next = std::next(it);
        if (!it->taken) idle.splice(idle.end(), pool.slots_, it);
        it = next;
      }
    }
    release(idle);
  }

  static std::size_t held_bytes() {
    auto& pool = get();
    std::lock_guard<std::mutex> lock(pool.mutex_);
    std::size_t bytes = 0;
    for (const auto& s : pool.slots_) bytes += s.bytes.span();
    return bytes;
  }

  static std::size_t held_slots() {
    auto& pool = get();
    std::lock_guard<std::mutex> lock(pool.mutex_);
    return pool.slots_.size();
  }

 private:
  // Frees the slots' memory once the work that may use it is done: after a fence of every
  // instance (which freeing memory costs anyway: Kokkos fences them all, a GPU's cudaFree
  // synchronizes the device), not of each slot's own instance, whose stream the program may have
  // destroyed since (a Kokkos::Cuda instance over a stream the program manages).
  static void release(std::list<Slot>& slots) {
    for (const auto& s : slots)
      if (s.bytes.span() > 0) {
        Kokkos::fence("unison::release_temporary_memory");
        break;
      }
    slots.clear();
  }

  std::mutex mutex_;
  std::list<Slot> slots_;  // a list: a taken slot stays where it is while others come and go
  std::uint64_t clock_ = 0;
};

// Temporary memory for one call: `view`, a View of type View over memory from the pool of (Exec,
// View's memory space) (or of its own when the pool has none to give), valid until this object
// is destroyed, which must happen after the call has enqueued the work that uses it and before
// the call returns.
template <class View, class Exec>
class Temporary {
 public:
  using Pool = TemporaryPool<Exec, typename View::memory_space>;

  Temporary(const Exec& exec, typename Pool::Slot* slot, View view)
      : exec_(exec), slot_(slot), view(std::move(view)) {}
  Temporary(Temporary&& other) noexcept
      : exec_(other.exec_),
        slot_(std::exchange(other.slot_, nullptr)),
        view(std::move(other.view)),
        moved_(std::exchange(other.moved_, true)) {}
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  Temporary& operator=(Temporary&&) = delete;
  ~Temporary() {
    if (moved_) return;
    if (slot_) {
      Pool::get().give_back(slot_);
    } else if (view.data()) {
      // Memory of its own: freed here, once the work that uses it is done. (A fence that fails
      // reports a backend error that the instance's next call reports too; a destructor cannot.)
      try {
        exec_.fence("unison: release temporary memory");
      } catch (...) {
      }
    }
  }

 private:
  Exec exec_;
  typename Pool::Slot* slot_;

 public:
  View view;

 private:
  bool moved_ = false;
};

/// Temporary memory for `function`'s `what` (errors as allocate's): a View of type View (rank 0
/// to 2, contiguous, of extents `extents`) from the slot of (exec, label) in the pool of exec's
/// type and View's memory space.
/// `label` names the memory for Kokkos Tools when it is allocated.
template <class View, class Exec, class... Extents>
Temporary<View, Exec> temporary(const char* function, const char* what, const Exec& exec,
                                const std::string& label, Extents... extents) {
  using Pool = typename Temporary<View, Exec>::Pool;
  using T = typename View::non_const_value_type;
  long double bytes = sizeof(T);
  ((bytes *= (long double)extents), ...);
  require(bytes < 0x1p62L, function, what, " needs ", bytes, " bytes, more than a View can hold");
  const std::size_t need = std::size_t(bytes);
  auto* const slot = Pool::get().take(exec, label);
  if (!slot)
    return Temporary<View, Exec>(exec, nullptr,
                                 allocate<View>(function, what, exec, label, extents...));
  try {
    if (slot->bytes.span() < need) {
      typename Pool::Bytes memory;
      if (slot->bytes.span() > 0) {
        exec.fence("unison: grow temporary memory");
        Pool::get().swap_bytes(slot, memory);
        memory = typename Pool::Bytes();  // the smaller memory freed before the larger is asked
      }
      try {
        memory = allocate<typename Pool::Bytes>(function, what, exec, label, need);
      } catch (const unison::invalid_argument&) {
        // Memory that other slots hold may be what is missing: free it, then try once more.
        release_temporary_memory();
        memory = allocate<typename Pool::Bytes>(function, what, exec, label, need);
      }
      Pool::get().swap_bytes(slot, memory);
    }
  } catch (...) {
    Pool::get().give_back(slot);
    throw;
  }
  return Temporary<View, Exec>(exec, slot,
                               View(reinterpret_cast<T*>(slot->bytes.data()), extents...));
}

}  // namespace unison::detail
