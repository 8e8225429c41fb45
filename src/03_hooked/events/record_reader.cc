#include "src/03_hooked/events/record_reader.h"

#include <utility>

#include "src/03_hooked/events/record_writer.h"
#include "src/platform/crc32c.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

uint64_t DecodeLittleEndian(const char* p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(p[i]);
  }
  return value;
}

// Whether the masked CRC stored at `stored` matches the `n` bytes at `data`.
bool ChecksumMatches(const char* data, uint64_t n, const char* stored) {
  const auto masked = static_cast<uint32_t>(DecodeLittleEndian(stored, 4));
  return UnmaskCrc(masked) == Crc32c(data, n);
}

std::string Where(uint64_t offset, const std::string& filename) {
  return " at offset " + std::to_string(offset) + " in " + filename;
}

// What to do about a record cut short: its writer may be mid-write.
constexpr char kTruncatedAdvice[] =
    ". If a writer is still writing the file, read again later; otherwise the file was cut "
    "short and the records before this offset are all it holds.";
// What to do about a damaged record: the records before it passed their checksums.
constexpr char kCorruptAdvice[] =
    ". The file is damaged here; the records before this offset passed their checksums and "
    "can be used.";

}  // namespace

RecordReader::RecordReader(std::string filename, std::string contents)
    : filename_(std::move(filename)), contents_(std::move(contents)) {}

RecordReader RecordReader::FromFile(const std::string& path, FileSystem* fs) {
  if (fs == nullptr) fs = DefaultFileSystem();
  return RecordReader(path, fs->ReadFile(path));
}

bool RecordReader::ReadRecord(uint64_t* offset, std::string* record) const {
  const uint64_t start = *offset;
  const uint64_t size = contents_.size();
  if (start == size) return false;
  if (start > size) {
    throw DataLossError("offset past the end of the data (" + std::to_string(size) + " bytes)" +
                        Where(start, filename_));
  }
  const uint64_t available = size - start;
  const char* header = contents_.data() + start;

  // The header first: until its CRC matches, the length is not to be trusted, and a damaged
  // length must not be mistaken for a record the writer has yet to finish.
  if (available < RecordWriter::kHeaderSize) {
    throw OutOfRangeError("truncated record (header)" + Where(start, filename_) + kTruncatedAdvice);
  }
  if (!ChecksumMatches(header, 8, header + 8)) {
    throw DataLossError("corrupted record (length checksum mismatch)" + Where(start, filename_) +
                        kCorruptAdvice);
  }
  const uint64_t length = DecodeLittleEndian(header, 8);

  // Subtracting keeps the comparison free of overflow whatever the length claims.
  const uint64_t after_header = available - RecordWriter::kHeaderSize;
  if (after_header < RecordWriter::kFooterSize ||
      after_header - RecordWriter::kFooterSize < length) {
    throw OutOfRangeError("truncated record (payload of " + std::to_string(length) + " bytes)" +
                          Where(start, filename_) + kTruncatedAdvice);
  }
  const char* payload = header + RecordWriter::kHeaderSize;
  if (!ChecksumMatches(payload, length, payload + length)) {
    throw DataLossError("corrupted record (payload checksum mismatch)" + Where(start, filename_) +
                        kCorruptAdvice);
  }
  record->assign(payload, length);
  *offset = start + RecordWriter::kHeaderSize + length + RecordWriter::kFooterSize;
  return true;
}

bool RecordReader::ReadNext(std::string* record) { return ReadRecord(&offset_, record); }

}  // namespace mts
