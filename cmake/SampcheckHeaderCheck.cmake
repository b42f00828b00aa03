# SPDX-License-Identifier: Apache-2.0
# Self-containment of the headers shared with device code (docs/contributing.md "Host and device"): each
# one is compiled alone, as the only include of its own translation unit, with the host
# compiler and the project's warnings (-Wundef included), so a header that leans on an
# include it does not make fails the build.
set(SAMPCHECK_SHARED_HEADERS
  core/portability.h
  gpu/kernels/allowed_token_ids.cuh
  gpu/kernels/bad_words.cuh
  gpu/block/block_argmax.cuh
  gpu/block/block_model.h
  gpu/block/block_reduce.cuh
  gpu/block/last_block.cuh
  gpu/kernels/greedy.cuh
  gpu/kernels/logit_bias.cuh
  gpu/kernels/min_new_tokens.cuh
  gpu/kernels/nan_handling.cuh
  gpu/kernels/noise.cuh
  gpu/kernels/penalties.cuh
  gpu/kernels/softmax.cuh
  gpu/kernels/stage_rules.h
  gpu/kernels/temperature.cuh
  gpu/kernels/token_bitmask.cuh
  reference/math/bits.h
  reference/math/double_double.h
  reference/math/exp.h
  reference/math/fma.h
  reference/math/log.h
  reference/math/log1p.h
  reference/rng/murmur3.h
  reference/rng/noise.h
  reference/rng/noise_stream.h
  reference/rng/philox.h
  reference/rng/uniform.h
)
set(check_sources)
foreach(header ${SAMPCHECK_SHARED_HEADERS})
  string(MAKE_C_IDENTIFIER "${header}" stem)
  set(source "${CMAKE_CURRENT_BINARY_DIR}/header_check/${stem}.cc")
  file(CONFIGURE OUTPUT "${source}" CONTENT "#include \"${header}\"  // must compile alone\n")
  list(APPEND check_sources "${source}")
endforeach()
add_library(sampcheck_header_check OBJECT ${check_sources})
# Each header must stand alone in its own translation unit: never batched.
set_target_properties(sampcheck_header_check PROPERTIES UNITY_BUILD OFF)
target_include_directories(sampcheck_header_check PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(sampcheck_header_check PRIVATE sampcheck_flags)
