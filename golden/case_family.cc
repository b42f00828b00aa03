// SPDX-License-Identifier: Apache-2.0
// The case-family registry (golden/case_family.h).
#include "golden/case_family.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "core/stage_catalogue.h"

namespace sampcheck::golden {
namespace {

// A deque: registration never moves a family, so pointers handed out stay valid.
std::deque<CaseFamily>& Registry() {
  static std::deque<CaseFamily> families;
  return families;
}

std::size_t CatalogueIndex(const std::string& stage) {
  const auto& catalogue = StageCatalogue();
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    if (catalogue[i].name == stage) return i;
  }
  throw std::logic_error("case family: stage '" + stage + "' is not in the stage catalogue");
}

}  // namespace

CaseFamilyRegistrar::CaseFamilyRegistrar(CaseFamily family) {
  if (family.stages.empty() || family.add == nullptr) {
    throw std::logic_error("case family: a family needs at least one stage and an add function");
  }
  Registry().push_back(std::move(family));
}

std::vector<const CaseFamily*> CaseFamilies() {
  std::vector<std::pair<std::size_t, const CaseFamily*>> ordered;
  for (const CaseFamily& f : Registry()) ordered.emplace_back(CatalogueIndex(f.stages.front()), &f);
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const CaseFamily*> out;
  for (const auto& [index, f] : ordered) out.push_back(f);
  return out;
}

const CaseFamily* FindCaseFamily(const std::string& stage) {
  for (const CaseFamily& f : Registry()) {
    if (std::find(f.stages.begin(), f.stages.end(), stage) != f.stages.end()) return &f;
  }
  return nullptr;
}

}  // namespace sampcheck::golden
