#include "src/platform/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
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

// [mts:crc32c-fold]
// The crc32 instruction above does eight bytes per instruction, but each one waits for the
// one before (the register is its input): one stream runs at a third of the instruction's
// throughput, slower than the kernel copies the bytes into memory. For large buffers the
// division is instead split up by "folding" (Gopal et al., Intel, "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ", 2009): a CRC is linear, so a 16-byte block V may be
// replaced by any block congruent to V * x^D modulo the polynomial P and added (XOR) into the
// block D bits further on, without changing the CRC of the whole. The carry-less multiply
// (VPCLMULQDQ) computes that congruent block with two 64 x 32-bit products against
// constants x^k mod P; sixteen blocks (four 64-byte registers) are folded independently,
// 256 bytes ahead at a time, and at the end they fold into one, whose CRC the crc32
// instruction finishes.

// x^k mod P, in the usual (unreflected) form: bit d is the coefficient of x^d.
constexpr uint64_t XPowModP(int k) {
  uint64_t r = 1;
  for (int i = 0; i < k; ++i) {
    r <<= 1;
    if (r & (uint64_t{1} << 32)) r ^= 0x11EDC6F41ull;  // P = x^32 + 0x1EDC6F41's terms.
  }
  return r;
}

// A polynomial of degree < 64 in the reflected form the data has: coefficient of x^d in bit
// 63 - d (the first bit of the first byte is the highest power).
constexpr uint64_t Reflect64(uint64_t v) {
  uint64_t r = 0;
  for (int i = 0; i < 64; ++i) r |= ((v >> i) & 1) << (63 - i);
  return r;
}

// The constants that move a 16-byte block D bits on. In a block, the low 8 bytes (first in
// the data) are the higher powers: V = Vlo x^64 + Vhi, so V x^D = Vlo x^(D+64) + Vhi x^D.
// A carry-less product of two reflected values carries one factor x more, hence the - 1.
struct FoldConstants {
  uint64_t lo, hi;
};
constexpr FoldConstants FoldBy(int d) {
  return {Reflect64(XPowModP(d + 64 - 1)), Reflect64(XPowModP(d - 1))};
}
constexpr FoldConstants kFold2048 = FoldBy(2048);  // One 64-byte register to its next.
constexpr FoldConstants kFold128 = FoldBy(128);    // One 16-byte block to the next.

__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2"))) inline __m128i Fold128(
    __m128i v, __m128i next) {
  const __m128i k =
      _mm_set_epi64x(static_cast<int64_t>(kFold128.hi), static_cast<int64_t>(kFold128.lo));
  return _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(v, k, 0x00), _mm_clmulepi64_si128(v, k, 0x11)), next);
}

// At least 512 bytes (the loop's first load and one round), else the plain loop is as fast.
constexpr size_t kMinFoldBytes = 512;

__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2"))) uint32_t Crc32cExtendFold(
    uint32_t crc, const void* data, size_t n) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  // The register's starting value is added into the first four bytes: a CRC register
  // started at I over M equals one started at 0 over M with I XORed into its start.
  __m512i acc[4];
  for (int i = 0; i < 4; ++i) acc[i] = _mm512_loadu_si512(bytes + 64 * i);
  acc[0] = _mm512_xor_si512(acc[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128(~crc)));
  bytes += 256;
  n -= 256;
  const __m512i k =
      _mm512_set4_epi64(static_cast<int64_t>(kFold2048.hi), static_cast<int64_t>(kFold2048.lo),
                        static_cast<int64_t>(kFold2048.hi), static_cast<int64_t>(kFold2048.lo));
  for (; n >= 256; n -= 256, bytes += 256) {
    for (int i = 0; i < 4; ++i) {
      // 0x96: a ^ b ^ c in one instruction.
      acc[i] = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc[i], k, 0x00),
                                         _mm512_clmulepi64_epi128(acc[i], k, 0x11),
                                         _mm512_loadu_si512(bytes + 64 * i), 0x96);
    }
  }
  // The sixteen blocks, in data order, into one; then the whole 16-byte blocks left. (Read
  // through memory: g++ 12's lane-extracting intrinsics trip -Wuninitialized in its own
  // headers.)
  alignas(64) unsigned char blocks[256];
  for (int i = 0; i < 4; ++i) _mm512_store_si512(blocks + 64 * i, acc[i]);
  __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(blocks));
  for (int b = 1; b < 16; ++b) {
    v = Fold128(v, _mm_load_si128(reinterpret_cast<const __m128i*>(blocks + 16 * b)));
  }
  for (; n >= 16; n -= 16, bytes += 16) {
    v = Fold128(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
  }
  // The CRC of the remaining block (from a zero register), then the last bytes.
  uint64_t reg = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(v)));
  reg = _mm_crc32_u64(reg, static_cast<uint64_t>(_mm_extract_epi64(v, 1)));
  uint32_t reg32 = static_cast<uint32_t>(reg);
  for (; n > 0; --n, ++bytes) reg32 = _mm_crc32_u8(reg32, *bytes);
  return ~reg32;
}
// [mts:crc32c-fold-end]

// Asked once, on first use (possibly from another file's static initializer, hence the
// explicit __builtin_cpu_init).
bool HaveSse42() {
  static const bool have = (__builtin_cpu_init(), __builtin_cpu_supports("sse4.2"));
  return have;
}

// The instructions Crc32cExtendFold needs, and the operating system's saving of the 512-bit
// registers (which __builtin_cpu_supports checks for the AVX-512 features).
bool HaveFold() {
  static const bool have =
      (__builtin_cpu_init(), __builtin_cpu_supports("avx512f") &&
                                 __builtin_cpu_supports("avx512vl") &&
                                 __builtin_cpu_supports("vpclmulqdq") && HaveSse42());
  return have;
}

}  // namespace
#endif

uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n) {
#if defined(__x86_64__)
  if (n >= kMinFoldBytes && HaveFold()) return Crc32cExtendFold(crc, data, n);
  if (HaveSse42()) return Crc32cExtendSse42(crc, data, n);
#endif
  return Crc32cExtendPortable(crc, data, n);
}

uint32_t Crc32c(const void* data, size_t n) { return Crc32cExtend(0, data, n); }

}  // namespace mts
