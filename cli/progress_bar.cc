// SPDX-License-Identifier: Apache-2.0
// Progress bar and plain progress lines (cli/progress_bar.h).
#include "cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace sampcheck::cli {
namespace {

constexpr std::size_t kMaxIdShown = 48;  // keeps the terminal line within ~120 columns

}  // namespace

bool StderrIsTerminal() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) == 1 && !(term && std::string_view(term) == "dumb");
}

std::string FormatDuration(std::chrono::steady_clock::duration duration) {
  long long seconds = std::chrono::duration_cast<std::chrono::seconds>(duration).count();
  if (seconds < 0) seconds = 0;
  char text[32];
  if (seconds >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", seconds / 3600, seconds / 60 % 60, seconds % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", seconds / 60, seconds % 60);
  }
  return text;
}

ProgressBar::ProgressBar(Options options, Sink sink, Clock clock)
    : options_(options), sink_(std::move(sink)), clock_(std::move(clock)) {
  phase_start_ = last_update_ = last_output_ = clock_();
}

std::string ProgressBar::Line(std::size_t done, std::size_t total, std::string_view case_id) const {
  const auto elapsed = clock_() - phase_start_;
  // In double seconds: nanoseconds times a large case count could overflow 64 bits.
  const double elapsed_seconds = std::chrono::duration<double>(elapsed).count();
  const double left_seconds = done == 0 ? 0 : elapsed_seconds * static_cast<double>(total - std::min(done, total)) /
                                                  static_cast<double>(done);
  const std::string left =
      done == 0 ? "?"
                : FormatDuration(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(left_seconds)));
  char counts[160];
  if (!options_.terminal) {
    const std::string failures =
        options_.show_failures ? ", failures so far: " + std::to_string(failures_) : std::string();
    std::snprintf(counts, sizeof counts, "progress: %zu/%zu cases done%s, elapsed %s, about %s left\n", done, total,
                  failures.c_str(), FormatDuration(elapsed).c_str(), left.c_str());
    return counts;
  }
  const std::size_t width = options_.bar_width;
  const std::size_t filled = total ? std::min(width, done * width / total) : width;
  std::string line = "\r[";
  line.append(filled, '=');
  if (filled < width) {
    line += '>';
    line.append(width - filled - 1, ' ');
  }
  const std::string failures = options_.show_failures ? "  " + std::to_string(failures_) + " failed" : std::string();
  std::snprintf(counts, sizeof counts, "] %zu/%zu%s  %s elapsed  %s left  ", done, total, failures.c_str(),
                FormatDuration(elapsed).c_str(), left.c_str());
  line += counts;
  for (char c : case_id.substr(0, kMaxIdShown)) {
    line += static_cast<unsigned char>(c) < 0x20 || c == 0x7F ? '?' : c;  // a control byte would break the line
  }
  return line + "\033[K";
}

void ProgressBar::Update(std::size_t done, std::size_t total, bool failed, std::string_view case_id) {
  const auto now = clock_();
  if (started_ && (done <= last_done_ || total != last_total_)) {
    // A new phase began right after the previous phase's last case.
    phase_start_ = last_output_ = last_update_;
    last_plain_done_ = 0;
  }
  started_ = true;
  last_update_ = now;
  last_done_ = done;
  last_total_ = total;
  failures_ += failed;
  const bool last = done >= total;
  if (options_.terminal) {
    if (last) {
      Clear();
    } else if (!drawn_ || failed || now - last_output_ >= kRedrawInterval) {
      sink_(Line(done, total, case_id));
      drawn_ = true;
      last_output_ = now;
    }
    return;
  }
  if (last || done - last_plain_done_ >= options_.plain_every_cases || now - last_output_ >= options_.plain_every) {
    sink_(Line(done, total, case_id));
    last_plain_done_ = done;
    last_output_ = now;
  }
}

void ProgressBar::Clear() {
  if (options_.terminal && drawn_) sink_("\r\033[K");
  drawn_ = false;
}

}  // namespace sampcheck::cli
