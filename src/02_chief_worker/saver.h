// saver.h: saves variables to checkpoint files and restores them, keeping the newest few.
//
//   HookedSession      CheckpointSaverHook (stage 03) calls Save every N steps or secs
//     Chief / Worker   <-- the chief's SessionManager calls Restore or initialises
//       Session        the Saver reads and assigns variables through ordinary Runs
//
// Lifecycle:
//   1. Construct while building the graph (before Finalize): the Saver adds, per variable, a
//      placeholder and an Assign op it uses to restore.
//   2. Save(session, "dir/model.ckpt", step) reads every variable with one Run, writes
//      "dir/model.ckpt-STEP" whole (checkpoint_file.h), then replaces "dir/checkpoint"
//      atomically and deletes checkpoints beyond max_to_keep (keeping one every
//      keep_checkpoint_every_n_hours). A crash at any moment leaves a state file naming
//      whole checkpoints.
//   3. Restore(session, path) reads the file and assigns every variable with one Run.
//
// Thread safety: Save and Restore may be called from different threads, but not concurrently
// on one Saver (the hooks call it from the training thread only).
//
// TensorFlow: tf.train.Saver (tensorflow/python/training/saver.py); the checkpoint is one
// file at the prefix path, as in TF's V1 format, so `LatestCheckpoint` finds "<prefix>".
#ifndef MTS_SRC_02_CHIEF_WORKER_SAVER_H_
#define MTS_SRC_02_CHIEF_WORKER_SAVER_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/session_interface.h"
#include "src/01_session/variables.h"
#include "src/platform/clock.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"

namespace mts {

/// Options of a Saver, with TensorFlow's defaults.
struct SaverOptions {
  /// How many recent checkpoints to keep; 0 keeps all (and tracks none).
  int max_to_keep = 5;
  /// Additionally keep one checkpoint every this many hours, forever.
  double keep_checkpoint_every_n_hours = 10000.0;
  /// With no variables, make an empty saver (Save writes nothing, Restore does nothing)
  /// instead of raising ValueError("No variables to save").
  bool allow_empty = false;
  /// Write paths in the state file relative to its directory.
  bool save_relative_paths = false;
  /// Zero-pad the step in file names to 8 digits ("model.ckpt-00000100").
  bool pad_step_number = false;
  /// Where time comes from (checkpoint timestamps, the N-hours rule); null: RealClock().
  Clock* clock = nullptr;
  /// Where files go; null: DefaultFileSystem().
  FileSystem* file_system = nullptr;
};

/// Saves and restores a list of variables.
class Saver {
 public:
  /// A saver over `var_list`, or over every global variable of the default graph when the
  /// list is empty. Adds its restore ops to the variables' graph.
  /// \throws ValueError "No variables to save" when there are none and !allow_empty, or
  ///   when two variables share a name.
  /// \throws RuntimeError if the graph is finalized.
  explicit Saver(std::vector<Variable> var_list = {}, SaverOptions options = {});

  // [mts:lab-contract-saver-save]
  /// Saves every variable's value from `session` to "<save_path>-<global_step>" (or
  /// `save_path` without a step) and returns that path. With `write_state`, then records it
  /// in "<dirname(save_path)>/<latest_filename>" and deletes checkpoints beyond max_to_keep.
  /// Beyond TensorFlow, rotation never deletes a file outside dirname(save_path), nor the
  /// newest checkpoint whose float values are all finite: after a save of NaN or Inf values
  /// that one stays listed (and max_to_keep is exceeded by one) until a finite save comes.
  /// An empty saver writes nothing and returns nullopt.
  /// \throws ValueError if latest_filename has a directory component, if the save path's
  ///   basename equals latest_filename, or "Parent directory of <save_path> doesn't exist,
  ///   can't save.".
  /// \throws FailedPreconditionError naming an uninitialised variable.
  /// \throws TypeError "'sess' must be a Session; ..." if `session` runs hooks (RunsHooks: a
  ///   MonitoredSession), naming what to save with instead; nothing is written.
  /// After any error the previous checkpoints and state file are unchanged (a new
  /// checkpoint file may exist that the state file does not name).
  std::optional<std::string> Save(SessionInterface& session, const std::string& save_path,
                                  std::optional<int64_t> global_step = std::nullopt,
                                  const std::string& latest_filename = "checkpoint",
                                  bool write_state = true);
  // [mts:lab-contract-saver-save-end]

  /// Assigns every variable the value stored in the checkpoint at `save_path`.
  /// An empty saver does nothing.
  /// \throws ValueError "The passed save_path is not a valid checkpoint: <p>" if no file is
  ///   there.
  /// \throws NotFoundError naming every variable missing from the checkpoint.
  /// \throws InvalidArgumentError naming a variable whose stored dtype or shape differs,
  ///   and both shapes and dtypes.
  /// \throws DataLossError naming the file (and tensor) if the file is corrupt or truncated.
  ///   Variables are assigned all together or not at all.
  void Restore(SessionInterface& session, const std::string& save_path);

  /// The tracked checkpoint paths, oldest first.
  std::vector<std::string> last_checkpoints() const;
  /// Replaces the tracked list with (path, timestamp in seconds) pairs.
  void SetLastCheckpointsWithTime(std::vector<std::pair<std::string, double>> checkpoints);
  /// Tracks those of `paths` whose files exist, timestamped by modification time, so that
  /// rotation continues across restarts (SessionManager calls this after a restore).
  void RecoverLastCheckpoints(const std::vector<std::string>& paths);

  /// The variables this saver covers, in order.
  const std::vector<Variable>& variables() const { return variables_; }
  /// True if the saver covers no variables (allow_empty).
  bool empty() const { return variables_.empty(); }

 private:
  std::vector<Variable> variables_;
  std::vector<Output> restore_placeholders_;  // One per variable.
  Operation* restore_op_ = nullptr;           // Groups the Assigns; null when empty.
  // A checkpoint the saver keeps track of.
  struct Tracked {
    std::string path;
    double time;                 // Wall seconds of the save (or the file's mtime).
    std::optional<bool> finite;  // Every float value finite? Unset: not looked at yet.
  };
  using TrackedList = std::vector<Tracked>;

  // Wall time in seconds: checkpoint timestamps and the N-hours rule use it.
  double Now() const;
  // The path Save writes: `save_path`, with "-<global_step>" appended when there is a step.
  // \throws ValueError for a latest_filename with a '/', or equal to save_path's basename.
  std::string CheckpointPath(const std::string& save_path, std::optional<int64_t> global_step,
                             const std::string& latest_filename) const;
  // Save's steps once the path is known: snapshot, write, name in the state file (if
  // `write_state`), rotate.
  void SaveAtomically(SessionInterface& session, const std::string& prefix,
                      const std::string& save_dir, const std::string& latest_filename,
                      bool write_state);
  // Raises TensorFlow's ValueError when `error`, raised by a save to `save_path`, comes from
  // its parent directory being missing; returns otherwise.
  void ThrowIfParentDirectoryMissing(const OpError& error, const std::string& save_path) const;
  // The tracked and to-be-deleted lists after recording a save of `path` whose values are
  // `finite` or not (TensorFlow's _RecordLastCheckpoint, plus the rule that the newest
  // finite checkpoint is never dropped), computed without changing the saver, so a failed
  // state-file write leaves it as it was.
  std::pair<TrackedList, TrackedList> RecordLastCheckpoint(const std::string& path,
                                                           bool finite) const;
  // The index in `kept` of the newest checkpoint whose values are all finite, reading from
  // disk only those never looked at (kept's flags are filled in); nullopt if none is.
  std::optional<size_t> NewestFinite(TrackedList& kept) const;
  // Deletes (or keeps forever) at most one checkpoint from checkpoints_to_be_deleted_,
  // never one outside `save_dir`.
  void MaybeDeleteOldCheckpoints(const std::string& save_dir);

  SaverOptions options_;
  TrackedList last_checkpoints_;           // Tracked, oldest first.
  TrackedList checkpoints_to_be_deleted_;  // Dropped from tracking, oldest first.
  double next_checkpoint_time_ = 0;        // When the next kept-forever checkpoint is due.
};

/// The Saver in the graph's savers collection, or a new one over all global variables
/// (allow_empty) added to that collection if there is none (TensorFlow's
/// _get_saver_or_default). \throws RuntimeError if the collection holds more than one.
std::shared_ptr<Saver> GetSaverOrDefault(Graph* graph = nullptr);

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_SAVER_H_
