// SPDX-License-Identifier: Apache-2.0
// Golden case family for the noise stage (docs/spec/noise.md): every generator and law at
// edge seeds and counters (a negative seed, offsets at and across a Philox block boundary,
// the 2^32 carry into SGLang's position word, the largest allowed offset) and random seeds
// and offsets with a thousand samples per row.
#include <cstdint>
#include <string>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {

constexpr const char* kGenerators[] = {"philox", "murmur3"};
constexpr const char* kLaws[] = {"uniform", "exponential", "gumbel"};

}  // namespace

void AddNoiseCases(CaseList& list) {
  // The header's worked example (reference/noise.h).
  list.Add("noise", "header_example", {{"seed", I64({1}, {0})}, {"offset", I64({1}, {0})}},
           {{"law", "uniform"}, {"generator", "philox"}, {"n", 1}});
  list.Add("noise", "empty", {{"seed", I64({2}, {1, 2})}, {"offset", I64({2}, {0, 5})}}, {{"law", "gumbel"}, {"n", 0}});
  const std::int64_t last = (std::int64_t{1} << 62) - 16;
  for (const char* generator : kGenerators) {
    for (const char* law : kLaws) {
      const std::string suffix = std::string(generator) + "_" + law;
      // n = 9 crosses at least two Philox blocks from every offset; offset 2^32 - 3 crosses
      // the carry from SGLang's column word into its position word.
      list.Add("noise", "edges_" + suffix,
               {{"seed", I64({5}, {0, -1, 42, 1234567890123, -9223372036854775807 - 1})},
                {"offset", I64({5}, {0, 3, 4294967293, std::int64_t{7} << 32, last})}},
               {{"law", law}, {"generator", generator}, {"n", 9}});
      auto rng = list.Rng("noise", "random_" + suffix);
      Tensor offsets(DType::kI64, {4});
      for (auto& o : offsets.data<std::int64_t>()) o = static_cast<std::int64_t>(rng.Next() >> 24);  // < 2^40
      list.Add("noise", "random_" + suffix, {{"seed", RandomSeeds(rng, 4)}, {"offset", offsets}},
               {{"law", law}, {"generator", generator}, {"n", 1000}});
    }
  }
}

SAMPCHECK_CASE_FAMILY(Noise, {.stages = {"noise"}, .add = AddNoiseCases});

}  // namespace sampcheck::golden
