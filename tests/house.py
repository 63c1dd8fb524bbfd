#!/usr/bin/env python3
"""The house's measures of src/: the command layer's share of the lines and
every function's length, from the text (a brace-depth scanner that skips
comments, strings and character constants).

  house.py SRC                  one line a function: LINES FILE:LINE NAME
  house.py SRC --share          cmd/'s lines, src/'s lines and the percent
  house.py SRC --over N [--exempt FILE:NAME]...
                                the functions over N lines, exit 1 if any is
                                not exempt (an exemption is named by its file
                                under SRC and its name)
"""
import os
import re
import sys


def strip(text):
    """The text with comments, strings and char constants blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1 : j - 1]) + c if j - i >= 2 else text[i:j])
            i = j
        elif c == "#" and (i == 0 or text[i - 1] == "\n"):
            # a preprocessor line (with its continuations) is not code
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, last line) of every function defined in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        s = strip(f.read())
    found = []
    depth = 0
    head = 0  # where the text before the current top-level brace begins
    start = None
    for i, c in enumerate(s):
        if c == "{":
            if depth == 0:
                before = s[head:i].rstrip()
                m = re.search(r"([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(__attribute__\s*\(\(.*\)\)\s*)?$", before, re.S)
                if before.endswith(")") and m and "=" not in before[: m.start()].split("\n")[-1]:
                    name = m.group(1)
                    if name not in ("if", "while", "for", "switch", "return", "sizeof"):
                        line = s.count("\n", 0, head + len(before) - len(before.lstrip())) + 1
                        start = (name, line)
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if start:
                    found.append((start[0], start[1], s.count("\n", 0, i) + 1))
                start = None
                head = i + 1
        elif c == ";" and depth == 0:
            head = i + 1
    return found


def sources(root):
    for d, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.join(d, f)


def lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1].rstrip("/")
    rest = argv[2:]
    if rest[:1] == ["--share"]:
        total = sum(lines(p) for p in sources(root))
        cmd = sum(lines(p) for p in sources(os.path.join(root, "cmd")))
        print(f"cmd {cmd} src {total} share {100.0 * cmd / total:.1f}%")
        return 0
    over, exempt = None, set()
    while rest:
        if rest[0] == "--over" and len(rest) > 1:
            over = int(rest[1])
        elif rest[0] == "--exempt" and len(rest) > 1:
            exempt.add(rest[1])
        else:
            print(__doc__, file=sys.stderr)
            return 2
        rest = rest[2:]
    bad = 0
    for p in sources(root):
        rel = os.path.relpath(p, root)
        for name, a, b in functions(p):
            n = b - a + 1
            if over is None:
                print(f"{n} {rel}:{a} {name}")
            elif n > over:
                tag = f"{rel}:{name}"
                print(f"{n} {rel}:{a} {name}{' (exempt)' if tag in exempt else ''}")
                bad += tag not in exempt
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
