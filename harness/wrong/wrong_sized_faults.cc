// SPDX-License-Identifier: Apache-2.0
// Faults of a stated size (docs/spec/harness.md "Smallest detected effects", "Diffuse TV"): the
// registered diffuse and concentrated faults, the sized forms temperature_x<t>, diffuse_tv<tau>,
// mass_shift_tv<tau> and leak<m>, and SizedFaultTv (harness/wrong/wrong_samplers.h).
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - mass_shift_tv0002       a concentrated fault: TV 0.002 moved from the third to the fourth
//                           most probable token of a probs row -> stats/exponential_race/dyadic_v8
//                           L3 (2^-3 -> 2^-4 on that row: w^2 = 9.6e-5, noncentrality 245 at
//                           the CI n of 2.55e6)
// - temperature_x1010, temperature_x1005, temperature_x1002
//                           diffuse faults: every logit and score scaled by t, every
//                           probability raised to t (1.01, 1.005, 1.002), so rows follow
//                           p^t / sum p^t -> the exponent score test (layer L3, test
//                           exponent-score): 1.01 by stats/pipeline/temperature_v50, 1.005 by
//                           stats/exponential_race/peaked_v100 at the CI size, 1.002 by the same
//                           case under --thorough (thorough = true)
// - diffuse_tv0010, diffuse_tv0002
//                           the least favourable diffuse fault for the omnibus test at TV 0.01
//                           and 0.002: probabilities scaled by 1 + 2 tau on the most probable
//                           tokens holding half the mass, 1 - 2 tau on the rest (exactly TV tau
//                           on a dyadic row) -> stats/exponential_race/dyadic_v8 L3 at the CI
//                           size (0.01) and under --thorough (0.002)
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "core/half.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/count_draws.h"
#include "reference/exponential_race.h"
#include "reference/math/log.h"
#include "reference/reference_backend.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/philox_lanes.h"
#include "reference/rng/streams.h"
#include "reference/spec_random.h"
#include "reference/stage_io.h"
#include "statistical/detail/numeric.h"
#include "statistical/exact_target.h"

namespace sampcheck::statistical {
namespace {

// A diffuse fault: every logit (or score) scaled by t, every probability raised to t, before
// the stage runs, so the drawn law is p^t / sum p^t (a temperature off by the factor 1/t).
// The input roles come from the catalogue; the pipeline's logits are scaled before its
// penalties and filters (on temperature_v50, which has neither, exactly p^t).
class LogitsScaled final : public WrappingBackend {
 public:
  LogitsScaled(std::string name, double t) : WrappingBackend(std::move(name)), t_(t) {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kLogits, Role::kScores, Role::kProbs}, [this](std::span<float> row, Role role) {
      for (float& v : row) {
        if (role == Role::kProbs) {
          v = v > 0.0f ? static_cast<float>(std::pow(static_cast<double>(v), t_)) : v;
        } else if (std::isfinite(v)) {
          v = static_cast<float>(static_cast<double>(v) * t_);
        }
      }
    });
  }

 private:
  double t_;
};

// The least favourable diffuse fault at total variation tau for the omnibus test: every
// probability scaled by 1 + 2 tau or 1 - 2 tau, the + tokens the most probable ones up to half
// the row's mass, so that |p' - p| / p is the same everywhere (the Cauchy–Schwarz bound
// 4 TV^2 <= w^2 is then an equality: the chi-square noncentrality is the smallest any fault of
// that TV can have). When the + tokens hold exactly half the mass (the dyadic rows), p' needs
// no renormalisation and its TV is exactly tau. Probabilities are multiplied, logits and
// scores shifted by ln(1 +- 2 tau); the law is taken as the row's softmax for those.
class DiffuseTv final : public WrappingBackend {
 public:
  DiffuseTv(std::string name, double tau) : WrappingBackend(std::move(name)), tau_(tau) {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kLogits, Role::kScores, Role::kProbs}, [this](std::span<float> row, Role role) {
      const bool probs = role == Role::kProbs;
      std::vector<double> w(row.size(), 0.0);
      double max = -HUGE_VAL, sum = 0.0;
      for (float v : row) max = std::max(max, static_cast<double>(v));
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (probs) w[i] = row[i] > 0.0f ? row[i] : 0.0;
        else if (std::isfinite(row[i])) w[i] = std::exp(static_cast<double>(row[i]) - max);
        sum += w[i];
      }
      if (!(sum > 0.0)) return;
      double head = 0.0;
      for (std::int64_t i : Order(row, false)) {
        const auto k = static_cast<std::size_t>(i);
        if (!(w[k] > 0.0)) continue;
        const bool up = head + w[k] / sum <= 0.5 + 1e-12;
        if (up) head += w[k] / sum;
        const double f = up ? 1.0 + 2.0 * tau_ : 1.0 - 2.0 * tau_;
        row[k] = probs ? static_cast<float>(row[k] * f) : static_cast<float>(row[k] + std::log(f));
      }
    });
  }

 private:
  double tau_;
};

// A concentrated fault: in each row of a kProbs input, a total variation tau moved from the
// third most probable token to the fourth (ties by lower index), everything else left alone;
// weights are rescaled by the row sum, so the move is tau of the normalised law. A third token
// lighter than tau gives up all it has (the fault is then smaller than its name).
class MassShift final : public WrappingBackend {
 public:
  MassShift(std::string name, double tau) : WrappingBackend(std::move(name)), tau_(tau) {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kProbs}, [this](std::span<float> row, Role) {
      if (row.size() < 4) return;
      const auto ids = Order(row, false);
      double sum = 0.0;
      for (float v : row) sum += v;
      const auto from = static_cast<std::size_t>(ids[2]), to = static_cast<std::size_t>(ids[3]);
      const double moved = std::min(tau_ * sum, static_cast<double>(row[from]));
      row[from] = static_cast<float>(row[from] - moved);
      row[to] = static_cast<float>(row[to] + moved);
    });
  }

 private:
  double tau_;
};

// A leak: in each row of a kProbs input that has zero entries, those entries share the weight
// m times the row's sum equally, the positive entries left alone: after normalisation a draw
// lands on a token the law excludes with probability m / (1 + m). Rows without a zero entry
// are unchanged (a leak into a filtered logit is the top_p_off_by_one kind).
class Leak final : public WrappingBackend {
 public:
  Leak(std::string name, double mass) : WrappingBackend(std::move(name)), mass_(mass) {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kProbs}, [this](std::span<float> row, Role) {
      double sum = 0.0;
      std::size_t zeros = 0;
      for (float v : row) {
        if (v > 0.0f) sum += v;
        else if (v == 0.0f) ++zeros;
      }
      if (zeros == 0 || !(sum > 0.0)) return;
      const auto each = static_cast<float>(mass_ * sum / static_cast<double>(zeros));
      for (float& v : row) v = v == 0.0f ? each : v;
    });
  }

 private:
  double mass_;
};

}  // namespace

SAMPCHECK_WRONG_SAMPLER(MassShiftTv0002, {{"mass_shift_tv0002", "0.002 of probability moved from the third to the fourth most probable token",
        "stats/exponential_race/dyadic_v8/", "L3"},
       [] { return std::make_unique<MassShift>("mass_shift_tv0002", 0.002); }});
SAMPCHECK_WRONG_SAMPLER(TemperatureX1010, {{"temperature_x1010", "every logit scaled by 1.01 (probabilities raised to 1.01)",
        "stats/pipeline/temperature_v50/", "L3"},
       [] { return std::make_unique<LogitsScaled>("temperature_x1010", 1.01); }});
SAMPCHECK_WRONG_SAMPLER(TemperatureX1005, {{"temperature_x1005", "every logit scaled by 1.005 (probabilities raised to 1.005)",
        "stats/exponential_race/peaked_v100/", "L3"},
       [] { return std::make_unique<LogitsScaled>("temperature_x1005", 1.005); }});
SAMPCHECK_WRONG_SAMPLER(TemperatureX1002, {{"temperature_x1002", "every logit scaled by 1.002 (probabilities raised to 1.002)",
        "stats/exponential_race/peaked_v100/", "L3", /*thorough=*/true},
       [] { return std::make_unique<LogitsScaled>("temperature_x1002", 1.002); }});
SAMPCHECK_WRONG_SAMPLER(DiffuseTv0010, {{"diffuse_tv0010", "every probability scaled by 1.02 on the head half of the mass and by 0.98 on the rest (TV 0.01)",
        "stats/exponential_race/dyadic_v8/", "L3"},
       [] { return std::make_unique<DiffuseTv>("diffuse_tv0010", 0.01); }});
SAMPCHECK_WRONG_SAMPLER(DiffuseTv0002, {{"diffuse_tv0002", "every probability scaled by 1.004 on the head half of the mass and by 0.996 on the rest (TV 0.002)",
        "stats/exponential_race/dyadic_v8/", "L3", /*thorough=*/true},
       [] { return std::make_unique<DiffuseTv>("diffuse_tv0002", 0.002); }});

namespace {

// The fault sizes of the sized forms (wrong_samplers.h): a decimal number with a '.' or
// an exponent, so that a registered name such as temperature_x1005 never parses as one.
struct ParametricForm {
  const char* prefix;
  double low, high;  // the size must lie in (low, high]
  std::function<std::unique_ptr<Backend>(const std::string&, double)> make;
};

const std::vector<ParametricForm>& ParametricForms() {
  static const std::vector<ParametricForm> forms = {
      {"temperature_x", 0.0, 4.0, [](const std::string& n, double t) { return std::make_unique<LogitsScaled>(n, t); }},
      {"diffuse_tv", 0.0, 0.25, [](const std::string& n, double t) { return std::make_unique<DiffuseTv>(n, t); }},
      {"mass_shift_tv", 0.0, 0.5, [](const std::string& n, double t) { return std::make_unique<MassShift>(n, t); }},
      {"leak", 0.0, 0.5, [](const std::string& n, double m) { return std::make_unique<Leak>(n, m); }},
  };
  return forms;
}

std::string Decimal(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

std::unique_ptr<Backend> MakeSizedFault(const std::string& name) {
  for (const ParametricForm& form : ParametricForms()) {
    const std::string prefix = form.prefix;
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string size = name.substr(prefix.size());
    if (size.find_first_of(".eE") == std::string::npos) continue;
    double x = 0.0;
    const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), x);
    if (ec != std::errc() || end != size.data() + size.size() || !(x > form.low && x <= form.high)) {
      throw std::invalid_argument("wrong sampler '" + name + "': '" + size + "' is not a decimal size in (" +
                                  Decimal(form.low) + ", " + Decimal(form.high) + "]");
    }
    return form.make(name, x);
  }
  return nullptr;
}

std::optional<FaultSize> SizedFaultTv(const std::string& name, const Case& c) {
  if (!HasExactTarget(c.stage)) return std::nullopt;
  std::unique_ptr<Backend> backend = MakeSizedFault(name);
  auto* wrapping = dynamic_cast<WrappingBackend*>(backend.get());
  if (wrapping == nullptr) return std::nullopt;
  const ExactTarget right = ComputeExactTarget(c);
  const ExactTarget wrong = ComputeExactTarget(wrapping->AsRun(c.stage, c));
  FaultSize size;
  double sum = 0.0;
  int random_rows = 0;
  for (std::size_t b = 0; b < right.rows.size(); ++b) {
    const RowTarget& r = right.rows[b];
    const RowTarget& w = wrong.rows[b];
    long double tv = 0.0L;
    bool moved = false;
    for (std::size_t i = 0; i < r.p.size(); ++i) {
      tv += std::fabs(static_cast<long double>(r.p[i]) - w.p[i]);
      moved = moved || ((r.p[i] > 0.0) != (w.p[i] > 0.0));
    }
    size.row_tv.push_back(static_cast<double>(tv / 2.0L));
    size.row_support_moved.push_back(moved);
    if (r.greedy_token < 0) {
      sum += size.row_tv.back();
      ++random_rows;
    }
  }
  size.mean_tv = random_rows > 0 ? sum / random_rows : 0.0;
  return size;
}

}  // namespace sampcheck::statistical
