#pragma once
// What the server did with one chat request, reported to the front end that started it
// (ServerOptions::on_served): the GUI's server panel can list it, and the tests see how a
// request whose client went away ended.
#include <string>

namespace glance::server {

struct ServedRequest {
  int status = 200;            // the HTTP status answered (4xx/5xx: refused before any output)
  bool stream = false;
  std::string finish_reason;   // "stop" | "length" | "cancelled"; empty when refused
  bool client_gone = false;    // the client closed its connection before the answer was done
  int prompt_tokens = 0;
  int completion_tokens = 0;
  double seconds = 0.0;        // from the parsed request to the end of its answer
};

}  // namespace glance::server
