// SPDX-License-Identifier: Apache-2.0
// Tests of the golden set: the checked-in golden/v1 is exactly what the generator writes, the
// reference passes it, and verification catches corrupted, missing or mismatching cases; the
// huge set's generator at a small B (its full size runs in tests/huge_set_test.sh, slow); every
// case's tensors have the dtype and rank their stage's catalogue entry lists.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <utility>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/case.h"
#include "core/dtype.h"
#include "core/half.h"
#include "core/error.h"
#include "core/manifest.h"
#include "core/sha256.h"
#include "core/stage_catalogue.h"
#include "golden/generator.h"
#include "golden/huge_cases.h"
#include "golden/verifier.h"
#include "reference/reference_backend.h"

namespace sampcheck::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kCheckedIn = fs::path(SAMPCHECK_SOURCE_DIR) / "golden" / "v1";

fs::path FreshDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("sampcheck_golden_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::vector<fs::path> Files(const fs::path& root) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), root));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GoldenSet, RegeneratingReproducesCheckedInSetByteForByte) {
  const fs::path dir = FreshDir("regen");
  golden::GenerateGoldenSet(dir, golden::kDefaultGoldenSeed);
  ASSERT_EQ(Files(dir), Files(kCheckedIn)) << "file lists differ; regenerate with "
                                              "`sampcheck golden generate --set v1 --out golden/v1`";
  for (const auto& f : Files(dir)) {
    EXPECT_EQ(Sha256Hex(ReadWholeFile(dir / f)), Sha256Hex(ReadWholeFile(kCheckedIn / f))) << f;
  }
  fs::remove_all(dir);
}

TEST(GoldenSet, CheckedInSetIsSmall) {
  std::uintmax_t bytes = 0;
  for (const auto& f : Files(kCheckedIn)) bytes += fs::file_size(kCheckedIn / f);
  EXPECT_LE(bytes, 8u << 20) << "golden/v1 must stay within 8 MiB";
}

TEST(GoldenSet, CoversEveryStageAndProfileOfTheCatalogue) {
  const Manifest m = ReadManifest(kCheckedIn);
  for (const auto& stage : StageCatalogue()) {
    for (Profile p : stage.profiles) {
      const bool found = std::any_of(m.cases.begin(), m.cases.end(),
                                     [&](const ManifestEntry& e) { return e.stage == stage.name && e.profile == p; });
      EXPECT_TRUE(found) << stage.name << " / " << ProfileName(p);
    }
  }
}

// The catalogue's type strings, read by hand.
TEST(StageCatalogue, ReadsTheDTypesAndRanksItsStringsList) {
  const auto spec = [](std::string dtypes, std::string shape) {
    TensorSpec t;
    t.name = "x";
    t.dtypes = std::move(dtypes);
    t.shape = std::move(shape);
    return t;
  };
  EXPECT_EQ(spec("f32|f16|bf16", "[B, V]").ListedDTypes(), (std::vector<DType>{DType::kF32, DType::kF16, DType::kBF16}));
  EXPECT_EQ(spec("i64", "[]").ListedDTypes(), (std::vector<DType>{DType::kI64}));
  EXPECT_EQ(spec("f32", "[B, V]").ListedRanks(), (std::vector<int>{2}));
  EXPECT_EQ(spec("f32", "[B, K] | [B, K + 1]").ListedRanks(), (std::vector<int>{2, 2}));
  EXPECT_EQ(spec("f32", "[B, K + 1, V]").ListedRanks(), (std::vector<int>{3}));
  EXPECT_EQ(spec("f32", "[]").ListedRanks(), (std::vector<int>{0}));
  EXPECT_THROW(spec("f32", "B, V").ListedRanks(), std::logic_error);
  EXPECT_THROW(spec("f32|float", "[B]").ListedDTypes(), std::logic_error);
  // Every entry's strings can be read, so every parse can take its types from them.
  for (const StageInfo& stage : StageCatalogue()) {
    for (const auto* side : {&stage.inputs, &stage.outputs}) {
      for (const TensorSpec& t : *side) {
        EXPECT_NO_THROW(t.ListedDTypes()) << stage.name << " " << t.name;
        EXPECT_NO_THROW(t.ListedRanks()) << stage.name << " " << t.name;
      }
    }
  }
}

// Every tensor of `tensors` is listed in `specs` with its dtype among the listed ones and a rank
// one of the listed shapes has.
// Returns how many tensors it checked.
std::size_t ExpectTensorsMatchCatalogue(const std::string& id, const char* side, const TensorMap& tensors,
                                        const std::vector<TensorSpec>& specs) {
  std::size_t checked = 0;
  for (const auto& [name, t] : tensors) {
    ++checked;
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const TensorSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      ADD_FAILURE() << id << ": " << side << " '" << name << "' is not in the stage's catalogue entry";
      continue;
    }
    const std::vector<DType> dtypes = spec->ListedDTypes();
    EXPECT_NE(std::find(dtypes.begin(), dtypes.end(), t.dtype()), dtypes.end())
        << id << ": " << side << " '" << name << "' is " << DTypeName(t.dtype()) << ", the catalogue lists "
        << spec->dtypes;
    const std::vector<int> ranks = spec->ListedRanks();
    EXPECT_NE(std::find(ranks.begin(), ranks.end(), t.rank()), ranks.end())
        << id << ": " << side << " '" << name << "' has rank " << t.rank() << ", the catalogue lists " << spec->shape;
  }
  return checked;
}

TEST(GoldenSet, EveryTensorHasItsCatalogueDtypeAndRank) {
  const Manifest m = ReadManifest(kCheckedIn);
  ASSERT_FALSE(m.cases.empty());
  for (const ManifestEntry& e : m.cases) {
    const StageInfo& stage = RequireStage(e.stage);
    const GoldenCase g = ReadCaseFile(kCheckedIn / e.file);
    // Every case has inputs and expected outputs: a case read as empty would check nothing.
    EXPECT_GT(ExpectTensorsMatchCatalogue(e.id, "input", g.input.inputs, stage.inputs), 0u) << e.id;
    EXPECT_GT(ExpectTensorsMatchCatalogue(e.id, "output", g.expected, stage.outputs), 0u) << e.id;
  }
}

TEST(GoldenSet, ReferencePassesCheckedInSet) {
  reference::ReferenceBackend backend;
  auto results = golden::VerifyGoldenSet(kCheckedIn, backend);
  ASSERT_FALSE(results.empty());
  for (const auto& r : results) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
}

TEST(GoldenSet, GenerationReplacesAnExistingSetAtomically) {
  // An existing golden set is replaced whole (docs/spec/golden.md "Generation": only a golden set, an empty
  // directory or a new path may be replaced); a directory holding anything else is refused
  // with nothing touched (tests/hostile_input_test.sh covers the command line).
  const fs::path dir = FreshDir("replace");
  golden::GenerateGoldenSet(dir, 7);
  golden::GenerateGoldenSet(dir, 7);
  EXPECT_TRUE(fs::exists(dir / "manifest.json"));
  std::ofstream(dir / "mine.txt") << "user data";
  EXPECT_THROW(golden::GenerateGoldenSet(dir, 7), std::exception);
  EXPECT_TRUE(fs::exists(dir / "mine.txt"));
  EXPECT_TRUE(fs::exists(dir / "manifest.json"));
  for (const auto& e : fs::directory_iterator(dir.parent_path())) {
    EXPECT_EQ(e.path().string().find(dir.filename().string() + ".tmp."), std::string::npos) << e.path();
  }
  fs::remove_all(dir);
}

// A backend that flips one bit of one output, to prove verification can fail.
class BitFlipBackend final : public Backend {
 public:
  std::string Name() const override { return "bitflip"; }
  std::vector<std::string> SupportedStages() const override { return {"greedy"}; }
  TensorMap Run(const std::string& stage, const Case& c) override {
    TensorMap out = reference_.Run(stage, c);
    out.at("token").data<std::int64_t>()[0] ^= 1;
    return out;
  }

 private:
  reference::ReferenceBackend reference_;
};

TEST(GoldenVerify, DetectsWrongOutputsAndSkipsUnsupportedStages) {
  BitFlipBackend backend;
  auto results = golden::VerifyGoldenSet(kCheckedIn, backend);
  int failed = 0, skipped = 0;
  const std::vector<std::string> supported = backend.SupportedStages();
  for (const auto& r : results) {
    if (std::find(supported.begin(), supported.end(), r.stage) != supported.end()) {
      EXPECT_EQ(r.verdict, Verdict::kFail) << r.id;
      EXPECT_NE(r.reason.find("first mismatch at index 0"), std::string::npos) << r.reason;
      ++failed;
    } else {
      EXPECT_EQ(r.verdict, Verdict::kSkip) << r.id;
      ++skipped;
    }
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(skipped, 0);
}

// A backend that runs out of memory on the first greedy case it is given: that case fails with
// the out-of-memory advice of docs/spec/cli.md "Input limits", not the bare "std::bad_alloc",
// and the run goes on (every other greedy case passes).
class OutOfMemoryBackend final : public Backend {
 public:
  std::string Name() const override { return "out-of-memory"; }
  std::vector<std::string> SupportedStages() const override { return {"greedy"}; }
  TensorMap Run(const std::string& stage, const Case& c) override {
    if (!thrown_) {
      thrown_ = true;
      throw std::bad_alloc();
    }
    return reference_.Run(stage, c);
  }

 private:
  bool thrown_ = false;
  reference::ReferenceBackend reference_;
};

TEST(GoldenVerify, ACaseThatRunsOutOfMemoryFailsWithAdviceAndTheRunGoesOn) {
  OutOfMemoryBackend backend;
  golden::VerifyOptions greedy_only{{"greedy"}, {}, std::nullopt, {}};
  const auto results = golden::VerifyGoldenSet(kCheckedIn, backend, greedy_only);
  int failed = 0, passed = 0;
  for (const auto& r : results) {
    if (r.verdict == Verdict::kFail) {
      ++failed;
      EXPECT_NE(r.reason.find("out of memory (std::bad_alloc): "), std::string::npos) << r.reason;
      EXPECT_NE(r.reason.find("raise the memory limit, lower --threads"), std::string::npos) << r.reason;
    } else {
      EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
      ++passed;
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_GT(passed, 0);
}

// A backend one ulp off on every finite non-zero float output, as a backend with its own exp or
// reduction order may be.
class OneUlpBackend final : public Backend {
 public:
  std::string Name() const override { return "one-ulp"; }
  std::vector<std::string> SupportedStages() const override { return {"softmax", "temperature"}; }
  TensorMap Run(const std::string& stage, const Case& c) override {
    TensorMap out = reference_.Run(stage, c);
    for (auto& [name, t] : out) {
      if (t.dtype() != DType::kF32) continue;
      for (float& v : t.data<float>()) {
        if (std::isfinite(v) && v != 0.0f) v = std::nextafter(v, 2 * v);
      }
    }
    return out;
  }

 private:
  reference::ReferenceBackend reference_;
};

TEST(GoldenVerify, CanonicalRuleRelaxesOnlyCanonicalTierStages) {
  OneUlpBackend backend;
  auto count = [](const std::vector<CaseResult>& results, const std::string& stage, Verdict v) {
    return std::count_if(results.begin(), results.end(),
                         [&](const auto& r) { return r.stage == stage && r.verdict == v; });
  };
  golden::VerifyOptions exact{{"softmax", "temperature"}, {}, std::nullopt, {}};
  auto strict = golden::VerifyGoldenSet(kCheckedIn, backend, exact);
  EXPECT_GT(count(strict, "softmax", Verdict::kFail), 0);
  golden::VerifyOptions relaxed = exact;
  relaxed.canonical_rule = ComparisonRule::Parse("ulp(1)");
  auto loose = golden::VerifyGoldenSet(kCheckedIn, backend, relaxed);
  EXPECT_EQ(count(loose, "softmax", Verdict::kFail), 0);
  // temperature is exact tier: still failed under the override.
  EXPECT_EQ(count(loose, "temperature", Verdict::kFail), count(strict, "temperature", Verdict::kFail));
  EXPECT_GT(count(loose, "temperature", Verdict::kFail), 0);
}

TEST(GoldenVerify, DetectsCorruptedAndMissingFiles) {
  const fs::path dir = FreshDir("corrupt");
  golden::GenerateGoldenSet(dir, golden::kDefaultGoldenSeed);
  const Manifest m = ReadManifest(dir);
  // Flip a byte in the last byte of the first case file, delete the second.
  {
    std::string bytes = ReadWholeFile(dir / m.cases[0].file);
    bytes.back() ^= 0x01;
    WriteFileAtomically(dir / m.cases[0].file, bytes);
  }
  fs::remove(dir / m.cases[1].file);
  reference::ReferenceBackend backend;
  golden::VerifyOptions options;
  auto results = golden::VerifyGoldenSet(dir, backend, options);
  EXPECT_EQ(results[0].verdict, Verdict::kFail);
  EXPECT_NE(results[0].reason.find("SHA-256"), std::string::npos) << results[0].reason;
  EXPECT_EQ(results[1].verdict, Verdict::kFail);
  EXPECT_NE(results[1].reason.find(m.cases[1].file), std::string::npos) << results[1].reason;
  EXPECT_EQ(results[2].verdict, Verdict::kPass) << results[2].reason;
  fs::remove_all(dir);
}

TEST(GoldenManifest, RejectsMalformedManifests) {
  const auto ok = ManifestToJson(Manifest{{}, {{"a", "greedy", Profile::kCanonical, "a.safetensors", "00", "exact"}}});
  EXPECT_NO_THROW(ManifestFromJson(ok, "m"));
  auto wrong_format = ok;
  wrong_format["format"] = "other";
  EXPECT_THROW(ManifestFromJson(wrong_format, "m"), InputError);
  auto wrong_version = ok;
  wrong_version["format_version"] = 99;
  EXPECT_THROW(ManifestFromJson(wrong_version, "m"), InputError);
  auto dup = ok;
  dup["cases"].push_back(dup["cases"][0]);
  EXPECT_THROW(ManifestFromJson(dup, "m"), InputError);
  auto escape = ok;
  escape["cases"][0]["file"] = "../x.safetensors";
  EXPECT_THROW(ManifestFromJson(escape, "m"), InputError);
  auto missing = ok;
  missing["cases"][0].erase("sha256");
  EXPECT_THROW(ManifestFromJson(missing, "m"), InputError);
  // The profile is parsed once, here: an unknown name names the entry and the accepted names.
  auto unknown_profile = ok;
  unknown_profile["cases"][0]["profile"] = "tgi";
  try {
    ManifestFromJson(unknown_profile, "m");
    ADD_FAILURE() << "an unknown profile was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "m: cases[0]: field 'profile': unknown profile 'tgi'; valid profiles: canonical, vllm"),
              std::string::npos)
        << e.what();
  }
}

TEST(GoldenCaseFile, RoundTripsInputsOutputsAndMetadata) {
  GoldenCase g;
  g.input = {"greedy/x/canonical", "greedy", Profile::kCanonical, {{"k", 3}}, {}};
  g.input.inputs.emplace("logits", Tensor::FromValues<float>(DType::kF32, {1, 2}, {1.0f, 2.0f}));
  g.expected.emplace("token", Tensor::FromValues<std::int64_t>(DType::kI64, {1}, {1}));
  g.comparison = ComparisonRule::Parse("exact");
  const fs::path path = FreshDir("case").string() + ".safetensors";
  WriteCaseFile(path, g);
  GoldenCase r = ReadCaseFile(path);
  EXPECT_EQ(r.input.id, g.input.id);
  EXPECT_EQ(r.input.params, g.input.params);
  EXPECT_TRUE(BitwiseEqual(r.input.inputs.at("logits").view(), g.input.inputs.at("logits").view()));
  EXPECT_TRUE(BitwiseEqual(r.expected.at("token").view(), g.expected.at("token").view()));
  EXPECT_EQ(r.comparison.ToString(), "exact");
  EXPECT_EQ(r.input.profile, Profile::kCanonical);
  fs::remove(path);
}

TEST(GoldenCaseFile, UnknownProfileIsAnErrorNamingTheFileAndTheProfiles) {
  GoldenCase g;
  g.input = {"greedy/x/vllm", "greedy", Profile::kVllm, nlohmann::json::object(), {}};
  g.input.inputs.emplace("logits", Tensor::FromValues<float>(DType::kF32, {1, 2}, {1.0f, 2.0f}));
  g.comparison = ComparisonRule::Parse("exact");
  std::string bytes = SerializeCase(g);
  // The metadata is a JSON string inside the safetensors header, so its quotes are escaped.
  // Same length, so the header size stays right: only the name is unknown.
  const std::string from = R"(\"profile\":\"vllm\")", to = R"(\"profile\":\"nope\")";
  const auto at = bytes.find(from);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, from.size(), to);
  const fs::path path = FreshDir("unknown_profile").string() + ".safetensors";
  std::ofstream(path, std::ios::binary) << bytes;
  try {
    ReadCaseFile(path);
    ADD_FAILURE() << "an unknown profile was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path.string() + ": metadata 'sampcheck.case' field 'profile': unknown profile 'nope'; valid "
                                        "profiles: canonical, vllm"),
              std::string::npos)
        << what;
  }
  fs::remove(path);
}

TEST(GoldenCaseFile, MovingSerializerWritesTheSameBytes) {
  GoldenCase g;
  g.input = {"greedy/x/canonical", "greedy", Profile::kCanonical, {{"k", 3}}, {}};
  g.input.inputs.emplace("logits", Tensor::FromValues<float>(DType::kF32, {1, 2}, {1.0f, 2.0f}));
  g.expected.emplace("token", Tensor::FromValues<std::int64_t>(DType::kI64, {1}, {1}));
  g.comparison = ComparisonRule::Parse("exact");
  const std::string copied = SerializeCase(g);
  EXPECT_EQ(SerializeCase(std::move(g)), copied);
}

TEST(GoldenHugeSet, ParsesTheSetNameAndListsItInTheError) {
  EXPECT_EQ(golden::ParseGoldenSet("huge"), golden::GoldenSet::kHuge);
  EXPECT_STREQ(golden::GoldenSetName(golden::GoldenSet::kHuge), "huge");
  try {
    golden::ParseGoldenSet("hug");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("v1, full, huge"), std::string::npos) << e.what();
  }
}

// The formula at the set's real size, by hand: 2^31 = 14134 * 151936 + 20224, so element 2^31
// is row 14134, column 20224; 2654435761 = 17470 * 151936 + 113841; row B - 1 = 14199 takes
// the last column; row B - 2 = 14198: 14198 * 2654435761 mod 151936 = 19350 (below V / 2).
TEST(GoldenHugeSet, FormulaAtTheFullSizeMatchesHandCalculation) {
  constexpr std::int64_t kV = 151936;
  EXPECT_EQ(golden::kHugeRows * kV - (std::int64_t{1} << 31), 10007552);  // 65.9 rows past 2^31
  EXPECT_EQ(golden::HugeBoundaryElement(golden::kHugeRows, kV), std::int64_t{1} << 31);
  EXPECT_EQ(golden::HugeGreedyToken(14134, golden::kHugeRows, kV), 20224);
  EXPECT_EQ(golden::HugeGreedyToken(0, golden::kHugeRows, kV), 0);
  EXPECT_EQ(golden::HugeGreedyToken(1, golden::kHugeRows, kV), 113841);
  EXPECT_EQ(golden::HugeGreedyToken(14198, golden::kHugeRows, kV), 19350);
  EXPECT_EQ(golden::HugeGreedyToken(14199, golden::kHugeRows, kV), kV - 1);
}

// B = 8, V = 151936 (1.2e6 elements): the generator's own code path and formula, checked by
// a plain scan of the bf16 bits (independent of CanonicalArgmax) and by the reference.
TEST(GoldenHugeSet, SmallInstancePlantsTheFormulaAndTheReferenceFindsIt) {
  constexpr std::int64_t kRows = 8, kV = golden::kHugeVocab;
  // Element B V / 2 + V / 3 = 4 V + 50645: row 4, column 50645; ties in row 6, row 7 last.
  EXPECT_EQ(golden::HugeGreedyToken(4, kRows, kV), 50645);
  EXPECT_EQ(golden::HugeGreedyToken(7, kRows, kV), kV - 1);
  golden::CaseList list(golden::kDefaultGoldenSeed, golden::GoldenSet::kHuge);
  golden::AddHugeCases(list, kRows);
  ASSERT_EQ(list.cases().size(), 1u);
  const Case& c = list.cases()[0];
  EXPECT_EQ(c.id, "greedy/huge_b8_v151936/canonical");
  const Tensor& logits = c.inputs.at("logits");
  ASSERT_EQ(logits.dtype(), DType::kBF16);
  ASSERT_EQ(logits.shape(), (Shape{kRows, kV}));
  auto bits = logits.data<std::uint16_t>();
  for (std::int64_t r = 0; r < kRows; ++r) {
    std::vector<std::int64_t> at_max;
    for (std::int64_t i = 0; i < kV; ++i) {
      const float x = BF16BitsToF32(bits[static_cast<std::size_t>(r * kV + i)]);
      ASSERT_TRUE(x >= -8.0f && (x < 8.0f || x == 9.0f)) << r << " " << i << " " << x;
      if (x == 9.0f) at_max.push_back(i);
    }
    const std::int64_t token = golden::HugeGreedyToken(r, kRows, kV);
    if (r == kRows - 2) {
      EXPECT_EQ(at_max, (std::vector<std::int64_t>{token, token + kV / 2})) << "tie row";
    } else {
      EXPECT_EQ(at_max, std::vector<std::int64_t>{token}) << "row " << r;
    }
  }
  reference::ReferenceBackend reference;
  const TensorMap out = reference.Run("greedy", c);
  auto tokens = out.at("token").data<std::int64_t>();
  ASSERT_EQ(tokens.size(), static_cast<std::size_t>(kRows));
  for (std::int64_t r = 0; r < kRows; ++r) {
    EXPECT_EQ(tokens[static_cast<std::size_t>(r)], golden::HugeGreedyToken(r, kRows, kV)) << "row " << r;
  }
}

}  // namespace
}  // namespace sampcheck::testing
