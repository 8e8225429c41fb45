// inspect_checkpoint.h: what a checkpoint holds and whether every byte of it is sound, for
// `bazel run //tools:inspect_checkpoint -- FILE_OR_DIR`.
//
//   tools/                 <-- inspect_checkpoint, inspect_events, plot_scalars: read what
//                              a training run left behind, without running anything
//   checkpoint_state.h     LatestCheckpoint: which checkpoint is a directory's newest
//   checkpoint_file.h      CheckpointReader: the index, and each tensor under its checksum
//
// A TF1 user who wonders what a checkpoint holds runs TensorFlow's inspect_checkpoint; this
// is its counterpart for mts's format. Given a checkpoint, or a directory (its newest
// checkpoint), it prints one line per tensor in TensorFlow's style, `name (DT_FLOAT) [2,3]`;
// with a tensor name, that tensor's values; with all_tensors, every tensor's values. In
// every mode it reads every tensor, so every checksum is checked, and it ends by saying
// whether all of them held. The listing comes from the index alone; a tensor whose data
// fails its checksum is marked, and the reader goes on to the next.
//
// Example:
//   InspectCheckpoint("/tmp/mts_spirals", {}, std::cout, std::cerr);
//     Checkpoint /tmp/mts_spirals/model.ckpt-1000 (the newest in /tmp/mts_spirals): ...
//     global_step (DT_INT64) []
//     ...
//     Every checksum holds: the header and index, and the data of all <n> tensors.
//
// Thread safety: may be called from any number of threads (output streams aside).
//
// TensorFlow: tensorflow/python/tools/inspect_checkpoint.py
// (print_tensors_in_checkpoint_file).
#ifndef MTS_TOOLS_INSPECT_CHECKPOINT_H_
#define MTS_TOOLS_INSPECT_CHECKPOINT_H_

#include <ostream>
#include <string>

#include "src/platform/file_system.h"

namespace mts {

/// What to print besides the verdict on the checksums.
struct InspectCheckpointOptions {
  /// If not empty, print this tensor's values instead of the list of tensors.
  std::string tensor_name;
  /// Print every tensor's name and values instead of the list of tensors.
  bool all_tensors = false;
};

/// Inspects the checkpoint at `path`, or, if `path` is a directory, its newest checkpoint
/// (LatestCheckpoint; when the state file names none, the newest checkpoint file by step).
/// Writes the report to `out` and each problem, naming the file, to `err`. `fs` null means
/// DefaultFileSystem().
/// \returns the exit status: 0 if the checkpoint was found and every checksum holds; 1 if
///   there is no checkpoint, the file is damaged, or `tensor_name` is not in it.
/// Never throws an OpError: every error is reported to `err`.
int InspectCheckpoint(const std::string& path, const InspectCheckpointOptions& options,
                      std::ostream& out, std::ostream& err, FileSystem* fs = nullptr);

}  // namespace mts

#endif  // MTS_TOOLS_INSPECT_CHECKPOINT_H_
