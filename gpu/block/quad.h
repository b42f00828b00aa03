// SPDX-License-Identifier: Apache-2.0
#pragma once
// Four consecutive 4-byte elements of a global array, read by one 16-byte load: the value of
// GlobalArray::Load4 on the host (gpu/emulator/emulator.h) and on the device
// (gpu/block/device_block.cuh); docs/gpu.md "Quad reads".

namespace sampcheck::gpu {

template <class T>
struct Quad {
  T v[4];
};

}  // namespace sampcheck::gpu
