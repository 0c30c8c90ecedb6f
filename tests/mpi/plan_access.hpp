#pragma once
// The tests' access to a unison::mpi::DiffusionPlan (its friend): what no user calls.

#include <unison/mpi.hpp>

namespace unison::detail::mpi {

struct PlanAccess {
  // Gives a plan halos of depth k, at most its padded copies' depth, as the depth a plan chooses
  // may be (collective).
  template <class Exec, class F>
  static void use_depth(unison::mpi::DiffusionPlan<Exec, F>& plan, int k) {
    require(k >= 1 && k <= plan.plan_.padded_depth(), "unison::detail::mpi::PlanAccess::use_depth",
            "depth ", k, " outside 1 to ", plan.plan_.padded_depth());
    if (plan.decomposition().has_neighbours()) plan.plan_.build(k);
  }
};

}  // namespace unison::detail::mpi
