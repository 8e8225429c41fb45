// checkpoint_state.h: the `checkpoint` state file that names a directory's newest checkpoints.
//
//   Saver (saver.h)        keeps the list of recent checkpoints, and writes it with
//   checkpoint_state.h <-- this file: the text file beside the checkpoints
//   FileSystem             platform: WriteFileAtomically replaces the file in one rename
//
// The file is TensorFlow's CheckpointState message in protobuf text format, byte for byte:
//
//   model_checkpoint_path: "model.ckpt-1263"
//   all_model_checkpoint_paths: "model.ckpt-591"
//   all_model_checkpoint_paths: "model.ckpt-1263"
//
// It is replaced atomically. Paths are relative to the directory when it was given as a
// relative path (or with save_relative_paths), absolute otherwise; readers join relative
// ones onto the directory they read. A parse error is a ValueError naming line and column.
//
// Thread safety: all functions may be called from any thread; concurrent writers of one
// state file leave one of their versions, whole.
//
// TensorFlow: get_checkpoint_state, update_checkpoint_state_internal,
// generate_checkpoint_state_proto and latest_checkpoint
// (tensorflow/python/training/checkpoint_management.py); checkpoint_state.proto.
#ifndef MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_STATE_H_
#define MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_STATE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/platform/file_system.h"

namespace mts {

/// TensorFlow's CheckpointState message: the newest checkpoint and those still kept.
struct CheckpointState {
  /// The newest checkpoint's path (its prefix).
  std::string model_checkpoint_path;
  /// The checkpoints not yet deleted, oldest save first; the last equals the newest.
  std::vector<std::string> all_model_checkpoint_paths;
  /// Unix seconds of each of all_model_checkpoint_paths (TF2 writers only; TF1's Saver and
  /// mts's write none).
  std::vector<double> all_model_checkpoint_timestamps;
  /// Unix seconds of the last checkpoint kept by keep_checkpoint_every_n_hours (TF2 only).
  double last_preserved_timestamp = 0;

  /// Field-by-field equality.
  bool operator==(const CheckpointState& other) const;
  /// Negation of ==.
  bool operator!=(const CheckpointState& other) const { return !(*this == other); }
};

/// Parses a CheckpointState from protobuf text format. Fields may come in any order;
/// a singular field given twice keeps its last value (text_format.Merge).
/// \throws ValueError naming the line and column of the first thing it cannot accept.
CheckpointState ParseCheckpointState(std::string_view text);

/// The text TensorFlow's Python protobuf prints for `state` (text_format.MessageToString):
/// one `name: value` line per value in field-number order, empty fields left out, strings
/// C-escaped with octal for other bytes, doubles in Python's shortest round-trip form.
std::string CheckpointStateToText(const CheckpointState& state);

/// The state TensorFlow would record for a save into `save_dir` (its
/// generate_checkpoint_state_proto): `model_checkpoint_path` is appended to the list unless
/// it is already last; if `save_dir` is relative, relative paths are rewritten relative to
/// it ("logs/model.ckpt-5" in "logs" becomes "model.ckpt-5"). An empty `save_dir` counts
/// as ".". \throws ValueError if timestamps are given and their number differs from the
/// number of paths.
CheckpointState GenerateCheckpointState(const std::string& save_dir,
                                        const std::string& model_checkpoint_path,
                                        std::vector<std::string> all_model_checkpoint_paths,
                                        std::vector<double> all_model_checkpoint_timestamps = {},
                                        double last_preserved_timestamp = 0);

/// Atomically replaces "<save_dir>/<latest_filename>" with the state for a save of
/// `model_checkpoint_path` (see GenerateCheckpointState). With `save_relative_paths`,
/// absolute paths are first made relative to `save_dir`. `fs` null means DefaultFileSystem().
/// \throws RuntimeError "Save path '<p>' conflicts with path used for checkpoint state.
///   Please use a different save path." if the state file would be the checkpoint itself.
/// \throws OpError from the file system.
/// After any error the old state file is unchanged.
void UpdateCheckpointStateFile(const std::string& save_dir,
                               const std::string& model_checkpoint_path,
                               const std::vector<std::string>& all_model_checkpoint_paths,
                               const std::string& latest_filename = "checkpoint",
                               bool save_relative_paths = false, FileSystem* fs = nullptr);

/// The state recorded in "<checkpoint_dir>/<latest_filename>", with relative paths joined
/// onto `checkpoint_dir` and paths into another directory replaced by the files of the same
/// names in `checkpoint_dir` where those exist (PreferFilesInDirectory); nullopt if there is no such file, or if it cannot be read or
/// parsed (both logged as warnings, as TensorFlow does). `fs` null means DefaultFileSystem().
/// \throws ValueError "Invalid checkpoint state loaded from <checkpoint_dir>" if the file
///   parses but names no model checkpoint.
std::optional<CheckpointState> GetCheckpointState(const std::string& checkpoint_dir,
                                                  const std::string& latest_filename =
                                                      "checkpoint",
                                                  FileSystem* fs = nullptr);

/// Beyond TensorFlow: replaces each path of `state` that leads out of `checkpoint_dir` by
/// the file of the same name in `checkpoint_dir`, when that file exists, and logs a warning
/// naming the other directory. A state file written with absolute paths and then copied
/// with its directory thus names the copy's checkpoints, not the original's (which a run in
/// the copy would otherwise restore from, and rotate away). GetCheckpointState applies it.
void PreferFilesInDirectory(const std::string& checkpoint_dir, CheckpointState* state,
                            FileSystem& fs);

/// The newest checkpoint of `checkpoint_dir` if its file exists; otherwise nullopt, after
/// logging "Couldn't match files for checkpoint <p>" as an error when the state file names
/// a checkpoint that is gone. \throws ValueError as GetCheckpointState does.
std::optional<std::string> LatestCheckpoint(const std::string& checkpoint_dir,
                                            const std::string& latest_filename = "checkpoint",
                                            FileSystem* fs = nullptr);

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_STATE_H_
