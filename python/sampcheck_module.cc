// SPDX-License-Identifier: Apache-2.0
// The C++ half of `import sampcheck` (docs/python.md): pybind11 bindings of the stage
// catalogue, the reference backend, golden case files and their judgement, safetensors
// reading and writing (for the exchange protocol, docs/spec/exchange.md) and the draw harness
// (harness/draw_harness.h). The Python package (python/sampcheck/) builds its public API
// on these; nothing here knows a stage by name, so a stage added to the catalogue and the
// reference appears in Python without an edit here.
//
// Tensors cross the boundary as (dtype, array): dtype a safetensors name ("F32", "BF16", ...)
// and array a C-contiguous little-endian NumPy array of the same element size (bf16 as its
// uint16 bit patterns). The Python side (sampcheck/_arrays.py) makes them; bytes are copied
// once into a Tensor on the way in and once into a new NumPy array on the way out.
// C++ exceptions: InputError and std::invalid_argument become sampcheck.InputError (a
// ValueError) with the C++ message; anything else pybind11's RuntimeError.
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include "core/case.h"
#include "core/case_bytes.h"
#include "core/comparison.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/input_limits.h"
#include "core/manifest.h"
#include "core/profile.h"
#include "core/safetensors.h"
#include "core/sha256.h"
#include "core/stage_catalogue.h"
#include "golden/unknown_names.h"
#include "golden/verifier.h"
#include "reports/statistics_json.h"
#include "reference/reference_backend.h"
#include "harness/draw_harness.h"
#include "harness/stat_cases/stat_cases.h"

namespace py = pybind11;

namespace sampcheck::python {
namespace {

// --- tensors ---------------------------------------------------------------------------------

Tensor TensorFromPy(const std::string& name, const py::tuple& item) {
  if (item.size() != 2) throw InputError("tensor '" + name + "': expected a (dtype, array) pair");
  const std::string dtype_name = item[0].cast<std::string>();
  const auto parsed = DTypeFromSafetensorsName(dtype_name);
  if (!parsed) throw InputError("tensor '" + name + "': unsupported dtype '" + dtype_name + "'");
  const DType dtype = *parsed;
  const py::array array = item[1].cast<py::array>();
  if (!(array.flags() & py::array::c_style)) throw InputError("tensor '" + name + "': array is not C-contiguous");
  if (static_cast<std::size_t>(array.itemsize()) != DTypeSize(dtype)) {
    throw InputError("tensor '" + name + "': " + std::to_string(array.itemsize()) + "-byte elements for dtype " +
                     std::string(DTypeName(dtype)));
  }
  Shape shape(array.shape(), array.shape() + array.ndim());
  Tensor t = Tensor::Uninitialized(dtype, std::move(shape));
  if (t.nbytes() != 0) std::memcpy(t.bytes().data(), array.data(), t.nbytes());
  return t;
}

TensorMap TensorMapFromPy(const py::dict& d) {
  TensorMap out;
  for (const auto& [k, v] : d) {
    const std::string name = k.cast<std::string>();
    out.emplace(name, TensorFromPy(name, v.cast<py::tuple>()));
  }
  return out;
}

// (dtype name, shape, bytes): the Python side makes the NumPy array (sampcheck/_arrays.py).
py::tuple TensorToPy(const Tensor& t) {
  const auto b = t.bytes();
  return py::make_tuple(std::string(SafetensorsName(t.dtype())), py::cast(t.shape()),
                        py::bytes(reinterpret_cast<const char*>(b.data()), b.size()));
}

py::dict TensorMapToPy(const TensorMap& m) {
  py::dict d;
  for (const auto& [name, t] : m) d[py::str(name)] = TensorToPy(t);
  return d;
}

// JSON crosses as text: Python's json module on the other side.
nlohmann::json ParseParams(const std::string& text) {
  nlohmann::json j = text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw InputError("params: not a JSON object: " + text);
  return j;
}

Case MakeCase(const std::string& id, const std::string& stage, const std::string& profile,
              const std::string& params_json, const py::dict& inputs) {
  const StageInfo& info = RequireStage(stage);
  return Case{id, stage, RequireStageProfile(info, profile), ParseParams(params_json), TensorMapFromPy(inputs)};
}

// --- catalogue -------------------------------------------------------------------------------

py::list TensorSpecsToPy(const std::vector<TensorSpec>& specs) {
  py::list out;
  for (const auto& t : specs) {
    py::dict d;
    d["name"] = t.name;
    d["dtypes"] = t.dtypes;
    d["shape"] = t.shape;
    d["optional"] = t.optional;
    d["meaning"] = t.meaning;
    out.append(d);
  }
  return out;
}

py::list Catalogue() {
  py::list out;
  for (const auto& s : StageCatalogue()) {
    py::dict d;
    d["name"] = s.name;
    d["summary"] = s.summary;
    d["inputs"] = TensorSpecsToPy(s.inputs);
    d["outputs"] = TensorSpecsToPy(s.outputs);
    py::list params;
    for (const auto& p : s.params) {
      py::dict pd;
      pd["name"] = p.name;
      pd["type"] = p.type;
      pd["default"] = p.default_value;
      pd["meaning"] = p.meaning;
      params.append(pd);
    }
    d["params"] = params;
    d["tier"] = std::string(TierName(s.tier));
    d["comparison"] = s.comparison;
    py::list profiles;
    for (Profile p : s.profiles) profiles.append(std::string(ProfileName(p)));
    d["profiles"] = profiles;
    d["spec"] = s.spec_section;
    out.append(d);
  }
  return out;
}

// --- reference -------------------------------------------------------------------------------

py::dict RunReference(const std::string& stage, const std::string& profile, const std::string& params_json,
                      const py::dict& inputs) {
  Case c = MakeCase(stage + "/python/" + profile, stage, profile, params_json, inputs);
  // As the CLI: a misspelt tensor or parameter name is refused, not run with the default.
  if (const std::string unknown = golden::UnknownNames(c); !unknown.empty()) throw InputError(unknown);
  reference::ReferenceBackend backend;
  TensorMap outputs;
  {
    py::gil_scoped_release release;  // pure C++ from here; a large vocabulary may take a while
    outputs = backend.Run(stage, c);
  }
  return TensorMapToPy(outputs);
}

// --- golden ----------------------------------------------------------------------------------

py::list ReadManifestEntries(const std::string& dir) {
  py::list out;
  for (const auto& e : ReadManifest(dir).cases) {
    py::dict d;
    d["id"] = e.id;
    d["stage"] = e.stage;
    d["profile"] = std::string(ProfileName(e.profile));
    d["file"] = e.file;
    d["sha256"] = e.sha256;
    d["comparison"] = e.comparison;
    out.append(d);
  }
  return out;
}

// One case file, read once through the bounded reader (core/input_limits.h: regular files
// only, at most SAMPCHECK_MAX_CASE_BYTES), so a FIFO, /dev/zero or a huge file is refused
// before anything is hashed; with `sha256`, the bytes read are checked against it first.
py::dict ReadCase(const std::string& path, const std::string& sha256) {
  const std::string bytes = ReadBoundedFile(path, MaxCaseBytes(), kMaxCaseBytesVariable);
  if (!sha256.empty()) {
    const std::string digest = Sha256Hex(bytes);
    if (digest != sha256) throw InputError(path + ": SHA-256 " + digest + " does not match the manifest's " + sha256);
  }
  const GoldenCase g = ParseCase(std::as_bytes(std::span(bytes.data(), bytes.size())), path);
  py::dict d;
  d["id"] = g.input.id;
  d["stage"] = g.input.stage;
  d["profile"] = std::string(ProfileName(g.input.profile));
  d["params"] = g.input.params.dump();
  d["comparison"] = g.comparison.ToString();
  d["inputs"] = TensorMapToPy(g.input.inputs);
  d["expected"] = TensorMapToPy(g.expected);
  return d;
}

// The verifier's judgement (golden/verifier.h JudgeOutputs): "" when the outputs pass.
std::string Judge(const py::dict& expected, const std::string& comparison, const py::dict& actual) {
  GoldenCase g;
  g.expected = TensorMapFromPy(expected);
  g.comparison = ComparisonRule::Parse(comparison);
  if (g.comparison.kind == ComparisonRule::Kind::kDistribution) {
    throw InputError("a case with comparison 'distribution' is judged by sampcheck.stats.check, not compare");
  }
  return golden::JudgeOutputs(g, TensorMapFromPy(actual));
}

py::tuple ReadSafetensorsFile(const std::string& path) {
  const SafetensorsFile f = ReadSafetensors(path);
  py::dict meta;
  for (const auto& [k, v] : f.metadata) meta[py::str(k)] = v;
  return py::make_tuple(TensorMapToPy(f.tensors), meta);
}

void WriteSafetensorsFile(const std::string& path, const py::dict& tensors) {
  WriteSafetensors(path, TensorMapFromPy(tensors));
}

// --- statistics ------------------------------------------------------------------------------

py::list StatCases() {
  py::list out;
  for (const auto& s : statistical::DrawStatCases()) {
    py::dict d;
    d["id"] = s.id;
    d["family"] = s.family;
    d["stage"] = s.input.stage;
    d["profile"] = std::string(ProfileName(s.input.profile));
    d["params"] = s.input.params.dump();
    d["inputs"] = TensorMapToPy(s.input.inputs);
    d["mde_tv_ci"] = s.mde_tv_ci;
    d["mde_tv_thorough"] = s.mde_tv_thorough;
    d["targeted_ratio"] = s.targeted_ratio;
    out.append(d);
  }
  return out;
}

// A backend that draws only through a Python function: draw(draws, seed) -> (dtype, array)
// of counts [rows, V]. The harness calls it with the GIL held (this thread holds it).
class PythonDrawBackend final : public Backend {
 public:
  PythonDrawBackend(std::string stage, py::function draw) : stage_(std::move(stage)), draw_(std::move(draw)) {}
  std::string Name() const override { return "python"; }
  std::vector<std::string> SupportedStages() const override { return {stage_}; }
  TensorMap Run(const std::string& stage, const Case&) override {
    throw InputError("python draw backend: stage '" + stage + "' is drawn through the draw function only");
  }
  StageCapabilities Capabilities(const std::string& stage) const override { return {.count_draws = stage == stage_}; }
  Tensor CountDraws(const std::string&, const Case&, std::int64_t draws, std::uint64_t seed) override {
    py::object result = draw_(draws, seed);
    return TensorFromPy("counts", result.cast<py::tuple>());
  }

 private:
  std::string stage_;
  py::function draw_;
};

py::list CheckDraws(const std::string& case_id, const py::function& draw, bool thorough, std::uint64_t seed_epoch) {
  std::vector<statistical::StatCase> selected;
  for (auto& s : statistical::DrawStatCases()) {
    if (s.id == case_id) selected.push_back(std::move(s));
  }
  if (selected.empty()) throw InputError("unknown statistical case '" + case_id + "' (see sampcheck.stats.cases())");
  PythonDrawBackend backend(selected.front().input.stage, draw);
  statistical::DrawHarnessOptions options;
  options.thorough = thorough;
  options.seed_epoch = seed_epoch;
  const auto results = statistical::RunDrawHarness(backend, selected, options);
  py::list out;
  for (const auto& r : results) {
    py::dict d;
    d["id"] = r.id;
    d["verdict"] = std::string(VerdictName(r.verdict));
    d["reason"] = r.reason;
    d["statistics"] = r.statistics ? reports::StatisticsToJson(*r.statistics).dump() : std::string();
    out.append(d);
  }
  return out;
}

double FamilyWiseAlpha() { return statistical::kFamilyWiseAlpha; }

}  // namespace
}  // namespace sampcheck::python

PYBIND11_MODULE(_sampcheck, m) {
  using namespace sampcheck::python;
  m.doc() = "sampcheck's C++ core (stage catalogue, reference, goldens, statistics); use the sampcheck package";
  static py::exception<sampcheck::InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const sampcheck::InputError& e) {
      input_error(e.what());
    } catch (const std::invalid_argument& e) {
      input_error(e.what());
    }
  });
  m.attr("version") = SAMPCHECK_VERSION;
  m.def("catalogue", &Catalogue, "The stage catalogue as a list of dicts");
  m.def("run_reference", &RunReference, py::arg("stage"), py::arg("profile"), py::arg("params_json"),
        py::arg("inputs"));
  m.def("read_manifest", &ReadManifestEntries, py::arg("dir"));
  m.def("read_case", &ReadCase, py::arg("path"), py::arg("sha256") = "");
  m.def("judge", &Judge, py::arg("expected"), py::arg("comparison"), py::arg("actual"));
  m.def("read_safetensors", &ReadSafetensorsFile, py::arg("path"));
  m.def("write_safetensors", &WriteSafetensorsFile, py::arg("path"), py::arg("tensors"));
  m.def("stat_cases", &StatCases);
  m.def("check_draws", &CheckDraws, py::arg("case_id"), py::arg("draw"), py::arg("thorough"), py::arg("seed_epoch"));
  m.def("family_wise_alpha", &FamilyWiseAlpha);
  m.attr("target_power") = sampcheck::statistical::kTargetPower;
}
