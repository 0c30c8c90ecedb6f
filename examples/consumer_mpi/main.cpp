// Unison::mpi from an installed package: the jagged field diffused on a 2-D block
// decomposition over MPI_COMM_WORLD (a plan made once, two calls of 10 steps), checked against
// unison::diffuse of the whole field on every rank's own copy, bit for bit.
#include <cstdio>

#include <unison/mpi.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    Kokkos::DefaultExecutionSpace exec;
    const std::int64_t nx = 41, ny = 29, steps = 20;
    const auto d = unison::mpi::decompose(MPI_COMM_WORLD, nx, ny);
    Kokkos::View<double**> f("f", d.local_nx, d.local_ny), lapl("lapl", d.local_nx, d.local_ny);
    unison::mpi::jagged_field(exec, d, f);
    {
      unison::mpi::DiffusionPlan plan(exec, d, f);
      plan.diffuse(f, steps / 2, 0.25, lapl);
      plan.diffuse(f, steps - steps / 2, 0.25, lapl);
    }

    Kokkos::View<double**> whole("whole", nx, ny), whole_lapl("whole_lapl", nx, ny);
    unison::jagged_field(exec, whole);
    unison::diffuse(exec, whole, steps, 0.25, whole_lapl);
    const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
    const auto all = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole);
    int differ = 0;
    for (std::int64_t i = 0; i < d.local_nx; ++i)
      for (std::int64_t j = 0; j < d.local_ny; ++j) differ += mine(i, j) != all(d.x0 + i, d.y0 + j);
    int total = 0;
    MPI_Allreduce(&differ, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (d.rank == 0)
      std::printf("rank 0: %d ranks, %dx%d blocks: %d cells differ %s\n", d.size, d.dims[0],
                  d.dims[1], total, total == 0 ? "(same as the single-rank run)" : "");
    status = total == 0 ? 0 : 1;
  }
  MPI_Finalize();
  return status;
}
