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
//   uninitialised a shared word read before any thread wrote it;
//   cross_block   the last-block protocol (gpu/block/last_block.cuh) broken: a block reads a
//                 scratch word another block of the launch wrote without holding the last
//                 ticket of the writer's counter (and fencing after it), a ticket taken with
//                 unfenced global stores or after another thread's store with no barrier
//                 between, a ticket counter not back at 0 when the launch ends;
//   misaligned    a 16-byte global load (Load4) of an element whose address is not on a
//                 16-byte boundary (the device faults: misaligned address).
// A faulty access never touches memory outside the arrays (an out-of-bounds Load returns T{},
// an out-of-bounds Store is dropped), so a run with violations still ends and reports them.
// Host only: no exceptions here either; Launch returns the violations and the caller decides.
// Every launch also counts its work (gpu/emulator/emulator_counters.h, docs/gpu.md "Cost model"): the
// arrays and blocks below count their own accesses, barriers and phases.
// Speed in unoptimised builds (the sanitizer build runs every emulated test at -O0): the
// accessors every emulated access goes through are forced inline and index raw pointers, not
// std::unique_ptr or std::vector (each a chain of calls at -O0); that halves the sanitizer
// build's emulated test time (docs/gpu.md "The emulator's checks"). A shared array's bigger
// Load/Store bodies are forced inline only in optimised builds (SAMPCHECK_EMU_ACCESS_INLINE:
// fewer instructions per access in the emulated statistics); unoptimised they stay calls,
// since inlined at every call site they would double the sanitizer build's compile time of
// the kernels.
// Speed per access (docs/gpu.md "Cost per access"): the shadow checks' common case is inline,
// their reports out of line; a shared array counts its own accesses and adds them to the
// launch's counters when it goes out of scope; a phase records barriers only once a thread
// reaches one inside it. Same checks, same reports, same counts.
// Speed per launch (docs/gpu.md "Cost per access"): the register files and shared arrays of a
// block are short-lived (a reduction makes five shuffles, each a new register file), so their
// buffers come from a per-thread pool of recycled buffers instead of the heap; a shared array's
// shadow starts as all-ones bytes (every field -1) by one memset.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "core/portability.h"
#include "gpu/block/quad.h"
#include "gpu/emulator/emulator_counters.h"

// A shared array's Load and Store (header comment: forced inline when optimising).
#if defined(__OPTIMIZE__)
#define SAMPCHECK_EMU_ACCESS_INLINE SAMPCHECK_FORCE_INLINE
#else
#define SAMPCHECK_EMU_ACCESS_INLINE
#endif

namespace sampcheck::gpu {

inline constexpr int kWarpSize = 32;

struct Violation {
  enum class Kind { kRace, kOutOfBounds, kDivergentBarrier, kUninitialisedRead, kCrossBlock, kMisaligned };
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
  LaunchCounters counters;            // the launch's work (gpu/emulator/emulator_counters.h)
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
// The block whose code runs now (set by Launch): global arrays report and count through it.
// Inline: every global access reads it.
SAMPCHECK_FORCE_INLINE HostBlock*& CurrentBlock() {
  thread_local HostBlock* block = nullptr;
  return block;
}
// A distinct number per launch on this thread: a global array's cached counter slot is valid
// only in the launch that found it.
std::uint64_t NextLaunchSerial();
// A global array's counter slot in the current launch (found once per array copy and launch).
struct CounterSlot {
  std::uint64_t launch = 0;  // 0: none yet (serials start at 1)
  std::size_t index = 0;
};
std::size_t FindGlobalSlot(LaunchCounters& c, const void* base, const char* name, std::int64_t elements,
                           std::size_t element_bytes);
std::size_t FindSharedSlot(LaunchCounters& c, const char* name, std::size_t element_bytes);

// What the blocks of one launch did that another block may depend on (the last-block
// protocol, gpu/block/last_block.cuh): the block that last wrote each word of a scratch array
// (allocated at the array's first store in the launch), each block's ticket, and every ticket
// counter word touched. Launch checks it when the last block is done.
struct BlockTicket {
  std::uint32_t* word = nullptr;  // null: the block took no ticket
  const char* name = "";
  std::int64_t index = 0;
  std::uint32_t taken = 0;        // the counter's value before this block's increment
  bool read_others = false;       // read a scratch word another block wrote (after the ticket)
  bool stored_after = false;      // stored to a scratch array after its ticket
};
struct TicketWord {
  std::uint32_t* word = nullptr;
  const char* name = "";
  std::int64_t index = 0;
  std::int64_t tickets = 0;  // increments in this launch
};
struct CrossBlockState {
  std::vector<std::vector<std::int32_t>> writers;  // per counter slot; -1: not written in this launch
  std::vector<BlockTicket> blocks;                 // per block
  std::vector<TicketWord> words;
};
// The end-of-launch checks (contract of gpu/block/last_block.cuh): every ticket counter back at
// 0; a block that read another block's words or stored after its ticket held the last ticket.
void FinishCrossBlock(const char* kernel, const CrossBlockState& state, LaunchReport& report);
}  // namespace detail

class HostBlock {
 public:
  HostBlock(const char* kernel, int index, int threads, LaunchReport* report, std::uint64_t launch_serial = 0,
            detail::CrossBlockState* cross = nullptr);
  int index() const { return index_; }
  int threads() const { return threads_; }

  template <class F>
  void ForEachThread(F&& f) {
    Phase([&](auto&& as_thread) {
      const bool every_warp = AllWarps();
      for (int t = 0; t < threads_; ++t) {
        if (!every_warp && !WarpActive(t / kWarpSize)) continue;  // a warp ForWarps left out
        as_thread(t, [&] { f(Thread{t}); });
      }
    });
  }
  // ExchangeXor's phase (below): for each pair of lanes t < u = t ^ m of a running warp, both
  // values read, then at(t) = combine(t, a, b) and at(u) = combine(u, b, a), each as its
  // thread's work (its accesses, if any, are its own); a lane whose partner is itself or past
  // the block's end combines its value with itself.
  template <class At, class Combine>
  void ExchangeXorPhase(int m, At& at, Combine& combine) {
    Phase([&](auto&& as_thread) {
      for (int w = 0; w * kWarpSize < threads_; ++w) {
        if (!WarpActive(w)) continue;
        const int end = threads_ < (w + 1) * kWarpSize ? threads_ : (w + 1) * kWarpSize;
        for (int t = w * kWarpSize; t < end; ++t) {
          int u = t ^ m;
          if (u < t) continue;  // combined with its partner below
          if (u >= end) u = t;
          auto& x = at(Thread{t});
          auto& y = at(Thread{u});
          const auto a = x;
          const auto b = y;
          as_thread(t, [&] { x = combine(Thread{t}, a, b); });
          if (u != t) as_thread(u, [&] { y = combine(Thread{u}, b, a); });
        }
      }
    });
  }
  void Sync();
  // ForWarps (gpu/block/block_model.h): block-level code that only the warps w with pred(w)
  // run (a warp-uniform branch on the device): its phases skip the other warps' threads, its
  // warp operations leave their registers alone, a barrier inside it is a divergent barrier.
  // Nested calls keep the warps both keep; no warp kept: the body does not run.
  template <class P, class F>
  void ForWarps(P&& pred, F&& body) {
    if (in_phase_) {
      Report(Violation::Kind::kDivergentBarrier, current_, "warp op", epoch_,
             "ForWarps called inside a phase: it is block-level code");
      return;
    }
    const std::uint64_t outer = warp_mask_;
    std::uint64_t mask = 0;
    for (int w = 0; w * kWarpSize < threads_; ++w) {
      if ((outer >> w & 1u) != 0 && pred(w)) mask |= std::uint64_t{1} << w;
    }
    if (mask == 0) return;
    warp_mask_ = mask;
    body();
    warp_mask_ = outer;
  }
  // Whether warp w runs the current block-level code (every warp outside ForWarps).
  SAMPCHECK_FORCE_INLINE bool WarpActive(int w) const { return (warp_mask_ >> w & 1u) != 0; }
  SAMPCHECK_FORCE_INLINE bool AllWarps() const { return warp_mask_ == all_warps_; }
  // Called by Launch after the body: closes the last barrier interval and adds the block's
  // barriers, phases and chains to the launch's counters.
  void Finish();

  // Counting (gpu/emulator/emulator_counters.h), for the array wrappers.
  // One access of `width` elements of `bytes` each (width 4: Load4).
  void CountGlobal(detail::CounterSlot& slot, const void* base, const char* name, std::int64_t elements,
                   std::size_t bytes, bool store, std::size_t width = 1) {
    LaunchCounters& c = report_->counters;
    if (slot.launch != launch_serial_ || launch_serial_ == 0) [[unlikely]] {
      FindGlobalSlot(slot, base, name, elements, bytes);
    }
    Count(c.global.data()[slot.index], width * bytes, store);
    block_global_bytes_ += static_cast<std::int64_t>(width * bytes);
    if (store) NoteGlobalStore();
  }
  // The last-block protocol (gpu/block/last_block.cuh): a scratch array's store and load by
  // this block (slot: its counter slot), a fence (in a phase: the current thread's; at block
  // level: every thread's), a ticket (FetchAdd) on a counter word that held `taken`.
  void TrackStore(std::size_t slot, std::int64_t elements, std::int64_t i);
  void TrackLoad(std::size_t slot, const char* name, std::int64_t i);
  void Fence();
  // SyncWarp (block-level, over the running warps): orders this interval's global stores of
  // one warp before its lanes' later phases, for the ticket's check.
  void SyncWarps();
  void TakeTicket(std::uint32_t* word, const char* name, std::int64_t i, std::uint32_t taken);
  std::size_t SharedSlot(const char* name, std::size_t bytes) {
    return detail::FindSharedSlot(report_->counters, name, bytes);
  }
  // A shared array's accesses, counted by the array itself and added when it goes out of
  // scope (each access also counts in the chain at once: CountAccess).
  void AddShared(std::size_t slot, std::size_t element_bytes, std::int64_t loads, std::int64_t stores);
  SAMPCHECK_FORCE_INLINE void CountAccess() { ++accesses_; }

  // For the wrappers.
  SAMPCHECK_FORCE_INLINE int current_thread() const { return current_; }
  SAMPCHECK_FORCE_INLINE std::int32_t epoch() const { return epoch_; }
  SAMPCHECK_FORCE_INLINE bool in_phase() const { return in_phase_; }
  void Report(Violation::Kind kind, int thread, const std::string& array, std::int64_t index, std::string detail);
  // A warp operation: checks that it runs at block level; counted unless `counted` is false.
  void WarpOp(const char* what, bool counted = true);

 private:
  // A phase (ForEachThread, ExchangeXorPhase): visit(as_thread) runs its threads' work, each
  // as as_thread(t, body), which counts body's accesses in thread t's chain.
  template <class Visit>
  void Phase(Visit&& visit) {
    in_phase_ = true;
    ++phases_;
    phase_synced_ = false;
    std::int64_t* const work = interval_work_.data();
    const std::int64_t start = accesses_;
    std::int64_t busiest = interval_busiest_;
    visit([&](int t, auto&& body) {
      current_ = t;
      const std::int64_t before = accesses_;
      body();
      // Most threads of a register-only phase (a shuffle's fold) make no access: no update.
      if (const std::int64_t made = accesses_ - before; made != 0) {
        const std::int64_t w = work[t] += made;
        if (w > busiest) busiest = w;
      }
    });
    interval_busiest_ = busiest;
    interval_phase_accesses_ += accesses_ - start;
    in_phase_ = false;
    current_ = -1;
    if (phase_synced_) CheckPhaseBarriers();  // a barrier inside the phase: always a violation
  }
  // The divergence check of a phase in which some thread reached a barrier.
  void CheckPhaseBarriers();
  // The array's counter slot in this launch (the first access of an array copy in a launch).
  void FindGlobalSlot(detail::CounterSlot& slot, const void* base, const char* name, std::int64_t elements,
                      std::size_t bytes);
  void CloseInterval();
  void NoteGlobalStore();
  SAMPCHECK_FORCE_INLINE void Count(ArrayTraffic& a, std::size_t bytes, bool store) {
    const auto n = static_cast<std::int64_t>(bytes);
    if (store) {
      ++a.stores;
      a.store_bytes += n;
    } else {
      ++a.loads;
      a.load_bytes += n;
    }
    CountAccess();
  }

  const char* kernel_;
  int index_;
  int threads_;
  // The warps running the current block-level code (bit w: warp w; ForWarps narrows it).
  std::uint64_t all_warps_;
  std::uint64_t warp_mask_;
  LaunchReport* report_;
  int current_ = -1;
  bool in_phase_ = false;
  std::int32_t epoch_ = 0;
  // Barriers each thread reached inside the current phase, filled only once one does
  // (phase_synced_): a phase without a barrier, every correct phase, costs no per-thread pass.
  bool phase_synced_ = false;
  std::vector<int> phase_barriers_;
  // Counting: accesses so far, each thread's accesses in the current barrier interval and the
  // most of them, the accesses at the interval's start and those its phases made (the rest are
  // its block-level accesses), and the block's critical path so far.
  std::uint64_t launch_serial_;
  std::int64_t accesses_ = 0;
  std::vector<std::int64_t> interval_work_;
  std::int64_t interval_busiest_ = 0;
  std::int64_t interval_start_ = 0;
  std::int64_t interval_phase_accesses_ = 0;
  std::int64_t path_ = 0;
  std::vector<std::int64_t> intervals_;  // each closed interval's chain, in order
  std::int64_t phases_ = 0;
  std::int64_t block_global_bytes_ = 0;
  // The last-block protocol: global stores since the last fence; who stored in barrier
  // interval store_epoch_ (a thread, or kSeveralThreads: more than one, or block-level code),
  // which warp (or kSeveralThreads), and whether that warp synced since its last store
  // (SyncWarp); whether the block fenced after its ticket (it may then read the writes the
  // ticket orders).
  detail::CrossBlockState* cross_;
  std::int64_t unfenced_stores_ = 0;
  std::int32_t store_epoch_ = -1;
  int store_thread_ = -1;
  int store_warp_ = -1;
  bool store_warp_synced_ = false;
  static constexpr int kSeveralThreads = -2;
  bool acquired_ = false;
};

namespace detail {
// Recycled buffers for register files and shared arrays, per host thread (each thread runs
// its own launches): TakeBuffer returns a buffer of `bytes` (aligned for any scalar), from the
// buffers of that size given back before when there is one; GiveBuffer keeps it for the next
// TakeBuffer, at most kPooledBuffersPerSize per size, kPooledSizes sizes and kPooledBytes bytes
// kept in all per host thread (the rest go back to the heap), so a run's pools hold at most
// kPooledBytes x its host threads whatever the launch shapes. Contents undefined.
// PooledBytes: the bytes the calling thread's pool keeps now (0 under AddressSanitizer).
inline constexpr std::size_t kPooledBuffersPerSize = 64;
inline constexpr std::size_t kPooledSizes = 64;
inline constexpr std::size_t kPooledBytes = std::size_t{64} << 20;
void* TakeBuffer(std::size_t bytes);
void GiveBuffer(void* p, std::size_t bytes) noexcept;
std::size_t PooledBytes() noexcept;

// Types whose arrays live in pooled buffers: plain bytes, nothing to construct or destroy.
template <class T>
inline constexpr bool kPooled = std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T> &&
                                alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__;

// An array of n T, value-initialised from `init` unless `fill` is false (the caller writes
// every element); pooled when kPooled<T>.
template <class T>
class PooledArray {
 public:
  PooledArray() = default;
  PooledArray(std::int64_t n, const T& init, bool fill) : n_(n) {
    const auto count = static_cast<std::size_t>(n);
    if constexpr (kPooled<T>) {
      p_ = static_cast<T*>(TakeBuffer(count * sizeof(T)));
      if (!fill) return;
      if constexpr (std::is_scalar_v<T>) {
        if (IsZero(init)) {
          std::memset(static_cast<void*>(p_), 0, count * sizeof(T));
          return;
        }
      }
      for (std::size_t i = 0; i < count; ++i) p_[i] = init;
    } else {
      p_ = new T[count];
      if (fill) {
        for (std::size_t i = 0; i < count; ++i) p_[i] = init;
      }
    }
  }
  PooledArray(const PooledArray&) = delete;
  PooledArray& operator=(const PooledArray&) = delete;
  PooledArray(PooledArray&& o) noexcept : n_(o.n_), p_(o.p_) { o.p_ = nullptr; }
  PooledArray& operator=(PooledArray&& o) noexcept {
    if (this != &o) {
      Release();
      n_ = o.n_;
      p_ = o.p_;
      o.p_ = nullptr;
    }
    return *this;
  }
  ~PooledArray() { Release(); }
  SAMPCHECK_FORCE_INLINE T* data() const { return p_; }

 private:
  // All bits zero (-0.0 is not: it keeps the loop).
  static bool IsZero(const T& v) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    for (unsigned char b : bytes) {
      if (b != 0) return false;
    }
    return true;
  }
  void Release() noexcept {
    if (p_ == nullptr) return;
    if constexpr (kPooled<T>) {
      GiveBuffer(p_, static_cast<std::size_t>(n_) * sizeof(T));
    } else {
      delete[] p_;
    }
    p_ = nullptr;
  }
  std::int64_t n_ = 0;
  T* p_ = nullptr;
};
}  // namespace detail

template <class T>
class HostRegisters {
 public:
  HostRegisters(int n, T init) : n_(n), v_(n, init, /*fill=*/true), p_(v_.data()) {}
  // Every element is written by the caller before it is read (the warp operations' results).
  struct Unfilled {};
  HostRegisters(int n, Unfilled) : n_(n), v_(n, T{}, /*fill=*/false), p_(v_.data()) {}
  HostRegisters(HostRegisters&& o) noexcept : n_(o.n_), v_(std::move(o.v_)), p_(o.p_) {}
  HostRegisters& operator=(HostRegisters&& o) noexcept {
    n_ = o.n_;
    v_ = std::move(o.v_);
    p_ = o.p_;
    return *this;
  }
  SAMPCHECK_FORCE_INLINE T& operator[](Thread t) { return p_[t.x]; }
  SAMPCHECK_FORCE_INLINE const T& operator[](Thread t) const { return p_[t.x]; }
  SAMPCHECK_FORCE_INLINE T& at(int i) { return p_[i]; }
  SAMPCHECK_FORCE_INLINE const T& at(int i) const { return p_[i]; }
  SAMPCHECK_FORCE_INLINE int size() const { return n_; }

 private:
  int n_;
  detail::PooledArray<T> v_;
  T* p_;  // v_.data(): a call per index in an unoptimised build otherwise
};

template <class T>
HostRegisters<T> Registers(const HostBlock& block, T init = T{}) {
  return HostRegisters<T>(block.threads(), init);
}

// Per-word shadow of a shared array: who wrote and read it in which barrier epoch.
// Its initial state is every field -1: all bytes 0xff (HostShared sets it by one memset).
struct ShadowWord {
  std::int32_t write_epoch = -1;  // -1: never written
  std::int32_t writer = -1;
  std::int32_t read_epoch = -1;
  std::int32_t reader = -1;       // kSeveral: more than one thread read it in read_epoch
  static constexpr std::int32_t kSeveral = -2;
};
static_assert(sizeof(ShadowWord) == 4 * sizeof(std::int32_t) && std::is_trivially_copyable_v<ShadowWord>,
              "a shadow of n words is 16 n bytes of 0xff when fresh");

namespace detail {
// The reports of the shadow checks below (out of line: they build messages).
void ReportSharedLoad(HostBlock& b, const char* name, std::int64_t i, const ShadowWord& w);
void ReportSharedStore(HostBlock& b, const char* name, std::int64_t i, const ShadowWord& w);
void ReportOutOfBounds(HostBlock& b, const char* name, std::int64_t i, std::int64_t size, bool store);
void ReportMisaligned(HostBlock& b, const char* name, std::int64_t i);

// A shared word's read by the current thread: uninitialised (never written) or a race (written
// by another thread in this barrier epoch) is reported; the word records its readers.
inline void CheckSharedLoad(HostBlock& b, const char* name, std::int64_t i, ShadowWord& w) {
  const int t = b.current_thread();
  const std::int32_t e = b.epoch();
  if (w.write_epoch < 0 || (w.write_epoch == e && w.writer != t)) ReportSharedLoad(b, name, i, w);
  if (w.read_epoch != e) {
    w.read_epoch = e;
    w.reader = t;
  } else if (w.reader != t) {
    w.reader = ShadowWord::kSeveral;
  }
}

// A shared word's write by the current thread: a race with another thread's write or read in
// this barrier epoch is reported; the word records its writer.
inline void CheckSharedStore(HostBlock& b, const char* name, std::int64_t i, ShadowWord& w) {
  const int t = b.current_thread();
  const std::int32_t e = b.epoch();
  if ((w.write_epoch == e && w.writer != t) || (w.read_epoch == e && w.reader != t)) ReportSharedStore(b, name, i, w);
  w.write_epoch = e;
  w.writer = t;
}
}  // namespace detail

template <class T>
class HostShared {
 public:
  HostShared(HostBlock& block, const char* name, std::int64_t n)
      : block_(&block),
        name_(name),
        n_(n),
        slot_(block.SharedSlot(name, sizeof(T))),
        data_(n, T{}, /*fill=*/false),
        shadow_(n, ShadowWord{}, /*fill=*/false),
        d_(data_.data()),
        s_(shadow_.data()) {}
  // d_ and s_ point into data_ and shadow_: a copy would point into the original's, a move
  // takes the buffers with them.
  HostShared(const HostShared&) = delete;
  HostShared& operator=(const HostShared&) = delete;
  // A moved-from array counts nothing more (its counts went with the move).
  HostShared(HostShared&& o) noexcept
      : block_(o.block_),
        name_(o.name_),
        n_(o.n_),
        slot_(o.slot_),
        data_(std::move(o.data_)),
        shadow_(std::move(o.shadow_)),
        d_(o.d_),
        s_(o.s_),
        ready_(o.ready_),
        loads_(o.loads_),
        stores_(o.stores_) {
    o.loads_ = o.stores_ = 0;
  }
  HostShared& operator=(HostShared&&) = delete;
  ~HostShared() { block_->AddShared(slot_, sizeof(T), loads_, stores_); }
  // A handle to this array that may be copied: Load and Store through it are this array's,
  // checked and counted. A kernel passes it by value to an out-of-line function, where the
  // device's array (DeviceShared::View, a pointer) stays in a register instead of being read
  // back from the caller's stack frame at every access.
  class Handle {
   public:
    explicit Handle(const HostShared* a) : a_(a) {}
    SAMPCHECK_EMU_ACCESS_INLINE T Load(std::int64_t i) const { return a_->Load(i); }
    SAMPCHECK_EMU_ACCESS_INLINE void Store(std::int64_t i, T v) const { a_->Store(i, v); }

   private:
    const HostShared* a_;
  };
  Handle View() const { return Handle(this); }
  SAMPCHECK_EMU_ACCESS_INLINE T Load(std::int64_t i) const {
    if (i < 0 || i >= ready_) [[unlikely]] {
      if (i < 0 || i >= n_) {
        detail::ReportOutOfBounds(*block_, name_, i, n_, false);
        return T{};
      }
      Prepare(i);
    }
    detail::CheckSharedLoad(*block_, name_, i, s_[i]);
    ++loads_;
    block_->CountAccess();
    return d_[i];
  }
  SAMPCHECK_EMU_ACCESS_INLINE void Store(std::int64_t i, T v) const {
    if (i < 0 || i >= ready_) [[unlikely]] {
      if (i < 0 || i >= n_) {
        detail::ReportOutOfBounds(*block_, name_, i, n_, true);
        return;
      }
      Prepare(i);
    }
    detail::CheckSharedStore(*block_, name_, i, s_[i]);
    ++stores_;
    block_->CountAccess();
    d_[i] = v;
  }

 private:
  HostBlock* block_;
  const char* name_;
  std::int64_t n_;
  std::size_t slot_;
  detail::PooledArray<T> data_;
  detail::PooledArray<ShadowWord> shadow_;
  // Raw pointers into the two buffers: a call per index in an unoptimised build otherwise.
  T* d_;
  ShadowWord* s_;
  // Words [0, ready_) hold their initial state (value T{}, a fresh shadow); the rest are set
  // when an access first reaches them (Prepare): a 1024-word array a block declares and
  // touches little of costs no 24 KiB of stores per block. Same values, same reports.
  mutable std::int64_t ready_ = 0;
  void Prepare(std::int64_t i) const {
    std::int64_t end = ready_ * 2 > i + 1 ? ready_ * 2 : i + 1;  // doubling: amortised O(1) per word
    if (end < 64) end = 64;
    if (end > n_) end = n_;
    const auto first = static_cast<std::size_t>(ready_);
    const auto count = static_cast<std::size_t>(end - ready_);
    std::memset(static_cast<void*>(s_ + first), 0xff, count * sizeof(ShadowWord));
    if constexpr (std::is_scalar_v<T>) {
      std::memset(static_cast<void*>(d_ + first), 0, count * sizeof(T));  // T{}: all bits zero
    } else {
      for (std::size_t k = first; k < first + count; ++k) d_[k] = T{};
    }
    ready_ = end;
  }
  // This array's accesses so far (bytes: sizeof(T) each), added to the launch's counters by the
  // destructor: two counts here instead of four through the report on every access.
  mutable std::int64_t loads_ = 0;
  mutable std::int64_t stores_ = 0;
};

// Warp operations (docs/gpu.md "Warp operations"): lane semantics of the full-mask CUDA
// intrinsics, evaluated warp by warp. A block whose size is not a multiple of 32 has a last,
// partial warp; a source lane beyond the block's end reads as the lane's own value (the
// emulator's choice; CUDA leaves it undefined, and no kernel here relies on it).
// Inside ForWarps, the warps left out take no part: their results hold T{}, and their registers
// are not read (a register a phase of the body wrote only in the kept warps holds nothing
// there).
template <class T>
HostRegisters<T> ShuffleDown(HostBlock& block, const HostRegisters<T>& r, int delta) {
  block.WarpOp("ShuffleDown");
  const bool every_warp = block.AllWarps();
  HostRegisters<T> out = every_warp ? HostRegisters<T>(r.size(), typename HostRegisters<T>::Unfilled{})
                                    : HostRegisters<T>(r.size(), T{});
  for (int t = 0; t < r.size(); ++t) {
    if (!every_warp && !block.WarpActive(t / kWarpSize)) continue;
    const int lane = t & (kWarpSize - 1);
    const int src = lane + delta < kWarpSize && t + delta < r.size() ? t + delta : t;
    out.at(t) = r.at(src);
  }
  return out;
}

template <class T>
HostRegisters<T> ShuffleXor(HostBlock& block, const HostRegisters<T>& r, int mask) {
  block.WarpOp("ShuffleXor");
  const int m = mask & (kWarpSize - 1);  // lane l ^ m of the same warp: thread t ^ m
  const int n = r.size();
  if (!block.AllWarps()) {
    HostRegisters<T> out(n, T{});
    for (int t = 0; t < n; ++t) {
      if (!block.WarpActive(t / kWarpSize)) continue;
      const int src = t ^ m;
      out.at(t) = r.at(src < n ? src : t);
    }
    return out;
  }
  HostRegisters<T> out(n, typename HostRegisters<T>::Unfilled{});
  if (n % kWarpSize == 0) {  // whole warps: every t ^ m is a thread of the block
    for (int t = 0; t < n; ++t) out.at(t) = r.at(t ^ m);
    return out;
  }
  for (int t = 0; t < n; ++t) {
    const int src = t ^ m;
    out.at(t) = r.at(src < n ? src : t);
  }
  return out;
}

// ExchangeXor: ShuffleXor of at(t) and combine's result written back, in one phase (the
// combine is the lane's own work on the device), a pair of lanes at a time (HostBlock::
// ExchangeXorPhase). A source lane past the block's end reads as the lane's own value, as
// ShuffleXor's.
template <class At, class Combine>
void ExchangeXor(HostBlock& block, int mask, At&& at, Combine&& combine) {
  block.WarpOp("ShuffleXor");
  block.ExchangeXorPhase(mask & (kWarpSize - 1), at, combine);
}

// Lane l gets lane from[l] mod 32 of its warp (CUDA's source lane modulo the width).
template <class T>
HostRegisters<T> ShuffleFrom(HostBlock& block, const HostRegisters<T>& r, const HostRegisters<int>& from) {
  block.WarpOp("ShuffleFrom");
  const bool every_warp = block.AllWarps();
  const int n = r.size();
  HostRegisters<T> out =
      every_warp ? HostRegisters<T>(n, typename HostRegisters<T>::Unfilled{}) : HostRegisters<T>(n, T{});
  for (int t = 0; t < n; ++t) {
    if (!every_warp && !block.WarpActive(t / kWarpSize)) continue;
    const int src = (t & ~(kWarpSize - 1)) + (from.at(t) & (kWarpSize - 1));
    out.at(t) = r.at(src < n ? src : t);
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
  block.WarpOp("BlockUniform", /*counted=*/false);  // a register read on the device, not a collective
  // Inside ForWarps: the same bits in every thread of the kept warps.
  int first = 0;
  while (first < r.size() && !block.WarpActive(first / kWarpSize)) first += kWarpSize;
  for (int t = first + 1; t < r.size(); ++t) {
    if (!block.WarpActive(t / kWarpSize)) continue;
    if (std::memcmp(&r.at(t), &r.at(first), sizeof(T)) != 0) {
      block.Report(Violation::Kind::kDivergentBarrier, t, "uniform value", 0,
                   "a block-level branch reads a value that differs between thread " + std::to_string(first) +
                       " and this thread");
      break;
    }
  }
  return r.at(first);
}

// A global array on the host: bounds-checked, counted Load/Store. Blocks of one launch run one
// after another here, so there is no race tracking between them, except on scratch arrays
// (cross_block: gpu/runners/emulated_launch.h's Scratch), whose words remember the block that
// wrote them in the launch: a block may read another block's word only as the last block of
// the last-block protocol (gpu/block/last_block.cuh). Outside a launch (no current block)
// accesses are neither checked against a block nor counted.
template <class T>
class GlobalArray {
 public:
  GlobalArray() = default;
  GlobalArray(T* p, std::int64_t n, const char* name, bool cross_block = false)
      : p_(p), n_(n), name_(name), cross_block_(cross_block) {}
  T Load(std::int64_t i) const {
    HostBlock* const b = detail::CurrentBlock();
    if (i < 0 || i >= n_) {
      detail::ReportOutOfBounds(*b, name_, i, n_, false);
      return T{};
    }
    if (b != nullptr) {
      b->CountGlobal(slot_, p_, name_, n_, sizeof(T), false);
      if (cross_block_) b->TrackLoad(slot_.index, name_, i);
    }
    return p_[i];
  }
  template <class U>
  void Store(std::int64_t i, U v) const {
    HostBlock* const b = detail::CurrentBlock();
    if (i < 0 || i >= n_) {
      detail::ReportOutOfBounds(*b, name_, i, n_, true);
      return;
    }
    if (b != nullptr) {
      b->CountGlobal(slot_, p_, name_, n_, sizeof(T), true);
      if (cross_block_) b->TrackStore(slot_.index, n_, i);
    }
    p_[i] = v;
  }
  // Elements i .. i + 3 in one 16-byte load (a uint4 on the device, gpu/block/quad.h): i + 3
  // inside the array and element i's address on a 16-byte boundary (BoundaryGap(i) == 0; the
  // device faults elsewhere). Counted as one access of 16 bytes.
  Quad<std::remove_const_t<T>> Load4(std::int64_t i) const {
    static_assert(sizeof(T) == 4, "four 4-byte elements");
    HostBlock* const b = detail::CurrentBlock();
    Quad<std::remove_const_t<T>> q{};
    if (i < 0 || i + 3 >= n_) {
      detail::ReportOutOfBounds(*b, name_, i < 0 ? i : i + 3, n_, false);
      return q;
    }
    if (BoundaryGap(i) != 0) {
      detail::ReportMisaligned(*b, name_, i);
      return q;
    }
    if (b != nullptr) {
      b->CountGlobal(slot_, p_, name_, n_, sizeof(T), false, 4);
      if (cross_block_) {
        for (int j = 0; j < 4; ++j) b->TrackLoad(slot_.index, name_, i + j);
      }
    }
    for (int j = 0; j < 4; ++j) q.v[j] = p_[i + j];
    return q;
  }
  // The elements from i up to the next 16-byte boundary of the addresses (0 to 3).
  std::int64_t BoundaryGap(std::int64_t i) const {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p_) + static_cast<std::uintptr_t>(i) * sizeof(T);
    return static_cast<std::int64_t>((16 - a % 16) % 16 / sizeof(T));
  }
  // atomicAdd: returns the old value. Blocks run one after another, so a read-modify-write;
  // counted as a load and a store and as an atomic. Only the last-block protocol's ticket
  // (gpu/block/last_block.cuh) uses it: nothing reproducible may depend on an atomic's order.
  T FetchAdd(std::int64_t i, T v) const {
    HostBlock* const b = detail::CurrentBlock();
    if (i < 0 || i >= n_) {
      detail::ReportOutOfBounds(*b, name_, i, n_, true);
      return T{};
    }
    const T taken = p_[i];
    if (b != nullptr) {
      b->TakeTicket(reinterpret_cast<std::uint32_t*>(p_ + i), name_, i, static_cast<std::uint32_t>(taken));
      b->CountGlobal(slot_, p_, name_, n_, sizeof(T), false);
      b->CountGlobal(slot_, p_, name_, n_, sizeof(T), true);
    }
    p_[i] = static_cast<T>(taken + v);
    return taken;
  }
  std::int64_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::int64_t n_ = 0;
  const char* name_ = "";
  bool cross_block_ = false;
  mutable detail::CounterSlot slot_;
};

// __threadfence (gpu/block/last_block.cuh): in a phase the current thread's, at block level
// every thread's.
inline void ThreadFence(HostBlock& block) { block.Fence(); }

// __syncwarp in every running warp (a warp operation): no data moves. The emulator credits it
// in the last-block protocol only (a warp's stores before a ticket of one of its lanes); its
// race check does not: a shared word one lane writes and another lane of the warp reads in the
// same barrier interval is still reported.
inline void SyncWarp(HostBlock& block) { block.SyncWarps(); }

// Runs `body(block)` for blocks 0 .. grid-1 of `threads` threads each.
// The report carries the launch's counters; an active LaunchRecorder gets a copy of them.
template <class Body>
LaunchReport Launch(const char* kernel, int grid, int threads, Body&& body) {
  LaunchReport report;
  report.counters.kernel = kernel;
  report.counters.threads = threads;
  const std::uint64_t serial = detail::NextLaunchSerial();
  detail::CrossBlockState cross;
  cross.blocks.resize(static_cast<std::size_t>(grid > 0 ? grid : 0));
  for (int b = 0; b < grid; ++b) {
    HostBlock block(kernel, b, threads, &report, serial, &cross);
    HostBlock* const outer = detail::CurrentBlock();
    detail::CurrentBlock() = &block;
    body(block);
    block.Finish();
    detail::CurrentBlock() = outer;
  }
  detail::FinishCrossBlock(kernel, cross, report);
  RecordLaunch(report.counters);
  return report;
}

}  // namespace emu

// Kernel bodies name these without a namespace.
using emu::Ballot;
using emu::BlockUniform;
using emu::ExchangeXor;
using emu::GlobalArray;
using emu::HostShared;
using emu::Registers;
using emu::ShuffleDown;
using emu::ShuffleFrom;
using emu::ShuffleXor;
using emu::SyncWarp;
using emu::Thread;
using emu::ThreadFence;
using Block = emu::HostBlock;

}  // namespace sampcheck::gpu
