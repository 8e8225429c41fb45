// png_decoder.h: PNG bytes back to pixels with libpng, an encoder-independent check for the
// tests of src/platform/png_encoder.h and of image summaries.
//
// Tests only (libpng is not a dependency of src/). DecodePng reads any PNG libpng reads and
// returns its pixels as 8-bit channels, as many as the file's colour type has.
//
// Example:
//   DecodedPng image = DecodePng(summary.value(0).image().encoded_image_string());
//   EXPECT_EQ(image.pixels, expected_rgb);
#ifndef MTS_TESTS_TESTING_PNG_DECODER_H_
#define MTS_TESTS_TESTING_PNG_DECODER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mts {

/// An image as libpng decoded it.
struct DecodedPng {
  int width = 0;                ///< Pixels per row.
  int height = 0;               ///< Rows.
  int channels = 0;             ///< 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA.
  std::vector<uint8_t> pixels;  ///< height rows of width * channels bytes, top row first.
};

/// Decodes `png` with libpng's simplified API, keeping the file's channels.
/// \throws std::runtime_error with libpng's message if `png` is not a valid PNG (a bad
///   signature, chunk CRC or zlib stream).
DecodedPng DecodePng(const std::string& png);

}  // namespace mts

#endif  // MTS_TESTS_TESTING_PNG_DECODER_H_
