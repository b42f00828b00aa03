#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packs what a GPU machine without Debian packages needs to build sampcheck into .devdeps/
# (git-ignored): the headers of the Debian libraries the build uses (only the ones the build
# actually includes, read from the compiler's dependency records of build/default), their static
# libraries and their CMake package files, laid out as a prefix `.devdeps/usr`. ci/device.sh
# configures with CMAKE_PREFIX_PATH pointing there. Run it here, after `cmake --build --preset
# default`, whenever a change includes a new library header; docs/gpu.md "On a device".
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/default
[[ -f $build/build.ninja ]] || { echo "device_bundle: configure and build $build first" >&2; exit 1; }
out=.devdeps/usr
rm -rf .devdeps && mkdir -p "$out"

# Headers: every /usr/include file the build read, less the C and C++ standard libraries and
# Python (the device has its own), plus the whole of each small header-only library so a new
# include of one of them needs no re-bundle.
ninja -C "$build" -t deps | grep -o '/usr/include/[^ ]*' | sort -u |
  grep -E '^/usr/include/(boost|eigen3|rapidcheck|nlohmann|openssl|gtest|gmock|CLI|benchmark|x86_64-linux-gnu/openssl)/' \
  >.devdeps/headers.txt || true
for f in /usr/include/rapidcheck.h /usr/include/mpfr.h /usr/include/mpf2mpfr.h /usr/include/x86_64-linux-gnu/gmp.h; do
  [[ -f $f ]] && echo "$f" >>.devdeps/headers.txt
done
for d in nlohmann CLI gtest gmock benchmark rapidcheck openssl x86_64-linux-gnu/openssl; do
  [[ -d /usr/include/$d ]] && find "/usr/include/$d" -type f >>.devdeps/headers.txt
done
# Boost.Math's headers include one another by computed paths now and then: take the closure
# the build saw plus the whole of boost/math (small next to all of Boost).
find /usr/include/boost/math -type f >>.devdeps/headers.txt
sort -u .devdeps/headers.txt | while read -r f; do
  mkdir -p "$out$(dirname "$f")" && cp -p "$f" "$out$f"
done
# gmp.h lives in the multiarch folder on Debian; the device's compiler does not look there.
[[ -f $out/usr/include/x86_64-linux-gnu/gmp.h ]] && cp "$out/usr/include/x86_64-linux-gnu/gmp.h" "$out/usr/include/gmp.h"
mv "$out/usr/include" "$out/include" && rmdir "$out/usr"

# Static libraries and CMake package files (their paths are relative to the prefix).
lib=/usr/lib/x86_64-linux-gnu
mkdir -p "$out/lib/x86_64-linux-gnu/cmake" "$out/share/cmake" "$out/share/eigen3"
for a in libgtest.a libgtest_main.a libgmock.a libgmock_main.a librapidcheck.a libbenchmark_main.a \
         libcrypto.a libssl.a libmpfr.a libgmp.a; do
  [[ -f $lib/$a ]] && cp "$lib/$a" "$out/lib/x86_64-linux-gnu/"
done
for c in GTest benchmark rapidcheck Boost-1.81.0 boost_headers-1.81.0 BoostDetectToolset-1.81.0.cmake; do
  cp -r "$lib/cmake/$c" "$out/lib/x86_64-linux-gnu/cmake/"
done
cp -r /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json "$out/share/cmake/"
cp -r /usr/share/eigen3/cmake "$out/share/eigen3/"
# OpenSSL is found by CMake's FindOpenSSL (OPENSSL_ROOT_DIR); MPFR and GMP by find_library.
# Debian ships Google Benchmark as a shared library only: it travels as one, found at run time
# through LD_LIBRARY_PATH (ci/device.sh).
cp -P $lib/libbenchmark.so* "$out/lib/x86_64-linux-gnu/"
# FlashInfer's headers for `ci/device.sh peers` (docs/peers/flashinfer.md): CI keeps FlashInfer's
# sources beside the checkout, a device machine does not, so they travel in this carried,
# git-ignored folder (never in the project's tree).
if [[ -f ../shared/peers/flashinfer/include/flashinfer/sampling.cuh ]]; then
  mkdir -p .devdeps/flashinfer && cp -r ../shared/peers/flashinfer/include .devdeps/flashinfer/
else
  echo "device_bundle: no ../shared/peers/flashinfer: ci/device.sh peers will have no FlashInfer headers" >&2
fi
du -sh .devdeps
