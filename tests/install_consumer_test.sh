#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cmake --install` works for a kernel project (README "Install"): install this build into a
# temporary prefix; build tests/install_consumer/ against it with find_package(sampcheck) and
# run it; run the installed CLI from an unrelated directory with no --golden (it must find
# share/sampcheck/golden/v1 beside itself); a copy of the CLI with no goldens near it must
# fail with exit 2 and say to pass --golden; and, when the Python module was built, the
# installed package imports from the prefix.
# Usage: install_consumer_test.sh BUILD_DIR CONSUMER_SOURCE_DIR PYTHON_MODULE(ON|OFF)
set -euo pipefail
build=$1 consumer=$2 python_module=${3:-OFF}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampcheck-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
for f in bin/sampcheck include/sampcheck/backend_abi.h include/sampcheck/reference/top_p.h \
         share/sampcheck/golden/v1/manifest.json lib/cmake/sampcheck/sampcheckConfig.cmake; do
  [[ -e $prefix/$f ]] || { echo "FAIL: $f was not installed"; exit 1; }
done

# The consumer, with this build's compiler and flags (sanitizer builds need theirs to link).
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cxx_flags=$(sed -n 's/^CMAKE_CXX_FLAGS:[A-Z]*=//p' "$build/CMakeCache.txt")
link_flags=$(sed -n 's/^CMAKE_EXE_LINKER_FLAGS:[A-Z]*=//p' "$build/CMakeCache.txt")
cmake -S "$consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$link_flags" \
      >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/consumer/consumer"

# The installed CLI from elsewhere, default --golden.
mkdir "$tmp/elsewhere"
(cd "$tmp/elsewhere" && "$prefix/bin/sampcheck" conform --backend reference --report report --stage greedy \
   --no-stats --no-batch-invariance >out.txt) || { cat "$tmp/elsewhere/out.txt"; echo "FAIL: installed CLI"; exit 1; }
grep -q "against $prefix/share/sampcheck/golden/v1" "$tmp/elsewhere/out.txt" ||
  { cat "$tmp/elsewhere/out.txt"; echo "FAIL: the installed CLI did not use its installed goldens"; exit 1; }
echo "installed CLI: default golden set $prefix/share/sampcheck/golden/v1"

# A lone copy: no golden set beside it -> exit 2 and the fix in the message.
mkdir -p "$tmp/x/lone/bin"  # bin/../../../golden/v1 is then $tmp/golden/v1: absent
cp "$prefix/bin/sampcheck" "$tmp/x/lone/bin/"
set +e
(cd "$tmp/elsewhere" && "$tmp/x/lone/bin/sampcheck" conform --backend reference --report r2 --stage greedy) \
  >"$tmp/lone.out" 2>"$tmp/lone.err"
status=$?
set -e
[[ $status -eq 2 ]] || { cat "$tmp/lone.err"; echo "FAIL: a CLI without goldens exited $status, expected 2"; exit 1; }
grep -q "pass --golden DIR" "$tmp/lone.err" || { cat "$tmp/lone.err"; echo "FAIL: the error does not say what to pass"; exit 1; }
echo "lone CLI: $(cat "$tmp/lone.err")"

if [[ $python_module == ON ]]; then
  site=$(find "$prefix" -type d -name sampcheck -path '*dist-packages*' | head -1)
  [[ -n $site ]] || { echo "FAIL: the Python package was not installed"; exit 1; }
  (cd "$tmp/elsewhere" && PYTHONPATH=$(dirname "$site") /usr/bin/python3 -c \
    "import sampcheck, numpy as np; t = sampcheck.reference.greedy(np.array([[1, 3, 3, 2]], np.float32)); assert t.tolist() == [1], t; print('installed python package:', sampcheck.__file__)")
fi
echo "install and consume: ok"
