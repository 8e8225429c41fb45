// Reference solution of the checkpoint verifier exercise.
#include <algorithm>

#include "chapters/02_chief_worker/exercises/verify_checkpoint/verify_checkpoint.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/platform/errors.h"

namespace mts {

CheckpointReport VerifyCheckpoint(FileSystem& fs, const std::string& path,
                                  const std::vector<ExpectedTensor>& expected) {
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
  // Against the model: by name, as a restore looks tensors up. Both problems of a tensor
  // are reported, since fixing one would not fix the other.
  for (const ExpectedTensor& want : expected) {
    if (!reader.Has(want.name)) {
      report.missing.push_back(want.name);
      continue;
    }
    const CheckpointTensorInfo& stored = reader.Info(want.name);
    if (stored.dtype == want.dtype && stored.shape == want.shape) continue;
    for (TensorReport& tensor : report.tensors) {
      if (tensor.name != want.name) continue;
      tensor.ok = false;
      tensor.error += std::string(tensor.error.empty() ? "" : "; ") + "the model expects " +
                      DataTypeName(want.dtype) + " " + want.shape.ToString() + ", the file holds " +
                      DataTypeName(stored.dtype) + " " + stored.shape.ToString();
    }
  }
  std::sort(report.missing.begin(), report.missing.end());
  return report;
}

}  // namespace mts
