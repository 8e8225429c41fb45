// Tests of coordinator.h (and the CoordinatedThread it joins): who gets recorded, who gets
// rethrown, how Join waits and whom it reports. Time is a FakeClock the test moves; threads
// are held back by futures the test releases. Nothing here sleeps.
#include "src/04_coordinated/coordinator.h"

#include <atomic>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/platform/logging.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::StartsWith;
using ::testing::StrEq;
using ::testing::Throws;
using ::testing::ThrowsMessage;

constexpr int64_t kSecond = 1000000;

using ThreadPtr = std::shared_ptr<CoordinatedThread>;

template <typename E>
std::exception_ptr Error(const std::string& message) {
  return std::make_exception_ptr(E(message));
}

// A thread whose body waits until the coordinator stops.
ThreadPtr StartWaiter(Coordinator& coord, const std::string& name) {
  auto thread = std::make_shared<CoordinatedThread>(name, [&coord] { coord.WaitForStop(); });
  thread->Start();
  return thread;
}

// Runs coord.Join(...) on its own thread, so the test can move time while Join waits.
class BackgroundJoin {
 public:
  BackgroundJoin(Coordinator& coord, std::vector<ThreadPtr> threads, double grace,
                 bool ignore_live_threads = false)
      : thread_([&coord, threads, grace, ignore_live_threads, this] {
          try {
            coord.Join(threads, grace, ignore_live_threads);
          } catch (...) {  // Kept for Wait() to rethrow on the test's thread.
            error_ = std::current_exception();
          }
          done_ = true;
        }) {}
  ~BackgroundJoin() {
    if (thread_.joinable()) thread_.join();
  }
  // Waits for Join to return, then returns as it did or throws what it threw.
  void Wait() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }
  bool done() const { return done_; }

 private:
  std::exception_ptr error_;
  std::atomic<bool> done_{false};
  std::thread thread_;  // Last: starts after the fields it writes exist.
};

// A new coordinator is not stopping and holds no error.
TEST(CoordinatorTest, StartsRunningWithNoError) {
  Coordinator coord;
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_FALSE(coord.joined());
  EXPECT_NO_THROW(coord.RaiseRequestedException());
}

// The first error is recorded; a second one, though it also asks to stop, is dropped.
TEST(CoordinatorTest, FirstErrorWins) {
  Coordinator coord;
  coord.RequestStop(Error<InvalidArgumentError>("first"));
  coord.RequestStop(Error<InternalError>("second"));
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_THAT([&] { coord.RaiseRequestedException(); },
              Throws<InvalidArgumentError>(HasMessage("first")));
}

// Of errors reported at the same moment by many threads, exactly one is recorded and logged.
TEST(CoordinatorTest, RacingErrorsRecordExactlyOne) {
  ScopedLogCapture capture;
  Coordinator coord;
  std::promise<void> go;
  std::shared_future<void> start = go.get_future().share();
  std::vector<std::thread> reporters;
  for (int i = 0; i < 8; ++i) {
    reporters.emplace_back([&coord, start, i] {
      start.wait();
      coord.RequestStop(Error<InternalError>("thread " + std::to_string(i)));
    });
  }
  go.set_value();
  for (std::thread& t : reporters) t.join();
  EXPECT_THAT([&] { coord.RaiseRequestedException(); },
              Throws<InternalError>(HasMessage(StartsWith("thread "))));
  int reported = 0;
  for (const std::string& line : capture.lines()) {
    reported += line.find("Error reported to Coordinator: ") != std::string::npos;
  }
  EXPECT_EQ(reported, 1);
}

// The recorded error is logged with its type and message, as TensorFlow does.
TEST(CoordinatorTest, LogsTheReportedError) {
  ScopedLogCapture capture;
  Coordinator coord;
  coord.RequestStop(Error<AbortedError>("lost the parameter server"));
  EXPECT_TRUE(capture.Contains(
      "Error reported to Coordinator: mts::AbortedError, lost the parameter server"));
}

// OutOfRange is a clean stop by default: it stops the threads but is no error.
TEST(CoordinatorTest, CleanStopErrorsAreNoError) {
  ScopedLogCapture capture;
  Coordinator coord;
  coord.RequestStop(Error<OutOfRangeError>("End of sequence"));
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_NO_THROW(coord.RaiseRequestedException());
  EXPECT_FALSE(capture.Contains("Error reported to Coordinator"));
}

// A clean stop counts as the first stop: an error after it is not recorded either.
TEST(CoordinatorTest, ErrorAfterCleanStopIsDropped) {
  Coordinator coord;
  coord.RequestStop(Error<OutOfRangeError>("End of sequence"));
  coord.RequestStop(Error<InternalError>("late"));
  EXPECT_NO_THROW(coord.RaiseRequestedException());
}

// MonitoredSession's coordinator has no clean codes: OutOfRange is an error there.
TEST(CoordinatorTest, WithNoCleanCodesOutOfRangeIsAnError) {
  Coordinator coord(std::vector<ErrorCode>{});
  coord.RequestStop(Error<OutOfRangeError>("End of sequence"));
  EXPECT_THAT([&] { coord.RaiseRequestedException(); },
              Throws<OutOfRangeError>(HasMessage("End of sequence")));
}

// Any code can be made clean; exceptions that are not OpErrors never are.
TEST(CoordinatorTest, CleanCodesAreConfigurable) {
  Coordinator coord({ErrorCode::kCancelled});
  coord.RequestStop(Error<CancelledError>("cancelled"));
  EXPECT_NO_THROW(coord.RaiseRequestedException());

  Coordinator other({ErrorCode::kCancelled});
  other.RequestStop(std::make_exception_ptr(RuntimeError("not an OpError")));
  EXPECT_THAT([&] { other.RaiseRequestedException(); },
              ThrowsMessage<RuntimeError>(StrEq("not an OpError")));
}

// Once a plain stop was requested, a later error is not recorded.
TEST(CoordinatorTest, ErrorAfterPlainStopIsDropped) {
  Coordinator coord;
  coord.RequestStop();
  coord.RequestStop(Error<InternalError>("too late"));
  EXPECT_NO_THROW(coord.RaiseRequestedException());
}

// RaiseRequestedException rethrows the very exception reported, and keeps it recorded.
TEST(CoordinatorTest, RaiseRequestedExceptionKeepsTheError) {
  Coordinator coord;
  const std::exception_ptr error = Error<DataLossError>("corrupt record");
  coord.RequestStop(error);
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT([&] { coord.RaiseRequestedException(); },
                Throws<DataLossError>(HasMessage("corrupt record")));
  }
}

// ClearStop forgets the stop, the error and joined(), for another round.
TEST(CoordinatorTest, ClearStopStartsAFreshRound) {
  Coordinator coord;
  coord.RequestStop(Error<InternalError>("round one"));
  EXPECT_THAT([&] { coord.Join(); }, Throws<InternalError>(HasMessage("round one")));
  EXPECT_TRUE(coord.joined());
  coord.ClearStop();
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_FALSE(coord.joined());
  EXPECT_NO_THROW(coord.RaiseRequestedException());
}

// StopOnException catches anything the body throws, records it, and stops.
TEST(CoordinatorTest, StopOnExceptionRecordsAndSwallows) {
  Coordinator coord;
  coord.StopOnException([] { throw UnavailableError("worker gone"); });
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_THAT([&] { coord.RaiseRequestedException(); },
              Throws<UnavailableError>(HasMessage("worker gone")));

  Coordinator other;
  other.StopOnException([] { throw 42; });  // Not even a std::exception.
  EXPECT_TRUE(other.ShouldStop());
  EXPECT_THROW(other.RaiseRequestedException(), int);
}

// A body that returns normally leaves the coordinator running.
TEST(CoordinatorTest, StopOnExceptionWithoutExceptionDoesNotStop) {
  Coordinator coord;
  bool ran = false;
  coord.StopOnException([&] { ran = true; });
  EXPECT_TRUE(ran);
  EXPECT_FALSE(coord.ShouldStop());
}

// An error in one thread stops the others, and Join rethrows it in the joining thread.
TEST(CoordinatorTest, ThreadErrorStopsTheOthersAndJoinRethrowsIt) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  ThreadPtr a = StartWaiter(coord, "a");
  ThreadPtr b = StartWaiter(coord, "b");
  auto failing = std::make_shared<CoordinatedThread>("failing", [&coord] {
    coord.StopOnException([] { throw InvalidArgumentError("bad record"); });
  });
  failing->Start();
  EXPECT_THAT(
      [&] {
        coord.Join({a, b, failing});
      },
      Throws<InvalidArgumentError>(HasMessage("bad record")));
  EXPECT_FALSE(a->IsAlive());
  EXPECT_FALSE(b->IsAlive());
  EXPECT_TRUE(coord.joined());
  // Joining again rethrows again: the error stays recorded.
  EXPECT_THAT([&] { coord.Join(); }, Throws<InvalidArgumentError>(HasMessage("bad record")));
}

// Without a stop, Join waits for as long as the threads run, then returns quietly.
TEST(CoordinatorTest, JoinWithoutStopWaitsForEveryThread) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<ThreadPtr> threads;
  for (const char* name : {"r1", "r2", "r3"}) {
    threads.push_back(std::make_shared<CoordinatedThread>(name, [released] { released.wait(); }));
    threads.back()->Start();
  }
  BackgroundJoin join(coord, threads, /*grace=*/120);
  EXPECT_FALSE(join.done());  // Cannot be done: the threads are still held.
  release.set_value();
  EXPECT_NO_THROW(join.Wait());
  for (const ThreadPtr& t : threads) EXPECT_FALSE(t->IsAlive());
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_TRUE(coord.joined());
}

// Registered threads are joined even when not passed, and forgotten after the Join.
TEST(CoordinatorTest, JoinWaitsForRegisteredThreads) {
  Coordinator coord;
  ThreadPtr registered = StartWaiter(coord, "registered");
  coord.RegisterThread(registered);
  coord.RegisterThread(registered);  // Twice is once.
  coord.RequestStop();
  coord.Join();
  EXPECT_FALSE(registered->IsAlive());
}

// A thread that ignores the stop is named after the grace period, and left running.
TEST(CoordinatorTest, SlowThreadIsReportedByNameAfterTheGracePeriod) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  std::promise<void> release;
  auto slow = std::make_shared<CoordinatedThread>(
      "slow_reader", [released = release.get_future().share()] { released.wait(); });
  slow->Start();
  ThreadPtr quick = StartWaiter(coord, "quick");
  coord.RequestStop();
  quick->Join();  // The quick thread honours the stop; the slow one does not.

  BackgroundJoin join(coord, {slow, quick}, /*grace=*/10);
  clock.BlockUntilThreadsAsleep(1);  // Join is in its grace period.
  clock.Advance(10 * kSecond - 1);
  EXPECT_FALSE(join.done());         // One microsecond short of the grace: still waiting.
  EXPECT_EQ(clock.NumThreadsAsleep(), 1);
  clock.Advance(1);
  EXPECT_THAT([&] { join.Wait(); },
              ThrowsMessage<RuntimeError>(StrEq("Coordinator stopped with threads still running: "
                                                "slow_reader")));
  EXPECT_TRUE(slow->IsAlive());      // Reported, not killed.
  EXPECT_FALSE(quick->IsAlive());

  release.set_value();
  slow->Join();
  EXPECT_FALSE(slow->IsAlive());
}

// Every straggler is named, separated by spaces, as TensorFlow writes them.
TEST(CoordinatorTest, AllStragglersAreNamed) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<ThreadPtr> threads;
  for (const char* name : {"a", "b"}) {
    threads.push_back(std::make_shared<CoordinatedThread>(name, [released] { released.wait(); }));
    threads.back()->Start();
  }
  coord.RequestStop();
  BackgroundJoin join(coord, threads, /*grace=*/1);
  clock.BlockUntilThreadsAsleep(1);
  clock.Advance(kSecond);
  EXPECT_THAT(
      [&] { join.Wait(); },
      ThrowsMessage<RuntimeError>(StrEq("Coordinator stopped with threads still running: a b")));
  release.set_value();
  for (const ThreadPtr& t : threads) t->Join();
}

// With ignore_live_threads, stragglers are logged instead of raised.
TEST(CoordinatorTest, IgnoreLiveThreadsLogsStragglers) {
  ScopedLogCapture capture;
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  std::promise<void> release;
  auto slow = std::make_shared<CoordinatedThread>(
      "slow_reader", [released = release.get_future().share()] { released.wait(); });
  slow->Start();
  coord.RequestStop();

  BackgroundJoin join(coord, {slow}, /*grace=*/5, /*ignore_live_threads=*/true);
  clock.BlockUntilThreadsAsleep(1);
  clock.Advance(5 * kSecond);
  EXPECT_NO_THROW(join.Wait());
  EXPECT_TRUE(capture.Contains("Coordinator stopped with threads still running: slow_reader"));
  release.set_value();
  slow->Join();
}

// A recorded error wins over stragglers: Join rethrows it, not the RuntimeError.
TEST(CoordinatorTest, RecordedErrorWinsOverStragglers) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  std::promise<void> release;
  auto slow = std::make_shared<CoordinatedThread>(
      "slow_reader", [released = release.get_future().share()] { released.wait(); });
  slow->Start();
  coord.RequestStop(Error<InternalError>("reader broke"));

  BackgroundJoin join(coord, {slow}, /*grace=*/1);
  clock.BlockUntilThreadsAsleep(1);
  clock.Advance(kSecond);
  EXPECT_THAT([&] { join.Wait(); }, Throws<InternalError>(HasMessage("reader broke")));
  release.set_value();
  slow->Join();
}

// WaitForStop with a timeout ends when the clock's time runs out, or at once on a stop.
TEST(CoordinatorTest, WaitForStopTimesOutOnTheClock) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  EXPECT_FALSE(coord.WaitForStop(0.0));   // Only looks.
  EXPECT_FALSE(coord.WaitForStop(-1.0));

  std::future<bool> timed_out = std::async(std::launch::async, [&] {
    return coord.WaitForStop(5.0);
  });
  clock.BlockUntilThreadsAsleep(1);
  clock.Advance(5 * kSecond);
  EXPECT_FALSE(timed_out.get());

  std::future<bool> stopped = std::async(std::launch::async, [&] {
    return coord.WaitForStop(5.0);
  });
  clock.BlockUntilThreadsAsleep(1);
  coord.RequestStop();
  EXPECT_TRUE(stopped.get());
  EXPECT_EQ(clock.NowMicros(), 5 * kSecond);  // The stop, not time, ended the second wait.
  EXPECT_TRUE(coord.WaitForStop());
}

// After Join has finished, an error has nobody left to reach: RequestStop throws it.
TEST(CoordinatorTest, AfterJoinRequestStopRethrowsTheError) {
  Coordinator coord;
  coord.Join();  // No threads: returns at once, without a stop.
  ASSERT_TRUE(coord.joined());
  EXPECT_THROW(coord.RequestStop(Error<InternalError>("after join")), InternalError);
  EXPECT_FALSE(coord.ShouldStop());  // Thrown before the stop flag is touched.
  EXPECT_NO_THROW(coord.RaiseRequestedException());

  // A clean stop is not an error, so it is not thrown; a plain stop still works.
  coord.RequestStop(Error<OutOfRangeError>("done"));
  EXPECT_TRUE(coord.ShouldStop());
}

// An exception escaping a bare CoordinatedThread ends it (logged), and it is no longer alive.
TEST(CoordinatedThreadTest, ExceptionEndsTheThreadAndIsLogged) {
  ScopedLogCapture capture;
  CoordinatedThread thread("thrower", [] { throw InternalError("oops"); });
  thread.Start();
  thread.Join();
  EXPECT_FALSE(thread.IsAlive());
  EXPECT_TRUE(capture.Contains("Exception in thread thrower: mts::InternalError, oops"));
}

// A thread is not alive before Start, and can be started only once.
TEST(CoordinatedThreadTest, StartsOnce) {
  CoordinatedThread thread("once", [] {});
  EXPECT_FALSE(thread.IsAlive());
  thread.Join();  // Never started: nothing to wait for.
  thread.Start();
  EXPECT_THAT([&] { thread.Start(); },
              ThrowsMessage<RuntimeError>(StrEq("threads can only be started once")));
  thread.Join();
}

// The body's captures are released before the thread reads as finished.
TEST(CoordinatedThreadTest, CapturesAreReleasedBeforeItIsDone) {
  auto resource = std::make_shared<int>(7);
  std::weak_ptr<int> watch = resource;
  CoordinatedThread thread("owner", [resource] { (void)*resource; });
  resource.reset();
  thread.Start();
  thread.Join();
  EXPECT_TRUE(watch.expired());
}

// Destroying a straggler's last owner does not block: the thread is detached, and finishes
// on its own once released. The test watches it through what the body captured.
TEST(CoordinatedThreadTest, DestroyingARunningThreadDetachesIt) {
  ScopedLogCapture capture;
  std::promise<void> release;
  // Owned by the observer (so by the thread), not by this stack frame, which may be gone
  // before the thread has finished setting it.
  auto exited = std::make_shared<std::promise<void>>();
  std::future<void> exited_future = exited->get_future();
  auto resource = std::make_shared<int>(7);  // Held only by the body from Start on.
  std::weak_ptr<int> captured = resource;
  {
    auto thread = std::make_shared<CoordinatedThread>(
        "straggler", [released = release.get_future().share(), resource] { released.wait(); });
    resource.reset();
    thread->AddExitObserver([exited] { exited->set_value(); });
    thread->Start();
  }  // The last owner is gone while the body still runs.
  EXPECT_TRUE(capture.Contains("Thread straggler is still running"));
  EXPECT_FALSE(captured.expired()) << "the detached body stopped before it was released";
  release.set_value();
  exited_future.wait();
  EXPECT_TRUE(captured.expired()) << "the detached body did not release what it captured";
}

// Thousands of rounds of start, stop and join leave no thread behind: after Join none is
// alive, and once the round's owners are gone every thread object is gone too, each joined
// (a destroyed thread that still ran would have been detached, with a warning).
TEST(CoordinatorTest, ThousandsOfStartStopCyclesLeakNoThread) {
  ScopedLogCapture capture;
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::weak_ptr<CoordinatedThread>> watched;
    {
      Coordinator coord;
      std::vector<ThreadPtr> threads;
      for (const char* name : {"t1", "t2", "t3"}) threads.push_back(StartWaiter(coord, name));
      coord.RequestStop();
      coord.Join(threads);
      for (const ThreadPtr& thread : threads) {
        ASSERT_FALSE(thread->IsAlive()) << thread->name() << ", round " << round;
        watched.push_back(thread);
      }
    }
    for (const auto& thread : watched) ASSERT_TRUE(thread.expired()) << "round " << round;
  }
  EXPECT_FALSE(capture.Contains("still running")) << "a thread was detached";
}

}  // namespace
}  // namespace mts
