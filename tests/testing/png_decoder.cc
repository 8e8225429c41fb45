#include "tests/testing/png_decoder.h"

#include <png.h>

#include <cstring>
#include <stdexcept>

namespace mts {

DecodedPng DecodePng(const std::string& png) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
    throw std::runtime_error(std::string("libpng: ") + image.message);
  }
  // Keep the file's own channels: no conversion to RGBA.
  DecodedPng out;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.channels = static_cast<int>(PNG_IMAGE_SAMPLE_CHANNELS(image.format));
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr)) {
    const std::string message = image.message;
    png_image_free(&image);
    throw std::runtime_error("libpng: " + message);
  }
  return out;
}

}  // namespace mts
