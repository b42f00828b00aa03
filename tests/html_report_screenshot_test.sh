#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Renders the HTML report of the hand-made fixture tests/data/reports/mixed_run.json in
# headless Chromium (Debian `chromium`, installed by ci/setup.sh), takes a screenshot and checks
# that (1) the PNG exists, has the requested size and is not blank (decoded with Python's zlib
# and struct: several distinct colours, and enough non-white pixels), and (2) the DOM Chromium
# built holds the stage table with one row per stage. Exit 77 (ctest SKIP_RETURN_CODE) only
# when no chromium is installed; every other problem fails.
# Usage: html_report_screenshot_test.sh PATH/TO/sampcheck SOURCE_DIR
set -u
bin=$1
src=$2
browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$(command -v "$candidate"); break; fi
done
if [[ -z $browser ]]; then
  echo "SKIP: no chromium installed (ci/setup.sh installs the Debian package 'chromium')"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$bin" render --report "$src/tests/data/reports/mixed_run.json" --out "$tmp/out" >/dev/null; then
  echo "FAIL: sampcheck render failed"; exit 1
fi
page="file://$tmp/out/report.html"
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --no-default-browser-check
       --user-data-dir="$tmp/profile" --virtual-time-budget=2000)
# Chromium prints its own diagnostics on stderr; keep them for a failure message only.
if ! timeout 120 "$browser" "${flags[@]}" --screenshot="$tmp/shot.png" --window-size=1024,1400 "$page" \
    >"$tmp/shot.log" 2>&1; then
  echo "FAIL: chromium --screenshot exited non-zero"; tail -20 "$tmp/shot.log"; exit 1
fi
if ! timeout 120 "$browser" "${flags[@]}" --dump-dom "$page" >"$tmp/dom.html" 2>"$tmp/dom.log"; then
  echo "FAIL: chromium --dump-dom exited non-zero"; tail -20 "$tmp/dom.log"; exit 1
fi
exec /usr/bin/python3 - "$tmp/shot.png" "$tmp/dom.html" <<'PY'
import re
import struct
import sys
import zlib

png_path, dom_path = sys.argv[1], sys.argv[2]
errors = []
data = open(png_path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("FAIL: %s is not a PNG" % png_path)
pos, idat, header = 8, b"", None
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        header = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
width, height, depth, colour, _, _, interlace = header
if (width, height) != (1024, 1400):
    errors.append("screenshot is %dx%d, expected 1024x1400" % (width, height))
if depth != 8 or colour not in (2, 6) or interlace != 0:
    sys.exit("FAIL: unexpected PNG format depth=%d colour=%d interlace=%d" % (depth, colour, interlace))
bpp = 3 if colour == 2 else 4
raw = zlib.decompress(idat)
stride = width * bpp
previous = bytearray(stride)
colours, non_white = set(), 0
for y in range(height):
    filter_type = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):  # PNG filters (RFC 2083 section 6)
        a = line[i - bpp] if i >= bpp else 0
        b = previous[i]
        c = previous[i - bpp] if i >= bpp else 0
        if filter_type == 1:
            line[i] = (line[i] + a) & 255
        elif filter_type == 2:
            line[i] = (line[i] + b) & 255
        elif filter_type == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif filter_type == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    previous = line
    if y % 4 == 0:  # every 4th row is plenty to tell a page from a blank one
        for x in range(0, stride, bpp * 2):
            pixel = bytes(line[x:x + 3])
            colours.add(pixel)
            non_white += pixel != b"\xff\xff\xff"
# A rendered page has text (dark), table borders (grey), failure rows (pink) and bars (blue,
# red): far more than 8 colours and well over 1% of sampled pixels not white.
sampled = (height // 4) * (width // 2)
if len(colours) < 8 or non_white < sampled // 100:
    errors.append("screenshot looks blank: %d colours, %d of %d sampled pixels not white"
                  % (len(colours), non_white, sampled))
dom = open(dom_path, encoding="utf-8").read()
table = re.search(r'<table id="stages">(.*?)</table>', dom, re.S)
if not table:
    errors.append("the DOM has no <table id=\"stages\">")
else:
    body = re.search(r"<tbody>(.*?)</tbody>", table.group(1), re.S)
    rows = re.findall(r"<tr", body.group(1)) if body else []
    if len(rows) != 4:  # draws, draws_<vllm>, greedy, top_p
        errors.append("stage table has %d body rows, expected 4" % len(rows))
if "<script" in dom:
    errors.append("the DOM holds a script")
for e in errors:
    print("FAIL: " + e)
if not errors:
    print("screenshot %dx%d, %d colours sampled; stage table present" % (width, height, len(colours)))
sys.exit(1 if errors else 0)
PY
