// Tests of the stop-on-signal exercise. The test raises real signals at itself with
// raise(). Each test first installs a harmless counting handler, so that a signal the guard
// fails to catch is counted instead of killing the test, and a test waits for the stop
// with a deadline instead of hanging.
#include "chapters/04_coordinated/exercises/sigint_stop/sigint_stop.h"

#include <atomic>
#include <csignal>
#include <utility>

#include "gtest/gtest.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

constexpr double kDeadlineSecs = 5.0;  // Only a failing test waits this long.

std::atomic<int> g_fallback_calls{0};
void CountSignal(int) { g_fallback_calls.fetch_add(1); }

class StopOnSignalTest : public ::testing::Test {
 protected:
  StopOnSignalTest() {
    g_fallback_calls = 0;
    std::signal(SIGINT, CountSignal);
    std::signal(SIGUSR1, CountSignal);
  }
  ~StopOnSignalTest() override {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGUSR1, SIG_DFL);
  }

  Coordinator coord_;
};

// SIGINT requests a stop, and the handler that was there before is not called.
TEST_F(StopOnSignalTest, SigintRequestsAStop) {
  StopOnSignal guard = InstallStopOnSignal(coord_, SIGINT);
  EXPECT_FALSE(coord_.ShouldStop());
  raise(SIGINT);
  EXPECT_TRUE(coord_.WaitForStop(kDeadlineSecs));
  EXPECT_EQ(g_fallback_calls, 0);
}

// Once the guard is gone, the old handler is back and the signal no longer stops.
TEST_F(StopOnSignalTest, TheOldHandlerIsBackOnceTheGuardIsGone) {
  {
    StopOnSignal guard = InstallStopOnSignal(coord_, SIGINT);
    raise(SIGINT);
    ASSERT_TRUE(coord_.WaitForStop(kDeadlineSecs));
  }
  coord_.ClearStop();
  raise(SIGINT);
  EXPECT_EQ(g_fallback_calls, 1);
  EXPECT_FALSE(coord_.ShouldStop());
}

// Any catchable signal can be watched; several arrivals are one stop, and harmless.
TEST_F(StopOnSignalTest, RepeatedSignalsAreOneStop) {
  StopOnSignal guard = InstallStopOnSignal(coord_, SIGUSR1);
  for (int i = 0; i < 5; ++i) raise(SIGUSR1);
  EXPECT_TRUE(coord_.WaitForStop(kDeadlineSecs));
  EXPECT_EQ(g_fallback_calls, 0);
}

// A moved guard goes on watching; the moved-from one watches nothing.
TEST_F(StopOnSignalTest, AMovedGuardGoesOnWatching) {
  StopOnSignal outer;
  {
    StopOnSignal inner = InstallStopOnSignal(coord_, SIGINT);
    outer = std::move(inner);
  }  // `inner`, moved from, goes away: nothing is uninstalled.
  raise(SIGINT);
  EXPECT_TRUE(coord_.WaitForStop(kDeadlineSecs));
  EXPECT_EQ(g_fallback_calls, 0);
  outer = StopOnSignal();  // Assigning an empty guard uninstalls.
  raise(SIGINT);
  EXPECT_EQ(g_fallback_calls, 1);
}

// One guard per signal; another signal may have a guard of its own.
TEST_F(StopOnSignalTest, OneGuardPerSignal) {
  StopOnSignal first = InstallStopOnSignal(coord_, SIGINT);
  EXPECT_THROW(InstallStopOnSignal(coord_, SIGINT), RuntimeError);
  StopOnSignal other = InstallStopOnSignal(coord_, SIGUSR1);
  raise(SIGINT);  // The first guard still works after the refusal.
  EXPECT_TRUE(coord_.WaitForStop(kDeadlineSecs));
}

// Signals that cannot be caught, and numbers that are not signals, are refused.
TEST_F(StopOnSignalTest, UncatchableSignalsAreRefused) {
  EXPECT_THROW(InstallStopOnSignal(coord_, SIGKILL), ValueError);
  EXPECT_THROW(InstallStopOnSignal(coord_, SIGSTOP), ValueError);
  EXPECT_THROW(InstallStopOnSignal(coord_, 0), ValueError);
  EXPECT_THROW(InstallStopOnSignal(coord_, NSIG), ValueError);
}

// Installing and removing a guard many times leaves nothing behind: each removal ends its
// watcher (a watcher left blocked on its pipe would hang the destructor).
TEST_F(StopOnSignalTest, ManyInstallsAndRemovals) {
  for (int i = 0; i < 200; ++i) {
    StopOnSignal guard = InstallStopOnSignal(coord_, SIGUSR1);
  }
  raise(SIGUSR1);
  EXPECT_EQ(g_fallback_calls, 1);
  EXPECT_FALSE(coord_.ShouldStop());
}

}  // namespace
}  // namespace mts
