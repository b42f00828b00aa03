// SPDX-License-Identifier: Apache-2.0
// The draw harness's case list: the family registry and the shared case builder
// (harness/stat_cases/stat_cases.h, docs/spec/harness.md "Families").
#include "harness/stat_cases/stat_cases.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>

namespace sampcheck::statistical {
namespace {

// A deque: registration never moves a family.
std::deque<StatFamily>& Families() {
  static std::deque<StatFamily> families;
  return families;
}

}  // namespace

StatCase NewStatCase(std::string family, Case input, double mde_tv_ci, double mde_tv_thorough, double targeted_ratio) {
  StatCase s;
  s.id = input.id;
  s.family = std::move(family);
  s.input = std::move(input);
  s.mde_tv_ci = mde_tv_ci;
  s.mde_tv_thorough = mde_tv_thorough;
  s.targeted_ratio = targeted_ratio;
  return s;
}

void StatCaseList::Add(std::string family, Case c, double ci, double thorough, double ratio) {
  cases.push_back(NewStatCase(std::move(family), std::move(c), ci, thorough, ratio));
}

StatFamilyRegistrar::StatFamilyRegistrar(StatFamily family) {
  if (family.cases == nullptr) throw std::logic_error("statistical case family: no cases function");
  Families().push_back(family);
}

std::vector<StatCase> DrawStatCases() {
  std::vector<const StatFamily*> ordered;
  for (const StatFamily& f : Families()) ordered.push_back(&f);
  std::sort(ordered.begin(), ordered.end(), [](const StatFamily* a, const StatFamily* b) { return a->position < b->position; });
  for (std::size_t i = 1; i < ordered.size(); ++i) {
    if (ordered[i]->position == ordered[i - 1]->position) {
      throw std::logic_error("statistical case families: two families registered at position " +
                             std::to_string(ordered[i]->position));
    }
  }
  std::vector<StatCase> all;
  for (const StatFamily* f : ordered) {
    for (StatCase& c : f->cases()) all.push_back(std::move(c));
  }
  return all;
}

}  // namespace sampcheck::statistical
