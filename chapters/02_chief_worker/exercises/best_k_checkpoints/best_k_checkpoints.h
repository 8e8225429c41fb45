// best_k_checkpoints.h: an exercise of chapter 02. Keep the k best checkpoints, not the
// k newest.
//
//   HookedSession      a hook (or your loop) calls Save after each evaluation
//     Chief / Worker   the chief restores the newest checkpoint, or the best one if asked
//       Session        the Saver reads the variables through it
//
// A Saver keeps the newest max_to_keep checkpoints. After a long training, though, the one
// you want to ship is often not the newest but the one that scored best on validation data:
// the model may have started to over-fit an hour ago. A BestCheckpointKeeper saves through
// a Saver and keeps the k checkpoints with the lowest metric (a validation loss, an error
// rate), deleting the files of the others.
//
// It keeps its own list and its own state file, "best_checkpoint", beside the checkpoints,
// in the format of the `checkpoint` file: model_checkpoint_path names the best checkpoint,
// all_model_checkpoint_paths the kept ones from worst to best (so the best, like the newest
// in `checkpoint`, comes last). `LatestCheckpoint(dir, "best_checkpoint")` then finds the
// best. The Saver's own state file and rotation are not used: Save calls the Saver with
// write_state = false, so the Saver can never delete a checkpoint this keeper wants.
//
// Save must keep the chapter's crash promise: at every moment, whenever the process dies,
// the state file names kept checkpoints that exist and are whole. Ties go to the earlier
// checkpoint: a new one must be strictly better to push out an old one. Saving a step again
// writes the same path, which is then kept at most once, with its latest metric.
//
// Lifecycle: construct over a Saver; call Save after each evaluation; read best().
// Thread safety: one thread at a time.
//
// Example:
//   BestCheckpointKeeper keeper(saver.get(), "/tmp/run/best/model.ckpt", /*k=*/3);
//   keeper.Save(session, step, validation_loss);
//   std::optional<std::string> best = LatestCheckpoint("/tmp/run/best", "best_checkpoint");
//
// TensorFlow: no class of TF 1.x; tf.estimator.BestExporter keeps the best exports, and
// Keras's ModelCheckpoint(save_best_only=True) keeps one.
#ifndef MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_BEST_K_CHECKPOINTS_BEST_K_CHECKPOINTS_H_
#define MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_BEST_K_CHECKPOINTS_BEST_K_CHECKPOINTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/01_session/session_interface.h"
#include "src/02_chief_worker/saver.h"
#include "src/platform/file_system.h"

namespace mts {

// [mts:best-k-api]
/// A kept checkpoint and the metric it scored.
struct ScoredCheckpoint {
  std::string path;  ///< "<save_path>-<step>".
  double metric;     ///< Lower is better.
};

/// Saves through a Saver and keeps only the k checkpoints with the lowest metric.
class BestCheckpointKeeper {
 public:
  /// The name of the keeper's state file, beside the checkpoints.
  static constexpr const char* kStateFile = "best_checkpoint";

  /// A keeper saving with `saver` to "<save_path>-<step>", keeping `k`. `fs` null means
  /// DefaultFileSystem(); it should be the Saver's. \throws ValueError unless k >= 1
  /// (given).
  BestCheckpointKeeper(Saver* saver, std::string save_path, int k, FileSystem* fs = nullptr);

  /// Saves the session's variables as "<save_path>-<step>", scored `metric`; keeps the k
  /// best of the kept ones and the new one, rewrites the state file, then deletes the file
  /// of the one that dropped out (yours).
  /// \returns true if the new checkpoint is kept.
  /// \throws what Saver::Save throws; the kept list, the state file and the files are then
  ///   unchanged.
  bool Save(SessionInterface& session, int64_t step, double metric);

  /// The kept checkpoints, best first (given).
  const std::vector<ScoredCheckpoint>& best() const { return kept_; }

 private:
  Saver* saver_;
  std::string save_path_;
  int k_;
  FileSystem* fs_;
  std::vector<ScoredCheckpoint> kept_;  // Best first.
};
// [mts:best-k-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_BEST_K_CHECKPOINTS_BEST_K_CHECKPOINTS_H_
