#!/usr/bin/env python3
"""Every relative link in README.md and docs/**/*.md must point at a file or folder that exists
(and, for #anchors into Markdown pages, at a heading that exists). Exit 1 listing the broken."""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path):
    """GitHub's anchors for the headings of a Markdown file."""
    result = set()
    with open(path, encoding="utf-8") as f:
        in_code = False
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if in_code or not line.startswith("#"):
                continue
            text = line.lstrip("#").strip().lower()
            text = re.sub(r"[^\w\- ]", "", text)
            result.add(text.replace(" ", "-"))
    return result


def pages():
    yield os.path.join(TOP, "README.md")
    for folder, _, files in os.walk(TOP):
        if "/build" in folder or "/." in folder:
            continue
        for name in files:
            if name.endswith(".md") and os.path.join(folder, name) != os.path.join(TOP, "README.md"):
                yield os.path.join(folder, name)


def main():
    broken = []
    count = 0
    for page in pages():
        with open(page, encoding="utf-8") as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
        for match in LINK.finditer(text):
            target = match.group(1) or match.group(2)
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            count += 1
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(full):
                broken.append("%s: %s (no such file)" % (os.path.relpath(page, TOP), target))
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                broken.append("%s: %s (no such heading)" % (os.path.relpath(page, TOP), target))
    for line in broken:
        print("broken link in " + line)
    print("%d relative links checked, %d broken" % (count, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
