// unison._unison: the compiled half of the Python module (unison/__init__.py is the other).
//
// Kokkos's lifetime: initialised on import unless the process has already initialised it (then
// used as it is), finalised at interpreter exit only if this module initialised it. Every array
// Python sees is owned by Python (results are allocated by the array's own library), so nothing
// of Kokkos's outlives the finalisation.
#include "bindings.hpp"

#include <unison/backends/enabled.hpp>
#include <unison/core.hpp>
#include <unison/field_types.hpp>

#include <Kokkos_Core.hpp>

#include <cctype>
#include <cstdlib>
#include <string>

namespace unison::python {
namespace {

bool initialised_here = false;

void finalize() {
  release_instances();
  if (initialised_here && Kokkos::is_initialized() && !Kokkos::is_finalized()) {
    Kokkos::finalize();
    initialised_here = false;
  }
}

void initialize() {
  if (Kokkos::is_initialized()) return;
  if (Kokkos::is_finalized())
    throw std::runtime_error(
        "unison: Kokkos has already been finalised in this process and cannot start again");
  Kokkos::InitializationSettings settings;
  // Kokkos's advice on OMP_PROC_BIND is for whole programs: an interpreter importing a module
  // does not get it, unless KOKKOS_DISABLE_WARNINGS says otherwise.
  if (!std::getenv("KOKKOS_DISABLE_WARNINGS")) settings.set_disable_warnings(true);
  Kokkos::initialize(settings);
  initialised_here = true;
}

}  // namespace
}  // namespace unison::python

namespace py = pybind11;

PYBIND11_MODULE(_unison, m) {
  namespace up = unison::python;
  m.doc() = "Unison's kernels on NumPy, CuPy, PyTorch and Numba arrays, without a copy";

  // unison::invalid_argument (and io_error) arrive as ValueError with the same message.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const unison::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  up::initialize();
  m.attr("version") = unison::version();
  m.attr("kokkos_version") = std::to_string(KOKKOS_VERSION / 10000) + "." +
                             std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                             std::to_string(KOKKOS_VERSION % 100);
  m.attr("initialised_kokkos") = up::initialised_here;
  py::list known;
  for (const char* name : up::known_backends) known.append(name);
  // Each choice's words: the backends here, the others by the binding files below (choices.hpp).
  m.attr("choices") = py::dict();
  m.attr("choices")["backend"] = py::tuple(known);
  // This build's: its enabled Kokkos backends (unison/backends/enabled.hpp) that the module
  // knows, by their Python names.
  m.def("backends", [] {
    py::list b;
    for (const char* name : up::known_backends)
      unison::backends::for_each_enabled_space([&](auto tag) {
        std::string exec = decltype(tag)::type::name();
        for (char& c : exec) c = char(std::tolower(static_cast<unsigned char>(c)));
        if (exec == name) b.append(name);
      });
    return b;
  });
  m.attr("default_seed") = unison::default_seed;
  m.attr("jagged_default_zero_fraction") = unison::jagged_default_zero_fraction;
  m.def(
      "release_temporary_memory",
      [] {
        py::gil_scoped_release release;
        unison::release_temporary_memory();
      },
      "Frees the temporary memory Unison keeps between calls (after every instance's work)");
  m.def("temporary_memory_bytes", &unison::temporary_memory_bytes,
        "The bytes of temporary memory Unison holds now");
  m.def("finalize", &up::finalize,
        "Finalises Kokkos if this module initialised it (also done at interpreter exit)");
  py::module_::import("atexit").attr("register")(py::cpp_function(&up::finalize));
  // (registered with os.register_at_fork by unison/__init__.py)
  m.def("_after_fork_in_child", &up::after_fork_in_child);
  m.def("_in_forked_child", &up::in_forked_child);
  // (for the tests: chunks of a few steps or samples)
  m.def("_interrupt_work", [](std::int64_t work) {
    const std::int64_t before = up::interrupt_work();
    if (work > 0) up::set_interrupt_work(work);
    return before;
  });
  m.def(
      "serial_below",
      [](py::object elements) {
        const std::int64_t before = up::serial_below();
        if (!elements.is_none()) {
          const auto n = elements.cast<std::int64_t>();
          if (n < 0) up::refuse("unison.serial_below", "elements is negative");
          up::set_serial_below(n);
        }
        return before;
      },
      py::arg("elements") = py::none());

  up::bind_elementwise(m);
  up::bind_rowwise(m);
  up::bind_histogram(m);
  up::bind_random(m);
  up::bind_convolve(m);
  up::bind_matmul(m);
  up::bind_diffusion(m);
  up::bind_field(m);
}
