// Tests of progress_bar_hook.h: a bar redrawn in place on a terminal, plain lines elsewhere,
// the rate and ETA on a FakeClock, and the closing line.
#include "src/03_hooked/hooks/progress_bar_hook.h"

#include <algorithm>
#include <sstream>

#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

constexpr int64_t kMillisecond = 1000;

class ProgressBarHookTest : public ::testing::Test {
 protected:
  // Runs `n` steps, advancing the clock by `millis_per_step` after each.
  void Steps(int n, int64_t millis_per_step) {
    for (int i = 0; i < n; ++i) {
      harness_.Step();
      clock_.Advance(millis_per_step * kMillisecond);
    }
  }

  HookTestHarness harness_;
  FakeClock clock_;
  std::ostringstream out_;
};

// On a terminal each draw starts with '\r' and overwrites the line; the rate and ETA appear
// once time has passed; End ends the line with a newline.
TEST_F(ProgressBarHookTest, TerminalRedrawsOneLineInPlace) {
  ProgressBarHookOptions options;
  options.last_step = 10;
  options.out = &out_;
  options.clock = &clock_;
  options.is_terminal = true;
  harness_.Start({std::make_shared<ProgressBarHook>(options)});
  Steps(3, /*millis_per_step=*/500);  // Draws after steps 1, 2 and 3, at t = 0, 0.5, 1.0 s.
  harness_.End();                     // At t = 1.5 s.
  EXPECT_EQ(out_.str(),
            "\r[###...........................] 1/10  10%  -- steps/s  ETA --"
            "\r[######........................] 2/10  20%  4.00 steps/s  ETA 0:00:02"
            "\r[#########.....................] 3/10  30%  3.00 steps/s  ETA 0:00:02"
            "\r[#########.....................] 3/10  30%  2.00 steps/s  done in 0:00:02\n");
}

// A terminal bar is redrawn at most every kTerminalRefreshSecs, however fast the steps.
TEST_F(ProgressBarHookTest, TerminalRedrawsAreThrottled) {
  ProgressBarHookOptions options;
  options.last_step = 1000;
  options.out = &out_;
  options.clock = &clock_;
  options.is_terminal = true;
  harness_.Start({std::make_shared<ProgressBarHook>(options)});
  Steps(50, /*millis_per_step=*/10);  // Runs at t = 0 ... 0.49 s: draws at 0, 0.1, ... 0.4 s.
  const std::string s = out_.str();
  EXPECT_EQ(std::count(s.begin(), s.end(), '\r'), 5);
}

// A shorter bar is padded with spaces, so nothing of the longer one before it shows. (A new
// session restarts the rate, so its first bar has no rate and no ETA.)
TEST_F(ProgressBarHookTest, TerminalBlanksWhatAShorterLineLeaves) {
  ProgressBarHookOptions options;
  options.last_step = 10;
  options.out = &out_;
  options.clock = &clock_;
  options.is_terminal = true;
  harness_.Start({std::make_shared<ProgressBarHook>(options)});
  Steps(2, /*millis_per_step=*/500);
  harness_.Recreate(/*initial_step=*/0);
  Steps(1, 0);
  const std::string s = out_.str();
  EXPECT_EQ(s.substr(s.rfind('\r')),
            "\r[###...........................] 1/10  10%  -- steps/s  ETA --       ");
}

// Not a terminal: a plain line every kPlainEverySecs, no carriage returns, and a last line.
TEST_F(ProgressBarHookTest, NonTerminalWritesPlainPeriodicLines) {
  ProgressBarHookOptions options;
  options.last_step = 100;
  options.out = &out_;
  options.clock = &clock_;
  options.is_terminal = false;
  harness_.Start({std::make_shared<ProgressBarHook>(options)});
  Steps(8, /*millis_per_step=*/4000);  // Lines after steps 1 (t = 0), 4 (t = 12 s), 7 (24 s).
  harness_.End();                      // t = 32 s, step 8.
  EXPECT_EQ(out_.str(),
            "step 1/100 (1%), -- steps/s, ETA --\n"
            "step 4/100 (4%), 0.33 steps/s, ETA 0:04:48\n"
            "step 7/100 (7%), 0.29 steps/s, ETA 0:05:19\n"
            "step 8/100 (8%), 0.25 steps/s, done in 0:00:32\n");
}

// Left to itself, the hook treats any stream but the standard ones as not a terminal.
TEST_F(ProgressBarHookTest, DetectsThatAStringStreamIsNotATerminal) {
  ProgressBarHookOptions options;
  options.last_step = 10;
  options.out = &out_;
  ProgressBarHook hook(options);
  EXPECT_FALSE(hook.is_terminal());
}

// num_steps counts from the first session's step; the rate counts from that step too.
TEST_F(ProgressBarHookTest, NumStepsCountsFromTheFirstSessionsStep) {
  ProgressBarHookOptions options;
  options.num_steps = 10;
  options.out = &out_;
  options.clock = &clock_;
  options.is_terminal = false;
  harness_.Start({std::make_shared<ProgressBarHook>(options)}, /*initial_step=*/5);
  clock_.Advance(2000 * kMillisecond);
  Steps(1, 0);
  EXPECT_EQ(out_.str(), "step 6/15 (40%), 0.50 steps/s, ETA 0:00:18\n");
}

// Exactly one of num_steps and last_step, as for StopAtStepHook.
TEST_F(ProgressBarHookTest, NeedsExactlyOneOfNumStepsAndLastStep) {
  ProgressBarHookOptions neither;
  neither.out = &out_;
  EXPECT_THROW(ProgressBarHook{neither}, ValueError);
  ProgressBarHookOptions both = neither;
  both.num_steps = 1;
  both.last_step = 2;
  EXPECT_THROW(ProgressBarHook{both}, ValueError);
}

}  // namespace
}  // namespace mts
