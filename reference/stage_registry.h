// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reference implementations by stage name (docs/architecture.md "One place per stage").
// Each stage's own file registers its entry point with SAMPCHECK_REFERENCE_STAGE, so the
// reference backend (reference/reference_backend.h) needs no list of stages; the library is
// linked whole (reference/CMakeLists.txt) so no registrar is dropped. A test or an embedding
// program that defines a stage of its own registers it for a scope with
// ScopedReferenceStage, beside a ScopedStageRegistration of its catalogue entry.
//
// Example (reference/top_p.cc): SAMPCHECK_REFERENCE_STAGE(top_p, RunTopP);

#include <map>
#include <string>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

using StageFn = TensorMap (*)(const Case&, Profile);

// Every registered stage, by name. Registration happens at static initialisation (or through
// ScopedReferenceStage before any other thread runs a stage).
const std::map<std::string, StageFn>& ReferenceStages();

struct ReferenceStageRegistrar {
  ReferenceStageRegistrar(const char* stage, StageFn fn);
};

class ScopedReferenceStage {
 public:
  ScopedReferenceStage(std::string stage, StageFn fn);
  ~ScopedReferenceStage();
  ScopedReferenceStage(const ScopedReferenceStage&) = delete;
  ScopedReferenceStage& operator=(const ScopedReferenceStage&) = delete;

 private:
  std::string stage_;
};

}  // namespace sampcheck::reference

#define SAMPCHECK_REFERENCE_STAGE(stage, fn) \
  static const ::sampcheck::reference::ReferenceStageRegistrar kSampcheckReferenceStage_##stage(#stage, fn)
