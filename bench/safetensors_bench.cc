// SPDX-License-Identifier: Apache-2.0
// safetensors (core/safetensors.h): write and read of one 64 x 151936 f32 tensor
// (38.9 MB of data, a one-entry header) beside raw stdio of the same bytes.
//
// Files go to $SAMPCHECK_BENCH_DIR, or the system temporary directory when it is unset; each
// benchmark removes its file at the end. Reads hit the page cache (the file was just written).
//
// Baselines (each paired with the benchmark of the same prefix by ratios.py):
// - BM_SafetensorsWriteBaseline: fopen, one fwrite of the same number of bytes, fflush,
//   fsync, fclose. WriteSafetensors promises an atomic durable file (temporary + fsync +
//   rename, core/atomic_file.h); a baseline without the fsync would time the page cache
//   against the disk, so the fsync is in both. Expected ratio ~1-1.5x: serialising into a
//   std::string (one extra copy of the data) is small beside the fsync.
// - BM_SafetensorsReadBaseline: fopen, one fread of the whole file into a buffer allocated
//   before timing, fclose. ReadSafetensors reads the file with one fread into a std::string
//   sized from the file (resize zero-fills it first), parses and validates the header, then
//   copies the data into a zero-filled Tensor: about four passes against one, expect ~2-4x.
// - BM_SafetensorsSerializeBaseline / BM_SafetensorsParseBaseline: a memcpy of the file's
//   bytes, the floor for the in-memory halves SerializeSafetensors and ParseSafetensors, which
//   separate the format's cost from the file system's. Serialize is one append of the data to
//   a reserved string and Parse a zero-fill plus a memcpy: expect ~1-2x for both.
// Measured ratios are in bench/README.md.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "core/safetensors.h"

namespace sampcheck::bench {
namespace {

std::filesystem::path BenchFile(const char* stem) {
  const char* dir = std::getenv("SAMPCHECK_BENCH_DIR");
  const std::filesystem::path base =
      dir && *dir ? std::filesystem::path(dir) : std::filesystem::temp_directory_path();
  return base / (std::string("sampcheck_bench_") + stem + "_" + std::to_string(::getpid()) +
                 ".safetensors");
}

TensorMap BenchTensors() { return {{"logits", RandomLogits(kRows, kVocab, kSeedLogits)}}; }

void SetFileCounters(benchmark::State& state, std::size_t file_bytes) {
  state.SetItemsProcessed(state.iterations() * kElements);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(file_bytes));
}

// The whole file as bytes; setup only.
std::string FileBytes() { return SerializeSafetensors(BenchTensors(), {}); }

void WriteRaw(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot create " + path.string());
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fflush(f) == 0 && ok;
  ok = ::fsync(::fileno(f)) == 0 && ok;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) throw std::runtime_error("write failed: " + path.string());
}

void BM_SafetensorsWriteBaseline(benchmark::State& state) {
  const std::string bytes = FileBytes();
  const auto path = BenchFile("write_baseline");
  for (auto _ : state) WriteRaw(path, std::as_bytes(std::span(bytes)));
  std::filesystem::remove(path);
  SetFileCounters(state, bytes.size());
}
SAMPCHECK_BENCHMARK(BM_SafetensorsWriteBaseline);

void BM_SafetensorsWrite(benchmark::State& state) {
  const TensorMap tensors = BenchTensors();
  const auto path = BenchFile("write");
  for (auto _ : state) WriteSafetensors(path, tensors);
  SetFileCounters(state, std::filesystem::file_size(path));
  std::filesystem::remove(path);
}
SAMPCHECK_BENCHMARK(BM_SafetensorsWrite);

void BM_SafetensorsReadBaseline(benchmark::State& state) {
  const std::string bytes = FileBytes();
  const auto path = BenchFile("read_baseline");
  WriteRaw(path, std::as_bytes(std::span(bytes)));
  std::vector<char> buffer(bytes.size());
  for (auto _ : state) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw std::runtime_error("cannot open " + path.string());
    const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), f);
    std::fclose(f);
    if (got != buffer.size()) throw std::runtime_error("short read: " + path.string());
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
  }
  std::filesystem::remove(path);
  SetFileCounters(state, bytes.size());
}
SAMPCHECK_BENCHMARK(BM_SafetensorsReadBaseline);

void BM_SafetensorsRead(benchmark::State& state) {
  const auto path = BenchFile("read");
  WriteSafetensors(path, BenchTensors());
  for (auto _ : state) {
    SafetensorsFile file = ReadSafetensors(path);
    benchmark::DoNotOptimize(file);
    benchmark::ClobberMemory();
  }
  SetFileCounters(state, std::filesystem::file_size(path));
  std::filesystem::remove(path);
}
SAMPCHECK_BENCHMARK(BM_SafetensorsRead);

// The memcpy floor shared by the two in-memory benchmarks.
void MemcpyFloor(benchmark::State& state) {
  const std::string bytes = FileBytes();
  std::vector<char> out(bytes.size());
  for (auto _ : state) {
    std::memcpy(out.data(), bytes.data(), bytes.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetFileCounters(state, bytes.size());
}

void BM_SafetensorsSerializeBaseline(benchmark::State& state) { MemcpyFloor(state); }
SAMPCHECK_BENCHMARK(BM_SafetensorsSerializeBaseline);

void BM_SafetensorsSerialize(benchmark::State& state) {
  const TensorMap tensors = BenchTensors();
  std::size_t size = 0;
  for (auto _ : state) {
    std::string bytes = SerializeSafetensors(tensors, {});
    size = bytes.size();
    benchmark::DoNotOptimize(bytes);
    benchmark::ClobberMemory();
  }
  SetFileCounters(state, size);
}
SAMPCHECK_BENCHMARK(BM_SafetensorsSerialize);

void BM_SafetensorsParseBaseline(benchmark::State& state) { MemcpyFloor(state); }
SAMPCHECK_BENCHMARK(BM_SafetensorsParseBaseline);

void BM_SafetensorsParse(benchmark::State& state) {
  const std::string bytes = FileBytes();
  const auto span = std::as_bytes(std::span(bytes));
  for (auto _ : state) {
    SafetensorsFile file = ParseSafetensors(span, "bench");
    benchmark::DoNotOptimize(file);
    benchmark::ClobberMemory();
  }
  SetFileCounters(state, bytes.size());
}
SAMPCHECK_BENCHMARK(BM_SafetensorsParse);

}  // namespace
}  // namespace sampcheck::bench
