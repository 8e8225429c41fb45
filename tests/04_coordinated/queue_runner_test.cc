// QueueRunner: producer threads fill a queue while the main thread consumes; a producer's
// error stops everyone and comes back at Join; the end of an upstream queue ends the runner
// cleanly and ends the consumer with OutOfRangeError; a stop unblocks producers stuck on a
// full queue; and start/stop cycles leave no thread behind.
#include "src/04_coordinated/queue_runner.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/04_coordinated/coordinator.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue/fifo_queue_resource.h"
#include "src/platform/logging.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::StrEq;
using ::testing::Throws;
using ::testing::ThrowsMessage;

// Each test builds in a graph of its own.
class QueueRunnerTest : public ::testing::Test {
 protected:
  QueueRunnerTest() : scope_(graph_) {}

  // The session's state of `queue`, to wait for a producer to block.
  static FIFOQueueResource& StateOf(Session& session, const Queue& queue) {
    return *static_cast<FIFOQueueResource*>(
        session.resources().LookupOrCreate(*queue.queue_op(), FIFOQueueResource::Create));
  }

  Graph graph_;
  DefaultGraphScope scope_;
};

std::vector<std::string> NamesOf(const std::vector<std::shared_ptr<CoordinatedThread>>& threads) {
  std::vector<std::string> names;
  for (const auto& t : threads) names.push_back(t->name());
  return names;
}

// One producer thread enqueues the successive values of a counter; the consumer sees them
// in order, and a stop ends the producer even while it waits on the full queue.
TEST_F(QueueRunnerTest, ProducerFillsTheQueueWhileTheMainThreadConsumes) {
  Variable counter(Tensor::Scalar<int32_t>(0), "counter");
  Queue q = FIFOQueue(4, {DataType::kInt32}, {TensorShape{}}, "q");
  AddQueueRunner(std::make_shared<QueueRunner>(
      q, std::vector<Operation*>{q.Enqueue({counter.AssignAdd(Constant(1))})}));
  Output got = q.Dequeue()[0];
  Session session;
  session.Run(GlobalVariablesInitializer());
  Coordinator coord;
  auto threads = StartQueueRunners(session, &coord);
  for (int32_t expected = 1; expected <= 100; ++expected) {
    ASSERT_EQ(session.Run(got).scalar<int32_t>(), expected);
  }
  coord.RequestStop();
  coord.Join(threads);  // No error: the cancelled enqueue came after the stop.
}

// Several producer threads share the counter: every value arrives exactly once.
TEST_F(QueueRunnerTest, SeveralProducersDeliverEveryValueOnce) {
  Variable counter(Tensor::Scalar<int32_t>(0), "counter");
  Queue q = FIFOQueue(4, {DataType::kInt32}, {TensorShape{}}, "q");
  std::vector<Operation*> ops;
  for (int i = 0; i < 3; ++i) ops.push_back(q.Enqueue({counter.AssignAdd(Constant(1))}));
  AddQueueRunner(std::make_shared<QueueRunner>(q, ops));
  Output got = q.Dequeue()[0];
  Session session;
  session.Run(GlobalVariablesInitializer());
  Coordinator coord;
  auto threads = StartQueueRunners(session, &coord);
  EXPECT_EQ(threads.size(), 4u);  // Three enqueue threads and the close-on-stop thread.
  std::set<int32_t> seen;
  for (int i = 0; i < 60; ++i) seen.insert(session.Run(got).scalar<int32_t>());
  coord.RequestStop();
  coord.Join(threads);
  EXPECT_EQ(seen.size(), 60u);
}

// A producer's error stops the coordinator; the cancel op then wakes the consumer, which
// was waiting on the now-empty queue; Join rethrows the producer's very error.
TEST_F(QueueRunnerTest, ProducerErrorStopsTheConsumerAndSurfacesAtJoin) {
  // sqrt(2), sqrt(1), sqrt(0), then sqrt(-1) is NaN and CheckNumerics fails.
  Variable counter(Tensor::Scalar<float>(3), "counter");
  Queue q = FIFOQueue(10, {DataType::kFloat}, {TensorShape{}}, "q");
  Output value = CheckNumerics(Sqrt(counter.AssignSub(Constant(1.0f))), "bad input");
  AddQueueRunner(std::make_shared<QueueRunner>(q, std::vector<Operation*>{q.Enqueue({value})}));
  Output got = q.Dequeue()[0];
  Session session;
  session.Run(GlobalVariablesInitializer());
  Coordinator coord;
  auto threads = StartQueueRunners(session, &coord);
  int consumed = 0;
  try {
    while (!coord.ShouldStop()) {
      session.Run(got);
      ++consumed;
    }
  } catch (const OutOfRangeError&) {
    // The cancel op closed the queue under us: the producers are gone.
  }
  EXPECT_LE(consumed, 3);
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_THAT([&] { coord.Join(threads); },
              Throws<InvalidArgumentError>(HasMessage("bad input : Tensor had NaN values")));
}

// The runner's enqueue op dequeues from an upstream queue. When that queue is closed and
// drained, the runner's threads end quietly, the last one closes the downstream queue, and
// the consumer gets OutOfRangeError once it has every element: a clean end of input.
TEST_F(QueueRunnerTest, UpstreamEndClosesTheDownstreamQueue) {
  Queue upstream = FIFOQueue(10, {DataType::kInt32}, {TensorShape{}}, "upstream");
  Queue downstream = FIFOQueue(2, {DataType::kInt32}, {TensorShape{}}, "downstream");
  std::vector<Operation*> ops;
  for (int i = 0; i < 2; ++i) ops.push_back(downstream.Enqueue({upstream.Dequeue()[0]}));
  AddQueueRunner(std::make_shared<QueueRunner>(downstream, ops));
  Output got = downstream.Dequeue()[0];
  Session session;
  session.Run(upstream.EnqueueMany({Constant(Tensor::Vector<int32_t>({1, 2, 3, 4, 5}))}));
  session.Run(upstream.Close());
  Coordinator coord;
  auto threads = StartQueueRunners(session, &coord);
  std::multiset<int32_t> seen;
  try {
    while (true) seen.insert(session.Run(got).scalar<int32_t>());
  } catch (const OutOfRangeError& e) {
    EXPECT_EQ(e.message(),
              "FIFOQueue 'downstream' is closed and has insufficient elements (requested 1, "
              "current size 0)");
  }
  EXPECT_EQ(seen, (std::multiset<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_FALSE(coord.ShouldStop());  // The runner ended without stopping anyone.
  coord.RequestStop();
  coord.Join(threads);
}

// At a stop, the close-on-stop thread cancels the producer blocked on a full queue, so Join
// returns at once instead of waiting out the grace period.
TEST_F(QueueRunnerTest, StopUnblocksAProducerWaitingOnAFullQueue) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "q");
  AddQueueRunner(std::make_shared<QueueRunner>(
      q, std::vector<Operation*>{q.Enqueue({Constant(7)})}));
  Session session;
  Coordinator coord;
  auto threads = StartQueueRunners(session, &coord);
  StateOf(session, q).WaitForBlockedCallers(1, 0);  // Full, and the producer waits.
  coord.RequestStop();
  coord.Join(threads, /*stop_grace_period_secs=*/60);  // Would throw if a thread stayed.
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive()) << t->name();
  // The element enqueued before the stop is still there; then the queue is closed.
  EXPECT_EQ(session.Run(q.Dequeue()[0]).scalar<int32_t>(), 7);
  EXPECT_THROW(session.Run(q.Dequeue()[0]), OutOfRangeError);
}

// Without a coordinator, a failing thread logs its error and keeps it in exceptions_raised;
// there is no close-on-stop thread.
TEST_F(QueueRunnerTest, WithoutACoordinatorErrorsAreLoggedAndKept) {
  Variable counter(Tensor::Scalar<float>(0), "counter");
  Queue q = FIFOQueue(10, {DataType::kFloat}, {TensorShape{}}, "q");
  Output value = CheckNumerics(Sqrt(counter.AssignSub(Constant(1.0f))), "bad input");
  auto runner =
      std::make_shared<QueueRunner>(q, std::vector<Operation*>{q.Enqueue({value}, "put")});
  Session session;
  session.Run(GlobalVariablesInitializer());
  ScopedLogCapture log;
  auto threads = runner->CreateThreads(session, nullptr, /*start=*/true);
  ASSERT_EQ(NamesOf(threads), (std::vector<std::string>{"QueueRunnerThread-q-put"}));
  for (const auto& t : threads) t->Join();
  std::vector<std::exception_ptr> errors = runner->exceptions_raised();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THROW(std::rethrow_exception(errors[0]), InvalidArgumentError);
  EXPECT_TRUE(log.Contains("Exception in QueueRunner: bad input : Tensor had NaN values"));
}

// Threads for a session are made once: asking again while they exist gives none, and once
// they have all ended a new set can be made. Threads are named after queue and op.
TEST_F(QueueRunnerTest, CreateThreadsOncePerSessionAtATime) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "q");
  QueueRunner runner(q, {q.Enqueue({Constant(1)}, "put")});
  EXPECT_EQ(runner.name(), "q");
  EXPECT_EQ(runner.close_op()->name(), "q_Close");
  EXPECT_EQ(runner.cancel_op()->name(), "q_Close_1");
  Session session;
  Coordinator coord;
  auto threads = runner.CreateThreads(session, &coord);  // Not started.
  EXPECT_EQ(NamesOf(threads), (std::vector<std::string>{"QueueRunnerThread-q-put",
                                                        "QueueRunnerThread-q-close_on_stop"}));
  EXPECT_TRUE(runner.CreateThreads(session, &coord).empty());
  Session other;
  Coordinator other_coord;
  EXPECT_EQ(runner.CreateThreads(other, &other_coord).size(), 2u);  // Another session: yes.
  for (const auto& t : threads) t->Start();
  coord.RequestStop();
  coord.Join();  // The registered threads.
  coord.ClearStop();
  auto again = runner.CreateThreads(session, &coord);
  EXPECT_EQ(again.size(), 2u);
  // Stopped before they start, so they end without running anything (the queue is closed
  // now, and an enqueue racing the stop would report that).
  coord.RequestStop();
  for (const auto& t : again) t->Start();
  coord.Join();
}

// Bad construction is refused.
TEST_F(QueueRunnerTest, ConstructorChecksItsArguments) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "q");
  Operation* put = q.Enqueue({Constant(1)});
  EXPECT_THAT([&] { QueueRunner runner(Queue(), {put}); },
              ThrowsMessage<ValueError>(StrEq("Must provide queue and enqueue_ops.")));
  EXPECT_THROW(QueueRunner(q, {}), ValueError);
  EXPECT_THROW(QueueRunner(q, {put}, nullptr, nullptr, std::vector<ErrorCode>{}), TypeError);
  QueueRunner runner(q, {put});
  EXPECT_EQ(runner.queue_closed_error_codes(), (std::vector<ErrorCode>{ErrorCode::kOutOfRange}));
}

// StartQueueRunners with an empty collection warns and starts nothing.
TEST_F(QueueRunnerTest, StartQueueRunnersWarnsWhenThereAreNone) {
  Constant(1);
  Session session;
  ScopedLogCapture log;
  EXPECT_TRUE(StartQueueRunners(session).empty());
  EXPECT_TRUE(log.Contains("StartQueueRunners found no queue runners"));
}

// Starting and stopping the runners a thousand times, each time on a fresh session, leaves
// no thread running and none unjoined: after Join none is alive, and once the cycle's owners
// are gone every thread object is gone too, joined, not detached (that would log a warning).
TEST_F(QueueRunnerTest, ManyStartStopCyclesLeakNoThread) {
  Variable counter(Tensor::Scalar<int32_t>(0), "counter");
  Queue q = FIFOQueue(2, {DataType::kInt32}, {TensorShape{}}, "q");
  AddQueueRunner(std::make_shared<QueueRunner>(
      q, std::vector<Operation*>{q.Enqueue({counter.AssignAdd(Constant(1))}),
                                 q.Enqueue({counter.AssignAdd(Constant(1))})}));
  Output got = q.Dequeue()[0];
  Operation* init = GlobalVariablesInitializer();
  ScopedLogCapture log;
  for (int cycle = 0; cycle < 1000; ++cycle) {
    std::vector<std::weak_ptr<CoordinatedThread>> watched;
    {
      Session session;
      session.Run(init);
      Coordinator coord;
      auto threads = StartQueueRunners(session, &coord);
      ASSERT_EQ(threads.size(), 3u);
      session.Run(got);
      coord.RequestStop();
      coord.Join(threads);
      for (const auto& thread : threads) {
        ASSERT_FALSE(thread->IsAlive()) << thread->name() << ", cycle " << cycle;
        watched.push_back(thread);
      }
    }
    for (const auto& thread : watched) ASSERT_TRUE(thread.expired()) << "cycle " << cycle;
  }
  EXPECT_FALSE(log.Contains("still running")) << "a thread was detached";
}

}  // namespace
}  // namespace mts
