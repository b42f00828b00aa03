// SPDX-License-Identifier: Apache-2.0
#pragma once
// Range checks for numeric command-line options (docs/spec/cli.md "Option ranges"). CLI11's
// own number checks let NaN through (every comparison with NaN is false) and its unsigned
// conversion turns "-1" or a value above 2^64 - 1 into 2^64 - 1; these validators see the text
// first and reject such values with the accepted range.
// Example: cmd.add_option("--seed", seed)->check(Uint64Text());
//   "--seed -1" -> "--seed: -1 is not an integer in [0, 18446744073709551615]"

#include <CLI/CLI.hpp>

namespace sampcheck::cli {

// A finite decimal number in [min, max] (min_open: in (min, max]).
CLI::Validator FiniteInRange(double min, double max, bool min_open = false);
// An unsigned decimal integer in [0, 2^64 - 1]: digits only, no sign, no exponent.
CLI::Validator Uint64Text();

// The longest --case-timeout: one week. Deadlines are kept in microseconds of a signed 64-bit
// clock, where 1e20 s overflowed and made correct cases time out at random; a week is far
// beyond any case and far below that overflow even times a 32-case group.
inline constexpr double kMaxCaseTimeoutSeconds = 7 * 24 * 3600.0;

// The largest --effect-tolerance: a million minimum detectable effects already disables the
// effect-size check; NaN and infinity, which compare false with everything, are refused.
inline constexpr double kMaxEffectTolerance = 1e6;

}  // namespace sampcheck::cli
