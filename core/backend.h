// SPDX-License-Identifier: Apache-2.0
#pragma once
// The in-process backend interface (docs/architecture.md "Backends"): named tensors in, named tensors
// out. A backend declares the stages it supports and, per stage, its capabilities
// (core/stage_capabilities.h); `Run` receives a case (inputs, JSON parameters, profile) and
// returns the stage's outputs by name. It reports bad input by
// throwing (InputError or std::invalid_argument); the runner records the message as the
// case's failure reason.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/exception_text.h"
#include "core/stage_capabilities.h"

namespace sampcheck {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string Name() const = 0;
  virtual std::vector<std::string> SupportedStages() const = 0;
  virtual TensorMap Run(const std::string& stage, const Case& c) = 0;

  // What the backend declares about `stage` (core/stage_capabilities.h): its profiles, whether
  // it claims the outputs bit for bit, how it draws on its own, whether its statistical cases
  // are skipped. A backend that wraps another forwards the inner backend's whole struct.
  virtual StageCapabilities Capabilities(const std::string& /*stage*/) const { return {}; }

  // Own randomness (docs/spec/statistics.md), for stages whose Capabilities say count_draws:
  // draw `draws` tokens per row of a stochastic case with the backend's OWN randomness, seeded
  // by `seed`, and return the counts as an i64 tensor [rows, V] whose rows each sum to `draws`.
  // The case's noise inputs, if any, are absent: supplying them is the other way to test a draw
  // (noise as input, through Run).
  virtual Tensor CountDraws(const std::string& stage, const Case& /*c*/, std::int64_t /*draws*/,
                            std::uint64_t /*seed*/) {
    throw std::invalid_argument("backend '" + Name() + "' cannot draw stage '" + stage + "' with its own randomness");
  }

  // A backend's own noise is observable through the `noise` stage (docs/spec/noise.md): a
  // backend that lists it in SupportedStages gets the noise harness
  // (harness/noise_harness.h) through Run, like any stage. Gate on what a backend
  // declares, never on its name.

  // Sharded statistics (docs/spec/sharded_statistics.md), for stages whose Capabilities say
  // count_draws_range: the counts of draws [first_draw, first_draw + draws) of the stream whose
  // draw d is CountDraws' draw d (same stage, case and seed), so that the counts of disjoint
  // ranges add up to CountDraws over their union, bit for bit.
  virtual Tensor CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw, std::int64_t draws,
                                 std::uint64_t seed) {
    if (first_draw == 0) return CountDraws(stage, c, draws, seed);
    throw std::invalid_argument("backend '" + Name() + "' cannot draw stage '" + stage + "' from draw " +
                                std::to_string(first_draw));
  }

  // Plugin, exchange and isolated backends (docs/spec/plugin_abi.md, docs/spec/exchange.md).
  // Runs a group of cases of one stage and returns one outcome per case, in order: an
  // out-of-process backend runs the group in one child process or one command invocation.
  // A case's failure (a thrown error, a crash, a time-out) is its outcome's `error`, never an
  // exception, so one bad case does not lose the others. `on_outcome`, when set, is called
  // with each outcome as soon as it is known (so a report can be written as the run goes).
  // The default loops over Run.
  struct CaseOutcome {
    TensorMap outputs;
    std::string error;  // empty: success
  };
  using OutcomeCallback = std::function<void(std::size_t index, const CaseOutcome& outcome)>;
  virtual std::vector<CaseOutcome> RunBatch(const std::string& stage, const std::vector<const Case*>& cases,
                                            const OutcomeCallback& on_outcome) {
    std::vector<CaseOutcome> outcomes(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      try {
        outcomes[i].outputs = Run(stage, *cases[i]);
      } catch (const std::exception& e) {
        outcomes[i].error = ExceptionText(e);
        if (outcomes[i].error.empty()) outcomes[i].error = "backend threw an exception without a message";
      }
      if (on_outcome) on_outcome(i, outcomes[i]);
    }
    return outcomes;
  }

  // A sequence of cases of one stage made on demand (the draw harness's batches of one
  // statistical case, docs/spec/harness.md "Draws through Run"): case i is make_case(i), made
  // when it is about to run, so only one is in memory at a time. Outcomes reach `on_outcome`
  // in order as they are known; it returns false to stop the sequence there (the cases after
  // are not made). A failure of make_case or of the case (a thrown error, a crash, a time-out)
  // is the outcome's `error`, as in RunBatch. An out-of-process backend runs the sequence in
  // one child process, with each case's time limit counted from the previous outcome. The
  // default runs each case through Run in this process.
  using CaseMaker = std::function<Case(std::size_t index)>;
  using SequenceCallback = std::function<bool(std::size_t index, const CaseOutcome& outcome)>;
  virtual void RunSequence(const std::string& stage, std::size_t count, const CaseMaker& make_case,
                           const SequenceCallback& on_outcome) {
    for (std::size_t i = 0; i < count; ++i) {
      CaseOutcome outcome;
      try {
        outcome.outputs = Run(stage, make_case(i));
      } catch (const std::exception& e) {
        outcome.error = ExceptionText(e);
        if (outcome.error.empty()) outcome.error = "backend threw an exception without a message";
      }
      if (!on_outcome(i, outcome)) return;
    }
  }
};

}  // namespace sampcheck
