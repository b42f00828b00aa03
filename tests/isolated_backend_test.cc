// SPDX-License-Identifier: Apache-2.0
// Fault isolation (backends/isolated_backend.h) and child processes
// (backends/child_process.h), with an in-process fake backend whose faults are chosen by the
// case id: each fault fails exactly its case with a reason naming it, cases before it keep
// their outcome and cases after it run in a fresh child.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "backends/child_process.h"
#include "backends/isolated_backend.h"
#include "core/error.h"

namespace sampcheck::backends {
namespace {

// Echoes input "x" as output "y" plus the process id it ran in (output "pid"), or misbehaves
// as its case id says.
class FaultyBackend final : public Backend {
 public:
  std::string Name() const override { return "faulty"; }
  std::vector<std::string> SupportedStages() const override { return {"greedy"}; }
  TensorMap Run(const std::string&, const Case& c) override {
    if (c.id == "segfault") ::raise(SIGSEGV);
    if (c.id == "abort") std::abort();
    if (c.id == "exit") std::_Exit(3);
    if (c.id == "hang") {
      for (;;) ::pause();
    }
    if (c.id == "throw") throw InputError("bad case");
    if (c.id == "huge_error") throw InputError(std::string(std::size_t{64} << 20, 'e'));
    if (c.id == "prints") {
      std::printf("FAIL planted/by/the/plugin\n0 passed, 0 failed\n");
      std::fflush(stdout);
    }
    TensorMap out;
    out.emplace("y", c.inputs.at("x"));
    out.emplace("pid", Tensor::FromValues<std::int64_t>(DType::kI64, {}, {::getpid()}));
    return out;
  }
  StageCapabilities Capabilities(const std::string&) const override { return {.count_draws = true}; }
  Tensor CountDraws(const std::string&, const Case& c, std::int64_t draws, std::uint64_t) override {
    if (c.id == "segfault") ::raise(SIGSEGV);
    return Tensor::FromValues<std::int64_t>(DType::kI64, {1, 2}, {draws, 0});
  }
};

Case MakeCase(const std::string& id, float value) {
  Case c;
  c.id = id;
  c.stage = "greedy";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("x", Tensor::FromValues<float>(DType::kF32, {1}, {value}));
  return c;
}

TEST(IsolatedBackend, EachFaultFailsItsCaseWithItsReasonAndTheGroupGoesOn) {
  IsolatedBackend backend(std::make_unique<FaultyBackend>(), 0.5);
  const std::vector<Case> cases = {MakeCase("ok0", 1.0f), MakeCase("segfault", 0), MakeCase("ok1", 2.0f),
                                   MakeCase("abort", 0), MakeCase("exit", 0), MakeCase("hang", 0),
                                   MakeCase("throw", 0), MakeCase("ok2", 3.0f)};
  std::vector<const Case*> pointers;
  for (const auto& c : cases) pointers.push_back(&c);
  const auto outcomes = backend.RunBatch("greedy", pointers, {});
  ASSERT_EQ(outcomes.size(), cases.size());
  EXPECT_EQ(outcomes[1].error, "backend process crashed with SIGSEGV (segmentation fault) while running this case");
  EXPECT_EQ(outcomes[3].error, "backend process aborted (SIGABRT) while running this case");
  EXPECT_EQ(outcomes[4].error, "backend process exited with status 3 while running this case");
  EXPECT_EQ(outcomes[5].error, "timed out after 0.5 s");
  EXPECT_EQ(outcomes[6].error, "bad case");
  const float want[] = {1.0f, 2.0f, 3.0f};
  int k = 0;
  std::set<std::int64_t> pids;
  for (std::size_t i : {0u, 2u, 7u}) {
    ASSERT_EQ(outcomes[i].error, "") << i;
    EXPECT_EQ(outcomes[i].outputs.at("y").data<float>()[0], want[k++]);
    pids.insert(outcomes[i].outputs.at("pid").data<std::int64_t>()[0]);
  }
  // ok0 ran in the first child, ok1 in the one started after the segfault, ok2 after the hang.
  EXPECT_EQ(pids.size(), 3u);
  EXPECT_EQ(pids.count(::getpid()), 0u);
}

TEST(IsolatedBackend, RunThrowsTheReasonAndCountDrawsRunsInAChild) {
  IsolatedBackend backend(std::make_unique<FaultyBackend>(), 5.0);
  EXPECT_EQ(backend.Run("greedy", MakeCase("ok", 4.0f)).at("y").data<float>()[0], 4.0f);
  try {
    backend.Run("greedy", MakeCase("segfault", 0));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("SIGSEGV"), std::string::npos);
  }
  EXPECT_EQ(backend.CountDraws("greedy", MakeCase("ok", 0), 7, 1).data<std::int64_t>()[0], 7);
  EXPECT_THROW(backend.CountDraws("greedy", MakeCase("segfault", 0), 7, 1), InputError);
  EXPECT_THROW(IsolatedBackend(std::make_unique<FaultyBackend>(), 0.0), InputError);
}

// A sequence runs in one child, its cases made there; an error of make_case or of a case is
// that case's outcome, a fault starts a fresh child for the rest, and on_outcome returning
// false stops the sequence (no case after it is handed back).
TEST(IsolatedBackend, RunSequenceRunsInOneChildAndStopsWhenAsked) {
  IsolatedBackend backend(std::make_unique<FaultyBackend>(), 5.0);
  const std::vector<std::string> ids = {"ok", "ok", "make_fails", "ok", "segfault", "ok", "throw", "ok", "ok"};
  auto make = [&](std::size_t i) {
    if (ids[i] == "make_fails") throw InputError("cannot make case " + std::to_string(i));
    return MakeCase(ids[i], static_cast<float>(i));
  };
  std::vector<std::size_t> seen;
  std::vector<Backend::CaseOutcome> outcomes;
  backend.RunSequence("greedy", ids.size(), make, [&](std::size_t i, const Backend::CaseOutcome& o) {
    seen.push_back(i);
    outcomes.push_back(o);
    return ids[i] != "throw";
  });
  ASSERT_EQ(seen, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(outcomes[2].error, "cannot make case 2");
  EXPECT_EQ(outcomes[4].error, "backend process crashed with SIGSEGV (segmentation fault) while running this case");
  EXPECT_EQ(outcomes[6].error, "bad case");
  std::set<std::int64_t> before_crash, after_crash;
  for (std::size_t i : {0u, 1u, 3u}) {
    ASSERT_EQ(outcomes[i].error, "") << i;
    EXPECT_EQ(outcomes[i].outputs.at("y").data<float>()[0], static_cast<float>(i));
    before_crash.insert(outcomes[i].outputs.at("pid").data<std::int64_t>()[0]);
  }
  after_crash.insert(outcomes[5].outputs.at("pid").data<std::int64_t>()[0]);
  EXPECT_EQ(before_crash.size(), 1u);
  EXPECT_EQ(after_crash.size(), 1u);
  EXPECT_NE(*before_crash.begin(), *after_crash.begin());
  EXPECT_EQ(before_crash.count(::getpid()), 0u);
}

// A 64 MiB error message is cut in the child: it used to cross the pipe whole and be read
// into the parent (peak memory +64 MiB) before CapReason cut it. Counted, not timed: the
// parent's peak resident size grows by far less than the message.
TEST(IsolatedBackend, AHugeErrorIsCutBeforeItReachesTheParent) {
  IsolatedBackend backend(std::make_unique<FaultyBackend>(), 60.0);
  rusage before{};
  ::getrusage(RUSAGE_SELF, &before);
  const std::vector<Case> cases = {MakeCase("huge_error", 0)};
  const auto outcomes = backend.RunBatch("greedy", {&cases[0]}, {});
  rusage after{};
  ::getrusage(RUSAGE_SELF, &after);
  EXPECT_NE(outcomes[0].error.find("more bytes cut]"), std::string::npos);
  EXPECT_LT(outcomes[0].error.size(), 8192u);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 16 * 1024) << "KiB";  // ru_maxrss is in KiB
}

// What an isolated plugin prints goes to sampcheck's stderr: on stdout it could pass for a
// verdict or summary line.
TEST(IsolatedBackend, APluginsStdoutIsNotSampchecksStdout) {
  IsolatedBackend backend(std::make_unique<FaultyBackend>(), 60.0);
  const std::vector<Case> cases = {MakeCase("prints", 1.0f)};
  ::testing::internal::CaptureStdout();
  const auto outcomes = backend.RunBatch("greedy", {&cases[0]}, {});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(outcomes[0].error, "");
  EXPECT_EQ(out.find("FAIL planted"), std::string::npos) << out;
}

TEST(ChildProcess, DescribesHowAProcessEnded) {
  // waitpid statuses built as the kernel encodes them (exit code << 8; signal in the low bits).
  EXPECT_EQ(DescribeExit(0), "exited normally");
  EXPECT_EQ(DescribeExit(3 << 8), "exited with status 3");
  EXPECT_EQ(DescribeExit(SIGSEGV), "crashed with SIGSEGV (segmentation fault)");
  EXPECT_EQ(DescribeExit(SIGABRT), "aborted (SIGABRT)");
  EXPECT_EQ(DescribeExit(SIGKILL), "killed by SIGKILL");
  EXPECT_EQ(DescribeExit(SIGUSR1), "killed by signal " + std::to_string(SIGUSR1) + " (SIGUSR1)");
}

TEST(ChildProcess, FramesRoundTripAndEofIsSeen) {
  ForkedChild child([](int fd) {
    WriteFrame(fd, "hello");
    WriteFrame(fd, "");
  });
  bool timed_out = true;
  EXPECT_EQ(child.ReadFrame(5.0, &timed_out), std::optional<std::string>("hello"));
  EXPECT_EQ(child.ReadFrame(5.0, &timed_out), std::optional<std::string>(""));
  EXPECT_EQ(child.ReadFrame(5.0, &timed_out), std::nullopt);
  EXPECT_FALSE(timed_out);
  EXPECT_EQ(child.Finish(), "exited normally");
}

TEST(ChildProcess, ShellCommandOutputStatusAndTimeout) {
  const CommandResult ok = RunShellCommand("echo out; echo err >&2; exit 0", 10.0);
  EXPECT_TRUE(ok.succeeded());
  EXPECT_EQ(ok.output_tail, "out\nerr\n");
  const CommandResult failed = RunShellCommand("exit 4", 10.0);
  EXPECT_FALSE(failed.succeeded());
  EXPECT_EQ(failed.how_it_ended, "exited with status 4");
  // The time-out kills the process group: the background sleep does not keep the pipe open.
  const CommandResult slow = RunShellCommand("sleep 30 & sleep 30", 0.3);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_EQ(slow.how_it_ended, "timed out after 0.3 s");
}

}  // namespace
}  // namespace sampcheck::backends
