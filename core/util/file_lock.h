#pragma once
// An exclusive flock() on an existing file for the lifetime of the object, so that two users of
// one file (two threads of this process, or two processes) take turns: a reader that repairs the
// file's torn tail waits for an appender that is still writing its record (issue 33's sidecar
// record, read by the folder view while a caption run appends to it on the engine thread).
// Advisory: it orders only the code that takes it. A file that is not there takes no lock
// (locked() is false); any other failure to open it throws glance::Error naming the file.
#include <string>

namespace glance {

class FileLock {
 public:
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool locked() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace glance
