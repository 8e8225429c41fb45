// Tests of png_encoder.h: what EncodePng writes decodes, with libpng, to the same pixels for
// every channel count; the layout of the file; arguments refused with their names.
#include "src/platform/png_encoder.h"

#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/png_decoder.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Pixels that differ from byte to byte, so that a swapped row or channel shows.
std::vector<uint8_t> Gradient(int width, int height, int channels) {
  std::vector<uint8_t> pixels(static_cast<size_t>(width) * height * channels);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 37 + i / 7);
  return pixels;
}

// Grey, grey+alpha, RGB and RGBA images come back from libpng as they went in.
TEST(EncodePngTest, LibpngDecodesTheSamePixelsForEveryChannelCount) {
  for (int channels = 1; channels <= 4; ++channels) {
    const std::vector<uint8_t> pixels = Gradient(5, 3, channels);
    const DecodedPng decoded = DecodePng(EncodePng(pixels, 5, 3, channels));
    EXPECT_EQ(decoded.width, 5) << channels << " channels";
    EXPECT_EQ(decoded.height, 3) << channels << " channels";
    EXPECT_EQ(decoded.channels, channels);
    EXPECT_EQ(decoded.pixels, pixels) << channels << " channels";
  }
}

// A one-pixel image and a wide, flat one (which deflates to a few bytes) both round-trip.
TEST(EncodePngTest, TinyAndFlatImagesRoundTrip) {
  const std::vector<uint8_t> one = {12, 34, 56};
  EXPECT_EQ(DecodePng(EncodePng(one, 1, 1, 3)).pixels, one);
  const std::vector<uint8_t> flat(300 * 200 * 3, 200);
  const std::string png = EncodePng(flat, 300, 200, 3);
  EXPECT_LT(png.size(), 1000u);
  EXPECT_EQ(DecodePng(png).pixels, flat);
}

// The file is the signature, then IHDR (13 bytes: 2x1, 8 bits, colour type 2), then IDAT,
// and it ends with the constant IEND chunk.
TEST(EncodePngTest, LayoutIsSignatureIhdrIdatIend) {
  const std::string png = EncodePng({1, 2, 3, 4, 5, 6}, 2, 1, 3);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(8, 8), std::string("\0\0\0\x0dIHDR", 8));
  EXPECT_EQ(png.substr(16, 13), std::string("\0\0\0\x02\0\0\0\x01\x08\x02\0\0\0", 13));
  EXPECT_EQ(png.substr(37, 4), "IDAT");
  EXPECT_EQ(png.substr(png.size() - 12), std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12));
}

// A flipped bit anywhere in a chunk fails its CRC, and libpng refuses the file.
TEST(EncodePngTest, ChunkCrcsAreChecked) {
  std::string png = EncodePng(Gradient(4, 4, 3), 4, 4, 3);
  png[20] ^= 1;  // Inside IHDR's width.
  EXPECT_THROW(DecodePng(png), std::runtime_error);
}

// Threads encode side by side, each with its own zlib stream, and every image survives (run
// under ThreadSanitizer by the CI).
TEST(EncodePngTest, ThreadsEncodeSideBySide) {
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);  // Not vector<bool>: its elements share words.
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &ok] {
      bool all = true;
      for (int i = 0; i < 20; ++i) {
        const std::vector<uint8_t> pixels = Gradient(8 + t, 5 + i % 3, 3);
        all = all && DecodePng(EncodePng(pixels, 8 + t, 5 + i % 3, 3)).pixels == pixels;
      }
      ok[t] = all ? 1 : 0;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(ok, std::vector<int>(4, 1));
}

// Each bad argument is refused with its name.
TEST(EncodePngTest, BadArgumentsAreNamed) {
  EXPECT_THAT([] { EncodePng({}, 0, 1, 3); },
              ThrowsMessage<InvalidArgumentError>(HasSubstr("width and height")));
  EXPECT_THAT(
      [] {
        EncodePng({1, 2}, 1, 1, 5);
      },
      ThrowsMessage<InvalidArgumentError>(HasSubstr("channels must be 1, 2, 3 or 4")));
  EXPECT_THAT(
      [] {
        EncodePng({1, 2}, 1, 1, 3);
      },
      ThrowsMessage<InvalidArgumentError>(HasSubstr("pixels holds 2 bytes")));
}

}  // namespace
}  // namespace mts
