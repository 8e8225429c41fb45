// The checkpoint verifier exercise of chapter 02: VerifyCheckpoint(), so that
// verify_checkpoint_test passes. The part to write lies between the
// `[mts:lab verify_checkpoint]` markers; the comment outside them says what to decide.
#include <algorithm>

#include "chapters/02_chief_worker/exercises/verify_checkpoint/verify_checkpoint.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
CheckpointReport VerifyCheckpoint(FileSystem& fs, const std::string& path,
                                  const std::vector<ExpectedTensor>& expected) {
  // TODO(student): CheckpointReader reader(fs, path) opens the file; reader.tensors() lists
  // what its index holds (name, dtype, shape), reader.Read(name) reads one value, and
  // reader.Has(name) and reader.Info(name) look one up. Listing the tensors is not checking
  // them, and `expected` must be checked too. The header states the contract; the
  // decisions are yours: which failures of the reader end the verification and which
  // become one tensor's report (what is left to report on after each?), which exceptions
  // you catch and which you let go (a bug is not damage), and what goes into the report of
  // a tensor that is both damaged and of the wrong shape.
  // [mts:lab verify_checkpoint]
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
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
