// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fault isolation (docs/spec/plugin_abi.md "Fault isolation"): runs another backend's cases
// in forked child processes, so a crash or a hang fails the case that caused it and the run
// goes on. `--isolate` (the default for plugin and exec backends).
//
// Contract:
// - RunBatch forks one child for the group; the child runs the cases in order and sends each
//   outcome back over a pipe as soon as it has it (outputs as safetensors bytes, or the error
//   message). Each case has `case_timeout_s` seconds, counted from the previous outcome.
// - When the child dies or is killed, the case it was running fails with a reason naming the
//   fault: "backend process crashed with SIGSEGV (segmentation fault) while running this
//   case", "... aborted (SIGABRT) ...", "... exited with status 3 ...", "timed out after
//   10 s"; a fresh child then runs the rest of the group. Cases already returned keep their
//   outcome.
// - RunSequence runs its cases the same way: one child for the whole sequence (a fresh one
//   after a fault, unless on_outcome stops there), each case made by make_case in the child
//   just before it runs and timed from the previous outcome like a RunBatch case. The draw
//   harness sends a statistical case's batches of draws this way: one child per case, not
//   one per batch.
// - Run is RunBatch of one case, throwing InputError with the reason. CountDraws and
//   CountDrawsRange run in a child the same way. Name, stages and capabilities
//   (core/stage_capabilities.h) are the wrapped backend's, but concurrent_runs is false.
// - The wrapped backend's state changes made in a child (caches, counters) are lost.
// Example: IsolatedBackend b(std::make_unique<PluginBackend>(path), 10.0);
//   b.RunBatch("greedy", {&ok, &crashing, &ok2}, {}) -> {outputs, "backend process crashed with
//   SIGSEGV ...", outputs}

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"

namespace sampcheck::backends {

inline constexpr double kDefaultCaseTimeoutSeconds = 60.0;

class IsolatedBackend final : public Backend {
 public:
  IsolatedBackend(std::unique_ptr<Backend> inner, double case_timeout_s);

  std::string Name() const override { return inner_->Name(); }
  std::vector<std::string> SupportedStages() const override { return inner_->SupportedStages(); }
  // The wrapped backend's, but no concurrent runs: each Run forks a child, one at a time.
  StageCapabilities Capabilities(const std::string& stage) const override {
    StageCapabilities caps = inner_->Capabilities(stage);
    caps.concurrent_runs = false;
    return caps;
  }
  TensorMap Run(const std::string& stage, const Case& c) override;
  std::vector<CaseOutcome> RunBatch(const std::string& stage, const std::vector<const Case*>& cases,
                                    const OutcomeCallback& on_outcome) override;
  void RunSequence(const std::string& stage, std::size_t count, const CaseMaker& make_case,
                   const SequenceCallback& on_outcome) override;
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override;
  Tensor CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw, std::int64_t draws,
                         std::uint64_t seed) override;

 private:
  // Runs cases [0, count) in children, `run_in_child(i)` giving case i's outcome in the child,
  // and hands each outcome to `on_outcome` in order (a fault's too); a fault starts a fresh
  // child for the cases after it, and on_outcome returning false ends the run.
  void RunInChildren(std::size_t count, const std::function<CaseOutcome(std::size_t)>& run_in_child,
                     const std::function<bool(std::size_t, CaseOutcome&&)>& on_outcome);
  // Runs `count` (one of inner_'s count calls) in a child and returns its counts.
  Tensor CountInChild(const std::function<Tensor()>& count);
  std::unique_ptr<Backend> inner_;
  double case_timeout_s_;
};

}  // namespace sampcheck::backends
