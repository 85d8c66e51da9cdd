#include "core/engine/caption_folder.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/util/append_file.h"
#include "core/util/error.h"
#include "core/util/read_file.h"
#include "core/util/sha256.h"

namespace glance {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// RFC 4180 records: fields split by commas, "quoted" fields may hold commas, "" and line breaks.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
      }
      row.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  // A last record without its line break is only complete when it is not inside quotes.
  if (!quoted && (any || !field.empty())) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

// Where the file's last whole record ends: after its last line break (JSONL), or after its last
// line break outside a quoted field (CSV, whose captions may hold quoted line breaks).
size_t WholeRecordsEnd(const std::string& text, CaptionFormat format) {
  if (format == CaptionFormat::kJsonl) {
    const size_t nl = text.rfind('\n');
    return nl == std::string::npos ? 0 : nl + 1;
  }
  size_t end = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') quoted = !quoted;  // "" inside a quoted field toggles twice
    else if (text[i] == '\n' && !quoted) end = i + 1;
  }
  return end;
}

bool IsValidSha256(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

std::string SetAsideTornTail(const std::string& out_path, CaptionFormat format) {
  std::error_code ec;
  if (!fs::is_regular_file(out_path, ec)) return "";
  const std::string text = ReadWholeFile(out_path, out_path + ": cannot read the caption file");
  const size_t end = WholeRecordsEnd(text, format);
  if (end == text.size()) return "";
  const std::string torn_path = out_path + ".torn";
  AppendFile(torn_path).Append(text.substr(end) + "\n");
  fs::resize_file(out_path, end, ec);
  if (ec) throw Error(out_path + ": cannot cut off its unfinished last line: " + ec.message());
  return out_path + ": its last line was cut off when a run stopped (" + std::to_string(text.size() - end) +
         " bytes, kept in " + torn_path + "); that image is captioned again";
}

CaptionFormat CaptionFormatForPath(const std::string& out_path) {
  const std::string ext = Lower(fs::path(out_path).extension().string());
  if (ext == ".jsonl") return CaptionFormat::kJsonl;
  if (ext == ".csv") return CaptionFormat::kCsv;
  throw Error(out_path + ": the caption file must end in .jsonl or .csv");
}

std::vector<std::string> ListImageFiles(const std::string& dir) {
  static const std::set<std::string> kImageExtensions = {".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff"};
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(dir + ": not a folder");
  std::vector<std::string> names;
  fs::directory_iterator it(dir, ec);
  if (ec) throw Error(dir + ": cannot list the folder: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw Error(dir + ": cannot list the folder: " + ec.message());
    std::error_code type_ec;
    // Folders are not images; anything else by an image's name is listed, so that a FIFO, device
    // or dangling link is reported as failed (by the hash, which refuses it) rather than skipped
    // without a word.
    if (it->is_directory(type_ec)) continue;
    if (kImageExtensions.count(Lower(it->path().extension().string())))
      names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::set<std::string> ReadCaptionedHashes(const std::string& out_path, CaptionFormat format) {
  std::set<std::string> hashes;
  std::error_code ec;
  if (!fs::exists(out_path, ec)) return hashes;
  const std::string text = ReadWholeFile(out_path, out_path + ": cannot read the caption file");
  if (format == CaptionFormat::kJsonl) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("sha256") && j["sha256"].is_string() && IsValidSha256(j["sha256"]))
        hashes.insert(j["sha256"].get<std::string>());
    }
    return hashes;
  }
  const auto rows = ParseCsv(text);
  if (rows.empty()) return hashes;
  const auto& header = rows.front();
  const auto col = std::find(header.begin(), header.end(), "sha256");
  if (col == header.end()) throw Error(out_path + ": not a Glance caption file (no sha256 column in its header)");
  const size_t k = static_cast<size_t>(col - header.begin());
  for (size_t r = 1; r < rows.size(); ++r)
    if (rows[r].size() > k && IsValidSha256(rows[r][k])) hashes.insert(rows[r][k]);
  return hashes;
}

std::string CsvField(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string q = "\"";
  for (char c : value) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

CaptionFolderSummary CaptionFolder(const std::string& dir, const std::string& out_path, const Captioner& captioner,
                                   const CaptionFolderCallbacks& cb, bool json_captions) {
  const CaptionFormat format = CaptionFormatForPath(out_path);
  const std::vector<std::string> files = ListImageFiles(dir);
  CaptionFolderSummary summary;
  summary.recovered = SetAsideTornTail(out_path, format);
  std::set<std::string> done = ReadCaptionedHashes(out_path, format);
  summary.images = static_cast<int>(files.size());
  auto failed = [&](const std::string& file, const std::string& error) {
    ++summary.failed;
    if (cb.on_failed) cb.on_failed(file, error);
  };

  // First pass: hash everything, so the progress total counts only the images left to caption.
  struct Todo {
    std::string file, sha;
  };
  std::vector<Todo> todo;
  std::map<std::string, std::string> first_with_hash;
  for (const std::string& name : files) {
    if (cb.cancel && cb.cancel->load()) {
      summary.cancelled = true;
      return summary;
    }
    std::string sha;
    try {
      sha = Sha256File((fs::path(dir) / name).string());
    } catch (const Error& e) {
      failed(name, e.what());
      continue;
    }
    if (done.count(sha)) {
      ++summary.already_done;
    } else if (auto it = first_with_hash.find(sha); it != first_with_hash.end()) {
      ++summary.duplicates;
      if (cb.on_duplicate) cb.on_duplicate(name, it->second);
    } else {
      first_with_hash.emplace(sha, name);
      todo.push_back({name, sha});
    }
  }
  if (todo.empty()) return summary;

  // Whole records only, each on disk before it is reported (append_file.h); the torn end of an
  // interrupted run was set aside above.
  AppendFile out(out_path);
  if (out.size() == 0 && format == CaptionFormat::kCsv) out.Append("file,sha256,caption\n");

  const auto t0 = Clock::now();
  double caption_seconds = 0.0;
  int timed = 0;
  CaptionFolderProgress progress;
  progress.total = static_cast<int>(todo.size());
  auto update = [&](const std::string& file) {
    progress.file = file;
    progress.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (timed > 0) progress.eta_s = caption_seconds / timed * (progress.total - progress.done);
  };
  for (const Todo& t : todo) {
    if (cb.cancel && cb.cancel->load()) {
      summary.cancelled = true;
      break;
    }
    update(t.file);
    if (cb.on_start) cb.on_start(progress);
    const auto start = Clock::now();
    CaptionRecord rec{t.file, t.sha, "", 0.0};
    bool ok = true;
    try {
      rec.caption = captioner((fs::path(dir) / t.file).string());
    } catch (const Error& e) {
      ok = false;
      ++progress.done;
      failed(t.file, e.what());
    }
    rec.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    caption_seconds += rec.seconds;
    ++timed;
    if (!ok) continue;
    if (format == CaptionFormat::kJsonl) {
      nlohmann::ordered_json caption = rec.caption;
      if (json_captions) caption = nlohmann::ordered_json::parse(rec.caption);  // whole: the constraint ended it
      out.Append(nlohmann::ordered_json{{"file", rec.file}, {"sha256", rec.sha256}, {"caption", caption}}.dump(
                     -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                 '\n');
    } else {
      out.Append(CsvField(rec.file) + ',' + rec.sha256 + ',' + CsvField(rec.caption) + '\n');
    }
    ++summary.captioned;
    ++progress.done;
    update(t.file);
    if (cb.on_captioned) cb.on_captioned(rec, progress);
  }
  return summary;
}

}  // namespace glance
