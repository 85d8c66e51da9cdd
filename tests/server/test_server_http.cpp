// `glance-cli serve` as a client sees it, on a free loopback port with the demo model:
//   ServerCurl         curl's bad JSON, oversized body, wrong key, non-image data URL, a
//                      conversation past --context-length, ... get the right status and a JSON
//                      error; a good request gets 200 (control)
//   ServerOpenAiClient the official openai npm package (tests/server/openai_client_test.mjs)
//   ServerLoad         20 concurrent clients for 30 s: every request answered (200) or refused
//                      (429/503), none left without a response, every client served about as
//                      often as the others, no crash, the server's memory flat, a clean stop after
//   ServerSoak         (issue 35) 20 clients mixing streamed, cancelled, malformed, oversized and
//                      image requests for GLANCE_SOAK_SECONDS (120 in CI; 3600 by hand): every
//                      request answered or refused, the server's RSS, open fds and threads sampled
//                      every GLANCE_SOAK_SAMPLE_SECONDS and their slopes after warm-up flat
//   ServerSlowClients  connections sending their request a byte a second ("slowloris", as many
//                      as the server has workers and more) do not keep other clients from being
//                      answered: they get 408 and are closed; control: with --request-timeout 0
//                      the same clients hold every worker and a plain /health goes unanswered
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/util/base64.h"
#include "tests/cli/cli_process.h"

namespace glance::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
const char* const kKey = "test-key";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string DemoImage() { return std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png"; }

std::string ImageMessage(const std::string& text, const std::string& url, int max_tokens) {
  return json{{"model", "demo"},
              {"max_tokens", max_tokens},
              {"messages", {{{"role", "user"},
                             {"content", {{{"type", "image_url"}, {"image_url", {{"url", url}}}},
                                          {{"type", "text"}, {"text", text}}}}}}}}
      .dump();
}

// `glance-cli serve --port 0 ...`; the port is read from its "serving ... at URL" line.
class Server {
 public:
  explicit Server(std::vector<std::string> extra) {
    std::vector<std::string> args = {"serve", "--port", "0", "--api-key", kKey};
    args.insert(args.end(), extra.begin(), extra.end());
    proc_ = std::make_unique<CliProcess>(args);
    if (!proc_->WaitForStderr("/v1 (", 120)) return;
    std::smatch m;
    if (std::regex_search(proc_->err, m, std::regex("http://127\\.0\\.0\\.1:(\\d+)/v1"))) port_ = std::stoi(m[1]);
  }
  int port() const { return port_; }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  CliProcess& proc() { return *proc_; }
  // Resident memory of the server process, from /proc.
  long RssKiB() const {
    std::ifstream in("/proc/" + std::to_string(proc_->pid()) + "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
  }

 private:
  std::unique_ptr<CliProcess> proc_;
  int port_ = 0;
};

struct CurlResult {
  int status = 0;
  json body;
  std::string raw;      // the body as received (a stream's events)
  std::string headers;  // the response's header lines, as received
};

// curl as a user would run it; the body goes through a file so any size works.
CurlResult Curl(const Server& s, const std::string& method, const std::string& path, const std::string& body,
                const std::string& key = kKey, const std::vector<std::string>& headers = {}) {
  const fs::path dir = fs::temp_directory_path() / ("glance_curl_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string in = (dir / "in.json").string(), out = (dir / "out.json").string();
  const std::string head = (dir / "head.txt").string();
  std::ofstream(in, std::ios::binary) << body;
  std::string cmd = "curl -s -o '" + out + "' -D '" + head + "' -w '%{http_code}' -X " + method + " '" + s.base() +
                    path + "'";
  if (!key.empty()) cmd += " -H 'Authorization: Bearer " + key + "'";
  for (const std::string& h : headers) cmd += " -H '" + h + "'";
  if (method == "POST") cmd += " -H 'Content-Type: application/json' --data-binary @'" + in + "'";
  CurlResult r;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[16] = {};
    if (std::fgets(buf, sizeof buf, p)) r.status = std::atoi(buf);
    ::pclose(p);
  }
  r.raw = ReadFile(out);
  r.body = json::parse(r.raw, nullptr, false);
  r.headers = ReadFile(head);
  fs::remove_all(dir);
  return r;
}

// Every refusal is an OpenAI-style {"error": {"message": ...}} body.
void ExpectError(const CurlResult& r, int status, const std::string& words) {
  EXPECT_EQ(r.status, status) << r.body.dump();
  ASSERT_TRUE(r.body.is_object() && r.body.contains("error")) << r.body.dump();
  EXPECT_NE(r.body["error"]["message"].get<std::string>().find(words), std::string::npos) << r.body.dump();
}

TEST(ServerCurl, BadRequestsGetTheirStatusAndAJsonError) {
  Server s({"--max-body-mb", "1", "--max-image-mp", "1", "--max-tokens-limit", "64"});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const std::string image = "data:image/png;base64," + EncodeBase64(ReadFile(DemoImage()));

  // Controls: the endpoints answer a well-formed request.
  const CurlResult health = Curl(s, "GET", "/health", "");
  EXPECT_EQ(health.status, 200);
  const CurlResult models = Curl(s, "GET", "/v1/models", "");
  ASSERT_EQ(models.status, 200);
  EXPECT_EQ(models.body["data"][0]["object"], "model");
  const CurlResult ok = Curl(s, "POST", "/v1/chat/completions", ImageMessage("Describe this image.", image, 3));
  ASSERT_EQ(ok.status, 200) << ok.body.dump();
  EXPECT_EQ(ok.body["object"], "chat.completion");
  EXPECT_GT(ok.body["usage"]["prompt_tokens"].get<int>(), 49);

  ExpectError(Curl(s, "POST", "/v1/chat/completions", "{\"messages\": [oops"), 400, "not valid JSON");
  ExpectError(Curl(s, "POST", "/v1/chat/completions", std::string(1536 * 1024, ' ')), 413, "larger than");
  ExpectError(Curl(s, "POST", "/v1/chat/completions", ImageMessage("x", image, 3), "wrong-key"), 401, "API key");
  ExpectError(Curl(s, "GET", "/v1/models", "", ""), 401, "API key");
  ExpectError(Curl(s, "POST", "/v1/chat/completions", ImageMessage("x", "data:text/plain;base64,aGVsbG8=", 3)), 400,
              "not an image");
  ExpectError(Curl(s, "POST", "/v1/chat/completions", ImageMessage("x", "https://example.com/cat.png", 3)), 400,
              "remote image URLs");
  ExpectError(Curl(s, "POST", "/v1/chat/completions", ImageMessage("x", "/etc/passwd", 3)), 400, "data:image");
  ExpectError(Curl(s, "POST", "/v1/chat/completions", ImageMessage("x", image, 65)), 400, "limit of 64");
  ExpectError(Curl(s, "GET", "/v1/nothing", ""), 404, "no such endpoint");
  // A PNG header claiming 5000x5000 (25 MP): refused from the header, before decoding.
  std::string png = ReadFile(DemoImage()).substr(0, 64);
  for (int k = 0; k < 4; ++k) png[16 + k] = png[20 + k] = static_cast<char>((5000u >> (24 - 8 * k)) & 0xFF);
  ExpectError(Curl(s, "POST", "/v1/chat/completions", ImageMessage("x", "data:image/png;base64," + EncodeBase64(png), 3)),
              413, "megapixels");
  // A corrupt image inside a valid data URL: 400, and the server carries on.
  std::string broken = ReadFile(DemoImage()).substr(0, 200);
  const CurlResult bad_pixels =
      Curl(s, "POST", "/v1/chat/completions", ImageMessage("x", "data:image/png;base64," + EncodeBase64(broken), 3));
  EXPECT_EQ(bad_pixels.status, 400) << bad_pixels.body.dump();
  EXPECT_EQ(Curl(s, "GET", "/health", "").status, 200);

  // Web pages: one from another site is refused even with the key, and so is a request through a
  // name that is not this machine's (DNS rebinding); a page from this machine gets CORS headers,
  // and its preflight (which carries no key) is answered.
  ExpectError(Curl(s, "GET", "/v1/models", "", kKey, {"Origin: https://evil.example"}), 403, "--allow-origin");
  ExpectError(Curl(s, "POST", "/v1/chat/completions", ImageMessage("x", image, 3), kKey,
                   {"Origin: https://evil.example"}), 403, "evil.example");
  ExpectError(Curl(s, "GET", "/v1/models", "", kKey, {"Host: rebound.example:8080"}), 403, "Host header");
  const CurlResult local_page = Curl(s, "GET", "/v1/models", "", kKey, {"Origin: http://localhost:3000"});
  EXPECT_EQ(local_page.status, 200) << local_page.body.dump();
  EXPECT_NE(local_page.headers.find("Access-Control-Allow-Origin: http://localhost:3000"), std::string::npos)
      << local_page.headers;
  const CurlResult preflight = Curl(s, "OPTIONS", "/v1/chat/completions", "", "",
                                    {"Origin: http://127.0.0.1:5173", "Access-Control-Request-Method: POST"});
  EXPECT_EQ(preflight.status, 204) << preflight.headers;
  EXPECT_NE(preflight.headers.find("Access-Control-Allow-Headers: Authorization"), std::string::npos)
      << preflight.headers;
  EXPECT_EQ(Curl(s, "OPTIONS", "/v1/chat/completions", "", "", {"Origin: https://evil.example"}).status, 403);

  // A second server on the same port is refused (no SO_REUSEPORT sharing the connections).
  CliProcess second({"serve", "--port", std::to_string(s.port())});
  EXPECT_EQ(second.Wait(120), 1) << second.err;
  EXPECT_NE(second.err.find("in use"), std::string::npos) << second.err;

  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

// --context-length: a conversation that would hold more tokens is refused with 400
// context_length_exceeded naming the limit; the same request is answered by a server with the
// default (control); an out-of-range value stops `serve` with a line naming the flag.
TEST(ServerCurl, ContextLengthRefusesALongerConversation) {
  std::string long_text;
  for (int i = 0; i < 700; ++i) long_text += "red square. ";
  const std::string request = json{{"model", "demo"},
                                   {"max_tokens", 2},
                                   {"messages", {{{"role", "user"}, {"content", long_text}}}}}
                                  .dump();
  {
    Server s({"--context-length", "512"});
    ASSERT_GT(s.port(), 0) << s.proc().err;
    const CurlResult refused = Curl(s, "POST", "/v1/chat/completions", request);
    ExpectError(refused, 400, "512 tokens");
    EXPECT_EQ(refused.body["error"]["type"], "context_length_exceeded") << refused.body.dump();
    const CurlResult short_one = Curl(s, "POST", "/v1/chat/completions",
                                      json{{"model", "demo"}, {"max_tokens", 2},
                                           {"messages", {{{"role", "user"}, {"content", "Hello"}}}}}.dump());
    EXPECT_EQ(short_one.status, 200) << short_one.body.dump();
    s.proc().Signal(SIGTERM);
    EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
  }
  {
    Server s({});
    ASSERT_GT(s.port(), 0) << s.proc().err;
    const CurlResult answered = Curl(s, "POST", "/v1/chat/completions", request);
    EXPECT_EQ(answered.status, 200) << answered.body.dump();
    EXPECT_GT(answered.body["usage"]["prompt_tokens"].get<int>(), 512) << answered.body.dump();
    s.proc().Signal(SIGTERM);
    EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
  }
  CliProcess bad({"serve", "--port", "0", "--context-length", "100"});
  EXPECT_EQ(bad.Wait(120), 1) << bad.err;
  EXPECT_NE(bad.err.find("--context-length must be between 512"), std::string::npos) << bad.err;
}

// Tool calls over HTTP (issue 29): a scripted answer (glance.forced_answer) with two calls comes
// back as message.tool_calls with finish_reason tool_calls; streamed, as a delta per call (index,
// id, type, name) then its arguments in pieces, no call text in the content; a bad call is
// content; a named choice outside the tools is a 400 naming tool_choice.function.name.
TEST(ServerToolsCurl, ToolCallsPlainStreamedAndRefused) {
  Server s({});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const json tool = {{"type", "function"},
                     {"function", {{"name", "get_weather"},
                                   {"parameters", {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}}}}};
  const std::string call = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
  const std::string rome = "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>";
  auto body = [&](const std::string& forced, bool stream) {
    return json{{"messages", {{{"role", "user"}, {"content", "Weather?"}}}}, {"tools", {tool}}, {"stream", stream},
                {"max_tokens", 4}, {"glance", {{"forced_answer", forced}}}}.dump();
  };
  const CurlResult plain = Curl(s, "POST", "/v1/chat/completions", body("Checking.\n\n" + call + "\n" + rome, false));
  ASSERT_EQ(plain.status, 200) << plain.raw;
  const json& choice = plain.body["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["content"], "Checking.");
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 2u) << plain.raw;
  EXPECT_EQ(choice["message"]["tool_calls"][1]["type"], "function");
  EXPECT_EQ(choice["message"]["tool_calls"][1]["function"]["name"], "get_weather");
  EXPECT_EQ(json::parse(choice["message"]["tool_calls"][1]["function"]["arguments"].get<std::string>()), json({{"city", "Rome"}}));
  EXPECT_EQ(choice["message"]["tool_calls"][0]["id"].get<std::string>().rfind("call_", 0), 0u);
  // Only calls: content is null.
  const CurlResult only = Curl(s, "POST", "/v1/chat/completions", body(call, false));
  EXPECT_TRUE(only.body["choices"][0]["message"]["content"].is_null()) << only.raw;

  const CurlResult streamed = Curl(s, "POST", "/v1/chat/completions", body("Checking.\n\n" + call + "\n" + rome, true));
  ASSERT_EQ(streamed.status, 200);
  std::string content, finish;
  std::map<int, std::string> ids, names, args;
  std::istringstream events(streamed.raw);
  for (std::string line; std::getline(events, line);) {
    if (line.rfind("data: {", 0) != 0) continue;
    const json chunk = json::parse(line.substr(6));
    const json& d = chunk["choices"][0]["delta"];
    if (d.contains("content")) content += d["content"].get<std::string>();
    if (!chunk["choices"][0]["finish_reason"].is_null()) finish = chunk["choices"][0]["finish_reason"];
    if (!d.contains("tool_calls")) continue;
    for (const json& c : d["tool_calls"]) {
      const int i = c["index"];
      if (c.contains("id")) {
        EXPECT_TRUE(ids[i].empty()) << "call " << i << " opened twice";
        ids[i] = c["id"];
        names[i] = c["function"]["name"];
        EXPECT_EQ(c["type"], "function");
      }
      args[i] += c["function"]["arguments"].get<std::string>();
    }
  }
  EXPECT_EQ(content, "Checking.") << streamed.raw;
  EXPECT_EQ(finish, "tool_calls");
  ASSERT_EQ(names.size(), 2u) << streamed.raw;
  EXPECT_EQ(json::parse(args[0]), json({{"city", "Paris"}}));
  EXPECT_EQ(json::parse(args[1]), json({{"city", "Rome"}}));
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_GT(std::count(streamed.raw.begin(), streamed.raw.end(), '\n'), 12) << "arguments were not sent in pieces";

  // A call of a function the request does not offer is content, streamed or not.
  const std::string bad = "<tool_call>\n<function=launch>\n</function>\n</tool_call>";
  const CurlResult text = Curl(s, "POST", "/v1/chat/completions", body(bad, false));
  EXPECT_EQ(text.body["choices"][0]["message"]["content"], bad) << text.raw;
  EXPECT_EQ(text.body["choices"][0]["finish_reason"], "stop");
  EXPECT_FALSE(text.body["choices"][0]["message"].contains("tool_calls"));
  const CurlResult text_streamed = Curl(s, "POST", "/v1/chat/completions", body(bad, true));
  EXPECT_EQ(text_streamed.raw.find("tool_calls"), std::string::npos) << text_streamed.raw;
  EXPECT_NE(text_streamed.raw.find("launch"), std::string::npos) << text_streamed.raw;

  json named = json::parse(body(call, false));
  named["tool_choice"] = {{"type", "function"}, {"function", {{"name", "launch"}}}};
  const CurlResult refused = Curl(s, "POST", "/v1/chat/completions", named.dump());
  ExpectError(refused, 400, "not one of the request's tools");
  EXPECT_EQ(refused.body["error"]["param"], "tool_choice.function.name");
  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

TEST(ServerOpenAiClient, ChatImageStreamCancelUsage) {
  const std::string node_dir = GLANCE_SERVER_NODE_DIR;
  if (!fs::exists(node_dir + "/node_modules/openai/package.json"))
    GTEST_FAIL() << "the openai npm package is not installed in " << node_dir << " (ctest runs server_npm_setup first)";
  // tiny-a's random weights never stop early, so the cancelled stream would run its 4000 tokens.
  Server s({"--model", std::string(GLANCE_TEST_DATA) + "/tiny-a"});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const std::string cmd = "cd '" + node_dir + "' && node openai_client_test.mjs '" + s.base() + "/v1' " + kKey +
                          " '" + DemoImage() + "' 2>&1";
  std::string output;
  int status = -1;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    status = ::pclose(p);
  }
  EXPECT_EQ(status, 0) << output << "\nserver:\n" << s.proc().err;
  EXPECT_NE(output.find("openai client test passed"), std::string::npos) << output;
  std::printf("%s", output.c_str());
  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

// response_format (json_object, json_schema) and logprobs through the openai client (issue 29).
TEST(ServerOpenAiClient, StructuredOutputsAndLogprobs) {
  const std::string node_dir = GLANCE_SERVER_NODE_DIR;
  if (!fs::exists(node_dir + "/node_modules/openai/package.json"))
    GTEST_FAIL() << "the openai npm package is not installed in " << node_dir << " (ctest runs server_npm_setup first)";
  Server s({"--model", std::string(GLANCE_TEST_DATA) + "/tiny-a"});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const std::string cmd = "cd '" + node_dir + "' && node openai_structured_test.mjs '" + s.base() + "/v1' " + kKey + " 2>&1";
  std::string output;
  int status = -1;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    status = ::pclose(p);
  }
  EXPECT_EQ(status, 0) << output << "\nserver:\n" << s.proc().err;
  EXPECT_NE(output.find("openai structured outputs test passed"), std::string::npos) << output;
  std::printf("%s", output.c_str());
  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

// POST /v1/responses through the openai client: plain, image + instructions, previous_response_id
// (and a 404 for one not held), the streamed event sequence, text.format json_schema (issue 29).
TEST(ServerOpenAiClient, ResponsesApi) {
  const std::string node_dir = GLANCE_SERVER_NODE_DIR;
  if (!fs::exists(node_dir + "/node_modules/openai/package.json"))
    GTEST_FAIL() << "the openai npm package is not installed in " << node_dir << " (ctest runs server_npm_setup first)";
  Server s({"--model", std::string(GLANCE_TEST_DATA) + "/tiny-a"});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const std::string cmd = "cd '" + node_dir + "' && node openai_responses_test.mjs '" + s.base() + "/v1' " + kKey +
                          " '" + DemoImage() + "' 2>&1";
  std::string output;
  int status = -1;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    status = ::pclose(p);
  }
  EXPECT_EQ(status, 0) << output << "\nserver:\n" << s.proc().err;
  EXPECT_NE(output.find("openai responses test passed"), std::string::npos) << output;
  std::printf("%s", output.c_str());
  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

// Tool calls through the openai client (tests/server/openai_tools_test.mjs): scripted answers
// with two calls, plain and through the client's stream helper, the results sent back, a bad
// call as text, a named tool_choice constraining a sampled answer (issue 29).
TEST(ServerOpenAiClient, ToolCalls) {
  const std::string node_dir = GLANCE_SERVER_NODE_DIR;
  if (!fs::exists(node_dir + "/node_modules/openai/package.json"))
    GTEST_FAIL() << "the openai npm package is not installed in " << node_dir << " (ctest runs server_npm_setup first)";
  Server s({"--model", std::string(GLANCE_TEST_DATA) + "/tiny-a"});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const std::string cmd = "cd '" + node_dir + "' && node openai_tools_test.mjs '" + s.base() + "/v1' " + kKey + " 2>&1";
  std::string output;
  int status = -1;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    status = ::pclose(p);
  }
  EXPECT_EQ(status, 0) << output << "\nserver:\n" << s.proc().err;
  EXPECT_NE(output.find("openai tools test passed"), std::string::npos) << output;
  std::printf("%s", output.c_str());
  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

// The Vercel AI SDK and LangChain: structured outputs (generateObject with a zod schema,
// withStructuredOutput) and plain and streamed text, parsed by the libraries themselves (issue 29).
TEST(ServerSdkClients, VercelAiSdkAndLangChain) {
  const std::string node_dir = GLANCE_SERVER_SDK_NODE_DIR;
  if (!fs::exists(node_dir + "/node_modules/ai/package.json") || !fs::exists(node_dir + "/node_modules/@langchain/openai/package.json"))
    GTEST_FAIL() << "the ai and @langchain/openai npm packages are not installed in " << node_dir
                 << " (ctest runs server_sdk_npm_setup first)";
  Server s({"--model", std::string(GLANCE_TEST_DATA) + "/tiny-a"});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const std::string cmd = "cd '" + node_dir + "' && node sdk_clients_test.mjs '" + s.base() + "/v1' " + kKey + " 2>&1";
  std::string output;
  int status = -1;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    status = ::pclose(p);
  }
  EXPECT_EQ(status, 0) << output << "\nserver:\n" << s.proc().err;
  EXPECT_NE(output.find("sdk clients test passed"), std::string::npos) << output;
  std::printf("%s", output.c_str());
  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

TEST(ServerLoad, TwentyClientsAreAnsweredOrRefusedAndMemoryStaysFlat) {
  const char* env = std::getenv("GLANCE_LOAD_SECONDS");
  const double seconds = env ? std::atof(env) : 30.0;
  Server s({"--max-waiting", "8", "--max-tokens-limit", "16"});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const std::string image_body =
      ImageMessage("Describe this image.", "data:image/png;base64," + EncodeBase64(ReadFile(DemoImage())), 8);
  const std::string text_body =
      json{{"messages", {{{"role", "user"}, {"content", "hello"}}}}, {"max_tokens", 8}, {"stream", true}}.dump();

  std::mutex mu;
  std::map<int, int> statuses;  // HTTP status -> count; 0 = no response (connection failed)
  std::vector<int> per_client(20, 0);  // responses each client got
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < 20; ++c)
    clients.emplace_back([&, c] {
      httplib::Client cli("127.0.0.1", s.port());
      cli.set_bearer_token_auth(kKey);
      cli.set_read_timeout(120, 0);
      cli.set_keep_alive(true);  // as the OpenAI SDKs do; a connect per request overflows the
                                 // listen backlog (5 in Debian's cpp-httplib build) at this rate
      for (int i = 0; !stop; ++i) {
        const bool image = (c + i) % 2 == 0;
        // No retry: the server never closes a connection without saying so (it answers
        // `Connection: close` first), so every request gets a response. (The idle keep-alive
        // timeout can race a client's next request, but no client here is idle for 5 s.)
        auto res = cli.Post("/v1/chat/completions", image ? image_body : text_body, "application/json");
        const int status = res ? res->status : 0;
        {
          std::lock_guard<std::mutex> lock(mu);
          ++statuses[status];
          if (res) ++per_client[static_cast<size_t>(c)];
          else std::printf("client %d request %d: no response (%s)\n", c, i, httplib::to_string(res.error()).c_str());
        }
        // A refused client backs off a little, as OpenAI's clients do.
        if (status == 429 || status == 503) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  // RSS once the server has seen every kind of request, then at the end.
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds / 3));
  const long rss_warm = s.RssKiB();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds * 2 / 3));
  const long rss_end = s.RssKiB();
  stop = true;
  for (auto& t : clients) t.join();

  int total = 0;
  for (const auto& [status, n] : statuses) {
    total += n;
    std::printf("status %d: %d requests\n", status, n);
    EXPECT_TRUE(status == 200 || status == 429 || status == 503) << n << " requests got status " << status;
  }
  const auto [fewest, most] = std::minmax_element(per_client.begin(), per_client.end());
  std::printf("%d requests in %.0f s; per client %d to %d responses; server RSS %ld MiB after warm-up, %ld MiB at the end\n",
              total, seconds, *fewest, *most, rss_warm / 1024, rss_end / 1024);
  EXPECT_GT(statuses[200], 20);
  // More clients than HTTP workers (12 here): connections take turns, none waits out the run.
  EXPECT_GE(*fewest * 4, total / 20) << "a client got far fewer responses than the others";
  ASSERT_GT(rss_warm, 0);
#ifdef __SANITIZE_ADDRESS__
  // AddressSanitizer keeps freed memory in its quarantine (256 MiB by default) before reuse.
  const long asan_quarantine_kib = 256 * 1024;
#else
  const long asan_quarantine_kib = 0;
#endif
  EXPECT_LT(rss_end, rss_warm + rss_warm / 5 + 32 * 1024 + asan_quarantine_kib) << "server memory grew under load";
  EXPECT_EQ(Curl(s, "GET", "/health", "").status, 200);
  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

// One sample of the server process: resident memory, open file descriptors, threads.
struct ProcSample {
  double t = 0;
  long rss_kib = 0, fds = 0, threads = 0;
};

ProcSample SampleProcess(int pid, double t) {
  ProcSample p;
  p.t = t;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) p.rss_kib = std::stol(line.substr(6));
    if (line.rfind("Threads:", 0) == 0) p.threads = std::stol(line.substr(8));
  }
  std::error_code ec;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    ++p.fds;
  return p;
}

// Least-squares slope of `value` against time, per second.
double Slope(const std::vector<ProcSample>& samples, long ProcSample::*value) {
  double st = 0, sv = 0, stt = 0, stv = 0;
  const double n = static_cast<double>(samples.size());
  for (const ProcSample& p : samples) {
    const double v = static_cast<double>(p.*value);
    st += p.t, sv += v, stt += p.t * p.t, stv += p.t * v;
  }
  const double d = n * stt - st * st;
  return d > 0 ? (n * stv - st * sv) / d : 0.0;
}

// A streamed request whose client goes away after the first token (a cancelled answer).
bool StreamThenHangUp(int port, const std::string& body) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return ::close(fd), false;
  const std::string req = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                          std::string(kKey) + "\r\nContent-Type: application/json\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body;
  ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string got;
  char buf[1024];
  while (got.find("data: ") == std::string::npos && got.find("\r\n\r\n{") == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return got.rfind("HTTP/1.1 ", 0) == 0;  // answered (200 streaming, or 429/503 refused)
}

// Issue 35 item 3: the server for a long time under 20 clients mixing every kind of request.
// GLANCE_SOAK_SECONDS (120: the CI smoke; 3600 for the hour-long run) and
// GLANCE_SOAK_SAMPLE_SECONDS (5; 60 for the hour). After a third of the run (warm-up: caches,
// the allocator's arenas, the thread pools), the least-squares slopes of RSS, open fds and
// threads, extrapolated over the measured span, must stay within a tolerance: a leak of one fd,
// one thread or a few KiB per request over thousands of requests is far beyond it.
TEST(ServerSoak, MixedClientsForALongTimeEveryRequestAnsweredAndTheProcessFlat) {
  const char* env = std::getenv("GLANCE_SOAK_SECONDS");
  const double seconds = env ? std::atof(env) : 120.0;
  const char* every_env = std::getenv("GLANCE_SOAK_SAMPLE_SECONDS");
  const double every = every_env ? std::atof(every_env) : 5.0;
  Server s({"--max-waiting", "8", "--max-tokens-limit", "16", "--max-body-mb", "1"});
  ASSERT_GT(s.port(), 0) << s.proc().err;
  const std::string image_body =
      ImageMessage("Describe this image.", "data:image/png;base64," + EncodeBase64(ReadFile(DemoImage())), 8);
  const std::string stream_body =
      json{{"messages", {{{"role", "user"}, {"content", "hello"}}}}, {"max_tokens", 8}, {"stream", true}}.dump();
  const std::string long_stream_body =
      json{{"messages", {{{"role", "user"}, {"content", "tell a story"}}}}, {"max_tokens", 16}, {"stream", true}}.dump();
  const std::string malformed_body = "{\"messages\": [{\"role\": \"user\", \"content\": ";
  const std::string oversized_body =
      json{{"messages", {{{"role", "user"}, {"content", std::string(2 << 20, 'a')}}}}}.dump();

  std::mutex mu;
  std::map<std::string, std::map<int, int>> outcomes;  // kind -> HTTP status (0: none) -> count
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < 20; ++c)
    clients.emplace_back([&, c] {
      httplib::Client cli("127.0.0.1", s.port());
      cli.set_bearer_token_auth(kKey);
      cli.set_read_timeout(120, 0);
      cli.set_keep_alive(true);
      for (int i = 0; !stop; ++i) {
        const int kind_index = (c * 7 + i) % 10;  // image 3, streamed 3, cancelled 2, malformed 1, oversized 1
        std::string kind;
        int status = 0;
        if (kind_index < 3) {
          kind = "image";
          if (auto res = cli.Post("/v1/chat/completions", image_body, "application/json")) status = res->status;
        } else if (kind_index < 6) {
          kind = "streamed";
          if (auto res = cli.Post("/v1/chat/completions", stream_body, "application/json")) status = res->status;
        } else if (kind_index < 8) {
          kind = "cancelled";
          status = StreamThenHangUp(s.port(), long_stream_body) ? 1 : 0;
        } else if (kind_index < 9) {
          kind = "malformed";
          if (auto res = cli.Post("/v1/chat/completions", malformed_body, "application/json")) status = res->status;
        } else {
          kind = "oversized";
          // Its own connection: the server answers 413 without reading the body and closes.
          httplib::Client once("127.0.0.1", s.port());
          once.set_bearer_token_auth(kKey);
          if (auto res = once.Post("/v1/chat/completions", oversized_body, "application/json")) status = res->status;
          else status = res.error() == httplib::Error::Write ? 413 : 0;  // refused before it was all sent
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          ++outcomes[kind][status];
        }
        if (status == 429 || status == 503) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  std::vector<ProcSample> samples;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t >= seconds) break;
    samples.push_back(SampleProcess(s.proc().pid(), t));
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(every, seconds - t)));
  }
  stop = true;
  for (auto& t : clients) t.join();

  int total = 0;
  for (const auto& [kind, by_status] : outcomes)
    for (const auto& [status, n] : by_status) {
      total += n;
      std::printf("%s: status %d: %d\n", kind.c_str(), status, n);
      const bool ok = kind == "cancelled"    ? status == 1
                      : kind == "malformed" ? status == 400 || status == 429 || status == 503
                      : kind == "oversized" ? status == 413
                                            : status == 200 || status == 429 || status == 503;
      EXPECT_TRUE(ok) << n << " " << kind << " requests ended with status " << status << " (0: no response)";
    }
  EXPECT_GT(outcomes["image"][200] + outcomes["streamed"][200], 20);

  std::vector<ProcSample> warm;
  for (const ProcSample& p : samples)
    if (p.t >= seconds / 3) warm.push_back(p);
  ASSERT_GE(warm.size(), 3u);
  const double span = warm.back().t - warm.front().t;
  const double rss_slope = Slope(warm, &ProcSample::rss_kib), fd_slope = Slope(warm, &ProcSample::fds),
               thread_slope = Slope(warm, &ProcSample::threads);
  const long rss_warm = warm.front().rss_kib;
  std::printf("soak: %d requests in %.0f s, %zu samples (%zu after warm-up over %.0f s); RSS %ld -> %ld MiB, "
              "slope %+.1f MiB/h; fds %ld -> %ld, slope %+.2f /h; threads %ld -> %ld, slope %+.2f /h\n",
              total, seconds, samples.size(), warm.size(), span, rss_warm / 1024, warm.back().rss_kib / 1024,
              rss_slope * 3600 / 1024, warm.front().fds, warm.back().fds, fd_slope * 3600, warm.front().threads,
              warm.back().threads, thread_slope * 3600);
#ifdef __SANITIZE_ADDRESS__
  const double asan_quarantine_kib = 256 * 1024;  // freed memory ASan holds before reuse
#else
  const double asan_quarantine_kib = 0;
#endif
  // Tolerances over the measured span: memory 10 % of the warm RSS + 32 MiB (the allocator's
  // arenas settle), fds as many as there are clients (their connections come and go between
  // samples), threads 4 (the engine and HTTP pools are fixed).
  EXPECT_LT(rss_slope * span, rss_warm * 0.10 + 32 * 1024 + asan_quarantine_kib) << "server memory grows";
  EXPECT_LT(fd_slope * span, 24.0) << "server file descriptors grow";
  EXPECT_LT(thread_slope * span, 4.0) << "server threads grow";
  EXPECT_EQ(Curl(s, "GET", "/health", "").status, 200);
  s.proc().Signal(SIGTERM);
  EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
}

// Clients that send a request a byte a second and start over when the server closes them, for
// `seconds`, while a plain client asks GET /health one request after another (a new connection
// each, so it queues behind the slow ones). Loopback only; stops by itself.
struct SlowClientRun {
  int answered = 0, unanswered = 0;
  double slowest_answer_s = 0.0;
  int timeouts_408 = 0;  // slow connections the server answered 408 and closed
};

SlowClientRun RunSlowClients(Server& s, int slow_clients, double seconds, int answer_within_s) {
  SlowClientRun run;
  std::atomic<bool> stop{false};
  std::atomic<int> timeouts{0};
  std::thread slow([&] {
    const std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                                std::string(kKey) + "\r\nX-Slow: " + std::string(4096, 'a');
    std::vector<int> fds(static_cast<size_t>(slow_clients), -1);
    std::vector<size_t> sent(fds.size(), 0);
    auto connect_one = [&](size_t i) {
      fds[i] = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(s.port()));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fds[i], reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fds[i]);
        fds[i] = -1;
      }
      sent[i] = 0;
    };
    for (size_t i = 0; i < fds.size(); ++i) connect_one(i);
    while (!stop) {
      for (size_t i = 0; i < fds.size(); ++i) {
        if (fds[i] >= 0) {
          char buf[512];
          const ssize_t n = ::recv(fds[i], buf, sizeof buf - 1, MSG_DONTWAIT);
          if (n > 0 && std::string(buf, static_cast<size_t>(n)).find(" 408 ") != std::string::npos) ++timeouts;
          if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {  // answered or closed: start over
            ::close(fds[i]);
            fds[i] = -1;
          }
        }
        if (fds[i] < 0) connect_one(i);
        if (fds[i] >= 0 && sent[i] < request.size())
          if (::send(fds[i], request.data() + sent[i]++, 1, MSG_NOSIGNAL) != 1) sent[i] = request.size();
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  });
  // The slow clients take the workers first.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds - 1.5);
  while (std::chrono::steady_clock::now() < end) {
    httplib::Client cli("127.0.0.1", s.port());
    cli.set_bearer_token_auth(kKey);
    cli.set_read_timeout(answer_within_s, 0);
    const auto t0 = std::chrono::steady_clock::now();
    auto res = cli.Get("/health");
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (res && res->status == 200) {
      ++run.answered;
      run.slowest_answer_s = std::max(run.slowest_answer_s, took);
    } else {
      ++run.unanswered;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  stop = true;
  slow.join();
  run.timeouts_408 = timeouts;
  std::printf("%d slow clients: /health answered %d times (slowest %.1f s), unanswered %d; %d slow connections got 408\n",
              slow_clients, run.answered, run.slowest_answer_s, run.unanswered, run.timeouts_408);
  return run;
}

TEST(ServerSlowClients, ByteASecondClientsDoNotStarveOthers) {
  {
    // Six slow clients, four workers: two of them always wait for a worker, so the server is busy
    // and a slow request gets 2 s from its first byte.
    Server s({"--http-threads", "4"});
    ASSERT_GT(s.port(), 0) << s.proc().err;
    const SlowClientRun run = RunSlowClients(s, 6, 12.0, 8);
    EXPECT_EQ(run.unanswered, 0) << "a plain client was starved of workers by slow ones";
    EXPECT_GE(run.answered, 3);
    EXPECT_GE(run.timeouts_408, 4) << "the slow connections should have been answered 408 and closed";
    EXPECT_EQ(Curl(s, "GET", "/health", "").status, 200);
    s.proc().Signal(SIGTERM);
    EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
  }
  {
    // Negative control: without the limit the same slow clients hold every worker.
    Server s({"--http-threads", "4", "--request-timeout", "0"});
    ASSERT_GT(s.port(), 0) << s.proc().err;
    const SlowClientRun run = RunSlowClients(s, 6, 8.0, 4);
    EXPECT_GE(run.unanswered, 1) << "the control should starve: does the test still hold every worker?";
    EXPECT_EQ(run.timeouts_408, 0);
    s.proc().Signal(SIGTERM);
    EXPECT_EQ(s.proc().Wait(30), 0) << s.proc().err;
  }
}

}  // namespace
}  // namespace glance::test
