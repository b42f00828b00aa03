// SPDX-License-Identifier: Apache-2.0
// Report-as-you-go (reports/partial_report.h): report.json, whenever written, equals the full
// writer's output for the cases so far with "complete": false; the journal holds every case;
// rewrites are few (linear total cost); SIGKILL at any point leaves a valid partial report;
// invalid UTF-8 in a reason becomes U+FFFD; Finish writes "complete": true.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "reports/partial_report.h"

namespace sampcheck::reports {
namespace {

std::filesystem::path FreshDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("sampcheck_partial_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<std::string> JournalLines(const std::filesystem::path& dir) {
  std::ifstream in(dir / kReportJournalName);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

CaseResult NumberedCase(std::size_t i) {
  return {"greedy/case_" + std::to_string(i) + "/canonical", "greedy", "canonical", "exact",
          i % 3 == 0 ? Verdict::kFail : Verdict::kPass, i % 3 == 0 ? "output 'token': mismatch" : "",
          std::nullopt};
}

TEST(PartialReport, EveryWriteEqualsTheFullWriterAndFinishCompletes) {
  const auto dir = FreshDir("equal");
  const RunInfo run{"plugin:x.so", "golden/v1"};
  std::vector<CaseResult> results = {
      {"greedy/edges/canonical", "greedy", "canonical", "exact", Verdict::kPass, "", std::nullopt},
      {"greedy/single_column/canonical", "greedy", "canonical", "exact", Verdict::kFail,
       "backend process crashed with SIGSEGV (segmentation fault) while running this case", std::nullopt},
      {"top_p/x/vllm", "top_p", "vllm", "exact", Verdict::kSkip, "not supported \"quoted\"\n", std::nullopt},
  };
  auto& statistics = results[2].statistics.emplace();
  statistics.n = 3;
  statistics.effect = EffectSize{"TV", 0.25, 0.125, 0.5, 0.99};
  statistics.top_bins.push_back({"token 1", 2, 1.5, 0.25});
  PartialReport partial(dir, run);
  EXPECT_EQ(ReadWholeFile(dir / "report.json"), ReportToJson(run, {}, false).dump(2) + "\n");
  std::vector<CaseResult> so_far;
  for (const auto& r : results) {
    const std::size_t writes = partial.writes();
    partial.Add(r);
    so_far.push_back(r);
    const std::string full = ReportToJson(run, so_far, false).dump(2) + "\n";
    EXPECT_EQ(partial.Text(), full);
    if (partial.writes() > writes) {
      EXPECT_EQ(ReadWholeFile(dir / "report.json"), full);
    }
  }
  partial.Flush();
  EXPECT_EQ(ReadWholeFile(dir / "report.json"), ReportToJson(run, so_far, false).dump(2) + "\n");
  EXPECT_EQ(nlohmann::json::parse(ReadWholeFile(dir / "report.json"))["complete"], false);
  const auto journal = JournalLines(dir);
  ASSERT_EQ(journal.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(journal[1])["id"], "greedy/single_column/canonical");
  partial.Finish(results);
  const auto final_report = nlohmann::json::parse(ReadWholeFile(dir / "report.json"));
  EXPECT_EQ(final_report["complete"], true);
  EXPECT_EQ(final_report["summary"]["cases"], 3);
  EXPECT_FALSE(std::filesystem::exists(dir / kReportJournalName));
  std::filesystem::remove_all(dir);
}

// Input class: many cases. A rewrite per case made a run of n cases cost O(n^2) (8,960 cases:
// 92.8 s against 0.61 s without the report). The schedule allows a rewrite after 1, 2, 4, ...
// cases (log2(n) + 1 of them) plus one per second of run time at most; 20,000 cases take
// well under 20 s here, so more than log2(n) + 2 + 20 + the seconds elapsed is a regression.
TEST(PartialReport, ManyCasesCostFewRewrites) {
  const auto dir = FreshDir("many");
  constexpr std::size_t kCases = 20000;
  const auto start = std::chrono::steady_clock::now();
  PartialReport partial(dir, {"reference", "golden/v1"});
  for (std::size_t i = 0; i < kCases; ++i) partial.Add(NumberedCase(i));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double bound = std::log2(static_cast<double>(kCases)) + 2 + std::ceil(seconds);
  EXPECT_LE(static_cast<double>(partial.writes()), bound) << "after " << seconds << " s";
  EXPECT_EQ(JournalLines(dir).size(), kCases);
  // report.json is a valid partial report of a prefix of the cases.
  const auto report = nlohmann::json::parse(ReadWholeFile(dir / "report.json"));
  EXPECT_EQ(report["complete"], false);
  EXPECT_LE(report["cases"].size(), kCases);
  EXPECT_EQ(report["summary"]["cases"], report["cases"].size());
  std::filesystem::remove_all(dir);
}

// Input class: a run killed with SIGKILL at any moment. Twenty kills at delays spread over the
// first ~60 ms (the empty report, the first rewrites, and later ones all get hit): every time,
// report.json parses, says "complete": false, and its summary counts its cases; every whole
// journal line parses, and the journal holds at least the report's cases.
TEST(PartialReport, SigkillAtAnyPointLeavesAValidPartialReport) {
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto dir = FreshDir("kill" + std::to_string(round));
    std::filesystem::create_directories(dir);
    // A report from an earlier run must be replaced, never mixed in.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        PartialReport partial(dir, {"reference", "golden/v1"});
        for (std::size_t i = 0;; ++i) partial.Add(NumberedCase(i));
      } catch (...) {
      }
      ::_exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(3000 * round + 200));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    if (!std::filesystem::exists(dir / "report.json")) {
      // Killed before the constructor's first write: nothing claims to be a report.
      std::filesystem::remove_all(dir);
      continue;
    }
    const auto report = nlohmann::json::parse(ReadWholeFile(dir / "report.json"), nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << "report.json is not valid JSON";
    EXPECT_EQ(report["complete"], false);
    EXPECT_EQ(report["summary"]["cases"], report["cases"].size());
    const auto lines = JournalLines(dir);
    std::size_t whole = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const auto line = nlohmann::json::parse(lines[i], nullptr, false);
      if (i + 1 < lines.size()) {
        EXPECT_FALSE(line.is_discarded()) << "journal line " << i;
      }
      whole += !line.is_discarded();
    }
    EXPECT_GE(whole, report["cases"].size());
    std::filesystem::remove_all(dir);
  }
}

// Input class: a reason that is not valid UTF-8 (a backend's raw bytes). The writer used to
// abort (json type_error.316); now the byte becomes U+FFFD and the other reasons stay as they are.
TEST(PartialReport, InvalidUtf8ReasonBecomesReplacementCharacter) {
  const auto dir = FreshDir("utf8");
  PartialReport partial(dir, {"exec:x", "golden/v1"});
  partial.Add({"a/x/canonical", "greedy", "canonical", "exact", Verdict::kFail, "bad \xff\xfe byte", std::nullopt});
  partial.Add({"b/x/canonical", "greedy", "canonical", "exact", Verdict::kFail, "plain reason", std::nullopt});
  partial.Flush();
  const auto report = nlohmann::json::parse(ReadWholeFile(dir / "report.json"));
  EXPECT_EQ(report["cases"][0]["reason"], "bad \xEF\xBF\xBD\xEF\xBF\xBD byte");
  EXPECT_EQ(report["cases"][1]["reason"], "plain reason");
  const std::vector<CaseResult> all = {
      {"a/x/canonical", "greedy", "canonical", "exact", Verdict::kFail, "bad \xff byte", std::nullopt}};
  partial.Finish(all);
  EXPECT_EQ(nlohmann::json::parse(ReadWholeFile(dir / "report.json"))["cases"][0]["reason"], "bad \xEF\xBF\xBD byte");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sampcheck::reports
