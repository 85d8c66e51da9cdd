#include "core/engine/stop_scanner.h"

#include <algorithm>

#include "core/util/error.h"

namespace glance {

StopScanner::StopScanner(std::vector<std::string> stops) : stops_(std::move(stops)) {
  std::erase(stops_, std::string());
}

std::string StopScanner::Push(const std::string& piece) {
  if (stopped_) return "";
  pending_ += piece;
  size_t cut = std::string::npos;
  for (const auto& s : stops_) cut = std::min(cut, pending_.find(s));
  if (cut != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, cut);
    pending_.clear();
    released_ += out.size();
    return out;
  }
  // Hold back the longest tail that is a proper prefix of some stop sequence.
  size_t hold = 0;
  for (const auto& s : stops_)
    for (size_t n = std::min(s.size() - 1, pending_.size()); n > hold; --n)
      if (pending_.compare(pending_.size() - n, n, s, 0, n) == 0) {
        hold = n;
        break;
      }
  std::string out = pending_.substr(0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
  released_ += out.size();
  return out;
}

std::string StopScanner::Flush() {
  std::string out;
  if (!stopped_) out.swap(pending_);
  released_ += out.size();
  return out;
}

namespace {

std::string TooLong(size_t bytes) {
  return "is " + std::to_string(bytes) + " bytes long; at most " + std::to_string(kMaxStopBytes);
}

}  // namespace

std::vector<std::string> ParseStopLines(std::string_view text) {
  std::vector<std::string> stops;
  size_t line_no = 0;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(line_no) + ": ";
    std::string stop;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] != '\\') {
        stop += line[i];
        continue;
      }
      if (i + 1 == line.size()) throw Error(where + "ends with a lone \\; write \\\\ for a backslash");
      const char c = line[++i];
      if (c == 'n') stop += '\n';
      else if (c == 't') stop += '\t';
      else if (c == '\\') stop += '\\';
      else throw Error(where + "unknown escape \\" + std::string(1, c) + "; use \\n, \\t or \\\\");
    }
    if (stop.size() > kMaxStopBytes) throw Error(where + "the stop sequence " + TooLong(stop.size()));
    stops.push_back(std::move(stop));
    if (stops.size() > kMaxStopSequences)
      throw Error("more than " + std::to_string(kMaxStopSequences) + " stop sequences");
  }
  return stops;
}

std::string StopLines(const std::vector<std::string>& stops) {
  std::string out;
  for (const std::string& s : stops) {
    if (!out.empty()) out += '\n';
    for (char c : s) {
      if (c == '\n') out += "\\n";
      else if (c == '\t') out += "\\t";
      else if (c == '\\') out += "\\\\";
      else if (c != '\r') out += c;
    }
  }
  return out;
}

void ValidateStopSequences(const std::vector<std::string>& stops) {
  if (stops.size() > kMaxStopSequences)
    throw Error(std::to_string(stops.size()) + " stop sequences; at most " + std::to_string(kMaxStopSequences));
  for (size_t i = 0; i < stops.size(); ++i) {
    const std::string where = "sequence " + std::to_string(i + 1) + " ";
    if (stops[i].empty()) throw Error(where + "is empty");
    if (stops[i].size() > kMaxStopBytes) throw Error(where + TooLong(stops[i].size()));
  }
}

}  // namespace glance
