// SPDX-License-Identifier: Apache-2.0
#pragma once
// SHA-256 (FIPS 180-4) of a byte string as 64 lower-case hex digits, through OpenSSL's EVP
// interface: golden manifests record one per case file so a corrupted or hand-edited vector
// is caught before it is compared.
// Example: Sha256Hex("abc") ==
//   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" (FIPS 180-2, B.1).

#include <string>
#include <string_view>

namespace sampcheck {

std::string Sha256Hex(std::string_view bytes);

}  // namespace sampcheck
