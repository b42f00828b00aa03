#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ctest's short run of one fuzz target (fuzz/CMakeLists.txt): replay the checked-in corpus,
# then RUNS mutations, one process, fixed seed, niced (docs/fuzzing.md).
# Usage: run_short.sh TARGET SCRATCH_DIR CORPUS_DIR RUNS
set -eu
target=$1 scratch=$2 corpus=$3 runs=$4
rm -rf "$scratch"; mkdir -p "$scratch"
exec nice -n 19 "$target" -seed=1 -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$scratch/" "$scratch" "$corpus"
