// SPDX-License-Identifier: Apache-2.0
// Escaping user text for XML/HTML and Markdown (reports/text_escape.h, docs/spec/report.md
// "Escaping"). Expected strings are written by hand from XML 1.0 section 2.2 (allowed
// characters: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]) and
// the GitHub-flavoured Markdown table rules (a | ends a cell unless escaped as \|).
#include "reports/text_escape.h"

#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace sampcheck::reports {
namespace {

TEST(XmlEscape, ReplacesTheFiveMarkupCharacters) {
  EXPECT_EQ(XmlEscape(R"(<a href="x">'&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(XmlEscape, KeepsWhitespaceAsCharacterReferences) {
  EXPECT_EQ(XmlEscape("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
}

TEST(XmlEscape, SpellsForbiddenControlCharactersVisibly) {
  EXPECT_EQ(XmlEscape(std::string("a\x01" "b\x1f" "c\x7f", 6)), "a\\x01b\\x1Fc\\x7F");
  EXPECT_EQ(XmlEscape(std::string("nul\0end", 7)), "nul\\x00end");
  EXPECT_EQ(XmlEscape("\xEF\xBF\xBE\xEF\xBF\xBF"), "\\uFFFE\\uFFFF");  // U+FFFE, U+FFFF
}

TEST(XmlEscape, KeepsValidUtf8AndReplacesMalformedBytes) {
  EXPECT_EQ(XmlEscape("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"), "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");  // é € 😀
  EXPECT_EQ(XmlEscape("a\xFF" "b"), "a\xEF\xBF\xBD" "b");        // stray byte
  EXPECT_EQ(XmlEscape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(XmlEscape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate D800
  EXPECT_EQ(XmlEscape("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated sequence
}

TEST(MarkdownCellEscape, EscapesPipesBackslashesAndBackticks) {
  EXPECT_EQ(MarkdownCellEscape("a|b\\c`d"), "a\\|b\\\\c\\`d");
}

TEST(MarkdownCellEscape, TurnsLineBreaksIntoBrAndNeutralisesMarkup) {
  EXPECT_EQ(MarkdownCellEscape("x\r\ny<script>"), "x<br>y&lt;script&gt;");
  // A user's literal "&#10;" is not a line break.
  EXPECT_EQ(MarkdownCellEscape("&#10;"), "&amp;#10;");
}

// Whatever the bytes, the XML escape holds no raw markup character and no forbidden control.
RC_GTEST_PROP(XmlEscape, OutputHoldsNoRawMarkupOrControls, (const std::string& text)) {
  const std::string out = XmlEscape(text);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(out[i]);
    RC_ASSERT(c != '<' && c != '>' && c != '"' && c != '\'');
    RC_ASSERT(c >= 0x20 && c != 0x7F);
    if (c == '&') {
      const std::size_t end = out.find(';', i);
      RC_ASSERT(end != std::string::npos && end - i <= 5);
    }
  }
}

// A Markdown cell never holds an unescaped | or a raw line break.
RC_GTEST_PROP(MarkdownCellEscape, NoBarePipeOrLineBreak, (const std::string& text)) {
  const std::string out = MarkdownCellEscape(text);
  RC_ASSERT(out.find('\n') == std::string::npos);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] != '|') continue;
    std::size_t backslashes = 0;
    for (std::size_t k = i; k > 0 && out[k - 1] == '\\'; --k) ++backslashes;
    RC_ASSERT(backslashes % 2 == 1);
  }
}

}  // namespace
}  // namespace sampcheck::reports
