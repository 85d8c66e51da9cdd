#pragma once
// Base64 encoding (RFC 4648 §4, the standard alphabet with '=' padding): images sent as
// data: URLs to an OpenAI-compatible server (core/remote) and by the server's tests. Decoding,
// with its checks on untrusted input, is the server's (server/data_url.h).
#include <string>
#include <string_view>

namespace glance {

std::string EncodeBase64(std::string_view bytes);

}  // namespace glance
