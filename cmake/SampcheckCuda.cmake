# SPDX-License-Identifier: Apache-2.0
# SAMPCHECK_CUDA=AUTO|ON|OFF: whether the CUDA parts (gpu/) are built.
# AUTO enables CUDA when nvcc is found; ON fails when it is not; OFF never looks.
# With CUDA, device code is compiled for sm_80 and sm_90 (so a device compile error is caught
# without a device) with IEEE arithmetic only (docs/gpu.md "Build"): no fused multiply-add
# contraction, no flush to zero, IEEE division and square root.
include(CheckLanguage)
set(SAMPCHECK_HAVE_CUDA OFF)
if(NOT SAMPCHECK_CUDA STREQUAL "OFF")
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(SAMPCHECK_HAVE_CUDA ON)
  elseif(SAMPCHECK_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SAMPCHECK_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
if(SAMPCHECK_HAVE_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
  endif()
  set(SAMPCHECK_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  enable_language(CUDA)
  # CMake 3.25 knows nvcc's dialect flags up to C++17; CUDA 12+ accepts -std=c++20.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(SAMPCHECK_CUDA_DEVICE_FLAGS -fmad=false -ftz=false -prec-div=true -prec-sqrt=true)
  list(JOIN SAMPCHECK_CUDA_DEVICE_FLAGS " " SAMPCHECK_CUDA_DEVICE_FLAGS_STRING)
  message(STATUS "sampcheck: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${SAMPCHECK_CUDA_ARCHITECTURES}, "
                 "device flags ${SAMPCHECK_CUDA_DEVICE_FLAGS_STRING}")
else()
  message(STATUS "sampcheck: CUDA parts skipped (no nvcc found or SAMPCHECK_CUDA=OFF); "
                 "the gpu-emulated backend is built anyway")
endif()
message(STATUS "sampcheck: CUDA parts ${SAMPCHECK_HAVE_CUDA} (SAMPCHECK_CUDA=${SAMPCHECK_CUDA})")
