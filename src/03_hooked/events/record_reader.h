// record_reader.h: reads TFRecords back and checks both of each record's checksums.
//
//   EventFileReader     parses each record as an Event (event_file_reader.h)
//     RecordReader      <-- this file: undoes the framing RecordWriter wrote
//       FileSystem      the platform seam (src/platform/file_system.h)
//
// The framing (record_writer.h) is u64 length | masked CRC of the length | payload | masked
// CRC of the payload. Reading one record can end four ways, and each has its own outcome,
// because the callers want to do different things about them:
//
//   - clean end: the offset is exactly the end of the data. ReadRecord returns false.
//   - truncated: the data ends part-way through a record. That is what a file looks like
//     while its writer is still appending, so it is an OutOfRangeError (not data loss):
//     a reader tailing a live event file keeps its offset and tries again later.
//   - corrupted: a checksum does not match. DataLossError, naming the file and the offset
//     of the record. A damaged length is caught by the header's CRC before the reader
//     trusts it, so one flipped byte anywhere in a record is always reported as corruption,
//     never as a truncation.
//   - whole: the payload is returned and the offset moves past the record.
//
// TensorFlow's own reader calls a truncated record DATA_LOSS too; mts separates the two so
// that "wait for the writer" and "the file is damaged" cannot be confused.
//
// The reader works on the file's contents in memory, read once; to follow a growing file,
// read it again and resume at the offset where the last whole record ended.
//
// Example:
//   RecordReader reader = RecordReader::FromFile("/tmp/run/events.out.tfevents.1600000000.h");
//   std::string payload;
//   while (reader.ReadNext(&payload)) Handle(payload);
//
// Thread safety: ReadRecord is const and may be called from any number of threads; ReadNext
// moves the reader's own offset, so one thread at a time.
//
// TensorFlow: tensorflow/core/lib/io/record_reader.h (io::RecordReader::ReadRecord and its
// ReadChecksummed), and io::SequentialRecordReader.
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
