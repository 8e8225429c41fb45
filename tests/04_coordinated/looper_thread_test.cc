// Tests of looper_thread.h: a target called back to back or on fixed boundaries of a
// FakeClock, stopped by the coordinator, its errors handed to the coordinator. The test moves
// time; it learns where the looper is from the target itself, never by sleeping.
#include "src/04_coordinated/looper_thread.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/04_coordinated/coordinator.h"
#include "src/platform/errors.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

constexpr int64_t kSecond = 1000000;
constexpr int64_t kMilli = 1000;

// A target that records the fake time of each call; the test can wait for the n-th call.
class CallLog {
 public:
  explicit CallLog(Clock* clock) : clock_(clock) {}

  // Records a call at the clock's current time.
  void Record() {
    std::lock_guard<std::mutex> lock(mu_);
    times_.push_back(clock_->NowMicros());
    cv_.notify_all();
  }
  // Blocks until at least `n` calls have been recorded.
  void WaitForCalls(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return times_.size() >= n; });
  }
  std::vector<int64_t> times() const {
    std::lock_guard<std::mutex> lock(mu_);
    return times_;
  }

 private:
  Clock* const clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int64_t> times_;  // Guarded by mu_.
};

// The n-th call comes at the n-th boundary (0, 1 s, 2 s, ...) though each call takes 0.3 s:
// boundaries are counted from the start, not from the end of the previous call.
TEST(LooperThreadTest, CallsFallOnFixedBoundaries) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  CallLog log(&clock);
  LooperThread::Loop(&coord, /*timer_interval_secs=*/1.0, [&] {
    log.Record();
    clock.Advance(300 * kMilli);  // The work itself takes 0.3 s of the clock.
  });
  for (size_t n = 1; n <= 5; ++n) {
    log.WaitForCalls(n);               // Call n has started and will return...
    clock.BlockUntilThreadsAsleep(1);  // ... and the looper now waits for the next boundary.
    clock.Advance(700 * kMilli);       // 0.3 s of work + 0.7 s of waiting = one interval.
  }
  log.WaitForCalls(6);
  coord.RequestStop();
  coord.Join();  // The looper registered itself: no need to pass it.
  const std::vector<int64_t> expected = {0,           1 * kSecond, 2 * kSecond,
                                         3 * kSecond, 4 * kSecond, 5 * kSecond};
  EXPECT_EQ(log.times(), expected);
}

// A looper waiting for its next boundary wakes at once when a stop is requested: Join
// returns without time moving, and the target is not called again.
TEST(LooperThreadTest, StopWakesAWaitingLooperAtOnce) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  CallLog log(&clock);
  auto looper = LooperThread::Loop(&coord, /*timer_interval_secs=*/60.0, [&] { log.Record(); });
  log.WaitForCalls(1);               // The first call is immediate...
  clock.BlockUntilThreadsAsleep(1);  // ... then it waits 60 s for the next.
  coord.RequestStop();
  coord.Join();
  EXPECT_FALSE(looper->IsAlive());
  EXPECT_EQ(clock.NowMicros(), 0);
  EXPECT_EQ(log.times(), std::vector<int64_t>{0});
}

// Without an interval the target is called back to back until a stop; a target may request
// the stop itself.
TEST(LooperThreadTest, WithoutIntervalCallsBackToBack) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  int calls = 0;  // Only the looper touches it until Join has returned.
  LooperThread::Loop(&coord, std::nullopt, [&] {
    if (++calls == 100) coord.RequestStop();
  });
  coord.Join();
  EXPECT_EQ(calls, 100);
}

// An exception from the target stops the coordinator (and so the other threads) and is
// rethrown by Join.
TEST(LooperThreadTest, TargetErrorStopsTheCoordinatorAndIsRecorded) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  int calls = 0;
  auto failing = LooperThread::Loop(&coord, std::nullopt, [&] {
    if (++calls == 3) throw InvalidArgumentError("bad input on call 3");
  });
  auto bystander = LooperThread::Loop(&coord, 3600.0, [] {});
  EXPECT_THROW(coord.Join(), InvalidArgumentError);
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_EQ(calls, 3);
  EXPECT_FALSE(bystander->IsAlive());
  EXPECT_THROW(coord.RaiseRequestedException(), InvalidArgumentError);
}

// A clean-stop error from the target (the end of the input) stops everything quietly.
TEST(LooperThreadTest, OutOfRangeFromTargetIsACleanStop) {
  Coordinator coord;
  int calls = 0;
  LooperThread::Loop(&coord, std::nullopt, [&] {
    if (++calls == 5) throw OutOfRangeError("End of sequence");
  });
  coord.Join();
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_EQ(calls, 5);
}

// A call that overruns by several intervals is followed by one late call, not by a burst of
// catch-up calls; then the calls are back on the boundaries.
TEST(LooperThreadTest, OverrunSkipsMissedBoundaries) {
  FakeClock clock;
  Coordinator coord({ErrorCode::kOutOfRange}, &clock);
  CallLog log(&clock);
  LooperThread::Loop(&coord, 1.0, [&] {
    const bool first = log.times().empty();
    log.Record();
    if (first) clock.Advance(3500 * kMilli);  // The first call stalls for 3.5 intervals.
  });
  log.WaitForCalls(2);               // The late call, at once when the first returns (3.5 s).
  clock.BlockUntilThreadsAsleep(1);  // Then it waits for the 4 s boundary.
  clock.Advance(500 * kMilli);
  log.WaitForCalls(3);
  coord.RequestStop();
  coord.Join();
  const std::vector<int64_t> expected = {0, 3500 * kMilli, 4 * kSecond};
  EXPECT_EQ(log.times(), expected);
}

// Loopers get distinct default names, and their arguments are checked.
TEST(LooperThreadTest, NamesAndArgumentChecks) {
  Coordinator coord;
  auto a = LooperThread::Create(&coord, 1.0, [] {});
  auto b = LooperThread::Create(&coord, 1.0, [] {});
  EXPECT_EQ(a->name().rfind("LooperThread-", 0), 0u);
  EXPECT_NE(a->name(), b->name());
  EXPECT_EQ(LooperThread::Create(
                &coord, 1.0, [] {}, "summary_writer")
                ->name(),
            "summary_writer");
  EXPECT_EQ(a->timer_interval_secs(), 1.0);
  EXPECT_THROW(LooperThread::Create(nullptr, 1.0, [] {}), ValueError);
  EXPECT_THROW(LooperThread::Create(&coord, 1.0, nullptr), ValueError);
  EXPECT_THROW(LooperThread::Create(&coord, -1.0, [] {}), ValueError);
  // Never started: registered, but not alive, so Join has nothing to wait for.
  coord.Join();
}

// A zero interval is allowed, as in TensorFlow (whose own tests loop with 0): the target is
// called again at once, until the coordinator stops.
TEST(LooperThreadTest, ZeroIntervalCallsTheTargetUntilStop) {
  Coordinator coord;
  int calls = 0;
  auto looper = LooperThread::Loop(&coord, 0.0, [&] {
    if (++calls == 3) coord.RequestStop();
  });
  coord.Join();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(looper->timer_interval_secs(), 0.0);
}

}  // namespace
}  // namespace mts
