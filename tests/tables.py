#!/usr/bin/env python3
"""Every key table of src/ holds each name once.

A key table is an array of structs initialised with one row per name, the
name a string literal among the row's first two fields ({"name", ...},
{ID, "name", ...}, [K_X] = {"NAME", ...} or MACRO('c', "name", ...)): the
--set keys of synth and its families, the endpoint's keys, the command
options' long names, the laws, the types and file types, the device
profiles ... A name on two rows is a key the lookup finds once and the
second row never (synth's temp_scale was two rows: `--set temp_scale` set
deepseek2's field for mistral3).

  tables.py SRC [--list]   exit 1 naming each name found twice in one table;
                           --list prints every table checked and its rows

A table whose rows may repeat a name on purpose is named in ALLOW with the
reason."""
import os
import re
import sys

# "FILE:TABLE": why its names may repeat
ALLOW = {
}

HEAD = re.compile(r"^[ \t]*(?:static\s+)?const\s+struct\s+(?:\w+\s*)?(?:\{[^}]*\}\s*)?(\w+)\s*\[\s*\w*\s*\]\s*=\s*\{", re.M)
STR = re.compile(r'"((?:[^"\\]|\\.)*)"')


def split_top(text):
    """text cut at the commas outside braces, parentheses and literals."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i : j + 1])
            i = j + 1
            continue
        if c in "{(":
            depth += 1
        elif c in "})":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]


def row_name(row):
    """A row's name: its first field's string, or its second's after an id
    (a number, a name or a character), or None."""
    row = re.sub(r"^\s*\[\w+\]\s*=\s*", "", row.strip())
    m = re.match(r"^(?:\{|[A-Z_][A-Z0-9_]*\()(.*)[})]$", row, re.S)
    if not m:
        return None
    fields = [f.strip() for f in split_top(m.group(1))[:2]]
    if fields and STR.match(fields[0]):
        return STR.match(fields[0]).group(1)
    if len(fields) == 2 and re.match(r"^(?:-?\w+|'.*')$", fields[0]) and STR.match(fields[1]):
        return STR.match(fields[1]).group(1)
    return None


def body(text, start):
    """The initialiser from its opening brace to the matching one."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
        i += 1
    return text[start:]


def tables(root):
    for d, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.join(d, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
            for m in HEAD.finditer(text):
                b = body(text, m.end() - 1)
                names = [n for n in (row_name(r) for r in split_top(b[1:-1])) if n is not None]
                if len(names) >= 2:
                    yield os.path.relpath(path, root), m.group(1), names


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for path, name, names in tables(argv[1]):
        if "--list" in argv:
            print(f"{path}:{name} {len(names)}")
        seen = set()
        for n in names:
            if n in seen and f"{path}:{name}" not in ALLOW:
                print(f"{path}: table {name}: '{n}' is on two rows")
                bad = 1
            seen.add(n)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
