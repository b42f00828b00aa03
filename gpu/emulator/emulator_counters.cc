// SPDX-License-Identifier: Apache-2.0
// The emulator's work counters (gpu/emulator/emulator_counters.h, docs/gpu.md "Cost model").
#include "gpu/emulator/emulator_counters.h"

namespace sampcheck::gpu {

namespace {

LaunchRecorder*& ActiveRecorder() {
  thread_local LaunchRecorder* recorder = nullptr;
  return recorder;
}

template <class F>
std::int64_t Sum(const std::vector<ArrayTraffic>& arrays, F&& f) {
  std::int64_t s = 0;
  for (const auto& a : arrays) s += f(a);
  return s;
}

}  // namespace

std::int64_t LaunchCounters::GlobalLoadBytes() const {
  return Sum(global, [](const ArrayTraffic& a) { return a.load_bytes; });
}
std::int64_t LaunchCounters::GlobalStoreBytes() const {
  return Sum(global, [](const ArrayTraffic& a) { return a.store_bytes; });
}
std::int64_t LaunchCounters::SharedAccesses() const {
  return Sum(shared, [](const ArrayTraffic& a) { return a.loads + a.stores; });
}
std::int64_t LaunchCounters::SharedBytes() const {
  return Sum(shared, [](const ArrayTraffic& a) { return a.load_bytes + a.store_bytes; });
}
ArrayTraffic LaunchCounters::Global(std::string_view name) const {
  ArrayTraffic sum;
  sum.name = std::string(name);
  for (const ArrayTraffic& a : global) {
    if (a.name != name) continue;
    if (sum.base == nullptr) {
      sum.base = a.base;
      sum.elements = a.elements;
      sum.element_bytes = a.element_bytes;
    }
    sum.loads += a.loads;
    sum.stores += a.stores;
    sum.load_bytes += a.load_bytes;
    sum.store_bytes += a.store_bytes;
  }
  return sum;
}
std::int64_t LaunchCounters::GlobalLoadBytes(std::string_view name) const { return Global(name).load_bytes; }

LaunchRecorder::LaunchRecorder() : outer_(ActiveRecorder()) { ActiveRecorder() = this; }
LaunchRecorder::~LaunchRecorder() { ActiveRecorder() = outer_; }

void RecordLaunch(const LaunchCounters& counters) {
  if (LaunchRecorder* r = ActiveRecorder()) r->launches_.push_back(counters);
}

double RowPasses(const std::vector<LaunchCounters>& launches, std::int64_t rows, std::int64_t vocab) {
  const std::int64_t row_elements = rows * vocab;
  std::int64_t bytes = 0;
  for (const auto& l : launches) {
    for (const auto& a : l.global) {
      if (a.elements >= row_elements) bytes += a.load_bytes;
    }
  }
  return static_cast<double>(bytes) / (static_cast<double>(row_elements) * 4.0);
}

double LogitsPasses(const std::vector<LaunchCounters>& launches, std::int64_t rows, std::int64_t vocab) {
  std::int64_t bytes = 0;
  for (const auto& l : launches) bytes += l.GlobalLoadBytes("logits");
  return static_cast<double>(bytes) / (static_cast<double>(rows * vocab) * 4.0);
}

}  // namespace sampcheck::gpu
