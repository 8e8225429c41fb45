// save_on_exception.h: an exercise of chapter 03. A layer that saves a checkpoint when a run
// fails, and then lets the error continue on its way.
//
//   HookedSession        the hooks above never hear of the failed run
//     SaveOnErrorSession  <-- this file: catches, saves, rethrows
//       Session          the raw session whose run failed, still open
//
// When a long training run dies of a bad batch or a broken kernel, the steps since the last
// periodic checkpoint are lost. It is tempting to write a hook for "save when something
// goes wrong", but a hook cannot: when a run raises, HookedSession calls no AfterRun, and a
// close after an error calls no End. Hooks only ever hear about runs that worked.
//
// So the tool is a layer, a WrappedSession. Its Run forwards to the session below; if that
// raises an OpError, it saves the variables with a Saver to "<save_path>-<global step>", on
// the session below (not through the hooks), and then rethrows the *same* error, unchanged,
// for the layers above to handle as they would have without it. Two kinds of error are
// let through without a save, because saving would be wrong or useless:
//   - AbortedError and UnavailableError, the preemption errors: the session is lost and the
//     recoverable layer (chapter 05) will restore the last good checkpoint anyway;
//   - OutOfRangeError: the input is exhausted, a clean end; CheckpointSaverHook's End saves.
// Errors that are not OpErrors (a RuntimeError for misuse, say) pass through untouched.
//
// Saving can fail too (a full disk, an uninitialised variable). The run's error is the one
// that matters, so a failed save is logged at ERROR and the run's error is rethrown all the
// same: the layer never replaces an error with a different one.
//
// Lifecycle: construct around the raw session (ownership moves in), with a Saver made
// before the graph was finalized; Run, ShouldStop and Close as any WrappedSession.
//
// Thread safety: one thread runs it, as for every layer.
//
// Example:
//   auto saver = std::make_shared<Saver>();
//   auto raw = std::make_unique<SaveOnErrorSession>(std::make_unique<Session>(&graph), saver,
//                                                   "/tmp/run/crash.ckpt", global_step);
//   HookedSession session(std::move(raw), hooks);
//
// TensorFlow: no counterpart; in Python one would write try/except around session.run.
#ifndef MTS_CHAPTERS_03_HOOKED_EXERCISES_SAVE_ON_EXCEPTION_SAVE_ON_EXCEPTION_H_
#define MTS_CHAPTERS_03_HOOKED_EXERCISES_SAVE_ON_EXCEPTION_SAVE_ON_EXCEPTION_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/platform/errors.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/wrapped_session.h"

namespace mts {

// [mts:save-on-error-api]
/// A layer that saves a checkpoint when a run raises an OpError, then rethrows it.
class SaveOnErrorSession : public WrappedSession {
 public:
  /// Wraps `inner` (taking ownership); saves with `saver` to "<save_path>-<step>", where
  /// step is the value of `global_step` read after the failure. The directory of
  /// `save_path` must exist when a save happens. Given.
  SaveOnErrorSession(std::unique_ptr<SessionInterface> inner, std::shared_ptr<Saver> saver,
                     std::string save_path, Output global_step);

  /// Whether a run error with `code` calls for a save: every code except the preemption
  /// errors (kAborted, kUnavailable) and kOutOfRange. Yours.
  static bool SavesOn(ErrorCode code);

  /// \cond
  using WrappedSession::Run;
  /// \endcond

  /// Forwards to the inner session. If that raises an OpError for which SavesOn() holds,
  /// first saves a checkpoint on the inner session (a failed save is logged, not thrown).
  /// Yours.
  /// \throws exactly what the inner Run threw, with its type and message unchanged.
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;

  /// The path of the last checkpoint saved after an error, or std::nullopt if none was.
  const std::optional<std::string>& last_error_checkpoint() const {
    return last_error_checkpoint_;
  }

 private:
  std::shared_ptr<Saver> saver_;
  std::string save_path_;
  Output global_step_;
  std::optional<std::string> last_error_checkpoint_;
};
// [mts:save-on-error-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_03_HOOKED_EXERCISES_SAVE_ON_EXCEPTION_SAVE_ON_EXCEPTION_H_
