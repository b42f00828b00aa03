// SPDX-License-Identifier: Apache-2.0
// Hex text form of small golden cases (golden/case_text.h).
#include "golden/case_text.h"

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "core/half.h"

namespace sampcheck::golden {

namespace {

std::string Element(const Tensor& t, std::size_t i) {
  char buf[64];
  switch (t.dtype()) {
    case DType::kF32: {
      const float v = t.data<float>()[i];
      std::snprintf(buf, sizeof buf, "%.9g/0x%08" PRIx32, static_cast<double>(v), std::bit_cast<std::uint32_t>(v));
      break;
    }
    case DType::kF16:
    case DType::kBF16: {
      const std::uint16_t b = t.data<std::uint16_t>()[i];
      const float v = t.dtype() == DType::kF16 ? F16BitsToF32(b) : BF16BitsToF32(b);
      std::snprintf(buf, sizeof buf, "%.5g/0x%04" PRIx16, static_cast<double>(v), b);
      break;
    }
    case DType::kF64: {
      const double v = t.data<double>()[i];
      std::snprintf(buf, sizeof buf, "%.17g/0x%016" PRIx64, v, std::bit_cast<std::uint64_t>(v));
      break;
    }
    case DType::kI32: std::snprintf(buf, sizeof buf, "%" PRId32, t.data<std::int32_t>()[i]); break;
    case DType::kI64: std::snprintf(buf, sizeof buf, "%" PRId64, t.data<std::int64_t>()[i]); break;
    case DType::kU8:
    case DType::kBool: std::snprintf(buf, sizeof buf, "%u", static_cast<unsigned>(t.data<std::uint8_t>()[i])); break;
  }
  return buf;
}

void AppendTensor(std::string& out, const std::string& name, const Tensor& t) {
  out += name + " " + std::string(DTypeName(t.dtype())) + " " + ShapeString(t.shape()) + "\n";
  const auto n = static_cast<std::size_t>(t.numel());
  const auto inner = t.rank() == 0 ? std::size_t{1} : static_cast<std::size_t>(t.shape().back());
  if (inner == 0) return;
  for (std::size_t start = 0; start < n; start += inner) {
    // Index of the row's first element in all but the last dimension, outermost first.
    std::vector<std::size_t> index;
    std::size_t rest = start / inner;
    for (int d = t.rank() - 2; d >= 0; --d) {
      const auto extent = static_cast<std::size_t>(t.dim(d));
      index.insert(index.begin(), rest % extent);
      rest /= extent;
    }
    out += "  [";
    for (std::size_t k : index) out.append(std::to_string(k)).append(", ");
    out += ":]";
    for (std::size_t i = start; i < start + inner; ++i) out.append(" ").append(Element(t, i));
    out += "\n";
  }
}

}  // namespace

bool HasTextForm(const GoldenCase& g) {
  for (const auto* map : {&g.input.inputs, &g.expected}) {
    for (const auto& [name, t] : *map) {
      if (t.numel() > kTextFormMaxElements) return false;
    }
  }
  return true;
}

std::string CaseText(const GoldenCase& g) {
  std::string out = "# sampcheck golden case, text form of the .safetensors file beside it (not normative)\n";
  out += "id: " + g.input.id + "\nstage: " + g.input.stage + "\nprofile: " + std::string(ProfileName(g.input.profile)) +
         "\ncomparison: " + g.comparison.ToString() + "\nparams: " + g.input.params.dump() + "\n";
  for (const auto& [name, t] : g.input.inputs) AppendTensor(out, "in." + name, t);
  for (const auto& [name, t] : g.expected) AppendTensor(out, "out." + name, t);
  return out;
}

}  // namespace sampcheck::golden
