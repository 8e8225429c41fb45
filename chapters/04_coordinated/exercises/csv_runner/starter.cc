// Starter for the CSV reader exercise.
#include "chapters/04_coordinated/exercises/csv_runner/csv_runner.h"

#include <utility>

#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
std::function<void()> MakeCsvReader(std::string path, CsvEnqueueOps ops,
                                    SessionInterface* session, Coordinator* coord,
                                    FileSystem* fs) {
  return [path = std::move(path), ops = std::move(ops), session, coord, fs] {
    // TODO: inside coord->StopOnException:
    //   read the whole file with fs->ReadFile(path); for each line (count them from 1),
    //   stop if coord->ShouldStop(); skip a blank line; split it at the commas; check the
    //   number of fields; parse each field by ops.columns[i].dtype() into a scalar Tensor
    //   (Tensor::Scalar), throwing InvalidArgumentError("<path>:<line>: ...") when a field
    //   does not parse; feed the tensors to the placeholders and Run(ops.enqueue).
    // Then, whatever happened, run ops.close and ignore its errors.
  };
}
// [mts:exercise-todo-end]

}  // namespace mts
