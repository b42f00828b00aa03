// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where slot s of a shared array sits when a warp reads and writes it both by rows (32
// neighbouring slots) and by columns (every 32nd slot of 32 rows): slot 32 w + j at 32 w + (j
// ^ (w mod 32)), its row's 32 columns permuted by the row. A row's 32 slots and a column's 32
// slots (rows 32 q .. 32 q + 31) then fall in 32 different words modulo 32: each warp access
// touches every bank once (32-bit words) or twice (64-bit: the two wavefronts of 256 bytes),
// where a column of the plain layout hits one bank 32 times. A permutation inside each row,
// so slots [0, 32 h) stay in [0, 32 h). Used by the canonical block reduction
// (gpu/block/block_reduce.cuh) and the sorting network's transposed levels
// (gpu/block/bitonic_sort.cuh); docs/gpu.md "Sorting networks and the canonical reduction".

#include "core/portability.h"
#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int SwizzledSlot(int s) { return s ^ ((s >> 5) & (kWarpSize - 1)); }

}  // namespace sampcheck::gpu
