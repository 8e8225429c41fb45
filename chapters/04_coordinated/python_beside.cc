// python_beside: the C++ half of chapter 04's "TF1 Python beside C++" blocks. Each block of
// the chapter cuts one `[mts:pair-NAME]` region out of this file (docs/conf.py, `beside`),
// and this test runs them all, so a listed call that stops compiling or working fails the
// build. docs/python_beside_test.py checks each pair's names against the names page.
#include <atomic>
#include <cstdio>
#include <memory>
#include <vector>

#include "chapters/python_beside_support.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/04_coordinated/coordinator.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue_runner.h"

namespace {

using namespace mts;
using python_beside::Expect;
using python_beside::failures;
using python_beside::FreshDir;

void CoordinatorStopsThreads() {
  std::atomic<int> counted{0};
  auto count_one = [&counted] { counted.fetch_add(1); };
  // [mts:pair-coordinator]
  Coordinator coord;
  auto work = [&] {
    coord.StopOnException([&] {  // An error is recorded, and stops every thread.
      while (!coord.ShouldStop()) count_one();
    });
  };
  std::vector<std::shared_ptr<CoordinatedThread>> threads;
  for (int i = 0; i < 2; ++i) threads.push_back(std::make_shared<CoordinatedThread>("work", work));
  for (auto& t : threads) t->Start();
  coord.RequestStop();
  coord.Join(threads);  // Rethrows a thread's error, if one had one.
  // [mts:pair-coordinator-end]
  Expect(coord.joined(), "Join did not finish");
}

void QueueAndRunners() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable counter(Tensor::Scalar(0.0f), "counter");
  // [mts:pair-fifo-queue]
  Queue queue = FIFOQueue(/*capacity=*/2, /*dtypes=*/{DataType::kFloat},
                          /*shapes=*/{TensorShape{}}, "input");
  Operation* enqueue = queue.Enqueue({counter.AssignAdd(Constant(1.0f))});
  Output value = queue.Dequeue()[0];
  // [mts:pair-fifo-queue-end]
  // [mts:pair-queue-runner]
  auto qr = std::make_shared<QueueRunner>(queue, std::vector<Operation*>{enqueue});
  AddQueueRunner(qr);  // Into the graph's queue-runners collection.
  // [mts:pair-queue-runner-end]
  Session sess(&graph);
  sess.Run(GlobalVariablesInitializer());
  std::vector<float> taken;
  // [mts:pair-start-queue-runners]
  Coordinator coord;
  std::vector<std::shared_ptr<CoordinatedThread>> threads = StartQueueRunners(sess, &coord);
  for (int i = 0; i < 5; ++i) taken.push_back(sess.Run(value).scalar<float>());  // 1 2 3 4 5
  coord.RequestStop();  // Closes the queue, so a blocked enqueue ends.
  coord.Join(threads);
  // [mts:pair-start-queue-runners-end]
  Expect(taken == std::vector<float>({1, 2, 3, 4, 5}), "the queue did not give 1 2 3 4 5");
}

}  // namespace

int main() {
  CoordinatorStopsThreads();
  QueueAndRunners();
  if (failures == 0) std::printf("python_beside: every pair of chapter 04 works\n");
  return failures == 0 ? 0 : 1;
}
