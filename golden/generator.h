// SPDX-License-Identifier: Apache-2.0
#pragma once
// Golden set generation (docs/spec/golden.md "Generation"): every family of every stage, run
// through the reference backend, written as one safetensors file per case plus
// manifest.json. The generator is the only writer of golden files.
//
// Determinism: the bytes depend only on the seed and the code — no time, host, compiler
// version or path is recorded — so a regenerated set is byte-identical on any IEEE-754
// machine built with the project's flags.
// Atomicity: the set is written into "<out>.tmp.<pid>" and then swapped into place with one
// rename (renameat2 RENAME_EXCHANGE when <out> exists, then the old set is removed): an
// interrupted run leaves either the old set or the new one, never a mix. The new set's files
// are flushed to disk (one syncfs) before the swap.
// Safety: <out> is replaced only when it is absent, an empty directory, or a golden set (its
// manifest.json names this generator and it holds nothing the manifest does not list); any other
// path is refused with an InputError before anything is written, so a mistyped --out never
// deletes a user's directory or file.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/case.h"
#include "core/manifest.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

inline constexpr std::uint64_t kDefaultGoldenSeed = 20261122;

// "v1", "full" or "huge"; throws InputError otherwise.
GoldenSet ParseGoldenSet(const std::string& name);

// The set's name in manifests and messages: "v1", "full" or "huge".
const char* GoldenSetName(GoldenSet set);

// All cases (inputs only), in a fixed order.
std::vector<Case> BuildGoldenCases(std::uint64_t seed, GoldenSet set = GoldenSet::kV1);
// Runs the reference on every case and writes the set. Returns its manifest.
// Memory: one case at a time is held with its outputs and serialized bytes (each case's inputs
// are moved, never copied, on the way to the file), so the huge set's peak is about twice its
// 4.3 GB input tensor (docs/spec/input_classes.md "Large indices").
Manifest GenerateGoldenSet(const std::filesystem::path& out_dir, std::uint64_t seed,
                           GoldenSet set = GoldenSet::kV1);

}  // namespace sampcheck::golden
