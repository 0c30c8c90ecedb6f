// Independent calls on several execution-space instances at once give the same results as the
// same calls one at a time: eight problems of different families (diffusion, convolution,
// histogram, matmul-reduce, element-wise, and the forms of diffusion and matmul-reduce that take
// temporary memory, each instance its own: the matmul-reduce twice, on two instances), each on
// its own instance. On the host backends the
// instances are partitions of the threads (OpenMP) or new instances (Serial), each driven by
// its own host thread; on a GPU, streams, all enqueued from one thread and running at once.
// Every result must be bitwise equal to the one-at-a-time run on the same instance (the same
// threads, so the same arithmetic). One host thread also makes a call that is refused: it must
// throw unison::invalid_argument and leave the other instances' work correct.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <unison/convolve.hpp>
#include <unison/core.hpp>
#include <unison/diffusion.hpp>
#include <unison/elementwise.hpp>
#include <unison/histogram.hpp>
#include <unison/matmul.hpp>

#include "test_helpers.hpp"

namespace {

using namespace unison::test;

std::vector<char> joined(std::vector<char> a, const std::vector<char>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The problems, their inputs made once with fresh random data.
template <class Exec>
struct Problems {
  using Mem = typename Exec::memory_space;
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  using Vector = Kokkos::View<float*, Mem>;
  using Matrix = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  static constexpr int count = 8;

  Field start{"start", 61, 77}, f{"f", 61, 77}, lapl{"lapl", 61, 77};
  unison::DiffusionBuffer<Field> buffer{"buffer", 61, 77};
  Vector x{"x", 20011}, taps{"taps", 33}, y{"y", 20011 - 33 + 1};
  Vector values{"values", 100003};
  Kokkos::View<std::int64_t*, Mem> counts{"counts", 37};
  Matrix A{"A", 123, 45}, B{"B", 45, 67}, C{"C", 91, 45}, D{"D", 45, 67};
  Vector sums{"sums", 67}, work;
  Vector pdf{"pdf", 100003};
  Field f2{"f2", 61, 77}, lapl2{"lapl2", 61, 77};
  Vector sums2{"sums2", 67}, sums3{"sums3", 67};

  Problems() {
    fill(start, uniform<float>(-1, 1));
    fill(x, uniform<float>(-1, 1));
    fill(taps, uniform<float>(-1, 1));
    fill(values, uniform<float>(-0.5, 1.5));  // some below and above the histogram's range
    fill(A, uniform<float>(-1, 1));
    fill(B, uniform<float>(-1, 1));
    fill(C, uniform<float>(-1, 1));
    fill(D, uniform<float>(-1, 1));
    work = Vector("work", unison::matmul_reduce_workspace_size<Exec>(
                              123, 45, 67, unison::MatmulMethod::reassociated));
  }

  // Enqueues problem p on exec; every call is asynchronous on exec.
  void run(int p, const Exec& exec) const {
    switch (p) {
      case 0:
        Kokkos::deep_copy(exec, f, start);
        unison::diffuse(exec, f, buffer, 9, 0.2, lapl, unison::Laplacian::final_only);
        break;
      case 1:
        unison::convolve(exec, x, taps, y, unison::ConvolveMode::valid);
        break;
      case 2:
        unison::histogram(exec, values, 0.0, 1.0, counts);
        break;
      case 3:
        unison::matmul_reduce(exec, A, B, sums, unison::MatmulMethod::reassociated, work);
        break;
      case 4:
        unison::gaussian_pdf(exec, values, 0.25f, 0.75f, pdf);
        break;
      case 5:
        Kokkos::deep_copy(exec, f2, start);
        unison::diffuse(exec, f2, 9, 0.2, lapl2, unison::Laplacian::every_step);
        break;
      case 6:
        unison::matmul_reduce(exec, A, B, sums2, unison::MatmulMethod::gemm);
        break;
      default:  // the same temporary memory's label as problem 6, on another instance
        unison::matmul_reduce(exec, C, D, sums3, unison::MatmulMethod::gemm);
    }
  }

  // Problem p's result, as bytes on the host (after exec's work is done).
  std::vector<char> result(int p, const Exec& exec) const {
    exec.fence();
    switch (p) {
      case 0:
        return joined(bytes(f), bytes(lapl));
      case 1:
        return bytes(y);
      case 2:
        return bytes(counts);
      case 3:
        return bytes(sums);
      case 4:
        return bytes(pdf);
      case 5:
        return joined(bytes(f2), bytes(lapl2));
      case 6:
        return bytes(sums2);
      default:
        return bytes(sums3);
    }
  }

  // Poisons the outputs, so that work left undone cannot pass.
  void poison_outputs() const {
    poison_fill(f);
    poison_fill(lapl);
    poison_fill(y);
    poison_fill(counts);
    poison_fill(sums);
    poison_fill(pdf);
    poison_fill(f2);
    poison_fill(lapl2);
    poison_fill(sums2);
    poison_fill(sums3);
  }

  template <class V>
  static std::vector<char> bytes(const V& v) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    std::vector<char> out(h.span() * sizeof(typename V::value_type));
    std::memcpy(out.data(), h.data(), out.size());
    return out;
  }
};

// A call that every backend refuses (taps longer than x in valid mode).
template <class Exec, class V>
std::string refused_call(const Exec& exec, const V& shorter, const V& longer, const V& out) {
  try {
    unison::convolve(exec, shorter, longer, out, unison::ConvolveMode::valid);
  } catch (const unison::invalid_argument& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
  return "no exception";
}

template <class Exec>
void test_concurrent_calls() {
  using P = Problems<Exec>;
  const P problems;
  // One instance per problem; OpenMP partitions need a thread each.
  int n = P::count;
#ifdef KOKKOS_ENABLE_OPENMP
  if constexpr (std::is_same_v<Exec, Kokkos::OpenMP>) n = std::min(n, Exec().concurrency());
#endif
  const auto instances = Kokkos::Experimental::partition_space(Exec(), std::vector<int>(n, 1));
  const auto instance = [&](int p) { return instances[p % n]; };
  const typename P::Vector shorter("shorter", 3), longer("longer", 5), out("out", 1);

  // One at a time, each on its instance.
  std::vector<std::vector<char>> expected(P::count);
  for (int p = 0; p < P::count; ++p) {
    problems.run(p, instance(p));
    expected[p] = problems.result(p, instance(p));
  }

  for (int round = 0; round < 3; ++round) {
    problems.poison_outputs();
    Kokkos::fence();
    std::string refused;
    if (is_host_v<Exec>) {
      // A host thread per instance, each running its problems in turn; the first also makes a
      // call that is refused, while the others run.
      std::vector<std::thread> threads;
      std::vector<std::string> errors(n);
      for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
          try {
            if (i == 0) refused = refused_call(instances[0], shorter, longer, out);
            for (int p = i; p < P::count; p += n) problems.run(p, instances[i]);
            instances[i].fence();
          } catch (const std::exception& e) {
            errors[i] = e.what();
          }
        });
      for (auto& t : threads) t.join();
      for (int i = 0; i < n; ++i) EXPECT_EQ(errors[i], "") << "host thread " << i;
    } else {
      // Every problem enqueued at once on its stream, the refused call in the middle.
      for (int p = 0; p < P::count; ++p) {
        problems.run(p, instance(p));
        if (p == 1) refused = refused_call(instance(0), shorter, longer, out);
      }
    }
    EXPECT_EQ(refused.rfind("unison::convolve", 0), 0u) << refused;
    for (int p = 0; p < P::count; ++p)
      EXPECT_TRUE(problems.result(p, instance(p)) == expected[p])
          << "problem " << p << " differs from its one-at-a-time run (round " << round << ")";
  }
}

template <class Exec>
struct Concurrency : ::testing::Test {};
TYPED_TEST_SUITE(Concurrency, Backends, BackendName);
TYPED_TEST(Concurrency, independent_calls_on_instances) { test_concurrent_calls<TypeParam>(); }

}  // namespace
