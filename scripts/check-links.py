#!/usr/bin/env python3
"""Checks that every relative link and image in the repository's Markdown files points to a file
or folder that exists (links inside code blocks, web addresses and in-page anchors aside; an
anchor after a path is not checked). Prints each broken link; exits 1 if there is any.

    python3 scripts/check-links.py
"""
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
files = subprocess.run(["git", "ls-files", "*.md"], cwd=root, capture_output=True, text=True,
                       check=True).stdout.split()
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
broken = checked = 0
for name in files:
    with open(os.path.join(root, name), encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks
    text = re.sub(r"`[^`\n]*`", "", text)               # inline code
    for match in link.finditer(text):
        target = match.group(1)
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        checked += 1
        if not os.path.exists(os.path.normpath(os.path.join(root, os.path.dirname(name), path))):
            print(f"{name}: broken link {target}")
            broken += 1
print(f"check-links.py: {checked} relative links in {len(files)} Markdown files, {broken} broken")
sys.exit(1 if broken else 0)
