// queue_benchmark: what feeding through a queue costs (item 6 of the performance appendix).
//
//   BM_QueueFedStep  a 784-256-10 MLP step at batch 64 reading its batch from a FIFOQueue
//                    that two queue-runner threads fill (/1: one thread, reported), against the
//                    same step fed directly through placeholders, both through the training stack:
//                    at most 1.05x. Timed on the process's CPU clock, so the runner
//                    threads' work is charged to the queue.
//   BM_QueuePair     one Enqueue and one Dequeue on the queue's resource against the same
//                    pair on a queue written with a mutex, two condition variables and a
//                    std::deque: at most 1.5x.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "src/01_session/array_ops.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue/fifo_queue_resource.h"
#include "src/04_coordinated/queue_runner.h"
#include "src/platform/file_system.h"
#include "tests/benchmarks/compare.h"
#include "tests/benchmarks/mlp.h"
#include "tests/benchmarks/training_stack.h"

namespace mts {
namespace bench {
namespace {

const MlpShape kMlp784{{784, 256, 10}, /*relu=*/true};
constexpr int64_t kBatch = 64;

// [mts:bench-queue-fed]
// The queue-fed model: `runners` threads enqueue the batch, the step dequeues it. Built the
// same way for both sides, so the ops get the same ids, the random initializers the same
// seeds (an op's seed derives from its id) and the two models the same weights.
struct QueueFedModel {
  Operation* train_op = nullptr;
  FeedDict feeds;  // What the dequeue would give, for the side fed directly.
};
QueueFedModel BuildQueueFedModel(const MlpBatch& batch, int runners, bool start_runners) {
  GetDefaultGraph().set_seed(1);
  Queue q = FIFOQueue(/*capacity=*/8, {DataType::kFloat, DataType::kInt64},
                      {TensorShape{kBatch, 784}, TensorShape{kBatch}}, "input");
  Output x = Constant(batch.x), labels = Constant(batch.labels);
  std::vector<Operation*> enqueue_ops;  // One runner thread each.
  for (int i = 0; i < runners; ++i) enqueue_ops.push_back(q.Enqueue({x, labels}));
  auto runner = std::make_shared<QueueRunner>(q, enqueue_ops);
  if (start_runners) AddQueueRunner(runner);
  std::vector<Output> dequeued = q.Dequeue();
  QueueFedModel model;
  model.train_op = MlpGraph(kMlp784, dequeued[0], dequeued[1]).train_op;
  model.feeds = {{dequeued[0], batch.x}, {dequeued[1], batch.labels}};
  return model;
}

void BM_QueueFedStep(benchmark::State& state) {
  const MlpBatch batch = MakeMlpBatch(kMlp784, kBatch, /*seed=*/7);
  const std::string dir = MakeTempDir("queue");
  const int runners = static_cast<int>(state.range(0));

  // Queue-fed: the runner threads fill the queue, the step dequeues.
  Graph queued_graph;
  std::unique_ptr<SessionInterface> queued;
  Operation* queued_train = nullptr;
  {
    DefaultGraphScope as_default(queued_graph);
    queued_train = BuildQueueFedModel(batch, runners, /*start_runners=*/true).train_op;
    queued = MakeTrainingStack(JoinPath(dir, "queued"));
  }

  // Fed directly: the same graph with no runners, the dequeue's outputs fed (so it never
  // runs). Both sides then do the same arithmetic on the same numbers, step for step. A
  // model built differently would start from other weights and follow another path as it
  // overfits the one batch; the two would meet subnormal floats (tens of times slower to
  // multiply) at different steps, and the ratio would measure that, not the queue.
  Graph fed_graph;
  std::unique_ptr<SessionInterface> fed;
  QueueFedModel fed_model;
  {
    DefaultGraphScope as_default(fed_graph);
    fed_model = BuildQueueFedModel(batch, runners, /*start_runners=*/false);
    fed = MakeTrainingStack(JoinPath(dir, "fed"));
  }
  Operation* fed_train = fed_model.train_op;
  const FeedDict& feeds = fed_model.feeds;

  const std::vector<Output> no_fetches;
  const FeedDict no_feeds;
  Comparison c = CompareInterleaved(
      state, [&] { queued->Run(no_fetches, no_feeds, {queued_train}); },
      [&] { fed->Run(no_fetches, feeds, {fed_train}); }, /*batch=*/8);
  SetResult(state, c.a_ns / c.b_ns, runners == 2 ? 1.05 : 0, Unit::kRatio);
  queued->Close();
  fed->Close();
  RemoveTempDir(dir);
}
// With two runner threads (the target) and, to see what the second one costs, with one.
BENCHMARK(BM_QueueFedStep)->Arg(2)->Arg(1)->Unit(benchmark::kMillisecond);
// [mts:bench-queue-fed-end]

// The baseline queue: bounded, blocking, first in first out, nothing else.
class MutexDequeQueue {
 public:
  explicit MutexDequeQueue(size_t capacity) : capacity_(capacity) {}
  void Enqueue(std::vector<Tensor> tuple) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [this] { return rows_.size() < capacity_; });
    rows_.push_back(std::move(tuple));
    not_empty_.notify_one();
  }
  std::vector<Tensor> Dequeue() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [this] { return !rows_.empty(); });
    std::vector<Tensor> tuple = std::move(rows_.front());
    rows_.pop_front();
    not_full_.notify_one();
    return tuple;
  }

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<std::vector<Tensor>> rows_;
};

// [mts:bench-queue-pair]
void BM_QueuePair(benchmark::State& state) {
  FIFOQueueResource queue("q", /*capacity=*/8, {DataType::kFloat}, {TensorShape{}});
  MutexDequeQueue baseline(8);
  const Tensor value = Tensor::Scalar(1.0f);
  const std::string enqueue_name = "q_enqueue", dequeue_name = "q_dequeue";
  Comparison c = CompareInterleaved(
      state,
      [&] {
        queue.Enqueue({value}, enqueue_name);
        benchmark::DoNotOptimize(queue.Dequeue(dequeue_name));
      },
      [&] {
        baseline.Enqueue({value});
        benchmark::DoNotOptimize(baseline.Dequeue());
      },
      /*batch=*/2000);
  SetResult(state, c.a_ns / c.b_ns, 1.5, Unit::kRatio);
}
BENCHMARK(BM_QueuePair)->Unit(benchmark::kMicrosecond);
// [mts:bench-queue-pair-end]

}  // namespace
}  // namespace bench
}  // namespace mts
