#!/usr/bin/env python3
"""Write src/endpoint/flags_table.c: every flag of the pinned engine, read
from its own `llama-server --help` (common_arg::to_string: the spellings,
comma-separated, then the value hints, padded to column 40; the help text
ends with "(env: LLAMA_ARG_X)"), each with its class from the hand-kept
src/endpoint/flags.tsv (NAME, CLASS, KEY or LAW, WHY; NAME is the flag's
first long spelling).

A flag of the engine with no row in flags.tsv, a row with no flag in the
engine, or a class other than harmless/priced/key/refused is an error (exit
1, each named): the table never holds an unclassified flag.
tests/live/trust.sh regenerates it from the built engine and fails
when the committed file differs.

  scripts/gen-engine-flags.py [LLAMA_SERVER] > src/endpoint/flags_table.c
"""
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
cache = os.environ.get("ZEALOT_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "zealot")
engine = os.path.join(cache, "engine-node-llama-cpp-3.21.1")
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(engine, "build", "bin", "llama-server")
tsv = os.path.join(root, "src", "endpoint", "flags.tsv")


def die(msg, code=3):
    sys.stderr.write("gen-engine-flags: %s\n" % msg)
    sys.exit(code)


if not os.access(binary, os.X_OK):
    die("no %s" % binary)
# no config file of the engine's may reach its help: a clean environment
env = {"PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": "/dev/null", "HOME": "/dev/null"}
help_text = subprocess.run([binary, "--help"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           timeout=60).stdout.decode("utf-8", "replace")
try:
    src = os.path.join(engine, "src")
    rev = subprocess.run(["git", "-C", src, "log", "-1", "--format=%h %cs"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout.decode().strip() or "unknown"
except OSError:
    rev = "unknown"

# blocks: a line that starts with '-' opens one; indented lines continue it
blocks = []
for line in help_text.splitlines():
    if line.startswith("-") and not line.startswith("-----"):
        blocks.append([line])
    elif blocks and line.startswith(" " * 40):
        blocks[-1].append(line.strip())
    elif line.strip() == "" or line.startswith("-----"):
        if blocks and blocks[-1] is not None:
            blocks.append(None)
blocks = [b for b in blocks if b]

flags = []
for b in blocks:
    first = b[0]
    # the spec fills the line when longer than 37 columns, else is padded to 40
    if len(first) > 40 and first[37:40] == "   ":
        spec, text = first[:37].rstrip(), first[40:].strip()
    else:
        spec, text = first.rstrip(), ""
    helptext = " ".join([text] + b[1:]).strip()
    # the spellings are comma-separated, the hints follow the last one
    # (a hint may hold a comma: "{a,b}" is read whole by what follows)
    head = re.match(r"^((?:-[^\s,]+,\s*)*-[^\s,]+)\s*(.*)$", spec)
    if not head:
        die("cannot read the spellings of: %r" % first)
    spellings = [p.strip() for p in head.group(1).split(",")]
    # the hints: value_hint and value_hint_2, a blank apart; a blank inside
    # <...> belongs to its hint ("<tensor name pattern>=<buffer type>")
    hints, depth, cur = [], 0, ""
    for ch in head.group(2):
        depth += ch == "<"
        depth -= ch == ">"
        if ch == " " and depth == 0:
            if cur:
                hints.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        hints.append(cur)
    if not spellings or not all(s.startswith("-") for s in spellings):
        die("cannot read the spellings of: %r" % first)
    m = re.search(r"\(env: ([A-Z][A-Z0-9_]+)\)", helptext)
    longs = [s for s in spellings if s.startswith("--")]
    name = longs[0] if longs else spellings[0]
    flags.append({"name": name, "spellings": spellings, "env": m.group(1) if m else None,
                  "values": min(len(hints), 2)})
if len(flags) < 100:
    die("%s --help lists %d flags: no llama-server help" % (binary, len(flags)))

classes = {}
errors = []
with open(tsv, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        while len(cols) < 4:
            cols.append("")
        name, cls, arg, why = cols[:4]
        if cls not in ("harmless", "priced", "key", "refused"):
            errors.append("flags.tsv:%d: %s: class '%s' is none of harmless, priced, key, refused" % (n, name, cls))
        if cls in ("key", "refused", "priced") and not arg:
            errors.append("flags.tsv:%d: %s: a %s flag names its %s" % (n, name, cls, "key" if cls == "key" else "law"))
        if cls in ("refused", "priced") and not why:
            errors.append("flags.tsv:%d: %s: a %s flag says why" % (n, name, cls))
        if name in classes:
            errors.append("flags.tsv:%d: %s twice" % (n, name))
        classes[name] = (cls, arg, why)

names = {f["name"] for f in flags}
for f in flags:
    if f["name"] not in classes:
        errors.append("%s: a flag of the engine with no class in flags.tsv (unclassified)" % f["name"])
for name in classes:
    if name not in names:
        errors.append("%s: in flags.tsv, but the engine has no such flag" % name)
if errors:
    for e in errors:
        sys.stderr.write("gen-engine-flags: %s\n" % e)
    sys.exit(1)


def c(s):
    if s is None or s == "":
        return "NULL"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


enum = {"harmless": "FLAG_HARMLESS", "priced": "FLAG_PRICED", "key": "FLAG_KEY", "refused": "FLAG_REFUSED"}
out = sys.stdout
out.write("/* Generated by scripts/gen-engine-flags.py from the pinned engine's --help and\n"
          " * src/endpoint/flags.tsv; do not edit (tests/live/trust.sh holds it\n"
          " * equal to the built engine). */\n")
out.write('#include "flags.h"\n\n#include "../base/util.h"\n\n')
out.write("/* clang-format off */\n")
out.write("const char engine_flags_source[] = \"llama-server --help of llama.cpp %s (node-llama-cpp 3.21.1)\";\n\n"
          % rev)
out.write("const struct engine_flag engine_flags[] = {\n")
# grouped by class, then by whether the flag has a variable, each group in
# the help's order, so the table reads as the lists it holds
order = {"key": 0, "priced": 1, "refused": 2, "harmless": 3}
for f in sorted(flags, key=lambda f: (order[classes[f["name"]][0]], f["env"] is None)):
    cls, arg, why = classes[f["name"]]
    out.write("    {%s, %s, %s, %d, %s, %s, %s},\n" % (c(f["name"]), c(" ".join(f["spellings"])), c(f["env"]),
                                                   f["values"], enum[cls], c(arg), c(why)))
out.write("};\n/* clang-format on */\n\nconst size_t engine_flags_n = ARRAY_SIZE(engine_flags);\n")
