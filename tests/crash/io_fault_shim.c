// LD_PRELOAD library for the crash and I/O-error tests (issue 35), in the spirit of SQLite's
// crash and I/O-error tests: it counts the calls that change files under one folder and, at a
// chosen call, kills the process or makes the call fail.
//
//   GLANCE_FAULT_DIR=DIR     only calls on files under DIR count (found from /proc/self/fd)
//   GLANCE_FAULT_COUNT=FILE  at exit, write the number of counted calls to FILE
//   GLANCE_FAULT_LOG=FILE    append one line per counted call: "<call> <path>" (the order of a
//                            writer's steps: is a rename followed by an fsync of its folder?)
//   GLANCE_CRASH_AT=N        the N-th counted call SIGKILLs the process before it happens...
//   GLANCE_CRASH_TORN=1      ...except that a write first writes the first half of its bytes (a
//                            power cut in the middle of a write)
//   GLANCE_FAIL_AT=N         the N-th counted call and every one after it fail with
//                            GLANCE_FAIL_ERRNO (default ENOSPC; a full disk stays full); the
//                            first failing write of more than one byte writes half of it first
//                            (a short write, then the error, as a filling disk does). ftruncate
//                            never fails (shrinking a file needs no space).
//
// Counted: write, writev, pwrite, fsync, fdatasync, ftruncate, truncate, rename, renameat, linkat,
// unlink.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long counted = 0;

static const char* Dir(void) { return getenv("GLANCE_FAULT_DIR"); }

static int PathIsWatched(const char* path) {
  const char* dir = Dir();
  if (!dir || !*dir || !path) return 0;
  char full[PATH_MAX];
  if (path[0] != '/') {
    if (!getcwd(full, sizeof full)) return 0;
    strncat(full, "/", sizeof full - strlen(full) - 1);
    strncat(full, path, sizeof full - strlen(full) - 1);
    path = full;
  }
  return strncmp(path, dir, strlen(dir)) == 0;
}

static int FdIsWatched(int fd) {
  if (!Dir()) return 0;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  return PathIsWatched(path);
}

static long EnvLong(const char* name) {
  const char* v = getenv(name);
  return v ? atol(v) : 0;
}

static void Log(const char* call, const char* path) {
  const char* log = getenv("GLANCE_FAULT_LOG");
  if (!log) return;
  FILE* f = fopen(log, "a");
  if (!f) return;
  fprintf(f, "%s %s\n", call, path);
  fclose(f);
}

static void LogFd(const char* call, int fd) {
  if (!getenv("GLANCE_FAULT_LOG")) return;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  path[n > 0 ? n : 0] = '\0';
  Log(call, path);
}

// 0: go on; 1: kill (after a torn half-write when asked); 2: fail.
static int Decide(void) {
  ++counted;
  if (EnvLong("GLANCE_CRASH_AT") == counted) return 1;
  const long fail_at = EnvLong("GLANCE_FAIL_AT");
  if (fail_at > 0 && counted >= fail_at) return 2;
  return 0;
}

static void Die(void) {
  raise(SIGKILL);
  _exit(137);
}

static int FailErrno(void) {
  const long e = EnvLong("GLANCE_FAIL_ERRNO");
  return e > 0 ? (int)e : ENOSPC;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void* buf, size_t n) {
  if (FdIsWatched(fd)) {
    LogFd("write", fd);
    const int what = Decide();
    if (what == 1) {
      if (getenv("GLANCE_CRASH_TORN") && n > 1) REAL(write)(fd, buf, n / 2);
      Die();
    }
    if (what == 2) {
      if (n > 1 && EnvLong("GLANCE_FAIL_AT") == counted) return REAL(write)(fd, buf, n / 2);  // short first
      errno = FailErrno();
      return -1;
    }
  }
  return REAL(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  if (FdIsWatched(fd)) {
    LogFd("pwrite", fd);
    const int what = Decide();
    if (what == 1) {
      if (getenv("GLANCE_CRASH_TORN") && n > 1) REAL(pwrite)(fd, buf, n / 2, off);
      Die();
    }
    if (what == 2) {
      errno = FailErrno();
      return -1;
    }
  }
  return REAL(pwrite)(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  if (FdIsWatched(fd)) {
    LogFd("writev", fd);
    const int what = Decide();
    if (what == 1) {
      if (getenv("GLANCE_CRASH_TORN") && count > 0 && iov[0].iov_len > 1)
        REAL(write)(fd, iov[0].iov_base, iov[0].iov_len / 2);
      Die();
    }
    if (what == 2) {
      errno = FailErrno();
      return -1;
    }
  }
  return REAL(writev)(fd, iov, count);
}

#define SIMPLE_FD_CALL(name)                 \
  int name(int fd) {                         \
    if (FdIsWatched(fd)) {                   \
      LogFd(#name, fd);                      \
      const int what = Decide();             \
      if (what == 1) Die();                  \
      if (what == 2) {                       \
        errno = FailErrno();                 \
        return -1;                           \
      }                                      \
    }                                        \
    return REAL(name)(fd);                   \
  }
SIMPLE_FD_CALL(fsync)
SIMPLE_FD_CALL(fdatasync)

int ftruncate(int fd, off_t length) {
  if (FdIsWatched(fd) && (LogFd("ftruncate", fd), Decide() == 1)) Die();
  return REAL(ftruncate)(fd, length);
}

int truncate(const char* path, off_t length) {
  if (PathIsWatched(path) && (Log("truncate", path), Decide() == 1)) Die();
  return REAL(truncate)(path, length);
}

int rename(const char* from, const char* to) {
  if (PathIsWatched(to)) {
    Log("rename", to);
    const int what = Decide();
    if (what == 1) Die();
    if (what == 2) {
      errno = FailErrno();
      return -1;
    }
  }
  return REAL(rename)(from, to);
}

int renameat(int olddir, const char* from, int newdir, const char* to) {
  if (PathIsWatched(to)) {
    Log("rename", to);
    const int what = Decide();
    if (what == 1) Die();
    if (what == 2) {
      errno = FailErrno();
      return -1;
    }
  }
  return REAL(renameat)(olddir, from, newdir, to);
}

// QSaveFile gives its unnamed (O_TMPFILE) file a name with linkat: a new name, like a rename.
int linkat(int olddir, const char* from, int newdir, const char* to, int flags) {
  if (PathIsWatched(to)) {
    Log("link", to);
    const int what = Decide();
    if (what == 1) Die();
    if (what == 2) {
      errno = FailErrno();
      return -1;
    }
  }
  return REAL(linkat)(olddir, from, newdir, to, flags);
}

int unlink(const char* path) {
  if (PathIsWatched(path)) {
    Log("unlink", path);
    const int what = Decide();
    if (what == 1) Die();
    if (what == 2) {
      errno = FailErrno();
      return -1;
    }
  }
  return REAL(unlink)(path);
}

__attribute__((destructor)) static void ReportCount(void) {
  const char* out = getenv("GLANCE_FAULT_COUNT");
  if (!out) return;
  FILE* f = fopen(out, "w");
  if (!f) return;
  fprintf(f, "%ld\n", counted);
  fclose(f);
}
