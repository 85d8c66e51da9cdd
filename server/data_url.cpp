#include "server/data_url.h"

#include <algorithm>
#include <cctype>

#include "server/api_error.h"

namespace glance::server {

bool DecodeBase64(std::string_view in, std::vector<uint8_t>& out) {
  out.clear();
  out.reserve(in.size() / 4 * 3 + 3);
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else if (c == '=') {
      padding = true;
      continue;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      continue;
    } else {
      return false;
    }
    if (padding) return false;  // data after '='
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((acc >> bits) & 0xFF));
    }
  }
  return bits < 6;  // 6 leftover bits can't come from whole bytes
}

DataUrl ParseImageDataUrl(std::string_view url, const std::string& param) {
  auto starts = [&](std::string_view prefix) {
    if (url.size() < prefix.size()) return false;
    return std::equal(prefix.begin(), prefix.end(), url.begin(),
                      [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
  };
  if (starts("http://") || starts("https://"))
    throw BadRequest("remote image URLs are not fetched by this server; send the image inline as a "
                     "data:image/...;base64,... URL", param);
  if (!starts("data:"))
    throw BadRequest("only data:image/...;base64,... URLs are accepted (no file paths or other schemes)", param);
  const size_t comma = url.find(',');
  if (comma == std::string_view::npos) throw BadRequest("the data URL has no ',' before its data", param);
  const std::string_view header = url.substr(5, comma - 5);  // "image/png;base64"
  DataUrl d;
  d.mime = std::string(header.substr(0, header.find(';')));
  std::transform(d.mime.begin(), d.mime.end(), d.mime.begin(), [](unsigned char c) { return std::tolower(c); });
  if (d.mime.rfind("image/", 0) != 0)
    throw BadRequest("the data URL holds '" + (d.mime.empty() ? std::string("text/plain") : d.mime) +
                     "', not an image (data:image/png;base64,... or image/jpeg, image/webp, ...)", param);
  if (header.find(";base64") == std::string_view::npos)
    throw BadRequest("the image data URL must be base64-encoded (data:" + d.mime + ";base64,...)", param);
  if (!DecodeBase64(url.substr(comma + 1), d.bytes) || d.bytes.empty())
    throw BadRequest("the image data URL's base64 is malformed or empty", param);
  return d;
}

}  // namespace glance::server
