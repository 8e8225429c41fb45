// verify_checkpoint.h: an exercise of chapter 02. The core of a `checkpoint verify` tool.
//
//   Chief / Worker     the chief restores the latest checkpoint: is it sound?
//   Saver              writes and restores all tensors at once
//   checkpoint_file.h  the bytes on disk, each under a CRC-32C
//
// Before you copy a checkpoint to long-term storage, or after a disk reported errors, you
// want to know which of its tensors are still sound. Saver::Restore cannot tell you: it stops
// at the first problem, by design, and changes nothing. A verifier reads on past a bad
// tensor and reports every one.
//
// The format decides how far that can go. The header and the index share one checksum:
// if it fails, nothing in the index can be trusted (not the names, not where each tensor's
// data begins), so there is no list of tensors to report on, and VerifyCheckpoint raises
// DataLossError as CheckpointReader does. Each tensor's data has a checksum of its own, so
// a damaged data block spoils only that tensor: the report marks it and goes on.
//
// A sound file can still be the wrong one. Given what a model expects to restore (each
// variable's name in the checkpoint, its dtype and its shape), the verifier also says what a
// restore into that model would fail on: a name the file lacks, a dtype or shape that
// differs. A stored tensor nobody expects is fine: a Saver restores only what it is asked
// for (a model for serving has no optimizer slots, yet restores from a training checkpoint).
//
// Lifecycle: a function; call it on any path.
// Thread safety: may be called from any number of threads.
//
// Example:
//   CheckpointReport report = VerifyCheckpoint(*DefaultFileSystem(), "/tmp/run/model.ckpt-7");
//   for (const TensorReport& t : report.tensors)
//     std::printf("%s %s %s\n", t.name.c_str(), t.ok ? "ok" : "CORRUPT", t.error.c_str());
//
// TensorFlow: no verify tool ships with TF 1.x; inspect_checkpoint (print_tensors_in_
// checkpoint_file) reads every tensor and stops at the first error.
#ifndef MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_VERIFY_CHECKPOINT_VERIFY_CHECKPOINT_H_
#define MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_VERIFY_CHECKPOINT_VERIFY_CHECKPOINT_H_

#include <string>
#include <vector>

#include "src/01_session/tensor.h"
#include "src/platform/file_system.h"

namespace mts {

// [mts:verify-api]
/// What the verifier found about one stored tensor.
struct TensorReport {
  std::string name;   ///< As stored in the index.
  DataType dtype;     ///< As stored in the index.
  TensorShape shape;  ///< As stored in the index.
  bool ok = false;    ///< True if its data passed its checksum and decoded.
  std::string error;  ///< Why not, when !ok: the DataLossError's message.
};

/// What a model expects to restore from a checkpoint: one variable, by its stored name.
struct ExpectedTensor {
  std::string name;   ///< The name in the checkpoint (the variable's, unless mapped).
  DataType dtype;     ///< The variable's dtype.
  TensorShape shape;  ///< The variable's shape.
};

/// What the verifier found about a whole checkpoint.
struct CheckpointReport {
  std::string path;                   ///< The file verified.
  std::vector<TensorReport> tensors;  ///< One per stored tensor, sorted by name.
  /// The expected names the file does not hold, sorted: a restore would fail on them.
  std::vector<std::string> missing;
  /// True if every tensor is ok and nothing is missing (given).
  bool ok() const {
    for (const TensorReport& t : tensors) {
      if (!t.ok) return false;
    }
    return missing.empty();
  }
};

/// Reads the checkpoint at `path` and checks every tensor's data, reporting each one; a
/// tensor whose data is damaged is reported, not raised. With `expected`, also checks the
/// file against a model: an expected name that is not stored is listed in `missing`; a
/// stored tensor whose dtype or shape differs from the expected one is not ok, and its
/// error names both (and the damage too, if its data is also damaged); a stored tensor
/// that is not expected is judged by its data alone.
/// \throws NotFoundError if there is no file at `path`.
/// \throws DataLossError naming the file if its header or index is damaged or the file is
///   truncated: then no tensor can be located, and there is nothing to report on.
CheckpointReport VerifyCheckpoint(FileSystem& fs, const std::string& path,
                                  const std::vector<ExpectedTensor>& expected = {});
// [mts:verify-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_02_CHIEF_WORKER_EXERCISES_VERIFY_CHECKPOINT_VERIFY_CHECKPOINT_H_
