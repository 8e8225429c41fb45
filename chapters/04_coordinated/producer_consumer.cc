// producer_consumer.cc: chapter 04's example. A QueueRunner thread fills a FIFOQueue while
// the training loop, on the main thread, takes from it through a CoordinatedSession. The
// first run ends when the consumer has had enough; in the second the producer fails, and
// the error reaches the main thread at ShouldStop() and again at Close().
//
// The transcript is the same on every run: there is one producer thread, so the values
// arrive in order, and the second run prints only after the queue has closed.
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/platform/errors.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/session_creator.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue_runner.h"

namespace mts {
namespace {

// The bottom of the stack, kept as small as it can be: a raw session on `graph` whose
// variables are initialised. (Chapter 02's ChiefSessionCreator does this job for real,
// restoring from a checkpoint when there is one.)
class InitializingSessionCreator : public SessionCreator {
 public:
  explicit InitializingSessionCreator(Graph* graph)
      : graph_(graph), init_(GlobalVariablesInitializer()) {}

  std::unique_ptr<SessionInterface> CreateSession() override {
    auto session = std::make_unique<Session>(graph_);
    session->Run(init_);
    return session;
  }

 private:
  Graph* graph_;
  Operation* init_;
};

// [mts:producer-consumer-build]
// The input pipeline: a counter, a queue of two floats' room, and one enqueue op that bumps
// the counter and enqueues what `reading` makes of its new value. One QueueRunner runs that
// op on one thread (one thread: the values arrive in order).
Output BuildPipeline(const std::function<Output(Output)>& reading) {
  Variable counter(Tensor::Scalar(0.0f), "counter");
  Queue queue = FIFOQueue(/*capacity=*/2, {DataType::kFloat}, {TensorShape{}}, "input");
  Operation* enqueue = queue.Enqueue({reading(counter.AssignAdd(Constant(1.0f)))});
  AddQueueRunner(std::make_shared<QueueRunner>(queue, std::vector<Operation*>{enqueue}));
  return queue.Dequeue()[0];
}
// [mts:producer-consumer-build-end]

void TakeFive() {
  std::cout << "Run 1: a producer that counts, a consumer that takes five.\n";
  Graph graph;
  DefaultGraphScope scope(graph);
  Output next = BuildPipeline([](Output x) { return x; });
  CoordinatedSessionCreator creator(std::make_shared<InitializingSessionCreator>(&graph),
                                    /*hooks=*/{});
  graph.Finalize();
  // [mts:producer-consumer-loop]
  std::unique_ptr<SessionInterface> session = creator.CreateSession();  // Producer starts.
  auto* coordinated = static_cast<CoordinatedSession*>(session.get());
  for (int step = 1; step <= 5 && !coordinated->ShouldStop(); ++step) {
    std::cout << "  step " << step << ": dequeued " << session->Run(next).scalar<float>()
              << "\n";
  }
  session->Close();  // Stops the producer (blocked on the full queue) and joins it.
  // [mts:producer-consumer-loop-end]
  std::cout << "  Close() returned: the producer was stopped and joined, no error.\n";
}

void ProducerFails() {
  std::cout << "\nRun 2: the producer enqueues 60 / (5 - n), checked; n = 5 divides by zero.\n";
  Graph graph;
  DefaultGraphScope scope(graph);
  Output next = BuildPipeline([](Output n) {
    return CheckNumerics(Div(Constant(60.0f), Sub(Constant(5.0f), n)), "bad reading");
  });
  CoordinatedSessionCreator creator(std::make_shared<InitializingSessionCreator>(&graph),
                                    /*hooks=*/{});
  graph.Finalize();
  std::unique_ptr<SessionInterface> session = creator.CreateSession();
  auto* coordinated = static_cast<CoordinatedSession*>(session.get());
  // [mts:producer-fails-loop]
  // Drain the queue until it reports the end of the input. The values are printed after
  // the loop, so the transcript does not depend on how the two threads interleave.
  std::vector<float> got;
  try {
    while (true) got.push_back(session->Run(next).scalar<float>());
  } catch (const OutOfRangeError& e) {
    for (float value : got) std::cout << "  dequeued " << value << "\n";
    std::cout << "  Run raised OutOfRangeError: " << e.message() << "\n";
  }
  // OutOfRange says only that the queue closed. The coordinator knows why.
  try {
    coordinated->ShouldStop();
  } catch (const InvalidArgumentError& e) {
    std::cout << "  ShouldStop() raised InvalidArgumentError: " << e.what() << "\n";
  }
  try {
    session->Close();
  } catch (const InvalidArgumentError& e) {
    std::cout << "  Close() raised it again, after joining the threads and closing "
                 "the session.\n";
  }
  // [mts:producer-fails-loop-end]
}

}  // namespace
}  // namespace mts

int main() {
  std::cout << std::unitbuf;  // Keep stdout in step with the log lines on stderr.
  mts::TakeFive();
  mts::ProducerFails();
  return 0;
}
