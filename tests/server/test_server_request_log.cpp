// The server's request log hooks (ServerOptions::on_served and on_other_request), which the
// desktop app's server panel lists: every request is reported once, with its method, path,
// status and (for a chat request) its tokens — also those refused before a chat request is read
// (a missing key, another site's page, no such endpoint) and the model list.
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/engine/engine.h"
#include "server/chat_server.h"

namespace glance::server {
namespace {

using namespace std::chrono_literals;

struct Log {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<ServedRequest> all;
  std::function<void(const ServedRequest&)> Sink() {
    return [this](const ServedRequest& r) {
      std::lock_guard<std::mutex> lock(mu);
      all.push_back(r);
      cv.notify_all();
    };
  }
  std::vector<ServedRequest> Wait(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, 60s, [&] { return all.size() >= n; });
    return all;
  }
};

const ServedRequest* Find(const std::vector<ServedRequest>& log, const std::string& method, const std::string& path,
                          int status) {
  for (const ServedRequest& r : log)
    if (r.method == method && r.path == path && r.status == status) return &r;
  return nullptr;
}

TEST(ServerRequestLog, EveryRequestIsReportedOnceWithMethodPathStatusAndTokens) {
  Log log;
  ServerOptions o;
  o.port = 0;
  o.api_key = "secret";
  o.on_served = log.Sink();
  o.on_other_request = log.Sink();
  ChatServer server(Engine::Load(std::string(GLANCE_TEST_DATA) + "/tiny-a"), o);
  const int port = server.Start();
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  const httplib::Headers key = {{"Authorization", "Bearer secret"}};
  const std::string chat =
      nlohmann::json{{"messages", {{{"role", "user"}, {"content", "hello"}}}}, {"max_tokens", 3}, {"temperature", 0}}.dump();

  auto models = client.Get("/v1/models", key);
  ASSERT_TRUE(models);
  EXPECT_EQ(models->status, 200);
  auto nokey = client.Post("/v1/chat/completions", chat, "application/json");
  ASSERT_TRUE(nokey);
  EXPECT_EQ(nokey->status, 401);
  auto answered = client.Post("/v1/chat/completions", key, chat, "application/json");
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->status, 200);
  httplib::Headers other_site = key;
  other_site.emplace("Origin", "https://elsewhere.example");
  auto refused = client.Post("/v1/chat/completions", other_site, chat, "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403);
  auto missing = client.Get("/v1/nothing-here?x=1", key);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);

  const auto all = log.Wait(5);
  std::this_thread::sleep_for(200ms);  // nothing is reported twice
  {
    std::lock_guard<std::mutex> lock(log.mu);
    EXPECT_EQ(log.all.size(), 5u);
  }
  ASSERT_EQ(all.size(), 5u);
  EXPECT_NE(Find(all, "GET", "/v1/models", 200), nullptr);
  EXPECT_NE(Find(all, "POST", "/v1/chat/completions", 401), nullptr);
  EXPECT_NE(Find(all, "POST", "/v1/chat/completions", 403), nullptr);
  EXPECT_NE(Find(all, "GET", "/v1/nothing-here", 404), nullptr);
  const ServedRequest* done = Find(all, "POST", "/v1/chat/completions", 200);
  ASSERT_NE(done, nullptr);
  EXPECT_EQ(done->completion_tokens, 3);
  EXPECT_GT(done->prompt_tokens, 0);
  EXPECT_EQ(done->finish_reason, "length");
  EXPECT_GT(done->seconds, 0.0);
  for (const ServedRequest& r : all) EXPECT_GE(r.seconds, 0.0);
}

}  // namespace
}  // namespace glance::server
