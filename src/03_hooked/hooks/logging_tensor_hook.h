// logging_tensor_hook.h: logs the values of chosen tensors every N local steps, every N
// seconds, and/or once at the end.
//
// Stage 03, a hook: on the runs its timer picks (the first always; it counts the hook's own
// iterations, not the global step) it adds the tensors to the run's fetches and logs at
// INFO `loss = 0.25, step = 100 (1.234 sec)`, or the line a formatter makes. With at_end,
// End() fetches them with a raw run and logs them once more.
//
// Lifecycle: Begin; BeforeRun / AfterRun per step; End. One thread calls a hook.
//
// TensorFlow: tf.train.LoggingTensorHook (basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_LOGGING_TENSOR_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_LOGGING_TENSOR_HOOK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/03_hooked/hooks/second_or_step_timer.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/platform/clock.h"

namespace mts {

/// When a LoggingTensorHook logs and how: TensorFlow's keyword arguments after `tensors`,
/// with its defaults, and the clock. Valid settings: at_end alone, or exactly one of
/// every_n_iter and every_n_secs (with or without at_end).
struct LoggingTensorHookOptions {
  /// Log every this many of the hook's own iterations (runs), starting with the first.
  std::optional<int64_t> every_n_iter;
  /// Or every this many seconds.
  std::optional<double> every_n_secs;
  /// Also log the values once more at End, with a run of their own.
  bool at_end = false;
  /// Makes the whole log line from the values, keyed by tag; empty: "tag = value, ..."
  /// followed by the seconds since the previous line.
  std::function<std::string(const std::map<std::string, Tensor>&)> formatter;
  /// Where seconds are measured; null: RealClock().
  Clock* clock = nullptr;
};

/// Logs tensor values every N iterations or seconds, and optionally at the end.
class LoggingTensorHook : public SessionRunHook {
 public:
  /// Makes the whole log line from the values, keyed by tag.
  using Formatter = std::function<std::string(const std::map<std::string, Tensor>&)>;

  /// TensorFlow's `LoggingTensorHook(tensors, every_n_iter=None, every_n_secs=None,
  /// at_end=False, formatter=None)` with a dict: logs `tensors`, tag → tensor, in sorted tag
  /// order (a std::map's order, as TensorFlow sorts a dict's keys), when `options` say.
  /// \throws ValueError "either at_end and/or exactly one of every_n_iter and every_n_secs
  ///   must be provided." for any other setting (the default options among them);
  ///   ValueError("invalid every_n_iter=<n>.") if `every_n_iter <= 0`.
  LoggingTensorHook(const std::map<std::string, Output>& tensors,
                    LoggingTensorHookOptions options);

  /// Logs `tensors` in the order given, each tagged with its name ("loss:0"), as TensorFlow
  /// does for a list. Otherwise as above.
  LoggingTensorHook(const std::vector<Output>& tensors, LoggingTensorHookOptions options);

  /// Resets the iteration count and the timer, so the next run logs.
  void Begin() override;
  /// Fetches the tensors if the timer triggers at this iteration.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Logs the fetched values (if fetched) and counts the iteration.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;
  /// With at_end: fetches the tensors with a run of `session` and logs them.
  void End(SessionInterface& session) override;

 private:
  // Logs one line for `values` (in tensors_ order) and records the trigger.
  void LogTensors(const std::vector<Tensor>& values);

  std::vector<std::pair<std::string, Output>> tensors_;  // In the order of the log line.
  std::optional<SecondOrStepTimer> timer_;  // None with at_end alone: never triggers.
  bool at_end_;
  Formatter formatter_;
  int64_t iter_count_ = 0;
  bool should_trigger_ = false;  // Whether this run fetches the tensors.
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_LOGGING_TENSOR_HOOK_H_
