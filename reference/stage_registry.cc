// SPDX-License-Identifier: Apache-2.0
// The reference stage registry (reference/stage_registry.h).
#include "reference/stage_registry.h"

#include <stdexcept>

namespace sampcheck::reference {
namespace {

std::map<std::string, StageFn>& Registry() {
  static std::map<std::string, StageFn> stages;
  return stages;
}

void Register(const std::string& stage, StageFn fn) {
  if (!Registry().emplace(stage, fn).second) {
    throw std::logic_error("reference stage '" + stage + "' is registered twice");
  }
}

}  // namespace

const std::map<std::string, StageFn>& ReferenceStages() { return Registry(); }

ReferenceStageRegistrar::ReferenceStageRegistrar(const char* stage, StageFn fn) { Register(stage, fn); }

ScopedReferenceStage::ScopedReferenceStage(std::string stage, StageFn fn) : stage_(std::move(stage)) {
  Register(stage_, fn);
}

ScopedReferenceStage::~ScopedReferenceStage() { Registry().erase(stage_); }

}  // namespace sampcheck::reference
