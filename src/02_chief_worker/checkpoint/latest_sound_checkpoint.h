// latest_sound_checkpoint.h: which checkpoint a directory restores, and what was passed over.
//
//   Chief / Worker            SessionManager::RestoreCheckpoint asks this file, then has the
//                             Saver restore the checkpoint it names
//   latest_sound_checkpoint.h <-- this file: the rules that choose the checkpoint
//   checkpoint_state.h        the `checkpoint` state file; checkpoint_file.h the checkpoints
//
// The rules, in order:
//   1. The `checkpoint` state file names the candidates, newest first (GetCheckpointState:
//      in a copied directory, its paths become the copy's files).
//   2. No state file: nothing to restore. Checkpoint files without one are not taken.
//   3. A state file that is unusable (garbage, empty, naming no checkpoint): the directory's
//      checkpoint files, by the step in their names, stand in for its list.
//   4. The newest candidate that exists and whose header, index and restored tensors pass
//      their checksums is chosen; each newer one is skipped, with why.
//   5. When none passes, none is chosen and every one is skipped (the caller raises
//      NoneSoundError()).
// The answer also names the checkpoints a Saver goes on rotating: the state file's list up
// to the one chosen, or, from rule 3, that one alone.
//
// Thread safety: may be called from any thread; a file that vanishes or is damaged after
// it was chosen fails the restore, which raises.
//
// Example:
//   const CheckpointToRestore checkpoint = LatestSoundCheckpoint("/tmp/run");
//   if (checkpoint.path) saver.Restore(session, *checkpoint.path);
//
// TensorFlow: get_checkpoint_state and latest_checkpoint (checkpoint_management.py), as
// SessionManager's _restore_checkpoint uses them; rules 3 to 5 are mts's.
#ifndef MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_LATEST_SOUND_CHECKPOINT_H_
#define MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_LATEST_SOUND_CHECKPOINT_H_

#include <optional>
#include <string>
#include <vector>

#include "src/platform/errors.h"
#include "src/platform/file_system.h"

namespace mts {

/// A checkpoint LatestSoundCheckpoint passed over, and why.
struct SkippedCheckpoint {
  std::string path;    ///< The checkpoint's path (its prefix).
  std::string reason;  ///< "missing", or the text of the reader's DataLossError.
};

/// Where LatestSoundCheckpoint found its candidates.
enum class CheckpointSource {
  kNone,             ///< Nowhere: no state file, or an unusable one and no checkpoint file.
  kStateFile,        ///< The `checkpoint` state file's list (rule 1).
  kCheckpointFiles,  ///< The directory's checkpoint files, for an unusable state file (rule 3).
};

/// The answer of LatestSoundCheckpoint: the checkpoint to restore, and what was skipped.
struct CheckpointToRestore {
  /// The checkpoint to restore: the newest candidate that exists and passes its checksums;
  /// none when there is no candidate, or none passes.
  std::optional<std::string> path;
  /// The candidates newer than `path` (every candidate, when there is no `path`), newest
  /// first, each with why it was passed over.
  std::vector<SkippedCheckpoint> skipped;
  /// What a Saver should track after restoring `path`, oldest first
  /// (Saver::RecoverLastCheckpoints): the state file's list up to `path`, or `path` alone.
  std::vector<std::string> tracked;
  /// Where the candidates came from.
  CheckpointSource source = CheckpointSource::kNone;

  /// True if the directory offered a candidate, whether or not one passed; false: nothing
  /// to restore yet (a chief may wait for a checkpoint, or initialise).
  bool found() const { return source != CheckpointSource::kNone; }
  /// The warning to log once `path` is restored in place of the newest candidate: names
  /// both and why each skipped one was passed over. "" when nothing was skipped.
  std::string FallbackWarning() const;
  /// The error to raise when found() but no candidate passes: names each checkpoint, why it
  /// failed, and what to do.
  DataLossError NoneSoundError() const;
};

/// Which checkpoint `checkpoint_dir` restores, by the rules of this file's comment, and what
/// was skipped and why. Logs a warning when the state file is unusable (rule 3), and those
/// GetCheckpointState logs. `tensors` names the tensors a candidate must hold intact (those
/// the restore will read; one it does not hold is not damage: the restore reports it);
/// nullopt: every tensor it holds. `fs` null means DefaultFileSystem().
/// \throws OpError as the file system raises it for what is neither missing nor damaged (a
///   checkpoint this user may not read).
CheckpointToRestore LatestSoundCheckpoint(
    const std::string& checkpoint_dir,
    const std::optional<std::vector<std::string>>& tensors = std::nullopt,
    FileSystem* fs = nullptr);

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_LATEST_SOUND_CHECKPOINT_H_
