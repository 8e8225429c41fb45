// FIFOQueue: order, capacity, stacking, the closed queue's errors, and how every blocked op
// is woken: by room, by an element, by a close, by the session closing. Threads that must be
// blocked before the test goes on are awaited through FIFOQueueResource's seam, never slept on.
#include "src/04_coordinated/queue/fifo_queue.h"

#include <future>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/04_coordinated/queue/fifo_queue_resource.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::StrEq;
using ::testing::Throws;
using ::testing::ThrowsMessage;

// Each test builds in a graph of its own.
class FIFOQueueTest : public ::testing::Test {
 protected:
  FIFOQueueTest() : scope_(graph_) {}

  // The session's state of `queue` (made now if no run has touched the queue yet), to wait
  // for blocked callers.
  FIFOQueueResource& StateOf(Session& session, const Queue& queue) {
    return *static_cast<FIFOQueueResource*>(
        session.resources().LookupOrCreate(*queue.queue_op(), FIFOQueueResource::Create));
  }

  Graph graph_;
  DefaultGraphScope scope_;
};

int32_t IntOf(const Tensor& t) { return t.scalar<int32_t>(); }

// Elements come out in the order they went in.
TEST_F(FIFOQueueTest, DequeuesInTheOrderEnqueued) {
  Queue q = FIFOQueue(10, {DataType::kInt32}, {TensorShape{}}, "q");
  Output value = Placeholder(DataType::kInt32, TensorShape{});
  Operation* put = q.Enqueue({value});
  Output got = q.Dequeue()[0];
  Session session;
  for (int v : {3, 1, 2}) session.Run(put, {{value, Tensor::Scalar(v)}});
  EXPECT_EQ(IntOf(session.Run(got)), 3);
  EXPECT_EQ(IntOf(session.Run(got)), 1);
  EXPECT_EQ(IntOf(session.Run(got)), 2);
}

// An element's components travel together, and the outputs have the declared dtypes and
// static shapes.
TEST_F(FIFOQueueTest, ComponentsOfAnElementStayTogether) {
  Queue q = FIFOQueue(10, {DataType::kInt32, DataType::kString}, {TensorShape{}, TensorShape{2}});
  Session session;
  session.Run(q.Enqueue({Constant(7), Constant(Tensor::Vector<std::string>({"a", "b"}))}));
  std::vector<Output> got = q.Dequeue();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].dtype(), DataType::kString);
  EXPECT_EQ(got[1].shape(), (TensorShape{2}));
  std::vector<Tensor> values = session.Run(got);
  EXPECT_EQ(IntOf(values[0]), 7);
  EXPECT_EQ(values[1].ToVector<std::string>(), (std::vector<std::string>{"a", "b"}));
}

// The queue's ops are named after it, as TensorFlow names them.
TEST_F(FIFOQueueTest, OpsAreNamedAfterTheQueue) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}});
  EXPECT_EQ(q.name(), "fifo_queue");
  EXPECT_EQ(q.Enqueue({Constant(1)})->name(), "fifo_queue_enqueue");
  EXPECT_EQ(q.EnqueueMany({Constant(Tensor::Vector<int32_t>({1}))})->name(),
            "fifo_queue_EnqueueMany");
  EXPECT_EQ(q.Dequeue()[0].op()->name(), "fifo_queue_Dequeue");
  EXPECT_EQ(q.DequeueMany(2)[0].op()->name(), "fifo_queue_DequeueMany");
  EXPECT_EQ(q.Close()->name(), "fifo_queue_Close");
  EXPECT_EQ(q.Size().op()->name(), "fifo_queue_Size");
  EXPECT_EQ(q.Dequeue("mine")[0].op()->name(), "mine");
}

// Size counts the elements waiting in the queue.
TEST_F(FIFOQueueTest, SizeCountsTheElements) {
  Queue q = FIFOQueue(5, {DataType::kInt32}, {TensorShape{}});
  Operation* put = q.Enqueue({Constant(1)});
  Output size = q.Size();
  EXPECT_EQ(size.dtype(), DataType::kInt32);
  Session session;
  EXPECT_EQ(IntOf(session.Run(size)), 0);
  session.Run(put);
  session.Run(put);
  EXPECT_EQ(IntOf(session.Run(size)), 2);
  session.Run(q.Dequeue()[0]);
  EXPECT_EQ(IntOf(session.Run(size)), 1);
}

// Each session keeps its own queue, as it keeps its own variable values.
TEST_F(FIFOQueueTest, EachSessionHasItsOwnQueue) {
  Queue q = FIFOQueue(5, {DataType::kInt32}, {TensorShape{}});
  Operation* put = q.Enqueue({Constant(1)});
  Output size = q.Size();
  Session first, second;
  first.Run(put);
  EXPECT_EQ(IntOf(first.Run(size)), 1);
  EXPECT_EQ(IntOf(second.Run(size)), 0);
}

// A full queue makes an enqueue wait; a dequeue in another thread makes room and lets it in.
TEST_F(FIFOQueueTest, EnqueueOnAFullQueueWaitsForADequeue) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}});
  Operation* put1 = q.Enqueue({Constant(1)});
  Operation* put2 = q.Enqueue({Constant(2)});
  Output got = q.Dequeue()[0];
  Session session;
  session.Run(put1);  // Now full.
  auto producer = std::async(std::launch::async, [&] { session.Run(put2); });
  StateOf(session, q).WaitForBlockedCallers(1, 0);
  EXPECT_EQ(IntOf(session.Run(q.Size())), 1);  // Still only the first element.
  EXPECT_EQ(IntOf(session.Run(got)), 1);       // Makes room...
  producer.get();                              // ...so the producer finishes.
  EXPECT_EQ(IntOf(session.Run(got)), 2);
}

// An empty queue makes a dequeue wait; an enqueue in another thread hands it the element.
TEST_F(FIFOQueueTest, DequeueOnAnEmptyQueueWaitsForAnEnqueue) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}});
  Output got = q.Dequeue()[0];
  Session session;
  auto consumer = std::async(std::launch::async, [&] { return IntOf(session.Run(got)); });
  StateOf(session, q).WaitForBlockedCallers(0, 1);
  session.Run(q.Enqueue({Constant(5)}));
  EXPECT_EQ(consumer.get(), 5);
}

// DequeueMany stacks n elements along a new first dimension.
TEST_F(FIFOQueueTest, DequeueManyStacksElements) {
  Queue q = FIFOQueue(10, {DataType::kFloat}, {TensorShape{2}});
  Output row = Placeholder(DataType::kFloat, TensorShape{2});
  Operation* put = q.Enqueue({row});
  Output batch = q.DequeueMany(2)[0];
  EXPECT_EQ(batch.shape(), (TensorShape{2, 2}));
  Session session;
  session.Run(put, {{row, Tensor::Vector<float>({1, 2})}});
  session.Run(put, {{row, Tensor::Vector<float>({3, 4})}});
  session.Run(put, {{row, Tensor::Vector<float>({5, 6})}});
  Tensor value = session.Run(batch);
  EXPECT_EQ(value.shape(), (TensorShape{2, 2}));
  EXPECT_EQ(value.ToVector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(session.Run(q.Dequeue()[0]).ToVector<float>(), (std::vector<float>{5, 6}));
}

// EnqueueMany splits its batch into elements; DequeueMany(0) is an empty batch.
TEST_F(FIFOQueueTest, EnqueueManySplitsTheBatchIntoElements) {
  Queue q = FIFOQueue(10, {DataType::kInt32, DataType::kString}, {TensorShape{}, TensorShape{}});
  Session session;
  session.Run(q.EnqueueMany({Constant(Tensor::Vector<int32_t>({10, 20})),
                             Constant(Tensor::Vector<std::string>({"x", "y"}))}));
  EXPECT_EQ(IntOf(session.Run(q.Size())), 2);
  std::vector<Tensor> first = session.Run(q.Dequeue());
  EXPECT_EQ(IntOf(first[0]), 10);
  EXPECT_EQ(first[1].scalar<std::string>(), "x");
  Tensor none = session.Run(q.DequeueMany(0)[0]);
  EXPECT_EQ(none.shape(), (TensorShape{0}));
  EXPECT_EQ(IntOf(session.Run(q.Size())), 1);
}

// A batch larger than the capacity goes in piece by piece while a consumer takes more
// elements than the queue can hold at once.
TEST_F(FIFOQueueTest, BatchesLargerThanTheCapacityFlowThrough) {
  Queue q = FIFOQueue(2, {DataType::kInt32}, {TensorShape{}});
  Operation* put = q.EnqueueMany({Constant(Tensor::Vector<int32_t>({1, 2, 3, 4, 5}))});
  Output batch = q.DequeueMany(5)[0];
  Session session;
  auto producer = std::async(std::launch::async, [&] { session.Run(put); });
  EXPECT_EQ(session.Run(batch).ToVector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  producer.get();
}

// After a close, enqueues fail with CancelledError, and dequeues drain the queue, then fail
// with OutOfRangeError; a second plain close fails, a cancelling one does not.
TEST_F(FIFOQueueTest, ClosedQueueRefusesEnqueuesAndDrainsThenEnds) {
  Queue q = FIFOQueue(10, {DataType::kInt32}, {TensorShape{}}, "q");
  Operation* put = q.Enqueue({Constant(1)});
  Output got = q.Dequeue()[0];
  Operation* close = q.Close();
  Session session;
  session.Run(put);
  session.Run(close);
  EXPECT_THAT([&] { session.Run(put); },
              Throws<CancelledError>(HasMessage("FIFOQueue 'q' is closed.")));
  EXPECT_EQ(IntOf(session.Run(got)), 1);
  EXPECT_THAT(
      [&] { session.Run(got); },
      Throws<OutOfRangeError>(AllOf(HasMessage("FIFOQueue 'q' is closed and has insufficient "
                                               "elements (requested 1, current size 0)"),
                                    HasOpName("q_Dequeue"))));
  EXPECT_THAT([&] { session.Run(close); },
              Throws<CancelledError>(HasMessage("Queue 'q' is already closed.")));
  session.Run(q.Close(true));  // Never fails.
}

// DequeueMany on a closed queue with too few elements fails and leaves them queued.
TEST_F(FIFOQueueTest, DequeueManyOnAClosedQueueWithTooFewElementsLeavesThem) {
  Queue q = FIFOQueue(10, {DataType::kInt32}, {TensorShape{}}, "q");
  Session session;
  session.Run(q.EnqueueMany({Constant(Tensor::Vector<int32_t>({1, 2}))}));
  session.Run(q.Close());
  EXPECT_THAT([&] { session.Run(q.DequeueMany(3)[0]); },
              Throws<OutOfRangeError>(HasMessage(
                  "FIFOQueue 'q' is closed and has insufficient elements (requested 3, current "
                  "size 2)")));
  EXPECT_EQ(session.Run(q.DequeueMany(2)[0]).ToVector<int32_t>(), (std::vector<int32_t>{1, 2}));
}

// A DequeueMany that took some elements before the close puts them back, and "requested"
// counts only the elements it still lacked.
TEST_F(FIFOQueueTest, PartialDequeueManyGivesItsElementsBackOnClose) {
  Queue q = FIFOQueue(10, {DataType::kInt32}, {TensorShape{}}, "q");
  Output batch = q.DequeueMany(3)[0];
  Session session;
  auto consumer = std::async(std::launch::async, [&] { session.Run(batch); });
  session.Run(q.Enqueue({Constant(1)}));
  StateOf(session, q).WaitForBlockedCallers(0, 1);
  session.Run(q.Close());
  EXPECT_THAT([&] { consumer.get(); },
              Throws<OutOfRangeError>(HasMessage(
                  "FIFOQueue 'q' is closed and has insufficient elements (requested 2, current "
                  "size 0)")));
  EXPECT_EQ(IntOf(session.Run(q.Dequeue()[0])), 1);
}

// A dequeue waiting on an empty queue is woken by a close, and ends with OutOfRangeError.
TEST_F(FIFOQueueTest, BlockedDequeueWakesOnClose) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "q");
  Output got = q.Dequeue()[0];
  Session session;
  auto consumer = std::async(std::launch::async, [&] { session.Run(got); });
  StateOf(session, q).WaitForBlockedCallers(0, 1);
  session.Run(q.Close(/*cancel_pending_enqueues=*/true));
  EXPECT_THAT([&] { consumer.get(); },
              Throws<OutOfRangeError>(HasMessage(
                  "FIFOQueue 'q' is closed and has insufficient elements (requested 1, current "
                  "size 0)")));
}

// Closing with cancel_pending_enqueues fails a waiting enqueue at once; what was queued
// before stays.
TEST_F(FIFOQueueTest, CancellingCloseFailsWaitingEnqueues) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}});
  Session session;
  session.Run(q.Enqueue({Constant(1)}));
  Operation* put2 = q.Enqueue({Constant(2)});
  auto producer = std::async(std::launch::async, [&] { session.Run(put2); });
  StateOf(session, q).WaitForBlockedCallers(1, 0);
  session.Run(q.Close(true));
  EXPECT_THAT([&] { producer.get(); },
              Throws<CancelledError>(HasMessage("Enqueue operation was cancelled")));
  EXPECT_EQ(IntOf(session.Run(q.Dequeue()[0])), 1);
  EXPECT_THROW(session.Run(q.Dequeue()[0]), OutOfRangeError);
}

// A plain close waits behind the enqueues that came before it: they still get in.
TEST_F(FIFOQueueTest, PlainCloseLetsEarlierEnqueuesFinish) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}});
  Output got = q.Dequeue()[0];
  Session session;
  session.Run(q.Enqueue({Constant(1)}));
  Operation* put2 = q.Enqueue({Constant(2)});
  Operation* close = q.Close();
  auto producer = std::async(std::launch::async, [&] { session.Run(put2); });
  StateOf(session, q).WaitForBlockedCallers(1, 0);
  auto closer = std::async(std::launch::async, [&] { session.Run(close); });
  StateOf(session, q).WaitForBlockedCallers(2, 0);  // The close waits in line too.
  EXPECT_EQ(IntOf(session.Run(got)), 1);
  producer.get();
  closer.get();
  EXPECT_EQ(IntOf(session.Run(got)), 2);
  EXPECT_THROW(session.Run(got), OutOfRangeError);
}

// An enqueue waiting in line behind a plain close, on a full queue, is woken by the close
// itself (the queue stays full, so only the close can let it go on) and fails.
TEST_F(FIFOQueueTest, EnqueueBehindAPlainCloseFailsWhenTheCloseRuns) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "q");
  Output got = q.Dequeue()[0];
  Session session;
  session.Run(q.Enqueue({Constant(1)}));
  Operation* put2 = q.Enqueue({Constant(2)});
  Operation* put3 = q.Enqueue({Constant(3)});
  Operation* close = q.Close();
  auto first = std::async(std::launch::async, [&] { session.Run(put2); });
  StateOf(session, q).WaitForBlockedCallers(1, 0);
  auto closer = std::async(std::launch::async, [&] { session.Run(close); });
  StateOf(session, q).WaitForBlockedCallers(2, 0);
  auto last = std::async(std::launch::async, [&] { session.Run(put3); });
  StateOf(session, q).WaitForBlockedCallers(3, 0);
  EXPECT_EQ(IntOf(session.Run(got)), 1);  // Room for one: put2 takes it, the queue is full.
  first.get();
  closer.get();
  EXPECT_THAT([&] { last.get(); }, Throws<CancelledError>(HasMessage("FIFOQueue 'q' is closed.")));
  EXPECT_EQ(IntOf(session.Run(got)), 2);
  EXPECT_THROW(session.Run(got), OutOfRangeError);
}

// Closing the session wakes a waiting enqueue and a waiting dequeue with CancelledError
// naming the queue.
TEST_F(FIFOQueueTest, SessionCloseWakesBlockedOps) {
  Queue full = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "full");
  Queue empty = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "empty");
  Operation* put = full.Enqueue({Constant(1)});
  Output got = empty.Dequeue()[0];
  Session session;
  session.Run(put);
  auto producer = std::async(std::launch::async, [&] { session.Run(put); });
  auto consumer = std::async(std::launch::async, [&] { session.Run(got); });
  StateOf(session, full).WaitForBlockedCallers(1, 0);
  StateOf(session, empty).WaitForBlockedCallers(0, 1);
  session.Close();
  EXPECT_THAT([&] { producer.get(); },
              Throws<CancelledError>(HasMessage(
                  "Enqueue operation was cancelled: the session was closed (FIFOQueue 'full')")));
  EXPECT_THAT([&] { consumer.get(); },
              Throws<CancelledError>(HasMessage(
                  "Dequeue operation was cancelled: the session was closed (FIFOQueue 'empty')")));
}

// Mistakes visible while building are refused then, naming the op, and add nothing.
TEST_F(FIFOQueueTest, BuildTimeChecksNameTheOp) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{2}}, "q");
  const int ops = graph_.num_ops();
  EXPECT_THAT(
      [&] {
        q.Enqueue({Constant(Tensor::Vector<float>({1, 2}))});
      },
      ThrowsMessage<TypeError>(
          StrEq("'q_enqueue': component 0 of FIFOQueue 'q' has dtype int32, got float32 from "
                "'Const:0'")));
  EXPECT_THAT(
      [&] { q.Enqueue({}); },
      ThrowsMessage<ValueError>(StrEq("'q_enqueue': FIFOQueue 'q' expects 1 components, got 0")));
  EXPECT_THAT(
      [&] {
        q.Enqueue({Constant(Tensor::Vector<int32_t>({1, 2, 3}))});
      },
      ThrowsMessage<ValueError>(StrEq("'q_enqueue': Shapes [2] and [3] are incompatible")));
  EXPECT_THAT([&] { q.EnqueueMany({Constant(4)}); },
              ThrowsMessage<ValueError>(StrEq(
                  "'q_EnqueueMany': component 0 ('Const_2:0') must have rank at least 1, the batch "
                  "dimension, but is a scalar")));
  EXPECT_THAT([&] { q.DequeueMany(-1); },
              ThrowsMessage<ValueError>(
                  StrEq("'q_DequeueMany': cannot dequeue a negative number of elements (-1)")));
  // Only the constants made for the calls were added.
  EXPECT_EQ(graph_.num_ops(), ops + 3);
}

// The queue's own declaration is checked too.
TEST_F(FIFOQueueTest, DeclarationIsChecked) {
  EXPECT_THAT([] { FIFOQueue(1, {}, {}, "q"); },
              ThrowsMessage<ValueError>(StrEq("FIFOQueue 'q' needs at least one component dtype")));
  EXPECT_THAT(
      [] {
        FIFOQueue(1, {DataType::kInt32}, {TensorShape{}, TensorShape{}}, "q");
      },
      ThrowsMessage<ValueError>(
          StrEq("FIFOQueue 'q': queue shapes must have the same length as dtypes (2 shapes, 1 "
                "dtypes)")));
  EXPECT_THAT(
      [] { FIFOQueue(1, {DataType::kInt32}, {TensorShape{TensorShape::kUnknownDim}}, "q"); },
      ThrowsMessage<ValueError>(StrEq("FIFOQueue 'q': all shapes must be fully defined, got [?]")));
  EXPECT_EQ(graph_.num_ops(), 0);
  EXPECT_THROW(Queue(Constant(1).op()), TypeError);
}

// What only running can tell is checked at run time: InvalidArgumentError naming the op.
TEST_F(FIFOQueueTest, RunTimeChecksRaiseInvalidArgument) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{2}}, "q");
  Output any = Placeholder(DataType::kInt32);
  Operation* put = q.Enqueue({any});
  Session session;
  EXPECT_THAT(
      [&] {
        session.Run(put, {{any, Tensor::Vector<int32_t>({1, 2, 3})}});
      },
      Throws<InvalidArgumentError>(
          AllOf(HasMessage("Shape mismatch in tuple component 0. Expected [2], got [3]"),
                HasOpName("q_enqueue"))));
  // An empty batch of the right shape goes in without a look at the queue.
  session.Run(q.EnqueueMany({any}), {{any, Tensor::FromValues<int32_t>(TensorShape{0, 2}, {})}});
  EXPECT_THAT(
      [&] {
        session.Run(q.EnqueueMany({any}), {{any, Tensor::Vector<int32_t>({1, 2})}});
      },
      Throws<InvalidArgumentError>(
          HasMessage("Shape mismatch in tuple component 0. Expected [2,2], got [2]")));

  Queue shapeless = FIFOQueue(1, {DataType::kInt32});
  EXPECT_FALSE(shapeless.Dequeue()[0].shape().has_rank());
  EXPECT_THAT(
      [&] { session.Run(shapeless.DequeueMany(1)[0]); },
      Throws<InvalidArgumentError>(HasMessage(
          "FIFOQueue's DequeueMany and DequeueUpTo require the components to have specified "
          "shapes.")));
}

// Without shapes, elements of any shape may share a queue.
TEST_F(FIFOQueueTest, QueueWithoutShapesTakesAnyShape) {
  Queue q = FIFOQueue(5, {DataType::kInt32});
  Session session;
  session.Run(q.Enqueue({Constant(1)}));
  session.Run(q.Enqueue({Constant(Tensor::Vector<int32_t>({2, 3}))}));
  Output got = q.Dequeue()[0];
  EXPECT_EQ(session.Run(got).shape(), TensorShape{});
  EXPECT_EQ(session.Run(got).ToVector<int32_t>(), (std::vector<int32_t>{2, 3}));
}

// ---- RunOptions.timeout_in_ms ---------------------------------------------------------------

// A dequeue that waits past the run's deadline raises TF's DeadlineExceededError; the
// abandoned place in line is skipped, so the next dequeue gets the next element. The clock
// jumps to each deadline it is asked to wait for, so nothing really waits.
TEST_F(FIFOQueueTest, ADequeuePastTheRunsTimeoutRaisesDeadlineExceeded) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "q");
  Operation* put = q.Enqueue({Constant(Tensor::Scalar(7))});
  Output got = q.Dequeue()[0];
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  SessionOptions session_options;
  session_options.clock = &clock;
  Session session(&graph_, session_options);
  RunOptions options;
  options.timeout_in_ms = 50;
  EXPECT_THAT(
      [&] { session.Run({got}, {}, {}, options); },
      Throws<DeadlineExceededError>(AllOf(HasMessage(StrEq("Timed out waiting for notification")),
                                          HasOpName(got.op()->name()))));
  EXPECT_EQ(clock.NowMicros(), 50 * 1000);
  session.Run(put);
  EXPECT_EQ(IntOf(session.Run({got}, {}, {}, options)[0]), 7);
}

// An enqueue into a full queue times out the same way, adding nothing.
TEST_F(FIFOQueueTest, AnEnqueuePastTheRunsTimeoutRaisesDeadlineExceeded) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "q");
  Operation* put = q.Enqueue({Constant(Tensor::Scalar(7))});
  Output size = q.Size();
  Output got = q.Dequeue()[0];
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  SessionOptions session_options;
  session_options.clock = &clock;
  Session session(&graph_, session_options);
  RunOptions options;
  options.timeout_in_ms = 20;
  session.Run({}, {}, {put}, options);
  EXPECT_THROW(session.Run({}, {}, {put}, options), DeadlineExceededError);
  EXPECT_EQ(IntOf(session.Run(size)), 1);
  EXPECT_EQ(IntOf(session.Run(got)), 7);
  session.Run({}, {}, {put}, options);  // The abandoned turn did not block the line.
  EXPECT_EQ(IntOf(session.Run(size)), 1);
}

// Without a timeout (zero, the default) a run has no deadline: the clock is never read for
// one, and a run that waits is woken by what it waits for.
TEST_F(FIFOQueueTest, ZeroTimeoutMeansNoDeadline) {
  Queue q = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "q");
  Operation* put = q.Enqueue({Constant(Tensor::Scalar(3))});
  Output got = q.Dequeue()[0];
  Session session;
  std::future<int32_t> taken =
      std::async(std::launch::async, [&] { return IntOf(session.Run({got}, {}, {}, {})[0]); });
  StateOf(session, q).WaitForBlockedCallers(0, 1);
  session.Run(put);
  EXPECT_EQ(taken.get(), 3);
}

}  // namespace
}  // namespace mts
