// summary_image_benchmark: what one picture of the main example's decision regions costs
// (item 8 of the performance appendix), against the training step it is written between.
//
//   BM_SpiralsPicture/64    the picture train_spirals writes every --image_every steps: the
//                           64x64 grid through the network, the image, its PNG, added to an
//                           event file; against one training step (batch 32) on the same raw
//                           session. The result is what a picture every 200 steps (the
//                           default) adds to the time of training, reported with no target;
//                           the steps_per_picture counter says how many steps one costs.
//   BM_SpiralsPicture/128   the same at 128x128: four times the points, four times the cost.
#include <string>

#include "benchmark/benchmark.h"
#include "examples/spirals_model.h"
#include "src/01_session/session.h"
#include "src/03_hooked/events/file_writer.h"
#include "tests/benchmarks/compare.h"
#include "tests/benchmarks/training_stack.h"

namespace mts {
namespace bench {
namespace {

constexpr int64_t kImageEvery = 200;  // train_spirals' default --image_every.

// [mts:bench-picture]
void BM_SpiralsPicture(benchmark::State& state) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  const SpiralsData data = SpiralsTrainingData();
  SpiralsModel model = BuildSpiralsModel(/*learning_rate=*/0.02);
  SpiralsBatches batches(data, /*batch_size=*/32, /*seed=*/7);
  const SpiralsPicture picture = BuildSpiralsPicture(model, data, /*size=*/state.range(0));
  Operation* init = GlobalVariablesInitializer();
  Session session(&graph);
  session.Run({}, {}, {init});
  FileWriter writer(MakeTempDir("picture"));
  int64_t step = 0;

  Comparison c = CompareInterleaved(
      state,
      [&] {
        const Tensor summary = session.Run(picture.summary, picture.feed);
        writer.AddSummary(summary.scalar<std::string>(), step);
      },
      [&] { session.Run({}, batches.Feed(model, step++), {model.train_op}); }, /*batch=*/10);
  writer.Close();
  state.counters["steps_per_picture"] = c.a_ns / c.b_ns;
  SetResult(state, c.a_ns / c.b_ns / kImageEvery, /*limit=*/0, Unit::kFraction);
}
// [mts:bench-picture-end]
BENCHMARK(BM_SpiralsPicture)->Arg(64)->Arg(128)->Iterations(40)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bench
}  // namespace mts

BENCHMARK_MAIN();
