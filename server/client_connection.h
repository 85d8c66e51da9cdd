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
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glance::server {

// A connected TCP socket's two ends, as numeric hosts the way cpp-httplib writes them.
struct SocketAddresses {
  std::string local_addr;
  int local_port = -1;
  std::string peer_addr;
  int peer_port = -1;
};
// Nothing for a descriptor that is not a connected IPv4/IPv6 socket (a listening one has no peer).
std::optional<SocketAddresses> ConnectedAddresses(int fd);
// Every connected socket of this process whose local port is `local_port`, by descriptor (the
// server's ends of its connections), from /proc/self/fd.
std::vector<std::pair<int, SocketAddresses>> ConnectedSocketsOnPort(int local_port);

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
