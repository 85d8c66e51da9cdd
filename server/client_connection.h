#pragma once
// The socket a request arrived on, so the server can notice between tokens that its client
// went away and stop generating (issue 15: "a client that disconnects cancels its generation
// within one token"). cpp-httplib 0.11 (Debian 12) gives a handler no access to its socket
// (Request::is_connection_closed came in later versions), so the socket is found from the
// addresses httplib puts in the Request: this process's one TCP socket with that local address
// and port and that peer address and port.
//
// Thread contract: Closed() may be called from any thread while the connection's HTTP worker
// is inside the request's handler (that worker owns the socket and closes it only afterwards).
#include <string>

namespace glance::server {

class ClientConnection {
 public:
  ClientConnection() = default;
  // Addresses as numeric hosts (cpp-httplib's Request::local_addr/remote_addr). Not found: a
  // connection that is never reported closed.
  static ClientConnection Find(const std::string& local_addr, int local_port, const std::string& peer_addr,
                               int peer_port);
  bool found() const { return fd_ >= 0; }
  // True once the peer closed, shut down its sending side or reset the connection. Data the
  // client sent ahead (a pipelined request) stays unread. Never blocks.
  bool Closed() const;

 private:
  explicit ClientConnection(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace glance::server
