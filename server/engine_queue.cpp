#include "server/engine_queue.h"

#include <algorithm>
#include <chrono>

#include "server/api_error.h"

namespace glance::server {

void EngineQueue::Turn::Release() {
  if (q_) q_->Leave();
  q_ = nullptr;
}

EngineQueue::Turn EngineQueue::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  if (shutdown_) throw ApiError(503, "server_shutting_down", "the server is shutting down");
  if (static_cast<int>(queue_.size()) >= max_waiting_)
    throw ApiError(429, "too_many_requests",
                   std::to_string(queue_.size()) + " requests are already waiting for the model; try again later");
  const uint64_t me = next_ticket_++;
  queue_.push_back(me);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_wait_s_);
  const bool mine = cv_.wait_until(lock, deadline, [&] { return shutdown_ || (!busy_ && queue_.front() == me); });
  if (!mine || shutdown_) {
    queue_.erase(std::find(queue_.begin(), queue_.end(), me));
    cv_.notify_all();  // the next ticket may now be at the front
    if (shutdown_) throw ApiError(503, "server_shutting_down", "the server is shutting down");
    throw ApiError(503, "server_busy", "the model was busy for longer than the server's queue timeout; try again later");
  }
  queue_.pop_front();
  busy_ = true;
  return Turn(this);
}

std::optional<EngineQueue::Turn> EngineQueue::TryAcquire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutdown_ || busy_) return std::nullopt;
  busy_ = true;
  return Turn(this);
}

void EngineQueue::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  busy_ = false;
  cv_.notify_all();
}

void EngineQueue::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  shutdown_ = true;
  cv_.notify_all();
}

int EngineQueue::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(queue_.size());
}

}  // namespace glance::server
