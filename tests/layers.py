#!/usr/bin/env python3
"""The layer rule of src/, read from the #include lines.

Folders are ranked; a file may include its own folder, a room of it
(plan/graph, payload/synth) and any folder of a lower rank, never one of its rank or above (docs/layout.md says why each
sits where it does). Modules (a .c with its .h) may not include each other
in a circle, inside a folder or across. A module's private header
(NAME_int.h, as SQLite keeps btreeInt.h beside btree.h) is that module's
own inside: probe_int.h may include probe.h, and a file that includes
probe_int.h includes the probe module. Prints one line per offence and
exits 1 when there is any."""
import os, re, sys

RANK = {
    "base": 0, "payload": 1, "payload/synth": 1, "endpoint": 2, "plan": 3, "plan/graph": 3,
    "judge": 4, "live": 5, "fetch": 5, "store": 5, "deploy": 6, "fleet": 7,
    "cmd": 8, ".": 9,
}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module(name):
    """A file's module: live/probe_int (the private header) is live/probe."""
    return name[:-4] if name.endswith("_int") and os.path.basename(name) != "_int" else name

def main(src):
    edges, bad = {}, []
    for dp, _, fs in os.walk(src):
        for f in fs:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dp, f)
            folder = os.path.relpath(dp, src)
            if folder not in RANK:
                bad.append(f"{path}: folder '{folder}' has no rank in tests/layers.py")
                continue
            mod = module(os.path.relpath(path, src)[:-2])
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for inc in INC.findall(text):
                tgt = os.path.normpath(os.path.join(folder, inc))
                tfolder = os.path.dirname(tgt) or "."
                if tfolder not in RANK:
                    bad.append(f"{path}: includes '{inc}' from a folder with no rank")
                    continue
                # a room inside a folder (plan/graph) shares its rank: the
                # two may include each other, the circle check holds them
                room = tfolder.startswith(folder + "/") or folder.startswith(tfolder + "/")
                if tfolder != folder and not room and RANK[tfolder] >= RANK[folder]:
                    bad.append(f"{path}: includes '{inc}' ({tfolder}, rank {RANK[tfolder]}) "
                               f"from {folder} (rank {RANK[folder]}): against the layer order")
                tmod = module(tgt[:-2])
                if tmod != mod:
                    edges.setdefault(mod, set()).add(tmod)
    # circles between modules: depth-first search, one report per circle
    state, stack, seen = {}, [], set()
    def dfs(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                cyc = stack[stack.index(t):] + [t]
                key = frozenset(cyc)
                if key not in seen:
                    seen.add(key)
                    bad.append("a circle of includes: " + " -> ".join(cyc))
            elif t not in state:
                dfs(t)
        stack.pop()
        state[m] = 2
    for m in sorted(edges):
        if m not in state:
            dfs(m)
    for b in bad:
        print(b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "src"))
