#include "collect.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include <benchmark/benchmark.h>

#include "cases/common.hpp"
#include "environment.hpp"
#include "harness/workloads.hpp"

namespace unison::suite {

namespace {

// Collects each case's aggregates into rows and reports progress on stderr as cases finish.
// What the suite says while it runs: each case as it ends, with the count of cases and an
// estimate of the time left (the mean time of the cases so far times the cases left), and
// every 30 s without news that the running case is still running.
class Progress {
 public:
  using clock = std::chrono::steady_clock;
  explicit Progress(int cases) : cases_(cases), start_(clock::now()), last_(start_) {
    watch_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!done_) {
        wake_.wait_for(lock, std::chrono::seconds(1));
        const auto now = clock::now();
        if (done_ || current_.empty() || now - last_ < std::chrono::seconds(30)) continue;
        std::fprintf(stderr, "unison-bench: [%d/%d] %s still running (%.0f s so far)\n", ended_ + 1,
                     cases_, current_.c_str(),
                     std::chrono::duration<double>(now - started_).count());
        last_ = now;
      }
    });
  }
  ~Progress() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    watch_.join();
  }
  void started(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = name;
    started_ = last_ = clock::now();
  }
  // "[7/90, cases: about 2 min left]"
  std::string ended() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++ended_;
    current_.clear();
    last_ = clock::now();
    const double so_far = std::chrono::duration<double>(last_ - start_).count();
    const double left = so_far / ended_ * (cases_ - ended_);
    char text[64];
    if (ended_ >= cases_) std::snprintf(text, sizeof text, "[%d/%d]", ended_, cases_);
    else if (left < 90)
      std::snprintf(text, sizeof text, "[%d/%d, cases: about %.0f s left]", ended_, cases_, left);
    else
      std::snprintf(text, sizeof text, "[%d/%d, cases: about %.0f min left]", ended_, cases_,
                    left / 60);
    return text;
  }

 private:
  int cases_, ended_ = 0;
  clock::time_point start_, started_, last_;
  std::string current_;
  bool done_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread watch_;
};

class SuiteReporter : public benchmark::BenchmarkReporter {
 public:
  explicit SuiteReporter(Progress* progress = nullptr) : progress_(progress) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    // The case and backend of each run, from the harness (no name is parsed). A stream measured
    // again at the end of the run (Case::again_of) takes the place of its first measure where its
    // fastest repetition was faster.
    std::optional<Key> again_of;
    for (const Run& run : runs) {
      const auto registered = unison::bench::registered(run.run_name.function_name);
      if (!registered) continue;  // (every run is of a case registered: the harness's own)
      const unison::bench::Case& c = *registered->c;
      const Key key{c.again_of.empty() ? c.name : c.again_of, registered->backend};
      if (!c.again_of.empty()) {
        again_of = key;
        if (!again_stats_.count(key)) again_stats_[key] = stats_[key];  // the first measure
      }
      const std::string full = key.first + "/" + key.second;  // as the progress shows it
      Stats& s = stats_[key];
      if (s.row.name.empty()) {
        s.row.name = key.first;
        s.row.backend = key.second;
        unison::suite::describe(s.row, {c.family, c.function, c.kind, c.headline});
        order_.push_back(key);
      }
      const double seconds =
          run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      // One repetition reports the run itself (no aggregates): its time is the median.
      const bool single = run.aggregate_name.empty();
      if (single) s.mean = seconds, s.stddev = 0;
      if (run.aggregate_name == "median" || single) {
        s.row.median_s = seconds;
        const auto gb = run.counters.find("GB/s"), gf = run.counters.find("GFLOP/s");
        if (gb != run.counters.end()) s.row.gb_per_s = gb->second.value;
        if (gf != run.counters.end()) s.row.gflop_per_s = gf->second.value;
        const auto set = run.counters.find("working_set_bytes"),
                   out = run.counters.find("out_bytes");
        if (set != run.counters.end()) s.row.working_set_bytes = set->second.value;
        if (out != run.counters.end()) s.row.out_bytes = out->second.value;
        const auto err = run.counters.find("check_error"),
                   tol = run.counters.find("check_tolerance");
        if (err != run.counters.end() && tol != run.counters.end()) {
          s.row.checked = true;
          s.row.error = err->second.value;
          s.row.tolerance = tol->second.value;
          const auto timed = run.counters.find("check_as_timed");
          s.row.as_timed = timed == run.counters.end() || timed->second.value != 0;
        }
        const std::string check = unison::suite::check_text(s.row);
        const std::string count =
            progress_ ? progress_->ended() : "[" + std::to_string(order_.size()) + "]";
        std::fprintf(stderr, "unison-bench: %s %s: %s%s%s\n", count.c_str(), full.c_str(),
                     unison::suite::format_time(seconds).c_str(), check.empty() ? "" : ", check ",
                     check.c_str());
      } else if (run.aggregate_name == "min") {
        s.row.best_s = seconds;
      } else if (run.aggregate_name == "mean") {
        s.mean = seconds;
      } else if (run.aggregate_name == "stddev") {
        s.stddev = seconds;
      }
    }
    if (again_of) {
      const Stats& first = again_stats_.at(*again_of);
      Stats& now = stats_[*again_of];
      const auto best = [](const Stats& x) {
        return x.row.best_s > 0 ? x.row.best_s : x.row.median_s;
      };
      // (a measure that failed, or timed nothing, never replaces the other)
      const bool first_ok = first.row.median_s > 0 && first.row.passed();
      const bool now_ok = now.row.median_s > 0 && now.row.passed();
      if (first_ok && (!now_ok || best(first) <= best(now))) now = first;
      again_stats_.erase(*again_of);
    }
  }
  std::vector<unison::suite::Row> rows() const {
    std::vector<unison::suite::Row> out;
    for (const auto& key : order_) {
      const Stats& s = stats_.at(key);
      unison::suite::Row r = s.row;
      r.spread = s.mean > 0 ? s.stddev / s.mean : 0;
      out.push_back(r);
    }
    return out;
  }

 private:
  struct Stats {
    unison::suite::Row row;
    double mean = 0, stddev = 0;
  };
  using Key = std::pair<std::string, std::string>;  // (the case's name, its backend)
  std::map<Key, Stats> again_stats_;  // a stream's first measure while its second reports
  Progress* progress_;
  std::map<Key, Stats> stats_;
  std::vector<Key> order_;
};

}  // namespace

std::map<std::string, unison::suite::CaseKind> manifest_kinds() {
  std::map<std::string, unison::suite::CaseKind> kinds;
  for (const auto& entry : unison::bench::manifest())
    kinds[entry.c.name] = {entry.c.family, entry.c.function, entry.c.kind, entry.c.headline};
  return kinds;
}

std::vector<Row> run_cases(const Options& opt) {
  auto& settings = unison::bench::settings();
  std::vector<unison::suite::Row> rows_of_cases;
  const int repetitions = settings.repetitions > 0 ? settings.repetitions : 3;
  say_cpus_and_threads();
  std::fprintf(stderr,
               "unison-bench: workloads %s; backends %s; scale %g; %s; %d cases of %d repetitions; "
               "results in %s\n",
               unison::suite::join(opt.workloads, ",").c_str(),
               unison::suite::join(opt.backends, ",").c_str(), opt.scale,
               opt.full ? "--full: every seed size"
                        : "seed sizes where a call takes at most 5 s (--full: all)",
               settings.registered, repetitions, opt.out.c_str());
  {
    Progress progress(settings.registered);
    settings.on_start = [&](const std::string& name) { progress.started(name); };
    SuiteReporter reporter(&progress);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    settings.on_start = nullptr;
    rows_of_cases = reporter.rows();
  }
  return rows_of_cases;
}

}  // namespace unison::suite
