# SPDX-License-Identifier: Apache-2.0
# SAMPCHECK_CUDA=AUTO|ON|OFF: whether the CUDA parts (gpu/) are built.
# AUTO enables CUDA when nvcc is found; ON fails when it is not; OFF never looks.
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
message(STATUS "sampcheck: CUDA parts ${SAMPCHECK_HAVE_CUDA} (SAMPCHECK_CUDA=${SAMPCHECK_CUDA})")
