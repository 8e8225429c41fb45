// checkpoint_saver_listener.h: code that runs around each checkpoint CheckpointSaverHook
// saves: before it, after it (and possibly stop training), and at the start and end.
//
//   HookedSession              calls CheckpointSaverHook around every run
//     CheckpointSaverHook      saves every N steps or seconds, and calls ...
//       CheckpointSaverListener  <-- this file: ... each listener around each save
//
// Some work belongs with a checkpoint rather than with a step: evaluating the model just
// saved, copying the files elsewhere, exporting a serving model, or deciding that the model
// is good enough. A listener gets those moments without a hook of its own and without
// reading the step twice. Its AfterSave may return true to ask for training to stop, which
// the hook turns into a stop request on the run that saved (not at a session's creation or
// End, where there is no run to stop). Every listener's AfterSave is called, even after one
// has asked to stop.
//
// Lifecycle, as CheckpointSaverHook calls it:
//   1. Begin(): from the hook's Begin, before any session exists.
//   2. For each save: BeforeSave(session, step), the save, AfterSave(session, step).
//   3. End(session, step): from the hook's End, after its last save, with the final step.
// Every method does nothing by default.
//
// Thread safety: one thread (the training loop's) calls a listener.
//
// Example:
//   class StopWhenGoodEnough : public CheckpointSaverListener {
//    public:
//     bool AfterSave(SessionInterface& session, int64_t step) override {
//       return Evaluate(session) > 0.99;   // true: stop training
//     }
//   };
//
// TensorFlow: tf.train.CheckpointSaverListener
// (tensorflow/python/training/basic_session_run_hooks.py).
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
