// SPDX-License-Identifier: Apache-2.0
// A statistical case's draws through an isolated backend (docs/spec/harness.md "Draws through
// Run", backends/isolated_backend.h): the harness's batches of one case run in one child
// process, with the same counts and verdicts as batch by batch in this process, and a crash or
// a hang in any batch still fails the case with the fault named. Each Run of the wrapped
// backend appends the process id it ran in to a log file, so the test counts the batches and
// the children that ran them; the known answers are the batch arithmetic of
// CountDrawsThroughRun (draw_harness.h: batches of 2^21 / (rows V) draws) and the
// in-process run.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/isolated_backend.h"
#include "core/error.h"
#include "harness/draw_harness.h"
#include "harness/stat_cases/stat_cases.h"
#include "reference/reference_backend.h"
#include "reports/statistics_json.h"
#include "tests/support/draw_batches_case.h"

namespace sampcheck::statistical {
namespace {

// The process ids the log holds, one per Run, in order.
std::vector<long> ReadLog(const std::string& path) {
  std::vector<long> pids;
  std::ifstream in(path);
  for (long pid; in >> pid;) pids.push_back(pid);
  return pids;
}

// The reference through Run only (no own randomness, no concurrent runs, like a plugin),
// logging each Run's process id to `log`; the Run that logs line fault_at (1-based, counted
// over every process; 0: none) does `fault`.
class LoggingRunBackend final : public Backend {
 public:
  enum class Fault { kNone, kSegfault, kHang };
  LoggingRunBackend(std::string log, Fault fault = Fault::kNone, int fault_at = 0)
      : log_(std::move(log)), fault_(fault), fault_at_(fault_at) {}
  std::string Name() const override { return "logging-run"; }
  std::vector<std::string> SupportedStages() const override { return ref_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override {
    if (!log_.empty()) {
      std::ofstream(log_, std::ios::app) << ::getpid() << "\n";
    }
    if (fault_at_ > 0 && ReadLog(log_).size() == static_cast<std::size_t>(fault_at_)) {
      if (fault_ == Fault::kSegfault) ::raise(SIGSEGV);
      if (fault_ == Fault::kHang) {
        for (;;) ::pause();
      }
    }
    return ref_.Run(stage, c);
  }

 private:
  std::string log_;
  Fault fault_;
  int fault_at_;
  reference::ReferenceBackend ref_;
};

// Forwards Run alone, so every batch takes its own Run: the isolated backend forks a child per
// batch, as the harness's batches reached it one Run each.
class RunOnlyForwarder final : public Backend {
 public:
  explicit RunOnlyForwarder(Backend& inner) : inner_(inner) {}
  std::string Name() const override { return inner_.Name(); }
  std::vector<std::string> SupportedStages() const override { return inner_.SupportedStages(); }
  StageCapabilities Capabilities(const std::string& stage) const override { return inner_.Capabilities(stage); }
  TensorMap Run(const std::string& stage, const Case& c) override { return inner_.Run(stage, c); }

 private:
  Backend& inner_;
};

class IsolatedDraws : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/isolated_draws_XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    log_ = dir_ + "/runs.log";
  }
  void TearDown() override {
    std::remove(log_.c_str());
    ::rmdir(dir_.c_str());
  }
  std::string dir_, log_;
};

// Batches of 512 draws (tests/support/draw_batches_case.h): 3 x 512 + 10 draws are 4 batches.
Case FourBatchesCase() { return testing::InverseCdfBatchesCase("four-batches"); }
constexpr std::int64_t kDraws = 3 * testing::kDrawsPerBatch + 10;
constexpr std::size_t kBatches = 4;

bool SameCounts(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::equal(a.data<std::int64_t>().begin(), a.data<std::int64_t>().end(),
                                              b.data<std::int64_t>().begin());
}

TEST_F(IsolatedDraws, OneChildRunsEveryBatchOfACaseWithTheInProcessCounts) {
  LoggingRunBackend in_process("");
  const Tensor want = CountDrawsThroughRun(in_process, FourBatchesCase(), kDraws, 77);

  backends::IsolatedBackend isolated(std::make_unique<LoggingRunBackend>(log_), 60.0);
  const Tensor got = CountDrawsThroughRun(isolated, FourBatchesCase(), kDraws, 77);
  EXPECT_TRUE(SameCounts(got, want));
  const auto pids = ReadLog(log_);
  ASSERT_EQ(pids.size(), kBatches);
  EXPECT_EQ(std::set<long>(pids.begin(), pids.end()).size(), 1u) << "children for " << kBatches << " batches";
  EXPECT_NE(pids[0], static_cast<long>(::getpid()));

  // Batch by batch (one Run each), the same counts from one child per batch.
  std::remove(log_.c_str());
  RunOnlyForwarder per_batch(isolated);
  EXPECT_TRUE(SameCounts(CountDrawsThroughRun(per_batch, FourBatchesCase(), kDraws, 77), want));
  const auto per_batch_pids = ReadLog(log_);
  ASSERT_EQ(per_batch_pids.size(), kBatches);
  EXPECT_EQ(std::set<long>(per_batch_pids.begin(), per_batch_pids.end()).size(), kBatches);
}

// The error of counting FourBatchesCase's draws on `backend`, or "" when there is none.
std::string CountError(Backend& backend) {
  try {
    CountDrawsThroughRun(backend, FourBatchesCase(), kDraws, 77);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A crash in the 3rd batch fails the count with the crash named, and no batch runs after it.
TEST_F(IsolatedDraws, ACrashInABatchFailsTheCaseAndStopsItsDraws) {
  backends::IsolatedBackend isolated(std::make_unique<LoggingRunBackend>(log_, LoggingRunBackend::Fault::kSegfault, 3),
                                     60.0);
  EXPECT_EQ(CountError(isolated), "backend process crashed with SIGSEGV (segmentation fault) while running this case");
  EXPECT_EQ(ReadLog(log_).size(), 3u);
}

// The time limit is per batch, counted from the previous batch's outcome: a hang in the 2nd
// batch is cut after it and fails the case. 3 s, not less: the first batch's clock includes
// the child's start, which took over 1 s under AddressSanitizer on a loaded 2-core machine
// (2026-12-01), so a 1 s limit cut the first batch instead of the hang.
TEST_F(IsolatedDraws, AHangInABatchIsCutByTheTimeLimit) {
  backends::IsolatedBackend isolated(std::make_unique<LoggingRunBackend>(log_, LoggingRunBackend::Fault::kHang, 2), 3.0);
  EXPECT_EQ(CountError(isolated), "timed out after 3 s");
  EXPECT_EQ(ReadLog(log_).size(), 2u);
}

// Whole statistical cases: the same results, field for field, isolated and in process; one
// child per case; a crash fails its case, never a pass.
std::vector<StatCase> TwoCases() {
  std::vector<StatCase> out;
  for (auto& c : DrawStatCases()) {
    if (c.id == "stats/gumbel_max/masked_f16_v33/canonical" || c.id == "stats/gumbel_max/decay_v100/sglang") {
      out.push_back(std::move(c));
    }
  }
  EXPECT_EQ(out.size(), 2u);
  return out;
}

void ExpectSameResults(const std::vector<CaseResult>& got, const std::vector<CaseResult>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(want[i].id);
    EXPECT_EQ(got[i].id, want[i].id);
    EXPECT_EQ(got[i].verdict, want[i].verdict);
    EXPECT_EQ(got[i].reason, want[i].reason);
    ASSERT_EQ(got[i].statistics.has_value(), want[i].statistics.has_value());
    if (want[i].statistics) {
      EXPECT_EQ(reports::StatisticsToJson(*got[i].statistics), reports::StatisticsToJson(*want[i].statistics));
    }
  }
}

TEST_F(IsolatedDraws, StatisticalCasesGiveTheInProcessResultsFromOneChildEach) {
  const auto cases = TwoCases();
  LoggingRunBackend in_process("");
  const auto want = RunDrawHarness(in_process, cases);
  for (const auto& r : want) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;

  backends::IsolatedBackend isolated(std::make_unique<LoggingRunBackend>(log_), 60.0);
  ExpectSameResults(RunDrawHarness(isolated, cases), want);
  // Batches of 2^21 / V draws of the one row of each case (V = 33 and 100).
  std::size_t batches = 0;
  for (const auto& r : want) {
    if (r.id.ends_with("/L1")) {
      const std::int64_t per_batch = (std::int64_t{1} << 21) / (r.id.find("v33") != std::string::npos ? 33 : 100);
      batches += static_cast<std::size_t>((r.statistics->n + per_batch - 1) / per_batch);
    }
  }
  const auto pids = ReadLog(log_);
  EXPECT_EQ(pids.size(), batches);
  EXPECT_EQ(std::set<long>(pids.begin(), pids.end()).size(), 2u) << pids.size() << " batches";
}

TEST_F(IsolatedDraws, ACrashInAStatisticalCaseFailsItWithTheCrashNamed) {
  const auto cases = TwoCases();
  backends::IsolatedBackend isolated(std::make_unique<LoggingRunBackend>(log_, LoggingRunBackend::Fault::kSegfault, 1),
                                     60.0);
  const auto results = RunDrawHarness(isolated, cases);
  // The first case crashes in its first batch: one result, failed with the crash; the second
  // runs in a child of its own and passes.
  std::size_t crashed = 0;
  for (const auto& r : results) {
    if (r.id.starts_with(cases[0].id)) {
      ++crashed;
      EXPECT_EQ(r.verdict, Verdict::kFail);
      EXPECT_EQ(r.reason, "backend process crashed with SIGSEGV (segmentation fault) while running this case");
    } else {
      EXPECT_TRUE(r.id.starts_with(cases[1].id)) << r.id;
      EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
    }
  }
  EXPECT_EQ(crashed, 1u);
}

}  // namespace
}  // namespace sampcheck::statistical
