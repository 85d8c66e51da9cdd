#pragma once
// Which programs may talk to the server. Any web page the user has open can send a request to
// http://127.0.0.1:PORT; two browser headers say where it came from:
//   - Origin (sent by browsers with every cross-site POST): a page from another site may not use
//     the model unless the user allowed that origin (`serve --allow-origin`). Pages served from
//     this machine (localhost, 127.0.0.0/8, [::1]) may, and get CORS headers so they can read
//     the answer. Programs that are not browsers (curl, the openai packages) send no Origin.
//   - Host: a page can make its own name resolve to 127.0.0.1 ("DNS rebinding") and then read
//     answers as same-origin. A server bound to loopback therefore answers only requests whose
//     Host names this machine.
// This is the same protection Ollama applies by default (its allowed-origins and allowed-hosts
// checks); llama.cpp's server instead allows every origin.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/api_error.h"

namespace glance::server {

// True for "localhost", a dotted IPv4 address in 127.0.0.0/8 and "::1" (with or without
// brackets), in any letter case: the names only this machine can reach.
bool IsLoopbackHost(std::string_view host);

// The host of an HTTP Host header or an Origin's authority: "[::1]:8080" -> "::1",
// "localhost:3000" -> "localhost", "example.com" -> "example.com".
std::string HostOfAuthority(std::string_view authority);

struct RequestSourcePolicy {
  bool bound_to_loopback = true;             // the server listens on a loopback address
  std::vector<std::string> allowed_origins;  // exact origins ("https://app.example"), or "*"
};

// Whether `origin` (the header's value, empty when absent) may use the server and read its
// answers: absent, a page from this machine, or one the user allowed.
bool OriginAllowed(const std::string& origin, const RequestSourcePolicy& policy);

// nullopt when the request may go on; else the 403 to answer with, naming the header.
std::optional<ApiError> CheckRequestSource(const std::string& host_header, const std::string& origin_header,
                                           const RequestSourcePolicy& policy);

// "a, b,c" -> {"a", "b", "c"} for `--allow-origin`; throws glance::Error naming the flag for an
// entry that is not "*" or scheme://host[:port].
std::vector<std::string> ParseAllowedOrigins(const std::string& list);

}  // namespace glance::server
