#include "src/03_hooked/events/record_writer.h"

#include <cstdint>
#include <exception>
#include <utility>

#include "src/platform/crc32c.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// Little-endian on every host, byte by byte, so the file is the same wherever it is written.
void AppendLittleEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

}  // namespace

RecordWriter::RecordWriter(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}

RecordWriter::~RecordWriter() {
  try {
    Close();
  } catch (const std::exception& e) {
    // A destructor must not throw; whoever needed the records on disk called Close.
    MTS_LOG(ERROR) << "RecordWriter: closing the file failed: " << e.what();
  }
}

// [mts:record-framing]
std::string RecordWriter::FrameRecord(std::string_view payload) {
  std::string record;
  record.reserve(kHeaderSize + payload.size() + kFooterSize);
  AppendLittleEndian(&record, payload.size(), 8);
  // The header's CRC covers the 8 encoded length bytes, not the integer.
  AppendLittleEndian(&record, MaskCrc(Crc32c(record.data(), 8)), 4);
  record.append(payload);
  AppendLittleEndian(&record, MaskCrc(Crc32c(payload)), 4);
  return record;
}
// [mts:record-framing-end]

void RecordWriter::WriteRecord(std::string_view payload) {
  if (file_ == nullptr) throw FailedPreconditionError("RecordWriter: WriteRecord after Close");
  // One Append per record: a crash leaves at most the last record partly written.
  file_->Append(FrameRecord(payload));
}

void RecordWriter::Flush() {
  if (file_ == nullptr) throw FailedPreconditionError("RecordWriter: Flush after Close");
  file_->Flush();
}

void RecordWriter::Sync() {
  if (file_ == nullptr) throw FailedPreconditionError("RecordWriter: Sync after Close");
  file_->Sync();
}

void RecordWriter::Close() {
  if (file_ == nullptr) return;
  std::unique_ptr<WritableFile> file = std::move(file_);
  file->Close();
}

}  // namespace mts
