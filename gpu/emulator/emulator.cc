// SPDX-License-Identifier: Apache-2.0
// The checking host emulator (gpu/emulator/emulator.h, docs/gpu.md "The emulator") and its work
// counters (gpu/emulator/emulator_counters.h, docs/gpu.md "Cost model").
#include "gpu/emulator/emulator.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace sampcheck::gpu {

const char* KindName(Violation::Kind kind) {
  switch (kind) {
    case Violation::Kind::kRace: return "shared-memory race";
    case Violation::Kind::kOutOfBounds: return "out-of-bounds access";
    case Violation::Kind::kDivergentBarrier: return "divergent barrier";
    case Violation::Kind::kUninitialisedRead: return "read of uninitialised shared memory";
  }
  return "violation";
}

std::string Violation::Message() const {
  std::ostringstream os;
  os << "gpu kernel '" << kernel << "' block " << block << ' ';
  if (thread >= 0) {
    os << "thread " << thread;
  } else {
    os << "block-level code";
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

HostBlock::HostBlock(const char* kernel, int index, int threads, LaunchReport* report, std::uint64_t launch_serial)
    : kernel_(kernel),
      index_(index),
      threads_(threads),
      report_(report),
      launch_serial_(launch_serial),
      interval_work_(static_cast<std::size_t>(threads), 0) {}

// The interval's chain: the block-level accesses (every thread runs them) plus the busiest
// thread's accesses in the interval's phases.
void HostBlock::CloseInterval() {
  const std::int64_t busiest =
      interval_work_.empty() ? 0 : *std::max_element(interval_work_.begin(), interval_work_.end());
  const std::int64_t chain = block_level_work_ + busiest;
  LaunchCounters& c = report_->counters;
  c.longest_chain = std::max(c.longest_chain, chain);
  path_ += chain;
  std::fill(interval_work_.begin(), interval_work_.end(), 0);
  block_level_work_ = 0;
}

void HostBlock::Finish() {
  CloseInterval();
  LaunchCounters& c = report_->counters;
  ++c.blocks;
  c.barriers += epoch_;
  c.max_block_barriers = std::max<std::int64_t>(c.max_block_barriers, epoch_);
  c.phases += phases_;
  c.critical_path = std::max(c.critical_path, path_);
}

void HostBlock::Report(Violation::Kind kind, int thread, const std::string& array, std::int64_t index,
                       std::string detail) {
  ++report_->total;
  if (report_->violations.size() >= LaunchReport::kMaxRecorded) return;
  report_->violations.push_back(Violation{kind, kernel_, index_, thread, array, index, std::move(detail)});
}

void HostBlock::BeginPhase() {
  in_phase_ = true;
  ++phases_;
  phase_barriers_.assign(static_cast<std::size_t>(threads_), 0);
}

void HostBlock::EndPhase() {
  in_phase_ = false;
  current_ = -1;
  // Every thread must reach the same barriers. A thread that reached fewer than the most any
  // thread reached is the divergence; if all reached the same positive number, the barrier is
  // legal CUDA but cannot be honoured by a phase that runs thread after thread.
  int most = 0;
  int most_thread = 0;
  for (int t = 0; t < threads_; ++t) {
    if (phase_barriers_[static_cast<std::size_t>(t)] > most) {
      most = phase_barriers_[static_cast<std::size_t>(t)];
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
    ++phase_barriers_[static_cast<std::size_t>(current_)];
    return;
  }
  CloseInterval();
  ++epoch_;
}

void HostBlock::WarpOp(const char* what, bool counted) {
  if (!in_phase_) {
    if (counted) ++report_->counters.warp_ops;
    return;
  }
  Report(Violation::Kind::kDivergentBarrier, current_, "warp op", epoch_,
         std::string(what) + " called inside a phase: warp operations are block-level collectives");
}

HostRegisters<std::uint32_t> Ballot(HostBlock& block, const HostRegisters<bool>& p) {
  block.WarpOp("Ballot");
  HostRegisters<std::uint32_t> out(p.size(), 0u);
  for (int w = 0; w * kWarpSize < p.size(); ++w) {
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

void CheckSharedLoad(HostBlock& b, const char* name, std::int64_t i, ShadowWord& w) {
  const int t = b.current_thread();
  const std::int32_t e = b.epoch();
  if (w.write_epoch < 0) {
    b.Report(Violation::Kind::kUninitialisedRead, t, name, i, "read before any thread wrote it");
  } else if (w.write_epoch == e && w.writer != t) {
    b.Report(Violation::Kind::kRace, t, name, i,
             "written by thread " + std::to_string(w.writer) + " and read by thread " + std::to_string(t) + " " +
                 Between(e));
  }
  if (w.read_epoch != e) {
    w.read_epoch = e;
    w.reader = t;
  } else if (w.reader != t) {
    w.reader = ShadowWord::kSeveral;
  }
}

void CheckSharedStore(HostBlock& b, const char* name, std::int64_t i, ShadowWord& w) {
  const int t = b.current_thread();
  const std::int32_t e = b.epoch();
  if (w.write_epoch == e && w.writer != t) {
    b.Report(Violation::Kind::kRace, t, name, i,
             "written by thread " + std::to_string(w.writer) + " and by thread " + std::to_string(t) + " " + Between(e));
  } else if (w.read_epoch == e && w.reader != t) {
    b.Report(Violation::Kind::kRace, t, name, i,
             "read by " + (w.reader == ShadowWord::kSeveral ? std::string("several threads") : "thread " + std::to_string(w.reader)) +
                 " and written by thread " + std::to_string(t) + " " + Between(e));
  }
  w.write_epoch = e;
  w.writer = t;
}

void ReportOutOfBounds(HostBlock& b, const char* name, std::int64_t i, std::int64_t size, bool store) {
  b.Report(Violation::Kind::kOutOfBounds, b.current_thread(), name, i,
           std::string(store ? "store" : "load") + " outside [0, " + std::to_string(size) + ")");
}

}  // namespace detail
}  // namespace emu
}  // namespace sampcheck::gpu
