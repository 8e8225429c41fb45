// event_file_reader_fuzzer.cc: libFuzzer target for EventFileReader and RecordReader
// (event_file_reader.h, record_reader.h).
//
// The promise under test: any bytes, read as an event file, give whole Events and then a
// clean end, DataLossError (a damaged record) or OutOfRangeError (a record cut short);
// nothing crashes, reads out of bounds or allocates beyond the file's size; and after an
// error the reader's offset has not moved past the record at fault.
//
// As in checkpoint_reader_fuzzer.cc, inputs whose first byte is odd get their record CRCs
// repaired first, so the fuzzer reaches the Event parsing behind them.
//
// Build and run: tools/fuzz.sh (see tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "src/03_hooked/events/event.pb.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/platform/crc32c.h"
#include "src/platform/errors.h"
#include "tests/fuzz/fuzz_file_system.h"

namespace {

uint32_t Stored(const char* p, uint64_t n) { return mts::MaskCrc(mts::Crc32c(p, n)); }

// TFRecord framing: u64 length, u32 crc(length), payload, u32 crc(payload).
void RepairChecksums(std::string* file) {
  uint64_t pos = 0;
  while (file->size() - pos >= 12) {
    uint64_t length = 0;
    std::memcpy(&length, file->data() + pos, 8);
    const uint32_t length_crc = Stored(file->data() + pos, 8);
    std::memcpy(file->data() + pos + 8, &length_crc, 4);
    if (length > file->size() - pos - 12 || file->size() - pos - 12 - length < 4) return;
    const uint32_t payload_crc = Stored(file->data() + pos + 12, length);
    std::memcpy(file->data() + pos + 12 + length, &payload_crc, 4);
    pos += 16 + length;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string contents(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) RepairChecksums(&contents);
  const std::string path = "/fuzz/events.out.tfevents.1.host";
  mts::OneFileFileSystem fs(path, contents);
  mts::EventFileReader reader(path, &fs);
  tensorflow::Event event;
  uint64_t last = 0;
  try {
    while (reader.Next(&event)) {
      if (reader.offset() <= last || reader.offset() > contents.size()) __builtin_trap();
      last = reader.offset();
    }
    if (reader.offset() != contents.size()) __builtin_trap();  // A clean end is the end.
  } catch (const mts::DataLossError&) {
    if (reader.offset() != last) __builtin_trap();
  } catch (const mts::OutOfRangeError&) {
    if (reader.offset() != last) __builtin_trap();
  }
  return 0;
}
