#include "core/engine/caption_sidecar.h"

#include <cctype>
#include <filesystem>

#include "core/engine/image_files.h"
#include "core/engine/sidecar_manifest.h"
#include "core/text/utf8.h"
#include "core/util/atomic_write.h"
#include "core/util/error.h"
#include "core/util/read_file.h"
#include "core/util/sha256.h"

namespace glance {

namespace fs = std::filesystem;

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

bool EndsInPunctuation(const std::string& s) {
  return !s.empty() && std::string(".!?,;:").find(s.back()) != std::string::npos;
}

// `first` and `second` on one line: a space after punctuation, else ", ".
std::string Join(const std::string& first, const std::string& second) {
  if (first.empty()) return second;
  if (second.empty()) return first;
  return first + (EndsInPunctuation(first) ? " " : ", ") + second;
}

bool IsWordByte(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

// `text` starts with `prefix` as a whole word ("sks" starts "sks, a dog", not "sksx").
bool StartsWithPrefix(const std::string& text, const std::string& prefix) {
  if (prefix.empty() || text.compare(0, prefix.size(), prefix) != 0) return false;
  return text.size() == prefix.size() || !IsWordByte(static_cast<unsigned char>(prefix.back())) ||
         !IsWordByte(static_cast<unsigned char>(text[prefix.size()]));
}

std::string WithPrefix(const std::string& prefix, const std::string& text) {
  if (prefix.empty() || StartsWithPrefix(text, prefix)) return text;
  return Join(prefix, text);
}

// `text` without a leading `prefix` and the separator after it.
std::string WithoutPrefix(const std::string& prefix, const std::string& text) {
  if (!StartsWithPrefix(text, prefix)) return text;
  size_t i = prefix.size();
  while (i < text.size() && (IsSpace(text[i]) || std::string(",;:").find(text[i]) != std::string::npos)) ++i;
  return text.substr(i);
}

std::string WithoutBom(const std::string& s) { return s.rfind("\xEF\xBB\xBF", 0) == 0 ? s.substr(3) : s; }

std::string ValidUtf8(const std::string& s) {
  std::string out;
  text::AppendLossyUtf8(s, /*final=*/true, out);
  return out;
}

}  // namespace

SidecarExisting ParseSidecarExisting(const std::string& word) {
  if (word == "skip") return SidecarExisting::kSkip;
  if (word == "overwrite") return SidecarExisting::kOverwrite;
  if (word == "append") return SidecarExisting::kAppend;
  if (word == "prepend") return SidecarExisting::kPrepend;
  throw Error("'" + word + "' is not a mode: give skip, overwrite, append or prepend");
}

void CheckSidecarExtension(const std::string& ext) {
  if (ext.size() < 2 || ext[0] != '.')
    throw Error("'" + ext + "' is not an extension: give a dot and a name, like .txt or .caption");
  if (ext.find_first_of("/\\") != std::string::npos || ext.find('\0') != std::string::npos || ext == "..")
    throw Error("'" + ext + "' is not an extension: it may not hold a slash (sidecars lie next to their image)");
  if (ext.find('.', 1) != std::string::npos)
    throw Error("'" + ext + "' is not an extension: one dot, at its start, like .txt");
  if (HasImageExtension("x" + ext))
    throw Error("'" + ext + "' is an image's extension: the sidecars would overwrite images");
  std::string lower;
  for (char c : ext) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == ".jsonl") throw Error("'" + ext + "' is the extension of Glance's own records; use .txt or .caption");
}

std::string SidecarPath(const std::string& image, const std::string& ext) {
  fs::path p(image);
  p.replace_extension(ext);
  return p.string();
}

std::string ComposeSidecarText(SidecarExisting mode, const std::string& existing, const std::string& caption,
                               const std::string& prefix) {
  const std::string p = Trim(prefix);
  const std::string c = Trim(caption);
  const std::string old = Trim(WithoutBom(existing));
  switch (mode) {
    case SidecarExisting::kAppend:
      return WithPrefix(p, Join(old, c));
    case SidecarExisting::kPrepend:
      return WithPrefix(p, Join(c, WithoutPrefix(p, old)));
    case SidecarExisting::kSkip:
    case SidecarExisting::kOverwrite:
      break;
  }
  return WithPrefix(p, c);
}

// ---------------------------------------------------------------------------------------------

struct SidecarWriter::Current {
  std::string sidecar;  // path as the user names it
  std::string folder;   // the folder it lies in
  std::string name;     // its name in that folder
  bool exists = false;
  bool ours = false;    // its text is one Glance wrote there
  std::string text;
};

SidecarWriter::SidecarWriter(std::string dir, SidecarOptions options, std::string out_path)
    : dir_(std::move(dir)), options_(std::move(options)) {
  if (!out_path.empty()) {
    std::error_code ec;
    const fs::path abs = fs::weakly_canonical(fs::absolute(out_path), ec);
    out_ = ec ? fs::absolute(out_path).string() : abs.string();
  }
}

SidecarWriter::~SidecarWriter() = default;

std::string SidecarWriter::SidecarOf(const std::string& image) const {
  return (fs::path(dir_) / SidecarPath(image, options_.ext)).string();
}

SidecarManifest& SidecarWriter::ManifestFor(const std::string& folder) {
  auto& m = manifests_[folder];
  if (!m) {
    // First visit of this folder in this run: what a killed writer left goes first.
    if (const int n = RemoveAtomicWriteLeftovers(folder); n > 0)
      notices_.push_back(folder + ": removed " + std::to_string(n) +
                         " unfinished sidecar file(s) left by a run that was stopped");
    auto made = std::make_unique<SidecarManifest>(folder);
    if (!made->notice().empty()) notices_.push_back(made->notice());
    m = std::move(made);
  }
  return *m;
}

SidecarWriter::Current SidecarWriter::Inspect(const std::string& image) {
  Current c;
  c.sidecar = SidecarOf(image);
  const fs::path path(c.sidecar);
  c.folder = path.parent_path().string();
  c.name = path.filename().string();
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec && st.type() != fs::file_type::not_found) throw Error(c.sidecar + ": cannot look at it: " + ec.message());
  SidecarManifest* manifest = nullptr;
  try {
    manifest = &ManifestFor(c.folder);
  } catch (const Error& e) {
    throw Error(c.sidecar + ": cannot tell whether Glance wrote it: " + e.what());
  }
  if (st.type() == fs::file_type::not_found) return c;
  if (st.type() == fs::file_type::directory)
    throw Error(c.sidecar + ": is a folder, so " + image + " cannot have its caption there");
  if (st.type() != fs::file_type::regular)
    throw Error(c.sidecar + ": not a regular file (a link, pipe or device); Glance leaves it alone");
  c.exists = true;
  c.text = ReadWholeFile(c.sidecar, c.sidecar + ": cannot read it");
  c.ours = manifest->Wrote(c.name, Sha256Hex(c.text.data(), c.text.size()));
  return c;
}

SidecarAction SidecarWriter::Decide(const Current& c) const {
  if (!c.exists) return SidecarAction::kWrite;
  if (options_.existing == SidecarExisting::kSkip) return SidecarAction::kHasOne;
  if (c.ours || options_.replace_edited) return SidecarAction::kWrite;
  return SidecarAction::kProtected;
}

void SidecarWriter::Claim(const std::string& image) {
  const std::string sidecar = SidecarOf(image);
  const auto [it, fresh] = claimed_.emplace(sidecar, image);
  if (!fresh && it->second != image)
    throw Error(image + ": its sidecar " + sidecar + " is " + it->second +
                "'s already (same name, another extension); rename one of the two images");
}

SidecarAction SidecarWriter::Plan(const std::string& image) {
  Claim(image);
  return Decide(Inspect(image));
}

std::optional<std::string> SidecarWriter::WrittenInto(const std::string& image, const std::string& image_sha256) {
  if (out_.empty()) return std::nullopt;
  Claim(image);
  const Current c = Inspect(image);
  if (!c.exists) return std::nullopt;
  return ManifestFor(c.folder).CaptionWrittenInto(c.name, image_sha256, Sha256Hex(c.text.data(), c.text.size()), out_);
}

SidecarAction SidecarWriter::Write(const std::string& image, const std::string& image_sha256,
                                   const std::string& caption) {
  const Current c = Inspect(image);
  const SidecarAction action = Decide(c);
  if (action != SidecarAction::kWrite) return action;
  const std::string text =
      ValidUtf8(ComposeSidecarText(options_.existing, c.exists ? c.text : "", caption, options_.prefix));
  // The record first: a run killed between the two leaves the earlier text, itself recorded, so
  // the sidecar still reads as Glance's; the other order would make it look edited by hand.
  try {
    ManifestFor(c.folder).Record(c.name, fs::path(image).filename().string(), image_sha256,
                                 Sha256Hex(text.data(), text.size()), out_, caption);
  } catch (const Error& e) {
    throw Error(c.sidecar + ": not written, as Glance's record of it could not be: " + e.what());
  }
  WriteFileAtomically(c.sidecar, text);
  return SidecarAction::kWrite;
}

SidecarState SidecarWriter::State(const std::string& image, std::string* text) {
  Current c = Inspect(image);
  if (text) *text = c.exists ? std::move(c.text) : std::string();
  if (!c.exists) return SidecarState::kNone;
  return c.ours ? SidecarState::kGlance : SidecarState::kEdited;
}

void SidecarWriter::WriteEdited(const std::string& image, const std::string& text) {
  const Current c = Inspect(image);
  const std::string valid = ValidUtf8(text);
  // The record first, as in Write: killed between the two, the old text is still what it was.
  try {
    ManifestFor(c.folder).RecordEdit(c.name, fs::path(image).filename().string(),
                                     Sha256Hex(valid.data(), valid.size()));
  } catch (const Error& e) {
    throw Error(c.sidecar + ": not saved, as Glance's record of it could not be written: " + e.what());
  }
  WriteFileAtomically(c.sidecar, valid);
}

std::vector<std::string> SidecarWriter::TakeNotices() {
  std::vector<std::string> out;
  out.swap(notices_);
  return out;
}

}  // namespace glance
