#!/usr/bin/env python3
"""Checks unison-bench's report.html in a real browser: headless Chromium renders it, and
  - the rendered page (Chromium's DOM after loading) has a table of every family named,
  - the headline (its chart, <figure id="headline-chart">, where plots were drawn; else its
    numbers, <section id="headline">) lies wholly on the first screen, 1400 x 900 pixels, as
    Chromium lays the page out,
  - the first screen's screenshot, saved beside the report as report-first-screen.png, is not
    blank: at least 2 % of its pixels differ from the most common one (the background),
  - at least MIN_PLOTS figures are embedded.

Usage: check_report.py CHROMIUM REPORT_HTML MIN_PLOTS FAMILY...
Exit code 0 when every check passes, 1 otherwise (each failure printed). Standard library only.
"""
import collections
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


def chromium(browser, *args):
    # --no-sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def png_pixels(path):
    """The pixels of an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes), as rows of
    tuples."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(color)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"{path}: PNG of depth {depth}, color type {color}, interlace {interlace} not read here")
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, up_left = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        rows.append([tuple(line[x:x + channels]) for x in range(0, stride, channels)])
        previous = line
    return rows


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    browser, report, min_plots, families = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    failures = []
    url = "file://" + report
    dom = chromium(browser, "--dump-dom", url)
    if dom.returncode != 0:
        failures.append(f"chromium --dump-dom failed ({dom.returncode}): {dom.stderr.strip()[-300:]}")
    for family in families:
        if not re.search(r'<table class="family" data-family="%s">\s*<tbody>\s*<tr><th>case</th>' % re.escape(family), dom.stdout):
            failures.append(f"the rendered page has no table of the family {family}")
    plots = len(re.findall(r'<figure class="plot"', dom.stdout))
    if plots < min_plots:
        failures.append(f"{plots} plots embedded, expected at least {min_plots}")
    width, height = 1400, 900
    with tempfile.TemporaryDirectory() as tmp:
        # Where Chromium lays the headline out: a copy of the page with a script that writes the
        # box of the headline into the DOM it dumps.
        probe = os.path.join(tmp, "probe.html")
        with open(report, encoding="utf-8") as f:
            page = f.read()
        script = ("<script>const e = document.getElementById('headline-chart') || "
                  "document.getElementById('headline'); const b = e && e.getBoundingClientRect(); "
                  "document.body.setAttribute('data-headline-box', b ? [e.id, b.top, b.bottom, b.left, "
                  "b.right].join(' ') : 'none');</script>")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", script + "</body>"))
        laid = chromium(browser, f"--window-size={width},{height}", "--dump-dom", "file://" + probe)
        box = re.search(r'data-headline-box="([^"]*)"', laid.stdout)
        if not box or box.group(1) == "none":
            failures.append("the page has no headline (#headline-chart or #headline)")
        else:
            name, top, bottom, left, right = box.group(1).split()
            top, bottom, left, right = map(float, (top, bottom, left, right))
            print(f"check_report: the headline (#{name}) lies at x {left:.0f}-{right:.0f}, "
                  f"y {top:.0f}-{bottom:.0f} of the first screen's {width}x{height}")
            if top < 0 or bottom > height or left < 0 or right > width or bottom - top < 50:
                failures.append(f"the headline (#{name}, y {top:.0f}-{bottom:.0f}, x {left:.0f}-{right:.0f}) "
                                f"is not wholly on the first screen, {width}x{height}")
        shot = os.path.join(tmp, "report.png")
        run = chromium(browser, f"--window-size={width},{height}", f"--screenshot={shot}", url)
        if run.returncode != 0 or not os.path.exists(shot):
            failures.append(f"chromium --screenshot failed ({run.returncode}): {run.stderr.strip()[-300:]}")
        else:
            shutil.copyfile(shot, os.path.join(os.path.dirname(report), "report-first-screen.png"))
            rows = png_pixels(shot)
            counts = collections.Counter(p for row in rows for p in row)
            total = sum(counts.values())
            background, most = counts.most_common(1)[0]
            drawn = 1 - most / total
            print(f"check_report: first screen {len(rows[0])}x{len(rows)} (report-first-screen.png), "
                  f"{100 * drawn:.1f} % of its pixels differ from the background {background}; "
                  f"{plots} plots embedded")
            if drawn < 0.02:
                failures.append(f"the screenshot is blank: {100 * drawn:.2f} % of its pixels differ from the background")
    for f in failures:
        print("check_report: FAIL:", f)
    if not failures:
        print(f"check_report: {report} renders with a table of each of {', '.join(families)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
