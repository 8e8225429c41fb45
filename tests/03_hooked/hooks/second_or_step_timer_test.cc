// Tests of second_or_step_timer.h: the trigger rule shared by the periodic hooks, by step and
// by time on a FakeClock.
#include "src/03_hooked/hooks/second_or_step_timer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr int64_t kSecond = 1000000;

// Exactly one interval: neither and both are refused with TensorFlow's messages.
TEST(SecondOrStepTimerTest, NeedsExactlyOneInterval) {
  EXPECT_THAT(
      [] { SecondOrStepTimer(std::nullopt, std::nullopt); },
      ThrowsMessage<ValueError>(StrEq("Either every_secs or every_steps should be provided.")));
  EXPECT_THAT([] { SecondOrStepTimer(1.0, 1); },
              ThrowsMessage<ValueError>(StrEq("Can not provide both every_secs and every_steps.")));
}

// Zero counts as given: only a missing interval is an error.
TEST(SecondOrStepTimerTest, ZeroIsAGivenInterval) {
  SecondOrStepTimer timer(0.0, std::nullopt);
  EXPECT_TRUE(timer.ShouldTriggerForStep(1));
}

// By steps: the first step triggers, then every third one, never the same step twice.
TEST(SecondOrStepTimerTest, TriggersEveryNSteps) {
  SecondOrStepTimer timer = SecondOrStepTimer::EverySteps(3);
  EXPECT_TRUE(timer.ShouldTriggerForStep(1));
  timer.UpdateLastTriggeredStep(1);
  EXPECT_FALSE(timer.ShouldTriggerForStep(1));
  EXPECT_FALSE(timer.ShouldTriggerForStep(2));
  EXPECT_FALSE(timer.ShouldTriggerForStep(3));
  EXPECT_TRUE(timer.ShouldTriggerForStep(4));
  EXPECT_TRUE(timer.ShouldTriggerForStep(10));  // Skipped steps still trigger.
}

// By time: the interval counts from the last trigger on the clock, whatever the steps.
TEST(SecondOrStepTimerTest, TriggersEveryNSecondsOfTheClock) {
  FakeClock clock;
  SecondOrStepTimer timer = SecondOrStepTimer::EverySecs(2.0, &clock);
  EXPECT_TRUE(timer.ShouldTriggerForStep(0));
  timer.UpdateLastTriggeredStep(0);
  EXPECT_FALSE(timer.ShouldTriggerForStep(100));
  clock.Advance(2 * kSecond - 1);
  EXPECT_FALSE(timer.ShouldTriggerForStep(100));
  clock.Advance(1);
  EXPECT_TRUE(timer.ShouldTriggerForStep(100));
  EXPECT_FALSE(timer.ShouldTriggerForStep(0));  // Even when due, the last step never repeats.
}

// Fractional intervals do not drift: triggers every 0.1 s land exactly on 0.1, 0.2, 0.3 s
// (in floating-point seconds, 0.2 + 0.1 > 0.3 would skip the third).
TEST(SecondOrStepTimerTest, FractionalSecondsDoNotDrift) {
  FakeClock clock;
  SecondOrStepTimer timer = SecondOrStepTimer::EverySecs(0.1, &clock);
  for (int step = 0; step <= 3; ++step) {
    EXPECT_TRUE(timer.ShouldTriggerForStep(step)) << "at " << step << " tenths of a second";
    timer.UpdateLastTriggeredStep(step);
    clock.Advance(kSecond / 10);
  }
}

// The update reports nothing the first time, then the time and steps since the last one.
TEST(SecondOrStepTimerTest, UpdateReturnsElapsedSecondsAndSteps) {
  FakeClock clock;
  SecondOrStepTimer timer = SecondOrStepTimer::EverySteps(10, &clock);
  SecondOrStepTimer::Elapsed first = timer.UpdateLastTriggeredStep(5);
  EXPECT_FALSE(first.secs.has_value());
  EXPECT_FALSE(first.steps.has_value());
  clock.Advance(kSecond / 2);
  SecondOrStepTimer::Elapsed second = timer.UpdateLastTriggeredStep(25);
  EXPECT_DOUBLE_EQ(*second.secs, 0.5);
  EXPECT_EQ(*second.steps, 20);
  EXPECT_EQ(timer.last_triggered_step(), 25);
}

// Reset forgets the last trigger: the next step triggers, and the next update reports nothing.
TEST(SecondOrStepTimerTest, ResetForgetsTheLastTrigger) {
  FakeClock clock;
  SecondOrStepTimer timer = SecondOrStepTimer::EverySecs(60.0, &clock);
  timer.UpdateLastTriggeredStep(7);
  EXPECT_FALSE(timer.ShouldTriggerForStep(8));
  timer.Reset();
  EXPECT_FALSE(timer.last_triggered_step().has_value());
  EXPECT_TRUE(timer.ShouldTriggerForStep(8));
  EXPECT_FALSE(timer.UpdateLastTriggeredStep(8).secs.has_value());
}

}  // namespace
}  // namespace mts
