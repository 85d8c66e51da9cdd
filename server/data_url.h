#pragma once
// `image_url.url` values: only `data:image/...;base64,...` is accepted. A remote URL would make
// the server fetch from the network on a client's say-so and a path would read local files, so
// both are refused with a message saying what to send instead (issue 15, Safety).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace glance::server {

struct DataUrl {
  std::string mime;  // "image/png"
  std::vector<uint8_t> bytes;
};

// Throws ApiError (400) naming `param` for anything but a base64 image data URL.
DataUrl ParseImageDataUrl(std::string_view url, const std::string& param);

// Standard base64 (RFC 4648 §4), padding optional, whitespace ignored; nullopt-like false on a
// bad character. Decodes into `out`.
bool DecodeBase64(std::string_view in, std::vector<uint8_t>& out);

}  // namespace glance::server
