#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's test command: set-up (install, configure, build; incremental), then every
# test that needs no GPU and is not a long campaign (label `slow`, run by hand:
# `ctest --test-dir build/default -L slow`). Extra arguments go to ctest (e.g. -L golden).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
ctest --preset "${SAMPCHECK_PRESET:-default}" -j "${SAMPCHECK_JOBS:-$(nproc)}" "$@"
