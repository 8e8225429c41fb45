// crc32c.h: CRC-32C (Castagnoli) checksums, and the masking TFRecord files apply to them.
//
//   RecoverableSession ... Session     stages 01-07 (the summary writer frames event records)
//   ------------------------------------------------------------------------
//   platform            <-- below every stage: the platform seams
//                           (this file: crc32c; beside it Clock, FileSystem, logging)
//
// An events.out.tfevents file is a sequence of TFRecords, each framed as
//
//   uint64 length | uint32 masked_crc(length) | data | uint32 masked_crc(data)
//
// so that a reader (TensorBoard) can tell a torn final record from a whole one. The CRC is
// CRC-32C, the polynomial 0x1EDC6F41 that SSE4.2 computes in hardware. It is "masked" before
// it is stored because, as LevelDB's comment puts it, computing the CRC of a string that
// itself contains embedded CRCs is problematic; the mask rotates and offsets it.
//
// Two implementations that agree on every input. Crc32cExtendPortable is the plain
// table-driven one, a byte at a time: short enough to read next to the definition, and fast
// enough for event files. Checkpoints checksum every byte of every variable, though, and at
// a byte a cycle that made a restore of 64 MiB ten times slower than reading the file (see
// the performance appendix), so Crc32cExtend uses the CPU's own crc32 instruction (SSE4.2,
// eight bytes at a time) when the CPU has it, as TensorFlow does, and the table otherwise.
//
// Example:
//   uint32_t crc = Crc32c(data.data(), data.size());
//   crc = Crc32cExtend(crc, more.data(), more.size());   // == Crc32c(data + more)
//   uint32_t stored = MaskCrc(crc);                      // what goes into the file
//
// Thread safety: pure functions.
//
// TensorFlow: tensorflow/core/lib/hash/crc32c.h (crc32c::Value, Extend, Mask, Unmask), from
// LevelDB's util/crc32c.h.
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
