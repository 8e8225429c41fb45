// png_encoder.h: an 8-bit image as the bytes of a PNG file, for TensorBoard's Images tab.
//
// Platform, below every stage; ImageSummary (src/01_session/learning/summary_ops.h) encodes
// each image of a batch with it, and the event files of stage 03 carry the bytes.
//
// A PNG file is an 8-byte signature and a list of chunks, each framed as length, 4-letter
// type, data and a CRC-32 of type and data. Three chunks are enough for a picture: IHDR
// (width, height, bit depth 8, colour type), IDAT (the rows, each led by its filter byte,
// deflated as one zlib stream) and IEND. zlib does the deflating and the CRC; the layout is
// written out here because it is short and worth reading once. Every row uses filter 0
// (None): the simplest choice, and the flat regions of a summary image deflate well anyway.
//
// Thread safety: may be called from any number of threads; each keeps one zlib stream
// (about 256 KiB) for its life, reset for every image, since making one per image cost as
// much as the encoding.
//
// Example:
//   std::vector<uint8_t> rgb(2 * 1 * 3, 255);    // two white pixels, one row
//   std::string png = EncodePng(rgb, /*width=*/2, /*height=*/1, /*channels=*/3);
//
// TensorFlow: png::WriteImageToBuffer (tensorflow/core/lib/png/png_io.h), which calls
// libpng; the pixels decoded are the same, the bytes differ (libpng picks row filters).
#ifndef MTS_SRC_PLATFORM_PNG_ENCODER_H_
#define MTS_SRC_PLATFORM_PNG_ENCODER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mts {

/// The PNG file of an image `height` rows of `width` pixels, each pixel `channels` bytes
/// (1 grey, 2 grey and alpha, 3 RGB, 4 RGBA), held in `pixels` row after row, top row
/// first. The rows are deflated at zlib's default level, as TensorFlow's encoder does.
/// \throws InvalidArgumentError naming the argument at fault if `width` or `height` is not
///   positive, `channels` is not 1 to 4, or `pixels` does not hold width * height * channels
///   bytes; InternalError if zlib fails.
std::string EncodePng(const std::vector<uint8_t>& pixels, int width, int height, int channels);

}  // namespace mts

#endif  // MTS_SRC_PLATFORM_PNG_ENCODER_H_
