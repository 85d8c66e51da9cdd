#pragma once
// A file that grows by whole records and survives a crash or power cut at any point (issue 35):
// each Append() writes its bytes, checks that the file grew by exactly that much (a short write,
// ENOSPC or EIO is caught here, not found later as a torn line), and fdatasync()s before it
// returns, so a record reported written is on disk. A failed append is cut off again (ftruncate
// to the earlier length) and throws glance::Error naming the file: the earlier records stay
// whole. A file it creates has its folder fsync()ed too, or a power cut could lose the name.
//
// What a crash can still leave is one record cut short at the end (the kernel wrote part of it);
// the reader decides where its last whole record ends (see caption_folder.cpp's SetAsideTornTail).
//
// Thread contract: one owner.
#include <cstdint>
#include <string>

namespace glance {

class AppendFile {
 public:
  // Opens (creating if missing) for appending; throws glance::Error naming the file.
  explicit AppendFile(std::string path);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  void Append(const std::string& bytes);
  uint64_t size() const { return size_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// fsync() of the folder holding `path`, so a file created or renamed there keeps its name after
// a power cut (POSIX makes the new name durable only through its folder). False on failure.
bool SyncParentFolder(const std::string& path);

}  // namespace glance
