// record_reader.h: reads TFRecords back and checks both of each record's checksums.
//
//   EventFileReader     parses each record as an Event (event_file_reader.h)
//     RecordReader      <-- this file: undoes the framing RecordWriter wrote
//       FileSystem      the platform seam (src/platform/file_system.h)
//
// Reading one record ends one of four ways: at the end of the data (ReadRecord returns
// false); truncated part-way through a record, as a file looks while its writer appends
// (OutOfRangeError: keep the offset and retry later); corrupted, a checksum that does not
// match (DataLossError naming the file and offset; a damaged length is caught by its own
// CRC, so it is never taken for a truncation); or whole (the payload; the offset moves on).
// The reader works on the contents read once; to follow a growing file, read it again and
// resume at the offset where the last whole record ended.
//
// Example:
//   RecordReader reader = RecordReader::FromFile("/tmp/run/events.out.tfevents.1600000000.h");
//   std::string payload;
//   while (reader.ReadNext(&payload)) Handle(payload);
//
// Thread safety: ReadRecord is const and may be called from any number of threads; ReadNext
// moves the reader's own offset, so one thread at a time.
//
// TensorFlow: io::RecordReader and io::SequentialRecordReader
// (tensorflow/core/lib/io/record_reader.h).
#ifndef MTS_SRC_03_HOOKED_EVENTS_RECORD_READER_H_
#define MTS_SRC_03_HOOKED_EVENTS_RECORD_READER_H_

#include <cstdint>
#include <string>

#include "src/platform/file_system.h"

namespace mts {

/// Reads TFRecord-framed records from the contents of one file, checking their CRCs.
///
/// Lifecycle: 1. construct from contents (or FromFile); 2. ReadNext until it returns false,
/// or ReadRecord at offsets of your own. There is nothing to close.
///
/// Thread safety: ReadRecord is safe from many threads; ReadNext is one thread at a time.
///
/// TensorFlow: `io::RecordReader` and `io::SequentialRecordReader`.
class RecordReader {
 public:
  /// Reads records from `contents`, the bytes of the file `filename` (named in errors).
  RecordReader(std::string filename, std::string contents);

  /// Reads the whole file at `path` through `fs` (DefaultFileSystem() when null).
  /// \throws NotFoundError naming the file if it is missing; another OpError if it cannot
  ///         be read.
  static RecordReader FromFile(const std::string& path, FileSystem* fs = nullptr);

  /// Reads the record that starts at `*offset` into `*record` and moves `*offset` to the
  /// first byte after it.
  /// \returns false, leaving both untouched, when `*offset` is the end of the data.
  /// \throws OutOfRangeError naming the file and offset when the data ends inside the
  ///         record (a writer may still be writing it); `*offset` is unchanged, so the
  ///         same call can be retried on longer contents.
  /// \throws DataLossError naming the file and offset when the length's or the payload's
  ///         CRC does not match, or `*offset` lies beyond the end; `*offset` is unchanged.
  bool ReadRecord(uint64_t* offset, std::string* record) const;

  /// ReadRecord at this reader's own offset, which starts at 0.
  /// \returns false at the clean end of the data. \throws as ReadRecord, offset unchanged.
  bool ReadNext(std::string* record);

  /// Where ReadNext reads next: the end of the last whole record it returned.
  uint64_t offset() const { return offset_; }
  /// The file name given at construction.
  const std::string& filename() const { return filename_; }
  /// The number of bytes being read.
  uint64_t size() const { return contents_.size(); }

 private:
  std::string filename_;
  std::string contents_;
  uint64_t offset_ = 0;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_EVENTS_RECORD_READER_H_
