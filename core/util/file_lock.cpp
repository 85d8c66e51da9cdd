#include "core/util/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/util/error.h"

namespace glance {

FileLock::FileLock(const std::string& path) {
  // Its own open file description: flock() locks on two of them conflict even in one process.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    if (errno == ENOENT) return;
    throw Error(path + ": cannot open it to take turns with another writer: " + std::strerror(errno));
  }
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw Error(path + ": cannot lock it: " + std::strerror(err));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the description drops the lock
}

}  // namespace glance
