// SPDX-License-Identifier: Apache-2.0
// Expected output shapes of a case (backends/output_shapes.h).
#include "backends/output_shapes.h"

#include <cctype>

#include "core/stage_catalogue.h"

namespace sampcheck::backends {

namespace {

struct Dimension {
  std::string symbol;  // empty: a number
  std::int64_t offset = 0;
};

std::string Trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// "[B, K + 1]" -> {B+0, K+1}; a dimension of another form makes the whole shape unknown
// (nullopt), so a catalogue spelling this parser does not know never refuses a response.
std::optional<std::vector<Dimension>> ParseSymbolicShape(const std::string& text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  std::vector<Dimension> dims;
  const std::string inner = text.substr(1, text.size() - 2);
  if (Trim(inner).empty()) return dims;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = inner.find(',', start);
    const std::string part = Trim(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    Dimension d;
    const std::size_t plus = part.find('+');
    d.symbol = Trim(part.substr(0, plus));
    if (d.symbol.empty() || !std::isalpha(static_cast<unsigned char>(d.symbol[0]))) return std::nullopt;
    for (char ch : d.symbol) {
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return std::nullopt;
    }
    if (plus != std::string::npos) {
      const std::string n = Trim(part.substr(plus + 1));
      if (n.empty() || n.size() > 6) return std::nullopt;
      for (char ch : n) {
        if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
      }
      d.offset = std::stoll(n);
    }
    dims.push_back(d);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return dims;
}

}  // namespace

std::map<std::string, std::optional<ExpectedShape>> ExpectedOutputShapes(const Case& c) {
  std::map<std::string, std::optional<ExpectedShape>> out;
  const StageInfo* info = FindStage(c.stage);
  if (info == nullptr) return out;
  std::map<std::string, std::int64_t> bound;
  for (const TensorSpec& spec : info->inputs) {
    auto it = c.inputs.find(spec.name);
    const auto dims = ParseSymbolicShape(spec.shape);
    if (it == c.inputs.end() || !dims || static_cast<std::size_t>(it->second.rank()) != dims->size()) continue;
    for (std::size_t d = 0; d < dims->size(); ++d) {
      if ((*dims)[d].offset == 0) bound.emplace((*dims)[d].symbol, it->second.dim(static_cast<int>(d)));
    }
  }
  for (const TensorSpec& spec : info->outputs) {
    const auto dims = ParseSymbolicShape(spec.shape);
    if (!dims) {
      out.emplace(spec.name, std::nullopt);
      continue;
    }
    ExpectedShape shape;
    for (const Dimension& d : *dims) {
      auto it = bound.find(d.symbol);
      shape.push_back(it == bound.end() ? std::nullopt : std::optional<std::int64_t>(it->second + d.offset));
    }
    out.emplace(spec.name, std::move(shape));
  }
  return out;
}

std::string ExpectedShapeString(const ExpectedShape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += shape[i] ? std::to_string(*shape[i]) : "?";
  }
  return s + "]";
}

bool ShapeMatches(const ExpectedShape& expected, const Shape& shape) {
  if (expected.size() != shape.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (expected[i] && *expected[i] != shape[i]) return false;
  }
  return true;
}

}  // namespace sampcheck::backends
