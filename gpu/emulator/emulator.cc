// SPDX-License-Identifier: Apache-2.0
// The checking host emulator (gpu/emulator/emulator.h, docs/gpu.md "The emulator") and its work
// counters (gpu/emulator/emulator_counters.h, docs/gpu.md "Cost model").
#include "gpu/emulator/emulator.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <sstream>
#include <utility>

namespace sampcheck::gpu {

const char* KindName(Violation::Kind kind) {
  switch (kind) {
    case Violation::Kind::kRace: return "shared-memory race";
    case Violation::Kind::kOutOfBounds: return "out-of-bounds access";
    case Violation::Kind::kDivergentBarrier: return "divergent barrier";
    case Violation::Kind::kUninitialisedRead: return "read of uninitialised shared memory";
    case Violation::Kind::kCrossBlock: return "cross-block ordering";
    case Violation::Kind::kMisaligned: return "misaligned vector access";
  }
  return "violation";
}

std::string Violation::Message() const {
  std::ostringstream os;
  os << "gpu kernel '" << kernel << "' ";
  if (block < 0) {
    os << "after its last block";  // the end-of-launch checks
  } else if (thread >= 0) {
    os << "block " << block << " thread " << thread;
  } else {
    os << "block " << block << " block-level code";
  }
  os << ": " << KindName(kind) << " at " << array << '[' << index << "]: " << detail;
  return os.str();
}

std::string LaunchReport::Summary() const {
  std::string s;
  for (const auto& v : violations) s += v.Message() + "\n";
  if (total > static_cast<std::int64_t>(violations.size())) {
    s += "... and " + std::to_string(total - static_cast<std::int64_t>(violations.size())) + " more violations\n";
  }
  return s;
}

namespace emu {

namespace detail {

std::uint64_t NextLaunchSerial() {
  thread_local std::uint64_t serial = 0;
  return ++serial;
}

// Under AddressSanitizer every buffer comes from the heap and goes back to it, so that a use
// of a dead register file or shared array is still reported.
#if defined(__SANITIZE_ADDRESS__)
void* TakeBuffer(std::size_t bytes) { return ::operator new(bytes); }
void GiveBuffer(void* p, std::size_t) noexcept { ::operator delete(p); }
std::size_t PooledBytes() noexcept { return 0; }
#else
namespace {
// A host thread's recycled buffers, by size (bounds in emulator.h). A block holds a few dozen
// register files and shared arrays at once at most, in a handful of sizes: a short list
// searched linearly.
class BufferPool {
 public:
  BufferPool() { buckets_.reserve(kPooledSizes); }
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool() {
    for (Bucket& b : buckets_) {
      for (void* p : b.free) ::operator delete(p);
    }
  }
  void* Take(std::size_t bytes) {
    for (Bucket& b : buckets_) {
      if (b.bytes != bytes) continue;
      if (b.free.empty()) break;
      void* p = b.free.back();
      b.free.pop_back();
      kept_bytes_ -= bytes;
      return p;
    }
    return ::operator new(bytes);
  }
  void Give(void* p, std::size_t bytes) noexcept {
    if (bytes > kPooledBytes - kept_bytes_) {  // the byte bound: back to the heap
      ::operator delete(p);
      return;
    }
    for (Bucket& b : buckets_) {
      if (b.bytes != bytes) continue;
      if (b.free.size() < kPooledBuffersPerSize) {
        b.free.push_back(p);  // no reallocation: reserved to kPooledBuffersPerSize
        kept_bytes_ += bytes;
        return;
      }
      ::operator delete(p);
      return;
    }
    if (buckets_.size() < kPooledSizes) {
      try {
        std::vector<void*> free;
        free.reserve(kPooledBuffersPerSize);
        free.push_back(p);
        buckets_.push_back(Bucket{bytes, std::move(free)});  // reserved in the constructor: no reallocation
        kept_bytes_ += bytes;
        return;
      } catch (const std::bad_alloc&) {
        // no room to keep it: back to the heap
      }
    }
    ::operator delete(p);
  }
  std::size_t Bytes() const noexcept { return kept_bytes_; }

 private:
  struct Bucket {
    std::size_t bytes;
    std::vector<void*> free;
  };
  std::vector<Bucket> buckets_;
  std::size_t kept_bytes_ = 0;  // in the free lists, at most kPooledBytes
};

BufferPool& ThreadPool() {
  thread_local BufferPool pool;
  return pool;
}
}  // namespace

void* TakeBuffer(std::size_t bytes) { return ThreadPool().Take(bytes); }
void GiveBuffer(void* p, std::size_t bytes) noexcept { ThreadPool().Give(p, bytes); }
std::size_t PooledBytes() noexcept { return ThreadPool().Bytes(); }
#endif

std::size_t FindGlobalSlot(LaunchCounters& c, const void* base, const char* name, std::int64_t elements,
                           std::size_t element_bytes) {
  for (std::size_t i = 0; i < c.global.size(); ++i) {
    if (c.global[i].base == base && c.global[i].name == name) return i;
  }
  ArrayTraffic a;
  a.name = name;
  a.base = base;
  a.elements = elements;
  a.element_bytes = static_cast<std::int64_t>(element_bytes);
  c.global.push_back(std::move(a));
  return c.global.size() - 1;
}

std::size_t FindSharedSlot(LaunchCounters& c, const char* name, std::size_t element_bytes) {
  for (std::size_t i = 0; i < c.shared.size(); ++i) {
    if (c.shared[i].name == name) return i;
  }
  ArrayTraffic a;
  a.name = name;
  a.element_bytes = static_cast<std::int64_t>(element_bytes);
  c.shared.push_back(std::move(a));
  return c.shared.size() - 1;
}

}  // namespace detail

HostBlock::HostBlock(const char* kernel, int index, int threads, LaunchReport* report, std::uint64_t launch_serial,
                     detail::CrossBlockState* cross)
    : kernel_(kernel),
      index_(index),
      threads_(threads),
      all_warps_(threads >= 64 * kWarpSize ? ~std::uint64_t{0}
                                           : (std::uint64_t{1} << ((threads + kWarpSize - 1) / kWarpSize)) - 1),
      warp_mask_(all_warps_),
      report_(report),
      launch_serial_(launch_serial),
      interval_work_(static_cast<std::size_t>(threads), 0),
      cross_(cross) {}

void HostBlock::FindGlobalSlot(detail::CounterSlot& slot, const void* base, const char* name, std::int64_t elements,
                               std::size_t bytes) {
  slot.index = detail::FindGlobalSlot(report_->counters, base, name, elements, bytes);
  slot.launch = launch_serial_;
}

// The last-block protocol (gpu/block/last_block.cuh, docs/gpu.md "The emulator's checks").
void HostBlock::TrackStore(std::size_t slot, std::int64_t elements, std::int64_t i) {
  if (cross_ == nullptr) return;
  if (cross_->writers.size() <= slot) cross_->writers.resize(slot + 1);
  std::vector<std::int32_t>& w = cross_->writers[slot];
  if (w.empty()) w.assign(static_cast<std::size_t>(elements), -1);
  w[static_cast<std::size_t>(i)] = index_;
  detail::BlockTicket& mine = cross_->blocks[static_cast<std::size_t>(index_)];
  if (mine.word != nullptr) mine.stored_after = true;
}

void HostBlock::TrackLoad(std::size_t slot, const char* name, std::int64_t i) {
  if (cross_ == nullptr || cross_->writers.size() <= slot || cross_->writers[slot].empty()) return;
  const std::int32_t writer = cross_->writers[slot][static_cast<std::size_t>(i)];
  if (writer < 0 || writer == index_) return;
  detail::BlockTicket& mine = cross_->blocks[static_cast<std::size_t>(index_)];
  const detail::BlockTicket& theirs = cross_->blocks[static_cast<std::size_t>(writer)];
  const std::string who = "block " + std::to_string(writer);
  if (!acquired_) {
    Report(Violation::Kind::kCrossBlock, current_, name, i,
           "reads a word " + who + " wrote in this launch before taking a ticket and fencing after it "
           "(LastBlockOf): on a device " + who + " may not have written it yet");
  } else if (theirs.word != mine.word) {
    Report(Violation::Kind::kCrossBlock, current_, name, i,
           who + " wrote it without a ticket on this block's counter word: its store is not ordered before this read");
  } else {
    mine.read_others = true;
  }
}

void HostBlock::NoteGlobalStore() {
  ++unfenced_stores_;
  const int thread = in_phase_ ? current_ : kSeveralThreads;  // block-level code: every thread stores
  const int warp = in_phase_ ? current_ / kWarpSize : kSeveralThreads;
  if (store_epoch_ != epoch_) {
    store_epoch_ = epoch_;
    store_thread_ = thread;
    store_warp_ = warp;
  } else {
    if (store_thread_ != thread) store_thread_ = kSeveralThreads;
    if (store_warp_ != warp) store_warp_ = kSeveralThreads;
  }
  store_warp_synced_ = false;
}

// __syncwarp orders memory among its warp's lanes as a barrier does among the block's threads:
// the stores of this interval, when one warp made them all and that warp syncs, are ordered
// before its lanes' later work (a ticket of one of them: TakeTicket).
void HostBlock::SyncWarps() {
  WarpOp("SyncWarp");
  if (store_epoch_ == epoch_ && store_warp_ >= 0 && WarpActive(store_warp_)) store_warp_synced_ = true;
}

// A fence orders the fencing thread's stores, and (cumulatively) every store a barrier ordered
// before it; another thread's store in the same barrier interval is left to the ticket's check.
void HostBlock::Fence() {
  ++report_->counters.fences;
  unfenced_stores_ = 0;
  if (cross_ != nullptr && cross_->blocks[static_cast<std::size_t>(index_)].word != nullptr) acquired_ = true;
}

void HostBlock::TakeTicket(std::uint32_t* word, const char* name, std::int64_t i, std::uint32_t taken) {
  ++report_->counters.atomics;
  if (!in_phase_) {
    Report(Violation::Kind::kCrossBlock, -1, name, i,
           "a ticket taken in block-level code: every thread of the block would take one (take it in one thread)");
  } else if (unfenced_stores_ > 0) {
    Report(Violation::Kind::kCrossBlock, current_, name, i,
           "a ticket taken after " + std::to_string(unfenced_stores_) +
               " global store(s) of this block with no ThreadFence since: the last block may not see them");
  } else if (store_epoch_ == epoch_ && store_thread_ != current_ &&
             !(store_warp_synced_ && store_warp_ == current_ / kWarpSize)) {
    Report(Violation::Kind::kCrossBlock, current_, name, i,
           std::string("a ticket taken after ") +
               (store_thread_ == kSeveralThreads ? std::string("other threads'") : "thread " + std::to_string(store_thread_) + "'s") +
               " global store(s) with no barrier (or SyncWarp of their warp) between: the last block may not see "
               "them");
  }
  if (cross_ == nullptr) return;
  detail::BlockTicket& mine = cross_->blocks[static_cast<std::size_t>(index_)];
  if (mine.word != nullptr) {
    Report(Violation::Kind::kCrossBlock, current_, name, i, "a second ticket in one block: one per block and launch");
  }
  mine.word = word;
  mine.name = name;
  mine.index = i;
  mine.taken = taken;
  for (detail::TicketWord& w : cross_->words) {
    if (w.word == word) {
      ++w.tickets;
      return;
    }
  }
  cross_->words.push_back(detail::TicketWord{word, name, i, 1});
}

// The interval's chain: the block-level accesses (every thread runs them) plus the busiest
// thread's accesses in the interval's phases.
void HostBlock::CloseInterval() {
  const std::int64_t block_level = accesses_ - interval_start_ - interval_phase_accesses_;
  const std::int64_t chain = block_level + interval_busiest_;
  LaunchCounters& c = report_->counters;
  c.longest_chain = std::max(c.longest_chain, chain);
  path_ += chain;
  intervals_.push_back(chain);
  std::fill(interval_work_.begin(), interval_work_.end(), 0);
  interval_busiest_ = 0;
  interval_start_ = accesses_;
  interval_phase_accesses_ = 0;
}

void HostBlock::Finish() {
  CloseInterval();
  LaunchCounters& c = report_->counters;
  ++c.blocks;
  c.barriers += epoch_;
  c.max_block_barriers = std::max<std::int64_t>(c.max_block_barriers, epoch_);
  c.phases += phases_;
  if (path_ > c.critical_path || c.blocks == 1) {  // the first block whose path is the longest
    c.critical_path = path_;
    c.critical_intervals = intervals_;
  }
  c.max_block_global_bytes = std::max(c.max_block_global_bytes, block_global_bytes_);
}

void HostBlock::Report(Violation::Kind kind, int thread, const std::string& array, std::int64_t index,
                       std::string detail) {
  ++report_->total;
  if (report_->violations.size() >= LaunchReport::kMaxRecorded) return;
  report_->violations.push_back(Violation{kind, kernel_, index_, thread, array, index, std::move(detail)});
}

void HostBlock::AddShared(std::size_t slot, std::size_t element_bytes, std::int64_t loads, std::int64_t stores) {
  ArrayTraffic& a = report_->counters.shared[slot];
  const auto bytes = static_cast<std::int64_t>(element_bytes);
  a.loads += loads;
  a.load_bytes += loads * bytes;
  a.stores += stores;
  a.store_bytes += stores * bytes;
}

void HostBlock::CheckPhaseBarriers() {
  // Every thread must reach the same barriers. A thread that reached fewer than the most any
  // thread reached is the divergence; if all reached the same positive number, the barrier is
  // legal CUDA but cannot be honoured by a phase that runs thread after thread.
  int most = 0;
  int most_thread = 0;
  const int* const reached = phase_barriers_.data();  // a call per index at -O0 otherwise
  for (int t = 0; t < threads_; ++t) {
    if (reached[t] > most) {
      most = reached[t];
      most_thread = t;
    }
  }
  if (most == 0) return;
  bool divergent = false;
  for (int t = 0; t < threads_; ++t) {
    const int n = phase_barriers_[static_cast<std::size_t>(t)];
    if (n < most) {
      divergent = true;
      Report(Violation::Kind::kDivergentBarrier, t, "barrier", epoch_ + n,
             "thread " + std::to_string(t) + " reached " + std::to_string(n) + " barrier(s) in this phase, thread " +
                 std::to_string(most_thread) + " reached " + std::to_string(most) +
                 ": a __syncthreads not reached by every thread of the block");
      break;  // one report per phase: the rest repeat it
    }
  }
  if (!divergent) {
    Report(Violation::Kind::kDivergentBarrier, most_thread, "barrier", epoch_,
           "a barrier inside a phase (every thread reached it); the block model puts barriers between phases: "
           "split the phase there");
  }
}

void HostBlock::Sync() {
  if (in_phase_) {
    if (!phase_synced_) {  // the phase's first barrier: no thread before this one reached any
      phase_barriers_.assign(static_cast<std::size_t>(threads_), 0);
      phase_synced_ = true;
    }
    ++phase_barriers_[static_cast<std::size_t>(current_)];
    return;
  }
  if (!AllWarps()) {  // the warps ForWarps left out never reach it
    int left_out = 0;
    while (WarpActive(left_out / kWarpSize)) left_out += kWarpSize;
    Report(Violation::Kind::kDivergentBarrier, left_out, "barrier", epoch_,
           "a barrier inside ForWarps: the warps it leaves out (this thread's among them) never reach it");
  }
  CloseInterval();
  ++epoch_;
}

void HostBlock::WarpOp(const char* what, bool counted) {
  if (!in_phase_) {
    if (counted) {
      ++report_->counters.warp_ops;
      report_->counters.warp_op_warps += std::popcount(warp_mask_);
    }
    return;
  }
  Report(Violation::Kind::kDivergentBarrier, current_, "warp op", epoch_,
         std::string(what) + " called inside a phase: warp operations are block-level collectives");
}

HostRegisters<std::uint32_t> Ballot(HostBlock& block, const HostRegisters<bool>& p) {
  block.WarpOp("Ballot");
  using R = HostRegisters<std::uint32_t>;
  R out = block.AllWarps() ? R(p.size(), R::Unfilled{}) : R(p.size(), 0u);  // 0 in the warps left out
  for (int w = 0; w * kWarpSize < p.size(); ++w) {
    if (!block.WarpActive(w)) continue;
    std::uint32_t mask = 0;
    for (int l = 0; l < kWarpSize && w * kWarpSize + l < p.size(); ++l) {
      if (p.at(w * kWarpSize + l)) mask |= 1u << l;
    }
    for (int l = 0; l < kWarpSize && w * kWarpSize + l < p.size(); ++l) out.at(w * kWarpSize + l) = mask;
  }
  return out;
}

namespace detail {

namespace {
std::string Between(std::int32_t epoch) {
  return "between barriers " + std::to_string(epoch) + " and " + std::to_string(epoch + 1) +
         " (barrier 0 = kernel start)";
}
}  // namespace

// The shadow word as the check found it (before this access updates it).
void ReportSharedLoad(HostBlock& b, const char* name, std::int64_t i, const ShadowWord& w) {
  const int t = b.current_thread();
  const std::int32_t e = b.epoch();
  if (w.write_epoch < 0) {
    b.Report(Violation::Kind::kUninitialisedRead, t, name, i, "read before any thread wrote it");
  } else {
    b.Report(Violation::Kind::kRace, t, name, i,
             "written by thread " + std::to_string(w.writer) + " and read by thread " + std::to_string(t) + " " +
                 Between(e));
  }
}

void ReportSharedStore(HostBlock& b, const char* name, std::int64_t i, const ShadowWord& w) {
  const int t = b.current_thread();
  const std::int32_t e = b.epoch();
  if (w.write_epoch == e && w.writer != t) {
    b.Report(Violation::Kind::kRace, t, name, i,
             "written by thread " + std::to_string(w.writer) + " and by thread " + std::to_string(t) + " " + Between(e));
  } else {
    b.Report(Violation::Kind::kRace, t, name, i,
             "read by " + (w.reader == ShadowWord::kSeveral ? std::string("several threads") : "thread " + std::to_string(w.reader)) +
                 " and written by thread " + std::to_string(t) + " " + Between(e));
  }
}

void FinishCrossBlock(const char* kernel, const CrossBlockState& state, LaunchReport& report) {
  auto report_one = [&](int block, const char* array, std::int64_t index, std::string detail) {
    ++report.total;
    if (report.violations.size() >= LaunchReport::kMaxRecorded) return;
    report.violations.push_back(
        Violation{Violation::Kind::kCrossBlock, kernel, block, -1, array, index, std::move(detail)});
  };
  for (const TicketWord& w : state.words) {
    if (*w.word != 0) {
      report_one(-1, w.name, w.index,
                 "ticket counter left at " + std::to_string(*w.word) + " after " + std::to_string(w.tickets) +
                     " ticket(s): the last block resets it to 0 for the next launch (a group size that is not "
                     "the number of blocks taking tickets?)");
    }
  }
  for (std::size_t b = 0; b < state.blocks.size(); ++b) {
    const BlockTicket& t = state.blocks[b];
    if (t.word == nullptr || !(t.read_others || t.stored_after)) continue;
    std::int64_t tickets = 0;
    for (const TicketWord& w : state.words) {
      if (w.word == t.word) tickets = w.tickets;
    }
    if (static_cast<std::int64_t>(t.taken) + 1 == tickets) continue;
    report_one(static_cast<int>(b), t.name, t.index,
               std::string(t.read_others ? "read other blocks' words" : "stored to scratch after its ticket") +
                   " holding ticket " + std::to_string(t.taken) + " of " + std::to_string(tickets) +
                   ": only the last block may (on a device the order of tickets is not the order of blocks)");
  }
}

void ReportOutOfBounds(HostBlock& b, const char* name, std::int64_t i, std::int64_t size, bool store) {
  b.Report(Violation::Kind::kOutOfBounds, b.current_thread(), name, i,
           std::string(store ? "store" : "load") + " outside [0, " + std::to_string(size) + ")");
}

void ReportMisaligned(HostBlock& b, const char* name, std::int64_t i) {
  b.Report(Violation::Kind::kMisaligned, b.current_thread(), name, i,
           "16-byte load of an element whose address is not on a 16-byte boundary");
}

}  // namespace detail
}  // namespace emu
}  // namespace sampcheck::gpu
