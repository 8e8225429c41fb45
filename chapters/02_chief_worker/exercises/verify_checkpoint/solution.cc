// Reference solution of the checkpoint verifier exercise.
#include "chapters/02_chief_worker/exercises/verify_checkpoint/verify_checkpoint.h"
#include "src/platform/errors.h"
#include "src/02_chief_worker/checkpoint_file.h"

namespace mts {

CheckpointReport VerifyCheckpoint(FileSystem& fs, const std::string& path) {
  // The constructor checks the header and index; its DataLossError is ours to raise too.
  CheckpointReader reader(fs, path);
  CheckpointReport report;
  report.path = path;
  for (const CheckpointTensorInfo& info : reader.tensors()) {
    TensorReport tensor{info.name, info.dtype, info.shape, /*ok=*/true, ""};
    try {
      reader.Read(info.name);  // Verifies the checksum, then decodes.
    } catch (const DataLossError& e) {
      // Reported, not raised: the index placed every other tensor, so they can still be
      // checked. Only DataLossError means damage; anything else is a bug and propagates.
      tensor.ok = false;
      tensor.error = e.message();
    }
    report.tensors.push_back(std::move(tensor));
  }
  return report;
}

}  // namespace mts
