// step_counter_hook.h: measures training speed, global steps per second, and records it as
// the summary "global_step/sec" and a log line.
//
// Stage 03, a hook: when its SecondOrStepTimer triggers (asked at the real step when
// stale + 1 is due) it divides the steps by the seconds since the previous trigger; the
// first trigger only starts the measurement. Each rate goes to the event file as
// "<global step op name>/sec" (the writer given, else SummaryWriterCache's for output_dir)
// and to the log as "global_step/sec: <rate>". A step that does not move is warned about.
//
// Lifecycle: Begin; BeforeRun / AfterRun per step. One thread calls a hook.
//
// TensorFlow: tf.train.StepCounterHook (tensorflow/python/training/basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_STEP_COUNTER_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_STEP_COUNTER_HOOK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "src/03_hooked/events/file_writer.h"
#include "src/03_hooked/hooks/second_or_step_timer.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/platform/clock.h"

namespace mts {

/// How often a StepCounterHook measures and where it writes: TensorFlow's keyword
/// arguments, with its defaults, and the clock. Exactly one of every_n_steps and
/// every_n_secs must be set: to count by seconds, reset every_n_steps.
struct StepCounterHookOptions {
  /// Measure every this many global steps.
  std::optional<int64_t> every_n_steps = 100;
  /// Or every this many seconds.
  std::optional<double> every_n_secs;
  /// Write the rate to the SummaryWriterCache writer of this directory, unless
  /// summary_writer is given; empty with no writer: the rate is only logged.
  std::string output_dir;
  /// The writer to use; null: output_dir's.
  std::shared_ptr<FileWriter> summary_writer;
  /// Where seconds are measured; null: RealClock().
  Clock* clock = nullptr;
};

/// Records global steps per second every N steps or seconds.
class StepCounterHook : public SessionRunHook {
 public:
  /// The most "global step did not increase" warnings one hook logs.
  static constexpr int kMaxNotIncreasingWarnings = 5;

  /// TensorFlow's `StepCounterHook(every_n_steps=100, every_n_secs=None, output_dir=None,
  /// summary_writer=None)`: the keyword arguments are the fields of `options`;
  /// `StepCounterHook()` logs the rate every 100 steps.
  /// \throws ValueError "exactly one of every_n_steps and every_n_secs should be provided."
  explicit StepCounterHook(StepCounterHookOptions options = {});

  /// Gets output_dir's writer if none was given; finds (or makes) the global step's read
  /// tensor; names the tag after the global step.
  /// \throws RuntimeError "Global step should be created to use StepCounterHook." if the
  ///   graph has no global step; OpError if the writer cannot create output_dir.
  void Begin() override;
  /// Fetches the global step's read tensor.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// On a trigger at the real step, records the rate since the previous trigger; warns if
  /// the step did not move since the previous run.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// The summary tag, "<global step op name>/sec"; empty before Begin.
  const std::string& summary_tag() const { return summary_tag_; }

 private:
  // Writes and logs `elapsed_steps / elapsed_secs` at `step`.
  void LogAndRecord(int64_t elapsed_steps, double elapsed_secs, int64_t step);

  SecondOrStepTimer timer_;
  std::string output_dir_;
  std::shared_ptr<FileWriter> summary_writer_;
  Output global_step_read_;
  std::string summary_tag_;
  std::optional<int64_t> last_stale_step_;  // The previous run's fetched step.
  int not_increasing_warnings_ = 0;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_STEP_COUNTER_HOOK_H_
