// checkpoint_saver_hook.h: saves a checkpoint when a session is created, every N steps or
// seconds while training, and once more at the end.
//
//   RecoverableSession     after a recovery the new session is saved at once (restored step)
//     CoordinatedSession
//       HookedSession      <-- CheckpointSaverHook runs around every step (this file)
//         Chief / Worker   the chief restores what this hook saved
//
// It saves in AfterCreateSession (after writing <checkpoint_dir>/graph.pbtxt and a graph
// event, unless save_graph_def is false), after a run when its SecondOrStepTimer triggers
// at the real step, and in End if the final step is not saved yet. A save: every
// listener's BeforeSave; Saver::Save to "<dir>/<basename>-<step>" (the Saver given, else
// the Scaffold's, else the graph's single one); a SessionLog CHECKPOINT event; every
// listener's AfterSave, any of which may ask to stop training after the run. Begin locks
// the directory (DirectoryLock) until End.
//
// Lifecycle: construct; Begin; AfterCreateSession (save); BeforeRun / AfterRun per step;
// End (save if needed, listeners' End).
//
// Thread safety: one thread calls a hook.
//
// Example:
//   CheckpointSaverHookOptions options;
//   options.save_secs = 600;
//   auto saver_hook = std::make_shared<CheckpointSaverHook>("/tmp/run", options);
//
// TensorFlow: tf.train.CheckpointSaverHook
// (tensorflow/python/training/basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_CHECKPOINT_SAVER_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_CHECKPOINT_SAVER_HOOK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/events/file_writer.h"
#include "src/03_hooked/hooks/checkpoint_saver_listener.h"
#include "src/03_hooked/hooks/second_or_step_timer.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/platform/clock.h"
#include "src/platform/directory_lock.h"

namespace mts {

class Scaffold;

/// How a CheckpointSaverHook saves: TensorFlow's keyword arguments after `checkpoint_dir`,
/// with its defaults, and the clock. Exactly one of save_secs and save_steps must be set.
struct CheckpointSaverHookOptions {
  /// Save every this many seconds.
  std::optional<double> save_secs;
  /// Or save every this many global steps.
  std::optional<int64_t> save_steps;
  /// The Saver to use; null: the scaffold's, else the single Saver in the graph's `savers`
  /// collection. Give at most one of saver and scaffold.
  std::shared_ptr<Saver> saver;
  /// Checkpoints are "<checkpoint_dir>/<checkpoint_basename>-<step>".
  std::string checkpoint_basename = "model.ckpt";
  /// Whose Saver to use, looked up at the first save (after the scaffold is finalized).
  std::shared_ptr<const Scaffold> scaffold;
  /// Called around each save, in order.
  std::vector<std::shared_ptr<CheckpointSaverListener>> listeners;
  /// Where save_secs are measured; null: RealClock().
  Clock* clock = nullptr;
  /// Write graph.pbtxt and a graph event in AfterCreateSession.
  bool save_graph_def = true;
};

/// The name of the GraphDef text file AfterCreateSession writes into checkpoint_dir.
inline constexpr char kGraphTextFilename[] = "graph.pbtxt";

/// Saves checkpoints at session creation, every N steps or seconds, and at the end.
class CheckpointSaverHook : public SessionRunHook {
 public:
  /// TensorFlow's `CheckpointSaverHook(checkpoint_dir, save_secs=None, save_steps=None,
  /// saver=None, checkpoint_basename='model.ckpt', scaffold=None, listeners=None)`: saves
  /// into `checkpoint_dir` as `options` say (the keyword arguments are its fields).
  /// \throws ValueError "You cannot provide both saver and scaffold.";
  ///   ValueError as SecondOrStepTimer's constructor when not exactly one of save_secs and
  ///   save_steps is given (so the default options always throw, as TensorFlow's do).
  CheckpointSaverHook(std::string checkpoint_dir, CheckpointSaverHookOptions options);

  /// Makes checkpoint_dir and locks it for this process (DirectoryLock, held until End or
  /// the hook's destruction; beyond TensorFlow), then gets its writer from
  /// SummaryWriterCache, finds (or makes) the global step's read tensor, and calls every
  /// listener's Begin.
  /// \throws RuntimeError "Global step should be created to use CheckpointSaverHook." if
  ///   the graph has no global step; OpError if checkpoint_dir cannot be made;
  ///   FailedPreconditionError naming the other process if another process holds the lock
  ///   (nothing is written then).
  void Begin() override;
  /// Writes `<checkpoint_dir>/graph.pbtxt` and a graph event (unless save_graph_def is
  /// false), then saves a checkpoint at the session's current step and starts the timer
  /// there. A listener's request to stop is ignored here (there is no run to stop).
  /// \throws RuntimeError "No items in collection savers. ..." or "More than one item in
  ///   collection savers. ..." when no Saver was given and the graph has none, or several;
  ///   ValueError (beyond TensorFlow) if the Saver's variables are of another graph;
  ///   RuntimeError if the Scaffold given has no Saver (it was not finalized); whatever
  ///   Saver::Save throws; OpError if graph.pbtxt cannot be written. The listeners'
  ///   BeforeSave may have been called.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Fetches the global step's read tensor.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Saves if the timer triggers at the real step (the two-stage check above); requests a
  /// stop if a listener's AfterSave returned true. Beyond TensorFlow, a save due by time at
  /// the step already saved (a train op that does not increment the global step) logs a
  /// warning, once. \throws as AfterCreateSession.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;
  /// Saves if the final step was not saved yet (beyond TensorFlow, warns if runs were made
  /// but the step never left that of the session's creation), calls every listener's End
  /// with it, then
  /// flushes the event writer (so the last CHECKPOINT event is on disk) and releases the
  /// directory's lock. \throws as AfterCreateSession.
  void End(SessionInterface& session) override;

  /// "<checkpoint_dir>/<checkpoint_basename>": the prefix every checkpoint path starts with.
  const std::string& save_path() const { return save_path_; }
  /// The directory the checkpoints go to (and Begin locks).
  const std::string& checkpoint_dir() const { return checkpoint_dir_; }

 private:
  // Saves at `step` with the listener calls around it; true if a listener asked to stop.
  bool Save(SessionInterface& session, int64_t step);
  // The Saver to use: given, the scaffold's, or the graph's single one (then cached).
  // \throws ValueError if its variables are of another graph than the session's.
  std::shared_ptr<Saver> GetSaver(SessionInterface& session);
  // Warns, once, that training has run `runs` times but the step is still `step`, that of
  // the last checkpoint, so nothing trained since is saved (TensorFlow says nothing).
  void WarnStepNotMoving(int64_t step);

  std::string checkpoint_dir_;
  std::string save_path_;
  std::shared_ptr<Saver> saver_;
  std::shared_ptr<const Scaffold> scaffold_;
  std::vector<std::shared_ptr<CheckpointSaverListener>> listeners_;
  bool save_graph_def_;
  SecondOrStepTimer timer_;
  std::shared_ptr<FileWriter> summary_writer_;
  std::shared_ptr<DirectoryLock> directory_lock_;  // Held from Begin to End.
  Output global_step_read_;
  int64_t step_at_creation_ = 0;  // The step of the session's first checkpoint.
  int64_t runs_since_creation_ = 0;
  bool warned_step_not_moving_ = false;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_CHECKPOINT_SAVER_HOOK_H_
