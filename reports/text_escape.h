// SPDX-License-Identifier: Apache-2.0
#pragma once
// Escaping user text for the report renderers (docs/spec/report.md "Escaping"). Case ids and
// reasons come from users' backends and may hold any bytes, so every renderer passes them
// through one of these before they reach markup.
//
// XmlEscape (XML 1.0 and HTML text and attribute values): & < > " ' become entities; tab, line
// feed and carriage return become character references (&#9; &#10; &#13;) so that they also
// survive attribute-value normalisation; characters XML 1.0 forbids (C0 controls other than
// those three, U+FFFE, U+FFFF) become the visible text "\xNN" / "\uFFFE"; bytes that are not
// valid UTF-8 become U+FFFD. The result is well-formed in both element content and
// attributes. Example: XmlEscape("a<b\x01") == "a&lt;b\\x01".
//
// MarkdownCellEscape (one GitHub-flavoured table cell): the XmlEscape of the text (GitHub
// passes inline HTML through, so < and & must not be live), except that line breaks become
// <br> (a raw one would end the table row) and | \ ` get a backslash (a raw | would end the
// cell, a raw ` open a code span). Example: MarkdownCellEscape("a|b\nc") == "a\\|b<br>c".

#include <string>
#include <string_view>

namespace sampcheck::reports {

std::string XmlEscape(std::string_view text);
std::string MarkdownCellEscape(std::string_view text);
// TerminalEscape (a line printed to a terminal or log): C0 controls, DEL and C1 controls
// (ESC and CSI among them, so a backend cannot move the cursor or recolour the screen) become
// the visible text "\xNN" / "\uNNNN", line breaks included; bytes that are not valid UTF-8
// become U+FFFD. Example: TerminalEscape("a\x1b[31m") == "a\\x1B[31m".
std::string TerminalEscape(std::string_view text);
// Utf8Sanitize: the text with every byte that is not part of a valid UTF-8 sequence replaced
// by U+FFFD, nothing else changed (JSON reports). Example: Utf8Sanitize("a\xff") == "a\uFFFD".
std::string Utf8Sanitize(std::string_view text);

}  // namespace sampcheck::reports
