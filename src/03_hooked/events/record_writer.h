// record_writer.h: writes TFRecords, the framing every TensorBoard event file uses.
//
// Stage 03, below FileWriter, whose thread hands it each serialized Event. Records lie back
// to back, with no file header, each
//   u64 length (little-endian) | u32 masked CRC-32C of those 8 bytes | payload |
//   u32 masked CRC-32C of the payload
// RecordReader (record_reader.h) undoes it. One thread at a time.
//
// Example: RecordWriter writer(fs->NewWritableFile(path)); writer.WriteRecord(bytes);
//
// TensorFlow: io::RecordWriter (tensorflow/core/lib/io/record_writer.h), without compression.
#ifndef MTS_SRC_03_HOOKED_EVENTS_RECORD_WRITER_H_
#define MTS_SRC_03_HOOKED_EVENTS_RECORD_WRITER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "src/platform/file_system.h"

namespace mts {

/// Appends TFRecord-framed records to a file.
///
/// Lifecycle: 1. construct around an open WritableFile (ownership moves in); 2. WriteRecord
/// any number of times, Flush or Sync when the data must leave the process; 3. Close, or
/// destroy the writer (which closes the file and never throws).
///
/// Thread safety: not thread-safe; one thread at a time.
///
/// TensorFlow: `io::RecordWriter`.
class RecordWriter {
 public:
  /// Bytes before the payload: the length and its masked CRC.
  static constexpr size_t kHeaderSize = 8 + 4;
  /// Bytes after the payload: its masked CRC.
  static constexpr size_t kFooterSize = 4;

  /// Writes records to `file`, taking ownership. \pre `file` is not null.
  explicit RecordWriter(std::unique_ptr<WritableFile> file);
  /// Closes the file if still open; never throws (a failure is logged).
  ~RecordWriter();

  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  /// The bytes of one record holding `payload`: header, payload, footer.
  /// FrameRecord(p).size() == p.size() + kHeaderSize + kFooterSize.
  static std::string FrameRecord(std::string_view payload);

  /// Appends one record holding `payload` (possibly buffered until Flush).
  /// \throws OpError from the file if the write fails; the file may then end in a partial
  ///         record, which a reader reports as truncated. FailedPreconditionError after Close.
  void WriteRecord(std::string_view payload);

  /// Hands buffered records to the operating system. \throws OpError on failure.
  void Flush();

  /// Flushes, then makes the records durable (fsync). \throws OpError on failure.
  void Sync();

  /// Flushes and closes the file; a second Close does nothing.
  /// \throws OpError if the final flush or close fails; the file is closed all the same.
  void Close();

 private:
  std::unique_ptr<WritableFile> file_;  // Null after Close.
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_EVENTS_RECORD_WRITER_H_
