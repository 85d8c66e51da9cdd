#pragma once
// Runs glance-cli as a child process for the CLI tests: stdin a pipe the test writes to (or
// closed), stdout and stderr captured. Small on purpose: spawn, write, wait for text, signal, wait.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace glance::test {

inline std::string CliPath() { return std::string(GLANCE_BINARY_DIR) + "/app/glance-cli"; }

class CliProcess {
 public:
  // `close_stdin`: start the child with descriptor 0 closed (as `0<&-` does).
  explicit CliProcess(const std::vector<std::string>& args, bool close_stdin = false) {
    int in[2], out[2], err[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (close_stdin) posix_spawn_file_actions_addclose(&fa, 0);
    else posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) posix_spawn_file_actions_addclose(&fa, fd);
    std::vector<std::string> argv_s = {CliPath()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    stdin_ = in[1];
    out_ = out[0];
    err_ = err[0];
    if (close_stdin) CloseStdin();
  }
  ~CliProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      Wait(5.0);
    }
    for (int fd : {stdin_, out_, err_})
      if (fd >= 0) ::close(fd);
  }
  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  void Write(const std::string& s) {
    if (stdin_ >= 0) (void)!::write(stdin_, s.data(), s.size());
  }
  void CloseStdin() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
  }
  void Signal(int sig) {
    if (pid_ > 0 && !exited_) ::kill(pid_, sig);
  }

  // Reads output until `pred()` holds or `seconds` pass; true if it held.
  template <class Pred>
  bool WaitFor(Pred pred, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!pred()) {
      if (std::chrono::steady_clock::now() > end) return false;
      if (!Pump(50) && pred()) return true;
    }
    return true;
  }
  bool WaitForStderr(const std::string& text, double seconds, size_t from = 0) {
    return WaitFor([&] { return err.find(text, from) != std::string::npos; }, seconds);
  }
  bool WaitForStdout(size_t bytes, double seconds) {
    return WaitFor([&] { return out.size() >= bytes; }, seconds);
  }

  // Waits for exit, reading all output; returns the exit code (128+signal if signalled, -1 on timeout).
  int Wait(double seconds = 120.0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!exited_) {
      Pump(50);
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        while (Pump(0)) {
        }
      } else if (std::chrono::steady_clock::now() > end) {
        return -1;
      }
    }
    return code_;
  }

  std::string out, err;

 private:
  // Reads what is available; false when nothing was read.
  bool Pump(int timeout_ms) {
    pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    if (::poll(fds, 2, timeout_ms) <= 0) return false;
    bool any = false;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? out : err).append(buf, static_cast<size_t>(n));
        any = true;
      }
    }
    return any;
  }

  pid_t pid_ = -1;
  int stdin_ = -1, out_ = -1, err_ = -1;
  bool exited_ = false;
  int code_ = -1;
};

}  // namespace glance::test
