#include "server/client_connection.h"

#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

namespace glance::server {
namespace {

// "127.0.0.1", 8080 from a socket address, as cpp-httplib writes them (getnameinfo, numeric).
bool HostAndPort(const sockaddr_storage& a, socklen_t len, std::string& host, int& port) {
  if (a.ss_family == AF_INET) port = ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
  else if (a.ss_family == AF_INET6) port = ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
  else return false;
  char buf[NI_MAXHOST];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&a), len, buf, sizeof buf, nullptr, 0, NI_NUMERICHOST) != 0)
    return false;
  host = buf;
  return true;
}

}  // namespace

std::optional<SocketAddresses> ConnectedAddresses(int fd) {
  SocketAddresses out;
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
      !HostAndPort(a, len, out.local_addr, out.local_port))
    return std::nullopt;
  len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 || !HostAndPort(a, len, out.peer_addr, out.peer_port))
    return std::nullopt;
  return out;
}

std::vector<std::pair<int, SocketAddresses>> ConnectedSocketsOnPort(int local_port) {
  std::vector<std::pair<int, SocketAddresses>> found;
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return found;
  while (dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;  // "." and ".."
    struct stat st;
    if (::fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    std::optional<SocketAddresses> ends = ConnectedAddresses(static_cast<int>(fd));
    if (ends && ends->local_port == local_port) found.emplace_back(static_cast<int>(fd), std::move(*ends));
  }
  ::closedir(dir);
  return found;
}

ClientConnection ClientConnection::Find(const std::string& local_addr, int local_port, const std::string& peer_addr,
                                        int peer_port) {
  for (const auto& [fd, ends] : ConnectedSocketsOnPort(local_port))
    if (ends.local_addr == local_addr && ends.peer_addr == peer_addr && ends.peer_port == peer_port)
      return ClientConnection(fd);
  return {};
}

bool ClientConnection::Closed() const {
  if (fd_ < 0) return false;
  pollfd p{fd_, static_cast<short>(POLLIN | POLLRDHUP), 0};
  if (::poll(&p, 1, 0) <= 0) return false;  // nothing happened (or EINTR: ask again next token)
  if (p.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) return true;
  char c;
  const ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace glance::server
