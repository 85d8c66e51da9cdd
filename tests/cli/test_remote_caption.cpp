// glance-cli caption DIR --endpoint URL (issue 33, remote captioning), as a user runs it, against
// servers on loopback only:
//   RemoteUnits        the endpoint URL's forms, the retry pause, the request body, the answer
//   RemoteStub         a tiny server in this test: 429 with Retry-After twice then 200 (retried,
//                      the pause honoured, the request as OpenAI's API has it); 401 (one line, no
//                      run); a body that is not JSON (one line per image, no row); --timeout
//                      against a server that accepts and never answers, and bad --timeout values
//   RemoteServe        `glance-cli serve` with the demo model: the same captions as captioning
//                      here with greedy settings, also when it answers 429 (--max-waiting 1); killed mid-run at --concurrency 4 (the run stops,
//                      the rerun finishes: each image exactly once, none lost); killed and
//                      restarted on its port within the retries (the run itself finishes); Ctrl+C
//                      mid-run (what came is written, the rerun finishes)
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/engine/events_json.h"
#include "core/remote/remote_captioner.h"
#include "core/remote/remote_client.h"
#include "tests/cli/cli_process.h"
#include "tests/model/temp_dir.h"

namespace glance::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// file -> caption of a .jsonl; `twice` counts images with more than one row.
std::map<std::string, std::string> Rows(const std::string& path, int* twice = nullptr) {
  std::map<std::string, std::string> rows;
  std::istringstream lines(Read(path));
  std::string line;
  while (std::getline(lines, line)) {
    const json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "a torn row: " << line;
    if (j.is_discarded()) continue;
    if (!rows.emplace(j["file"].get<std::string>(), j["caption"].get<std::string>()).second && twice) ++*twice;
  }
  return rows;
}

int Lines(const std::string& text, const std::string& containing) {
  int n = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) n += line.find(containing) != std::string::npos ? 1 : 0;
  return n;
}

// `count` demo scenes (glance-cli demo-scene --seed 1..count) in `dir`.
void DemoScenes(const std::string& dir, int count) {
  fs::create_directories(dir);
  for (int i = 1; i <= count; ++i) {
    CliProcess p({"demo-scene", "--out", dir + "/scene" + std::to_string(100 + i) + ".png", "--seed", std::to_string(i)});
    ASSERT_EQ(p.Wait(60), 0) << p.err;
  }
}

std::string DemoImage() { return std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png"; }

// ---------------------------------------------------------------------------------------------

TEST(RemoteUnits, EndpointUrlWithOrWithoutV1) {
  using remote::ParseEndpointUrl;
  EXPECT_EQ(ParseEndpointUrl("http://127.0.0.1:8080").ChatUrl(), "http://127.0.0.1:8080/v1/chat/completions");
  EXPECT_EQ(ParseEndpointUrl("http://127.0.0.1:8080/v1").ChatUrl(), "http://127.0.0.1:8080/v1/chat/completions");
  EXPECT_EQ(ParseEndpointUrl("http://host:8080/v1/").ChatUrl(), "http://host:8080/v1/chat/completions");
  EXPECT_EQ(ParseEndpointUrl("HTTPS://gpu.example/vllm/v1/chat/completions").ChatUrl(),
            "https://gpu.example/vllm/v1/chat/completions");
  EXPECT_EQ(ParseEndpointUrl("https://gpu.example/vllm").prefix, "/vllm");
  for (const char* bad : {"localhost:8080", "ftp://host/", "http://", "http://host:99999", "host", "http://a b"}) {
    try {
      ParseEndpointUrl(bad);
      ADD_FAILURE() << bad << " was taken";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("--endpoint ") + bad), std::string::npos) << e.what();
    }
  }
}

TEST(RemoteUnits, RetryPauseDoublesAndHonoursRetryAfter) {
  const remote::RetryPolicy p;
  EXPECT_DOUBLE_EQ(remote::RetryPause(p, 2, -1.0, 0.5), 0.5);
  EXPECT_DOUBLE_EQ(remote::RetryPause(p, 3, -1.0, 0.5), 1.0);
  EXPECT_DOUBLE_EQ(remote::RetryPause(p, 5, -1.0, 0.5), 4.0);
  EXPECT_DOUBLE_EQ(remote::RetryPause(p, 2, 7.0, 0.5), 7.0);   // the server's word
  EXPECT_DOUBLE_EQ(remote::RetryPause(p, 2, 900.0, 0.5), 30.0);  // never above the cap
  EXPECT_DOUBLE_EQ(remote::RetryPause(p, 20, -1.0, 0.5), 30.0);
  EXPECT_LT(remote::RetryPause(p, 3, -1.0, 0.0), remote::RetryPause(p, 3, -1.0, 0.99));  // jitter spreads
}

TEST(RemoteUnits, RequestBodyAndAnswer) {
  remote::RemoteCaptionRequest r;
  r.model = "m";
  r.prompt = "What is this?";
  r.system = "Be brief.";
  r.options.max_new_tokens = 33;
  r.options.sampling = SamplingParams::Greedy();
  r.options.seed = 5;
  const json b = json::parse(remote::ChatRequestBody(r, "\x89PNG....", "image/png"));
  EXPECT_EQ(b["model"], "m");
  EXPECT_EQ(b["max_tokens"], 33);
  EXPECT_EQ(b["temperature"], 0);
  EXPECT_EQ(b["seed"], 5);
  EXPECT_FALSE(b.contains("response_format"));
  EXPECT_EQ(b["messages"][0]["role"], "system");
  EXPECT_EQ(b["messages"][1]["content"][0]["image_url"]["url"], "data:image/png;base64,iVBORy4uLi4=");
  EXPECT_EQ(b["messages"][1]["content"][0]["image_url"]["detail"], "low");
  EXPECT_EQ(b["messages"][1]["content"][1]["text"], "What is this?");
  r.json_answer = true;
  r.json_schema = R"({"type":"object"})";
  EXPECT_EQ(json::parse(remote::ChatRequestBody(r, "x", "image/png"))["response_format"]["type"], "json_schema");
  r.options.sampling->greedy = false;
  r.options.sampling->min_p = 0.1f;
  EXPECT_NE(remote::RemoteRequestProblem(r.options).find("--min-p"), std::string::npos);

  const json ok = {{"choices", {{{"message", {{"role", "assistant"}, {"content", "a cat"}}}, {"finish_reason", "stop"}}}}};
  EXPECT_EQ(remote::CaptionFromAnswer(ok, false, 10, "x.png"), "a cat");
  EXPECT_THROW(remote::CaptionFromAnswer(ok, true, 10, "x.png"), Error);  // not a JSON document
  EXPECT_THROW(remote::CaptionFromAnswer(json::object(), false, 10, "x.png"), Error);
  EXPECT_EQ(remote::ImageMimeType("\xFF\xD8\xFF\xE0", "a.bin"), "image/jpeg");
}

TEST(RemoteUnits, GlanceAttentionIsAskedOnlyWhenSetAndReadBack) {
  remote::RemoteCaptionRequest r;
  r.model = "m";
  r.prompt = "Describe this image.";
  EXPECT_FALSE(json::parse(remote::ChatRequestBody(r, "x", "image/png")).contains("glance"));
  r.glance_attention = true;
  EXPECT_EQ(json::parse(remote::ChatRequestBody(r, "x", "image/png"))["glance"], json({{"attention", true}}));
  TurnStats stats;
  stats.total_s = 0.5;
  stats.generated_tokens = 3;
  const json answer = {{"choices", {{{"message", {{"content", "a cat"}}}}}},
                       {"glance",
                        {{"timing", ToJson(stats)},
                         {"attention",
                          {{"words",
                            {{{"text", "a"}, {"grid_h", 1}, {"grid_w", 2}, {"map", {0.25, 0.75}}},
                             {{"text", " cat"}, {"grid_h", 1}, {"grid_w", 2}, {"map", {0.5}}}}}}}}}};
  const auto insight = remote::InsightFromAnswer(answer);
  ASSERT_TRUE(insight.has_value());
  EXPECT_DOUBLE_EQ(insight->stats.total_s, 0.5);
  EXPECT_EQ(insight->stats.generated_tokens, 3);
  ASSERT_EQ(insight->words.size(), 2u);
  EXPECT_EQ(insight->words[0].text, "a");
  EXPECT_EQ(insight->words[0].map, (std::vector<float>{0.25f, 0.75f}));
  EXPECT_TRUE(insight->words[1].map.empty()) << "a map that does not fill its grid is dropped";
  EXPECT_FALSE(remote::InsightFromAnswer({{"choices", json::array()}}).has_value());
}

// ---------------------------------------------------------------------------------------------

// An OpenAI-shaped server in this process on a free loopback port; `chat` answers each POST
// /v1/chat/completions (its number, from 1), /v1/models lists "stub-model" unless `models` is off.
class StubServer {
 public:
  using Chat = std::function<void(int n, const httplib::Request&, httplib::Response&)>;
  explicit StubServer(Chat chat, bool models = true) : chat_(std::move(chat)) {
    server_.Get("/v1/models", [models](const httplib::Request&, httplib::Response& res) {
      if (!models) {
        res.status = 404;
        return;
      }
      res.set_content(R"({"object":"list","data":[{"id":"stub-model","object":"model"}]})", "application/json");
    });
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      int n;
      {
        std::lock_guard lock(m_);
        bodies_.push_back(req.body);
        auth_.push_back(req.get_header_value("Authorization"));
        n = static_cast<int>(bodies_.size());
      }
      chat_(n, req, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~StubServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> bodies() {
    std::lock_guard lock(m_);
    return bodies_;
  }
  std::vector<std::string> auth() {
    std::lock_guard lock(m_);
    return auth_;
  }

 private:
  Chat chat_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex m_;
  std::vector<std::string> bodies_, auth_;
};

std::string Answer(const std::string& text) {
  return json{{"id", "c1"},
              {"object", "chat.completion"},
              {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}}}
      .dump();
}

TEST(RemoteStub, TooManyRequestsWithRetryAfterIsRetriedAndSucceeds) {
  TempDir d;
  fs::create_directories(d / "imgs");
  fs::copy_file(DemoImage(), d / "imgs/a.png");
  StubServer stub([](int n, const httplib::Request&, httplib::Response& res) {
    if (n <= 2) {
      res.status = 429;
      res.set_header("Retry-After", "1");
      res.set_content(R"({"error":{"message":"the queue is full","type":"rate_limit"}})", "application/json");
      return;
    }
    res.set_content(Answer("a red square on white"), "application/json");
  });
  const auto t0 = std::chrono::steady_clock::now();
  CliProcess p({"caption", d / "imgs", "--out", d / "out.jsonl", "--preset", "short", "--endpoint", stub.url() + "/v1",
                "--api-key", "sekrit"});
  ASSERT_EQ(p.Wait(60), 0) << p.err;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(Rows(d / "out.jsonl"), (std::map<std::string, std::string>{{"a.png", "a red square on white"}}));
  const auto bodies = stub.bodies();
  ASSERT_EQ(bodies.size(), 3u) << p.err;
  // Retry-After: 1 twice; the doubling pause alone would be at most 0.625 + 1.25 s.
  EXPECT_GE(seconds, 2.0) << p.err;
  EXPECT_EQ(Lines(p.err, "429"), 2) << p.err;
  EXPECT_NE(p.err.find("the queue is full"), std::string::npos) << p.err;
  for (const std::string& a : stub.auth()) EXPECT_EQ(a, "Bearer sekrit");
  // The request as OpenAI's API has it: the server's first model, the preset's greedy length.
  const json b = json::parse(bodies.back());
  EXPECT_EQ(b["model"], "stub-model");
  EXPECT_EQ(b["temperature"], 0);
  EXPECT_EQ(b["max_tokens"], 60);
  EXPECT_EQ(b["messages"][0]["content"][0]["image_url"]["url"].get<std::string>().rfind("data:image/png;base64,iVBOR", 0), 0u);
  EXPECT_NE(b["messages"][0]["content"][1]["text"].get<std::string>().find("one sentence"), std::string::npos) << b.dump();
}

TEST(RemoteStub, RefusedKeyStopsTheRunInOneLine) {
  TempDir d;
  fs::create_directories(d / "imgs");
  for (const char* name : {"a.png", "b.png", "c.png"}) std::ofstream(d / ("imgs/" + std::string(name))) << name;
  StubServer stub([](int, const httplib::Request&, httplib::Response& res) {
    res.status = 401;
    res.set_content(R"({"error":{"message":"invalid API key"}})", "application/json");
  });
  ::setenv("GLANCE_API_KEY", "wrong", 1);
  CliProcess p({"caption", d / "imgs", "--out", d / "out.jsonl", "--endpoint", stub.url(), "--remote-model", "m"});
  const int code = p.Wait(60);
  ::unsetenv("GLANCE_API_KEY");
  EXPECT_EQ(code, 1) << p.err;
  // The stub lists its models; it is the chat route that refuses: said once, and no image after.
  EXPECT_EQ(Lines(p.err, "HTTP 401"), 1) << p.err;
  EXPECT_EQ(Lines(p.err, "stopped: " + stub.url() + "/v1/chat/completions: HTTP 401 Unauthorized: invalid API key "
                         "(the server refused the API key: --api-key or GLANCE_API_KEY)"), 1) << p.err;
  EXPECT_EQ(stub.bodies().size(), 1u) << "a refused key is neither retried nor tried on the next image";
  for (const std::string& a : stub.auth()) EXPECT_EQ(a, "Bearer wrong");
  EXPECT_EQ(json::parse(stub.bodies().at(0))["model"], "m");
  EXPECT_TRUE(Rows(d / "out.jsonl").empty());
}

TEST(RemoteStub, RefusedKeyOnTheModelListStopsBeforeTheRun) {
  TempDir d;
  fs::create_directories(d / "imgs");
  fs::copy_file(DemoImage(), d / "imgs/a.png");
  httplib::Server server;
  server.Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
    res.status = 401;
    res.set_content(R"({"error":{"message":"invalid API key"}})", "application/json");
  });
  std::atomic<int> chats{0};
  server.Post("/v1/chat/completions", [&](const httplib::Request&, httplib::Response&) { ++chats; });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  CliProcess p({"caption", d / "imgs", "--out", d / "out.jsonl", "--endpoint", "http://127.0.0.1:" + std::to_string(port)});
  const int code = p.Wait(60);
  server.stop();
  t.join();
  EXPECT_EQ(code, 1);
  EXPECT_EQ(Lines(p.err, ""), 1) << "one line:\n" << p.err;
  EXPECT_NE(p.err.find("HTTP 401"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("the server wants an API key: --api-key KEY or GLANCE_API_KEY"), std::string::npos) << p.err;
  EXPECT_EQ(chats.load(), 0);
}

TEST(RemoteStub, AnAnswerThatIsNotJsonFailsTheImageInOneLine) {
  TempDir d;
  fs::create_directories(d / "imgs");
  fs::copy_file(DemoImage(), d / "imgs/a.png");
  StubServer stub([](int, const httplib::Request&, httplib::Response& res) {
    res.set_content("<html><body>Welcome to nginx!</body></html>", "text/html");
  }, /*models=*/false);
  CliProcess p({"caption", d / "imgs", "--out", d / "out.jsonl", "--endpoint", stub.url()});
  EXPECT_EQ(p.Wait(60), 1) << p.err;
  EXPECT_EQ(Lines(p.err, "the answer is not JSON (text/html: '<html><body>Welcome to nginx!"), 1) << p.err;
  EXPECT_EQ(json::parse(stub.bodies().at(0))["model"], "default") << "no /v1/models: the model is 'default'";
  EXPECT_TRUE(Rows(d / "out.jsonl").empty());
}

TEST(RemoteStub, BadFlagsAndNoServerAreOneLineEach) {
  TempDir d;
  fs::create_directories(d / "imgs");
  fs::copy_file(DemoImage(), d / "imgs/a.png");
  // A port nothing listens on: one the kernel gave a socket, closed without listening.
  int closed_port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    closed_port = ntohs(a.sin_port);
    ::close(fd);
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--endpoint", "localhost:8080"}, "--endpoint localhost:8080: not an http:// or https:// URL"},
      {{"--endpoint", "http://127.0.0.1:" + std::to_string(closed_port)}, "cannot reach the server (cannot connect"},
      {{"--endpoint", "http://127.0.0.1:1", "--concurrency", "0"}, "--concurrency: '0' is not a whole number from 1 to 64"},
      {{"--concurrency", "4"}, "--concurrency is for --endpoint URL"},
      {{"--endpoint", "http://127.0.0.1:1", "--model", "x"}, "--model is for a model loaded here"},
      {{"--endpoint", "http://127.0.0.1:1", "--sampling", "custom", "--min-p", "0.1"}, "--min-p has no field"},
      {{"--endpoint", "http://127.0.0.1:1", "--timeout", "0"}, "--timeout: '0' is not a number of seconds above 0"},
      {{"--endpoint", "http://127.0.0.1:1", "--timeout", "-5"}, "--timeout: '-5' is not a number of seconds"},
      {{"--endpoint", "http://127.0.0.1:1", "--timeout", "10s"}, "--timeout: '10s' is not a number of seconds"},
      {{"--endpoint", "http://127.0.0.1:1", "--timeout", "1e9"}, "at most 86400"},
      {{"--timeout", "5"}, "--timeout is for --endpoint URL"},
  };
  for (const auto& [flags, words] : cases) {
    std::vector<std::string> args = {"caption", d / "imgs", "--out", d / "out.jsonl"};
    args.insert(args.end(), flags.begin(), flags.end());
    CliProcess p(args);
    EXPECT_EQ(p.Wait(60), 1) << p.err;
    EXPECT_EQ(Lines(p.err, ""), 1) << "one line:\n" << p.err;
    EXPECT_NE(p.err.find(words), std::string::npos) << p.err;
  }
  EXPECT_FALSE(fs::exists(d / "out.jsonl"));
  CliProcess help({"caption", "--help"});
  EXPECT_EQ(help.Wait(60), 0);
  EXPECT_NE((help.out + help.err).find("caption DIR --endpoint URL [--api-key KEY] [--remote-model NAME] [--concurrency N]"),
            std::string::npos);
  EXPECT_NE((help.out + help.err).find("--timeout SECONDS: how long one request"), std::string::npos);
}

// A loopback port whose socket listens and never accepts: the kernel completes each connection
// (the backlog), and nothing is ever read or written — a server that accepts and stays silent.
class SilentServer {
 public:
  SilentServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 64) != 0) return;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~SilentServer() { ::close(fd_); }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(RemoteStub, TimeoutEndsAServerThatAcceptsAndNeverAnswers) {
  TempDir d;
  fs::create_directories(d / "imgs");
  fs::copy_file(DemoImage(), d / "imgs/a.png");
  SilentServer silent;
  ASSERT_GT(silent.port(), 0);
  const std::vector<std::string> args = {"caption", d / "imgs", "--out", d / "out.jsonl", "--endpoint", silent.url()};
  // Control: without --timeout the run waits (600 s a try), still there after 4 s.
  {
    CliProcess waits(args);
    EXPECT_EQ(waits.Wait(4.0), -1) << "ended without --timeout:\n" << waits.err;
    waits.Signal(SIGKILL);
    waits.Wait(10);
  }
  std::vector<std::string> timed = args;
  timed.insert(timed.end(), {"--timeout", "1.5"});
  const auto t0 = std::chrono::steady_clock::now();
  CliProcess p(timed);
  EXPECT_EQ(p.Wait(60), 1) << p.err;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(seconds, 1.4) << p.err;
  EXPECT_LT(seconds, 30.0) << p.err;
  EXPECT_EQ(Lines(p.err, ""), 1) << "one line:\n" << p.err;
  EXPECT_NE(p.err.find("cannot reach the server (nothing came within 1.5 s: --timeout)"), std::string::npos) << p.err;
  EXPECT_FALSE(fs::exists(d / "out.jsonl"));
}

// The model list answers; the chat route never does: each try waits --timeout, the 6th ends the run.
TEST(RemoteStub, TimeoutEndsARunWhoseRequestsAreNeverAnswered) {
  TempDir d;
  fs::create_directories(d / "imgs");
  fs::copy_file(DemoImage(), d / "imgs/a.png");
  fs::copy_file(DemoImage(), d / "imgs/b.png");
  std::atomic<bool> done{false};
  StubServer stub([&done](int, const httplib::Request&, httplib::Response& res) {
    while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    res.status = 503;
  });
  const auto t0 = std::chrono::steady_clock::now();
  CliProcess p({"caption", d / "imgs", "--out", d / "out.jsonl", "--endpoint", stub.url(), "--timeout", "1"});
  const int code = p.Wait(120);
  done = true;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(code, 1) << p.err;
  // 6 tries of 1 s and the pauses between them (0.5 s doubling, a quarter either way: at most 19.4 s).
  EXPECT_GE(seconds, 6.0) << p.err;
  EXPECT_LT(seconds, 60.0) << p.err;
  EXPECT_EQ(Lines(p.err, "stopped: " + stub.url() + "/v1/chat/completions: no answer (nothing came within 1 s: "
                         "--timeout) after 6 tries"), 1) << p.err;
  EXPECT_EQ(stub.bodies().size(), 6u) << "the second image was sent after the server was taken for gone";
  EXPECT_TRUE(Rows(d / "out.jsonl").empty());
}

// ---------------------------------------------------------------------------------------------

// `glance-cli serve --port PORT` with the demo model; PORT 0: any free one, read from its line.
class Serve {
 public:
  explicit Serve(int port = 0, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"serve", "--port", std::to_string(port)};
    args.insert(args.end(), extra.begin(), extra.end());
    proc_ = std::make_unique<CliProcess>(args);
    if (!proc_->WaitForStderr("/v1 (", 120)) return;
    std::smatch m;
    if (std::regex_search(proc_->err, m, std::regex("http://127\\.0\\.0\\.1:(\\d+)/v1"))) port_ = std::stoi(m[1]);
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void Kill() {
    proc_->Signal(SIGKILL);
    proc_->Wait(10);
  }

 private:
  std::unique_ptr<CliProcess> proc_;
  int port_ = 0;
};

// The captions of `dir` made here (greedy: the short preset), the reference for the remote ones.
std::map<std::string, std::string> LocalCaptions(const TempDir& d, const std::string& dir) {
  CliProcess p({"caption", dir, "--out", d / "local.jsonl", "--preset", "short"});
  EXPECT_EQ(p.Wait(300), 0) << p.err;
  return Rows(d / "local.jsonl");
}

// Waits until `path` holds at least `rows` lines (or `seconds` pass); the lines it holds.
int WaitForRows(CliProcess& p, const std::string& path, int rows, double seconds) {
  int n = 0;
  p.WaitFor([&] {
    n = Lines(Read(path), "\"sha256\"");
    return n >= rows;
  }, seconds);
  return n;
}

TEST(RemoteServe, SameCaptionsAsCaptioningHere) {
  TempDir d;
  DemoScenes(d / "imgs", 12);
  const auto local = LocalCaptions(d, d / "imgs");
  ASSERT_EQ(local.size(), 12u);
  Serve server;
  ASSERT_GT(server.port(), 0);
  for (const char* concurrency : {"1", "4"}) {
    const std::string out = d / (std::string("remote") + concurrency + ".jsonl");
    CliProcess p({"caption", d / "imgs", "--out", out, "--preset", "short", "--endpoint", server.url() + "/v1",
                  "--concurrency", concurrency});
    ASSERT_EQ(p.Wait(300), 0) << p.err;
    EXPECT_NE(p.err.find("(model demo-model, " + std::string(concurrency) + " at once)"), std::string::npos) << p.err;
    EXPECT_EQ(Rows(out), local) << "--concurrency " << concurrency;
  }
}

// A server with room for one waiting request answers the others of 4 in flight 429 (no
// Retry-After: the doubling pause); every image is still captioned once, as here.
TEST(RemoteServe, BusyServerAnswering429IsRetried) {
  TempDir d;
  DemoScenes(d / "imgs", 12);
  const auto local = LocalCaptions(d, d / "imgs");
  Serve server(0, {"--max-waiting", "1"});
  ASSERT_GT(server.port(), 0);
  CliProcess p({"caption", d / "imgs", "--out", d / "remote.jsonl", "--preset", "short", "--endpoint", server.url(),
                "--concurrency", "4"});
  ASSERT_EQ(p.Wait(300), 0) << p.err;
  EXPECT_GE(Lines(p.err, "HTTP 429 Too Many Requests"), 1) << p.err;
  int twice = 0;
  EXPECT_EQ(Rows(d / "remote.jsonl", &twice), local);
  EXPECT_EQ(twice, 0);
}

TEST(RemoteServe, ServerKilledMidRunStopsTheRunAndTheRerunFinishes) {
  TempDir d;
  DemoScenes(d / "imgs", 40);
  const auto local = LocalCaptions(d, d / "imgs");
  ASSERT_EQ(local.size(), 40u);
  const std::string out = d / "remote.jsonl";
  auto server = std::make_unique<Serve>();
  ASSERT_GT(server->port(), 0);
  const int port = server->port();
  const std::vector<std::string> args = {"caption", d / "imgs", "--out", out, "--preset", "short",
                                         "--endpoint", server->url(), "--concurrency", "4"};
  CliProcess first(args);
  const int before_kill = WaitForRows(first, out, 4, 120);
  server->Kill();
  ASSERT_LT(before_kill, 40) << "the run finished before the server was killed: give it more images";
  EXPECT_EQ(first.Wait(120), 1) << first.err;
  EXPECT_NE(first.err.find("stopped: "), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("cannot connect"), std::string::npos) << first.err;
  int twice = 0;
  const auto after_first = Rows(out, &twice);
  EXPECT_LT(after_first.size(), 40u);
  EXPECT_GE(after_first.size(), static_cast<size_t>(before_kill)) << "a written caption was lost";

  server = std::make_unique<Serve>(port);  // the same command line again
  ASSERT_EQ(server->port(), port);
  CliProcess rerun(args);
  ASSERT_EQ(rerun.Wait(300), 0) << rerun.err;
  EXPECT_NE(rerun.err.find(std::to_string(after_first.size()) + " already in"), std::string::npos) << rerun.err;
  EXPECT_EQ(Rows(out, &twice), local);
  EXPECT_EQ(twice, 0) << "an image was captioned twice";
}

TEST(RemoteServe, ServerRestartedWithinTheRetriesLosesNothing) {
  TempDir d;
  DemoScenes(d / "imgs", 40);
  const auto local = LocalCaptions(d, d / "imgs");
  const std::string out = d / "remote.jsonl";
  auto server = std::make_unique<Serve>();
  ASSERT_GT(server->port(), 0);
  const int port = server->port();
  CliProcess run({"caption", d / "imgs", "--out", out, "--preset", "short", "--endpoint", server->url(),
                  "--concurrency", "4"});
  const int before_kill = WaitForRows(run, out, 4, 120);
  server->Kill();
  ASSERT_LT(before_kill, 40) << "the run finished before the server was killed: give it more images";
  server = std::make_unique<Serve>(port);
  ASSERT_EQ(server->port(), port);
  ASSERT_EQ(run.Wait(300), 0) << run.err;
  EXPECT_NE(run.err.find("no answer"), std::string::npos) << "no request was retried:\n" << run.err;
  int twice = 0;
  EXPECT_EQ(Rows(out, &twice), local);
  EXPECT_EQ(twice, 0);
}

TEST(RemoteServe, CtrlCWritesWhatCameAndTheRerunFinishes) {
  TempDir d;
  DemoScenes(d / "imgs", 40);
  const auto local = LocalCaptions(d, d / "imgs");
  const std::string out = d / "remote.jsonl";
  Serve server;
  ASSERT_GT(server.port(), 0);
  const std::vector<std::string> args = {"caption", d / "imgs", "--out", out, "--preset", "short",
                                         "--endpoint", server.url(), "--concurrency", "4"};
  CliProcess first(args);
  const int before = WaitForRows(first, out, 4, 120);
  first.Signal(SIGINT);
  ASSERT_LT(before, 40) << "the run finished before Ctrl+C: give it more images";
  EXPECT_EQ(first.Wait(60), 130) << first.err;
  EXPECT_NE(first.err.find("stopped (Ctrl+C)"), std::string::npos) << first.err;
  int twice = 0;
  const auto after_first = Rows(out, &twice);
  EXPECT_LT(after_first.size(), 40u);
  CliProcess rerun(args);
  ASSERT_EQ(rerun.Wait(300), 0) << rerun.err;
  EXPECT_EQ(Rows(out, &twice), local);
  EXPECT_EQ(twice, 0);
}

}  // namespace
}  // namespace glance::test
