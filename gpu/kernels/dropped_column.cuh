// SPDX-License-Identifier: Apache-2.0
#pragma once
// A dropped column of a row sampling_filters writes (docs/spec/filters.md#sampling_filters, its
// outputs `logits` and `probs`): the filtered logit is -inf and its probability +0, the
// probability of -inf (exp(-inf - M) / s = +0, docs/spec/filters.md "Work on the survivors
// only").
//
// Contract: StoreDroppedColumn(out, probs, i) stores -inf to out[i] and +0 to probs[i]. The paths
// that write whole rows (the survivors' lanes, gpu/kernels/sampling_filters_slices.cuh; warp 0's
// survivor steps, gpu/kernels/sampling_filters_in_warp.cuh) store every dropped column through
// it; the partition path writes out and probs in different reads of the row, each with its own
// select (gpu/kernels/sampling_filters_on_partition.cuh).
// Example: a row of top-k 1 over {1, 3} stores out[0] = -inf, probs[0] = +0.

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

template <class Arr>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void StoreDroppedColumn(Arr out, Arr probs, std::int64_t i) {
  out.Store(i, NegativeInfinity());
  probs.Store(i, 0.0f);
}

}  // namespace sampcheck::gpu
