// TensorFlow's coordinator_test.py (Coordinator, LooperThread) and queue_runner_test.py,
// case by case: each TEST is named <TF test class>.<TF test method>. TensorFlow's threads
// sleep to order events; these wait on latches instead, so no case depends on timing.
#include "src/04_coordinated/coordinator.h"

#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph_keys.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/04_coordinated/looper_thread.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue/fifo_queue_resource.h"
#include "src/04_coordinated/queue_runner.h"
#include "src/06_monitored/monitored_session.h"
#include "src/platform/errors.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Throws;
using ::testing::ThrowsMessage;
using ::testing::UnorderedElementsAre;

using Threads = std::vector<std::shared_ptr<CoordinatedThread>>;

// A one-shot event, as Python's threading.Event.
class Event {
 public:
  void Set() { promise_.set_value(); }
  void Wait() { future_.wait(); }

 private:
  std::promise<void> promise_;
  std::shared_future<void> future_ = promise_.get_future().share();
};

std::shared_ptr<CoordinatedThread> Thread(std::function<void()> body) {
  return std::make_shared<CoordinatedThread>("test-thread", std::move(body));
}

void StartAll(const Threads& threads) {
  for (const auto& t : threads) t->Start();
}

std::exception_ptr RuntimeErrorOf(const std::string& what) {
  return std::make_exception_ptr(RuntimeError(what));
}

// ---- CoordinatorTest ------------------------------------------------------------------------

TEST(CoordinatorTest, testStopAPI) {
  Coordinator coord;
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_FALSE(coord.WaitForStop(0.01));
  coord.RequestStop();
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_TRUE(coord.WaitForStop(0.01));
}

TEST(CoordinatorTest, testStopAsync) {
  Coordinator coord;
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_FALSE(coord.WaitForStop(0.0));
  Event wait_for_stop, has_stopped;
  auto t = Thread([&] {
    wait_for_stop.Wait();
    coord.RequestStop();
    has_stopped.Set();
  });
  t->Start();
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_FALSE(coord.WaitForStop(0.0));
  wait_for_stop.Set();
  has_stopped.Wait();
  EXPECT_TRUE(coord.WaitForStop(0.05));
  EXPECT_TRUE(coord.ShouldStop());
  t->Join();
}

TEST(CoordinatorTest, testJoin) {
  Coordinator coord;
  Threads threads = {Thread([] {}), Thread([] {}), Thread([] {})};
  StartAll(threads);
  coord.Join(threads);
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive());
}

TEST(CoordinatorTest, testJoinAllRegistered) {
  Coordinator coord;
  Threads threads = {Thread([] {}), Thread([] {}), Thread([] {})};
  for (const auto& t : threads) coord.RegisterThread(t);
  StartAll(threads);
  coord.Join();
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive());
}

TEST(CoordinatorTest, testJoinSomeRegistered) {
  Coordinator coord;
  Threads threads = {Thread([] {}), Thread([] {}), Thread([] {})};
  coord.RegisterThread(threads[0]);
  coord.RegisterThread(threads[2]);
  StartAll(threads);
  coord.Join({threads[1]});  // threads[1] is not registered: it must be passed in.
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive());
}

TEST(CoordinatorTest, testJoinGraceExpires) {
  for (double grace : {1e-10, 0.002, 0.05}) {
    Coordinator coord;
    Event wait_for_stop, has_stopped, release;
    Threads threads = {Thread([&] {
                         wait_for_stop.Wait();
                         coord.RequestStop();
                         has_stopped.Set();
                       }),
                       Thread([&] { release.Wait(); })};
    StartAll(threads);
    wait_for_stop.Set();
    has_stopped.Wait();
    EXPECT_THAT([&] { coord.Join(threads, grace); },
                ThrowsMessage<RuntimeError>(HasSubstr("threads still running")));
    release.Set();
    for (const auto& t : threads) t->Join();
  }
}

TEST(CoordinatorTest, testJoinWithoutGraceExpires) {
  Coordinator coord;
  Event wait_for_stop, has_stopped;
  std::atomic<bool> slept{false};
  Threads threads = {Thread([&] {
                       wait_for_stop.Wait();
                       coord.RequestStop();
                       has_stopped.Set();
                     }),
                     Thread([&] { slept = true; })};
  StartAll(threads);
  wait_for_stop.Set();
  has_stopped.Wait();
  coord.Join(threads, /*stop_grace_period_secs=*/60);
  EXPECT_TRUE(slept);
}

// A thread that reports "First", and a second that reports "Too late" only once the first
// has; Join raises the first.
void CheckFirstErrorWins(bool using_handler) {
  Coordinator coord;
  Event first_done;
  auto raise = [&](const std::string& what) {
    if (using_handler) {
      coord.StopOnException([&] { throw RuntimeError(what); });
    } else {
      coord.RequestStop(RuntimeErrorOf(what));
    }
  };
  Threads threads = {Thread([&] {
                       raise("First");
                       first_done.Set();
                     }),
                     Thread([&] {
                       first_done.Wait();
                       raise("Too late");
                     })};
  StartAll(threads);
  EXPECT_THAT([&] { coord.Join(threads); }, ThrowsMessage<RuntimeError>(HasSubstr("First")));
}

TEST(CoordinatorTest, testJoinRaiseReportExcInfo) { CheckFirstErrorWins(false); }

TEST(CoordinatorTest, testJoinRaiseReportException) { CheckFirstErrorWins(false); }

TEST(CoordinatorTest, testJoinIgnoresOutOfRange) {
  Coordinator coord;
  Threads threads = {
      Thread([&] { coord.RequestStop(std::make_exception_ptr(OutOfRangeError("First"))); })};
  StartAll(threads);
  coord.Join(threads);
  EXPECT_TRUE(coord.ShouldStop());
}

// Clean stops are listed by code in mts (a listed difference): InvalidArgument stands for
// TensorFlow's ValueError here.
TEST(CoordinatorTest, testJoinIgnoresMyExceptionType) {
  Coordinator coord({ErrorCode::kInvalidArgument});
  Threads threads = {Thread(
      [&] { coord.RequestStop(std::make_exception_ptr(InvalidArgumentError("Clean stop"))); })};
  StartAll(threads);
  coord.Join(threads);
  EXPECT_TRUE(coord.ShouldStop());
}

TEST(CoordinatorTest, testJoinRaiseReportExceptionUsingHandler) { CheckFirstErrorWins(true); }

TEST(CoordinatorTest, testClearStopClearsExceptionToo) {
  Coordinator coord;
  Threads first = {Thread([&] { coord.RequestStop(RuntimeErrorOf("First")); })};
  StartAll(first);
  EXPECT_THAT([&] { coord.Join(first); }, ThrowsMessage<RuntimeError>(HasSubstr("First")));
  coord.ClearStop();
  Threads second = {Thread([&] { coord.RequestStop(RuntimeErrorOf("Second")); })};
  StartAll(second);
  EXPECT_THAT([&] { coord.Join(second); }, ThrowsMessage<RuntimeError>(HasSubstr("Second")));
}

void CheckRequestStopRaisesIfJoined() {
  Coordinator coord;
  coord.Join({});
  EXPECT_THAT([&] { coord.RequestStop(RuntimeErrorOf("Too late")); },
              ThrowsMessage<RuntimeError>(HasSubstr("Too late")));
  coord.ClearStop();  // Now errors are recorded again.
  coord.RequestStop(RuntimeErrorOf("After clear"));
  EXPECT_THAT([&] { coord.Join({}); }, ThrowsMessage<RuntimeError>(HasSubstr("After clear")));
}

TEST(CoordinatorTest, testRequestStopRaisesIfJoined) { CheckRequestStopRaisesIfJoined(); }

TEST(CoordinatorTest, testRequestStopRaisesIfJoined_ExcInfo) { CheckRequestStopRaisesIfJoined(); }

// ---- LooperTest -----------------------------------------------------------------------------

// TensorFlow's _StopAt0 with the arguments passed three ways; a C++ target is a closure, so
// the three cases bind the same state three ways too.
void StopAt0(Coordinator& coord, int& n) {
  if (n == 0) {
    coord.RequestStop();
  } else {
    --n;
  }
}

TEST(LooperTest, testTargetArgs) {
  int n = 3;
  Coordinator coord;
  auto thread = LooperThread::Loop(&coord, 0, std::bind(StopAt0, std::ref(coord), std::ref(n)));
  coord.Join({thread});
  EXPECT_EQ(n, 0);
}

TEST(LooperTest, testTargetKwargs) {
  int n = 3;
  Coordinator coord;
  auto thread = LooperThread::Loop(&coord, 0, [&coord, &n] { StopAt0(coord, n); });
  coord.Join({thread});
  EXPECT_EQ(n, 0);
}

TEST(LooperTest, testTargetMixedArgs) {
  int n = 3;
  Coordinator coord;
  auto thread =
      LooperThread::Loop(&coord, 0, [&coord, n_ref = std::ref(n)] { StopAt0(coord, n_ref.get()); });
  coord.Join({thread});
  EXPECT_EQ(n, 0);
}

// ---- QueueRunnerTest ------------------------------------------------------------------------

class QueueRunnerTest : public ::testing::Test {
 protected:
  std::vector<std::string> Names(const Threads& threads) {
    std::vector<std::string> names;
    for (const auto& t : threads) names.push_back(t->name());
    return names;
  }
  void JoinAll(const Threads& threads) {
    for (const auto& t : threads) t->Join();
  }
  int64_t ValueOf(Session& session, const Variable& v) {
    return session.Run(v.value()).scalar<int64_t>();
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
};

TEST_F(QueueRunnerTest, testBasic) {
  Variable var(Tensor::Scalar<int64_t>(0), "Variable");
  Output count_up_to = var.CountUpTo(3);
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  Session session(&graph_);
  session.Run(GlobalVariablesInitializer());
  QueueRunner qr(queue, {count_up_to.op()});
  Threads threads = qr.CreateThreads(session);
  EXPECT_THAT(Names(threads), ElementsAre("QueueRunnerThread-fifo_queue-CountUpTo"));
  StartAll(threads);
  JoinAll(threads);
  EXPECT_TRUE(qr.exceptions_raised().empty());
  EXPECT_EQ(ValueOf(session, var), 3);
}

TEST_F(QueueRunnerTest, testTwoOps) {
  Variable var0(Tensor::Scalar<int64_t>(0), "Variable");
  Output count_up_to_3 = var0.CountUpTo(3);
  Variable var1(Tensor::Scalar<int64_t>(0), "Variable_1");
  Output count_up_to_30 = var1.CountUpTo(30);
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  QueueRunner qr(queue, {count_up_to_3.op(), count_up_to_30.op()});
  Session session(&graph_);
  Threads threads = qr.CreateThreads(session);
  EXPECT_THAT(Names(threads), UnorderedElementsAre("QueueRunnerThread-fifo_queue-CountUpTo",
                                                   "QueueRunnerThread-fifo_queue-CountUpTo_1"));
  session.Run(GlobalVariablesInitializer());
  StartAll(threads);
  JoinAll(threads);
  EXPECT_TRUE(qr.exceptions_raised().empty());
  EXPECT_EQ(ValueOf(session, var0), 3);
  EXPECT_EQ(ValueOf(session, var1), 30);
}

// TensorFlow passes ops that are not in the graph; a C++ runner takes Operation*, so the
// failing ops here are ops whose runs fail (an unfed placeholder).
TEST_F(QueueRunnerTest, testExceptionsCaptured) {
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  Operation* fail1 = Identity(Placeholder(DataType::kFloat), "i_fail").op();
  Operation* fail2 = Identity(Placeholder(DataType::kFloat), "so_fail").op();
  QueueRunner qr(queue, {fail1, fail2});
  Session session(&graph_);
  Threads threads = qr.CreateThreads(session);
  StartAll(threads);
  JoinAll(threads);
  EXPECT_EQ(qr.exceptions_raised().size(), 2u);
  for (const auto& e : qr.exceptions_raised()) {
    EXPECT_THROW(std::rethrow_exception(e), InvalidArgumentError);
  }
}

TEST_F(QueueRunnerTest, testRealDequeueEnqueue) {
  Queue q0 = FIFOQueue(3, {DataType::kFloat});
  Operation* enqueue0 = q0.Enqueue({Constant(10.0f)});
  Operation* close0 = q0.Close();
  Queue q1 = FIFOQueue(30, {DataType::kFloat});
  Operation* enqueue1 = q1.Enqueue({q0.Dequeue()[0]});
  Output dequeue1 = q1.Dequeue()[0];
  QueueRunner qr(q1, {enqueue1});
  Session session(&graph_);
  Threads threads = qr.CreateThreads(session);
  StartAll(threads);
  session.Run(enqueue0);
  session.Run(enqueue0);
  session.Run(close0);
  JoinAll(threads);
  EXPECT_TRUE(qr.exceptions_raised().empty());
  EXPECT_EQ(session.Run(dequeue1).scalar<float>(), 10.0f);
  EXPECT_EQ(session.Run(dequeue1).scalar<float>(), 10.0f);
  EXPECT_THAT([&] { session.Run(dequeue1); },
              Throws<OutOfRangeError>(HasMessage(HasSubstr("is closed"))));
}

TEST_F(QueueRunnerTest, testRespectCoordShouldStop) {
  Variable var(Tensor::Scalar<int64_t>(0), "Variable");
  Output count_up_to = var.CountUpTo(3);
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  Session session(&graph_);
  session.Run(GlobalVariablesInitializer());
  QueueRunner qr(queue, {count_up_to.op()});
  Coordinator coord;
  coord.RequestStop();
  Threads threads = qr.CreateThreads(session, &coord);
  EXPECT_THAT(Names(threads), UnorderedElementsAre("QueueRunnerThread-fifo_queue-CountUpTo",
                                                   "QueueRunnerThread-fifo_queue-close_on_stop"));
  StartAll(threads);
  coord.Join();
  EXPECT_TRUE(qr.exceptions_raised().empty());
  EXPECT_EQ(ValueOf(session, var), 0);
}

TEST_F(QueueRunnerTest, testRequestStopOnException) {
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  QueueRunner qr(queue, {Identity(Placeholder(DataType::kFloat), "not_an_op").op()});
  Session session(&graph_);
  Coordinator coord;
  StartAll(qr.CreateThreads(session, &coord));
  EXPECT_THROW(coord.Join(), InvalidArgumentError);  // Re-raised when joining.
}

TEST_F(QueueRunnerTest, testGracePeriod) {
  Queue queue = FIFOQueue(2, {DataType::kFloat});
  Operation* enqueue = queue.Enqueue({Constant(10.0f)});
  Output dequeue = queue.Dequeue()[0];
  QueueRunner qr(queue, {enqueue});
  Session session(&graph_);
  Coordinator coord;
  qr.CreateThreads(session, &coord, /*start=*/true);
  session.Run(dequeue);
  // The enqueue blocks on the full queue: the stop closes it and the thread ends.
  static_cast<FIFOQueueResource*>(
      session.resources().LookupOrCreate(*queue.queue_op(), FIFOQueueResource::Create))
      ->WaitForBlockedCallers(1, 0);
  coord.RequestStop();
  coord.Join({}, /*stop_grace_period_secs=*/10);
}

TEST_F(QueueRunnerTest, testMultipleSessions) {
  Variable var(Tensor::Scalar<int64_t>(0), "Variable");
  Output count_up_to = var.CountUpTo(3);
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  Session session(&graph_);
  Session other_session(&graph_);
  Coordinator coord;
  QueueRunner qr(queue, {count_up_to.op()});
  Threads threads = qr.CreateThreads(session, &coord);  // Not started.
  Threads other_threads = qr.CreateThreads(other_session, &coord);
  EXPECT_EQ(threads.size(), other_threads.size());
  EXPECT_FALSE(threads.empty());
}

TEST_F(QueueRunnerTest, testIgnoreMultiStarts) {
  Variable var(Tensor::Scalar<int64_t>(0), "Variable");
  Output count_up_to = var.CountUpTo(3);
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  Session session(&graph_);
  Coordinator coord;
  QueueRunner qr(queue, {count_up_to.op()});
  Threads threads = qr.CreateThreads(session, &coord);  // Not started.
  EXPECT_FALSE(threads.empty());
  EXPECT_TRUE(qr.CreateThreads(session, &coord).empty());
}

TEST_F(QueueRunnerTest, testThreads) {
  Variable var(Tensor::Scalar<int64_t>(0), "Variable");
  Output count_up_to = var.CountUpTo(3);
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  Session session(&graph_);
  session.Run(GlobalVariablesInitializer());
  Operation* bad_op = Identity(Placeholder(DataType::kFloat), "bad_op").op();
  QueueRunner qr(queue, {count_up_to.op(), bad_op});
  Threads threads = qr.CreateThreads(session, nullptr, /*start=*/true);
  EXPECT_THAT(Names(threads), UnorderedElementsAre("QueueRunnerThread-fifo_queue-CountUpTo",
                                                   "QueueRunnerThread-fifo_queue-bad_op"));
  JoinAll(threads);
  EXPECT_EQ(qr.exceptions_raised().size(), 1u);
  threads = qr.CreateThreads(session, nullptr, /*start=*/true);
  JoinAll(threads);
  EXPECT_EQ(qr.exceptions_raised().size(), 1u);  // Cleared, then one again.
}

TEST_F(QueueRunnerTest, testName) {
  Queue queue = [&] {
    NameScope scope(graph_, "scope");
    return FIFOQueue(10, {DataType::kFloat}, {}, "queue");
  }();
  auto qr = std::make_shared<QueueRunner>(queue, std::vector<Operation*>{NoOp()});
  EXPECT_EQ(qr->name(), "scope/queue");
  AddQueueRunner(qr);
  EXPECT_EQ(graph_.GetCollection<std::shared_ptr<QueueRunner>>(GraphKeys::kQueueRunners).size(),
            1u);
}

TEST_F(QueueRunnerTest, testStartQueueRunners) {
  Variable var(Tensor::Scalar<int64_t>(0), "Variable");
  Output count_up_to = var.CountUpTo(3);
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  Operation* init_op = GlobalVariablesInitializer();
  auto qr = std::make_shared<QueueRunner>(queue, std::vector<Operation*>{count_up_to.op()});
  AddQueueRunner(qr);
  Session session(&graph_);
  session.Run(init_op);
  JoinAll(StartQueueRunners(session));
  EXPECT_TRUE(qr->exceptions_raised().empty());
  EXPECT_EQ(ValueOf(session, var), 3);
}

TEST_F(QueueRunnerTest, testStartQueueRunnersIgnoresMonitoredSession) {
  Variable var(Tensor::Scalar<int64_t>(0), "Variable");
  Output count_up_to = var.CountUpTo(3);
  Queue queue = FIFOQueue(10, {DataType::kFloat});
  AddQueueRunner(std::make_shared<QueueRunner>(queue, std::vector<Operation*>{count_up_to.op()}));
  MonitoredSession session;
  EXPECT_TRUE(StartQueueRunners(session).empty());
  session.Close();
}

TEST(QueueRunnerNonDefaultGraphTest, testStartQueueRunnersNonDefaultGraph) {
  Graph graph;
  Variable var = [&] {
    DefaultGraphScope as_default(graph);
    return Variable(Tensor::Scalar<int64_t>(0), "Variable");
  }();
  std::shared_ptr<QueueRunner> qr;
  Operation* init_op = nullptr;
  {
    DefaultGraphScope as_default(graph);
    Output count_up_to = var.CountUpTo(3);
    Queue queue = FIFOQueue(10, {DataType::kFloat});
    init_op = GlobalVariablesInitializer();
    qr = std::make_shared<QueueRunner>(queue, std::vector<Operation*>{count_up_to.op()});
    AddQueueRunner(qr);
  }
  Session session(&graph);
  session.Run(init_op);
  for (const auto& t : StartQueueRunners(session)) t->Join();
  EXPECT_TRUE(qr->exceptions_raised().empty());
  EXPECT_EQ(session.Run(var.value()).scalar<int64_t>(), 3);
}

}  // namespace
}  // namespace mts
