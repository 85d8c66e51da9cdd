// bench_server [--model DIR] [--clients N] [--requests M] [--max-tokens T]
// The local server's cost on a model (the bundled demo by default):
//   * per-request overhead of HTTP + JSON over calling ChatService in-process (one client,
//     the same greedy request, medians of M), and a bare GET /health round trip,
//   * N concurrent streaming clients x M requests each: requests/s, and p50/p95 of the time to
//     first byte (the role chunk, sent once the request has the engine) and to the first token.
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/engine.h"
#include "server/chat_request.h"
#include "server/chat_server.h"
#include "server/chat_service.h"

using Clock = std::chrono::steady_clock;
using glance::server::ChatServer;
using glance::server::ChatService;

static double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

static double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

int main(int argc, char** argv) {
  std::string model = glance::DefaultDemoModelDir();
  int clients = 8, requests = 10, max_tokens = 16;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--model")) model = argv[i + 1];
    else if (!std::strcmp(argv[i], "--clients")) clients = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--requests")) requests = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-tokens")) max_tokens = std::atoi(argv[i + 1]);
  }
  auto engine = glance::Engine::Load(model);
  const std::string body = nlohmann::json{{"messages", {{{"role", "user"}, {"content", "Describe a cat."}}}},
                                          {"max_tokens", max_tokens},
                                          {"temperature", 0}}
                               .dump();
  glance::server::ServerLimits limits;
  limits.max_waiting = clients + 4;
  limits.max_conversations = 0;  // every request a fresh prefill, the same work in both paths

  // One client, alternating an in-process call and the same request over HTTP (so the load of
  // a shared machine hits both alike); medians.
  ChatService service(engine, limits);
  const auto request = glance::server::ParseChatRequest(body, limits);
  glance::server::ServerOptions o;
  o.port = 0;
  o.limits = limits;
  o.threads = clients + 4;
  ChatServer server(engine, o);
  const int port = server.Start();
  httplib::Client one("127.0.0.1", port);
  one.set_read_timeout(300, 0);
  one.set_tcp_nodelay(true);
  service.Prepare(request)->Run({});  // warm-up
  one.Post("/v1/chat/completions", body, "application/json");
  std::vector<double> in_process, over_http;
  for (int i = 0; i < requests; ++i) {
    auto t0 = Clock::now();
    service.Prepare(request)->Run({});
    in_process.push_back(Seconds(t0, Clock::now()));
    t0 = Clock::now();
    one.Post("/v1/chat/completions", body, "application/json");
    over_http.push_back(Seconds(t0, Clock::now()));
  }
  std::vector<double> health;
  for (int i = 0; i < requests; ++i) {
    const auto t0 = Clock::now();
    one.Get("/health");
    health.push_back(Seconds(t0, Clock::now()));
  }
  std::printf("GET /health round trip (median): %.2f ms\n", Percentile(health, 0.5) * 1e3);
  const double ip = Percentile(in_process, 0.5), http = Percentile(over_http, 0.5);
  std::printf("one client, %d requests of %d tokens (medians): in-process %.2f ms, over HTTP %.2f ms, overhead "
              "%.2f ms/request\n",
              requests, max_tokens, ip * 1e3, http * 1e3, (http - ip) * 1e3);

  std::string stream_body = nlohmann::json::parse(body).dump();
  auto sj = nlohmann::json::parse(body);
  sj["stream"] = true;
  stream_body = sj.dump();
  std::mutex mu;
  std::vector<double> ttfb, ttft;
  int ok = 0, refused = 0;
  const auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_read_timeout(300, 0);
      cli.set_tcp_nodelay(true);
      for (int i = 0; i < requests; ++i) {
        const auto start = Clock::now();
        double first_byte = -1, first_token = -1;
        httplib::Request req;
        req.method = "POST";
        req.path = "/v1/chat/completions";
        req.body = stream_body;
        req.set_header("Content-Type", "application/json");
        req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
          const double now = Seconds(start, Clock::now());
          if (first_byte < 0) first_byte = now;
          if (first_token < 0 && std::string(data, n).find("\"content\":\"") != std::string::npos &&
              std::string(data, n).find("\"content\":\"\"") == std::string::npos)
            first_token = now;
          return true;
        };
        httplib::Response res;
        httplib::Error err;
        const bool sent = cli.send(req, res, err);
        std::lock_guard<std::mutex> lock(mu);
        if (sent && res.status == 200) {
          ++ok;
          ttfb.push_back(first_byte);
          if (first_token >= 0) ttft.push_back(first_token);
        } else {
          ++refused;
        }
      }
    });
  for (auto& t : threads) t.join();
  const double wall = Seconds(t0, Clock::now());
  std::printf("%d streaming clients x %d requests: %d answered, %d refused, %.1f requests/s; time to first byte "
              "p50 %.1f ms p95 %.1f ms; to first token p50 %.1f ms p95 %.1f ms\n",
              clients, requests, ok, refused, ok / wall, Percentile(ttfb, 0.5) * 1e3, Percentile(ttfb, 0.95) * 1e3,
              Percentile(ttft, 0.5) * 1e3, Percentile(ttft, 0.95) * 1e3);
  server.Stop();
  return 0;
}
