#include "src/platform/crc32c.h"

#include <array>

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

uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n) {
  // The register starts at all ones and is inverted at the end (so leading zero bytes still
  // change the CRC); extending therefore undoes the final inversion first.
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint32_t reg = ~crc;
  for (size_t i = 0; i < n; ++i) {
    reg = kTable[(reg ^ bytes[i]) & 0xFF] ^ (reg >> 8);
  }
  return ~reg;
}

uint32_t Crc32c(const void* data, size_t n) { return Crc32cExtend(0, data, n); }

}  // namespace mts
