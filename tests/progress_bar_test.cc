// SPDX-License-Identifier: Apache-2.0
// Progress output (cli/progress_bar.h) driven by a scripted clock and a string sink. The
// expected lines are written by hand from the formats in the header.
#include "cli/progress_bar.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace sampcheck::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct Harness {
  std::chrono::steady_clock::time_point now{};  // the epoch; tests advance it
  std::string out;
  ProgressBar Make(ProgressBar::Options options) {
    return ProgressBar(options, [this](std::string_view s) { out += s; }, [this] { return now; });
  }
};

TEST(FormatDuration, MinutesAndHours) {
  EXPECT_EQ(FormatDuration(seconds(0)), "0:00");
  EXPECT_EQ(FormatDuration(seconds(59)), "0:59");
  EXPECT_EQ(FormatDuration(seconds(754)), "12:34");
  EXPECT_EQ(FormatDuration(seconds(3600 + 62)), "1:01:02");
  EXPECT_EQ(FormatDuration(seconds(-5)), "0:00");
}

TEST(ProgressBar, PlainLinesEveryNCasesAndAtTheEnd) {
  Harness h;
  auto bar = h.Make({.terminal = false, .plain_every_cases = 2});
  h.now += seconds(1);
  bar.Update(1, 5, false, "a");  // 1 case since the last line: nothing
  EXPECT_EQ(h.out, "");
  h.now += seconds(1);
  bar.Update(2, 5, true, "b");  // 2 cases: a line; 2 s for 2 cases, 3 left -> 0:03
  EXPECT_EQ(h.out, "progress: 2/5 cases done, failures so far: 1, elapsed 0:02, about 0:03 left\n");
  h.out.clear();
  h.now += seconds(1);
  bar.Update(3, 5, false, "c");
  EXPECT_EQ(h.out, "");
  h.now += seconds(1);
  bar.Update(5, 5, false, "e");  // the last case always prints
  EXPECT_EQ(h.out, "progress: 5/5 cases done, failures so far: 1, elapsed 0:04, about 0:00 left\n");
  EXPECT_EQ(h.out.find('\r'), std::string::npos);
  EXPECT_EQ(h.out.find('\033'), std::string::npos);
}

TEST(ProgressBar, PlainLineAfterTheTimeIntervalEvenBetweenNCases) {
  Harness h;
  auto bar = h.Make({.terminal = false, .plain_every_cases = 1000, .plain_every = seconds(10)});
  h.now += seconds(4);
  bar.Update(1, 100, false, "a");
  EXPECT_EQ(h.out, "");
  h.now += seconds(6);  // 10 s since the start
  bar.Update(2, 100, false, "b");  // 10 s for 2 cases, 98 left: 490 s = 8:10
  EXPECT_EQ(h.out, "progress: 2/100 cases done, failures so far: 0, elapsed 0:10, about 8:10 left\n");
  h.out.clear();
  h.now += seconds(9);
  bar.Update(3, 100, false, "c");  // 9 s since the last line: nothing
  EXPECT_EQ(h.out, "");
}

TEST(ProgressBar, TerminalBarIsRedrawnInPlace) {
  Harness h;
  auto bar = h.Make({.terminal = true, .bar_width = 10});
  h.now += seconds(3);
  bar.Update(3, 10, false, "top_p/x/vllm");  // 3 s for 3 cases, 7 left: 0:07
  EXPECT_EQ(h.out, "\r[===>      ] 3/10  0 failed  0:03 elapsed  0:07 left  top_p/x/vllm\033[K");
  h.out.clear();
  h.now += milliseconds(50);
  bar.Update(4, 10, false, "y");  // within 100 ms of the last redraw: skipped
  EXPECT_EQ(h.out, "");
  h.now += milliseconds(50);
  bar.Update(5, 10, false, "z");
  EXPECT_EQ(h.out.rfind("\r[=====>    ] 5/10", 0), 0u) << h.out;
  h.out.clear();
  bar.Clear();  // before a FAIL line
  EXPECT_EQ(h.out, "\r\033[K");
  h.out.clear();
  bar.Clear();  // nothing drawn: nothing to erase
  EXPECT_EQ(h.out, "");
  bar.Update(6, 10, true, "f");  // a failure redraws at once with the new count
  EXPECT_NE(h.out.find(" 1 failed "), std::string::npos) << h.out;
  h.out.clear();
  bar.Update(10, 10, false, "last");  // the last case erases the bar
  EXPECT_EQ(h.out, "\r\033[K");
}

TEST(ProgressBar, TerminalLineNeverCarriesControlBytesFromIds) {
  Harness h;
  auto bar = h.Make({.terminal = true, .bar_width = 4});
  bar.Update(1, 2, false, "a\nb\033c");
  EXPECT_EQ(h.out, "\r[==> ] 1/2  0 failed  0:00 elapsed  0:00 left  a?b?c\033[K");
}

TEST(ProgressBar, LeavesOutFailuresWhenTheyAreKnownOnlyAtTheEnd) {
  Harness h;
  auto plain = h.Make({.terminal = false, .plain_every_cases = 1, .show_failures = false});
  h.now += seconds(2);
  plain.Update(1, 2, false, "a");
  EXPECT_EQ(h.out, "progress: 1/2 cases done, elapsed 0:02, about 0:02 left\n");
  h.out.clear();
  auto bar = h.Make({.terminal = true, .bar_width = 4, .show_failures = false});
  bar.Update(1, 2, false, "a");  // this bar's clock started at t = 2 s, now
  EXPECT_EQ(h.out, "\r[==> ] 1/2  0:00 elapsed  0:00 left  a\033[K");
}

TEST(ProgressBar, ANewPhaseRestartsTheClockButKeepsFailures) {
  Harness h;
  auto bar = h.Make({.terminal = false, .plain_every_cases = 1});
  h.now += seconds(10);
  bar.Update(1, 2, true, "a");
  h.now += seconds(10);
  bar.Update(2, 2, false, "b");  // phase 1 ends at t = 20 s
  h.out.clear();
  h.now += seconds(4);
  bar.Update(1, 4, false, "bi/a");  // phase 2 from t = 20 s: 4 s for 1 case, 3 left -> 0:12
  EXPECT_EQ(h.out, "progress: 1/4 cases done, failures so far: 1, elapsed 0:04, about 0:12 left\n");
  EXPECT_EQ(bar.failures(), 1u);
}

}  // namespace
}  // namespace sampcheck::cli
