#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every Debian package sampcheck needs (only what is missing; `apt-get update` at
# most once), then configures and builds the `default` preset. Safe to run any number of
# times: a second run installs nothing and rebuilds only what changed.
#
# Environment: SAMPCHECK_PRESET (default: default), SAMPCHECK_JOBS (default: nproc),
# SAMPCHECK_CMAKE_ARGS (extra configure arguments, split on spaces, e.g.
# -DSAMPCHECK_FLASHINFER_INCLUDE_DIR=/path/to/flashinfer/include).
set -euo pipefail
cd "$(dirname "$0")/.."

# Boost.Math comes from libboost1.81-dev: 1.81 has the Kolmogorov-Smirnov distribution. It
# conflicts with the 1.74 -dev packages, so nothing here may pull those in (python3-scipy
# would: independent checks use python3-numpy and python3-mpmath instead).
packages=(
  cmake ninja-build g++ pkg-config lld  # lld: faster links (cmake/SampcheckFlags.cmake)
  libboost1.81-dev libeigen3-dev nlohmann-json3-dev libcli11-dev libssl-dev
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev libmpfr-dev
  python3 python3-numpy python3-mpmath
  pybind11-dev python3-dev python3-pytest  # import sampcheck (python/) and its pytest tests
  python3-torch  # examples/torch_backend/: CPU PyTorch 1.13 from bookworm
  chromium  # tests/html_report_screenshot_test.sh renders the HTML report headless
  openmpi-bin libopenmpi-dev  # sampcheck-mpi and the ctest label mpi (docs/spec/tp_consensus.md)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ci/setup.sh: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

preset=${SAMPCHECK_PRESET:-default}
# shellcheck disable=SC2086 # SAMPCHECK_CMAKE_ARGS is a list of arguments
cmake --preset "$preset" -DSAMPCHECK_WERROR=ON ${SAMPCHECK_CMAKE_ARGS:-} >/dev/null
cmake --build --preset "$preset" -j "${SAMPCHECK_JOBS:-$(nproc)}"
