// SPDX-License-Identifier: Apache-2.0
// Batch invariance and reproducibility (harness/batch_invariance.h,
// docs/spec/batch_invariance.md).
#include "harness/batch_invariance.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>

#include "core/exception_text.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "golden/case_random.h"

namespace sampcheck::harness {

namespace {

// "[B]", "[B, V]": the catalogue's per-row shapes ("[Bm, W]", "[N]" are not).
bool PerRowShape(const std::string& shape) {
  return shape.size() >= 3 && shape[0] == '[' && shape[1] == 'B' && (shape[2] == ']' || shape[2] == ',');
}

const TensorSpec* FindSpec(const std::vector<TensorSpec>& specs, const std::string& name) {
  for (const auto& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

struct RowRef {
  const Case* source;
  std::int64_t row;
  // An unseeded neighbour: its counter-based noise key (catalogue roles seed and position)
  // comes from this other pool row, different in every batch, as a request without a seed
  // draws from a batch-global generator whose state differs from run to run. Such a row is
  // never checked. (Noise tensors such as q are not swapped: a row's q may hold 0 where its
  // own logits are -inf, which is invalid under another row's logits.)
  const Case* noise_source = nullptr;
  std::int64_t noise_row = 0;
};

bool NoiseRole(Role r) { return r == Role::kSeed || r == Role::kPosition; }

std::vector<std::int64_t> Trailing(const Tensor& t) { return {t.shape().begin() + 1, t.shape().end()}; }

// Same stage, profile and params, and inputs of the same names, dtypes and trailing shapes:
// rows of the two cases can share a batch.
bool Compatible(const Case& a, const Case& b) {
  if (a.stage != b.stage || a.profile != b.profile || a.params != b.params || a.inputs.size() != b.inputs.size()) return false;
  for (const auto& [name, t] : a.inputs) {
    auto it = b.inputs.find(name);
    if (it == b.inputs.end() || it->second.dtype() != t.dtype() || Trailing(it->second) != Trailing(t)) return false;
  }
  return true;
}

Tensor GatherRows(const std::vector<RowRef>& rows, const std::string& name, bool noise) {
  const Tensor& first = rows.front().source->inputs.at(name);
  Shape shape = first.shape();
  shape[0] = static_cast<std::int64_t>(rows.size());
  Tensor out = Tensor::Uninitialized(first.dtype(), shape);
  const std::size_t row_bytes = first.dim(0) > 0 ? first.nbytes() / static_cast<std::size_t>(first.dim(0)) : 0;
  auto dst = out.bytes();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool swapped = noise && rows[i].noise_source != nullptr;
    const Case* source = swapped ? rows[i].noise_source : rows[i].source;
    const std::int64_t row = swapped ? rows[i].noise_row : rows[i].row;
    const auto src = source->inputs.at(name).bytes();
    if (row_bytes) std::memcpy(dst.data() + i * row_bytes, src.data() + static_cast<std::size_t>(row) * row_bytes, row_bytes);
  }
  return out;
}

std::span<const std::byte> RowBytes(const Tensor& t, std::int64_t row) {
  const std::size_t row_bytes = t.nbytes() / static_cast<std::size_t>(t.dim(0));
  return t.bytes().subspan(static_cast<std::size_t>(row) * row_bytes, row_bytes);
}

// One batch of the check: the rows it holds, the case built from them, and its label.
struct PlannedBatch {
  std::vector<RowRef> rows;
  std::string what;
  Case batch;
};

Case BuildBatch(const Case& c, const std::vector<RowRef>& rows, const std::string& what) {
  Case batch;
  batch.id = c.id + " [" + what + "]";
  batch.stage = c.stage;
  batch.profile = c.profile;
  batch.params = c.params;
  const StageInfo* info = FindStage(c.stage);
  for (const auto& [name, t] : c.inputs) {
    const TensorSpec* spec = info ? FindSpec(info->inputs, name) : nullptr;
    batch.inputs.emplace(name, GatherRows(rows, name, spec && NoiseRole(spec->role)));
  }
  return batch;
}

// Every row of `c` in the batch must reproduce its reference; returns the first difference.
std::optional<std::string> CheckBatch(const Case& c, const TensorMap& reference, const PlannedBatch& planned,
                                      const Backend::CaseOutcome& outcome) {
  const auto& rows = planned.rows;
  const std::string& what = planned.what;
  if (!outcome.error.empty()) return what + ": the backend failed: " + outcome.error;
  const TensorMap& out = outcome.outputs;
  for (const auto& [name, expected] : reference) {
    auto it = out.find(name);
    if (it == out.end()) return what + ": output '" + name + "' is missing";
    if (it->second.rank() < 1 || it->second.dim(0) != static_cast<std::int64_t>(rows.size()) ||
        it->second.dtype() != expected.dtype() || Trailing(it->second) != Trailing(expected)) {
      return what + ": output '" + name + "' has shape " + ShapeString(it->second.shape()) + " (" +
             std::string(DTypeName(it->second.dtype())) + ")";
    }
    for (std::size_t slot = 0; slot < rows.size(); ++slot) {
      if (rows[slot].source != &c || rows[slot].noise_source != nullptr) continue;
      const auto got = RowBytes(it->second, static_cast<std::int64_t>(slot));
      const auto want = RowBytes(expected, rows[slot].row);
      if (!std::equal(got.begin(), got.end(), want.begin(), want.end())) {
        return what + ": row " + std::to_string(rows[slot].row) + " of the case, at slot " + std::to_string(slot) +
               " of " + std::to_string(rows.size()) + ", gives a different '" + name + "' than in the case's own batch";
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bool RowSeparable(const Case& c, std::string* why) {
  const auto say = [&](const std::string& s) {
    if (why) *why = s;
    return false;
  };
  const StageInfo* info = FindStage(c.stage);
  if (!info) return say("unknown stage '" + c.stage + "'");
  std::int64_t rows = -1;
  for (const auto& [name, t] : c.inputs) {
    const TensorSpec* spec = FindSpec(info->inputs, name);
    if (!spec) return say("input '" + name + "' is not in the catalogue entry of " + c.stage);
    if (!PerRowShape(spec->shape)) return say("input '" + name + "' " + spec->shape + " is not per row");
    if (t.rank() < 1) return say("input '" + name + "' is a scalar");
    if (rows >= 0 && t.dim(0) != rows) return say("inputs disagree on the batch size");
    rows = t.dim(0);
  }
  for (const auto& spec : info->outputs) {
    if (!PerRowShape(spec.shape)) return say("output '" + spec.name + "' " + spec.shape + " is not per row");
  }
  if (rows < 1) return say("the case has no rows");
  return true;
}

namespace {

// One check's batches, planned before anything runs (they depend on the seed only, never on
// outputs).
struct CheckPlan {
  bool runnable = false;         // false: `result` says why the case is not checked
  InvarianceResult result;
  std::vector<PlannedBatch> planned;
  std::size_t input_bytes = 0;   // of every planned batch, to bound what a group holds
};

CheckPlan Plan(const Case& c, const std::vector<const Case*>& neighbours, const InvarianceOptions& options) {
  CheckPlan plan;
  if (!RowSeparable(c, &plan.result.reason)) return plan;
  plan.runnable = true;
  const std::int64_t rows = c.inputs.begin()->second.dim(0);
  std::vector<RowRef> pool;
  for (std::int64_t r = 0; r < rows; ++r) pool.push_back({&c, r});
  for (const Case* n : neighbours) {
    if (n == &c || !Compatible(c, *n)) continue;
    for (std::int64_t r = 0; r < n->inputs.begin()->second.dim(0); ++r) pool.push_back({n, r});
  }
  SplitMix64 rng(golden::CaseSeed(options.seed, c.id));
  // A stream of its own, so the batches (slots, fillers) are those of the check without
  // unseeded neighbours: a failure found before still reproduces.
  SplitMix64 noise_rng(golden::CaseSeed(options.seed ^ 0x6e6f6973656e6262ULL, c.id));
  const bool has_noise = [&] {
    const StageInfo* info = FindStage(c.stage);
    for (const auto& [name, t] : c.inputs) {
      const TensorSpec* spec = info ? FindSpec(info->inputs, name) : nullptr;
      if (spec && NoiseRole(spec->role)) return true;
    }
    return false;
  }();
  auto add = [&](std::vector<RowRef> batch_rows, std::string what) {
    Case batch = BuildBatch(c, batch_rows, what);
    plan.planned.push_back({std::move(batch_rows), std::move(what), std::move(batch)});
  };
  for (const std::int64_t size : options.batch_sizes) {
    if (size < 1) continue;
    if (size == 1) {
      for (std::int64_t r = 0; r < rows; ++r) add({{&c, r}}, "row " + std::to_string(r) + " alone");
      continue;
    }
    // Up to half of each batch holds the case's rows; random pool rows fill the rest; then the
    // slots are shuffled (Fisher-Yates on the SplitMix64 stream).
    const std::int64_t per_batch = std::max<std::int64_t>(1, size / 2);
    for (std::int64_t first = 0; first < rows; first += per_batch) {
      std::vector<RowRef> batch;
      for (std::int64_t r = first; r < std::min(rows, first + per_batch); ++r) batch.push_back({&c, r});
      while (static_cast<std::int64_t>(batch.size()) < size) {
        // A pool row of the case itself is checked like the others: a row repeated in one
        // batch must give its result in both slots.
        RowRef filler = pool[static_cast<std::size_t>(rng.Below(pool.size()))];
        if (options.unseeded_neighbours && has_noise && noise_rng.Below(2) == 1) {
          const RowRef& from = pool[static_cast<std::size_t>(noise_rng.Below(pool.size()))];
          filler.noise_source = from.source;
          filler.noise_row = from.row;
        }
        batch.push_back(filler);
      }
      for (std::size_t i = batch.size() - 1; i > 0; --i) std::swap(batch[i], batch[static_cast<std::size_t>(rng.Below(i + 1))]);
      add(std::move(batch), "batch of " + std::to_string(size) + " from row " + std::to_string(first));
    }
  }
  for (const auto& p : plan.planned) {
    for (const auto& [name, t] : p.batch.inputs) plan.input_bytes += t.nbytes();
  }
  return plan;
}

// The runs of one check, in the order Judge reads their outcomes: the case twice, then every
// planned batch.
void AppendRuns(const Case& c, const CheckPlan& plan, std::vector<const Case*>& runs) {
  runs.push_back(&c);
  runs.push_back(&c);
  for (const auto& p : plan.planned) runs.push_back(&p.batch);
}

InvarianceResult Judge(const Case& c, const CheckPlan& plan, std::span<const Backend::CaseOutcome> outcomes) {
  InvarianceResult result;
  const auto& planned = plan.planned;
  result.runs = static_cast<std::int64_t>(outcomes.size());
  for (int k = 0; k < 2; ++k) {
    if (!outcomes[static_cast<std::size_t>(k)].error.empty()) {
      result.reason = "the backend fails the case itself: " + outcomes[static_cast<std::size_t>(k)].error;
      return result;
    }
  }
  result.checked = true;
  const TensorMap& reference = outcomes[0].outputs;
  for (const auto& [name, t] : reference) {
    auto it = outcomes[1].outputs.find(name);
    if (it == outcomes[1].outputs.end() || !BitwiseEqual(it->second.view(), t.view())) {
      result.reason = "run to run: output '" + name + "' differs between two runs of the same case";
      return result;
    }
  }
  for (std::size_t i = 0; i < planned.size(); ++i) {
    if (auto why = CheckBatch(c, reference, planned[i], outcomes[i + 2])) {
      result.reason = std::move(*why);
      return result;
    }
  }
  result.passed = true;
  return result;
}

// A group runs together up to this many bytes of planned batch inputs (a few golden cases at
// V = 128256 each plan tens of MB), so the memory a group holds stays bounded.
constexpr std::size_t kGroupInputBytes = std::size_t{64} << 20;

}  // namespace

InvarianceResult CheckBatchInvariance(Backend& backend, const Case& c, const std::vector<const Case*>& neighbours,
                                      const InvarianceOptions& options) {
  const CheckPlan plan = Plan(c, neighbours, options);
  if (!plan.runnable) return plan.result;
  std::vector<const Case*> runs;
  AppendRuns(c, plan, runs);
  std::vector<Backend::CaseOutcome> outcomes;
  InvarianceResult result;
  try {
    outcomes = backend.RunBatch(c.stage, runs, {});
  } catch (const std::exception& e) {
    result.reason = "the backend fails the case itself: " + ExceptionText(e);
    return result;
  }
  result.runs = static_cast<std::int64_t>(runs.size());
  if (outcomes.size() != runs.size()) {
    result.reason = "the backend returned " + std::to_string(outcomes.size()) + " outcomes for " +
                    std::to_string(runs.size()) + " cases";
    return result;
  }
  return Judge(c, plan, outcomes);
}

std::vector<InvarianceResult> CheckBatchInvarianceTogether(Backend& backend, const std::vector<const Case*>& cases,
                                                           const std::vector<const Case*>& neighbours,
                                                           const std::vector<InvarianceOptions>& options) {
  if (options.size() != cases.size()) throw std::logic_error("CheckBatchInvarianceTogether: one option set per case");
  std::vector<InvarianceResult> results(cases.size());
  std::size_t next = 0;
  while (next < cases.size()) {
    // A group: consecutive cases of one stage, up to kGroupInputBytes of planned inputs.
    std::vector<std::size_t> members;
    std::vector<CheckPlan> plans;
    std::size_t bytes = 0;
    for (; next < cases.size(); ++next) {
      if (!members.empty() && (cases[next]->stage != cases[members.front()]->stage || bytes >= kGroupInputBytes)) break;
      CheckPlan plan = Plan(*cases[next], neighbours, options[next]);
      if (!plan.runnable) {
        results[next] = std::move(plan.result);
        continue;
      }
      bytes += plan.input_bytes;
      members.push_back(next);
      plans.push_back(std::move(plan));
    }
    if (members.empty()) continue;
    std::vector<const Case*> runs;
    for (std::size_t m = 0; m < members.size(); ++m) AppendRuns(*cases[members[m]], plans[m], runs);
    std::vector<Backend::CaseOutcome> outcomes;
    bool answered = true;
    try {
      outcomes = backend.RunBatch(cases[members.front()]->stage, runs, {});
    } catch (const std::exception&) {
      answered = false;
    }
    answered = answered && outcomes.size() == runs.size() &&
               std::all_of(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.error.empty(); });
    if (!answered) {
      // A failure is judged exactly as check by check: which check it belongs to, and its
      // message (a time limit, a crash), depend on what else shared the call.
      for (const std::size_t m : members) results[m] = CheckBatchInvariance(backend, *cases[m], neighbours, options[m]);
      continue;
    }
    std::size_t first = 0;
    for (std::size_t m = 0; m < members.size(); ++m) {
      const std::size_t count = 2 + plans[m].planned.size();
      results[members[m]] = Judge(*cases[members[m]], plans[m], std::span(outcomes).subspan(first, count));
      first += count;
    }
  }
  return results;
}

}  // namespace sampcheck::harness
