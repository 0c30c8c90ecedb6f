// unison_mpi_tests: the MPI component's tests, run by mpiexec on several ranks. Every rank runs
// every test; rank 0 prints GoogleTest's usual output, the other ranks only their failures
// (prefixed with the rank); the exit status is nonzero on every rank when a test failed on any.
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>

namespace {

// Failures of a rank other than 0, each on one line with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::ostringstream s;
    s << "[rank " << rank_ << "] " << (r.file_name() ? r.file_name() : "?") << ":"
      << r.line_number() << ": failure in " << current_ << "\n"
      << r.summary() << "\n";
    std::cerr << s.str() << std::flush;
  }
  void OnTestStart(const ::testing::TestInfo& t) override {
    current_ = std::string(t.test_suite_name()) + "." + t.name();
  }

 private:
  int rank_;
  std::string current_;
};

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    if (rank == 0) {
      std::cout << "[ mpi      ] " << size << " ranks\n";
      for (const auto& info : unison::backends::enabled_backends())
        std::cout << "[ backend  ] " << unison::backends::describe(info) << "\n";
    } else {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new RankFailurePrinter(rank));
    }
    const int mine = RUN_ALL_TESTS() != 0 ? 1 : 0;
    MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && failed && !mine) std::cout << "another rank failed (its output above)\n";
  }
  MPI_Finalize();
  return failed;
}
