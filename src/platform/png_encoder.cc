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

// A deflate stream kept for the thread, reset for each image. zlib's state at the default
// level is about 256 KiB; made and freed for every image, glibc gave it back to the system
// each time and the next image faulted it in again, which doubled what a 64x64 picture costs
// (tests/benchmarks/summary_image_benchmark.cc).
class ThreadDeflater {
 public:
  ThreadDeflater() {
    if (deflateInit(&stream_, Z_DEFAULT_COMPRESSION) != Z_OK) {
      throw InternalError("EncodePng: zlib's deflateInit failed");
    }
  }
  ~ThreadDeflater() { deflateEnd(&stream_); }

  // `data` as one zlib stream (header, deflate blocks, Adler-32).
  std::string Deflate(const std::string& data) {
    deflateReset(&stream_);
    std::string out(deflateBound(&stream_, data.size()), '\0');
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream_.avail_in = static_cast<uInt>(data.size());
    stream_.next_out = reinterpret_cast<Bytef*>(out.data());
    stream_.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&stream_, Z_FINISH);  // The bound makes one call enough.
    if (status != Z_STREAM_END) {
      throw InternalError("EncodePng: zlib's deflate failed: " + std::to_string(status));
    }
    out.resize(stream_.total_out);
    return out;
  }

 private:
  z_stream stream_{};
};

std::string Deflate(const std::string& data) {
  thread_local ThreadDeflater deflater;
  return deflater.Deflate(data);
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
                               " bytes; width * height * channels is " + std::to_string(expected));
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
  header.push_back(8);  // Bits per channel.
  header.push_back(static_cast<char>(kColorType[channels]));
  header.append(std::string(3, '\0'));  // Deflate, adaptive filtering, not interlaced.
  AppendChunk("IHDR", header, &png);

  const size_t row_bytes = static_cast<size_t>(width) * channels;
  AppendChunk("IDAT", Deflate(FilteredRows(pixels, row_bytes, height)), &png);
  AppendChunk("IEND", "", &png);
  return png;
}
// [mts:png-encode-end]

}  // namespace mts
