// Starter for the CSV reader exercise.
#include <utility>

#include "chapters/04_coordinated/exercises/csv_runner/csv_runner.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
std::function<void()> MakeCsvReader(std::string path, CsvEnqueueOps ops, SessionInterface* session,
                                    Coordinator* coord, FileSystem* fs) {
  return [path = std::move(path), ops = std::move(ops), session, coord, fs] {
    // TODO: the contract is in the header (csv_runner.h): rows in order, one Run of
    // ops.enqueue per row fed through ops.columns, every error to the coordinator with
    // "<path>:<line>: ", and the queue closed however the reading ends. Decide what a row
    // is (a blank line? a trailing comma?), what "parses as int32" excludes (overflow,
    // "12abc", an empty field), when to look at coord->ShouldStop(), and the order of
    // "record the error" and "close the queue", so that a consumer woken by the close
    // already finds the error. Which errors of the close itself may you ignore, and why?
  };
}
// [mts:exercise-todo-end]

}  // namespace mts
