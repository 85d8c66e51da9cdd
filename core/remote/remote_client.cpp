#include "core/remote/remote_client.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <regex>
#include <thread>

#include "core/util/error.h"

namespace glance::remote {

namespace {

using nlohmann::json;

bool Retryable(int status) { return status == 429 || status == 502 || status == 503 || status == 504; }

// "HTTP 503 Service Unavailable" style, with the server's {"error": {"message"}} when it sent one
// (OpenAI's shape; llama.cpp and vLLM use it too), else the start of its body.
std::string StatusLine(const httplib::Response& res) {
  std::string line = "HTTP " + std::to_string(res.status);
  if (!res.reason.empty()) line += " " + res.reason;
  const json j = json::parse(res.body, nullptr, /*allow_exceptions=*/false);
  std::string said;
  if (j.is_object() && j.contains("error")) {
    const json& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) said = e["message"].get<std::string>();
    else if (e.is_string()) said = e.get<std::string>();
  } else if (!res.body.empty()) {
    said = res.body.substr(0, 120);
  }
  std::replace(said.begin(), said.end(), '\n', ' ');
  std::replace(said.begin(), said.end(), '\r', ' ');
  if (!said.empty()) line += ": " + said;
  return line;
}

// Retry-After in seconds (the delta-seconds form); -1 when absent or an HTTP date.
double RetryAfterSeconds(const httplib::Response& res) {
  const std::string v = res.get_header_value("Retry-After");
  if (v.empty() || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c) || c == '.'; }))
    return -1.0;
  try {
    return std::stod(v);
  } catch (const std::exception&) {
    return -1.0;
  }
}

// What a request that got no HTTP answer ran into, in words.
std::string NoAnswer(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection: return "cannot connect: refused, or no such host";
    case httplib::Error::ConnectionTimeout: return "no answer to the connection in time";
    case httplib::Error::Read: return "the connection closed before the answer (or timed out)";
    case httplib::Error::Write: return "the connection closed while sending the request";
    case httplib::Error::SSLConnection: return "the TLS handshake failed";
    case httplib::Error::SSLServerVerification: return "the server's TLS certificate is not trusted";
    default: return httplib::to_string(e);
  }
}

// NoAnswer, naming the timeout when the request waited for it: a server that accepts the
// connection and never answers.
std::string NoAnswer(httplib::Error e, const RemoteOptions& o, std::chrono::steady_clock::time_point start) {
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if ((e == httplib::Error::Read || e == httplib::Error::Write) && waited >= o.read_timeout_s * 0.9) {
    char line[96];
    std::snprintf(line, sizeof line, "nothing came within %g s: --timeout", o.read_timeout_s);
    return line;
  }
  return NoAnswer(e);
}

std::unique_ptr<httplib::Client> Connect(const RemoteOptions& o, const EndpointUrl& url) {
  auto c = std::make_unique<httplib::Client>(url.origin);
  const auto seconds = [](double s) { return std::chrono::milliseconds(static_cast<int64_t>(s * 1000.0)); };
  c->set_connection_timeout(seconds(o.connect_timeout_s));
  c->set_read_timeout(seconds(o.read_timeout_s));
  c->set_write_timeout(seconds(o.read_timeout_s));
  if (!o.api_key.empty()) c->set_bearer_token_auth(o.api_key);
  return c;
}

std::string AuthRefused(const std::string& where, const httplib::Response& res, bool key_given) {
  return where + ": " + StatusLine(res) + (key_given ? " (the server refused the API key: --api-key or GLANCE_API_KEY)"
                                                     : " (the server wants an API key: --api-key KEY or GLANCE_API_KEY)");
}

}  // namespace

EndpointUrl ParseEndpointUrl(const std::string& url) {
  static const std::regex form(R"(^(https?)://([^/?#\s:]+|\[[0-9A-Fa-f:.]+\])(:(\d{1,5}))?(/[^?#\s]*)?$)",
                               std::regex::icase);
  std::smatch m;
  if (!std::regex_match(url, m, form))
    throw Error("--endpoint " + url + ": not an http:// or https:// URL with a host (e.g. http://192.168.1.5:8080)");
  if (m[4].matched && (std::stoi(m[4].str()) < 1 || std::stoi(m[4].str()) > 65535))
    throw Error("--endpoint " + url + ": the port must be 1 to 65535");
  EndpointUrl e;
  std::string scheme = m[1].str();
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  e.origin = scheme + "://" + m[2].str();
  if (m[4].matched) e.origin.append(1, ':').append(m[4].str());
  std::string path = m[5].matched ? m[5].str() : "";
  // The root, with or without /v1 (and the full chat-completions URL copied from a client's docs).
  auto strip = [&path](const std::string& tail) {
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0)
      path.resize(path.size() - tail.size());
  };
  strip("/chat/completions");
  strip("/v1");
  while (!path.empty() && path.back() == '/') path.pop_back();
  e.prefix = path;
  return e;
}

double RetryPause(const RetryPolicy& policy, int next_try, double retry_after_s, double jitter) {
  double pause = retry_after_s >= 0.0
                     ? retry_after_s
                     : policy.first_pause_s * std::pow(2.0, std::max(0, next_try - 2)) * (0.75 + 0.5 * jitter);
  return std::clamp(pause, 0.0, policy.max_pause_s);
}

RemoteClient::RemoteClient(RemoteOptions options) : options_(std::move(options)), url_(ParseEndpointUrl(options_.endpoint)) {}

std::string RemoteClient::FirstModel(std::string* owned_by) const {
  const std::string where = url_.origin + url_.prefix + "/v1/models";
  auto c = Connect(options_, url_);
  const auto start = std::chrono::steady_clock::now();
  const httplib::Result res = c->Get(url_.prefix + "/v1/models");
  if (!res)
    throw Error("--endpoint " + options_.endpoint + ": cannot reach the server (" + NoAnswer(res.error(), options_, start) +
                ")");
  if (res->status == 401 || res->status == 403) throw Error(AuthRefused(where, *res, !options_.api_key.empty()));
  if (res->status != 200) return "";  // no list of models: the server answers with the one it has
  const json j = json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("data") && j["data"].is_array() && !j["data"].empty() && j["data"][0].is_object() &&
      j["data"][0].contains("id") && j["data"][0]["id"].is_string()) {
    if (owned_by && j["data"][0].contains("owned_by") && j["data"][0]["owned_by"].is_string())
      *owned_by = j["data"][0]["owned_by"].get<std::string>();
    return j["data"][0]["id"].get<std::string>();
  }
  return "";
}

json RemoteClient::PostChat(const std::string& body) const {
  const std::string where = url_.ChatUrl();
  thread_local std::mt19937 jitter_source(std::random_device{}());
  std::string last_problem;
  bool answered = false;  // the last try got an HTTP answer (busy) rather than none (gone)
  for (int attempt = 1;; ++attempt) {
    auto c = Connect(options_, url_);
    const auto sent = std::chrono::steady_clock::now();
    const httplib::Result res = c->Post(url_.prefix + "/v1/chat/completions", body, "application/json");
    double retry_after = -1.0;
    answered = static_cast<bool>(res);
    if (!res) {
      last_problem = "no answer (" + NoAnswer(res.error(), options_, sent) + ")";
    } else if (res->status == 200) {
      json j = json::parse(res->body, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) {
        std::string start = res->body.substr(0, 60);
        std::replace(start.begin(), start.end(), '\n', ' ');
        throw Error(where + ": the answer is not JSON (" + res->get_header_value("Content-Type") + ": '" + start +
                    "'); is this an OpenAI-compatible server?");
      }
      return j;
    } else if (res->status == 401 || res->status == 403) {
      throw ServerUnusable(AuthRefused(where, *res, !options_.api_key.empty()));
    } else if (!Retryable(res->status)) {
      throw Error(where + ": " + StatusLine(*res));
    } else {
      last_problem = StatusLine(*res);
      retry_after = RetryAfterSeconds(*res);
    }
    if (attempt >= options_.retry.max_tries) {
      const std::string line = where + ": " + last_problem + " after " + std::to_string(attempt) + " tries";
      if (answered) throw Error(line);
      throw ServerUnusable(line);
    }
    const double pause = RetryPause(options_.retry, attempt + 1, retry_after,
                                    std::uniform_real_distribution<double>(0.0, 1.0)(jitter_source));
    if (options_.on_retry) {
      char line[64];
      std::snprintf(line, sizeof line, "; trying again in %.1f s (try %d of %d)", pause, attempt + 1, options_.retry.max_tries);
      options_.on_retry(where + ": " + last_problem + line);
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(pause);
    while (std::chrono::steady_clock::now() < until) {
      if (options_.cancel && options_.cancel->load()) throw Error(where + ": stopped before an answer came");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

}  // namespace glance::remote
