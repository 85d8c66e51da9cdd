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

ClientConnection ClientConnection::Find(const std::string& local_addr, int local_port, const std::string& peer_addr,
                                        int peer_port) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return {};
  int found = -1;
  while (dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;  // "." and ".."
    struct stat st;
    if (::fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    std::string host;
    int port = -1;
    if (::getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
        !HostAndPort(a, len, host, port) || port != local_port || host != local_addr)
      continue;
    len = sizeof a;
    if (::getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
        !HostAndPort(a, len, host, port) || port != peer_port || host != peer_addr)
      continue;
    found = static_cast<int>(fd);
    break;
  }
  ::closedir(dir);
  return ClientConnection(found);
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
