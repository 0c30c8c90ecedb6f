#!/usr/bin/env python3
"""Checks the manual's references are complete.

  - C++ (Doxygen's XML): every function of the public headers' namespaces (not detail) has a
    description, a \\param for each of its parameters, and a \\return unless it returns void;
  - the built site: every public function of include/unison/*.hpp (each opens the Kokkos Tools
    region "unison::<name>") appears in the C++ reference, and every function of the Python
    package's __all__ in the Python reference.

Usage: check_reference.py ROOT XML_DIR HTML_DIR [--python-names NAME,...] [--screenshot CHROMIUM]
(ROOT: the repository; without --python-names, the Python reference is not checked.)
--screenshot: headless Chromium renders the diffusion page (reference/cpp/diffusion.html, the
page of unison::diffuse) into HTML_DIR/../diffuse-page.png, which must not be blank.
Prints each gap and exits 1 if there is any. Standard library only.
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET


def text(node):
    return "".join(node.itertext()).strip() if node is not None else ""


def cpp_gaps(xml_dir):
    """The public functions of the XML that lack a description, a parameter's or the return's."""
    gaps, seen = [], 0
    paths = sorted(pathlib.Path(xml_dir).glob("namespace*.xml")) + \
        sorted(pathlib.Path(xml_dir).glob("struct*.xml")) + sorted(pathlib.Path(xml_dir).glob("class*.xml"))
    for path in paths:
        root = ET.parse(path).getroot()
        for compound in root.iter("compounddef"):
            name = text(compound.find("compoundname"))
            if "detail" in name.split("::"):
                continue
            for member in compound.iter("memberdef"):
                if member.get("kind") != "function" or member.get("prot") != "public":
                    continue
                if text(member.find("name")).startswith("operator=") or \
                        "=delete" in (member.findtext("argsstring") or "").replace(" ", ""):
                    continue
                seen += 1
                where = f"{name}::{text(member.find('name'))} ({member.find('location').get('file')}:" \
                        f"{member.find('location').get('line')})"
                detail = member.find("detaileddescription")
                if not text(member.find("briefdescription")) and not text(detail):
                    gaps.append(f"{where}: no description")
                    continue
                documented = {text(n) for n in detail.iter("parametername")}
                # (a \param naming several, "x, k, y", documents each)
                documented = {p.strip() for d in documented for p in d.split(",")}
                for param in member.findall("param"):
                    declname = text(param.find("declname"))
                    if declname and declname not in documented:
                        gaps.append(f"{where}: parameter {declname} not documented")
                returns = text(member.find("type"))
                if text(member.find("name")) == name.split("::")[-1]:  # a constructor
                    returns = ""
                has_return = any(s.get("kind") == "return" for s in detail.iter("simplesect"))
                if returns and returns not in ("void", "constexpr void") and "void" != returns.split()[-1] and \
                        not returns.startswith("std::enable_if_t") and not has_return:
                    gaps.append(f"{where}: return value ({returns}) not documented")
    return gaps, seen


def public_functions(root):
    found = set()
    for header in (pathlib.Path(root) / "include/unison").glob("*.hpp"):
        found |= set(re.findall(r'Region\s*\w*\s*\(\s*"unison::([\w:]+)"', header.read_text()))
    return found


def screenshot(browser, html):
    """The diffusion page rendered; a gap if Chromium fails or the page is blank."""
    import collections
    import importlib.util
    import subprocess
    spec = importlib.util.spec_from_file_location(
        "check_report", pathlib.Path(__file__).resolve().parents[1] / "apps/unison-bench/check_report.py")
    check_report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_report)
    page = html / "reference" / "cpp" / "diffusion.html"
    shot = html.parent / "diffuse-page.png"
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          "--virtual-time-budget=3000", "--window-size=1400,1200",
                          f"--screenshot={shot}", "file://" + str(page.resolve())],
                         capture_output=True, text=True, timeout=120)
    if run.returncode != 0 or not shot.exists():
        return [f"chromium --screenshot of {page} failed ({run.returncode})"]
    rows = check_report.png_pixels(str(shot))
    counts = collections.Counter(p for row in rows for p in row)
    drawn = 1 - counts.most_common(1)[0][1] / sum(counts.values())
    print(f"check_reference: {shot} ({len(rows[0])}x{len(rows)}), {100 * drawn:.1f} % of its pixels drawn")
    return [] if drawn >= 0.02 else [f"{shot} is blank"]


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    root, xml_dir, html_dir = argv[1:4]
    python_names = []
    if "--python-names" in argv:
        python_names = argv[argv.index("--python-names") + 1].split(",")
    gaps, seen = cpp_gaps(xml_dir)
    html = pathlib.Path(html_dir)
    cpp_pages = "\n".join(p.read_text() for p in (html / "reference" / "cpp").glob("*.html"))
    for name in sorted(public_functions(root)):
        last = name.split("::")[-1]
        if not re.search(rf'id="[^"]*{re.escape(last)}[^"]*"', cpp_pages):
            gaps.append(f"unison::{name}: not in the C++ reference (reference/cpp/*.html)")
    python_page = (html / "reference" / "python.html")
    python_text = python_page.read_text() if python_page.exists() else ""
    for name in python_names:
        if f'id="unison.{name}"' not in python_text:
            gaps.append(f"unison.{name}: not in the Python reference (reference/python.html)")
    if "--screenshot" in argv:
        gaps += screenshot(argv[argv.index("--screenshot") + 1], html)
    for gap in gaps:
        print("check_reference:", gap)
    print(f"check_reference: {seen} C++ functions in the XML, {len(public_functions(root))} public "
          f"functions and {len(python_names)} Python functions looked for, {len(gaps)} gaps")
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
