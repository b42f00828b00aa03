// SPDX-License-Identifier: Apache-2.0
#pragma once
// Progress of a long run (docs/spec/cli.md "Progress"): cases done, failures so far, time
// elapsed and an estimate of the time left.
//
// On a terminal: one line redrawn in place ("\r", the line, "\033[K" to erase the rest):
//   [=========>          ] 120/560  2 failed  0:42 elapsed  2:34 left  top_p/random/vllm
// at most every 100 ms (kRedrawInterval) and always on the last case; Clear() erases it so
// that other output (a FAIL line) starts on a clean line; the last case erases it too.
// Not on a terminal (a CI log): plain lines, never control characters, one every
// `plain_every_cases` cases or after `plain_every` has passed since the last line, whichever
// comes first, and one for the last case:
//   progress: 120/560 cases done, failures so far: 2, elapsed 0:42, about 2:34 left
// The estimate is elapsed * (total - done) / done (cases are assumed to cost the same on
// average); it reads "?" before the first case is done. A call whose `done` is not larger
// than the previous one, or whose `total` differs, starts a new phase (conform runs the golden
// set, then the batch-invariance check): its clock starts at the previous phase's last case
// and the plain-line schedule restarts; failures keep counting. The first phase's clock
// starts when the bar is constructed.
// With show_failures = false the "N failed" / "failures so far: N" part is left out.
// The clock and the output are injected so that tests can drive both.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace sampcheck::cli {

class ProgressBar {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Sink = std::function<void(std::string_view)>;
  static constexpr std::chrono::milliseconds kRedrawInterval{100};  // 10 redraws a second is smooth enough

  struct Options {
    bool terminal = false;
    std::size_t plain_every_cases = 100;
    std::chrono::steady_clock::duration plain_every = std::chrono::seconds(10);
    std::size_t bar_width = 20;
    // false for runs whose verdicts are known only at the end (the statistical harness
    // applies Holm over all its p-values after the last case): the failure count is left out
    // of the line rather than shown as a misleading 0.
    bool show_failures = true;
  };

  ProgressBar(Options options, Sink sink, Clock clock = [] { return std::chrono::steady_clock::now(); });

  // Case `done` of `total` has finished; `failed` says whether it failed.
  void Update(std::size_t done, std::size_t total, bool failed, std::string_view case_id);
  // Erases the terminal line (no-op when nothing is drawn or not on a terminal).
  void Clear();

  std::size_t failures() const { return failures_; }

 private:
  std::string Line(std::size_t done, std::size_t total, std::string_view case_id) const;

  Options options_;
  Sink sink_;
  Clock clock_;
  // The first phase starts when the bar is made; a later one at the previous phase's last case.
  std::chrono::steady_clock::time_point phase_start_{}, last_update_{}, last_output_{};
  std::size_t last_done_ = 0, last_total_ = 0, last_plain_done_ = 0, failures_ = 0;
  bool drawn_ = false, started_ = false;
};

// Whether progress should be drawn as a bar: stderr is a terminal and TERM is not "dumb".
bool StderrIsTerminal();

// "m:ss", or "h:mm:ss" from an hour on; negative durations read as 0:00.
std::string FormatDuration(std::chrono::steady_clock::duration duration);

}  // namespace sampcheck::cli
