#include "views.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <utility>

namespace unison::python {

#if defined(KOKKOS_ENABLE_CUDA)
namespace {
std::mutex instances_mutex;
std::map<std::uintptr_t, Kokkos::Cuda>* instances = nullptr;
}  // namespace

Kokkos::Cuda cuda_instance(std::uintptr_t stream) {
  std::lock_guard<std::mutex> lock(instances_mutex);
  if (!instances) instances = new std::map<std::uintptr_t, Kokkos::Cuda>();
  auto it = instances->find(stream);
  if (it == instances->end())
    it = instances->emplace(stream, Kokkos::Cuda(reinterpret_cast<cudaStream_t>(stream))).first;
  return it->second;
}

void release_instances() {
  std::lock_guard<std::mutex> lock(instances_mutex);
  delete instances;
  instances = nullptr;
}
#else
void release_instances() {}
#endif

namespace {
bool forked_child = false;
bool warned_after_fork = false;
std::atomic<std::int64_t> serial_below_elements{std::int64_t(1) << 17};
}  // namespace

std::atomic<std::int64_t> interrupt_work_units{std::int64_t(1) << 27};

std::int64_t interrupt_work() { return interrupt_work_units.load(std::memory_order_relaxed); }
void set_interrupt_work(std::int64_t work) {
  interrupt_work_units.store(work, std::memory_order_relaxed);
}

void raise_pending_signal() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

std::int64_t serial_below() { return serial_below_elements.load(std::memory_order_relaxed); }
void set_serial_below(std::int64_t elements) {
  serial_below_elements.store(elements, std::memory_order_relaxed);
}

void after_fork_in_child() { forked_child = true; }
bool in_forked_child() { return forked_child; }

void Call::require_rank(const ArrayRef& a, int rank) const { require_rank(a, rank, rank); }

void Call::require_rank(const ArrayRef& a, int lo, int hi) const {
  if (a.ndim < lo || a.ndim > hi)
    refuse(fn_,
           a.describe() + ": expected " +
               (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
               " dimensions");
}

const ArrayRef& Call::array(py::handle obj, const std::string& name, Role role) {
  ArrayRef a = as_array(obj, fn_, name, role, options_.stream);
  if (device_ && *device_ != a.device)
    refuse(fn_, a.describe() + " is not on the device of the call's other arrays (" +
                    device_name(*device_) + ")");
  device_ = a.device;
  arrays_.push_back(std::move(a));
  return arrays_.back();
}

const ArrayRef& Call::array(py::handle obj, const std::string& name, Role role,
                            const ArrayRef& like) {
  const Dtype dtype = like.dtype;
  const std::string like_name = like.name;  // (like may be the deque's last element: copied)
  const ArrayRef& a = array(obj, name, role);
  if (a.dtype != dtype)
    refuse_type(fn_, a.describe() + " and " + like_name + " (" + dtype_name(dtype) +
                         ") differ in dtype: the arrays of a call share one (Unison converts "
                         "nothing)");
  return a;
}

const ArrayRef& Call::array(py::handle obj, const std::string& name, Role role,
                            const ArrayRef& like, int rank) {
  const ArrayRef& a = array(obj, name, role, like);
  require_rank(a, rank);
  return a;
}

std::string Call::resolve_backend() const {
  std::string b = resolve_backend_in_parent();
#if defined(KOKKOS_ENABLE_SERIAL)
  if (b == "openmp" && options_.backend.empty() && !arrays_.empty()) {
    std::int64_t largest = 0;
    for (const ArrayRef& a : arrays_) largest = std::max(largest, a.size());
    if (largest < serial_below()) b = "serial";
  }
#endif
  if (!forked_child) return b;
  if (b == "cuda")
    refuse(fn_,
           "this process was forked from one that had imported unison, and a CUDA context does "
           "not survive a fork: start the process with multiprocessing's 'spawn' or "
           "'forkserver' method instead");
#if defined(KOKKOS_ENABLE_SERIAL)
  if (b == "openmp") {
    if (!warned_after_fork) {
      warned_after_fork = true;
      if (PyErr_WarnEx(PyExc_RuntimeWarning,
                       "unison: this process was forked from one that had imported unison, and "
                       "OpenMP's threads do not survive a fork: host calls run on one thread "
                       "(the Serial backend) in this process; multiprocessing's 'spawn' or "
                       "'forkserver' methods keep every thread",
                       1) != 0)
        throw py::error_already_set();
    }
    return "serial";
  }
#else
  if (b == "openmp")
    refuse(fn_,
           "this process was forked from one that had imported unison, OpenMP's threads do not "
           "survive a fork, and this build has no Serial backend to run on instead: use "
           "multiprocessing's 'spawn' or 'forkserver' method");
#endif
  return b;
}

std::string Call::resolve_backend_in_parent() const {
  const Device d = device();
  std::string b = options_.backend;
  if (d.kind == Device::cuda) {
    if (!b.empty() && b != "cuda")
      refuse(fn_, "backend '" + b + "' cannot reach the arrays in " + device_name(d) + " memory");
#if defined(KOKKOS_ENABLE_CUDA)
    const int kokkos_device = Kokkos::Cuda().cuda_device();
    if (d.id != kokkos_device)
      refuse(fn_, "the arrays are in " + device_name(d) + " memory; Unison runs on cuda:" +
                      std::to_string(kokkos_device) + " in this process");
    return "cuda";
#else
    refuse(fn_, "the arrays are in " + device_name(d) +
                    " memory, and this build of Unison has no Cuda backend");
#endif
  }
  if (b.empty()) {
#if defined(KOKKOS_ENABLE_OPENMP)
    return "openmp";
#else
    return "serial";
#endif
  }
  if (b == "cuda") {
#if defined(KOKKOS_ENABLE_CUDA)
    if (!device_) return "cuda";  // a call without arrays (monte_carlo_pi)
#endif
    refuse(fn_, device_ ? "backend 'cuda' needs arrays in CUDA device memory"
                        : "backend 'cuda' is not in this build");
  }
  if (b != "openmp" && b != "serial")
    refuse(fn_, "backend is '" + b + "', expected 'openmp', 'serial' or 'cuda'");
  return b;
}

CallOptions call_options(const std::string& backend, py::object stream) {
  CallOptions o;
  o.backend = backend;
  if (!stream.is_none()) {
    o.stream.stream = stream.cast<std::uintptr_t>();
    o.stream.given = true;
  }
  return o;
}

}  // namespace unison::python
