#include "core/util/atomic_write.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/util/append_file.h"
#include "core/util/error.h"

namespace glance {

namespace fs = std::filesystem;

namespace {

constexpr char kTempMark[] = ".glance-tmp-";

// Every byte of [data, data + n) to `fd`; errno on failure (a short write counts as ENOSPC).
int WriteAll(int fd, const char* data, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(fd, data + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : ENOSPC;
    done += static_cast<size_t>(w);
  }
  return 0;
}

}  // namespace

bool IsAtomicWriteLeftover(const std::string& name) {
  const size_t mark = name.rfind(kTempMark);
  return name.size() > 1 && name[0] == '.' && mark != std::string::npos && mark > 1 &&
         name.size() == mark + std::strlen(kTempMark) + 6;
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  const fs::path target(path_);
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "." + string.
  std::string leaf(".");
  leaf += target.filename().string();
  leaf += kTempMark;
  leaf += "XXXXXX";
  const std::string pattern = (folder / leaf).string();
  // The temporary's lock is held from here to the rename: RemoveAtomicWriteLeftovers leaves a
  // locked temporary alone. A cleaner that came between mkostemp and flock has removed the new
  // file (it removes only while it holds the lock, so flock waits it out): start again.
  for (int attempt = 0;; ++attempt) {
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) throw Error(path_ + ": cannot write: " + std::strerror(errno));
    tmp_ = name.data();
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
    struct stat st;
    if (::fstat(fd_, &st) == 0 && st.st_nlink > 0) break;
    ::close(fd_);
    fd_ = -1;
    if (attempt == 100) throw Error(path_ + ": cannot write: its temporary file keeps being removed");
  }
  // mkstemp makes the file 0600; the new file is as readable as any file the user makes, and a
  // replaced one keeps its mode.
  struct stat old;
  mode_t mode = 0644;
  if (::stat(path_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
    mode = old.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  mode_ = mode;
}

AtomicFileWriter::~AtomicFileWriter() {
  if (done_) return;
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicFileWriter::Fail(int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  done_ = true;
  throw Error(path_ + ": writing failed: " + std::strerror(err) + " (the file is as it was)");
}

void AtomicFileWriter::Write(const void* data, size_t n) {
  if (done_) throw Error(path_ + ": written after it was committed");
  if (const int err = WriteAll(fd_, static_cast<const char*>(data), n); err != 0) Fail(err);
  size_ += n;
}

void AtomicFileWriter::PadTo(uint64_t offset) {
  static const char zeros[4096] = {};
  while (size_ < offset) Write(zeros, static_cast<size_t>(std::min<uint64_t>(offset - size_, sizeof zeros)));
}

void AtomicFileWriter::Commit() {
  if (done_) throw Error(path_ + ": committed twice");
  int err = 0;
  if (::fchmod(fd_, static_cast<mode_t>(mode_)) != 0) err = errno;
  if (err == 0 && ::fsync(fd_) != 0) err = errno;
  // The length on disk is what was written: nothing lost between the writes and the sync.
  struct stat st;
  if (err == 0 && (::fstat(fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) != size_)) err = EIO;
  // Renamed before it is closed: closing drops the lock, and an unlocked temporary is a leftover.
  if (err == 0 && ::rename(tmp_.c_str(), path_.c_str()) != 0) err = errno;
  if (err != 0) Fail(err);
  ::close(fd_);  // its bytes were synced above: close has nothing left to report
  fd_ = -1;
  done_ = true;
  if (!SyncParentFolder(path_))
    throw Error(path_ + ": written, but its folder could not be synced to disk: " + std::strerror(errno));
}

void WriteFileAtomically(const std::string& path, const std::string& bytes) {
  AtomicFileWriter w(path);
  w.Write(bytes);
  w.Commit();
}

int RemoveAtomicWriteLeftovers(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!IsAtomicWriteLeftover(it->path().filename().string()) || !it->is_regular_file(type_ec)) continue;
    // A temporary another living writer holds its lock on is being written, not left over.
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      continue;
    }
    // Removed while locked: a writer that made this name a moment ago waits in its flock and then
    // sees its file gone (AtomicFileWriter's constructor), instead of writing into a removed one.
    if (::unlink(it->path().c_str()) == 0) ++removed;
    ::close(fd);
  }
  return removed;
}

}  // namespace glance
