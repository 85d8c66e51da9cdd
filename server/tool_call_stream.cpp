#include "server/tool_call_stream.h"

#include <algorithm>
#include <random>

namespace glance::server {

using nlohmann::json;

namespace {

constexpr const char* kOpen = "<tool_call>";

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

std::string ToolCallHoldback::Push(const std::string& piece) {
  held_ += piece;
  if (in_call_) return "";
  size_t keep_from = held_.size();  // held_[keep_from, end) stays held
  const size_t open = held_.find(kOpen);
  if (open != std::string::npos) {
    in_call_ = true;
    keep_from = open;
  } else {
    // The longest tail that may still become "<tool_call>".
    for (size_t n = std::min(held_.size(), std::char_traits<char>::length(kOpen)); n > 0; --n)
      if (held_.compare(held_.size() - n, n, kOpen, n) == 0) {
        keep_from = held_.size() - n;
        break;
      }
  }
  while (keep_from > 0 && IsSpace(held_[keep_from - 1])) --keep_from;  // whitespace before it waits too
  std::string out = held_.substr(0, keep_from);
  held_.erase(0, keep_from);
  return out;
}

std::string ToolCallHoldback::Flush() {
  std::string out;
  out.swap(held_);
  in_call_ = false;
  return out;
}

std::string NewToolCallId() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string id = "call_";
  for (int i = 0; i < 24; ++i) id += kChars[rng() % (sizeof kChars - 1)];
  return id;
}

json ToolCallsJson(const std::vector<ToolCall>& calls, const std::vector<std::string>& ids) {
  json out = json::array();
  for (size_t i = 0; i < calls.size(); ++i)
    out.push_back({{"id", ids.at(i)},
                   {"type", "function"},
                   {"function", {{"name", calls[i].name}, {"arguments", calls[i].arguments}}}});
  return out;
}

std::vector<std::string> ArgumentPieces(const std::string& a, size_t piece_bytes) {
  piece_bytes = std::max<size_t>(piece_bytes, 4);  // room for any UTF-8 character
  std::vector<std::string> out;
  for (size_t at = 0; at < a.size();) {
    size_t end = std::min(a.size(), at + piece_bytes);
    while (end < a.size() && (static_cast<unsigned char>(a[end]) & 0xC0) == 0x80) --end;  // not inside a character
    out.push_back(a.substr(at, end - at));
    at = end;
  }
  return out;
}

std::vector<json> ToolCallDeltas(const std::vector<ToolCall>& calls, const std::vector<std::string>& ids,
                                 size_t piece_bytes) {
  std::vector<json> out;
  for (size_t i = 0; i < calls.size(); ++i) {
    out.push_back({{"tool_calls", json::array({{{"index", i},
                                                 {"id", ids.at(i)},
                                                 {"type", "function"},
                                                 {"function", {{"name", calls[i].name}, {"arguments", ""}}}}})}});
    for (const std::string& piece : ArgumentPieces(calls[i].arguments, piece_bytes))
      out.push_back({{"tool_calls", json::array({{{"index", i}, {"function", {{"arguments", piece}}}}})}});
  }
  return out;
}

}  // namespace glance::server
