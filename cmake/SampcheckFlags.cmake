# SPDX-License-Identifier: Apache-2.0
# Compiler flags shared by every sampcheck target.
#
# Bit-exactness (docs/spec/math.md, docs/spec/reductions.md): host code is compiled without fast-math and with
# -ffp-contract=off, so `a * b + c` is two roundings everywhere, as PyTorch's separate
# element-wise kernels are. We do not pass -march=native: FMA and x87 must not creep in.
add_library(sampcheck_flags INTERFACE)
# The warnings are this build's own: an installed sampcheck::reference passes only the
# bit-exactness flags on to a consumer (cmake/SampcheckInstall.cmake).
target_compile_options(sampcheck_flags INTERFACE
  "$<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off;-fno-fast-math>"
  "$<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;-Wpedantic;-Wundef>>"
  "$<BUILD_INTERFACE:$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${SAMPCHECK_WERROR}>>:-Werror>>")
target_compile_definitions(sampcheck_flags INTERFACE
  SAMPCHECK_VERSION="${PROJECT_VERSION}"
  SAMPCHECK_HOST_FLAGS="-ffp-contract=off -fno-fast-math")

# Linking with lld when the toolchain has it (Debian package lld, installed by ci/setup.sh):
# about half the link time of ld.bfd for each of the ~100 test executables, which dominates the
# sanitizer build's links. Only C and C++ links: nvcc's device link is not touched.
include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=lld" SAMPCHECK_HAVE_LLD)
if(SAMPCHECK_HAVE_LLD)
  add_link_options("$<$<LINK_LANGUAGE:CXX,C>:-fuse-ld=lld>")
else()
  message(STATUS "sampcheck: lld not found, linking with the compiler's default linker")
endif()
