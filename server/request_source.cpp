#include "server/request_source.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "core/util/error.h"

namespace glance::server {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// "scheme://authority" -> authority; nullopt when the text has no scheme or a path.
std::optional<std::string_view> AuthorityOfOrigin(std::string_view origin) {
  const size_t sep = origin.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::nullopt;
  const std::string_view rest = origin.substr(sep + 3);
  if (rest.empty() || rest.find('/') != std::string_view::npos) return std::nullopt;
  return rest;
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  std::string h = Lower(host);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (!h.empty() && h.back() == '.') h.pop_back();  // "localhost." is the same name
  if (h == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, h.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, h.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::string HostOfAuthority(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    return std::string(close == std::string_view::npos ? authority.substr(1) : authority.substr(1, close - 1));
  }
  const size_t colon = authority.find(':');
  return std::string(authority.substr(0, colon));
}

bool OriginAllowed(const std::string& origin, const RequestSourcePolicy& policy) {
  if (origin.empty()) return true;
  for (const std::string& allowed : policy.allowed_origins)
    if (allowed == "*" || Lower(allowed) == Lower(origin)) return true;
  const auto authority = AuthorityOfOrigin(origin);
  return authority && IsLoopbackHost(HostOfAuthority(*authority));
}

std::optional<ApiError> CheckRequestSource(const std::string& host_header, const std::string& origin_header,
                                           const RequestSourcePolicy& policy) {
  if (policy.bound_to_loopback && !host_header.empty() && !IsLoopbackHost(HostOfAuthority(host_header)))
    return ApiError(403, "forbidden",
                    "the Host header '" + host_header +
                        "' does not name this machine; a server on a loopback address answers only "
                        "localhost, 127.0.0.1 or [::1] (this refuses web pages that make their own name "
                        "point at this machine)");
  if (!OriginAllowed(origin_header, policy))
    return ApiError(403, "forbidden",
                    "requests from web pages at " + origin_header +
                        " are refused (the Origin header); start the server with --allow-origin " +
                        origin_header + " to allow that site");
  return std::nullopt;
}

std::vector<std::string> ParseAllowedOrigins(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string entry = list.substr(start, comma - start);
    entry.erase(0, entry.find_first_not_of(" \t"));
    entry.erase(entry.find_last_not_of(" \t") + 1);
    if (!entry.empty()) {
      if (entry != "*" && !AuthorityOfOrigin(entry))
        throw Error("--allow-origin: '" + entry + "' is not an origin (scheme://host[:port], e.g. "
                    "https://app.example, or * for any)");
      out.push_back(entry);
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace glance::server
