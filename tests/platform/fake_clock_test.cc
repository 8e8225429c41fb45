// Tests of fake_clock.h: time that moves only when the test moves it, so tests of waiting
// code never wait on real time. Each threaded test parks its threads with
// BlockUntilThreadsAsleep before advancing, so the outcome never depends on scheduling.
#include "tests/testing/fake_clock.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace mts {
namespace {

// A fake clock starts at zero (or where it is told) and moves only when advanced.
TEST(FakeClockTest, StandsStillUntilAdvanced) {
  FakeClock clock;
  EXPECT_EQ(clock.NowMicros(), 0);
  clock.Advance(1500000);
  EXPECT_EQ(clock.NowMicros(), 1500000);
  EXPECT_DOUBLE_EQ(clock.NowSeconds(), 1.5);

  FakeClock later(FakeClock::Mode::kBlocking, 42);
  EXPECT_EQ(later.NowMicros(), 42);
}

// Wall time is a fixed start plus fake time, so file names in tests are reproducible.
TEST(FakeClockTest, WallTimeMovesWithFakeTimeFromAFixedStart) {
  FakeClock clock;
  EXPECT_EQ(clock.WallTimeMicros(), FakeClock::kDefaultWallStartMicros);
  clock.Advance(7);
  EXPECT_EQ(clock.WallTimeMicros(), FakeClock::kDefaultWallStartMicros + 7);

  FakeClock custom(FakeClock::Mode::kBlocking, 100, 5000);
  EXPECT_EQ(custom.WallTimeMicros(), 5000);
}

// A sleeper on another thread wakes exactly when the test advances time past its deadline.
TEST(FakeClockTest, AdvanceWakesASleeperOnAnotherThread) {
  FakeClock clock;
  std::thread sleeper([&] { clock.SleepForMicros(1000); });
  clock.BlockUntilThreadsAsleep(1);

  clock.Advance(999);  // One microsecond short: the sleeper cannot have returned.
  EXPECT_EQ(clock.NumThreadsAsleep(), 1);

  clock.Advance(1);
  sleeper.join();
  EXPECT_EQ(clock.NumThreadsAsleep(), 0);
  EXPECT_EQ(clock.NowMicros(), 1000);
}

// Advancing wakes only the sleepers whose deadline has come; the others sleep on.
TEST(FakeClockTest, AdvanceWakesOnlySleepersWhoseDeadlinePassed) {
  FakeClock clock;
  std::thread short_sleeper([&] { clock.SleepForMicros(100); });
  std::thread long_sleeper([&] { clock.SleepForMicros(200); });
  clock.BlockUntilThreadsAsleep(2);

  clock.Advance(150);
  short_sleeper.join();
  EXPECT_EQ(clock.NumThreadsAsleep(), 1);

  clock.Advance(50);
  long_sleeper.join();
  EXPECT_EQ(clock.NumThreadsAsleep(), 0);
}

// Sleeping for zero or negative time returns at once, in either mode.
TEST(FakeClockTest, SleepingForNothingReturnsAtOnce) {
  FakeClock clock;
  clock.SleepForMicros(0);
  clock.SleepForMicros(-5);
  EXPECT_EQ(clock.NowMicros(), 0);
}

// The state a WaitFor test waits on, guarded as Clock::WaitFor requires.
struct Flag {
  std::mutex mu;
  std::condition_variable cv;
  bool set = false;  // Guarded by mu.
};

// WaitFor ends with false once fake time reaches the deadline and the condition still fails.
TEST(FakeClockTest, WaitForTimesOutWhenFakeTimeReachesTheDeadline) {
  FakeClock clock;
  Flag flag;
  bool result = true;
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(flag.mu);
    result = clock.WaitFor(lock, flag.cv, 500, [&] { return flag.set; });
    EXPECT_TRUE(lock.owns_lock());
  });
  clock.BlockUntilThreadsAsleep(1);

  clock.Advance(499);
  EXPECT_EQ(clock.NumThreadsAsleep(), 1);
  clock.Advance(1);
  waiter.join();
  EXPECT_FALSE(result);
  EXPECT_EQ(clock.NowMicros(), 500);
}

// WaitFor ends with true as soon as another thread makes the condition hold; no time passes.
TEST(FakeClockTest, WaitForReturnsTrueWhenNotifiedBeforeTheDeadline) {
  FakeClock clock;
  Flag flag;
  bool result = false;
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(flag.mu);
    result = clock.WaitFor(lock, flag.cv, 1000000, [&] { return flag.set; });
  });
  clock.BlockUntilThreadsAsleep(1);
  {
    std::lock_guard<std::mutex> lock(flag.mu);
    flag.set = true;
  }
  flag.cv.notify_all();
  waiter.join();
  EXPECT_TRUE(result);
  EXPECT_EQ(clock.NowMicros(), 0);
}

// A condition that already holds, or a zero timeout, never blocks.
TEST(FakeClockTest, WaitForDoesNotBlockWhenDoneOrWithoutTimeout) {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(clock.WaitFor(lock, cv, 1000, [] { return true; }));
  EXPECT_FALSE(clock.WaitFor(lock, cv, 0, [] { return false; }));
  EXPECT_TRUE(lock.owns_lock());
  EXPECT_EQ(clock.NumThreadsAsleep(), 0);
}

// Many waiters with different deadlines, stepped through by one thread: each wakes at its own
// deadline, never before. (Under TSan this also checks the clock's locking.)
TEST(FakeClockTest, ManyWaitersEachWakeAtTheirOwnDeadline) {
  constexpr int kWaiters = 8;
  FakeClock clock;
  Flag flag;
  std::vector<int64_t> woke_at(kWaiters, -1);
  std::vector<std::thread> waiters;
  for (int i = 0; i < kWaiters; ++i) {
    waiters.emplace_back([&, i] {
      std::unique_lock<std::mutex> lock(flag.mu);
      clock.WaitFor(lock, flag.cv, 10 * (i + 1), [&] { return flag.set; });
      woke_at[i] = clock.NowMicros();
    });
  }
  for (int i = 0; i < kWaiters; ++i) {
    clock.BlockUntilThreadsAsleep(kWaiters - i);
    clock.Advance(10);
    waiters[i].join();  // Waiter i's deadline has come; the later ones wait on.
  }
  for (int i = 0; i < kWaiters; ++i) EXPECT_EQ(woke_at[i], 10 * (i + 1)) << "waiter " << i;
}

// In auto-advance mode a sleep returns at once, having moved time on by its length.
TEST(FakeClockTest, AutoAdvanceSleepMovesTimeAndReturns) {
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  clock.SleepForMicros(30000000);
  clock.SleepForMicros(30000000);
  EXPECT_EQ(clock.NowMicros(), 60000000);
}

// In auto-advance mode a polling loop (check, then wait out the interval) runs to completion
// on one thread, and the fake time afterwards says how long it would have taken.
TEST(FakeClockTest, AutoAdvanceRunsAPollingLoopWithoutBlocking) {
  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  std::mutex mu;
  std::condition_variable cv;
  int polls = 0;
  std::unique_lock<std::mutex> lock(mu);
  // Ready on the third poll, as a SessionManager finds a model restored by the chief.
  while (++polls < 3) {
    EXPECT_FALSE(clock.WaitFor(lock, cv, 30000000, [] { return false; }));
  }
  EXPECT_EQ(polls, 3);
  EXPECT_EQ(clock.NowMicros(), 60000000);
  // A condition that holds costs no time.
  EXPECT_TRUE(clock.WaitFor(lock, cv, 30000000, [] { return true; }));
  EXPECT_EQ(clock.NowMicros(), 60000000);
}

}  // namespace
}  // namespace mts
