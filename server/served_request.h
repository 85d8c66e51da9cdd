#pragma once
// What the server did with one request, reported to the front end that started it
// (ServerOptions::on_served for chat requests, on_other_request for the rest): the GUI's server
// panel lists them, and the tests see how a request whose client went away ended.
#include <string>

namespace glance::server {

struct ServedRequest {
  std::string method;          // "POST"
  std::string path;            // "/v1/chat/completions" (without the query)
  int status = 200;            // the HTTP status answered (4xx/5xx: refused before any output)
  bool stream = false;
  std::string finish_reason;   // "stop" | "length" | "cancelled"; empty when refused
  bool client_gone = false;    // the client closed its connection before the answer was done
  int prompt_tokens = 0;
  int completion_tokens = 0;
  // From the parsed request to the end of its answer (another request: from its routing to its
  // response; 0 for one refused before routing, such as a body over the limit).
  double seconds = 0.0;
};

}  // namespace glance::server
