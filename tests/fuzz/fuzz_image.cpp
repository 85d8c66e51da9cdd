// Image header walk and decode (core/vision/image_header.h, image_decode.h): format sniffing,
// the size check before decoding, EXIF orientation, OpenCV's decoders. The size the header walk
// reports must bound what the decoder produces (a decode larger than the header said would
// mean the limit was bypassed).
#include <cstdlib>

#include "core/util/error.h"
#include "core/vision/image_decode.h"
#include "core/vision/image_header.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  const glance::vision::ImageFormat format = glance::vision::DetectImageFormat(bytes);
  const auto dims = glance::vision::ReadImageDims(bytes, format);
  (void)glance::vision::ReadExifOrientation(bytes, format);
  try {
    const glance::vision::RgbImage img = glance::vision::DecodeImage(bytes, "fuzz.img");
    if (!dims) std::abort();  // decoded although the header size was unknown
    const int64_t pixels = int64_t{img.width} * img.height;
    if (pixels > dims->width * dims->height) std::abort();  // decoded more than the header said
  } catch (const glance::Error&) {
  }
  return 0;
}
