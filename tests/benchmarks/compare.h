// compare.h: measures two ways of doing the same work side by side, in one run, and reports
// the ratio of their costs as Google Benchmark counters.
//
//   tests/benchmarks/*_benchmark.cc  <-- every comparison of the performance appendix
//
// Why side by side: the machines these run on are shared and noisy, so an absolute time
// drifts by tens of percent between runs, while two measurements taken alternately, a few
// milliseconds apart, see the same noise. CompareInterleaved runs round after round; each
// round times a batch of `a` and a batch of `b`, in alternating order (a-b, then b-a) so
// neither side always runs on a cache the other warmed. Time is the process's CPU time
// unless a comparison needs wall time (see Clock). The per-operation cost of each side
// is the *median* over rounds, which a burst of noise from a neighbour does not move.
//
// Counters (all per operation): `a_ns`, `b_ns`, `ratio` = a/b and `added_us` = (a - b) in
// microseconds. A benchmark then states its result with SetResult: the `value` its target is
// about, the `limit` and the `unit`; tools/run_benchmarks.sh prints the table of the
// appendix from those three counters.
#ifndef MTS_TESTS_BENCHMARKS_COMPARE_H_
#define MTS_TESTS_BENCHMARKS_COMPARE_H_

#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "benchmark/benchmark.h"

namespace mts {
namespace bench {

/// Which clock a comparison reads.
enum class Clock {
  /// CPU time of the whole process, every thread of it (a summary writer's flush thread,
  /// queue runners): for work that computes. It leaves out the time spent waiting for a
  /// core, which on a shared machine is most of the noise.
  kProcessCpu,
  /// Wall time: for work that waits (I/O, fsync) or runs on other threads too.
  kWall,
};

/// Now on `clock`, in nanoseconds.
inline double NowNs(Clock clock) {
  if (clock == Clock::kWall) {
    return std::chrono::duration<double, std::nano>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/// Nanoseconds spent running `fn` `n` times.
template <typename Fn>
double TimeBatchNs(Fn& fn, int n, Clock clock) {
  const double start = NowNs(clock);
  for (int i = 0; i < n; ++i) fn();
  return NowNs(clock) - start;
}

/// The median of `v` (which it reorders).
inline double Median(std::vector<double>& v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// The per-operation costs of two sides measured by CompareInterleaved.
struct Comparison {
  double a_ns = 0;  ///< Median cost of one `a`.
  double b_ns = 0;  ///< Median cost of one `b`.
};

/// Times `a` against `b` in alternating batches of `batch` calls, one round per benchmark
/// iteration, on `clock`, and sets the counters described above. Both are warmed up first
/// (a run signature is planned once, buffers are allocated once).
template <typename A, typename B>
Comparison CompareInterleaved(benchmark::State& state, A&& a, B&& b, int batch,
                              Clock clock = Clock::kProcessCpu) {
  for (int i = 0; i < std::max(1, batch / 4); ++i) {
    a();
    b();
  }
  // [mts:bench-interleave]
  std::vector<double> a_ns, b_ns;
  bool a_first = true;
  for (auto _ : state) {
    if (a_first) {
      a_ns.push_back(TimeBatchNs(a, batch, clock) / batch);
      b_ns.push_back(TimeBatchNs(b, batch, clock) / batch);
    } else {
      b_ns.push_back(TimeBatchNs(b, batch, clock) / batch);
      a_ns.push_back(TimeBatchNs(a, batch, clock) / batch);
    }
    a_first = !a_first;
  }
  Comparison c{Median(a_ns), Median(b_ns)};
  // [mts:bench-interleave-end]
  state.counters["a_ns"] = c.a_ns;
  state.counters["b_ns"] = c.b_ns;
  state.counters["ratio"] = c.a_ns / c.b_ns;
  state.counters["added_us"] = (c.a_ns - c.b_ns) / 1000.0;
  return c;
}

/// The unit of a measured value, for the table tools/run_benchmarks.sh prints.
enum class Unit { kRatio = 0, kMicros = 1, kFraction = 2, kSeconds = 3 };

/// States what the benchmark's result is: `value` (in `unit`) and its target, value <= limit.
/// A `limit` of 0 means the value is reported, with no target.
inline void SetResult(benchmark::State& state, double value, double limit, Unit unit) {
  state.counters["value"] = value;
  state.counters["limit"] = limit;
  state.counters["unit"] = static_cast<int>(unit);
}

/// The same for a target the other way round: value >= floor (a speed, a fraction of peak).
inline void SetResultAtLeast(benchmark::State& state, double value, double floor, Unit unit) {
  SetResult(state, value, floor, unit);
  state.counters["at_least"] = 1;
}

}  // namespace bench
}  // namespace mts

#endif  // MTS_TESTS_BENCHMARKS_COMPARE_H_
