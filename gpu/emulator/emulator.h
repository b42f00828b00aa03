// SPDX-License-Identifier: Apache-2.0
#pragma once
// The checking host emulator of the block model (gpu/block/block_model.h, docs/gpu.md "The
// emulator"): runs a kernel's blocks one after another, each phase for thread 0, 1, ..., n-1
// in turn, evaluates warp operations across the 32 lanes of each warp, and reports — with
// kernel, block, thread, array and index — what compute-sanitizer would:
//   race          a shared word written by one thread and read or written by another between
//                 the same two barriers;
//   out_of_bounds a shared or global Load/Store outside [0, size);
//   divergent     a barrier inside a phase that not every thread of the block reaches (and a
//                 barrier inside a phase at all: the model puts barriers between phases), a
//                 warp operation inside a phase;
//   uninitialised a shared word read before any thread wrote it.
// A faulty access never touches memory outside the arrays (an out-of-bounds Load returns T{},
// an out-of-bounds Store is dropped), so a run with violations still ends and reports them.
// Host only: no exceptions here either; Launch returns the violations and the caller decides.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace sampcheck::gpu {

inline constexpr int kWarpSize = 32;

struct Violation {
  enum class Kind { kRace, kOutOfBounds, kDivergentBarrier, kUninitialisedRead };
  Kind kind;
  std::string kernel;
  int block = 0;
  int thread = -1;      // -1: block-level code (every thread)
  std::string array;    // array name, or "barrier" / "warp op"
  std::int64_t index = 0;
  std::string detail;
  std::string Message() const;
};

const char* KindName(Violation::Kind kind);

struct LaunchReport {
  std::vector<Violation> violations;  // the first kMaxRecorded
  std::int64_t total = 0;             // every violation, recorded or not
  static constexpr std::size_t kMaxRecorded = 16;
  bool ok() const { return total == 0; }
  // Every recorded message, one per line, and how many were left out.
  std::string Summary() const;
};

namespace emu {

struct Thread {
  int x;  // threadIdx.x
  int lane() const { return x & (kWarpSize - 1); }
  int warp() const { return x / kWarpSize; }
};

class HostBlock;
namespace detail {
// The block whose code runs now (set by Launch): global arrays report through it.
HostBlock*& CurrentBlock();
}  // namespace detail

class HostBlock {
 public:
  HostBlock(const char* kernel, int index, int threads, LaunchReport* report);
  int index() const { return index_; }
  int threads() const { return threads_; }

  template <class F>
  void ForEachThread(F&& f) {
    BeginPhase();
    for (int t = 0; t < threads_; ++t) {
      current_ = t;
      f(Thread{t});
    }
    EndPhase();
  }
  void Sync();

  // For the wrappers.
  int current_thread() const { return current_; }
  std::int32_t epoch() const { return epoch_; }
  bool in_phase() const { return in_phase_; }
  void Report(Violation::Kind kind, int thread, const std::string& array, std::int64_t index, std::string detail);
  // A warp operation: checks that it runs at block level.
  void WarpOp(const char* what);

 private:
  void BeginPhase();
  void EndPhase();

  const char* kernel_;
  int index_;
  int threads_;
  LaunchReport* report_;
  int current_ = -1;
  bool in_phase_ = false;
  std::int32_t epoch_ = 0;
  std::vector<int> phase_barriers_;  // barriers each thread reached inside the current phase
};

template <class T>
class HostRegisters {
 public:
  HostRegisters(int n, T init) : n_(n), v_(new T[static_cast<std::size_t>(n)]) {
    for (int i = 0; i < n; ++i) v_[i] = init;
  }
  T& operator[](Thread t) { return v_[t.x]; }
  const T& operator[](Thread t) const { return v_[t.x]; }
  T& at(int i) { return v_[i]; }
  const T& at(int i) const { return v_[i]; }
  int size() const { return n_; }

 private:
  int n_;
  std::unique_ptr<T[]> v_;
};

template <class T>
HostRegisters<T> Registers(const HostBlock& block, T init = T{}) {
  return HostRegisters<T>(block.threads(), init);
}

// Per-word shadow of a shared array: who wrote and read it in which barrier epoch.
struct ShadowWord {
  std::int32_t write_epoch = -1;  // -1: never written
  std::int32_t writer = -1;
  std::int32_t read_epoch = -1;
  std::int32_t reader = -1;       // kSeveral: more than one thread read it in read_epoch
  static constexpr std::int32_t kSeveral = -2;
};

namespace detail {
void CheckSharedLoad(HostBlock& b, const char* name, std::int64_t i, ShadowWord& w);
void CheckSharedStore(HostBlock& b, const char* name, std::int64_t i, ShadowWord& w);
void ReportOutOfBounds(HostBlock& b, const char* name, std::int64_t i, std::int64_t size, bool store);
}  // namespace detail

template <class T>
class HostShared {
 public:
  HostShared(HostBlock& block, const char* name, std::int64_t n)
      : block_(&block), name_(name), n_(n), data_(static_cast<std::size_t>(n)), shadow_(static_cast<std::size_t>(n)) {}
  T Load(std::int64_t i) const {
    if (i < 0 || i >= n_) {
      detail::ReportOutOfBounds(*block_, name_, i, n_, false);
      return T{};
    }
    detail::CheckSharedLoad(*block_, name_, i, shadow_[static_cast<std::size_t>(i)]);
    return data_[static_cast<std::size_t>(i)];
  }
  void Store(std::int64_t i, T v) const {
    if (i < 0 || i >= n_) {
      detail::ReportOutOfBounds(*block_, name_, i, n_, true);
      return;
    }
    detail::CheckSharedStore(*block_, name_, i, shadow_[static_cast<std::size_t>(i)]);
    data_[static_cast<std::size_t>(i)] = v;
  }

 private:
  HostBlock* block_;
  const char* name_;
  std::int64_t n_;
  mutable std::vector<T> data_;
  mutable std::vector<ShadowWord> shadow_;
};

// Warp operations (docs/gpu.md "Warp operations"): lane semantics of the full-mask CUDA
// intrinsics, evaluated warp by warp. A block whose size is not a multiple of 32 has a last,
// partial warp; a source lane beyond the block's end reads as the lane's own value (the
// emulator's choice; CUDA leaves it undefined, and no kernel here relies on it).
template <class T>
HostRegisters<T> ShuffleDown(HostBlock& block, const HostRegisters<T>& r, int delta) {
  block.WarpOp("ShuffleDown");
  HostRegisters<T> out(r.size(), T{});
  for (int t = 0; t < r.size(); ++t) {
    const int lane = t & (kWarpSize - 1);
    const int src = lane + delta < kWarpSize && t + delta < r.size() ? t + delta : t;
    out.at(t) = r.at(src);
  }
  return out;
}

template <class T>
HostRegisters<T> ShuffleXor(HostBlock& block, const HostRegisters<T>& r, int mask) {
  block.WarpOp("ShuffleXor");
  HostRegisters<T> out(r.size(), T{});
  for (int t = 0; t < r.size(); ++t) {
    const int src = (t & ~(kWarpSize - 1)) | ((t & (kWarpSize - 1)) ^ (mask & (kWarpSize - 1)));
    out.at(t) = r.at(src < r.size() ? src : t);
  }
  return out;
}

HostRegisters<std::uint32_t> Ballot(HostBlock& block, const HostRegisters<bool>& p);

// A value every thread holds, read by block-level code (a data-dependent
// loop or branch around barriers, as a broadcast from shared memory is used on the device).
// Checks that every thread holds the same bits: a block-level branch on a value that differs
// between threads would diverge around the next barrier on the device, so it is reported as
// a divergent barrier naming the first thread that differs.
template <class T>
T BlockUniform(HostBlock& block, const HostRegisters<T>& r) {
  block.WarpOp("BlockUniform");
  for (int t = 1; t < r.size(); ++t) {
    if (std::memcmp(&r.at(t), &r.at(0), sizeof(T)) != 0) {
      block.Report(Violation::Kind::kDivergentBarrier, t, "uniform value", 0,
                   "a block-level branch reads a value that differs between thread 0 and this thread");
      break;
    }
  }
  return r.at(0);
}

// A global array on the host: bounds-checked Load/Store (no race tracking: blocks of one
// launch run one after another here, and the kernels give each block its own rows).
template <class T>
class GlobalArray {
 public:
  GlobalArray() = default;
  GlobalArray(T* p, std::int64_t n, const char* name) : p_(p), n_(n), name_(name) {}
  T Load(std::int64_t i) const {
    if (i < 0 || i >= n_) {
      detail::ReportOutOfBounds(*detail::CurrentBlock(), name_, i, n_, false);
      return T{};
    }
    return p_[i];
  }
  template <class U>
  void Store(std::int64_t i, U v) const {
    if (i < 0 || i >= n_) {
      detail::ReportOutOfBounds(*detail::CurrentBlock(), name_, i, n_, true);
      return;
    }
    p_[i] = v;
  }
  std::int64_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::int64_t n_ = 0;
  const char* name_ = "";
};

// Runs `body(block)` for blocks 0 .. grid-1 of `threads` threads each.
template <class Body>
LaunchReport Launch(const char* kernel, int grid, int threads, Body&& body) {
  LaunchReport report;
  for (int b = 0; b < grid; ++b) {
    HostBlock block(kernel, b, threads, &report);
    detail::CurrentBlock() = &block;
    body(block);
    detail::CurrentBlock() = nullptr;
  }
  return report;
}

}  // namespace emu

// Kernel bodies name these without a namespace.
using emu::Ballot;
using emu::BlockUniform;
using emu::GlobalArray;
using emu::HostShared;
using emu::Registers;
using emu::ShuffleDown;
using emu::ShuffleXor;
using emu::Thread;
using Block = emu::HostBlock;

}  // namespace sampcheck::gpu
