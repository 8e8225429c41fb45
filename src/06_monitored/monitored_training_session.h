// monitored_training_session.h: the one call that sets up a training loop (TensorFlow's
// tf.train.MonitoredTrainingSession), with TensorFlow's arguments and defaults.
//
//   MonitoredTrainingSession(options)  <-- this file: picks the creator and default hooks
//     MonitoredSession                 and hands them to the stack (monitored_session.h)
//       RecoverableSession ... Chief / Worker ... Session
//
// A chief gets ChiefSessionCreator(scaffold, checkpoint_dir) and the default hooks in
// TensorFlow's order: chief_only_hooks, StepCounterHook, SummarySaverHook,
// CheckpointSaverHook (each only with its directory and frequency), then hooks. A worker
// gets WorkerSessionCreator and only `hooks`. With `stop_on_signals` a SignalStopHook comes
// first for both. One Scaffold is shared by the creator and the hooks. Frequencies follow
// TensorFlow's USE_DEFAULT rule: a pair left unset takes the defaults (checkpoints every
// 600 seconds, summaries every 100 steps), one set turns the other off, both set raise
// ValueError, and a value <= 0 turns that frequency off.
//
// TensorFlow: MonitoredTrainingSession (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_06_MONITORED_MONITORED_TRAINING_SESSION_H_
#define MTS_SRC_06_MONITORED_MONITORED_TRAINING_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/hooks/checkpoint_saver_listener.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/06_monitored/monitored_session.h"
#include "src/platform/clock.h"

namespace mts {

/// The arguments of MonitoredTrainingSession, named and defaulted as in TensorFlow.
struct MonitoredTrainingSessionOptions {
  /// Where the session runs: "" for this process, or a "grpc://host:port" target.
  std::string master;
  /// The chief initialises or restores the model and runs the default hooks.
  bool is_chief = true;
  /// Where the chief restores from and saves to; "" for no checkpoints.
  std::string checkpoint_dir;
  /// The graph's init, ready and save pieces; null: a default Scaffold.
  std::shared_ptr<Scaffold> scaffold;
  /// Hooks for every task, after the default hooks.
  MonitoredSession::Hooks hooks;
  /// Hooks only the chief runs, before the default hooks.
  MonitoredSession::Hooks chief_only_hooks;
  /// Checkpoint every N seconds. Unset: 600, unless save_checkpoint_steps is set.
  std::optional<double> save_checkpoint_secs;
  /// Checkpoint every N steps. Unset: off, unless set.
  std::optional<int64_t> save_checkpoint_steps;
  /// Write summaries every N steps. Unset: 100, unless save_summaries_secs is set.
  std::optional<int64_t> save_summaries_steps;
  /// Write summaries every N seconds. Unset: off, unless set.
  std::optional<double> save_summaries_secs;
  /// How long Close waits for the input threads.
  double stop_grace_period_secs = 120;
  /// Log (and record) the steps per second every N steps; <= 0 turns it off.
  int64_t log_step_count_steps = 100;
  /// How long a worker waits for the chief's model to be ready.
  double max_wait_secs = 7200;
  /// Beyond TensorFlow: how often a waiting worker checks again whether the chief's model
  /// is ready. TensorFlow's MonitoredTrainingSession has no such argument and always uses
  /// its SessionManager's default, 30 seconds, the default here too.
  double recovery_wait_secs = 30;
  /// Where summaries go; "" means checkpoint_dir.
  std::string summary_dir;
  /// Beyond TensorFlow (as Estimator.train's saving_listeners): called around every save of
  /// the chief's default CheckpointSaverHook, e.g. to report each checkpoint written.
  std::vector<std::shared_ptr<CheckpointSaverListener>> checkpoint_saver_listeners;
  /// Beyond TensorFlow: SIGTERM and SIGINT stop the loop cleanly (final checkpoint).
  bool stop_on_signals = true;
  /// Beyond TensorFlow: how recovery retries creations (default: as TensorFlow).
  RecoveryOptions recovery;
  /// Beyond TensorFlow: a chief initialises even over a model its parameter servers hold
  /// for someone else, throwing it away; false (the default) refuses with the step they hold
  /// (SessionManager::PrepareSession).
  bool reinitialize_live_model = false;
  /// The clock of timers, waits and backoffs; null: RealClock().
  Clock* clock = nullptr;
};

/// The hooks a chief gets by default, in TensorFlow's order, before `options.hooks`:
/// chief_only_hooks, StepCounterHook, SummarySaverHook, CheckpointSaverHook. A worker gets
/// no default hooks, only `options.hooks`. With `stop_on_signals` (beyond TensorFlow), both
/// get a SignalStopHook first. `scaffold` is the one the hooks share. Beyond TensorFlow, a
/// chief logs a warning for a CheckpointSaverHook of the caller's that nothing restores from
/// (checkpoint_dir empty) or that saves beside the default one (the same directory).
/// \throws ValueError "Can not provide both every_secs and every_steps: ..." (naming the two
///   arguments and saying to set only one) when both frequencies of a hook that is made are set.
MonitoredSession::Hooks MonitoredTrainingSessionHooks(
    const MonitoredTrainingSessionOptions& options, const std::shared_ptr<Scaffold>& scaffold);

/// Makes a MonitoredSession for training: a chief or a worker creator, the default hooks,
/// recovery. Calls the hooks' Begin and creates the first session before returning.
/// \throws ValueError as MonitoredTrainingSessionHooks throws it.
/// \throws PermissionDeniedError if a chief's checkpoint_dir is one another user could have
///   planted files in (CheckPrivateDirectory); nothing is made then.
/// \throws DeadlineExceededError if a worker's model is not ready within max_wait_secs.
/// \throws OpError as MonitoredSession's constructor throws it.
std::unique_ptr<MonitoredSession> MonitoredTrainingSession(
    MonitoredTrainingSessionOptions options = {});

}  // namespace mts

#endif  // MTS_SRC_06_MONITORED_MONITORED_TRAINING_SESSION_H_
