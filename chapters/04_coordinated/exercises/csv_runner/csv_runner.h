// csv_runner.h: chapter 04's exercise: the body of an input thread that reads a CSV file
// and enqueues its rows, one element per row.
//
//   CoordinatedSession   its Coordinator stops this thread and rethrows its errors
//     HookedSession
//       ...
//         Session        <-- the thread runs an enqueue op through it, once per row
//   CSV reader thread    <-- this exercise: a CoordinatedThread beside the stack
//
// A QueueRunner keeps running one enqueue op, and the op itself finds the input (it
// dequeues from an upstream queue, or a reader op reads a file). Here the thread finds the
// input instead: it parses the file in C++ and feeds each row's values into placeholders
// that the enqueue op reads. That is the pattern TensorFlow 1.x documented as "feeding"
// a queue from Python; it is also the quickest way to put an unusual format on a queue.
//
// The reader behaves like a QueueRunner's enqueue thread in the two ways that matter:
//   - errors (a missing file, a bad row, a failed enqueue) are handed to the Coordinator,
//     which stops everyone and rethrows the error from Join;
//   - when the reading ends, for any reason, the reader closes the queue, so a consumer
//     blocked on Dequeue wakes up, drains what is left, and then gets OutOfRangeError.
//     OutOfRange alone does not say whether the input ended well; the Coordinator does.
//
// The CSV is the simplest kind: fields separated by commas, no quoting, no header. Blank
// lines are skipped.
//
// Example:
//   Queue q = FIFOQueue(100, {DataType::kInt32, DataType::kFloat}, {TensorShape{}, TensorShape{}});
//   CsvEnqueueOps ops;
//   ops.columns = {Placeholder(DataType::kInt32, TensorShape{}), Placeholder(DataType::kFloat, TensorShape{})};
//   ops.enqueue = q.Enqueue(ops.columns);
//   ops.close = q.Close();
//   auto reader = std::make_shared<CoordinatedThread>(
//       "csv_reader", MakeCsvReader("train.csv", ops, &session, &coord));
//   reader->Start();
//   ... session.Run(q.Dequeue()) until OutOfRangeError ...
//   coord.Join({reader});  // rethrows the reader's error, if it had one
//
// TensorFlow: the feeding pattern around tf.FIFOQueue.enqueue with placeholders; the
// graph-side equivalent is tf.TextLineReader with tf.decode_csv and a QueueRunner.
#ifndef MTS_CHAPTERS_04_COORDINATED_EXERCISES_CSV_RUNNER_CSV_RUNNER_H_
#define MTS_CHAPTERS_04_COORDINATED_EXERCISES_CSV_RUNNER_CSV_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "src/01_session/session_interface.h"
#include "src/04_coordinated/coordinator.h"
#include "src/platform/file_system.h"

namespace mts {

// [mts:csv-runner-api]
/// The graph side of a CSV reader: where one row's values go, and the queue's ops.
struct CsvEnqueueOps {
  /// One scalar placeholder per column. Its dtype says how the field is parsed: kInt32,
  /// kInt64, kFloat, kDouble or kString (taken as it is).
  std::vector<Output> columns;
  /// Enqueues the columns' values as one element (reads every placeholder).
  Operation* enqueue = nullptr;
  /// Closes the queue; a plain close, so rows already waiting to go in still go in.
  Operation* close = nullptr;
};

/// The body of a CoordinatedThread that reads the CSV file at `path` through `fs` and
/// enqueues its rows in order, one Run of `ops.enqueue` per row, fed through
/// `ops.columns`. It checks `coord->ShouldStop()` before each row.
///
/// The body never throws. Every error goes to `coord->RequestStop(error)`:
///   - the file cannot be read: what `fs->ReadFile` raised (NotFoundError, ...);
///   - a row has another number of fields than there are columns, or a field does not
///     parse as its column's dtype (the whole field, in range): InvalidArgumentError whose
///     message starts "<path>:<line number>: " (lines count from 1, blank ones included);
///   - running the enqueue op fails: that error.
/// However the reading ends (end of file, an error, a stop), the body then runs `ops.close`,
/// ignoring its errors (the queue may be closed already). A clean end of file requests no
/// stop: the consumer finds out from the queue.
///
/// \pre `session`, `coord` and `fs` outlive the thread; the ops are in `session`'s graph.
std::function<void()> MakeCsvReader(std::string path, CsvEnqueueOps ops,
                                    SessionInterface* session, Coordinator* coord,
                                    FileSystem* fs = DefaultFileSystem());
// [mts:csv-runner-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_04_COORDINATED_EXERCISES_CSV_RUNNER_CSV_RUNNER_H_
