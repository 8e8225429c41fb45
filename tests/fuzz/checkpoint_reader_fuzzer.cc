// checkpoint_reader_fuzzer.cc: libFuzzer target for CheckpointReader (checkpoint_file.h).
//
// The promise under test: any bytes at all, read as a checkpoint, either raise DataLossError
// or give tensors whose dtype and shape are what the index says; nothing crashes, reads out
// of bounds, leaks, or allocates beyond the file's own size.
//
// Checksums stop random bytes at the door, so half the inputs (first byte odd) get their
// checksums repaired before reading: every CRC the index describes and the header CRC are
// recomputed. That sends the fuzzer past the CRCs into the index and data decoding, which is
// what a hostile (not merely damaged) file would attack.
//
// Build and run: tools/fuzz.sh (see tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "src/platform/errors.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/platform/crc32c.h"
#include "tests/fuzz/fuzz_file_system.h"

namespace {

template <typename T>
bool GetAt(const std::string& s, uint64_t pos, T* value) {
  if (pos > s.size() || s.size() - pos < sizeof(T)) return false;
  std::memcpy(value, s.data() + pos, sizeof(T));
  return true;
}

template <typename T>
void PutAt(std::string* s, uint64_t pos, T value) {
  std::memcpy(s->data() + pos, &value, sizeof(T));
}

uint32_t Stored(const char* p, uint64_t n) { return mts::MaskCrc(mts::Crc32c(p, n)); }

// Walks the index the way checkpoint_file.h lays it out, recomputing each tensor's data CRC
// where its extent lies inside the file, then the header-and-index CRC. Stops quietly at the
// first thing it cannot follow: the reader must cope with whatever is left.
void RepairChecksums(std::string* file) {
  uint64_t index_size = 0;
  uint32_t count = 0;
  if (!GetAt(*file, 12, &count) || !GetAt(*file, 16, &index_size)) return;
  if (index_size > file->size() || file->size() - index_size < 36) return;
  PutAt<uint64_t>(file, 24, file->size());  // The recorded file size, too.
  const uint64_t index_end = 32 + index_size;
  const uint64_t data_start = index_end + 4;
  uint64_t pos = 32;
  for (uint32_t i = 0; i < count && pos < index_end; ++i) {
    uint32_t name_size = 0;
    uint8_t rank = 0;
    if (!GetAt(*file, pos, &name_size) || name_size > index_end - pos - 4) break;
    pos += 4 + name_size + 1;
    if (!GetAt(*file, pos, &rank)) break;
    pos += 1 + 8 * uint64_t{rank};
    uint64_t offset = 0, length = 0;
    if (pos + 20 > index_end || !GetAt(*file, pos, &offset) || !GetAt(*file, pos + 8, &length)) {
      break;
    }
    const uint64_t data_size = file->size() - data_start;
    if (offset <= data_size && length <= data_size - offset) {
      PutAt(file, pos + 16, Stored(file->data() + data_start + offset, length));
    }
    pos += 20;
  }
  PutAt(file, index_end, Stored(file->data(), index_end));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string contents(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) RepairChecksums(&contents);
  const std::string path = "/fuzz/model.ckpt-1";
  mts::OneFileFileSystem fs(path, contents);
  try {
    mts::CheckpointReader reader(fs, path);
    for (const mts::CheckpointTensorInfo& info : reader.tensors()) {
      try {
        const mts::Tensor value = reader.Read(info.name);
        if (value.dtype() != info.dtype || value.shape() != info.shape) __builtin_trap();
      } catch (const mts::DataLossError&) {
        // Damaged data of one tensor: the others may still be read.
      }
    }
  } catch (const mts::DataLossError&) {
    // The documented answer to a damaged file.
  }
  return 0;
}
