// Tests of clock.h: the real clock, the one place mts reads real time. Everything that waits
// is tested with a FakeClock instead (fake_clock_test.cc); these checks cost microseconds.
#include "src/platform/clock.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "gtest/gtest.h"

namespace mts {
namespace {

// The real clock is a single object, available to everyone.
TEST(RealClockTest, IsOneSharedObject) {
  ASSERT_NE(RealClock(), nullptr);
  EXPECT_EQ(RealClock(), RealClock());
}

// NowMicros is monotonic: it never goes backwards, whatever happens to the calendar clock.
TEST(RealClockTest, NowMicrosNeverGoesBackwards) {
  int64_t previous = RealClock()->NowMicros();
  for (int i = 0; i < 1000; ++i) {
    const int64_t now = RealClock()->NowMicros();
    EXPECT_GE(now, previous);
    previous = now;
  }
}

// WallTimeMicros is calendar time: it agrees with system_clock to well within a second.
TEST(RealClockTest, WallTimeIsCalendarTime) {
  const int64_t system_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
  EXPECT_NEAR(static_cast<double>(RealClock()->WallTimeMicros()),
              static_cast<double>(system_micros), 1e6);
}

// WaitFor checks the condition first, and a zero timeout never blocks.
TEST(RealClockTest, WaitForReturnsAtOnceWhenDoneOrWithoutTimeout) {
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(RealClock()->WaitFor(lock, cv, 60 * 1000000, [] { return true; }));
  EXPECT_FALSE(RealClock()->WaitFor(lock, cv, 0, [] { return false; }));
  EXPECT_TRUE(lock.owns_lock());
}

// A short real timeout ends the wait with the condition's value (false), lock held.
TEST(RealClockTest, WaitForTimesOut) {
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  const int64_t start = RealClock()->NowMicros();
  EXPECT_FALSE(RealClock()->WaitFor(lock, cv, 1000, [] { return false; }));
  EXPECT_GE(RealClock()->NowMicros() - start, 1000);
  EXPECT_TRUE(lock.owns_lock());
}

}  // namespace
}  // namespace mts
