// checkpoint_layout.h: what the writer and the reader of a checkpoint file must agree on:
// the sizes of the fixed fields, the dtype codes on disk, little-endian encoding and the
// stored checksum. The layout itself is documented in checkpoint_file.h.
//
//   Saver (saver.h)
//   checkpoint_file.h      WriteCheckpoint (checkpoint_writer.cc), CheckpointReader
//                          (checkpoint_reader.cc)
//   checkpoint_layout.h <-- this file: the one table both sides read
//
// Internal to the checkpoint_file library; nothing else includes it.
//
// TensorFlow: the constants and the varint/fixed encodings of
// tensorflow/core/util/tensor_bundle/ and tensorflow/core/lib/core/coding.h.
#ifndef MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_LAYOUT_H_
#define MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "src/01_session/types.h"
#include "src/platform/crc32c.h"

namespace mts {
namespace internal {

// Element data is copied with memcpy, which writes the host's byte order; the format says
// little-endian, so refuse to build where the two differ rather than write unreadable files.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the checkpoint format assumes a little-endian host");

/// Magic, version, count, index size, file size.
inline constexpr size_t kHeaderSize = 32;
/// The checksum of header and index, after the index.
inline constexpr size_t kHeaderCrcSize = 4;
/// The highest rank a stored tensor may have.
inline constexpr int kMaxRank = 32;

/// TensorFlow's DataType enum numbers, so a hex dump reads familiar. One table read both
/// ways, so writing and reading cannot disagree about a code.
struct DiskDtypeCode {
  DataType dtype;  ///< The element type.
  uint8_t code;    ///< Its byte in the index.
};
inline constexpr DiskDtypeCode kDiskDtypes[] = {
    {DataType::kFloat, 1},  {DataType::kDouble, 2}, {DataType::kInt32, 3},
    {DataType::kString, 7}, {DataType::kInt64, 9},  {DataType::kBool, 10},
};

/// The code of `dtype` on disk.
inline uint8_t DiskDtype(DataType dtype) {
  for (const DiskDtypeCode& entry : kDiskDtypes) {
    if (entry.dtype == dtype) return entry.code;
  }
  return 0;  // Unreachable: every dtype is in the table.
}

/// The dtype of `code` into `*dtype`; false if no dtype has that code.
inline bool DtypeFromDisk(uint8_t code, DataType* dtype) {
  for (const DiskDtypeCode& entry : kDiskDtypes) {
    if (entry.code == code) {
      *dtype = entry.dtype;
      return true;
    }
  }
  return false;
}

/// Appends `value` to `out`, little-endian.
template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

/// The little-endian T at `p`.
template <typename T>
T Get(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

/// The checksum as the file stores it: the masked CRC-32C of `n` bytes at `data`.
inline uint32_t StoredCrc(const char* data, size_t n) { return MaskCrc(Crc32c(data, n)); }

}  // namespace internal
}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_LAYOUT_H_
