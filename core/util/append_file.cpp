#include "core/util/append_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/util/error.h"

namespace glance {

bool SyncParentFolder(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) parent = ".";
  const int dir = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  const bool ok = ::fsync(dir) == 0;
  ::close(dir);
  return ok;
}

AppendFile::AppendFile(std::string path) : path_(std::move(path)) {
  const bool existed = ::access(path_.c_str(), F_OK) == 0;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(path_ + ": cannot write: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw Error(path_ + ": cannot write: not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (!existed && !SyncParentFolder(path_)) {
    const int err = errno;
    ::close(fd_);
    throw Error(path_ + ": cannot create: " + std::strerror(err));
  }
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendFile::Append(const std::string& bytes) {
  size_t done = 0;
  int err = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (err == 0 && ::fdatasync(fd_) != 0) err = errno;
  struct stat st;
  if (err == 0 && (::fstat(fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) != size_ + bytes.size()))
    err = EIO;  // the file did not grow by exactly this record (another writer, or a lost write)
  if (err != 0) {
    // Whatever part of the record reached the file is cut off again: the earlier records stay whole.
    const bool cut = ::ftruncate(fd_, static_cast<off_t>(size_)) == 0;
    throw Error(path_ + ": writing failed: " + std::strerror(err) +
                (cut ? " (the earlier content is intact)" : " (and the partial record could not be removed)"));
  }
  size_ += bytes.size();
}

}  // namespace glance
