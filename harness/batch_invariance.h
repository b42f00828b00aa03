// SPDX-License-Identifier: Apache-2.0
#pragma once
// Batch invariance and reproducibility of any backend (docs/spec/batch_invariance.md): each
// row's outputs must be bitwise independent of the batch size, the row's slot and the other
// rows' parameters, and identical from run to run.
//
// Contract:
// - A case is row-separable when the catalogue gives every input present and every output a
//   leading batch dimension "[B, ...]" (sparse lists such as logit_bias's bias_rows, or
//   token_bitmask's [Bm, W] with indices, are not). Only row-separable cases are checked.
// - Reference run: the case as given, twice (run-to-run reproducibility: bitwise equal).
// - Then, for each batch size N in `batch_sizes`, every row r of the case is placed in
//   batches of N rows at a random slot; the other slots are filled with rows drawn at random
//   from `neighbours` (cases of the same stage and profile whose inputs have the same names,
//   dtypes and trailing shapes — different parameters, greedy and random rows, masks) and
//   from the case itself (half of them, when `unseeded_neighbours`, with another pool row's
//   seed and position: unseeded requests, unchecked); each row's outputs must equal its
//   reference outputs bitwise. N = 1 runs every row alone. Batches are built from a SplitMix64 stream seeded by (seed, case
//   id): the same options give the same batches.
// - A backend that throws on a batch built from rows it accepted fails the check with its
//   message.
// - All runs of one check (the two reference runs, then every batch) go to the backend in
//   one Backend::RunBatch call, so an out-of-process backend answers a whole check in one
//   child process or command; `runs` counts them all. A failure is still reported as the
//   first difference in that order.
// - CheckBatchInvarianceTogether gives the results of CheckBatchInvariance on each case (with
//   its own options) from one RunBatch per group of consecutive cases of one stage (up to
//   64 MiB of batch inputs a group), so a backend that starts a process or imports a
//   framework per call pays it once per group, not once per case. When that call throws or
//   any of its runs fails, the group's checks are run again one by one, so a failing backend
//   is judged exactly as check by check (which check a failure belongs to, and its message,
//   would otherwise depend on the other cases in the call).
// Example: the pipeline case "pipeline/mixed/vllm" with 4 rows: 2 reference runs, 4 alone,
//   then batches of 2, 7 and 64 holding its rows among neighbours; 0 differences -> pass.

#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/case.h"

namespace sampcheck::harness {

struct InvarianceOptions {
  std::vector<std::int64_t> batch_sizes = {1, 2, 7, 64};
  std::uint64_t seed = 0x5eedba7c4;
  // Half of the filler rows (on a stream of their own) are unseeded neighbours: their noise
  // key (the catalogue's seed and position roles) is another pool row's, drawn anew for
  // every batch, as requests without a seed that draw from a batch-global generator
  // (vLLM's default generator beside per-request ones; SGLang's rows without sampling_seed).
  // They are not checked; the case's rows must still reproduce.
  bool unseeded_neighbours = true;
};

struct InvarianceResult {
  bool checked = false;  // false: not row-separable (reason says why)
  bool passed = false;
  std::string reason;    // the first difference, or why it was not checked
  std::int64_t runs = 0; // backend invocations
};

bool RowSeparable(const Case& c, std::string* why = nullptr);

InvarianceResult CheckBatchInvariance(Backend& backend, const Case& c, const std::vector<const Case*>& neighbours,
                                      const InvarianceOptions& options = {});

// One result per case, in order; `options` holds one entry per case.
std::vector<InvarianceResult> CheckBatchInvarianceTogether(Backend& backend, const std::vector<const Case*>& cases,
                                                           const std::vector<const Case*>& neighbours,
                                                           const std::vector<InvarianceOptions>& options);

}  // namespace sampcheck::harness
