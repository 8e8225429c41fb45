// Tests of crc32c.h: the published CRC-32C test vectors, piecewise computation, TensorFlow's
// mask, and the checksums inside event files that TensorFlow itself wrote.
#include "src/platform/crc32c.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

// One row per vector: the bytes and their CRC-32C.
struct Vector {
  const char* name;
  std::string data;
  uint32_t crc;
};

std::string Bytes(std::initializer_list<int> values) {
  std::string bytes;
  for (int v : values) bytes.push_back(static_cast<char>(v));
  return bytes;
}

std::string Ascending(int n) {
  std::string bytes;
  for (int i = 0; i < n; ++i) bytes.push_back(static_cast<char>(i));
  return bytes;
}

std::string Descending(int n) {
  std::string bytes;
  for (int i = n - 1; i >= 0; --i) bytes.push_back(static_cast<char>(i));
  return bytes;
}

// The check value from the CRC catalogue, and RFC 3720 (iSCSI) appendix B.4's vectors, as
// LevelDB and TensorFlow test them.
std::vector<Vector> Vectors() {
  return {
      {"empty", "", 0x00000000u},
      {"123456789", "123456789", 0xE3069283u},
      {"32 zeros", std::string(32, '\0'), 0x8A9136AAu},
      {"32 0xFF", std::string(32, '\xff'), 0x62A8AB43u},
      {"0..31", Ascending(32), 0x46DD794Eu},
      {"31..0", Descending(32), 0x113FDB5Cu},
      {"iSCSI read command",
       Bytes({0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
              0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
              0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
              0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}),
       0xD9963A56u},
  };
}

// Every standard vector has its published CRC.
TEST(Crc32cTest, MatchesTheStandardVectors) {
  for (const Vector& v : Vectors()) {
    EXPECT_EQ(Crc32c(v.data.data(), v.data.size()), v.crc) << v.name;
    EXPECT_EQ(Crc32c(v.data), v.crc) << v.name;
  }
}

// Extending the CRC of a prefix by the rest gives the CRC of the whole, at every split.
TEST(Crc32cTest, ExtendEqualsOneShotAtEverySplit) {
  const std::string data = "hello world, this is a checksum split at every byte";
  const uint32_t whole = Crc32c(data);
  for (size_t split = 0; split <= data.size(); ++split) {
    const uint32_t prefix = Crc32c(data.data(), split);
    EXPECT_EQ(Crc32cExtend(prefix, data.data() + split, data.size() - split), whole)
        << "split at " << split;
  }
  EXPECT_EQ(Crc32cExtend(0, data.data(), data.size()), whole);
}

// The mask changes the CRC (also when applied twice), and unmasking undoes it exactly.
TEST(Crc32cTest, MaskChangesTheCrcAndUnmaskRestoresIt) {
  for (const Vector& v : Vectors()) {
    const uint32_t crc = v.crc;
    EXPECT_NE(MaskCrc(crc), crc) << v.name;
    EXPECT_NE(MaskCrc(MaskCrc(crc)), crc) << v.name;
    EXPECT_EQ(UnmaskCrc(MaskCrc(crc)), crc) << v.name;
    EXPECT_EQ(UnmaskCrc(UnmaskCrc(MaskCrc(MaskCrc(crc)))), crc) << v.name;
  }
  EXPECT_EQ(MaskCrc(0), 0xA282EAD8u);  // The rotation of 0 is 0: only the offset remains.
}

uint32_t LittleEndian32(const std::string& bytes, size_t at) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

uint64_t LittleEndian64(const std::string& bytes, size_t at) {
  return (static_cast<uint64_t>(LittleEndian32(bytes, at + 4)) << 32) | LittleEndian32(bytes, at);
}

// Every record of three event files written by TensorFlow 1.x carries masked CRCs that this
// implementation reproduces: the framing TensorBoard checks is the one mts computes.
TEST(Crc32cTest, ReproducesTheChecksumsInEventFilesWrittenByTensorFlow) {
  const std::vector<std::string> files =
      DefaultFileSystem()->GetMatchingPaths("tests/testdata/tfevents/*.tfevents");
  ASSERT_EQ(files.size(), 3u);
  for (const std::string& file : files) {
    const std::string contents = DefaultFileSystem()->ReadFile(file);
    size_t at = 0;
    int records = 0;
    // Each record: uint64 length | uint32 masked_crc(length) | data | uint32 masked_crc(data).
    while (at < contents.size()) {
      ASSERT_LE(at + 12, contents.size()) << file;
      const uint64_t length = LittleEndian64(contents, at);
      ASSERT_EQ(LittleEndian32(contents, at + 8), MaskCrc(Crc32c(contents.data() + at, 8)))
          << file << " record " << records;
      ASSERT_LE(at + 12 + length + 4, contents.size()) << file;
      ASSERT_EQ(LittleEndian32(contents, at + 12 + length),
                MaskCrc(Crc32c(contents.data() + at + 12, length)))
          << file << " record " << records;
      at += 12 + length + 4;
      ++records;
    }
    EXPECT_GT(records, 0) << file;
  }
}

// The fast path (the CPU's crc32 instruction, where there is one) and the table agree on
// every length and alignment, including the odd bytes after the last whole eight.
TEST(Crc32cTest, FastPathAgreesWithTheTableOnEveryLengthAndAlignment) {
  std::string bytes(300, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 + 7);
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n = 0; n + offset <= bytes.size(); n += 7) {
      EXPECT_EQ(Crc32cExtend(0x12345678u, bytes.data() + offset, n),
                Crc32cExtendPortable(0x12345678u, bytes.data() + offset, n))
          << "offset " << offset << ", length " << n;
    }
  }
}

// The folding path of long buffers (crc32c.cc, from 512 bytes where the CPU has the
// instructions) agrees with the table on lengths around each of its boundaries: the 256-byte
// rounds, the 16-byte blocks after them and the odd bytes after those.
TEST(Crc32cTest, LongBuffersAgreeWithTheTableAtEveryBoundary) {
  std::string bytes(4096 + 64, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 2654435761u >> 13);
  for (size_t offset : {0, 1, 5, 8, 63}) {
    for (size_t n = 480; n + offset <= bytes.size(); n += n < 1100 ? 1 : 37) {
      for (uint32_t start : {0u, 0x12345678u, 0xFFFFFFFFu}) {
        ASSERT_EQ(Crc32cExtend(start, bytes.data() + offset, n),
                  Crc32cExtendPortable(start, bytes.data() + offset, n))
            << "offset " << offset << ", length " << n << ", start " << start;
      }
    }
  }
}

}  // namespace
}  // namespace mts
