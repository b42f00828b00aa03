// SPDX-License-Identifier: Apache-2.0
// sampcheck_calibrate: fits the cost model's device constants to a device run
// (gpu/cost/calibration.h, docs/gpu.md "Calibrating"). Reads the Google Benchmark JSON of
// sampcheck_device_bench (`ci/device.sh bench` writes it), takes the median of each benchmark's
// repetitions, counts the launches of every gpu and gpu-fast benchmark on the emulator
// (gpu/cost/sampling_cost.h: CountDeviceBench, the estimate the benchmark prints), fits launch_s
// and the bandwidth to the copies and barrier_s and access_s to the sampling runs, and prints
// the fitted constants and, per run, measured / estimate before and after. Counting takes a
// few seconds of CPU per benchmark.
//
//   sampcheck_calibrate bench.json
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/cost/calibration.h"
#include "gpu/cost/cost_model.h"
#include "gpu/cost/sampling_cost.h"

namespace {

using sampcheck::gpu::DeviceConstants;
using sampcheck::gpu::MeasuredCopy;
using sampcheck::gpu::MeasuredLaunches;

// 'BM_DeviceFast/B:64/V:128256/minp:0/case:0/manual_time' -> mode and arguments.
struct Name {
  std::string mode;
  std::map<std::string, long long> args;
};

Name Parse(const std::string& name) {
  Name n;
  std::size_t at = name.find('/');
  n.mode = name.substr(0, at);
  while (at != std::string::npos) {
    const std::size_t next = name.find('/', at + 1);
    const std::string part = name.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    if (const std::size_t colon = part.find(':'); colon != std::string::npos) {
      n.args[part.substr(0, colon)] = std::stoll(part.substr(colon + 1));
    }
    at = next;
  }
  return n;
}

double Seconds(const nlohmann::json& e) {
  const std::string unit = e.value("time_unit", "ns");
  const double scale = unit == "s" ? 1.0 : unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : 1e-9;
  return e.at("real_time").get<double>() * scale;
}

void PrintConstants(const char* title, const DeviceConstants& d) {
  std::printf("%s: launch_s %.4g us, hbm %.4g TB/s, barrier_s %.4g us, access_s %.4g us\n", title, d.launch_s * 1e6,
              d.hbm_bytes_per_s * 1e-12, d.barrier_s * 1e6, d.access_s * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sampcheck_calibrate bench.json\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "sampcheck_calibrate: cannot read %s\n", argv[1]);
    return 1;
  }
  nlohmann::json data;
  try {
    data = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sampcheck_calibrate: %s is not JSON: %s\n", argv[1], e.what());
    return 1;
  }
  std::vector<MeasuredCopy> copies;
  std::vector<MeasuredLaunches> runs;
  try {
    for (const auto& e : data.at("benchmarks")) {
      if (e.value("error_occurred", false) || e.value("aggregate_name", "") != "median") continue;
      const std::string name = e.value("run_name", e.value("name", ""));
      const Name n = Parse(name);
      if (!n.args.count("B") || !n.args.count("V")) continue;
      const long long rows = n.args.at("B"), vocab = n.args.at("V");
      if (n.mode == "BM_DeviceCopyBaseline") {
        copies.push_back({2.0 * 4.0 * static_cast<double>(rows) * static_cast<double>(vocab), Seconds(e)});
        continue;
      }
      const bool det = n.mode == "BM_DeviceDeterministic";
      if (!det && n.mode != "BM_DeviceFast") continue;
      const auto shape = sampcheck::gpu::DeviceBenchShape(
          rows, vocab, n.args.count("minp") && n.args.at("minp") != 0,
          static_cast<sampcheck::gpu::DeviceBenchCase>(n.args.count("case") ? n.args.at("case") : 0));
      sampcheck::gpu::SamplingCostShape counted = shape;
      counted.rows = std::min<std::int64_t>(rows, sampcheck::gpu::kDeviceBenchCountedRows);
      const std::vector<float> logits = sampcheck::gpu::SamplingCostLogits(counted);
      runs.push_back({name, Seconds(e), sampcheck::gpu::CountDeviceBench(det, shape, logits.data())});
      std::fprintf(stderr, "counted %s\n", name.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sampcheck_calibrate: %s: %s\n", argv[1], e.what());
    return 1;
  }
  if (copies.size() < 2 || runs.empty()) {
    std::fprintf(stderr, "sampcheck_calibrate: %s has %zu copy medians and %zu sampling medians (needs 2 and 1)\n",
                 argv[1], copies.size(), runs.size());
    return 1;
  }
  const DeviceConstants start = DeviceConstants::H100Sxm();
  const DeviceConstants fitted = sampcheck::gpu::FitBlockTerms(runs, sampcheck::gpu::FitCopies(copies, start));
  PrintConstants("start (H100Sxm)", start);
  PrintConstants("fitted", fitted);
  std::printf("\n| run | measured us | estimate us (start) | measured / estimate | estimate us (fitted) | measured / "
              "estimate |\n| --- | --- | --- | --- | --- | --- |\n");
  double before = 0, after = 0, lo = 1e300, hi = 0;
  for (const MeasuredLaunches& r : runs) {
    const double e0 = sampcheck::gpu::Estimate(r.launches, start).total_s;
    const double e1 = sampcheck::gpu::Estimate(r.launches, fitted).total_s;
    before += std::pow(std::log(r.seconds / e0), 2);
    after += std::pow(std::log(r.seconds / e1), 2);
    lo = std::min(lo, r.seconds / e1);
    hi = std::max(hi, r.seconds / e1);
    std::printf("| %s | %.1f | %.1f | %.2f | %.1f | %.2f |\n", r.label.c_str(), r.seconds * 1e6, e0 * 1e6, r.seconds / e0,
                e1 * 1e6, r.seconds / e1);
  }
  const double n = static_cast<double>(runs.size());
  std::printf("\nlog-RMS error: start %.2f (factor %.2f), fitted %.2f (factor %.2f); fitted measured / estimate in "
              "[%.2f, %.2f] over %zu runs\n",
              std::sqrt(before / n), std::exp(std::sqrt(before / n)), std::sqrt(after / n),
              std::exp(std::sqrt(after / n)), lo, hi, runs.size());
  return 0;
}
