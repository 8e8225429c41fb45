#include "src/platform/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace mts {
namespace {

// CRC-32C in its reflected form: the polynomial 0x1EDC6F41 with its bits reversed. Reflected
// CRCs consume each byte from its least significant bit, so the register shifts right.
constexpr uint32_t kReflectedPolynomial = 0x82F63B78u;

// kTable[b] is the effect on the register of feeding it byte b: eight steps of long division
// by the polynomial, done once at compile time instead of once per byte.
constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) ? (crc >> 1) ^ kReflectedPolynomial : crc >> 1;
    }
    table[byte] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = MakeTable();

}  // namespace

uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t n) {
  // The register starts at all ones and is inverted at the end (so leading zero bytes still
  // change the CRC); extending therefore undoes the final inversion first.
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint32_t reg = ~crc;
  for (size_t i = 0; i < n; ++i) {
    reg = kTable[(reg ^ bytes[i]) & 0xFF] ^ (reg >> 8);
  }
  return ~reg;
}

#if defined(__x86_64__)
namespace {

// The same register, advanced by the SSE4.2 crc32 instruction, which divides by this very
// polynomial in its reflected form: eight bytes per instruction, then the odd bytes one by
// one. Compiled for SSE4.2 alone, and called only when the CPU says it has it.
__attribute__((target("sse4.2"))) uint32_t Crc32cExtendSse42(uint32_t crc, const void* data,
                                                             size_t n) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint64_t reg = ~crc;
  for (; n >= 8; n -= 8, bytes += 8) {
    uint64_t word;
    std::memcpy(&word, bytes, 8);  // Unaligned loads are fine; memcpy says so to the compiler.
    reg = _mm_crc32_u64(reg, word);
  }
  uint32_t reg32 = static_cast<uint32_t>(reg);
  for (; n > 0; --n, ++bytes) reg32 = _mm_crc32_u8(reg32, *bytes);
  return ~reg32;
}

// Asked once, on first use (possibly from another file's static initializer, hence the
// explicit __builtin_cpu_init).
bool HaveSse42() {
  static const bool have = (__builtin_cpu_init(), __builtin_cpu_supports("sse4.2"));
  return have;
}

}  // namespace
#endif

uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n) {
#if defined(__x86_64__)
  if (HaveSse42()) return Crc32cExtendSse42(crc, data, n);
#endif
  return Crc32cExtendPortable(crc, data, n);
}

uint32_t Crc32c(const void* data, size_t n) { return Crc32cExtend(0, data, n); }

}  // namespace mts
