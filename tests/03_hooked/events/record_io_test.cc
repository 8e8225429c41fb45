// Tests of record_writer.h and record_reader.h: records round-trip; the bytes of a frame are
// the ones TensorFlow writes; every single-byte corruption is caught as data loss, naming
// the file and the record's offset; a record cut short reads as "truncated", not as damage.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/03_hooked/events/record_reader.h"
#include "src/03_hooked/events/record_writer.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return JoinPath(dir != nullptr ? dir : "/tmp", name);
}

// Payloads of several sizes, including the empty one and one past 255 bytes (so that more
// than one length byte is non-zero).
std::vector<std::string> Payloads() {
  return {"", "a", "hello, records", std::string(300, 'x'), std::string("\0\1\2\xff", 4)};
}

std::string FrameAll(const std::vector<std::string>& payloads) {
  std::string data;
  for (const std::string& p : payloads) data += RecordWriter::FrameRecord(p);
  return data;
}

std::vector<std::string> ReadAll(RecordReader reader) {
  std::vector<std::string> records;
  std::string record;
  while (reader.ReadNext(&record)) records.push_back(record);
  return records;
}

// Records written to a real file come back, in order, and the reader ends cleanly.
TEST(RecordIoTest, RecordsRoundTripThroughAFile) {
  const std::string path = TempPath("round_trip.records");
  {
    RecordWriter writer(DefaultFileSystem()->NewWritableFile(path));
    for (const std::string& p : Payloads()) writer.WriteRecord(p);
    writer.Close();
  }
  RecordReader reader = RecordReader::FromFile(path);
  EXPECT_EQ(ReadAll(reader), Payloads());
  EXPECT_EQ(reader.size(), FrameAll(Payloads()).size());
}

// A record is 16 bytes longer than its payload; the reader's offset lands on each boundary.
TEST(RecordIoTest, OffsetsAdvanceByPayloadPlusSixteen) {
  RecordReader reader("mem", FrameAll({"abc", "de"}));
  std::string record;
  ASSERT_TRUE(reader.ReadNext(&record));
  EXPECT_EQ(reader.offset(), 3u + 16u);
  ASSERT_TRUE(reader.ReadNext(&record));
  EXPECT_EQ(reader.offset(), 3u + 16u + 2u + 16u);
  EXPECT_FALSE(reader.ReadNext(&record));
  EXPECT_EQ(reader.offset(), 3u + 16u + 2u + 16u);
}

// The frame of TensorFlow's 24-byte first event starts with the same 12 bytes as every real
// TF 1.x event file: length 24, then its masked CRC a3 7f 4b 22.
TEST(RecordIoTest, FrameHeaderMatchesTensorFlowsFirstRecord) {
  const std::string frame = RecordWriter::FrameRecord(std::string(24, '\0'));
  const std::string expected_header("\x18\0\0\0\0\0\0\0\xa3\x7f\x4b\x22", 12);
  EXPECT_EQ(frame.substr(0, 12), expected_header);
  EXPECT_EQ(frame.size(), 24u + 16u);
}

// Reading at an offset is independent of the reader's own position and leaves the offset
// alone at the end.
TEST(RecordIoTest, ReadRecordAtAnOffset) {
  const std::string data = FrameAll({"first", "second"});
  const RecordReader reader("mem", data);
  uint64_t offset = RecordWriter::FrameRecord("first").size();
  std::string record;
  ASSERT_TRUE(reader.ReadRecord(&offset, &record));
  EXPECT_EQ(record, "second");
  EXPECT_EQ(offset, data.size());
  EXPECT_FALSE(reader.ReadRecord(&offset, &record));
  EXPECT_EQ(offset, data.size());
}

// Flipping any one bit pattern in any one byte, of either record, is reported as
// DataLossError naming the file and the offset of the damaged record; the records before
// it still read.
TEST(RecordIoTest, EverySingleByteCorruptionIsDataLoss) {
  const std::vector<std::string> payloads = {"first record", std::string(270, 'q')};
  const std::string good = FrameAll(payloads);
  const uint64_t second_start = RecordWriter::FrameRecord(payloads[0]).size();
  for (const unsigned char flip : {0x01, 0x80, 0xff}) {
    for (size_t i = 0; i < good.size(); ++i) {
      std::string bad = good;
      bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ flip);
      RecordReader reader("damaged.records", bad);
      const uint64_t damaged_start = i < second_start ? 0 : second_start;
      std::string record;
      if (damaged_start > 0) {
        ASSERT_TRUE(reader.ReadNext(&record));
        EXPECT_EQ(record, payloads[0]);
      }
      const std::string where =
          "at offset " + std::to_string(damaged_start) + " in damaged.records";
      EXPECT_THAT([&] { reader.ReadNext(&record); }, ThrowsMessage<DataLossError>(HasSubstr(where)))
          << "byte " << i << " ^ " << int{flip};
      EXPECT_EQ(reader.offset(), damaged_start);
    }
  }
}

// Every proper prefix of a record (a writer caught mid-write) is OutOfRangeError, not data
// loss; the offset stays put, and once the rest arrives the same reader position reads it.
TEST(RecordIoTest, TruncatedLastRecordIsOutOfRangeAndRetryable) {
  const std::string whole = FrameAll({"done", "in progress"});
  const uint64_t second_start = RecordWriter::FrameRecord("done").size();
  for (size_t cut = second_start + 1; cut < whole.size(); ++cut) {
    const RecordReader partial("live.records", whole.substr(0, cut));
    uint64_t offset = second_start;
    std::string record;
    EXPECT_THROW(partial.ReadRecord(&offset, &record), OutOfRangeError) << "cut at " << cut;
    EXPECT_EQ(offset, second_start);

    const RecordReader grown("live.records", whole);
    ASSERT_TRUE(grown.ReadRecord(&offset, &record));
    EXPECT_EQ(record, "in progress");
  }
}

// The truncation message says where, and says that a writer may still be at work.
TEST(RecordIoTest, TruncationMessageNamesFileAndOffset) {
  RecordReader reader("live.records", RecordWriter::FrameRecord("payload").substr(0, 5));
  std::string record;
  EXPECT_THAT([&] { reader.ReadNext(&record); },
              ThrowsMessage<OutOfRangeError>(
                  AllOf(HasSubstr("truncated record"), HasSubstr("at offset 0 in live.records"))));
}

// A length the header's CRC vouches for, but far beyond the data, is a truncation, and the
// arithmetic does not overflow even for the largest length.
TEST(RecordIoTest, HugeLengthWithValidHeaderIsTruncation) {
  const std::string length(8, '\xff');  // 2^64 - 1, little-endian
  // The footer of a record whose payload is those 8 bytes is their masked CRC: exactly the
  // checksum a header announcing that length carries.
  const std::string framed_length = RecordWriter::FrameRecord(length);
  const std::string data = length + framed_length.substr(framed_length.size() - 4) + "abc";
  RecordReader reader("huge.records", data);
  std::string record;
  EXPECT_THROW(reader.ReadNext(&record), OutOfRangeError);
}

// Reading a missing file names it.
TEST(RecordIoTest, MissingFileIsNotFound) {
  EXPECT_THROW(RecordReader::FromFile(TempPath("no_such.records")), NotFoundError);
}

// Writing after Close is refused; a second Close does nothing.
TEST(RecordIoTest, WriteAfterCloseFailsAndCloseIsIdempotent) {
  RecordWriter writer(DefaultFileSystem()->NewWritableFile(TempPath("closed.records")));
  writer.Close();
  writer.Close();
  EXPECT_THROW(writer.WriteRecord("late"), FailedPreconditionError);
}

}  // namespace
}  // namespace mts
