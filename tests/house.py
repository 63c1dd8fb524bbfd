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
  house.py SRC --statics        every mutable variable with static storage
                                (file scope, or `static` in a function):
                                FILE:LINE NAME, exit 1 if any (a `const`
                                object is not one; a pointer is const only
                                by its own `* const`)
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


def declared_name(decl):
    """The name a declaration declares and whether the object is const."""
    d = re.sub(r"\{[^{}]*\}", " ", decl)  # struct bodies and initialisers (innermost first)
    while re.search(r"\{[^{}]*\}", d):
        d = re.sub(r"\{[^{}]*\}", " ", d)
    d = d.split("=", 1)[0]
    d = re.sub(r"\[[^\]]*\]", " ", d)  # array bounds
    d = re.sub(r"\)\s*\([^()]*\)\s*$", ")", d.strip())  # a function pointer's parameters
    ids = list(re.finditer(r"[A-Za-z_]\w*", d))
    if not ids:
        return None, True
    name = ids[-1]
    before = d[: name.start()]
    if "*" in before:
        const = re.search(r"\bconst\b", before[before.rindex("*") :]) is not None
    else:
        const = re.search(r"\bconst\b", before) is not None
    return name.group(0), const


def fn_typedefs(root):
    """The names typedef'd to a function type (`typedef int f_fn(int);`) in
    the tree: `f_fn a, b;` declares two functions."""
    names = set()
    for p in sources(root):
        with open(p, encoding="utf-8", errors="replace") as f:
            names.update(re.findall(r"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*\((?!\s*\*)", strip(f.read())))
    return names


def is_variable(decl, fn_types=()):
    """Whether a top-level declaration defines a variable (not a type, a
    prototype or an extern)."""
    d = decl.strip()
    first = re.sub(r"^(static|const|volatile)\s+", "", d)
    word = re.match(r"[A-Za-z_]\w*", first)
    if word and word.group(0) in fn_types and "*" not in first.split("=", 1)[0]:
        return False  # functions declared through a function type (a pointer to one is a variable)
    if not d or re.match(r"(typedef|extern|_Static_assert|static_assert)\b", d):
        return False
    flat = d
    while re.search(r"\{[^{}]*\}", flat):
        flat = re.sub(r"\{[^{}]*\}", " ", flat)
    head = flat.split("=", 1)[0].strip()
    if re.fullmatch(r"(struct|union|enum)\s+\w*\s*", head) or re.fullmatch(r"(struct|union|enum)\s*", head):
        return False  # a type's definition, no declarator
    if "(" in head and not re.match(r"\s*\*", head[head.index("(") + 1 :]):
        return False  # a prototype (its first parenthesis is not a pointer declarator's)
    return True


def statics(path, fn_types):
    """(line, name) of every mutable variable of static storage in the file
    (fn_types: the names typedef'd to a function type, whose declarations
    are prototypes)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        s = strip(f.read())
    found = []
    i, n = 0, len(s)
    start = 0  # where the current top-level declaration begins
    while i < n:
        c = s[i]
        if c == "{":
            before = s[start:i].rstrip()
            j, depth = i, 0
            while j < n:  # the matching brace
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                if depth == 0:
                    break
                j += 1
            if before.endswith(")") and "=" not in before:  # a function's body
                body = s[i : j + 1]
                for m in re.finditer(r"\bstatic\b", body):
                    k, depth = m.end(), 0  # to the ';' outside any braces
                    while k < len(body) and (body[k] != ";" or depth):
                        depth += {"{": 1, "}": -1}.get(body[k], 0)
                        k += 1
                    decl = body[m.end() : k]
                    name, const = declared_name(decl)
                    if name and not const and is_variable(decl, fn_types):
                        found.append((s.count("\n", 0, i + m.start()) + 1, name))
                start = j + 1
            i = j + 1
            continue
        if c == ";":
            decl = s[start:i]
            if is_variable(decl, fn_types):
                name, const = declared_name(decl)
                if name and not const:
                    lead = len(decl) - len(decl.lstrip())
                    found.append((s.count("\n", 0, start + lead) + 1, name))
            start = i + 1
        i += 1
    return found


def file_lines(doc):
    """DOC's file list: {'src/DIR/': its text} (an entry is a line that
    starts with a path, and the indented lines under it)."""
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    at = text.find("## Files")
    a = text.find("```", at)
    b = text.find("```", a + 3)
    if at < 0 or a < 0 or b < 0:
        return {}
    entries, key = {}, None
    for line in text[a + 3 : b].split("\n")[1:]:
        if line[:1] not in ("", " ", "\t"):
            key, _, rest = line.partition(" ")
            entries[key] = rest
        elif key:
            entries[key] += " " + line
    return entries


def unnamed(root, doc):
    """The headers under root that DOC's file list does not name."""
    entries = file_lines(doc)
    missing = []
    for p in sources(root):
        if not p.endswith(".h"):
            continue
        rel = os.path.relpath(p, root)
        d, name = os.path.dirname(rel), os.path.basename(rel)[:-2]
        text = entries.get(f"src/{d}/", "") + " " + entries.get(f"src/{d}/{name}.c", "")
        if not re.search(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", text):
            missing.append(rel)
    return missing


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
    if rest[:1] == ["--named"] and len(rest) == 2:
        missing = unnamed(root, rest[1])
        for m in missing:
            print(m)
        return 1 if missing else 0
    if rest[:1] == ["--statics"]:
        bad = 0
        fn_types = fn_typedefs(root)
        for p in sources(root):
            for line, name in statics(p, fn_types):
                print(f"{os.path.relpath(p, root)}:{line} {name}")
                bad += 1
        return 1 if bad else 0
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
