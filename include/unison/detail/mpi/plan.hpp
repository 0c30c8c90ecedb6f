#pragma once
// unison/detail/mpi/plan.hpp: part of unison/mpi.hpp (its implementation, which compiles on its
// own: it includes what it uses).
// What a unison::mpi::DiffusionPlan holds and does: the padded copies of the block, the halo
// buffers and their persistent requests, the choice of the halos' depth, and the periods of
// steps with their halo exchanges (the kernels: halo.hpp; the packing: packing.hpp).

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <unison/backends/streams.hpp>
#include <unison/detail/allocate.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/mpi/agreement.hpp>
#include <unison/detail/mpi/depth.hpp>
#include <unison/detail/mpi/exchange.hpp>
#include <unison/detail/mpi/halo.hpp>
#include <unison/detail/mpi/packing.hpp>
#include <unison/diffusion.hpp>
#include <unison/mpi_types.hpp>

namespace unison::detail::mpi {

// The state and the work of unison::mpi::DiffusionPlan (whose comment says what it does and
// holds), and of the one-shot unison::mpi::diffuse, which checks and agrees on a call's
// arguments before it makes one and runs it.
template <class Exec, class F>
class DiffusionPlan {
  using T = typename F::non_const_value_type;
  using P = Padded<F>;
  using Mem = typename F::memory_space;
  using Buffer = Kokkos::View<T*, Mem>;
  using Host = Kokkos::View<T*, Kokkos::SharedHostPinnedSpace>;
  using Shape = HaloShape<Exec>;
  static constexpr bool tr = diffusion::transposed_v<F>;

 public:
  DiffusionPlan(const Exec& exec, const unison::mpi::Decomposition& d, const F& f,
                const unison::mpi::ExchangeOptions& options = {})
      : exec_(exec), d_(d), options_(options) {
    const unison::detail::Region call_region("unison::mpi::DiffusionPlan");
    diffusion::check_types<Exec, F, F>();
    constexpr const char* fn = "unison::mpi::DiffusionPlan";
    check_decomposition(d, fn);
    std::int64_t deepest = 1;
    agree(d.comm, fn,
          [&] {
            check_block(fn, d, f);
            check_transport<Exec>(fn, options.transport);
            deepest = deepest_halo(d);
            require(options.halo_depth >= 0, fn, "options.halo_depth is ", options.halo_depth,
                    ", must be >= 0 (0: chosen by the plan)");
            require(options.halo_depth <= deepest, fn, "options.halo_depth is ", options.halo_depth,
                    ", deeper than the thinnest block's ", deepest,
                    " rows or columns along a split axis");
            // The widest the updates and the deepest the messages get.
            const std::int64_t k = !d.has_neighbours() ? 1
                                   : options.halo_depth > 0
                                       ? options.halo_depth
                                       : std::min<std::int64_t>(deepest, deepest_chosen);
            const std::int64_t rows = (tr ? d.local_ny : d.local_nx) + 2 * k,
                               cols = Shape::pitch(k) + (tr ? d.local_nx : d.local_ny) + k;
            constexpr std::int64_t most = std::numeric_limits<int>::max();
            require(k * std::max(d.local_nx, d.local_ny) <= most && rows <= most &&
                        Shape::pitch(cols) <= most,
                    fn, "the block is ", d.local_nx, "x", d.local_ny, " with halos ", k,
                    " deep: MPI messages take at most 2^31 - 1 values, and the padded "
                    "copies at most 2^31 - 1 rows and columns");
          },
          {{"options.transport", (long long)options.transport},
           {"options.overlap", (long long)options.overlap},
           {"options.halo_depth", (long long)options.halo_depth}});
    neighbours_ = d.has_neighbours();
    direct_ = transport_is_direct<Exec>(options.transport);
    side_ = neighbours_ && options.overlap ? backends::side_instance(exec) : exec;
    if (!neighbours_) {
      allocate_blocks(1);
    } else if (options.halo_depth > 0) {
      allocate_blocks(options.halo_depth);
      build(options.halo_depth);
    } else {
      const int deep = int(std::min<std::int64_t>(deepest, deepest_chosen));
      allocate_blocks(deep);
      build(deep);
      model_ = measure();  // leaves the halos at depth 1
      const int k = choose_depth(d_, model_, options.overlap, deep);
      if (k != k_) build(k);
    }
  }
  DiffusionPlan(const DiffusionPlan&) = delete;
  DiffusionPlan& operator=(const DiffusionPlan&) = delete;

  /// The halos' depth in use (1 for a block without neighbours).
  int halo_depth() const { return k_; }
  /// How the halos reach MPI: unison::mpi::Transport::device (the Views' own memory) or
  /// unison::mpi::Transport::host (pinned host memory).
  unison::mpi::Transport transport() const {
    return direct_ ? unison::mpi::Transport::device : unison::mpi::Transport::host;
  }
  /// The times the depth was chosen from, on this rank (zeros unless halo_depth was 0 and the
  /// block has neighbours).
  const unison::mpi::HaloTimes& measured() const { return model_; }
  const unison::mpi::Decomposition& decomposition() const { return d_; }

  /// The padded copies' depth: the deepest halos build() may make.
  int padded_depth() const { return kr_; }

  // diffuse() once its arguments are agreed.
  template <class L>
  void run(const F& f, std::int64_t steps, double coeff, const L& lapl, Laplacian which) {
    if (steps == 0) return;
    if (!neighbours_) {  // one block: unison::diffuse itself, in place
      static_assert(std::is_same_v<P, DiffusionBuffer<F>>);
      unison::diffuse(exec_, f, cur_, steps, coeff, lapl, which);
      exec_.fence("unison::mpi::diffuse: done");
      return;
    }
    const T c = T(coeff);
    Kokkos::parallel_for("unison::mpi::diffusion::copy_in",
                         Kokkos::TeamPolicy<Exec>(exec_, int(rows()), Shape::team),
                         HaloCopyIn<tr, P, F>{cur_, f, kr_, kc_, cols()});
    const bool overlap = options_.overlap;
    for (std::int64_t s = 0; s < steps;) {
      // One period: a halo exchange, then kb steps (fewer than the depth at the call's end).
      const std::int64_t kb = std::min<std::int64_t>(k_, steps - s);
      const std::int64_t end = s + kb;
      const auto laplacian = [&](std::int64_t j) {  // whether step j of the period writes lapl
        return which == Laplacian::every_step || s + j == steps;
      };
      const bool last = end == steps;  // the period's last step writes f
      if (!overlap) {
        pack(exec_);
        copy_out(exec_);
        // The fence also finishes the last period's copies out of recv: receives may land now.
        exec_.fence("unison::mpi::diffuse: halo packed");
        exchange_.run();
        unpack(exec_);
        for (std::int64_t j = 1; j <= kb; ++j)
          update(exec_, "unison::mpi::diffusion::block", region(kb - j), j, last && j == kb, f, c,
                 lapl, laplacian(j));
      } else {
        // Both instances start the period once both have finished the last: the halo work reads
        // what the last interior updates wrote, the interior updates what the last edge updates
        // did. Step j's interior (the block less j cells on every side) needs no ghost cell and
        // no edge cell of the steps before it, so every interior update of the period runs on
        // exec while the halos travel; the edge cells of step j (the rest of the block widened by
        // kb - j) follow on the halo instance, each once step j - 1's interior is done.
        exec_after_side_.after(exec_, side_);
        side_after_exec_.after(side_, exec_);
        pack(side_);
        packed_.record(side_);  // step 2's interior overwrites cells the packing reads
        copy_out(side_);
        const auto interiors = [&] {
          for (std::int64_t j = 1; j <= kb; ++j) {
            if (j == 2) packed_.wait(exec_);
            update(exec_, "unison::mpi::diffusion::interior", interior(j), j, last && j == kb, f, c,
                   lapl, laplacian(j));
            if (j < kb) interior_done_[std::size_t(j - 1)]->record(exec_);
          }
        };
        // On a GPU the interior updates are queued before the host waits for the packed halo
        // (the wait also finishes the last period's copies out of recv, so receives may land
        // after it); on the host backends the updates run in the call, so the messages go out
        // first.
        if constexpr (backends::asynchronous_v<Exec>) interiors();
        side_.fence("unison::mpi::diffuse: halo packed");
        exchange_.start_receives();
        exchange_.start_sends();
        if constexpr (!backends::asynchronous_v<Exec>) interiors();
        exchange_.wait();
        unpack(side_);
        for (std::int64_t j = 1; j <= kb; ++j) {
          if (j > 1) interior_done_[std::size_t(j - 2)]->wait(side_);
          frame(side_, region(kb - j), interior(j), j, last && j == kb, f, c, lapl, laplacian(j));
        }
      }
      if (kb % 2 == 1) std::swap(cur_, nxt_);  // the period's result is in cur_
      s = end;
    }
    if (overlap) exec_after_side_.after(exec_, side_);
    exec_.fence("unison::mpi::diffuse: done");
  }

  // Buffers for halos of depth k (at most the padded copies' depth), and the persistent requests
  // on them (made on every rank; an allocation refusal is agreed on). The ghost cells deeper than
  // k are then never read.
  void build(int k) {
    constexpr const char* fn = "unison::mpi::DiffusionPlan";
    exchange_ = Exchange();
    k_ = k;
    interior_done_.clear();
    for (int j = 1; j < k; ++j)
      interior_done_.push_back(std::make_unique<backends::StreamOrder<Exec>>());
    seg_ = HaloSegments(d_.local_nx, d_.local_ny, k, neighbours_present(d_), tr ? kc_ : kr_,
                        tr ? kr_ : kc_);
    const std::int64_t halo = seg_.size();
    send_ = recv_ = Buffer();
    send_host_ = recv_host_ = Host();
    agree(d_.comm, fn, [&] {
      send_ = unison::detail::allocate<Buffer>(fn, "the halo send buffer", exec_,
                                               "unison::mpi::diffusion::send", halo);
      recv_ = unison::detail::allocate<Buffer>(fn, "the halo receive buffer", exec_,
                                               "unison::mpi::diffusion::recv", halo);
      if (!direct_) {
        send_host_ = unison::detail::allocate<Host>(fn, "the pinned halo send buffer", exec_,
                                                    "unison::mpi::diffusion::send_host", halo);
        recv_host_ = unison::detail::allocate<Host>(fn, "the pinned halo receive buffer", exec_,
                                                    "unison::mpi::diffusion::recv_host", halo);
      }
    });
    exchange_ = Exchange(d_, datatype<T>(), seg_, direct_ ? send_.data() : send_host_.data(),
                         direct_ ? recv_.data() : recv_host_.data(), sizeof(T));
  }

 private:
  // The padded copies of the block, for halos up to `deepest` deep (made once, on every rank;
  // an allocation refusal is agreed on): `deepest` ghost rows before and after the block in the
  // kernels' grid, kc_ (`deepest` rounded up to the alignment) ghost columns before it and
  // `deepest` after, each row padded to the alignment (HaloTuning::align_cols). A block without
  // neighbours has unison::diffuse's buffer instead.
  void allocate_blocks(int deepest) {
    constexpr const char* fn = "unison::mpi::DiffusionPlan";
    const std::int64_t nx = d_.local_nx, ny = d_.local_ny, g = deepest;
    kr_ = g;
    kc_ = Shape::pitch(g);
    agree(d_.comm, fn, [&] {
      if (!neighbours_) {  // unison::diffuse's buffer (P is DiffusionBuffer<F>)
        cur_ = unison::detail::allocate<P>(fn, "the diffusion buffer", exec_,
                                           "unison::mpi::diffusion::field", nx, ny);
        return;
      }
      const std::int64_t ex = tr ? Shape::pitch(kc_ + nx + g) : nx + 2 * g,
                         ey = tr ? ny + 2 * g : Shape::pitch(kc_ + ny + g);
      cur_ = unison::detail::allocate<P>(fn, "the padded block", exec_,
                                         "unison::mpi::diffusion::field", ex, ey);
      nxt_ = unison::detail::allocate<P>(fn, "the second padded block", exec_,
                                         "unison::mpi::diffusion::field", ex, ey);
    });
    if (!neighbours_) return;
    // Ghost cells at the field's edge must read 0 in both copies, for every step (no kernel
    // writes them: the updates widen the block only toward its neighbours).
    for (const P* block : {&cur_, &nxt_})
      Kokkos::parallel_for("unison::mpi::diffusion::zero",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               exec_, 0, std::int64_t(block->span())),
                           ZeroFill<T>{block->data()});
    exec_.fence("unison::mpi::DiffusionPlan: buffers");
  }

  std::int64_t rows() const { return tr ? d_.local_ny : d_.local_nx; }
  std::int64_t cols() const { return tr ? d_.local_nx : d_.local_ny; }
  // The block widened by e cells toward each neighbour, in the kernels' grid.
  Rect region(std::int64_t e) const {
    const std::int64_t n = d_.north != MPI_PROC_NULL ? e : 0, s = d_.south != MPI_PROC_NULL ? e : 0,
                       w = d_.west != MPI_PROC_NULL ? e : 0, o = d_.east != MPI_PROC_NULL ? e : 0;
    if (tr) return {-w, d_.local_ny + o, -n, d_.local_nx + s};
    return {-n, d_.local_nx + s, -w, d_.local_ny + o};
  }
  // Step j's interior: the block less j cells on every side (empty for a thin block).
  Rect interior(std::int64_t j) const { return {j, rows() - j, j, cols() - j}; }
  static bool empty(const Rect& r) { return r.r1 <= r.r0 || r.c1 <= r.c0; }
  static std::int64_t cells(const Rect& r) { return empty(r) ? 0 : (r.r1 - r.r0) * (r.c1 - r.c0); }

  // Step j of a period reads one padded copy and writes the other: cur_ and nxt_ for odd j,
  // the other way round for even j; the call's last step writes f instead.
  const P& source(std::int64_t j) const { return j % 2 == 1 ? cur_ : nxt_; }
  const P& target(std::int64_t j) const { return j % 2 == 1 ? nxt_ : cur_; }

  // Whether a caller's View v (the field or its Laplacian) takes HaloStrips' wide stores of K
  // values: unit steps along the grid's columns, rows and data aligned to a chunk.
  template <int K, class V>
  static bool wide(const V& v) {
    using C = unison::detail::Chunk<T, K>;
    const std::int64_t step = tr ? v.stride(0) : v.stride(1),
                       pitch = tr ? v.stride(1) : v.stride(0);
    return K > 1 && step == 1 && reinterpret_cast<std::uintptr_t>(v.data()) % alignof(C) == 0 &&
           (pitch * std::int64_t(sizeof(T))) % std::int64_t(alignof(C)) == 0;
  }
  // The update of rectangle r of the grid, step j of a period, on `on`: on a GPU HaloStrips, a
  // thread per chunk of the rectangle's padded columns and strip of its rows; on CPUs HaloRows, a
  // block of rows per thread.
  template <class L>
  void update(const Exec& on, const char* label, const Rect& r, std::int64_t j, bool last,
              const F& f, T c, const L& lapl, bool wl) {
    if (empty(r)) return;
    const std::int64_t lo = r.c0 + kc_, hi = r.c1 + kc_, n = r.r1 - r.r0;
    using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    const auto run = [&](const auto& out, auto to_field) {
      using N = std::decay_t<decltype(out)>;
      constexpr bool to_f = decltype(to_field)::value;
      const HaloStencil<tr, P, N, L, to_f> step{source(j), out, lapl,   c,     wl,
                                                kr_,       kc_, rows(), cols()};
      if constexpr (Shape::row_blocks) {
        const std::int64_t threads = std::min<std::int64_t>(on.concurrency(), n);
        const std::int64_t per = (n + threads - 1) / threads;
        Kokkos::parallel_for(label, Range(on, 0, (n + per - 1) / per),
                             HaloRows<tr, P, N, L, to_f>{step, r.r0, r.r1, lo, hi, per});
      } else {
        using S = HaloStripShape<Exec, T>;
        constexpr int K = S::K;
        const std::int64_t first = lo / K * K, chunks = (hi - first + K - 1) / K;
        const std::int64_t strips = (n + S::strip - 1) / S::strip;
        // The padded copy takes wide stores always (its rows are a whole number of chunks).
        bool wide_next = true;
        if constexpr (to_f) wide_next = wide<K>(out);
        Kokkos::parallel_for(
            label, Range(on, 0, chunks * strips),
            HaloStrips<tr, P, N, L, to_f, K, S::ahead>{step, r.r0, r.r1, lo, hi, first, chunks,
                                                       S::strip, wide_next, wl && wide<K>(lapl)});
      }
    };
    if (last) run(f, std::true_type());
    else run(target(j), std::false_type());
  }
  // The cells of rectangle `outer` that are not in `inner`, step j of a period, on `on`.
  template <class L>
  void frame(const Exec& on, const Rect& outer, const Rect& inner, std::int64_t j, bool last,
             const F& f, T c, const L& lapl, bool wl) {
    const auto run = [&](const auto& out, auto to_field) {
      using N = std::decay_t<decltype(out)>;
      const HaloStencilFrame<tr, P, N, L, decltype(to_field)::value> frame{
          {source(j), out, lapl, c, wl, kr_, kc_, rows(), cols()}, outer, inner};
      if (frame.size() == 0) return;
      Kokkos::parallel_for(
          "unison::mpi::diffusion::edges",
          Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, frame.size()), frame);
    };
    if (last) run(f, std::true_type());
    else run(target(j), std::false_type());
  }
  void pack(const Exec& on) {
    Kokkos::parallel_for(
        "unison::mpi::diffusion::pack",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, seg_.size()),
        HaloPack<P, Buffer>{cur_, send_, seg_});
  }
  void copy_out(const Exec& on) {
    if (!direct_) Kokkos::deep_copy(on, send_host_, send_);
  }
  void unpack(const Exec& on) {
    if (!direct_) Kokkos::deep_copy(on, recv_, recv_host_);
    Kokkos::parallel_for(
        "unison::mpi::diffusion::unpack",
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(on, 0, seg_.size()),
        HaloUnpack<P, Buffer>{cur_, recv_, seg_});
  }

  // The times the depth model needs, on this rank, with the plan's deepest buffers (the median
  // of five after one untimed run of each).
  unison::mpi::HaloTimes measure() {
    const auto median = [&](auto&& work) {
      std::array<double, 5> t{};
      work();
      for (double& x : t) {
        Kokkos::Timer timer;
        work();
        x = timer.seconds();
      }
      std::sort(t.begin(), t.end());
      return t[2];
    };
    const auto step = [&](const Rect& r) {
      return [&, r] {
        update(exec_, "unison::mpi::diffusion::block", r, 1, false, F(), T(0), nxt_, false);
        exec_.fence("unison::mpi::DiffusionPlan: timed");
      };
    };
    const auto exchange = [&] {
      pack(exec_);
      copy_out(exec_);
      exec_.fence("unison::mpi::DiffusionPlan: timed");
      exchange_.run();
      unpack(exec_);
      exec_.fence("unison::mpi::DiffusionPlan: timed");
    };
    unison::mpi::HaloTimes t;
    t.deep = k_;
    t.deep_values = seg_.size();
    t.exchange_deep = median(exchange);
    const Rect in = interior(1);
    t.interior = empty(in) ? 0 : median(step(in));
    t.launch = median(step(Rect{0, 1, 0, 1}));
    t.interior_cells = cells(in);
    if (k_ > 1) {
      build(1);
      t.exchange_one = median(exchange);
      t.one_values = seg_.size();
    } else {
      t.exchange_one = t.exchange_deep;
      t.one_values = t.deep_values;
    }
    return t;
  }

  Exec exec_, side_;
  unison::mpi::Decomposition d_;
  unison::mpi::ExchangeOptions options_;
  bool neighbours_ = false, direct_ = true;
  int k_ = 1;  // the halos' depth
  // The padded copies' ghost rows and columns before the block, in the kernels' grid.
  std::int64_t kr_ = 1, kc_ = 1;
  unison::mpi::HaloTimes model_;
  P cur_, nxt_;
  Buffer send_, recv_;
  Host send_host_, recv_host_;
  HaloSegments seg_;
  Exchange exchange_;
  backends::StreamOrder<Exec> side_after_exec_, exec_after_side_, packed_;
  std::vector<std::unique_ptr<backends::StreamOrder<Exec>>> interior_done_;  // steps 1 to k - 1
};

}  // namespace unison::detail::mpi
