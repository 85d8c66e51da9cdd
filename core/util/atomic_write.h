#pragma once
// Replacing a small file whole, so that a reader, a crash or a power cut finds the old content or
// the new, never part of either (issue 33: caption sidecars): the bytes go to a temporary file in
// the same folder (".NAME.glance-tmp-XXXXXX", hidden, and not NAME's extension, so no tool takes
// it for the file), are fsync()ed, the temporary is renamed over NAME, and the folder is fsync()ed
// (SyncParentFolder, append_file.h) so the new name survives a power cut.
//
// A process killed between creating the temporary and the rename leaves it behind; the next
// writer of that folder removes such leftovers (RemoveAtomicWriteLeftovers). A writer holds an
// flock() on its temporary from its creation until after the rename, and the cleaner removes only
// what it holds locked, so a temporary another living writer (another process, or another thread
// of this one) is still writing is never removed from under it.
//
// A file too large to hold in memory (the weight cache) is written the same way in pieces with
// AtomicFileWriter: Write() as often as needed, then Commit().
//
// Thread contract: none; two writers of one path race (the last rename wins, each file whole).
#include <cstddef>
#include <cstdint>
#include <string>

namespace glance {

// Writes `bytes` as `path` (created or replaced; a new file gets mode 0644 less the umask, a
// replaced one keeps its mode). Throws glance::Error naming `path` when any step fails (no
// space, no permission, the folder gone); the temporary is removed and `path` is as it was.
void WriteFileAtomically(const std::string& path, const std::string& bytes);

// The same protocol, written in pieces (issue 35: the weight cache is gigabytes):
//   AtomicFileWriter w(path);   // the temporary is made (throws glance::Error naming path)
//   w.Write(p, n); ...          // each piece written whole (a short write is an error)
//   w.Commit();                 // fsync, rename over path, fsync of the folder
// Every failure throws glance::Error naming `path` with the system's reason; the temporary is
// removed and `path` is as it was (a failure after the rename says so: the new file is whole
// but its name might not survive a power cut). Destroyed without Commit (an exception in the
// caller): the temporary is removed, `path` untouched.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void Write(const void* data, size_t n);
  void Write(const std::string& bytes) { Write(bytes.data(), bytes.size()); }
  // Zero bytes up to `offset` (padding); nothing when already there.
  void PadTo(uint64_t offset);
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  void Commit();

 private:
  [[noreturn]] void Fail(int err);
  std::string path_, tmp_;
  int fd_ = -1;
  unsigned mode_ = 0644;
  uint64_t size_ = 0;
  bool done_ = false;
};

// True for the name (not path) of a temporary WriteFileAtomically makes.
bool IsAtomicWriteLeftover(const std::string& name);

// Removes the temporaries a killed WriteFileAtomically or AtomicFileWriter left directly in
// `dir` (not one another living process is still writing: it holds a lock on it); returns how
// many. Never throws (a leftover that cannot be removed stays; it is hidden and harmless).
int RemoveAtomicWriteLeftovers(const std::string& dir);

}  // namespace glance
