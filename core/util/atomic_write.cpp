#include "core/util/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Every byte of `bytes` to `fd`; errno on failure (a short write counts as ENOSPC).
int WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

bool IsAtomicWriteLeftover(const std::string& name) {
  const size_t mark = name.rfind(kTempMark);
  return name.size() > 1 && name[0] == '.' && mark != std::string::npos && mark > 1 &&
         name.size() == mark + std::strlen(kTempMark) + 6;
}

void WriteFileAtomically(const std::string& path, const std::string& bytes) {
  const fs::path target(path);
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string tmp = (folder / ("." + target.filename().string() + kTempMark + "XXXXXX")).string();
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot write: " + std::strerror(errno));
  tmp = name.data();
  // mkstemp makes the file 0600; a caption is as readable as any file the user makes.
  struct stat old;
  mode_t mode = 0644;
  if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
    mode = old.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  int err = WriteAll(fd, bytes);
  if (err == 0 && ::fchmod(fd, mode) != 0) err = errno;
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw Error(path + ": writing failed: " + std::strerror(err) + " (the file is as it was)");
  }
  if (!SyncParentFolder(path))
    throw Error(path + ": written, but its folder could not be synced to disk: " + std::strerror(errno));
}

int RemoveAtomicWriteLeftovers(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!IsAtomicWriteLeftover(it->path().filename().string()) || !it->is_regular_file(type_ec)) continue;
    std::error_code rm_ec;
    if (fs::remove(it->path(), rm_ec)) ++removed;
  }
  return removed;
}

}  // namespace glance
