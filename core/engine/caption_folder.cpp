#include "core/engine/caption_folder.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

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

struct CaptionTodo {
  std::string file, sha;
};

// CaptionFolderOptions::concurrency > 1: `workers` threads call the captioner, each on the next
// image; the caller's thread hands images out (on_start), and takes each answer in the order
// they come back and gives it to `finish`, which writes it as the one-at-a-time loop does. The
// first image with each sha256 is captioned; identical ones (sidecar mode) take its answer.
// After `cancel`, no image is handed out; answers already coming are still written, and an
// image whose request was stopped is neither written nor failed (the next run does it).
template <class Update, class Finish>
void CaptionConcurrently(const std::string& dir, const std::vector<CaptionTodo>& todo, int workers,
                         const Captioner& captioner, const CaptionFolderCallbacks& cb, CaptionFolderSummary& summary,
                         CaptionFolderProgress& progress, Update& update, Finish& finish) {
  std::vector<size_t> jobs;
  std::map<std::string, std::vector<size_t>> same_sha;  // sha256 -> its images in `todo`
  for (size_t i = 0; i < todo.size(); ++i) {
    std::vector<size_t>& group = same_sha[todo[i].sha];
    if (group.empty()) jobs.push_back(i);
    group.push_back(i);
  }
  struct Answer {
    size_t job = 0;
    std::optional<std::string> caption;
    std::string error;
    double seconds = 0.0;
  };
  std::mutex m;
  std::condition_variable wake_worker, wake_caller;
  std::deque<size_t> queue;
  std::deque<Answer> answers;
  bool closing = false;
  auto work = [&] {
    for (;;) {
      Answer a;
      {
        std::unique_lock lock(m);
        wake_worker.wait(lock, [&] { return closing || !queue.empty(); });
        if (queue.empty()) return;
        a.job = queue.front();
        queue.pop_front();
      }
      const auto start = Clock::now();
      try {
        a.caption = captioner((fs::path(dir) / todo[a.job].file).string());
      } catch (const std::exception& e) {  // one bad image never ends the run
        a.error = e.what();
      } catch (...) {
        a.error = "the captioner failed";
      }
      a.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      {
        std::lock_guard lock(m);
        answers.push_back(std::move(a));
      }
      wake_caller.notify_one();
    }
  };
  std::vector<std::thread> threads;
  // Joined however this returns (a write that throws): each worker ends after its request.
  struct Join {
    std::mutex& m;
    std::condition_variable& wake;
    bool& closing;
    std::vector<std::thread>& threads;
    ~Join() {
      {
        std::lock_guard lock(m);
        closing = true;
      }
      wake.notify_all();
      for (std::thread& t : threads) t.join();
    }
  } join{m, wake_worker, closing, threads};
  for (size_t w = 0; w < std::min(static_cast<size_t>(workers), jobs.size()); ++w) threads.emplace_back(work);
  size_t next = 0;
  int in_flight = 0;
  for (;;) {
    while (in_flight < workers && next < jobs.size()) {
      if (cb.cancel && cb.cancel->load()) {
        summary.cancelled = true;
        next = jobs.size();
        break;
      }
      update(todo[jobs[next]].file);
      if (cb.on_start) cb.on_start(progress);
      {
        std::lock_guard lock(m);
        queue.push_back(jobs[next]);
      }
      wake_worker.notify_one();
      ++next;
      ++in_flight;
    }
    if (in_flight == 0) break;
    Answer a;
    {
      std::unique_lock lock(m);
      wake_caller.wait(lock, [&] { return !answers.empty(); });
      a = std::move(answers.front());
      answers.pop_front();
    }
    --in_flight;
    if (!a.caption && cb.cancel && cb.cancel->load()) {
      summary.cancelled = true;
      continue;
    }
    for (size_t k : same_sha[todo[a.job].sha]) finish(todo[k], a.caption, a.error, k == a.job ? a.seconds : 0.0);
  }
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

std::set<std::pair<std::string, std::string>> ReadCaptionedFiles(const std::string& out_path, CaptionFormat format) {
  std::set<std::pair<std::string, std::string>> rows;
  std::error_code ec;
  if (!fs::exists(out_path, ec)) return rows;
  const std::string text = ReadWholeFile(out_path, out_path + ": cannot read the caption file");
  if (format == CaptionFormat::kJsonl) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("sha256") && j["sha256"].is_string() && IsValidSha256(j["sha256"]))
        rows.emplace(j.contains("file") && j["file"].is_string() ? j["file"].get<std::string>() : std::string(),
                     j["sha256"].get<std::string>());
    }
    return rows;
  }
  const auto records = ParseCsv(text);
  if (records.empty()) return rows;
  const auto& header = records.front();
  const auto col = std::find(header.begin(), header.end(), "sha256");
  if (col == header.end()) throw Error(out_path + ": not a Glance caption file (no sha256 column in its header)");
  const size_t k = static_cast<size_t>(col - header.begin());
  const auto file_col = std::find(header.begin(), header.end(), "file");
  const size_t f = static_cast<size_t>(file_col - header.begin());
  for (size_t r = 1; r < records.size(); ++r)
    if (records[r].size() > k && IsValidSha256(records[r][k]))
      rows.emplace(file_col != header.end() && records[r].size() > f ? records[r][f] : std::string(), records[r][k]);
  return rows;
}

std::set<std::string> ReadCaptionedHashes(const std::string& out_path, CaptionFormat format) {
  std::set<std::string> hashes;
  for (const auto& [file, sha] : ReadCaptionedFiles(out_path, format)) hashes.insert(sha);
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
  CaptionFolderOptions options;
  options.out_path = out_path;
  options.json_captions = json_captions;
  return CaptionFolder(dir, options, captioner, cb);
}

CaptionFolderSummary CaptionFolder(const std::string& dir, const CaptionFolderOptions& options,
                                   const Captioner& captioner, const CaptionFolderCallbacks& cb) {
  const bool to_file = !options.out_path.empty();
  if (!to_file && !options.sidecar) throw Error("nowhere to put the captions: give an output file or sidecars");
  const std::string& out_path = options.out_path;
  const CaptionFormat format = to_file ? CaptionFormatForPath(out_path) : CaptionFormat::kJsonl;
  std::vector<std::string> files = options.recursive ? ListImageFilesRecursive(dir) : ListImageFiles(dir);
  if (options.only)
    std::erase_if(files, [&](const std::string& f) { return options.only->count(f) == 0; });
  CaptionFolderSummary summary;
  std::set<std::string> done;                                // output file only: by sha256
  std::set<std::pair<std::string, std::string>> done_files;  // with sidecars: by file and sha256
  if (to_file) {
    summary.recovered = SetAsideTornTail(out_path, format);
    if (options.sidecar) done_files = ReadCaptionedFiles(out_path, format);
    else done = ReadCaptionedHashes(out_path, format);
  }
  std::optional<SidecarWriter> sidecars;
  if (options.sidecar) sidecars.emplace(dir, *options.sidecar, out_path);
  summary.images = static_cast<int>(files.size());
  auto failed = [&](const std::string& file, const std::string& error) {
    ++summary.failed;
    if (cb.on_failed) cb.on_failed(file, error);
  };
  auto take_notices = [&] {
    if (!sidecars) return;
    for (std::string& n : sidecars->TakeNotices()) summary.notices.push_back(std::move(n));
  };

  // First pass: hash everything, so the progress total counts only the images left to caption.
  using Todo = CaptionTodo;
  std::vector<Todo> todo;
  std::vector<CaptionRecord> rows_only;  // sidecar written by an interrupted run into this file
  std::map<std::string, std::string> first_with_hash;
  for (const std::string& name : files) {
    if (cb.cancel && cb.cancel->load()) {
      summary.cancelled = true;
      take_notices();
      return summary;
    }
    std::string sha;
    try {
      sha = Sha256File((fs::path(dir) / name).string());
    } catch (const Error& e) {
      failed(name, e.what());
      continue;
    }
    if (to_file && (sidecars ? done_files.count({name, sha}) > 0 : done.count(sha) > 0)) {
      ++summary.already_done;
      continue;
    }
    if (sidecars) {
      // Each image has its own sidecar, duplicates too (their caption is computed once, below).
      SidecarAction action;
      try {
        if (auto caption = sidecars->WrittenInto(name, sha)) {
          rows_only.push_back({name, sha, *caption, 0.0});  // stopped after its sidecar, before its row
          continue;
        }
        action = sidecars->Plan(name);
      } catch (const Error& e) {
        failed(name, e.what());
        continue;
      }
      if (action == SidecarAction::kHasOne) {
        ++summary.had_sidecar;
      } else if (action == SidecarAction::kProtected) {
        summary.protected_sidecars.push_back(sidecars->SidecarOf(name));
      } else {
        first_with_hash.emplace(sha, name);
        todo.push_back({name, sha});
      }
    } else if (auto it = first_with_hash.find(sha); it != first_with_hash.end()) {
      ++summary.duplicates;
      if (cb.on_duplicate) cb.on_duplicate(name, it->second);
    } else {
      first_with_hash.emplace(sha, name);
      todo.push_back({name, sha});
    }
  }
  take_notices();
  if (todo.empty() && rows_only.empty()) return summary;

  // Whole records only, each on disk before it is reported (append_file.h); the torn end of an
  // interrupted run was set aside above.
  std::optional<AppendFile> out;
  auto append_row = [&](const CaptionRecord& rec) {
    if (format == CaptionFormat::kJsonl) {
      nlohmann::ordered_json caption = rec.caption;
      if (options.json_captions) caption = nlohmann::ordered_json::parse(rec.caption);  // whole: the constraint ended it
      out->Append(nlohmann::ordered_json{{"file", rec.file}, {"sha256", rec.sha256}, {"caption", caption}}.dump(
                      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                  '\n');
    } else {
      out->Append(CsvField(rec.file) + ',' + rec.sha256 + ',' + CsvField(rec.caption) + '\n');
    }
  };
  if (to_file) {
    out.emplace(out_path);
    if (out->size() == 0 && format == CaptionFormat::kCsv) out->Append("file,sha256,caption\n");
  }
  for (const CaptionRecord& rec : rows_only) {
    append_row(rec);
    ++summary.captioned;
  }

  const auto t0 = Clock::now();
  double caption_seconds = 0.0;
  int timed = 0;
  const int workers = std::max(1, options.concurrency);
  std::map<std::string, std::string> caption_of_hash;  // sidecars: identical images captioned once
  CaptionFolderProgress progress;
  progress.total = static_cast<int>(todo.size());
  auto update = [&](const std::string& file) {
    progress.file = file;
    progress.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    // Several images at once: the wall time per finished image, not each one's own time.
    if (workers > 1 && progress.done > 0) progress.eta_s = progress.elapsed_s / progress.done * (progress.total - progress.done);
    else if (workers == 1 && timed > 0) progress.eta_s = caption_seconds / timed * (progress.total - progress.done);
  };
  // An image's caption (or the one-line reason it has none) written and reported; on the
  // caller's thread in both modes, so the writers' guarantees hold with several images in flight.
  auto finish = [&](const Todo& t, const std::optional<std::string>& caption, const std::string& error, double seconds) {
    CaptionRecord rec{t.file, t.sha, caption.value_or(""), seconds};
    try {
      if (!caption) throw Error(error);
      // The sidecar before the row: a row says its image is done (resume), so it must not come
      // first. A failed sidecar fails the image (no row; it is tried again next run).
      if (sidecars) {
        const SidecarAction action = sidecars->Write(t.file, t.sha, rec.caption);
        take_notices();
        if (action == SidecarAction::kProtected) summary.protected_sidecars.push_back(sidecars->SidecarOf(t.file));
        if (action == SidecarAction::kHasOne) ++summary.had_sidecar;
        if (action == SidecarAction::kWrite) ++summary.sidecars_written;
      }
    } catch (const Error& e) {
      take_notices();
      ++progress.done;
      failed(t.file, e.what());
      return;
    }
    if (out) append_row(rec);
    ++summary.captioned;
    ++progress.done;
    update(t.file);
    if (cb.on_captioned) cb.on_captioned(rec, progress);
  };
  if (workers > 1) {
    CaptionConcurrently(dir, todo, workers, captioner, cb, summary, progress, update, finish);
    return summary;
  }
  for (const Todo& t : todo) {
    if (cb.cancel && cb.cancel->load()) {
      summary.cancelled = true;
      break;
    }
    update(t.file);
    if (cb.on_start) cb.on_start(progress);
    if (auto known = caption_of_hash.find(t.sha); known != caption_of_hash.end()) {
      finish(t, known->second, "", 0.0);
      continue;
    }
    // The captioner's time counts for the ETA, failed or not.
    const auto start = Clock::now();
    std::optional<std::string> caption;
    std::string error;
    try {
      caption = captioner((fs::path(dir) / t.file).string());
      if (sidecars) caption_of_hash.emplace(t.sha, *caption);
    } catch (const Error& e) {
      error = e.what();
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    // The image Stop interrupted is neither written nor failed: the next run does it (as in
    // CaptionConcurrently).
    if (!caption && cb.cancel && cb.cancel->load()) {
      summary.cancelled = true;
      break;
    }
    caption_seconds += seconds;
    ++timed;
    finish(t, caption, error, seconds);
  }
  return summary;
}

}  // namespace glance
