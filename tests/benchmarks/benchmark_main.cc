// benchmark_main.cc: the one main() of the benchmarks that run the training stack's hooks
// (overhead_benchmark, train_benchmark, queue_benchmark): Google Benchmark's usual main,
// with mts's log held to errors.
//
// Why not BENCHMARK_MAIN(): the stacks these binaries run hold a StepCounterHook, which
// logs at INFO every hundred steps, and a benchmark's output is its table; log lines
// would cut into it. MTS_MIN_LOG_LEVEL is read when the first line is logged, so setting
// it here, before any benchmark runs, is in time. A value from the environment is
// overridden (tools/run_benchmarks.sh sets this same one). checkpoint_benchmark runs no
// hooks and keeps BENCHMARK_MAIN().
#include <cstdlib>

#include "benchmark/benchmark.h"

int main(int argc, char** argv) {
  setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
