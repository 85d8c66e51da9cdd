#pragma once
// Running a writer as a child process for the crash tests, under io_fault_shim when environment
// variables are given (GLANCE_FAULT_SHIM is the shim's path, set by tests/crash/CMakeLists.txt).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace glance::test {

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void Spit(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

struct Child {
  bool killed = false;
  int exit_code = -1;
  std::string err;
};

// PROGRAM ARGS..., with these environment variables (the shim when any are given); its stderr
// goes to ERR_PATH (and its stdout to OUT_PATH when given).
inline Child RunChild(const std::string& program, const std::vector<std::string>& args,
                      const std::filesystem::path& err_path, const std::map<std::string, std::string>& env,
                      const std::filesystem::path& out_path = {}) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!env.empty()) {
      ::setenv("LD_PRELOAD", GLANCE_FAULT_SHIM, 1);
      ::setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 1);  // sanitized builds: the shim comes first
    }
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    if (!out_path.empty()) ::dup2(::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Child c;
  c.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  c.err = Slurp(err_path);
  return c;
}

}  // namespace glance::test
