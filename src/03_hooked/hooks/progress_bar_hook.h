// progress_bar_hook.h: shows how far training has come, how fast it goes and when it will
// end: a live bar on a terminal, plain periodic lines elsewhere.
//
// Stage 03, a hook. On a terminal it redraws one line at most every kTerminalRefreshSecs,
//   [#############.................] 450/1000  45%  12.3 steps/s  ETA 0:00:44
// elsewhere it writes a plain line every kPlainEverySecs; End() writes a last line. Progress
// is the global step over last_step (or num_steps past the first session's step), the rate
// steps over time since the session was created, on the hook's Clock.
//
// Lifecycle: Begin; AfterCreateSession; BeforeRun / AfterRun per step; End. One thread calls
// a hook, and nothing else writes to the stream meanwhile.
//
// TensorFlow: none; its closest relatives are LoggingTensorHook and StepCounterHook.
#ifndef MTS_SRC_03_HOOKED_HOOKS_PROGRESS_BAR_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_PROGRESS_BAR_HOOK_H_

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include "src/03_hooked/hooks/second_or_step_timer.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/platform/clock.h"

namespace mts {

/// What a ProgressBarHook counts towards and where it draws. Exactly one of num_steps and
/// last_step must be set, as for StopAtStepHook.
struct ProgressBarHookOptions {
  /// Count towards this many steps more than the first session's step.
  std::optional<int64_t> num_steps;
  /// Or towards this global step.
  std::optional<int64_t> last_step;
  /// Where to draw; null: std::cerr.
  std::ostream* out = &std::cerr;
  /// Where time comes from; null: RealClock().
  Clock* clock = nullptr;
  /// Whether `out` is a terminal; unset: detected (`std::cerr`/`std::clog` or `std::cout` on a
  /// tty are, any other stream is not).
  std::optional<bool> is_terminal;
};

/// Draws training progress (step, steps/sec, ETA) to a stream.
class ProgressBarHook : public SessionRunHook {
 public:
  /// How often a terminal bar is redrawn, at most.
  static constexpr double kTerminalRefreshSecs = 0.1;
  /// How often a plain line is written when the output is not a terminal.
  static constexpr double kPlainEverySecs = 10.0;

  /// Reports progress towards `options.last_step`, or towards `options.num_steps` more than
  /// the first session's step, on `options.out`.
  /// \throws ValueError as StopAtStepHook's constructor does, with the same messages, unless
  ///   exactly one of num_steps and last_step is set.
  explicit ProgressBarHook(ProgressBarHookOptions options);

  /// Finds (or makes) the global step's read tensor.
  /// \throws RuntimeError "Global step should be created to use ProgressBarHook." if the
  ///   graph has no global step.
  void Begin() override;
  /// Fixes last_step (the first time, from num_steps) and starts measuring the rate.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Fetches the global step's read tensor.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Draws the bar or a line if it is time to.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;
  /// Writes the last line, with the step read from `session` and the total time.
  void End(SessionInterface& session) override;

  /// Whether the output is treated as a terminal.
  bool is_terminal() const { return is_terminal_; }

 private:
  // Writes the progress at `step`; `done` makes it the closing line.
  void Draw(int64_t step, bool done);

  std::optional<int64_t> num_steps_;
  std::optional<int64_t> last_step_;
  std::ostream& out_;
  Clock* clock_;
  bool is_terminal_;
  SecondOrStepTimer timer_;
  Output global_step_read_;
  int64_t start_step_ = 0;     // The step when the current session was created.
  double start_secs_ = 0;      // And the time, on clock_.
  size_t last_line_size_ = 0;  // Of the bar last drawn, to blank what a shorter one leaves.
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_PROGRESS_BAR_HOOK_H_
