// checkpoint_saver_listener.h: code that runs around each checkpoint CheckpointSaverHook
// saves: before it, after it (and possibly stop training), and at the start and end.
//
// Stage 03, called by CheckpointSaverHook: Begin() from the hook's Begin; for each save,
// BeforeSave(session, step), the save, AfterSave(session, step); End(session, step) after
// the last save. Every listener's AfterSave is called; if any returns true, training stops
// after the run that saved. Every method does nothing by default. One thread (the training
// loop's) calls a listener.
//
// Example: bool AfterSave(SessionInterface& s, int64_t step) override { return Good(s); }
//
// TensorFlow: tf.train.CheckpointSaverListener (basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_CHECKPOINT_SAVER_LISTENER_H_
#define MTS_SRC_03_HOOKED_HOOKS_CHECKPOINT_SAVER_LISTENER_H_

#include <cstdint>

#include "src/01_session/session_interface.h"

namespace mts {

/// Is told about every checkpoint a CheckpointSaverHook saves; may ask training to stop.
class CheckpointSaverListener {
 public:
  virtual ~CheckpointSaverListener() = default;

  /// Called from the hook's Begin(), once, before any session exists.
  virtual void Begin() {}
  /// Called just before the checkpoint for `step` is saved from `session`.
  virtual void BeforeSave(SessionInterface& session, int64_t step) {}
  /// Called just after the checkpoint for `step` was saved (its files exist).
  /// \returns true to ask training to stop after the current run.
  virtual bool AfterSave(SessionInterface& session, int64_t step) { return false; }
  /// Called from the hook's End(), after its final save, with the final step.
  virtual void End(SessionInterface& session, int64_t step) {}
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_CHECKPOINT_SAVER_LISTENER_H_
