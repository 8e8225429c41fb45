// train_benchmark: a real training step through the training stack against the same step
// written by hand with Eigen (item 4 of the performance appendix), and how close the
// hand-written matrix product comes to this core's peak.
//
//   BM_TrainStep/spirals/64   the spirals MLP (2-32-32-3, tanh), batch 64: at most 1.10x
//   BM_TrainStep/spirals/1    the same at batch 1: at most 1.5x
//   BM_TrainStep/mlp784/64    a 784-256-10 MLP (ReLU), batch 64: at most 1.10x
//   BM_GemmFractionOfPeak     Eigen's GEMM (64x784 by 784x256) in GFLOP/s over the peak of
//                             a loop of independent multiply-adds (reported)
#include <immintrin.h>

#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "src/01_session/variables.h"
#include "tests/benchmarks/compare.h"
#include "tests/benchmarks/mlp.h"
#include "tests/benchmarks/training_stack.h"

namespace mts {
namespace bench {
namespace {

const MlpShape kSpirals{{2, 32, 32, 3}, /*relu=*/false};
const MlpShape kMlp784{{784, 256, 10}, /*relu=*/true};

// [mts:bench-train-step]
void TrainStep(benchmark::State& state, const MlpShape& shape, double limit) {
  const int64_t batch_size = state.range(0);
  const MlpBatch batch = MakeMlpBatch(shape, batch_size, /*seed=*/7);
  Graph graph;
  DefaultGraphScope as_default(graph);
  graph.set_seed(1);
  MlpGraph model(shape);
  const std::string dir = MakeTempDir("train");
  std::unique_ptr<SessionInterface> stack = MakeTrainingStack(dir);
  const FeedDict feeds = {{model.x, batch.x}, {model.labels, batch.labels}};
  const std::vector<Output> no_fetches;
  const std::vector<Operation*> targets = {model.train_op};
  EigenMlp by_hand(shape, batch_size, /*seed=*/1);

  // Enough steps per round that a round is about a millisecond either way.
  const int steps = batch_size >= 64 ? (shape.sizes[0] > 100 ? 4 : 50) : 200;
  Comparison c = CompareInterleaved(
      state, [&] { stack->Run(no_fetches, feeds, targets); },
      [&] { benchmark::DoNotOptimize(by_hand.Step(batch)); }, steps);
  SetResult(state, c.a_ns / c.b_ns, limit, Unit::kRatio);
  stack->Close();
  RemoveTempDir(dir);
}
// [mts:bench-train-step-end]

void BM_TrainStepSpirals(benchmark::State& state) {
  TrainStep(state, kSpirals, state.range(0) == 1 ? 1.5 : 1.10);
}
BENCHMARK(BM_TrainStepSpirals)->Arg(64)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_TrainStepMlp784(benchmark::State& state) { TrainStep(state, kMlp784, 1.10); }
BENCHMARK(BM_TrainStepMlp784)->Arg(64)->Unit(benchmark::kMicrosecond);

// The peak: 12 independent chains (12 accumulators and two constants fit the 16 vector
// registers, so nothing spills) of vector multiply-adds, so no chain waits on its own
// latency. `Fma` uses the 256-bit fused multiply-add the core has; `Sse` the 128-bit
// multiply and add of the baseline x86-64 instruction set this build compiles for.
__attribute__((target("avx2,fma"))) double PeakFmaGflops(int64_t iters) {
  __m256 acc[12];
  const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-7f);
  for (auto& a : acc) a = _mm256_set1_ps(1.0f);
  const double start = NowNs(Clock::kProcessCpu);
  for (int64_t i = 0; i < iters; ++i) {
    for (auto& a : acc) a = _mm256_fmadd_ps(a, mul, add);
  }
  const double ns = NowNs(Clock::kProcessCpu) - start;
  __m256 sum = acc[0];
  for (int k = 1; k < 12; ++k) sum = _mm256_add_ps(sum, acc[k]);
  benchmark::DoNotOptimize(sum);
  return 12.0 * 8 * 2 * iters / ns;
}

double PeakSseGflops(int64_t iters) {
  __m128 acc[12];
  const __m128 mul = _mm_set1_ps(0.999999f), add = _mm_set1_ps(1e-7f);
  for (auto& a : acc) a = _mm_set1_ps(1.0f);
  const double start = NowNs(Clock::kProcessCpu);
  for (int64_t i = 0; i < iters; ++i) {
    for (auto& a : acc) a = _mm_add_ps(_mm_mul_ps(a, mul), add);
  }
  const double ns = NowNs(Clock::kProcessCpu) - start;
  __m128 sum = acc[0];
  for (int k = 1; k < 12; ++k) sum = _mm_add_ps(sum, acc[k]);
  benchmark::DoNotOptimize(sum);
  return 12.0 * 4 * 2 * iters / ns;
}

// [mts:bench-gemm-peak]
void BM_GemmFractionOfPeak(benchmark::State& state) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Matrix a = Matrix::Random(64, 784), b = Matrix::Random(784, 256);
  Matrix c(64, 256);
  std::vector<double> gemm, fma, sse;
  for (auto _ : state) {
    const int reps = 20;
    const double start = NowNs(Clock::kProcessCpu);
    for (int r = 0; r < reps; ++r) {
      c.noalias() = a * b;
      benchmark::DoNotOptimize(c.data());
    }
    gemm.push_back(2.0 * 64 * 784 * 256 * reps / (NowNs(Clock::kProcessCpu) - start));
    fma.push_back(PeakFmaGflops(200000));
    sse.push_back(PeakSseGflops(200000));
  }
  const double g = Median(gemm), f = Median(fma), s = Median(sse);
  state.counters["gemm_gflops"] = g;
  state.counters["peak_fma_gflops"] = f;
  state.counters["peak_sse_gflops"] = s;
  state.counters["fraction_of_sse_peak"] = g / s;
  SetResult(state, g / f, /*limit=*/0, Unit::kFraction);
}
BENCHMARK(BM_GemmFractionOfPeak)->Unit(benchmark::kMillisecond);
// [mts:bench-gemm-peak-end]

}  // namespace
}  // namespace bench
}  // namespace mts

int main(int argc, char** argv) {
  setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
