// SPDX-License-Identifier: Apache-2.0
// SHA-256 through OpenSSL (core/sha256.h).
#include "core/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace sampcheck {

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("Sha256Hex: OpenSSL EVP_Digest failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace sampcheck
