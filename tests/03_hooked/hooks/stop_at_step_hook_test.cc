// Tests of stop_at_step_hook.h: the two ways to give the target, the conversion made once,
// and the two-stage check (estimate from the stale read, confirm with a raw read).
#include "src/03_hooked/hooks/stop_at_step_hook.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/testing/counting_session.h"

namespace mts {
namespace {

using ::testing::StrEq;
using ::testing::ThrowsMessage;

// Exactly one of num_steps and last_step, with TensorFlow's messages.
TEST(StopAtStepHookTest, NeedsExactlyOneOfNumStepsAndLastStep) {
  EXPECT_THAT([] { StopAtStepHook(std::nullopt, std::nullopt); },
              ThrowsMessage<ValueError>(StrEq("One of num_steps or last_step must be specified.")));
  EXPECT_THAT(
      [] { StopAtStepHook(5, 10); },
      ThrowsMessage<ValueError>(StrEq("Only one of num_steps or last_step can be specified.")));
}

// Without a global step in the graph, Begin refuses, naming the hook.
TEST(StopAtStepHookTest, BeginNeedsAGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  EXPECT_THAT(
      [&] { StopAtStepHook::AtLastStep(3)->Begin(); },
      ThrowsMessage<RuntimeError>(StrEq("Global step should be created to use StopAtStepHook.")));
}

// last_step: training stops with the global step exactly at last_step.
TEST(StopAtStepHookTest, StopsWhenTheStepReachesLastStep) {
  HookTestHarness harness;
  harness.Start({StopAtStepHook::AtLastStep(5)});
  EXPECT_EQ(harness.RunUntilStop(), 5);
  EXPECT_EQ(harness.GlobalStep(), 5);
}

// num_steps counts from the step the first session starts at (here a "restored" 10).
TEST(StopAtStepHookTest, NumStepsCountsFromTheFirstSessionsStep) {
  HookTestHarness harness;
  auto hook = StopAtStepHook::ForNumSteps(3);
  EXPECT_FALSE(hook->last_step().has_value());
  harness.Start({hook}, /*initial_step=*/10);
  EXPECT_EQ(hook->last_step(), 13);
  EXPECT_EQ(harness.RunUntilStop(), 3);
  EXPECT_EQ(harness.GlobalStep(), 13);
}

// A recovery calls AfterCreateSession again; the target computed from num_steps stays.
TEST(StopAtStepHookTest, NumStepsIsConvertedOnlyOnce) {
  HookTestHarness harness;
  auto hook = StopAtStepHook::ForNumSteps(4);
  harness.Start({hook});
  harness.Step();
  harness.Step();
  harness.Recreate(/*initial_step=*/2);  // As if restored from a checkpoint at step 2.
  EXPECT_EQ(hook->last_step(), 4);
  EXPECT_EQ(harness.RunUntilStop(), 2);
  EXPECT_EQ(harness.GlobalStep(), 4);
}

// A session that starts at or past last_step stops after its first run.
TEST(StopAtStepHookTest, StopsAfterOneRunWhenAlreadyPastLastStep) {
  HookTestHarness harness;
  harness.Start({StopAtStepHook::AtLastStep(5)}, /*initial_step=*/7);
  EXPECT_EQ(harness.RunUntilStop(), 1);
}

// The raw read happens only when the stale step plus one reaches the target: runs far from
// it cost nothing extra.
TEST(StopAtStepHookTest, ReadsTheStepOnlyWhenTheEstimateReachesLastStep) {
  HookTestHarness harness;
  CountingSession* below_hooks = nullptr;  // Counts hooked runs and the hook's raw reads.
  harness.Start({StopAtStepHook::AtLastStep(3)}, 0, [&](std::unique_ptr<SessionInterface> s) {
    auto counting = std::make_unique<CountingSession>(std::move(s));
    below_hooks = counting.get();
    return counting;
  });
  harness.Step();  // Stale 0: estimate 1.
  harness.Step();  // Stale 1: estimate 2.
  EXPECT_EQ(below_hooks->runs(), 2);
  harness.Step();  // Stale 2: estimate 3 reaches the target; a raw read confirms 3.
  EXPECT_EQ(below_hooks->runs(), 4);
  EXPECT_TRUE(harness.hooked().ShouldStop());
}

// The estimate is not trusted: a run that did not increment the step (no train op) looks
// like it reached the target, but the raw read shows it did not, so there is no stop.
TEST(StopAtStepHookTest, ConfirmsTheEstimateBeforeStopping) {
  HookTestHarness harness;
  harness.Start({StopAtStepHook::AtLastStep(3)}, /*initial_step=*/2);
  harness.hooked().Run(harness.step().value());  // Stale 2, estimate 3; the step stays 2.
  EXPECT_FALSE(harness.hooked().ShouldStop());
  harness.Step();  // Now the step really becomes 3.
  EXPECT_TRUE(harness.hooked().ShouldStop());
}

}  // namespace
}  // namespace mts
