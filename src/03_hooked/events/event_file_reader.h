// event_file_reader.h: reads TensorBoard event files back into Event protos, for tests, the
// book and anyone checking what a training run wrote.
//
// Stage 03, beside FileWriter, through RecordReader. EventFileReader walks a file's events
// in order; ReadEventFile and ReadEventDirectory gather a file, or a log directory's event
// files; ScalarSummaries picks out the (step, tag, value) triples TensorBoard plots. Thread
// safety: a reader is used by one thread at a time; the free functions from any thread.
//
// Example: for (const ScalarValue& s : ScalarSummaries(ReadEventDirectory("/tmp/run"))) ...
//
// TensorFlow: tf.compat.v1.train.summary_iterator (summary_iterator.py); TensorBoard's
// event_file_loader.py.
#ifndef MTS_SRC_03_HOOKED_EVENTS_EVENT_FILE_READER_H_
#define MTS_SRC_03_HOOKED_EVENTS_EVENT_FILE_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/03_hooked/events/event.pb.h"
#include "src/03_hooked/events/record_reader.h"
#include "src/platform/file_system.h"

namespace mts {

/// Reads the Events of one event file, in the order they were written.
///
/// Lifecycle: 1. construct (the file is read into memory then); 2. call Next until it
/// returns false. There is nothing to close.
///
/// Thread safety: one thread at a time.
///
/// TensorFlow: `tf.compat.v1.train.summary_iterator(path)`.
class EventFileReader {
 public:
  /// Reads the file at `path` through `fs` (DefaultFileSystem() when null).
  /// \throws NotFoundError naming the file if it is missing; another OpError if unreadable.
  explicit EventFileReader(const std::string& path, FileSystem* fs = nullptr);

  /// Parses the next record into `*event`.
  /// \returns false at the clean end of the file.
  /// \throws DataLossError naming the file and the record's offset if a CRC does not match
  ///         or the payload is not an Event; OutOfRangeError if the last record is cut short
  ///         (its writer may still be writing it). The reader does not move past the record.
  bool Next(tensorflow::Event* event);

  /// The byte offset of the next record: the end of the last one Next returned.
  uint64_t offset() const { return offset_; }

 private:
  RecordReader records_;
  uint64_t offset_ = 0;  // Where the next record starts: the end of the last Event read.
};

/// Every Event of the file at `path`, in order. \throws as EventFileReader::Next.
std::vector<tensorflow::Event> ReadEventFile(const std::string& path, FileSystem* fs = nullptr);

/// Whether `path` names an event file: its base name contains "tfevents", TensorBoard's test.
bool IsEventFileName(const std::string& path);

/// The event files in directory `dir` (not its subdirectories), as paths sorted by name,
/// which for TensorFlow's names is the order they were created within a second.
/// \throws NotFoundError naming `dir` if it does not exist.
std::vector<std::string> ListEventFiles(const std::string& dir, FileSystem* fs = nullptr);

/// The Events of every event file in `dir`, file after file in ListEventFiles order.
/// \throws NotFoundError if `dir` is missing; otherwise as EventFileReader::Next.
std::vector<tensorflow::Event> ReadEventDirectory(const std::string& dir, FileSystem* fs = nullptr);

/// One scalar value of a Summary: the step and wall time of its Event, its tag and value.
struct ScalarValue {
  int64_t step = 0;        ///< Event.step (0 when the event had none).
  double wall_time = 0;    ///< Event.wall_time, seconds since the epoch.
  std::string tag;         ///< Summary.Value.tag, e.g. "global_step/sec".
  float simple_value = 0;  ///< Summary.Value.simple_value.
};

/// The scalar values (Summary.Value with simple_value set) of `events`, in order: events
/// first, then values within a Summary. Histograms, images and other kinds are skipped.
std::vector<ScalarValue> ScalarSummaries(const std::vector<tensorflow::Event>& events);

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_EVENTS_EVENT_FILE_READER_H_
