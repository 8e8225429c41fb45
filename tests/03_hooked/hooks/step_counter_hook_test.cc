// Tests of step_counter_hook.h: the rate by steps and by seconds on a FakeClock, written as
// "global_step/sec" into the event file (read back) and logged; the two-stage check; the
// warning when the step does not move.
#include "src/03_hooked/hooks/step_counter_hook.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr int64_t kMillisecond = 1000;

class StepCounterHookTest : public ::testing::Test {
 protected:
  StepCounterHookTest() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = JoinPath(::testing::TempDir(), std::string("steps_") + info->name());
  }
  ~StepCounterHookTest() override { SummaryWriterCache::Clear(); }

  // Runs `n` training steps, each taking `millis` of fake time (it passes before the run).
  void Steps(int n, int64_t millis) {
    for (int i = 0; i < n; ++i) {
      clock_.Advance(millis * kMillisecond);
      harness_.Step();
    }
  }

  // The scalar summaries in dir_'s event file, after flushing its writer.
  std::vector<ScalarValue> Scalars() {
    SummaryWriterCache::Get(dir_)->Flush();
    return ScalarSummaries(ReadEventDirectory(dir_));
  }

  HookTestHarness harness_;
  FakeClock clock_;
  std::string dir_;
};

// Exactly one of every_n_steps and every_n_secs, in this hook's own words.
TEST_F(StepCounterHookTest, NeedsExactlyOneFrequency) {
  for (auto [steps, secs] : {std::pair<std::optional<int64_t>, std::optional<double>>{10, 1.0},
                             {std::nullopt, std::nullopt}}) {
    StepCounterHookOptions options;
    options.every_n_steps = steps;
    options.every_n_secs = secs;
    EXPECT_THAT([&] { StepCounterHook{options}; },
                ThrowsMessage<ValueError>(
                    StrEq("exactly one of every_n_steps and every_n_secs should be provided.")));
  }
  EXPECT_NO_THROW(StepCounterHook());  // Every 100 steps by default.
}

// Without a global step, Begin refuses, naming the hook.
TEST(StepCounterHookBeginTest, NeedsAGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  StepCounterHook hook;
  EXPECT_THAT(
      [&] { hook.Begin(); },
      ThrowsMessage<RuntimeError>(StrEq("Global step should be created to use StepCounterHook.")));
}

// every_n_steps=10 with 100 ms per step: the first run (ending at step 1) starts the
// measurement; the run ending at step 11, 1 s later, records 10 steps / 1 s; then 50 ms per
// step makes step 21 record 20.
TEST_F(StepCounterHookTest, RecordsTheRateEveryNSteps) {
  StepCounterHookOptions options;
  options.every_n_steps = 10;
  options.output_dir = dir_;
  options.clock = &clock_;
  auto hook = std::make_shared<StepCounterHook>(options);
  harness_.Start({hook});
  EXPECT_EQ(hook->summary_tag(), "global_step/sec");
  ScopedLogCapture capture;
  Steps(11, 100);
  Steps(10, 50);  // Twice as fast: 20 steps/sec.
  const std::vector<ScalarValue> scalars = Scalars();
  ASSERT_EQ(scalars.size(), 2u);
  EXPECT_EQ(scalars[0].tag, "global_step/sec");
  EXPECT_EQ(scalars[0].step, 11);
  EXPECT_FLOAT_EQ(scalars[0].simple_value, 10.0f);
  EXPECT_EQ(scalars[1].step, 21);
  EXPECT_FLOAT_EQ(scalars[1].simple_value, 20.0f);
  EXPECT_THAT(LoggedMessages(capture), ElementsAre("global_step/sec: 10", "global_step/sec: 20"));
}

// every_n_secs=2 with 500 ms per step: armed by the first run (step 1), the run 2 s later
// (step 5) records 4 steps / 2 s.
TEST_F(StepCounterHookTest, RecordsTheRateEveryNSeconds) {
  StepCounterHookOptions options;
  options.every_n_steps = std::nullopt;
  options.every_n_secs = 2.0;
  options.output_dir = dir_;
  options.clock = &clock_;
  auto hook = std::make_shared<StepCounterHook>(options);
  harness_.Start({hook});
  Steps(5, 500);
  const std::vector<ScalarValue> scalars = Scalars();
  ASSERT_EQ(scalars.size(), 1u);
  EXPECT_EQ(scalars[0].step, 5);
  EXPECT_FLOAT_EQ(scalars[0].simple_value, 2.0f);
}

// A writer given to the hook is used instead of output_dir's; a rate with a fraction is
// logged as %g prints it.
TEST_F(StepCounterHookTest, WritesToTheGivenWriter) {
  auto writer = std::make_shared<FileWriter>(JoinPath(dir_, "given"));
  StepCounterHookOptions options;
  options.every_n_steps = 3;
  options.summary_writer = writer;
  options.clock = &clock_;
  auto hook = std::make_shared<StepCounterHook>(options);
  harness_.Start({hook});
  ScopedLogCapture capture;
  Steps(4, 400);  // 3 steps in 1.2 s.
  writer->Flush();
  const std::vector<ScalarValue> scalars =
      ScalarSummaries(ReadEventDirectory(JoinPath(dir_, "given")));
  ASSERT_EQ(scalars.size(), 1u);
  EXPECT_FLOAT_EQ(scalars[0].simple_value, 2.5f);
  EXPECT_THAT(LoggedMessages(capture), ElementsAre("global_step/sec: 2.5"));
}

// Without a writer or output_dir the rate is only logged.
TEST_F(StepCounterHookTest, WithoutAWriterOnlyLogs) {
  StepCounterHookOptions options;
  options.every_n_steps = 2;
  options.clock = &clock_;
  auto hook = std::make_shared<StepCounterHook>(options);
  harness_.Start({hook});
  ScopedLogCapture capture;
  Steps(3, 250);
  EXPECT_THAT(LoggedMessages(capture), ElementsAre("global_step/sec: 4"));
  EXPECT_FALSE(DefaultFileSystem()->Exists(dir_));
}

// The rate is measured at the real step: runs that did not train make the stale guess say
// "due", but the real step is not, so nothing is recorded until training reaches it.
TEST_F(StepCounterHookTest, MeasuresAtTheRealStep) {
  StepCounterHookOptions options;
  options.every_n_steps = 2;
  options.output_dir = dir_;
  options.clock = &clock_;
  auto hook = std::make_shared<StepCounterHook>(options);
  harness_.Start({hook});
  Steps(2, 1000);                                  // Armed at step 1, t=1 s; step 2, t=2 s.
  harness_.hooked().Run(harness_.step().value());  // Stale 2: "3 is due"; real step is 2.
  EXPECT_TRUE(Scalars().empty());
  Steps(1, 0);                                     // Step 3 at t=2 s: 2 steps in 1 s.
  const std::vector<ScalarValue> scalars = Scalars();
  ASSERT_EQ(scalars.size(), 1u);
  EXPECT_EQ(scalars[0].step, 3);
  EXPECT_FLOAT_EQ(scalars[0].simple_value, 2.0f);
}

// Runs that leave the step where it was warn, at most five times.
TEST_F(StepCounterHookTest, WarnsWhenTheStepDoesNotIncrease) {
  StepCounterHookOptions options;
  options.every_n_steps = 100;
  options.clock = &clock_;
  auto hook = std::make_shared<StepCounterHook>(options);
  harness_.Start({hook});
  ScopedLogCapture capture;
  for (int i = 0; i < 8; ++i) harness_.hooked().Run(harness_.step().value());
  const std::vector<std::string> messages = LoggedMessages(capture);
  EXPECT_EQ(messages.size(), 5u);
  EXPECT_THAT(messages.front(), HasSubstr("It seems that global step (tf.train.get_global_step) has not been increased. Current value (could be stable): 0 vs previous value: 0."));
  harness_.Step();
  EXPECT_EQ(LoggedMessages(capture).size(), 5u);
}

}  // namespace
}  // namespace mts
