#include "server/slow_client_guard.h"

#include <netinet/in.h>  // IPPROTO_TCP
#include <linux/tcp.h>  // tcp_info.tcpi_bytes_received (Linux 4.1+); not with <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

#include "server/api_error.h"
#include "server/client_connection.h"

namespace glance::server {
namespace {

// Bytes the kernel has received on the socket since it connected (read by httplib or not).
std::optional<uint64_t> BytesReceived(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return std::nullopt;
  if (len < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) return std::nullopt;
  return info.tcpi_bytes_received;
}

}  // namespace

SlowClientGuard::SlowClientGuard(int port, SlowClientLimits limits, std::function<bool()> others_waiting)
    : port_(port), limits_(limits), others_waiting_(std::move(others_waiting)) {
  watcher_ = std::thread([this] { Watch(); });
}

SlowClientGuard::~SlowClientGuard() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  watcher_.join();
  for (auto& [key, c] : connections_) ::close(c.fd);
}

bool SlowClientGuard::TooSlow(const SlowClientLimits& limits, bool others_waiting, double since_first_byte_s,
                              double bytes) {
  const double limit = (others_waiting ? limits.busy_head_s : limits.head_s) + bytes / limits.min_bytes_per_s;
  return since_first_byte_s > limit;
}

std::string SlowClientGuard::Accepted() {
  std::lock_guard<std::mutex> lock(mu_);
  // Our own dups carry the same addresses as the sockets they copy, so they are known too.
  std::vector<std::pair<int, SocketAddresses>> fresh;
  for (auto& entry : ConnectedSocketsOnPort(port_))
    if (!connections_.count(Key(entry.second.peer_addr, entry.second.peer_port))) fresh.push_back(std::move(entry));
  if (fresh.size() != 1) return "";  // none, or one missed earlier: not timed rather than mistaken
  const int fd = ::dup(fresh[0].first);
  if (fd < 0) return "";
  const std::string key = Key(fresh[0].second.peer_addr, fresh[0].second.peer_port);
  connections_[key].fd = fd;
  return key;
}

void SlowClientGuard::Arm(Connection& c) {
  c.handling = false;
  c.bytes_at_arm = BytesReceived(c.fd).value_or(0);
  c.first_byte.reset();
}

void SlowClientGuard::WorkerStarted(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = connections_.find(key);
  if (it == connections_.end()) return;
  Connection& c = it->second;
  c.worker = true;
  c.handling = false;
  // Bytes that came while it waited for a worker count from now: waiting held nothing.
  c.bytes_at_arm = 0;
  if (BytesReceived(c.fd).value_or(0) > 0) c.first_byte = Clock::now();
}

void SlowClientGuard::WorkerDone(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = connections_.find(key);
  if (it == connections_.end()) return;
  ::close(it->second.fd);
  connections_.erase(it);
}

void SlowClientGuard::RequestStarted(const std::string& peer_addr, int peer_port) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = connections_.find(Key(peer_addr, peer_port));
  if (it != connections_.end()) it->second.handling = true;
}

void SlowClientGuard::ResponseSent(const std::string& peer_addr, int peer_port) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = connections_.find(Key(peer_addr, peer_port));
  if (it != connections_.end()) Arm(it->second);
}

void SlowClientGuard::Cut(Connection& c) {
  // httplib's worker is only reading this connection (no handler has started), so this answer
  // cannot interleave with one of its own; the shutdown ends its read and frees the worker.
  const std::string body =
      ErrorBody(408, "request_timeout", "the request arrived too slowly; the connection is closed");
  const std::string response = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json\r\n"
                               "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)::send(c.fd, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(c.fd, SHUT_RDWR);
  c.cut = true;
  ++cut_;
}

void SlowClientGuard::Watch() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    if (stopping_) break;
    const auto now = Clock::now();
    std::optional<bool> waiting;  // asked once per round, only when needed
    for (auto& [key, c] : connections_) {
      if (!c.worker || c.handling || c.cut) continue;
      const std::optional<uint64_t> bytes = BytesReceived(c.fd);
      if (!bytes || *bytes <= c.bytes_at_arm) continue;  // idle: httplib's keep-alive timeout
      if (!c.first_byte) {
        c.first_byte = now;
        continue;
      }
      if (!waiting) waiting = others_waiting_ && others_waiting_();
      const double since = std::chrono::duration<double>(now - *c.first_byte).count();
      if (TooSlow(limits_, *waiting, since, static_cast<double>(*bytes - c.bytes_at_arm))) Cut(c);
    }
  }
}

}  // namespace glance::server
