// SPDX-License-Identifier: Apache-2.0
// The long calibration run (label slow): every case over 60 seed epochs. Same code as the
// CI-sized statistical_calibration_test.
#define SAMPCHECK_CALIBRATION_SLOW 1
#include "statistical_calibration_test.cc"
