// SPDX-License-Identifier: Apache-2.0
// Child processes with time limits (backends/child_process.h).
#include "backends/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "core/error.h"
#include "core/input_limits.h"

namespace sampcheck::backends {

namespace {

using Clock = std::chrono::steady_clock;

// After a command exits, how long its output is still read (what it printed last is in the
// pipe already; only a process it left behind can keep the pipe open longer).
constexpr int kExitGraceMilliseconds = 500;
// How often a running command is checked for having exited while its pipe stays open.
constexpr int kExitPollMilliseconds = 20;
// A frame holds one outcome: a tag byte and a safetensors file whose header (names, shapes)
// is small next to its data; this much is allowed on top of the response cap.
constexpr std::uint64_t kFrameOverheadBytes = 1 << 20;

void ResetCrashSignals() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
}

bool WriteAll(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

int MillisecondsLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// Reads exactly n bytes before the deadline. Returns n on success, 0 on EOF at the first
// byte, -1 on time-out, -2 on EOF in the middle or a read error.
long ReadExactly(int fd, char* out, std::size_t n, Clock::time_point deadline) {
  std::size_t got = 0;
  while (got < n) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, MillisecondsLeft(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return -1;
    if (ready < 0) return -2;
    const ssize_t r = ::read(fd, out + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -2;
    if (r == 0) return got == 0 ? 0 : -2;
    got += static_cast<std::size_t>(r);
  }
  return static_cast<long>(n);
}

Clock::time_point DeadlineAfter(double seconds) {
  return Clock::now() + std::chrono::microseconds(static_cast<long long>(seconds * 1e6));
}

const char* SignalWords(int sig) {
  switch (sig) {
    case SIGSEGV: return "crashed with SIGSEGV (segmentation fault)";
    case SIGBUS: return "crashed with SIGBUS (bus error)";
    case SIGFPE: return "crashed with SIGFPE (arithmetic exception)";
    case SIGILL: return "crashed with SIGILL (illegal instruction)";
    case SIGABRT: return "aborted (SIGABRT)";
    case SIGKILL: return "killed by SIGKILL";
    case SIGTERM: return "killed by SIGTERM";
    default: return nullptr;
  }
}

// What a SIGINT, SIGTERM or SIGHUP must not leave behind: the process groups of live
// children and the exchange directories in use. Fixed-size tables of plain data, because the
// handler may only use async-signal-safe calls (kill, fork, execve, waitpid, signal, raise).
constexpr int kMaxLiveGroups = 64;
constexpr int kMaxLiveDirectories = 16;
constexpr std::size_t kMaxDirectoryPath = 4096;
volatile sig_atomic_t g_live_groups[kMaxLiveGroups];
char g_live_directories[kMaxLiveDirectories][kMaxDirectoryPath];
volatile sig_atomic_t g_directory_used[kMaxLiveDirectories];

void CleanUpAndRaise(int sig) {
  for (int i = 0; i < kMaxLiveGroups; ++i) {
    if (g_live_groups[i] > 0) ::kill(-static_cast<pid_t>(g_live_groups[i]), SIGKILL);
  }
  for (int i = 0; i < kMaxLiveDirectories; ++i) {
    if (!g_directory_used[i]) continue;
    const pid_t rm = ::fork();
    if (rm == 0) {
      ::execl("/bin/rm", "rm", "-rf", "--", g_live_directories[i], static_cast<char*>(nullptr));
      ::_exit(127);
    }
    if (rm > 0) ::waitpid(rm, nullptr, 0);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void InstallCleanupHandlers() {
  static const bool installed = [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_IGN) continue;  // keep nohup's choice
      struct sigaction action {};
      action.sa_handler = CleanUpAndRaise;
      sigemptyset(&action.sa_mask);
      ::sigaction(sig, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

void AddLiveGroup(pid_t pgid) {
  InstallCleanupHandlers();
  for (auto& slot : g_live_groups) {
    if (slot == 0) {
      slot = pgid;
      return;
    }
  }
}

void RemoveLiveGroup(pid_t pgid) {
  for (auto& slot : g_live_groups) {
    if (slot == pgid) slot = 0;
  }
}

// Kills what is left of a child's process group: anything the child forked and left running
// (a plugin's helper process, a command's background job) ends with the run.
void KillGroup(pid_t pgid) {
  if (pgid > 0) ::kill(-pgid, SIGKILL);
}

}  // namespace

void RegisterLiveDirectory(const std::string& path) {
  InstallCleanupHandlers();
  if (path.size() >= kMaxDirectoryPath) return;
  for (int i = 0; i < kMaxLiveDirectories; ++i) {
    if (!g_directory_used[i]) {
      std::memcpy(g_live_directories[i], path.c_str(), path.size() + 1);
      g_directory_used[i] = 1;
      return;
    }
  }
}

void UnregisterLiveDirectory(const std::string& path) {
  for (int i = 0; i < kMaxLiveDirectories; ++i) {
    if (g_directory_used[i] && path == g_live_directories[i]) g_directory_used[i] = 0;
  }
}

std::string SecondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

bool WriteFrame(int fd, std::string_view bytes) {
  unsigned char header[8];
  std::uint64_t n = bytes.size();
  for (int i = 0; i < 8; ++i) header[i] = static_cast<unsigned char>(n >> (8 * i));
  return WriteAll(fd, reinterpret_cast<const char*>(header), 8) && WriteAll(fd, bytes.data(), bytes.size());
}

std::string DescribeExit(int status) {
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status) == 0 ? "exited normally" : "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (const char* words = SignalWords(sig)) return words;
    const char* name = ::sigabbrev_np(sig);
    return "killed by signal " + std::to_string(sig) + (name ? " (SIG" + std::string(name) + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

ForkedChild::ForkedChild(const std::function<void(int write_fd)>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw InputError(std::string("cannot create a pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // buffered output must not be written twice
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw InputError(std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid_ == 0) {
    ::close(fds[0]);
    ::setpgid(0, 0);  // its own process group, so whatever it forks is killed with it
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed run leaves no orphan behind
    ResetCrashSignals();
    ::signal(SIGPIPE, SIG_IGN);  // a parent that gave up makes writes fail, not kill
    // The child's stdout is sampcheck's stderr: what a plugin prints can never pass for a
    // verdict or summary line on sampcheck's stdout (results come back through the pipe).
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    try {
      body(fds[1]);
    } catch (...) {
      ::_exit(70);
    }
    ::_exit(0);
  }
  ::setpgid(pid_, pid_);  // also here: no race with the child's own call
  AddLiveGroup(pid_);
  ::close(fds[1]);
  read_fd_ = fds[0];
}

ForkedChild::~ForkedChild() {
  if (pid_ > 0) Finish();
  if (read_fd_ >= 0) ::close(read_fd_);
}

void ForkedChild::Kill() { KillGroup(pid_); }

std::optional<std::string> ForkedChild::ReadFrame(double timeout_s, bool* timed_out) {
  *timed_out = false;
  const auto deadline = DeadlineAfter(timeout_s);
  unsigned char header[8];
  const long h = ReadExactly(read_fd_, reinterpret_cast<char*>(header), 8, deadline);
  if (h == 0) return std::nullopt;
  if (h == -1) {
    *timed_out = true;
    Kill();
    return std::nullopt;
  }
  if (h < 0) {
    protocol_error_ = "the child's output ended inside a frame header";
    Kill();
    return std::nullopt;
  }
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t{header[i]} << (8 * i);
  const std::uint64_t max_frame = std::min(kMaxFrameBytes, MaxResponseBytes() + kFrameOverheadBytes);
  if (n > max_frame) {
    protocol_error_ = "the child sent a frame of " + std::to_string(n) + " bytes, above the limit of " +
                      std::to_string(max_frame) + " (raise it with " + kMaxResponseBytesVariable + ")";
    Kill();
    return std::nullopt;
  }
  std::string bytes(n, '\0');
  const long b = ReadExactly(read_fd_, bytes.data(), n, deadline);
  if (b == -1) {
    *timed_out = true;
    Kill();
    return std::nullopt;
  }
  if (b < 0 || static_cast<std::uint64_t>(b) != n) {
    if (n == 0) return bytes;
    protocol_error_ = "the child's output ended inside a frame";
    Kill();
    return std::nullopt;
  }
  return bytes;
}

std::string ForkedChild::Finish() {
  if (pid_ <= 0) return "already reaped";
  if (read_fd_ >= 0) {
    ::close(read_fd_);  // a child still writing gets EPIPE and ends
    read_fd_ = -1;
  }
  int status = 0;
  // Give a child that is done a moment to exit on its own; then kill it.
  const auto deadline = DeadlineAfter(5.0);
  pid_t r;
  while ((r = ::waitpid(pid_, &status, WNOHANG)) == 0 && Clock::now() < deadline) ::usleep(1000);
  if (r == 0) {
    Kill();
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  // The child is reaped, but its process group lives on while anything it forked does (and
  // its id cannot be reused meanwhile): end those too, on every path.
  KillGroup(pid_);
  RemoveLiveGroup(pid_);
  pid_ = -1;
  return DescribeExit(status);
}

void ForkedChild::Stop() {
  if (pid_ <= 0) return;
  Kill();
  Finish();
}

CommandResult RunShellCommand(const std::string& command, double timeout_s) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw InputError(std::string("cannot create a pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw InputError(std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own process group, so a time-out kills the command's children too
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: no race with the child's own call
  AddLiveGroup(pid);
  ::close(fds[1]);
  CommandResult result;
  const auto deadline = DeadlineAfter(timeout_s);
  // Once the command has exited, its output is read for at most kExitGraceSeconds more: a
  // process it left running may hold the pipe open for ever.
  std::optional<Clock::time_point> exited_at;
  int status = 0;
  char buffer[4096];
  for (;;) {
    if (!exited_at) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) exited_at = Clock::now();
    }
    auto wake = deadline;
    if (exited_at) wake = std::min(deadline, *exited_at + std::chrono::milliseconds(kExitGraceMilliseconds));
    // Without SIGCHLD plumbing, the exit is noticed by polling in short slices.
    const int slice = std::min(MillisecondsLeft(wake), exited_at ? MillisecondsLeft(wake) : kExitPollMilliseconds);
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, slice);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      if (Clock::now() < wake) continue;  // a poll slice ended: look at the command again
      if (!exited_at) result.timed_out = true;
      break;
    }
    const ssize_t r = ::read(fds[0], buffer, sizeof buffer);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    result.output_tail.append(buffer, static_cast<std::size_t>(r));
    if (result.output_tail.size() > 2 * kOutputTailBytes) {
      result.output_tail.erase(0, result.output_tail.size() - kOutputTailBytes);
    }
  }
  ::close(fds[0]);
  KillGroup(pid);  // a time-out, or whatever the command left running
  if (!exited_at) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  RemoveLiveGroup(pid);
  result.status = status;
  result.how_it_ended = result.timed_out ? "timed out after " + SecondsText(timeout_s) : DescribeExit(status);
  if (result.output_tail.size() > kOutputTailBytes) {
    result.output_tail.erase(0, result.output_tail.size() - kOutputTailBytes);
  }
  return result;
}

}  // namespace sampcheck::backends
