// train_benchmark: a real training step through the training stack against the same step
// written by hand with Eigen (item 4 of the performance appendix), and how close the
// hand-written matrix product comes to this core's peak.
//
//   BM_TrainStep/spirals/64   the spirals MLP (2-32-32-3, tanh), batch 64: at most 1.10x
//   BM_TrainStep/spirals/1    the same at batch 1: at most 1.5x
//   BM_TrainStep/mlp784/64    a 784-256-10 MLP (ReLU), batch 64: at most 1.10x
//   BM_GemmFractionOfPeak     Eigen's GEMM (64x784 by 784x256) in GFLOP/s over the peak of
//                             a loop of independent multiply-adds of the vector width this
//                             build compiles for: at least 55%
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include <Eigen/Core>

#include "benchmark/benchmark.h"
#include "src/01_session/allocator.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "tests/benchmarks/alloc_counter.h"
#include "tests/benchmarks/compare.h"
#include "tests/benchmarks/mlp.h"
#include "tests/benchmarks/training_stack.h"

namespace mts {
namespace bench {
namespace {

const MlpShape kSpirals{{2, 32, 32, 3}, /*relu=*/false};
const MlpShape kMlp784{{784, 256, 10}, /*relu=*/true};

// Heap allocations of `step` at steady state, over `n` calls after one more to warm up (a new
// signature is planned, buffers are first allocated): the mean per call, and how many of the
// calls allocated at all (so that a few costly calls, such as the hooks' events every
// hundredth step, are told apart from a little on every call). -1 for both when not counted.
struct Allocations {
  double per_step;
  int steps_allocating;
};

template <typename Step>
Allocations AllocationsPerStep(Step&& step, int n) {
  step();
  if (HeapAllocations() < 0) return {-1, -1};
  const int64_t before = HeapAllocations();
  int steps_allocating = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t start = HeapAllocations();
    step();
    if (HeapAllocations() != start) ++steps_allocating;
  }
  return {static_cast<double>(HeapAllocations() - before) / n, steps_allocating};
}

// [mts:bench-train-step]
void TrainStep(benchmark::State& state, const MlpShape& shape, double limit) {
  const int64_t batch_size = state.range(0);
  const MlpBatch batch = MakeMlpBatch(shape, batch_size, /*seed=*/7);
  Graph graph;
  DefaultGraphScope as_default(graph);
  graph.set_seed(1);
  MlpGraph model(shape);
  Operation* init = GlobalVariablesInitializer();  // For the bare Session below.
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
  // How many ops one step runs, from a traced run: what the difference is spread over.
  RunOptions traced;
  traced.trace_level = RunOptions::TraceLevel::kFullTrace;
  RunMetadata metadata;
  stack->Run(no_fetches, feeds, targets, traced, &metadata);
  state.counters["ops"] = metadata.step_stats.size();
  state.counters["added_per_op_us"] = (c.a_ns - c.b_ns) / metadata.step_stats.size() / 1000;
  // Heap allocations per step: through the stack (its hooks write events every 100 steps,
  // so 200 steps include two of each), of a bare Session running the same step, and of
  // the step by hand.
  const int n = 200;
  const Allocations through_stack =
      AllocationsPerStep([&] { stack->Run(no_fetches, feeds, targets); }, n);
  state.counters["allocs_per_step"] = through_stack.per_step;
  state.counters["allocating_steps"] = through_stack.steps_allocating;  // Of the 200.
  Session session(&graph);
  session.Run({}, {}, {init});
  state.counters["session_allocs_per_step"] =
      AllocationsPerStep([&] { session.Run(no_fetches, feeds, targets); }, n).per_step;
  // Tensor buffers a bare Session's step takes from the allocator (new or from its cache):
  // one per op output that could not take over a dying input's buffer (buffer forwarding).
  const Allocator::Stats before = Allocator::Default()->GetStats();
  for (int i = 0; i < n; ++i) session.Run(no_fetches, feeds, targets);
  const Allocator::Stats after = Allocator::Default()->GetStats();
  state.counters["buffers_per_step"] =
      static_cast<double>(after.system_allocations + after.reuses - before.system_allocations -
                          before.reuses) /
      n;
  state.counters["by_hand_allocs_per_step"] =
      AllocationsPerStep([&] { benchmark::DoNotOptimize(by_hand.Step(batch)); }, n).per_step;
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

// The peak: independent chains of vector multiply-adds, so no chain waits on its own
// latency, each held in a register of its own (written out one by one: a loop over an
// array makes the compiler keep the chains in memory). Each chain starts from a value of
// its own: chains that start equal stay equal, and the compiler rightly computes them once,
// which would report ten times the work done. One function per instruction set: `Fma512` the
// 512-bit fused multiply-add of AVX-512, `Fma256` the 256-bit one of AVX2/FMA, `Sse` the 128-bit
// multiply and add of baseline x86-64. Each is compiled for its own instructions whatever the
// build's -march, so the table can say what the core could do and what the instructions this build
// lets Eigen use could do.
#define MTS_FMA_CHAINS(T, fmadd, set1)                                                       \
  const T m = set1(0.999999f), c = set1(1e-7f);                                              \
  T a0 = set1(1.0f), a1 = set1(1.1f), a2 = set1(1.2f), a3 = set1(1.3f), a4 = set1(1.4f),     \
    a5 = set1(1.5f), a6 = set1(1.6f), a7 = set1(1.7f), a8 = set1(1.8f), a9 = set1(1.9f);     \
  const double start = NowNs(Clock::kProcessCpu);                                            \
  for (int64_t i = 0; i < iters; ++i) {                                                      \
    a0 = fmadd(a0, m, c);                                                                    \
    a1 = fmadd(a1, m, c);                                                                    \
    a2 = fmadd(a2, m, c);                                                                    \
    a3 = fmadd(a3, m, c);                                                                    \
    a4 = fmadd(a4, m, c);                                                                    \
    a5 = fmadd(a5, m, c);                                                                    \
    a6 = fmadd(a6, m, c);                                                                    \
    a7 = fmadd(a7, m, c);                                                                    \
    a8 = fmadd(a8, m, c);                                                                    \
    a9 = fmadd(a9, m, c);                                                                    \
  }                                                                                          \
  const double ns = NowNs(Clock::kProcessCpu) - start;                                       \
  /* Summed as vectors: taking the chains' addresses would make g++ store them each turn. */ \
  const T total = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;                           \
  float sum[sizeof(T) / sizeof(float)];                                                      \
  std::memcpy(sum, &total, sizeof(sum));                                                     \
  benchmark::DoNotOptimize(sum);                                                             \
  return 10.0 * (sizeof(T) / sizeof(float)) * 2 * iters / ns;

__attribute__((target("avx512f"), noinline)) double PeakFma512Gflops(int64_t iters) {
  MTS_FMA_CHAINS(__m512, _mm512_fmadd_ps, _mm512_set1_ps)
}

__attribute__((target("avx2,fma"), noinline)) double PeakFma256Gflops(int64_t iters) {
  MTS_FMA_CHAINS(__m256, _mm256_fmadd_ps, _mm256_set1_ps)
}
#undef MTS_FMA_CHAINS

__attribute__((target("sse2"), noinline)) double PeakSseGflops(int64_t iters) {
  // Multiplies and adds go to different units: six chains of each keep both busy.
  const __m128 m = _mm_set1_ps(0.999999f), c = _mm_set1_ps(1e-7f);
  __m128 p0 = _mm_set1_ps(1.0f), p1 = _mm_set1_ps(1.1f), p2 = _mm_set1_ps(1.2f),
         p3 = _mm_set1_ps(1.3f), p4 = _mm_set1_ps(1.4f), p5 = _mm_set1_ps(1.5f);
  __m128 s0 = _mm_set1_ps(2.0f), s1 = _mm_set1_ps(2.1f), s2 = _mm_set1_ps(2.2f),
         s3 = _mm_set1_ps(2.3f), s4 = _mm_set1_ps(2.4f), s5 = _mm_set1_ps(2.5f);
  const double start = NowNs(Clock::kProcessCpu);
  for (int64_t i = 0; i < iters; ++i) {
    p0 = _mm_mul_ps(p0, m);
    s0 = _mm_add_ps(s0, c);
    p1 = _mm_mul_ps(p1, m);
    s1 = _mm_add_ps(s1, c);
    p2 = _mm_mul_ps(p2, m);
    s2 = _mm_add_ps(s2, c);
    p3 = _mm_mul_ps(p3, m);
    s3 = _mm_add_ps(s3, c);
    p4 = _mm_mul_ps(p4, m);
    s4 = _mm_add_ps(s4, c);
    p5 = _mm_mul_ps(p5, m);
    s5 = _mm_add_ps(s5, c);
  }
  const double ns = NowNs(Clock::kProcessCpu) - start;
  __m128 sum = _mm_add_ps(_mm_add_ps(_mm_add_ps(p0, p1), _mm_add_ps(p2, p3)),
                          _mm_add_ps(_mm_add_ps(p4, p5), _mm_add_ps(s0, s1)));
  sum = _mm_add_ps(sum, _mm_add_ps(_mm_add_ps(s2, s3), _mm_add_ps(s4, s5)));
  benchmark::DoNotOptimize(sum);
  return 12.0 * 4 * iters / ns;
}

// The instructions this build lets Eigen use, widest first: 512 (AVX-512 FMA), 256 (AVX2
// FMA) or 128 (SSE2 multiply and add), from the compiler's own macros.
constexpr int kVectorBits =
#if defined(__AVX512F__)
    512;
#elif defined(__FMA__) && defined(__AVX2__)
    256;
#else
    128;
#endif

// [mts:bench-gemm-peak]
void BM_GemmFractionOfPeak(benchmark::State& state) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Matrix a = Matrix::Random(64, 784), b = Matrix::Random(784, 256);
  Matrix c(64, 256);
  const bool has_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool has_avx512 = __builtin_cpu_supports("avx512f");
  std::vector<double> gemm, fma512, fma256, sse;
  for (auto _ : state) {
    const int reps = 20;
    const double start = NowNs(Clock::kProcessCpu);
    for (int r = 0; r < reps; ++r) {
      c.noalias() = a * b;
      benchmark::DoNotOptimize(c.data());
    }
    gemm.push_back(2.0 * 64 * 784 * 256 * reps / (NowNs(Clock::kProcessCpu) - start));
    if (has_avx512) fma512.push_back(PeakFma512Gflops(200000));
    if (has_fma) fma256.push_back(PeakFma256Gflops(200000));
    sse.push_back(PeakSseGflops(200000));
  }
  const double g = Median(gemm), s = Median(sse);
  const double f256 = fma256.empty() ? 0 : Median(fma256);
  const double f512 = fma512.empty() ? 0 : Median(fma512);
  // The peak of the instructions used, and the core's best.
  const double used = kVectorBits == 512 ? f512 : kVectorBits == 256 ? f256 : s;
  state.counters["gemm_gflops"] = g;
  state.counters["vector_bits"] = kVectorBits;
  state.counters["peak_used_gflops"] = used;
  state.counters["peak_core_gflops"] = std::max({s, f256, f512});
  state.counters["peak_fma512_gflops"] = f512;
  state.counters["peak_fma_gflops"] = f256;
  state.counters["peak_sse_gflops"] = s;
  state.counters["fraction_of_core_peak"] = g / std::max({s, f256, f512});
  SetResultAtLeast(state, g / used, /*floor=*/0.55, Unit::kFraction);
}
BENCHMARK(BM_GemmFractionOfPeak)->Unit(benchmark::kMillisecond);
// [mts:bench-gemm-peak-end]

}  // namespace
}  // namespace bench
}  // namespace mts
