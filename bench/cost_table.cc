// SPDX-License-Identifier: Apache-2.0
// sampcheck_cost_table: the cost model's per-kernel table (docs/gpu.md "Cost model"): each
// sampling path of gpu/runners/resident_sampling.h run on the counting emulator
// (gpu/cost/sampling_cost.h) at the device benchmark's shapes and variants, printed as a markdown
// table of row passes, logits passes, barriers per row, longest chain, critical path and the
// estimated H100 time (gpu/cost/cost_model.h). Counted work, not timing: the same table on every
// machine. The whole table emulates about 1.5 x 10^6 rows x passes; minutes on one core.
//
//   sampcheck_cost_table [--quick] [--intervals] [--variant NAME] [--rows B] [--path PATH]
//     --quick: B <= 4 only, seconds; --intervals: after each row, its launches' critical paths
//     by barrier interval (LaunchCounters::critical_intervals): the count of intervals and the
//     largest ones, "index: chain", which says which phase of a kernel holds its serial work,
//     then every interval's chain in order ("all:"), to match intervals with a kernel's barriers
//     (bench/interval_sites.py names the barrier that closes each); --variant, --rows, --path:
//     only the rows of that variant (its name as printed), that B, that path (gpu, gpu-fast).
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/cost/cost_model.h"
#include "gpu/cost/sampling_cost.h"

namespace {

using sampcheck::gpu::SamplingCostShape;

struct Variant {
  const char* name;
  SamplingCostShape shape;
};

std::vector<Variant> Variants(bool quick) {
  std::vector<Variant> v;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes =
      quick ? std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 128256}, {4, 128256}}
            : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 128256}, {64, 128256}, {256, 128256}, {256, 151936}};
  for (const auto& [rows, vocab] : shapes) {
    SamplingCostShape s;
    s.rows = rows;
    s.vocab = vocab;
    v.push_back({"top-k 50, top-p 0.9", s});
    s.min_p = 0.05f;
    v.push_back({"+ min-p 0.05", s});
  }
  // The worst cases of the goal table at 64 x 128256 (4 rows with --quick).
  SamplingCostShape w;
  w.rows = quick ? 4 : 64;
  w.vocab = 128256;
  SamplingCostShape flat = w;
  flat.flat = true;
  v.push_back({"flat rows", flat});
  SamplingCostShape near_v = w;
  near_v.top_k = static_cast<std::int32_t>(w.vocab - 1);
  v.push_back({"top-k V - 1", near_v});
  SamplingCostShape near_v_100 = w;  // top-k near V past the few largest keys a thread keeps
  near_v_100.top_k = static_cast<std::int32_t>(w.vocab - 100);
  v.push_back({"top-k V - 100", near_v_100});
  SamplingCostShape mid_k = w;  // 1024 < k < V - 1024: neither survivor gather applies
  mid_k.top_k = 5000;
  v.push_back({"top-k 5000, top-p 0.9", mid_k});
  SamplingCostShape near_one = w;
  near_one.top_k = 0;  // top-p alone, so that it walks the whole row
  near_one.top_p = 0.999f;
  v.push_back({"top-k off, top-p 0.999", near_one});
  SamplingCostShape min_p_one = w;
  min_p_one.min_p = 1.0f;
  v.push_back({"min-p 1", min_p_one});
  // The same worst cases on flat rows, and min-p 1 with nothing else on (no top-k gather).
  SamplingCostShape flat_near_v = near_v;
  flat_near_v.flat = true;
  v.push_back({"flat rows, top-k V - 1", flat_near_v});
  SamplingCostShape flat_near_one = near_one;
  flat_near_one.flat = true;
  v.push_back({"flat rows, top-k off, top-p 0.999", flat_near_one});
  SamplingCostShape min_p_alone = min_p_one;
  min_p_alone.top_k = 0;
  min_p_alone.top_p = 1.0f;
  v.push_back({"min-p 1, top-k and top-p off", min_p_alone});
  // gpu-fast's min-p-only probe of 64 keys cannot hold a flat row's kept set: its fallback.
  SamplingCostShape flat_min_p_alone = min_p_alone;
  flat_min_p_alone.flat = true;
  v.push_back({"flat rows, min-p 1, top-k and top-p off", flat_min_p_alone});
  // Greedy rows (temperature 0): the goal is a fraction of the copy's bandwidth at B >= 64.
  SamplingCostShape greedy = w;
  greedy.greedy = true;
  v.push_back({"greedy", greedy});
  return v;
}

void Row(const char* mode, const Variant& v, const std::vector<sampcheck::gpu::LaunchCounters>& launches) {
  const auto d = sampcheck::gpu::DeviceConstants::H100Sxm();
  const auto e = sampcheck::gpu::Estimate(launches, d);
  std::int64_t chain = 0, path = 0;
  for (const auto& l : launches) {
    chain = chain > l.longest_chain ? chain : l.longest_chain;
    path += l.critical_path;
  }
  std::printf("| %s | %lld x %lld | %s | %zu | %.3f | %.3f | %lld | %lld | %lld | %.0f |\n", mode,
              static_cast<long long>(v.shape.rows), static_cast<long long>(v.shape.vocab), v.name, launches.size(),
              sampcheck::gpu::RowPasses(launches, v.shape.rows, v.shape.vocab),
              sampcheck::gpu::LogitsPasses(launches, v.shape.rows, v.shape.vocab),
              static_cast<long long>(sampcheck::gpu::BarriersPerRow(launches)), static_cast<long long>(chain),
              static_cast<long long>(path), e.total_s * 1e6);
  std::fflush(stdout);
}

// The critical block's intervals of each launch: how many, the five with the longest chains,
// largest first (ties: the earlier interval first), then all of them in order.
void Intervals(const std::vector<sampcheck::gpu::LaunchCounters>& launches) {
  for (const auto& l : launches) {
    std::vector<std::size_t> order(l.critical_intervals.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return l.critical_intervals[a] > l.critical_intervals[b]; });
    std::printf("  %s: %zu intervals, path %lld; largest:", l.kernel.c_str(), order.size(),
                static_cast<long long>(l.critical_path));
    for (std::size_t i = 0; i < order.size() && i < 5; ++i) {
      std::printf(" %zu: %lld", order[i], static_cast<long long>(l.critical_intervals[order[i]]));
    }
    std::printf("\n   all:");
    for (auto c : l.critical_intervals) std::printf(" %lld", static_cast<long long>(c));
    std::printf("\n");
  }
}

constexpr const char* kUsage =
    "usage: sampcheck_cost_table [--quick] [--intervals] [--variant NAME] [--rows B] [--path gpu|gpu-fast]\n";

int Usage(const char* what, const char* arg) {
  std::fprintf(stderr, "sampcheck_cost_table: %s '%s'\n%s", what, arg, kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, intervals = false;
  std::string variant, path;
  long long rows = 0;  // 0: every B
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--intervals") == 0) {
      intervals = true;
    } else if (std::strcmp(argv[i], "--variant") == 0 && has_value) {
      variant = argv[++i];
    } else if (std::strcmp(argv[i], "--path") == 0 && has_value) {
      path = argv[++i];
      if (path != "gpu" && path != "gpu-fast") return Usage("--path takes gpu or gpu-fast, not", path.c_str());
    } else if (std::strcmp(argv[i], "--rows") == 0 && has_value) {
      char* end = nullptr;
      rows = std::strtoll(argv[++i], &end, 10);
      if (*argv[i] == '\0' || *end != '\0' || rows <= 0) return Usage("--rows takes a positive count, not", argv[i]);
    } else {
      return Usage("unknown option or missing value", argv[i]);
    }
  }
  const std::vector<Variant> variants = Variants(quick);
  const bool known = variant.empty() || std::any_of(variants.begin(), variants.end(),
                                                    [&](const Variant& v) { return variant == v.name; });
  if (!known) return Usage("no variant named", variant.c_str());
  std::printf("| path | B x V | variant | launches | row passes | logits passes | barriers per row | longest chain "
              "| critical path | estimated H100 us |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const auto& v : variants) {
    if ((!variant.empty() && variant != v.name) || (rows != 0 && rows != v.shape.rows)) continue;
    const std::vector<float> logits = sampcheck::gpu::SamplingCostLogits(v.shape);
    if (path.empty() || path == "gpu") {
      const auto gpu = sampcheck::gpu::CountGpuSampling(v.shape, logits.data());
      Row("gpu", v, gpu);
      if (intervals) Intervals(gpu);
    }
    if (path.empty() || path == "gpu-fast") {
      const auto fast = sampcheck::gpu::CountGpuFastSampling(v.shape, logits.data());
      Row("gpu-fast", v, fast);
      if (intervals) Intervals(fast);
    }
  }
  return 0;
}
