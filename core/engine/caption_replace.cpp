#include "core/engine/caption_replace.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/engine/caption_sidecar.h"
#include "core/engine/image_files.h"
#include "core/util/append_file.h"
#include "core/util/atomic_write.h"
#include "core/util/error.h"
#include "core/util/read_file.h"

namespace glance {

namespace {

namespace fs = std::filesystem;

// A sidecar is a line or a paragraph: a bigger file is not one of Glance's captions.
constexpr uint64_t kMaxSidecarBytes = 1 << 20;

std::string ReadSidecar(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxSidecarBytes) throw Error(path + ": " + std::to_string(size) + " bytes, not a caption");
  return ReadWholeFile(path, "cannot read " + path);
}

std::string Pcre2Message(int code) {
  PCRE2_UCHAR msg[256];
  pcre2_get_error_message(code, msg, sizeof msg);
  return reinterpret_cast<const char*>(msg);
}

std::string PlainReplace(const std::string& text, const ReplaceQuery& q, int* count) {
  std::string out;
  int n = 0;
  size_t at = 0;
  while (true) {
    const size_t hit = text.find(q.find, at);
    if (hit == std::string::npos) break;
    out.append(text, at, hit - at);
    out += q.with;
    at = hit + q.find.size();
    ++n;
  }
  out.append(text, at, std::string::npos);
  if (count) *count = n;
  return out;
}

// Through pcre2_substitute. A plain search that ignores case is a literal pattern with a literal
// replacement (PCRE2_LITERAL, PCRE2_SUBSTITUTE_LITERAL: no character is special in either).
std::string RegexReplace(const std::string& text, const ReplaceQuery& q, int* count) {
  int err = 0;
  PCRE2_SIZE offset = 0;
  // PCRE2_LITERAL takes no PCRE2_UCP; with PCRE2_UTF its caseless matching still folds every
  // Unicode letter.
  const uint32_t options = PCRE2_UTF | (q.ignore_case ? PCRE2_CASELESS : 0u) | (q.regex ? PCRE2_UCP : PCRE2_LITERAL);
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(q.find.data()), q.find.size(), options, &err,
                                   &offset, nullptr);
  if (!code)
    throw Error("--find '" + q.find + "' is not a regular expression: " + Pcre2Message(err) + " at offset " +
                std::to_string(offset));
  std::string out(text.size() * 2 + q.with.size() + 64, '\0');
  PCRE2_SIZE out_len = out.size();
  const uint32_t sub =
      PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH | (q.regex ? 0u : PCRE2_SUBSTITUTE_LITERAL);
  int rc = pcre2_substitute(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, sub, nullptr, nullptr,
                            reinterpret_cast<PCRE2_SPTR>(q.with.data()), q.with.size(),
                            reinterpret_cast<PCRE2_UCHAR*>(out.data()), &out_len);
  if (rc == PCRE2_ERROR_NOMEMORY) {  // out_len now holds the length needed
    out.assign(out_len, '\0');
    rc = pcre2_substitute(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, sub, nullptr, nullptr,
                          reinterpret_cast<PCRE2_SPTR>(q.with.data()), q.with.size(),
                          reinterpret_cast<PCRE2_UCHAR*>(out.data()), &out_len);
  }
  pcre2_code_free(code);
  if (rc < 0) {
    if (rc == PCRE2_ERROR_REPMISSINGBRACE || rc == PCRE2_ERROR_BADREPESCAPE || rc == PCRE2_ERROR_BADREPLACEMENT ||
        rc == PCRE2_ERROR_BADSUBSTITUTION || rc == PCRE2_ERROR_NOSUBSTRING || rc == PCRE2_ERROR_UNSET)
      throw Error("--with '" + q.with + "': " + Pcre2Message(rc));
    throw Error("--find '" + q.find + "': " + Pcre2Message(rc));
  }
  out.resize(out_len);
  if (count) *count = rc;
  return out;
}

}  // namespace

std::string ReplaceInText(const std::string& text, const ReplaceQuery& q, int* count) {
  if (q.find.empty()) throw Error("--find is empty: give the text (or expression) to replace");
  return q.regex || q.ignore_case ? RegexReplace(text, q, count) : PlainReplace(text, q, count);
}

std::vector<CaptionEdit> PlanReplace(const std::vector<std::string>& sidecars, const ReplaceQuery& query,
                                     std::vector<std::string>* unreadable) {
  std::vector<CaptionEdit> edits;
  for (const std::string& path : sidecars) {
    CaptionEdit e;
    e.path = path;
    try {
      e.before = ReadSidecar(path);
    } catch (const Error& err) {
      if (unreadable) unreadable->push_back(err.what());
      continue;
    }
    e.after = ReplaceInText(e.before, query, &e.matches);
    if (e.matches > 0 && e.after != e.before) edits.push_back(std::move(e));
  }
  return edits;
}

std::vector<std::string> FindSidecars(const std::string& dir, const std::string& ext, bool recursive) {
  CheckSidecarExtension(ext);
  std::vector<std::string> out;
  for (const std::string& image : recursive ? ListImageFilesRecursive(dir) : ListImageFiles(dir)) {
    const std::string sidecar = SidecarPath((fs::path(dir) / image).string(), ext);
    std::error_code ec;
    if (fs::is_regular_file(sidecar, ec)) out.push_back(sidecar);
  }
  return out;
}

std::string UndoJournalPath(const std::string& dir) { return (fs::path(dir) / ".glance-replace-undo.json").string(); }

ReplaceOutcome ApplyReplace(const std::string& dir, const std::vector<CaptionEdit>& edits) {
  nlohmann::json journal = nlohmann::json::array();
  // Absolute paths: --undo may run from another working folder.
  for (const CaptionEdit& e : edits)
    journal.push_back({{"path", fs::absolute(e.path).lexically_normal().string()}, {"before", e.before}, {"after", e.after}});
  // First the way back, whole, then the files: a replace stopped anywhere can be undone.
  WriteFileAtomically(UndoJournalPath(dir), journal.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
  ReplaceOutcome out;
  for (const CaptionEdit& e : edits) {
    try {
      if (ReadSidecar(e.path) != e.before) {
        out.skipped.push_back(e.path + ": changed since the preview; left as it is");
        continue;
      }
      WriteFileAtomically(e.path, e.after);
      ++out.changed;
    } catch (const Error& err) {
      out.skipped.push_back(err.what());
    }
  }
  return out;
}

ReplaceOutcome UndoReplace(const std::string& dir) {
  const std::string path = UndoJournalPath(dir);
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error("nothing to undo in " + dir + ": no " + path);
  nlohmann::json journal;
  try {
    journal = nlohmann::json::parse(ReadWholeFile(path, "cannot read " + path));
    if (!journal.is_array()) throw Error("not a list of files");
  } catch (const std::exception& e) {
    throw Error(path + " is not an undo journal Glance wrote: " + e.what());
  }
  ReplaceOutcome out;
  for (const nlohmann::json& j : journal) {
    try {
      const std::string file = j.at("path").get<std::string>(), before = j.at("before").get<std::string>(),
                        after = j.at("after").get<std::string>();
      const std::string now = ReadSidecar(file);
      if (now == before) continue;  // never replaced (stopped before it): nothing to undo
      if (now != after) {
        out.skipped.push_back(file + ": edited since the replace; left as it is");
        continue;
      }
      WriteFileAtomically(file, before);
      ++out.changed;
    } catch (const std::exception& e) {
      out.skipped.push_back(std::string(e.what()));
    }
  }
  fs::remove(path, ec);
  if (ec) throw Error("undone, but " + path + " could not be removed: " + ec.message());
  SyncParentFolder(path);
  return out;
}

}  // namespace glance
