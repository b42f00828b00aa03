// SPDX-License-Identifier: Apache-2.0
// Escaping user text for XML, HTML and Markdown (reports/text_escape.h).
#include "reports/text_escape.h"

#include <cstdint>
#include <cstdio>

namespace sampcheck::reports {
namespace {

// Decodes one UTF-8 sequence at text[i]; returns its length, or 0 when it is malformed
// (overlong forms, surrogates and code points above U+10FFFF included, per RFC 3629).
std::size_t Utf8Sequence(std::string_view text, std::size_t i, std::uint32_t& code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  std::size_t length;
  std::uint32_t min;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, code_point = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, code_point = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, code_point = lead & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(k) & 0x3F);
  }
  if (code_point < min || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
  return length;
}

// The walk every escaper shares: a malformed byte becomes U+FFFD, each well-formed sequence
// (code point cp, bytes seq) goes to emit(out, cp, seq).
template <typename Emit>
std::string MapCodePoints(std::string_view text, Emit emit) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t cp = 0;
    const std::size_t length = Utf8Sequence(text, i, cp);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER for a malformed byte
      ++i;
      continue;
    }
    emit(out, cp, text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  return MapCodePoints(text, [](std::string& out, std::uint32_t cp, std::string_view seq) {
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      case 0xFFFE: out += "\\uFFFE"; break;
      case 0xFFFF: out += "\\uFFFF"; break;
      default:
        if (cp < 0x20 || cp == 0x7F) {  // forbidden in XML 1.0 (DEL is allowed but invisible)
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(cp));
          out += hex;
        } else {
          out.append(seq);
        }
    }
  });
}

std::string MarkdownCellEscape(std::string_view text) {
  // XmlEscape first: it leaves | \ ` alone and spells line breaks as &#10; / &#13;, which a
  // user's own "&" can never produce (it becomes "&amp;").
  const std::string escaped = XmlEscape(text);
  std::string out;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    const std::string_view rest = std::string_view(escaped).substr(i);
    if (rest.starts_with("&#10;")) {
      out += "<br>";
      i += 4;
    } else if (rest.starts_with("&#13;")) {
      i += 4;
    } else if (escaped[i] == '|' || escaped[i] == '\\' || escaped[i] == '`') {
      out += '\\';
      out += escaped[i];
    } else {
      out += escaped[i];
    }
  }
  return out;
}

std::string TerminalEscape(std::string_view text) {
  return MapCodePoints(text, [](std::string& out, std::uint32_t cp, std::string_view seq) {
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {  // C0, DEL, C1: ESC and CSI included
      char hex[12];
      if (cp < 0x80) {
        std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(cp));
      } else {
        std::snprintf(hex, sizeof hex, "\\u%04X", static_cast<unsigned>(cp));
      }
      out += hex;
    } else {
      out.append(seq);
    }
  });
}

std::string Utf8Sanitize(std::string_view text) {
  return MapCodePoints(text, [](std::string& out, std::uint32_t, std::string_view seq) { out.append(seq); });
}

}  // namespace sampcheck::reports
