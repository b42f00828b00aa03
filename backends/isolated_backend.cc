// SPDX-License-Identifier: Apache-2.0
// Fault isolation in child processes (backends/isolated_backend.h).
#include "backends/isolated_backend.h"

#include <span>

#include "backends/child_process.h"
#include "core/error.h"
#include "core/exception_text.h"
#include "core/input_limits.h"
#include "core/safetensors.h"

namespace sampcheck::backends {

namespace {

// Frame payload: one tag byte, then safetensors bytes (success) or the message (error).
constexpr char kOutputsTag = 'O';
constexpr char kErrorTag = 'E';

std::string EncodeOutcome(const Backend::CaseOutcome& o) {
  // Cut in the child: a backend's 300 MB message used to cross the pipe whole and be read into
  // the parent before CapReason cut it there.
  if (!o.error.empty()) return kErrorTag + CapReason(o.error);
  return kOutputsTag + SerializeSafetensors(o.outputs, {});
}

Backend::CaseOutcome DecodeOutcome(const std::string& frame) {
  Backend::CaseOutcome o;
  if (frame.empty() || (frame[0] != kOutputsTag && frame[0] != kErrorTag)) {
    o.error = "backend process sent a malformed outcome";
    return o;
  }
  if (frame[0] == kErrorTag) {
    o.error = CapReason(frame.substr(1));
    if (o.error.empty()) o.error = "backend failed without a message";
    return o;
  }
  try {
    const auto bytes = std::as_bytes(std::span(frame).subspan(1));
    o.outputs = ParseSafetensors(bytes, "outputs from the backend process").tensors;
  } catch (const std::exception& e) {
    o.error = ExceptionText(e);
  }
  return o;
}

std::string FaultReason(const std::string& how_it_ended, bool timed_out, double timeout_s,
                        const std::string& protocol_error) {
  if (timed_out) return "timed out after " + SecondsText(timeout_s);
  if (!protocol_error.empty()) return "backend process protocol error: " + protocol_error;
  if (how_it_ended == "exited normally") return "backend process exited before returning this case's outputs";
  return "backend process " + how_it_ended + " while running this case";
}

}  // namespace

IsolatedBackend::IsolatedBackend(std::unique_ptr<Backend> inner, double case_timeout_s)
    : inner_(std::move(inner)), case_timeout_s_(case_timeout_s) {
  if (!(case_timeout_s_ > 0)) throw InputError("the case time limit must be > 0 seconds");
}

TensorMap IsolatedBackend::Run(const std::string& stage, const Case& c) {
  auto outcomes = RunBatch(stage, {&c}, {});
  if (!outcomes[0].error.empty()) throw InputError(outcomes[0].error);
  return std::move(outcomes[0].outputs);
}

std::vector<Backend::CaseOutcome> IsolatedBackend::RunBatch(const std::string& stage,
                                                            const std::vector<const Case*>& cases,
                                                            const OutcomeCallback& on_outcome) {
  std::vector<CaseOutcome> outcomes(cases.size());
  RunInChildren(
      cases.size(),
      // One case at a time through the inner batch entry, so its own batching rules apply.
      [&](std::size_t i) { return inner_->RunBatch(stage, {cases[i]}, {}).at(0); },
      [&](std::size_t i, CaseOutcome&& outcome) {
        outcomes[i] = std::move(outcome);
        if (on_outcome) on_outcome(i, outcomes[i]);
        return true;
      });
  return outcomes;
}

void IsolatedBackend::RunSequence(const std::string& stage, std::size_t count, const CaseMaker& make_case,
                                  const SequenceCallback& on_outcome) {
  RunInChildren(
      count,
      [&](std::size_t i) {
        // Made in the child: the parent holds no case of the sequence, the child one at a time.
        CaseOutcome outcome;
        try {
          const Case c = make_case(i);
          outcome = inner_->RunBatch(stage, {&c}, {}).at(0);
        } catch (const std::exception& e) {
          outcome.error = ExceptionText(e);
          if (outcome.error.empty()) outcome.error = "backend threw an exception without a message";
        }
        return outcome;
      },
      [&](std::size_t i, CaseOutcome&& outcome) { return on_outcome(i, outcome); });
}

void IsolatedBackend::RunInChildren(std::size_t count, const std::function<CaseOutcome(std::size_t)>& run_in_child,
                                    const std::function<bool(std::size_t, CaseOutcome&&)>& on_outcome) {
  std::size_t next = 0;
  while (next < count) {
    const std::size_t first = next;
    ForkedChild child([&](int fd) {
      for (std::size_t i = first; i < count; ++i) {
        if (!WriteFrame(fd, EncodeOutcome(run_in_child(i)))) return;
      }
    });
    bool timed_out = false;
    for (; next < count; ++next) {
      auto frame = child.ReadFrame(case_timeout_s_, &timed_out);
      if (!frame) break;
      if (!on_outcome(next, DecodeOutcome(*frame))) {
        child.Stop();  // it is running the cases after this one
        return;
      }
    }
    if (next == count) {
      child.Finish();
      return;
    }
    const std::string how = child.Finish();
    CaseOutcome fault;
    fault.error = FaultReason(how, timed_out, case_timeout_s_, child.protocol_error());
    if (!on_outcome(next, std::move(fault))) return;
    ++next;  // the rest runs in a fresh child
  }
}

Tensor IsolatedBackend::CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) {
  return CountInChild([&] { return inner_->CountDraws(stage, c, draws, seed); });
}

Tensor IsolatedBackend::CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw,
                                        std::int64_t draws, std::uint64_t seed) {
  return CountInChild([&] { return inner_->CountDrawsRange(stage, c, first_draw, draws, seed); });
}

Tensor IsolatedBackend::CountInChild(const std::function<Tensor()>& count) {
  ForkedChild child([&](int fd) {
    CaseOutcome o;
    try {
      o.outputs.emplace("counts", count());
    } catch (const std::exception& e) {
      o.error = ExceptionText(e);
    }
    WriteFrame(fd, EncodeOutcome(o));
  });
  bool timed_out = false;
  auto frame = child.ReadFrame(case_timeout_s_, &timed_out);
  const std::string how = child.Finish();
  if (!frame) throw InputError(FaultReason(how, timed_out, case_timeout_s_, child.protocol_error()));
  CaseOutcome o = DecodeOutcome(*frame);
  if (!o.error.empty()) throw InputError(o.error);
  auto it = o.outputs.find("counts");
  if (it == o.outputs.end()) throw InputError("backend process returned no counts");
  return std::move(it->second);
}

}  // namespace sampcheck::backends
