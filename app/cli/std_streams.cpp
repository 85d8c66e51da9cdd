#include "app/cli/std_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace glance::cli {
namespace {
bool g_stdin_open = true;
}

void GuardStandardStreams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == 0) g_stdin_open = false;
    // open() returns the lowest free descriptor: this one, since the lower ones are taken.
    const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got != fd && got >= 0) ::close(got);
  }
}

bool StdinWasOpen() { return g_stdin_open; }

}  // namespace glance::cli
