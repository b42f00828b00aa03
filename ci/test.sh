#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's test command: set-up (install, configure, build; incremental), then every
# test that needs no GPU. Extra arguments go to ctest (e.g. -L golden).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
ctest --preset "${SAMPCHECK_PRESET:-default}" -j "${SAMPCHECK_JOBS:-$(nproc)}" "$@"
