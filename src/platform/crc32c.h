// crc32c.h: CRC-32C (Castagnoli) checksums, and the masking TFRecord files apply to them.
//
// Platform, below every stage: event records and checkpoints are checksummed with these.
// Crc32cExtendPortable is the table-driven implementation, a byte at a time; Crc32cExtend
// uses the CPU's crc32 instruction (SSE4.2) when there is one and agrees with it on every
// input. MaskCrc rotates and offsets a CRC before it is stored. Pure functions.
//
// Example:
//   uint32_t crc = Crc32cExtend(Crc32c(data.data(), data.size()), more.data(), more.size());
//   uint32_t stored = MaskCrc(crc);                      // what goes into the file
//
// TensorFlow: tensorflow/core/lib/hash/crc32c.h, from LevelDB's util/crc32c.h.
#ifndef MTS_SRC_PLATFORM_CRC32C_H_
#define MTS_SRC_PLATFORM_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mts {

/// The CRC-32C of `n` bytes at `data`. Crc32c("123456789", 9) == 0xE3069283.
uint32_t Crc32c(const void* data, size_t n);

/// The CRC-32C of the bytes of `data`.
inline uint32_t Crc32c(std::string_view data) { return Crc32c(data.data(), data.size()); }

/// The CRC-32C of A followed by the `n` bytes at `data`, given `crc` == Crc32c(A): lets a
/// checksum be computed piece by piece. Crc32cExtend(0, data, n) == Crc32c(data, n).
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n);

/// Crc32cExtend computed from the table alone, whatever the CPU: the readable definition,
/// which the hardware path must agree with.
uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t n);

/// The masked form of `crc` stored in TFRecord files: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
inline uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

/// Undoes MaskCrc: UnmaskCrc(MaskCrc(crc)) == crc.
inline uint32_t UnmaskCrc(uint32_t masked) {
  const uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

}  // namespace mts

#endif  // MTS_SRC_PLATFORM_CRC32C_H_
