// SPDX-License-Identifier: Apache-2.0
// The spec_random and block-verification proof tests at their full size (label slow): the same cases as
// tests/spec_random_statistical_test.cc with minimum detectable effects 4x smaller
// (w^2 = 0.0005, joint 0.002, acceptance shift 0.01), hence about 4x the trials.
#define SAMPCHECK_SPEC_PROOF_FULL 1
// Distinct test names, so ctest's labels (slow here) do not collide with the CI-size tests.
#define SpecRandomProof SpecRandomProofFull
#define BlockVerificationProof BlockVerificationProofFull
#include "tests/spec_random_statistical_test.cc"  // NOLINT(bugprone-suspicious-include)
