// Tests of logging_tensor_hook.h: the valid settings, logging by iteration and by time on a
// FakeClock, TensorFlow's line format, the formatter, and the at_end line.
#include "src/03_hooked/hooks/logging_tensor_hook.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/training_util.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr int64_t kMillisecond = 1000;

// A harness whose program also has a constant to log beside the (stale) global step.
class LoggingTensorHookTest : public ::testing::Test {
 protected:
  LoggingTensorHookTest()
      : read_(*GetOrCreateGlobalStepRead()), c_(Constant(1.5f, "c")) {}

  // Runs `n` steps, advancing the clock by `millis_per_step` after each.
  void Steps(int n, int64_t millis_per_step = 0) {
    for (int i = 0; i < n; ++i) {
      harness_.Step();
      clock_.Advance(millis_per_step * kMillisecond);
    }
  }

  HookTestHarness harness_;
  FakeClock clock_;
  Output read_;  // The step before each run's increment.
  Output c_;
  ScopedLogCapture capture_;
};

// Only at_end alone, or exactly one frequency, is accepted; the messages are TensorFlow's.
TEST_F(LoggingTensorHookTest, RefusesInvalidSettings) {
  const std::string kEither =
      "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.";
  struct Case {
    std::optional<int64_t> every_n_iter;
    std::optional<double> every_n_secs;
    bool at_end;
    std::string error;
  };
  const Case cases[] = {
      {std::nullopt, std::nullopt, false, kEither},
      {3, 1.0, false, kEither},
      {3, 1.0, true, kEither},
      {0, std::nullopt, false, "invalid every_n_iter=0."},
      {-2, std::nullopt, true, "invalid every_n_iter=-2."},
  };
  for (const Case& c : cases) {
    LoggingTensorHookOptions options;
    options.every_n_iter = c.every_n_iter;
    options.every_n_secs = c.every_n_secs;
    options.at_end = c.at_end;
    EXPECT_THAT([&] { LoggingTensorHook({c_}, options); },
                ThrowsMessage<ValueError>(StrEq(c.error)));
  }
  LoggingTensorHookOptions at_end_alone;
  at_end_alone.at_end = true;
  EXPECT_NO_THROW(LoggingTensorHook({c_}, at_end_alone));
}

// every_n_iter: the first iteration logs, then every n-th; each later line has the seconds
// since the previous one. Tags come in sorted order.
TEST_F(LoggingTensorHookTest, LogsEveryNIterationsWithElapsedTime) {
  LoggingTensorHookOptions options;
  options.every_n_iter = 2;
  options.clock = &clock_;
  harness_.Start({std::make_shared<LoggingTensorHook>(
      std::map<std::string, Output>{{"step", read_}, {"c", c_}}, options)});
  Steps(5, /*millis_per_step=*/250);
  EXPECT_THAT(LoggedMessages(capture_),
              ElementsAre("c = 1.5, step = 0", "c = 1.5, step = 2 (0.500 sec)",
                          "c = 1.5, step = 4 (0.500 sec)"));
}

// every_n_secs: a line once the interval has passed on the clock since the last one.
TEST_F(LoggingTensorHookTest, LogsEveryNSecondsOfTheClock) {
  LoggingTensorHookOptions options;
  options.every_n_secs = 1.0;
  options.clock = &clock_;
  harness_.Start({std::make_shared<LoggingTensorHook>(
      std::map<std::string, Output>{{"step", read_}}, options)});
  Steps(7, /*millis_per_step=*/400);  // Runs at t = 0, 0.4, ..., 2.4 s.
  EXPECT_THAT(LoggedMessages(capture_),
              ElementsAre("step = 0", "step = 3 (1.200 sec)", "step = 6 (1.200 sec)"));
}

// The hook counts its own iterations, not the global step: a session restored at step 100
// logs at its first run and every n-th after, whatever the step's value.
TEST_F(LoggingTensorHookTest, CountsLocalIterationsNotTheGlobalStep) {
  LoggingTensorHookOptions options;
  options.every_n_iter = 3;
  options.clock = &clock_;
  harness_.Start({std::make_shared<LoggingTensorHook>(
                     std::map<std::string, Output>{{"step", read_}}, options)},
                 /*initial_step=*/100);
  Steps(4);
  EXPECT_THAT(LoggedMessages(capture_), ElementsAre("step = 100", "step = 103 (0.000 sec)"));
}

// Given a list, the hook keeps its order and tags each tensor with its name.
TEST_F(LoggingTensorHookTest, ListOfTensorsIsTaggedByNameInOrder) {
  LoggingTensorHookOptions options;
  options.every_n_iter = 10;
  harness_.Start({std::make_shared<LoggingTensorHook>(std::vector<Output>{read_, c_}, options)});
  Steps(1);
  EXPECT_THAT(LoggedMessages(capture_), ElementsAre("global_step/hook_read:0 = 0, c:0 = 1.5"));
}

// A formatter replaces the whole line, elapsed time included; it gets the values by tag.
TEST_F(LoggingTensorHookTest, FormatterMakesTheWholeLine) {
  auto format = [](const std::map<std::string, Tensor>& values) {
    return "at step " + values.at("step").ToString() + " c is " + values.at("c").ToString();
  };
  LoggingTensorHookOptions options;
  options.every_n_iter = 1;
  options.formatter = format;
  options.clock = &clock_;
  harness_.Start({std::make_shared<LoggingTensorHook>(
      std::map<std::string, Output>{{"step", read_}, {"c", c_}}, options)});
  Steps(2, /*millis_per_step=*/100);
  EXPECT_THAT(LoggedMessages(capture_), ElementsAre("at step 0 c is 1.5", "at step 1 c is 1.5"));
}

// at_end alone: nothing while training, one line at End with a fresh read, no elapsed part.
TEST_F(LoggingTensorHookTest, AtEndAloneLogsOnlyAtEnd) {
  LoggingTensorHookOptions options;
  options.at_end = true;
  options.clock = &clock_;
  harness_.Start({std::make_shared<LoggingTensorHook>(
      std::map<std::string, Output>{{"step", read_}}, options)});
  Steps(3, /*millis_per_step=*/500);
  EXPECT_THAT(LoggedMessages(capture_), IsEmpty());
  harness_.End();
  EXPECT_THAT(LoggedMessages(capture_), ElementsAre("step = 3"));
}

// at_end with a frequency: the End line counts as a trigger, so it has the elapsed time too.
TEST_F(LoggingTensorHookTest, AtEndWithAFrequencyAddsAFinalLine) {
  LoggingTensorHookOptions options;
  options.every_n_iter = 10;
  options.at_end = true;
  options.clock = &clock_;
  harness_.Start({std::make_shared<LoggingTensorHook>(
      std::map<std::string, Output>{{"step", read_}}, options)});
  Steps(2, /*millis_per_step=*/500);
  harness_.End();
  EXPECT_THAT(LoggedMessages(capture_), ElementsAre("step = 0", "step = 2 (1.000 sec)"));
}

// Begin starts the count again: a hook reused in a new MonitoredSession logs at once.
TEST_F(LoggingTensorHookTest, BeginRestartsTheCount) {
  LoggingTensorHookOptions options;
  options.every_n_iter = 5;
  options.clock = &clock_;
  auto hook = std::make_shared<LoggingTensorHook>(std::map<std::string, Output>{{"step", read_}},
                                                  options);
  harness_.Start({hook});
  Steps(2);
  hook->Begin();
  Steps(1);
  EXPECT_THAT(LoggedMessages(capture_), ElementsAre("step = 0", "step = 2"));
}

}  // namespace
}  // namespace mts
