// Starter for the checkpoint verifier exercise.
#include "chapters/02_chief_worker/exercises/verify_checkpoint/verify_checkpoint.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
CheckpointReport VerifyCheckpoint(FileSystem& fs, const std::string& path,
                                  const std::vector<ExpectedTensor>& expected) {
  // TODO: this lists the tensors but checks none of them, and ignores `expected`. The
  // header states the contract; the decisions are yours: which failures of the reader end
  // the verification and which become one tensor's report (what is left to report on
  // after each?), which exceptions you catch and which you let go (a bug is not damage),
  // and what goes into the report of a tensor that is both damaged and of the wrong shape.
  CheckpointReader reader(fs, path);
  CheckpointReport report;
  report.path = path;
  for (const CheckpointTensorInfo& info : reader.tensors()) {
    report.tensors.push_back({info.name, info.dtype, info.shape, /*ok=*/true, ""});
  }
  return report;
}
// [mts:exercise-todo-end]

}  // namespace mts
