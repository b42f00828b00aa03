// SPDX-License-Identifier: Apache-2.0
// Tests of core/safetensors.h against the safetensors format (huggingface/safetensors; our
// reading of it is docs/spec/safetensors.md): round trips for every dtype, scalars, empty
// tensors and metadata; a RapidCheck round-trip property; hand-derived known-answer files;
// one test per malformed-file class of the reader contract; atomic-write behaviour; and
// interoperability with a NumPy-only Python reader/writer (tests/python/safetensors_interop.py).
//
// Every expected byte is derived by hand from the format (comments count them); nothing is
// copied from the code under test's output. There are no statistical thresholds, so the
// false-failure budget is zero; the property test runs with the pinned RC_PARAMS seed.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/safetensors.h"
#include "tests/support/test_support.h"

namespace sampcheck {
namespace {

namespace fs = std::filesystem;

fs::path RunDir() {
  return fs::path(::testing::TempDir()) / ("sampcheck_safetensors_" + std::to_string(::getpid()));
}

// Removes this run's files when every test passed (kept for inspection otherwise).
class RemoveRunDirOnSuccess : public ::testing::Environment {
 public:
  void TearDown() override {
    if (::testing::UnitTest::GetInstance()->Passed()) {
      std::error_code ec;
      fs::remove_all(RunDir(), ec);
    }
  }
};
[[maybe_unused]] ::testing::Environment* const kRunDirCleanup =
    ::testing::AddGlobalTestEnvironment(new RemoveRunDirOnSuccess);

// A fresh directory per test: <gtest temp>/sampcheck_safetensors_<pid>/<suite>.<test>.
fs::path TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = RunDir() / (std::string(info->test_suite_name()) + "." + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Le64(std::uint64_t n) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  return s;
}

// A file as the format defines it: u64 LE header length, header bytes, data (no padding).
std::string RawFile(std::string_view header, std::string_view data) {
  return Le64(header.size()) + std::string(header) + std::string(data);
}

SafetensorsFile ParseString(const std::string& bytes, const std::string& what) {
  return ParseSafetensors(std::as_bytes(std::span(bytes.data(), bytes.size())), what);
}

std::vector<std::string> TmpEntries(const fs::path& dir) {
  std::vector<std::string> found;
  if (!fs::exists(dir)) return found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".tmp.") != std::string::npos) found.push_back(name);
  }
  return found;
}

template <class T>
Tensor Make(DType dtype, Shape shape, const std::vector<T>& values) {
  return Tensor::FromValues<T>(dtype, std::move(shape), values);
}

void ExpectSameTensors(const TensorMap& got, const TensorMap& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, t] : want) {
    SCOPED_TRACE("tensor " + name);
    const auto it = got.find(name);
    ASSERT_NE(it, got.end());
    EXPECT_TRUE(BitwiseEqual(it->second.view(), t.view()))
        << DTypeName(it->second.dtype()) << " " << ShapeString(it->second.shape()) << " vs "
        << DTypeName(t.dtype()) << " " << ShapeString(t.shape());
  }
}

// ---------------------------------------------------------------------------------------
// Round trips

TensorMap OneOfEachDType() {
  TensorMap m;
  m.emplace("f32", Make<float>(DType::kF32, {2, 2}, {1.0f, -0.0f, std::numeric_limits<float>::max(),
                                                  std::numeric_limits<float>::denorm_min()}));
  m.emplace("f16", Make<std::uint16_t>(DType::kF16, {3}, {0x3C00, 0x7E00, 0x8001}));
  m.emplace("bf16", Make<std::uint16_t>(DType::kBF16, {3}, {0x3F80, 0xFF80, 0x0001}));
  m.emplace("i32", Make<std::int32_t>(DType::kI32, {2}, {std::numeric_limits<std::int32_t>::min(),
                                                        7}));
  m.emplace("i64", Make<std::int64_t>(DType::kI64, {1, 2},
                                      {std::numeric_limits<std::int64_t>::max(), -3}));
  m.emplace("u8", Make<std::uint8_t>(DType::kU8, {4}, {0, 1, 128, 255}));
  m.emplace("bool", Make<std::uint8_t>(DType::kBool, {2, 1}, {1, 0}));
  return m;
}

TEST(Safetensors, EveryDTypeRoundTrips) {
  const fs::path path = TestDir() / "all.safetensors";
  const TensorMap tensors = OneOfEachDType();
  WriteSafetensors(path, tensors);
  const SafetensorsFile back = ReadSafetensors(path);
  ExpectSameTensors(back.tensors, tensors);
  EXPECT_TRUE(back.metadata.empty());
  // Data bytes: f32 16 + f16 6 + bf16 6 + i32 8 + i64 16 + u8 4 + bool 2 = 58.
  const std::string bytes = ReadWholeFile(path);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + n + 58);
}

TEST(Safetensors, ScalarRoundTrips) {
  TensorMap tensors;
  tensors.emplace("s", Make<float>(DType::kF32, {}, {-1.25f}));
  tensors.emplace("t", Make<std::uint8_t>(DType::kBool, {}, {1}));
  const SafetensorsFile back = ParseString(SerializeSafetensors(tensors, {}), "scalar");
  ExpectSameTensors(back.tensors, tensors);
  EXPECT_EQ(back.tensors.at("s").rank(), 0);
  EXPECT_EQ(back.tensors.at("s").data<float>()[0], -1.25f);
}

TEST(Safetensors, EmptyTensorsRoundTrip) {
  TensorMap tensors;
  tensors.emplace("a_empty", Tensor(DType::kF32, {0}));
  tensors.emplace("b", Make<std::int32_t>(DType::kI32, {1}, {42}));
  tensors.emplace("c_empty", Tensor(DType::kI64, {3, 0, 2}));
  tensors.emplace("d_empty", Tensor(DType::kBF16, {0}));  // at the very end of the data
  const SafetensorsFile back = ParseString(SerializeSafetensors(tensors, {}), "empty");
  ExpectSameTensors(back.tensors, tensors);
  EXPECT_EQ(back.tensors.at("c_empty").shape(), (Shape{3, 0, 2}));
}

TEST(Safetensors, NoTensorsRoundTrips) {
  // Header "{}" (2 bytes) padded to 8: the whole file is 16 bytes.
  const std::string bytes = SerializeSafetensors({}, {});
  EXPECT_EQ(bytes, Le64(8) + "{}      ");
  const SafetensorsFile back = ParseString(bytes, "none");
  EXPECT_TRUE(back.tensors.empty());
  EXPECT_TRUE(back.metadata.empty());
}

TEST(Safetensors, MetadataRoundTrips) {
  const Metadata metadata{{"format", "pt"},
                          {"quotes", "a \"b\" \\ c\n\t"},
                          {"utf8", "caf\xC3\xA9 \xE2\x82\xAC"},  // "café €"
                          {"empty", ""}};
  TensorMap tensors;
  tensors.emplace("x", Make<float>(DType::kF32, {1}, {2.0f}));
  const SafetensorsFile back = ParseString(SerializeSafetensors(tensors, metadata), "meta");
  EXPECT_EQ(back.metadata, metadata);
  ExpectSameTensors(back.tensors, tensors);
}

TEST(Safetensors, NamesNeedingEscapesRoundTrip) {
  TensorMap tensors;
  tensors.emplace("model.layers.0/\"q\"\\k", Make<std::uint8_t>(DType::kU8, {1}, {9}));
  tensors.emplace("\xCE\xB8", Make<std::uint8_t>(DType::kU8, {1}, {8}));  // "θ"
  const SafetensorsFile back = ParseString(SerializeSafetensors(tensors, {}), "names");
  ExpectSameTensors(back.tensors, tensors);
}

TEST(Safetensors, HeaderIsPaddedToMultipleOfEight) {
  // Name lengths 1..16 move the JSON length through every residue mod 8.
  for (int len = 1; len <= 16; ++len) {
    TensorMap tensors;
    tensors.emplace(std::string(static_cast<std::size_t>(len), 'n'),
                    Make<std::uint8_t>(DType::kU8, {1}, {1}));
    const std::string bytes = SerializeSafetensors(tensors, {});
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
    SCOPED_TRACE(::testing::Message() << "name length " << len << ", header " << n);
    EXPECT_EQ(n % 8, 0u);
    EXPECT_EQ(bytes.size(), 8 + n + 1);
    // Padding is spaces only, after the closing brace, and at most 7 of them.
    const std::string header = bytes.substr(8, n);
    const auto brace = header.rfind('}');
    EXPECT_LT(header.size() - 1 - brace, 8u);
    EXPECT_EQ(header.find_first_not_of(' ', brace + 1), std::string::npos);
  }
}

TEST(Safetensors, OutputIsDeterministic) {
  const TensorMap tensors = OneOfEachDType();
  EXPECT_EQ(SerializeSafetensors(tensors, {{"k", "v"}}),
            SerializeSafetensors(tensors, {{"k", "v"}}));
}

// ---------------------------------------------------------------------------------------
// Known answers, derived by hand from the format

TEST(Safetensors, WriterKnownAnswer) {
  // One f32 tensor "x" = [1.0, -2.0]. The writer's header is compact JSON with keys sorted
  // bytewise at every level ("data_offsets" < "dtype" < "shape"):
  //   {"x":{"data_offsets":[0,8],"dtype":"F32","shape":[2]}}
  // Length: { 1, "x" 3, : 1, { 1, "data_offsets" 14, : 1, [0,8] 5, , 1, "dtype" 7, : 1,
  // "F32" 5, , 1, "shape" 7, : 1, [2] 3, } 1, } 1 = 54. Padded with 2 spaces to 56 = 0x38.
  // Data: 1.0f = 0x3F800000 -> LE 00 00 80 3F; -2.0f = 0xC0000000 -> LE 00 00 00 C0.
  constexpr char kHeader[] = R"({"x":{"data_offsets":[0,8],"dtype":"F32","shape":[2]}})";
  static_assert(sizeof kHeader - 1 == 54, "hand count of the header");
  const std::string expected = std::string("\x38\0\0\0\0\0\0\0", 8) + kHeader + "  " +
                               std::string("\x00\x00\x80\x3F\x00\x00\x00\xC0", 8);
  ASSERT_EQ(expected.size(), 72u);  // 8 + 56 + 8

  TensorMap tensors;
  tensors.emplace("x", Make<float>(DType::kF32, {2}, {1.0f, -2.0f}));
  EXPECT_EQ(SerializeSafetensors(tensors, {}), expected);

  const fs::path path = TestDir() / "kat.safetensors";
  WriteSafetensors(path, tensors);
  EXPECT_EQ(ReadWholeFile(path), expected);

  const SafetensorsFile back = ParseString(expected, "kat");
  ASSERT_EQ(back.tensors.count("x"), 1u);
  EXPECT_EQ(testing::Bits(back.tensors.at("x").data<float>()[0]), 0x3F800000u);
  EXPECT_EQ(testing::Bits(back.tensors.at("x").data<float>()[1]), 0xC0000000u);
}

TEST(Safetensors, WriterKnownAnswerWithMetadataAndScalar) {
  // A 0-d f16 tensor "s" = 1.0 (binary16 0x3C00: e = 15, m = 0) and metadata {"k": "v"}.
  // "__metadata__" sorts before "s" ('_' = 0x5F < 's' = 0x73):
  //   {"__metadata__":{"k":"v"},"s":{"data_offsets":[0,2],"dtype":"F16","shape":[]}}
  // Length: {"__metadata__":{"k":"v"}, = { 1 + "__metadata__" 14 + : 1 + {"k":"v"} 9 + , 1
  // = 26; then "s" 3, : 1, { 1, "data_offsets" 14, : 1, [0,2] 5, , 1, "dtype" 7, : 1,
  // "F16" 5, , 1, "shape" 7, : 1, [] 2, } 1, } 1 = 52; total 78, padded with 2 spaces to
  // 80 = 0x50.
  constexpr char kHeader[] =
      R"({"__metadata__":{"k":"v"},"s":{"data_offsets":[0,2],"dtype":"F16","shape":[]}})";
  static_assert(sizeof kHeader - 1 == 78, "hand count of the header");
  const std::string expected = std::string("\x50\0\0\0\0\0\0\0", 8) + kHeader + "  " +
                               std::string("\x00\x3C", 2);  // 0x3C00 little-endian
  ASSERT_EQ(expected.size(), 90u);  // 8 + 80 + 2

  TensorMap tensors;
  tensors.emplace("s", Make<std::uint16_t>(DType::kF16, {}, {0x3C00}));
  EXPECT_EQ(SerializeSafetensors(tensors, {{"k", "v"}}), expected);

  const SafetensorsFile back = ParseString(expected, "kat");
  EXPECT_EQ(back.metadata, (Metadata{{"k", "v"}}));
  EXPECT_EQ(back.tensors.at("s").shape(), Shape{});
  EXPECT_EQ(back.tensors.at("s").data<std::uint16_t>()[0], 0x3C00);
}

TEST(Safetensors, ReaderAcceptsPythonStyleHeader) {
  // The Python/Rust writer orders entry keys dtype, shape, data_offsets and may put spaces
  // in the JSON; any valid JSON with the required fields is accepted. Two tensors, listed
  // out of data order; i32 [1, 2] = [-1, 258] -> LE FF FF FF FF 02 01 00 00, u8 [5] at the
  // start of the data.
  const std::string header =
      R"({"b": {"dtype": "I32", "shape": [1, 2], "data_offsets": [1, 9]},)"
      R"( "a": {"dtype": "U8", "shape": [], "data_offsets": [0, 1]}})";
  const std::string data("\x05\xFF\xFF\xFF\xFF\x02\x01\x00\x00", 9);
  const SafetensorsFile f = ParseString(RawFile(header + "   ", data), "python");
  ASSERT_EQ(f.tensors.size(), 2u);
  EXPECT_EQ(f.tensors.at("a").data<std::uint8_t>()[0], 5);
  EXPECT_EQ(f.tensors.at("b").shape(), (Shape{1, 2}));
  EXPECT_EQ(f.tensors.at("b").data<std::int32_t>()[0], -1);
  EXPECT_EQ(f.tensors.at("b").data<std::int32_t>()[1], 258);  // 0x00000102
}

// ---------------------------------------------------------------------------------------
// Property

RC_GTEST_PROP(Safetensors, WriteReadRoundTripsAnyTensorSet, ()) {
  const auto count = *rc::gen::inRange(0, 6);
  TensorMap tensors;
  for (int i = 0; i < count; ++i) {
    // Printable ASCII names, including '"' and '\\' that JSON must escape.
    auto name = *rc::gen::resize(
        8, rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::inRange(' ', '\x7F'))));
    if (name == "__metadata__") continue;
    const DType dtype = *rc::gen::elementOf(std::vector<DType>(std::begin(kAllDTypes),
                                                               std::end(kAllDTypes)));
    const auto rank = *rc::gen::inRange(0, 4);
    Shape shape;
    for (int d = 0; d < rank; ++d) shape.push_back(*rc::gen::inRange<std::int64_t>(0, 5));
    Tensor t(dtype, shape);
    const auto bytes = *rc::gen::container<std::vector<std::uint8_t>>(
        t.nbytes(), rc::gen::arbitrary<std::uint8_t>());
    for (std::size_t b = 0; b < bytes.size(); ++b) {
      // bool holds 0 or 1 (core/dtype.h).
      t.bytes()[b] = std::byte{dtype == DType::kBool ? static_cast<std::uint8_t>(bytes[b] & 1)
                                                     : bytes[b]};
    }
    tensors.insert_or_assign(std::move(name), std::move(t));
  }
  Metadata metadata;
  const auto meta_count = *rc::gen::inRange(0, 3);
  for (int i = 0; i < meta_count; ++i) {
    metadata[*rc::gen::container<std::string>(rc::gen::inRange(' ', '\x7F'))] =
        *rc::gen::container<std::string>(rc::gen::inRange(' ', '\x7F'));
  }

  static int file_index = 0;
  const fs::path dir = RunDir() / "property";
  fs::create_directories(dir);
  const fs::path path = dir / ("case" + std::to_string(file_index++) + ".safetensors");
  WriteSafetensors(path, tensors, metadata);
  const SafetensorsFile back = ReadSafetensors(path);

  RC_ASSERT(back.metadata == metadata);
  RC_ASSERT(back.tensors.size() == tensors.size());
  std::uint64_t data_bytes = 0;
  for (const auto& [name, t] : tensors) {
    const auto it = back.tensors.find(name);
    RC_ASSERT(it != back.tensors.end());
    RC_ASSERT(BitwiseEqual(it->second.view(), t.view()));
    data_bytes += t.nbytes();
  }
  // Layout: header length a multiple of 8, data packed with nothing after it.
  const std::string bytes = ReadWholeFile(path);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  RC_ASSERT(n % 8 == 0u);
  RC_ASSERT(bytes.size() == 8 + n + data_bytes);
  // Canonical: re-serialising what was read gives the same bytes.
  RC_ASSERT(SerializeSafetensors(back.tensors, back.metadata) == bytes);
  fs::remove(path);
}

// ---------------------------------------------------------------------------------------
// Malformed files: one test per fault class of the reader contract. Each writes the bytes
// to a file named after the test, reads it with ReadSafetensors, and checks that InputError
// is thrown with a message that starts with the path and contains the fault's words.

void ExpectRejected(const std::string& bytes, const std::vector<std::string>& words) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path path = TestDir() / (std::string(info->name()) + ".safetensors");
  WriteFileAtomically(path, bytes);
  try {
    ReadSafetensors(path);
    ADD_FAILURE() << "no InputError for " << path;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path.string() + ": ", 0), 0u) << "message does not start with the path: "
                                                      << msg;
    for (const std::string& w : words) {
      EXPECT_NE(msg.find(w), std::string::npos) << "\"" << w << "\" not in: " << msg;
    }
  }
}

// A valid entry: f32 [2] over 8 data bytes.
constexpr std::string_view kEntryA = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
const std::string kEightBytes(8, '\0');

TEST(SafetensorsReader, ValidBaselineIsAccepted) {
  // The malformed cases below are this file with one fault each.
  const fs::path path = TestDir() / "ok.safetensors";
  WriteFileAtomically(path, RawFile("{" + std::string(kEntryA) + "}", kEightBytes));
  EXPECT_EQ(ReadSafetensors(path).tensors.at("a").numel(), 2);
}

TEST(SafetensorsReader, RejectsFileShorterThanEightBytes) {
  ExpectRejected(std::string("\x02\x00\x00", 3), {"truncated", "8-byte"});
  ExpectRejected("", {"truncated"});
}

TEST(SafetensorsReader, RejectsHeaderLengthBeyondFile) {
  // Claims 100 header bytes; 2 follow.
  ExpectRejected(Le64(100) + "{}", {"header length 100", "beyond"});
}

TEST(SafetensorsReader, RejectsHeaderLengthAboveMaximum) {
  // 2^63 and kMaxHeaderBytes + 1: rejected by the bound before anything is allocated.
  ExpectRejected(Le64(std::uint64_t{1} << 63) + "{}", {"9223372036854775808", "maximum"});
  ExpectRejected(Le64(kMaxHeaderBytes + 1) + "{}", {"100000001", "maximum"});
}

TEST(SafetensorsReader, RejectsInvalidJson) {
  ExpectRejected(RawFile(R"({"a":)", ""), {"not valid JSON"});
  ExpectRejected(RawFile("{\"\xFF\":1}", ""), {"not valid JSON"});  // invalid UTF-8
}

TEST(SafetensorsReader, RejectsHeaderThatIsNotAnObject) {
  ExpectRejected(RawFile("[1,2]", ""), {"header is a JSON array", "expected an object"});
}

TEST(SafetensorsReader, RejectsDeeplyNestedHeader) {
  ExpectRejected(RawFile(std::string(1000, '[') + std::string(1000, ']'), ""),
                 {"nests deeper"});
}

TEST(SafetensorsReader, RejectsDuplicateTensorName) {
  // nlohmann::json would keep only the second entry; the format forbids duplicates.
  ExpectRejected(RawFile("{" + std::string(kEntryA) + "," + std::string(kEntryA) + "}",
                         kEightBytes),
                 {"duplicate tensor name", "\"a\""});
}

TEST(SafetensorsReader, RejectsDuplicateFieldInEntry) {
  ExpectRejected(
      RawFile(R"({"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
              kEightBytes),
      {"tensor \"a\"", "duplicate key \"dtype\""});
}

TEST(SafetensorsReader, RejectsEntryThatIsNotAnObject) {
  ExpectRejected(RawFile(R"({"a":[1]})", ""), {"tensor \"a\"", "expected an object"});
}

TEST(SafetensorsReader, RejectsEntryMissingField) {
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[2]}})", kEightBytes),
                 {"tensor \"a\"", "missing field \"data_offsets\""});
}

TEST(SafetensorsReader, RejectsEntryWithExtraField) {
  ExpectRejected(
      RawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"offset":0}})",
              kEightBytes),
      {"tensor \"a\"", "unexpected field \"offset\""});
}

TEST(SafetensorsReader, RejectsUnknownDType) {
  ExpectRejected(RawFile(R"({"a":{"dtype":"F99","shape":[2],"data_offsets":[0,8]}})",
                         kEightBytes),
                 {"tensor \"a\"", "unknown dtype \"F99\""});
}

TEST(SafetensorsReader, RejectsUnsupportedDType) {
  // U16 is a valid safetensors dtype that sampcheck does not read.
  ExpectRejected(RawFile(R"({"a":{"dtype":"U16","shape":[4],"data_offsets":[0,8]}})",
                         kEightBytes),
                 {"tensor \"a\"", "unsupported dtype \"U16\""});
}

TEST(SafetensorsReader, RejectsNegativeExtent) {
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})",
                         kEightBytes),
                 {"tensor \"a\"", "negative"});
}

TEST(SafetensorsReader, RejectsNonIntegerExtent) {
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})",
                         kEightBytes),
                 {"tensor \"a\"", "not an integer"});
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":["2"],"data_offsets":[0,8]}})",
                         kEightBytes),
                 {"tensor \"a\"", "not an integer"});
}

TEST(SafetensorsReader, RejectsElementCountOverflow) {
  // 2^40 * 2^40 = 2^80 elements: no int64 holds the count.
  ExpectRejected(
      RawFile(R"({"a":{"dtype":"F32","shape":[1099511627776,1099511627776],)"
              R"("data_offsets":[0,8]}})",
              kEightBytes),
      {"tensor \"a\"", "overflow"});
  // An extent of 2^64 - 1 does not even fit in int64.
  ExpectRejected(
      RawFile(R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,8]}})",
              kEightBytes),
      {"tensor \"a\"", "overflow"});
}

TEST(SafetensorsReader, RejectsReversedOffsets) {
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})",
                         kEightBytes),
                 {"tensor \"a\"", "reversed"});
}

TEST(SafetensorsReader, RejectsMalformedOffsets) {
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})",
                         kEightBytes),
                 {"tensor \"a\"", "data_offsets"});
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})",
                         kEightBytes),
                 {"tensor \"a\"", "negative"});
}

TEST(SafetensorsReader, RejectsOffsetsBeyondData) {
  // [0, 16] but only 8 data bytes; shape [4] makes the size consistent.
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                         kEightBytes),
                 {"tensor \"a\"", "beyond the data section of 8 bytes"});
}

TEST(SafetensorsReader, RejectsByteSizeMismatch) {
  // f32 [3] needs 3 * 4 = 12 bytes; the range holds 8.
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                         kEightBytes),
                 {"tensor \"a\"", "size mismatch", "needs 12"});
}

TEST(SafetensorsReader, RejectsOverlappingRanges) {
  // a = [0, 8), b = [4, 12) over 12 data bytes.
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                         std::string(12, '\0')),
                 {"tensor \"b\"", "overlaps tensor \"a\""});
}

TEST(SafetensorsReader, RejectsHoleBetweenRanges) {
  // a = [0, 4), b = [8, 12): bytes [4, 8) belong to no tensor.
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                         R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                         std::string(12, '\0')),
                 {"tensor \"b\"", "hole"});
}

TEST(SafetensorsReader, RejectsTrailingUncoveredBytes) {
  // a = [0, 4) of 8 data bytes: the last 4 are a hole at the end.
  ExpectRejected(RawFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                         kEightBytes),
                 {"hole", "cover only 4"});
}

TEST(SafetensorsReader, RejectsNonStringMetadataValue) {
  ExpectRejected(RawFile(R"({"__metadata__":{"k":1},)" + std::string(kEntryA) + "}",
                         kEightBytes),
                 {"__metadata__", "\"k\"", "expected a string"});
  ExpectRejected(RawFile(R"({"__metadata__":[],)" + std::string(kEntryA) + "}", kEightBytes),
                 {"__metadata__", "expected an object"});
}

TEST(SafetensorsReader, ParseNamesTheSourceInMessages) {
  try {
    ParseString("abc", "in-memory buffer");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("in-memory buffer: ", 0), 0u) << e.what();
  }
}

TEST(SafetensorsReader, MissingFileThrowsInputError) {
  const fs::path path = TestDir() / "absent.safetensors";
  EXPECT_THROW(ReadSafetensors(path), InputError);
}

// ---------------------------------------------------------------------------------------
// Atomic writes

TEST(SafetensorsWriter, SuccessfulWriteLeavesOnlyTheTarget) {
  const fs::path dir = TestDir();
  WriteSafetensors(dir / "out.safetensors", OneOfEachDType());
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"out.safetensors"});
}

TEST(SafetensorsWriter, FailedWriteToMissingDirectoryLeavesNoFile) {
  const fs::path dir = TestDir() / "missing";
  const fs::path path = dir / "out.safetensors";
  EXPECT_THROW(WriteSafetensors(path, OneOfEachDType()), InputError);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(dir));
}

TEST(SafetensorsWriter, FailedRenameLeavesNoTemporary) {
  // The target is a directory: the temporary is written, rename(2) over a directory fails
  // (EISDIR), and the temporary must be removed.
  const fs::path dir = TestDir();
  const fs::path path = dir / "target";
  fs::create_directory(path);
  try {
    WriteSafetensors(path, OneOfEachDType());
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path.string(), 0), 0u) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_TRUE(TmpEntries(dir).empty()) << TmpEntries(dir).front();
}

TEST(SafetensorsWriter, RejectedInputLeavesExistingFileUntouched) {
  const fs::path dir = TestDir();
  const fs::path path = dir / "out.safetensors";
  WriteSafetensors(path, OneOfEachDType());
  const std::string before = ReadWholeFile(path);
  TensorMap bad;
  bad.emplace("__metadata__", Tensor(DType::kU8, {1}));  // reserved name
  try {
    WriteSafetensors(path, bad);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path.string() + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find("reserved"), std::string::npos) << msg;
  }
  EXPECT_EQ(ReadWholeFile(path), before);
  EXPECT_TRUE(TmpEntries(dir).empty());
}

TEST(SafetensorsWriter, RejectsInvalidUtf8Name) {
  TensorMap bad;
  bad.emplace("\xFF", Tensor(DType::kU8, {1}));
  EXPECT_THROW(SerializeSafetensors(bad, {}), InputError);
}

// ---------------------------------------------------------------------------------------
// Interoperability with tests/python/safetensors_interop.py

fs::path SourceDir() {
#ifdef SAMPCHECK_SOURCE_DIR
  return SAMPCHECK_SOURCE_DIR;
#else
  const char* env = std::getenv("SAMPCHECK_SOURCE_DIR");
  return env ? fs::path(env) : fs::path();
#endif
}

std::string Python() {
#ifdef SAMPCHECK_PYTHON
  return SAMPCHECK_PYTHON;
#else
  const char* env = std::getenv("SAMPCHECK_PYTHON");
  return env ? env : "/usr/bin/python3";
#endif
}

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs the interop script; fails the test (never skips) with its output when it fails.
void RunInterop(const std::string& mode, const fs::path& file) {
  const fs::path script = SourceDir() / "tests/python/safetensors_interop.py";
  ASSERT_FALSE(SourceDir().empty())
      << "SAMPCHECK_SOURCE_DIR is not set (compile definition or environment)";
  ASSERT_TRUE(fs::exists(script)) << script;
  const fs::path log = file.string() + ".log";
  const std::string cmd = ShellQuote(Python()) + " " + ShellQuote(script.string()) + " " + mode +
                          " " + ShellQuote(file.string()) + " > " + ShellQuote(log.string()) +
                          " 2>&1";
  const int status = std::system(cmd.c_str());
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::string output;
  if (fs::exists(log)) output = ReadWholeFile(log);
  if (rc != 0) {
    FAIL() << cmd << "\nexited with " << rc << ":\n"
           << output
           << (rc == 3 || rc == 127
                   ? "\n" + Python() + " lacks numpy or is missing: run ci/setup.sh"
                   : std::string());
  }
}

// The tensors of safetensors_interop.py's KNOWN, with bit patterns from the IEEE definitions.
TensorMap KnownInteropTensors() {
  TensorMap m;
  // 1.0 = 0x3F800000; -2.5 = -(1.25 * 2^1): exponent 128 -> 0x40000000, fraction
  // 0.25 * 2^23 = 0x200000, sign -> 0xC0200000; +inf 0x7F800000; -0.0 0x80000000.
  Tensor f32(DType::kF32, {2, 2});
  const std::uint32_t f32_bits[] = {0x3F800000u, 0xC0200000u, 0x7F800000u, 0x80000000u};
  for (int i = 0; i < 4; ++i) f32.data<float>()[static_cast<std::size_t>(i)] = testing::FromBits(f32_bits[i]);
  m.emplace("f32", std::move(f32));
  // binary16: 1.0 = e 15 -> 0x3C00; -2.0 = e 16 -> 0x4000 | sign = 0xC000;
  // 65504 = largest finite 0x7BFF; 2^-24 = smallest subnormal 0x0001.
  m.emplace("f16", Make<std::uint16_t>(DType::kF16, {4}, {0x3C00, 0xC000, 0x7BFF, 0x0001}));
  // bf16 = top half of binary32: 1.0 -> 0x3F80, -2.0 (0xC0000000) -> 0xC000, 0.5 -> 0x3F00.
  m.emplace("bf16", Make<std::uint16_t>(DType::kBF16, {3}, {0x3F80, 0xC000, 0x3F00}));
  m.emplace("i32", Make<std::int32_t>(DType::kI32, {3},
                                      {-1, std::numeric_limits<std::int32_t>::max(),
                                       std::numeric_limits<std::int32_t>::min()}));
  m.emplace("i64", Make<std::int64_t>(DType::kI64, {2},
                                      {std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max()}));
  m.emplace("u8", Make<std::uint8_t>(DType::kU8, {3}, {0, 255, 7}));
  m.emplace("bool", Make<std::uint8_t>(DType::kBool, {3}, {1, 0, 1}));
  m.emplace("scalar", Make<std::int64_t>(DType::kI64, {}, {-1}));
  m.emplace("empty", Tensor(DType::kF32, {0, 3}));
  return m;
}

const Metadata kKnownInteropMetadata{{"producer", "sampcheck interop"},
                                     {"quote", "a \"b\" \\ c"}};

TEST(SafetensorsInterop, ReadsFileWrittenByNumPy) {
  const fs::path path = TestDir() / "from_python.safetensors";
  RunInterop("write", path);
  if (::testing::Test::HasFatalFailure()) return;
  const SafetensorsFile f = ReadSafetensors(path);
  ExpectSameTensors(f.tensors, KnownInteropTensors());
  EXPECT_EQ(f.metadata, kKnownInteropMetadata);
}

TEST(SafetensorsInterop, NumPyReadsFileWrittenByCpp) {
  const fs::path path = TestDir() / "from_cpp.safetensors";
  WriteSafetensors(path, KnownInteropTensors(), kKnownInteropMetadata);
  RunInterop("check", path);
}

}  // namespace
}  // namespace sampcheck
