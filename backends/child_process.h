// SPDX-License-Identifier: Apache-2.0
#pragma once
// Child processes for fault isolation (docs/spec/plugin_abi.md "Fault isolation"): fork a
// function or run a shell command, read what it writes over a pipe under a time limit, kill
// it when the limit passes, and describe how it ended in words a report can show.
//
// Contract:
// - ForkedChild runs `body(write_fd)` in a fork()ed child with SIGSEGV, SIGBUS, SIGFPE,
//   SIGILL and SIGABRT reset to their default action (so a crash ends the child with that
//   signal even under a sanitizer's handler), then _exit(0): no destructors or atexit
//   handlers of the parent run twice. The child gets SIGKILL if the parent dies
//   (PR_SET_PDEATHSIG), so a killed run leaves no hanging child behind. The parent reads
//   length-prefixed frames (u64 little-endian length, then the bytes) with ReadFrame.
// - ReadFrame waits at most `timeout_s` seconds for a whole frame: a frame, EOF (nullopt,
//   with *timed_out false) or time-out (nullopt, *timed_out true; the child is then killed
//   with SIGKILL). A frame longer than kMaxFrameBytes is a protocol error (the child is
//   killed; the caller sees EOF with a reason).
// - Finish() reaps the child (killing it first if still running) and returns how it ended:
//   "exited normally", "exited with status 3", "crashed with SIGSEGV (segmentation fault)",
//   "aborted (SIGABRT)", "killed by SIGKILL".
// - Stop() kills the child at once and reaps it, for a parent that wants no more of its frames
//   (Finish would first give it 5 s to end on its own).
// - Every child runs in its own process group, and the whole group is killed on every path:
//   a time-out, a protocol error, and after the child itself has ended (whatever it forked and
//   left running ends with it).
// - RunShellCommand runs `/bin/sh -c command` with stdin from /dev/null, stdout and stderr
//   captured (the last kOutputTailBytes kept), killing the whole process group after
//   `timeout_s`. Reading stops when the command exits (after a 0.5 s grace period for a pipe
//   still held open by a process it left behind), not when the pipe closes.
// - A SIGINT, SIGTERM or SIGHUP to sampcheck kills the live children's process groups and
//   removes the directories registered with RegisterLiveDirectory, then ends sampcheck with
//   that signal.
// Example: ForkedChild child([](int fd) { WriteFrame(fd, "hi"); });
//   child.ReadFrame(1.0, &to) == "hi"; child.ReadFrame(1.0, &to) == nullopt; child.Finish() == "exited normally"

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace sampcheck::backends {

inline constexpr std::uint64_t kMaxFrameBytes = std::uint64_t{1} << 34;  // 16 GiB
inline constexpr std::size_t kOutputTailBytes = 4000;

// Writes one frame; returns false when the pipe is closed.
bool WriteFrame(int fd, std::string_view bytes);

// How a waitpid() status ended a process, in words.
std::string DescribeExit(int status);

class ForkedChild {
 public:
  explicit ForkedChild(const std::function<void(int write_fd)>& body);
  ~ForkedChild();
  ForkedChild(const ForkedChild&) = delete;
  ForkedChild& operator=(const ForkedChild&) = delete;

  std::optional<std::string> ReadFrame(double timeout_s, bool* timed_out);
  std::string Finish();
  void Stop();
  // Set when ReadFrame gave up on a malformed frame.
  const std::string& protocol_error() const { return protocol_error_; }

 private:
  void Kill();
  pid_t pid_ = -1;
  int read_fd_ = -1;
  std::string protocol_error_;
};

struct CommandResult {
  bool timed_out = false;
  int status = 0;            // waitpid() status (meaningless when timed_out)
  std::string how_it_ended;  // DescribeExit, or "timed out after N s"
  std::string output_tail;   // last bytes of stdout+stderr
  bool succeeded() const { return !timed_out && how_it_ended == "exited normally"; }
};

CommandResult RunShellCommand(const std::string& command, double timeout_s);

// A directory to remove if sampcheck is ended by a signal while it exists (at most 16 at a
// time; exchange directories). Unregister before removing it normally.
void RegisterLiveDirectory(const std::string& path);
void UnregisterLiveDirectory(const std::string& path);

// "10 s", "0.5 s"
std::string SecondsText(double seconds);

}  // namespace sampcheck::backends
