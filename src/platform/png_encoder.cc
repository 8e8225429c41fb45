// png_encoder.cc: the PNG layout written out; zlib deflates and checksums (see the header).
#include "src/platform/png_encoder.h"

#include <zlib.h>

#include "src/platform/errors.h"

namespace mts {
namespace {

// The colour type IHDR names for 1, 2, 3 and 4 channels: grey, grey+alpha, RGB, RGBA.
constexpr uint8_t kColorType[] = {0, 0, 4, 2, 6};

// PNG stores every multi-byte number big-endian.
void AppendBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

// [mts:png-chunk]
// One chunk: the length of `data`, the 4-letter `type`, `data`, then the CRC-32 of type and
// data (the length is not covered).
void AppendChunk(const char* type, const std::string& data, std::string* out) {
  AppendBigEndian32(static_cast<uint32_t>(data.size()), out);
  const size_t type_at = out->size();
  out->append(type, 4);
  out->append(data);
  const auto* covered = reinterpret_cast<const Bytef*>(out->data() + type_at);
  AppendBigEndian32(static_cast<uint32_t>(crc32(0L, covered, 4 + data.size())), out);
}
// [mts:png-chunk-end]

// The rows as PNG filters them: each led by its filter type, 0 (None).
std::string FilteredRows(const std::vector<uint8_t>& pixels, size_t row_bytes, int height) {
  std::string rows;
  rows.reserve(height * (row_bytes + 1));
  for (int y = 0; y < height; ++y) {
    rows.push_back(0);
    rows.append(reinterpret_cast<const char*>(pixels.data()) + y * row_bytes, row_bytes);
  }
  return rows;
}

// `data` as one zlib stream (header, deflate blocks, Adler-32), at the default level.
std::string Deflate(const std::string& data) {
  uLongf size = compressBound(data.size());
  std::string out(size, '\0');
  const int status = compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                               reinterpret_cast<const Bytef*>(data.data()), data.size(),
                               Z_DEFAULT_COMPRESSION);
  if (status != Z_OK) throw InternalError("EncodePng: zlib's compress2 failed: " +
                                          std::to_string(status));
  out.resize(size);
  return out;
}

void CheckArguments(const std::vector<uint8_t>& pixels, int width, int height, int channels) {
  if (width <= 0 || height <= 0) {
    throw InvalidArgumentError("EncodePng: width and height must be positive, got width " +
                               std::to_string(width) + " and height " + std::to_string(height));
  }
  if (channels < 1 || channels > 4) {
    throw InvalidArgumentError("EncodePng: channels must be 1, 2, 3 or 4, got " +
                               std::to_string(channels));
  }
  const uint64_t expected = static_cast<uint64_t>(width) * height * channels;
  if (pixels.size() != expected) {
    throw InvalidArgumentError("EncodePng: pixels holds " + std::to_string(pixels.size()) +
                               " bytes; width * height * channels is " +
                               std::to_string(expected));
  }
}

}  // namespace

// [mts:png-encode]
std::string EncodePng(const std::vector<uint8_t>& pixels, int width, int height, int channels) {
  CheckArguments(pixels, width, height, channels);
  std::string png("\x89PNG\r\n\x1a\n", 8);  // The signature: catches 7-bit and CRLF damage.

  std::string header;
  AppendBigEndian32(static_cast<uint32_t>(width), &header);
  AppendBigEndian32(static_cast<uint32_t>(height), &header);
  header.push_back(8);                      // Bits per channel.
  header.push_back(static_cast<char>(kColorType[channels]));
  header.append(std::string(3, '\0'));      // Deflate, adaptive filtering, not interlaced.
  AppendChunk("IHDR", header, &png);

  const size_t row_bytes = static_cast<size_t>(width) * channels;
  AppendChunk("IDAT", Deflate(FilteredRows(pixels, row_bytes, height)), &png);
  AppendChunk("IEND", "", &png);
  return png;
}
// [mts:png-encode-end]

}  // namespace mts
