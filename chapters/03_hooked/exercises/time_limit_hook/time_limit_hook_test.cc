// time_limit_hook_test.cc: decides whether the time_limit_hook exercise of chapter 03 is done.
//
// Time is a FakeClock: it moves only when a test advances it, by exactly as much as the test
// says, so "a step takes one second" is a line of code, not a sleep.
#include "chapters/03_hooked/exercises/time_limit_hook/time_limit_hook.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/03_hooked/hooked_session.h"
#include "src/platform/errors.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

constexpr int64_t kSecond = 1000000;

// A training program (a global step and its increment) run through a HookedSession with one
// TimeLimitHook on a FakeClock. Each Step() takes `step_micros` of fake time.
class TimeLimitTest : public ::testing::Test {
 protected:
  TimeLimitTest()
      : as_default_(graph_),
        step_(GetOrCreateGlobalStep()),
        train_op_(IncrementGlobalStep().op()),
        init_(GlobalVariablesInitializer()) {}

  // Begin (the stopwatch starts now), then a session, as MonitoredSession orders them.
  void Start(double limit_secs) {
    hook_ = std::make_shared<TimeLimitHook>(limit_secs, &clock_);
    hook_->Begin();
    auto raw = std::make_unique<Session>(&graph_);
    raw->Run(init_);
    hook_->AfterCreateSession(*raw, nullptr);
    session_ = std::make_unique<HookedSession>(std::move(raw),
                                               std::vector<std::shared_ptr<SessionRunHook>>{hook_});
  }

  // One training step that takes `micros` of time.
  void Step(int64_t micros) {
    clock_.Advance(micros);
    session_->Run(train_op_);
  }

  // Steps of `micros` each until the session should stop (at most 1000); returns how many.
  int StepsUntilStop(int64_t micros) {
    int steps = 0;
    while (!session_->ShouldStop() && steps < 1000) {
      Step(micros);
      ++steps;
    }
    return steps;
  }

  FakeClock clock_;
  Graph graph_;
  DefaultGraphScope as_default_;
  Variable step_;
  Operation* train_op_;
  Operation* init_;
  std::shared_ptr<TimeLimitHook> hook_;
  std::unique_ptr<HookedSession> session_;
};

// The hook stops before the step that would overrun: steps of 1 s end at 1, 2, 3 s, and a
// fourth would end at 4 s, past 3.5 s. The budget is never overrun by a step no slower
// than the ones before it.
TEST_F(TimeLimitTest, StopsBeforeAStepThatWouldOverrun) {
  Start(3.5);
  EXPECT_EQ(StepsUntilStop(1 * kSecond), 3);
  EXPECT_TRUE(session_->ShouldStop());
}

// A step that would end exactly at the limit still fits; then the budget is spent.
TEST_F(TimeLimitTest, AStepEndingExactlyAtTheLimitFits) {
  Start(3.0);
  EXPECT_EQ(StepsUntilStop(1 * kSecond), 3);
}

// The prediction is the longest step so far: after one slow step the hook keeps room for
// another. Steps end at 1, 2, 6 s (the slow one: 4 s); 6 + 4 fits in 10, but after the next
// step, at 7 s, it no longer does.
TEST_F(TimeLimitTest, PredictsWithTheLongestStep) {
  Start(10.0);
  Step(1 * kSecond);
  Step(1 * kSecond);
  Step(4 * kSecond);
  EXPECT_FALSE(session_->ShouldStop());
  EXPECT_EQ(hook_->longest_step_micros(), 4 * kSecond);
  Step(1 * kSecond);
  EXPECT_TRUE(session_->ShouldStop());
}

// Before the limit, nothing happens, however many steps run.
TEST_F(TimeLimitTest, DoesNotStopBeforeTheLimit) {
  Start(10.0);
  for (int i = 0; i < 99; ++i) Step(100000);  // 9.9 s in all.
  EXPECT_FALSE(session_->ShouldStop());
  Step(100000);  // 10.0 s.
  EXPECT_TRUE(session_->ShouldStop());
}

// The stopwatch starts at Begin: time that passed before it does not count.
TEST_F(TimeLimitTest, TimeBeforeBeginDoesNotCount) {
  clock_.Advance(1000 * kSecond);
  Start(2.0);
  ASSERT_TRUE(hook_->start_micros().has_value()) << "Begin did not start the stopwatch";
  EXPECT_EQ(*hook_->start_micros(), 1000 * kSecond);
  EXPECT_EQ(StepsUntilStop(1 * kSecond), 2);
}

// Time spent creating the session counts: the budget is for the whole job.
TEST_F(TimeLimitTest, SessionCreationCountsAgainstTheBudget) {
  hook_ = std::make_shared<TimeLimitHook>(5.0, &clock_);
  hook_->Begin();
  clock_.Advance(4 * kSecond);  // A slow restore.
  auto raw = std::make_unique<Session>(&graph_);
  raw->Run(init_);
  hook_->AfterCreateSession(*raw, nullptr);
  session_ = std::make_unique<HookedSession>(std::move(raw),
                                             std::vector<std::shared_ptr<SessionRunHook>>{hook_});
  EXPECT_EQ(StepsUntilStop(1 * kSecond), 1);
}

// A slow restore counts against the budget but is not a step: the first step is timed
// from AfterCreateSession. Limit 10 s, 4 s to create the session, then steps of 1 s: the
// last one ends at 10 s. Timed from Begin, the first "step" would be 5 s long, and the hook
// would stop after two.
TEST_F(TimeLimitTest, SessionCreationIsNotAStep) {
  hook_ = std::make_shared<TimeLimitHook>(10.0, &clock_);
  hook_->Begin();
  clock_.Advance(4 * kSecond);
  auto raw = std::make_unique<Session>(&graph_);
  raw->Run(init_);
  hook_->AfterCreateSession(*raw, nullptr);
  session_ = std::make_unique<HookedSession>(std::move(raw),
                                             std::vector<std::shared_ptr<SessionRunHook>>{hook_});
  EXPECT_EQ(StepsUntilStop(1 * kSecond), 6);
  EXPECT_EQ(hook_->longest_step_micros(), 1 * kSecond);
}

// A recovery calls AfterCreateSession again: the budget goes on, and the recovery's time is
// not a step. Limit 10 s: three steps of 1 s, a recovery of 4 s (7 s used), then steps of
// 1 s until 10 s: three more.
TEST_F(TimeLimitTest, ARecoveryNeitherRestartsTheBudgetNorCountsAsAStep) {
  Start(10.0);
  for (int i = 0; i < 3; ++i) Step(1 * kSecond);
  EXPECT_FALSE(session_->ShouldStop());
  // What a recovery does: time passes, a new raw session, AfterCreateSession, a new
  // HookedSession.
  clock_.Advance(4 * kSecond);
  auto raw = std::make_unique<Session>(&graph_);
  raw->Run(init_);
  hook_->AfterCreateSession(*raw, nullptr);
  session_ = std::make_unique<HookedSession>(std::move(raw),
                                             std::vector<std::shared_ptr<SessionRunHook>>{hook_});
  EXPECT_EQ(StepsUntilStop(1 * kSecond), 3);
  EXPECT_EQ(hook_->longest_step_micros(), 1 * kSecond);
}

// The hook adds nothing to the runs it watches: no fetches, targets or feeds.
TEST_F(TimeLimitTest, AddsNothingToTheRun) {
  Start(1.0);
  const SessionRunArgs original;
  SessionRunContext context(original, *session_->inner());
  const SessionRunArgs args = hook_->BeforeRun(context);
  EXPECT_TRUE(args.fetches.empty());
  EXPECT_TRUE(args.targets.empty());
  EXPECT_TRUE(args.feeds.empty());
}

// Fractions of a second are kept (to the microsecond).
TEST_F(TimeLimitTest, KeepsFractionsOfASecond) {
  Start(0.25);
  EXPECT_EQ(StepsUntilStop(100000), 2);  // 0.1, 0.2 s; a third would end at 0.3 s.
}

// A budget must be positive.
TEST(TimeLimitHookTest, RefusesANonPositiveLimit) {
  FakeClock clock;
  EXPECT_THROW(TimeLimitHook(0.0, &clock), ValueError);
  EXPECT_THROW(TimeLimitHook(-1.0, &clock), ValueError);
}

}  // namespace
}  // namespace mts
