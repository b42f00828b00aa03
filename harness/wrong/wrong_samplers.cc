// SPDX-License-Identifier: Apache-2.0
// The planted faults' registry (harness/wrong/wrong_samplers.h): every `wrong:NAME` a family
// file registers, and the sized forms.
#include "harness/wrong/wrong_samplers.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "harness/wrong/wrong_backend.h"

namespace sampcheck::statistical {
namespace {

// A deque: registration never moves an entry.
std::deque<WrongSampler>& Registry() {
  static std::deque<WrongSampler> registry;
  return registry;
}

// The registered samplers by name, so that the list is the same whatever the link order.
std::vector<const WrongSampler*> ByName() {
  std::vector<const WrongSampler*> out;
  for (const WrongSampler& w : Registry()) out.push_back(&w);
  std::sort(out.begin(), out.end(), [](const WrongSampler* a, const WrongSampler* b) { return a->info.name < b->info.name; });
  return out;
}

}  // namespace

WrongSamplerRegistrar::WrongSamplerRegistrar(WrongSampler sampler) {
  if (sampler.info.name.empty() || sampler.make == nullptr) {
    throw std::logic_error("wrong sampler: an entry needs a name and a make function");
  }
  for (const WrongSampler& w : Registry()) {
    if (w.info.name == sampler.info.name) throw std::logic_error("wrong sampler '" + w.info.name + "' registered twice");
  }
  Registry().push_back(std::move(sampler));
}

const std::vector<WrongSamplerInfo>& WrongSamplers() {
  static const std::vector<WrongSamplerInfo> list = [] {
    std::vector<WrongSamplerInfo> v;
    for (const WrongSampler* w : ByName()) v.push_back(w->info);
    return v;
  }();
  return list;
}

std::unique_ptr<Backend> MakeWrongSampler(const std::string& name) {
  std::string names;
  for (const WrongSampler* w : ByName()) {
    if (w->info.name == name) return w->make();
    names += (names.empty() ? "" : ", ") + w->info.name;
  }
  if (auto sized = MakeSizedFault(name)) return sized;
  throw std::invalid_argument("unknown wrong sampler '" + name + "'; valid: " + names +
                              "; and the sized forms temperature_x<t>, diffuse_tv<tau>, mass_shift_tv<tau>, leak<m> "
                              "(a decimal size with a '.' or an exponent, e.g. temperature_x1.003, leak1e-6)");
}

}  // namespace sampcheck::statistical
