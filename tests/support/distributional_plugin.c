/* SPDX-License-Identifier: Apache-2.0 */
/* The example plugin (examples/plugin/) with the optional export
 * sampcheck_backend_v1_distributional_stages (docs/spec/plugin_abi.md "Distributional stages"):
 * it claims `greedy` only in distribution, or, compiled with DISTRIBUTIONAL_UNDECLARED, names a
 * stage it does not declare (refused at load). tests/plugin_backend_test.cc loads both. */
#include "plugin/example_plugin.c"

static const char* const kDistributional[] = {
#ifdef DISTRIBUTIONAL_UNDECLARED
    "softmax",
#else
    "greedy",
#endif
};

EXAMPLE_EXPORT int32_t sampcheck_backend_v1_distributional_stages(const char* const** stages) {
  *stages = kDistributional;
  return (int32_t)(sizeof kDistributional / sizeof kDistributional[0]);
}
