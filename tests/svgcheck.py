#!/usr/bin/env python3
"""Hold a zealot budget picture to what it must show.

  svgcheck.py xml SVG PLAN_JSON    the SVG parses; every term of the plan is a
                                   segment with its MiB and a label naming it;
                                   nothing is fetched or run (no script, no
                                   external reference)
  svgcheck.py bars SVG N           the rungs picture: N bars, every segment
                                   titled with its term and MiB
  svgcheck.py pixels SVG PNG       in Chromium's rendering, the centre of every
                                   segment taller than 6 px has the segment's
                                   colour, and the addressable line is drawn

Standard library only (xml.etree, zlib). Prints one line per failure and
exits 1 on any.
"""
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
fails = []


def fail(msg):
    fails.append(msg)


def load(path):
    return ET.parse(path).getroot()


def mib(v):
    """12345.678 -> '12,345.68', as the picture writes it"""
    return f"{v:,.2f}"


def check_standalone(root, text):
    for el in root.iter():
        tag = el.tag.replace(NS, "")
        if tag in ("script", "foreignObject", "image", "use", "a", "style"):
            fail(f"element <{tag}> in a picture that must stand alone")
        for k, v in el.attrib.items():
            if k.endswith("href") or k.startswith("on"):
                fail(f"attribute {k} on <{tag}>")
            if "url(" in v:
                fail(f"url() in {k} on <{tag}>")
    for m in re.finditer(r"https?://[^\"' ]+", text):
        if m.group(0) != "http://www.w3.org/2000/svg":
            fail(f"network reference {m.group(0)}")
    if "@font-face" in text or "@import" in text:
        fail("a font or stylesheet is fetched")


def cmd_xml(svg, plan_json):
    text = open(svg, encoding="utf-8").read()
    root = load(svg)
    check_standalone(root, text)
    plan = json.load(open(plan_json))
    terms = plan["terms"] if "terms" in plan else plan["plan"]["terms"]
    rects = {r.get("data-term"): r for r in root.iter(NS + "rect") if r.get("data-term")}
    texts = ["".join(t.itertext()) for t in root.iter(NS + "text")]
    alltext = "\n".join(texts)
    for name, v in terms.items():
        if v > 0:
            r = rects.get(name)
            if r is None:
                fail(f"term {name} ({v} MiB) has no segment")
                continue
            if abs(float(r.get("data-mib")) - v) > 0.005:
                fail(f"term {name}: segment says {r.get('data-mib')} MiB, the plan {v}")
            want = f"{name} {mib(v)} MiB"
            if want not in alltext:
                fail(f"no label '{want}'")
        elif name not in alltext:
            fail(f"term {name} (0 MiB on this budget) is not named")
    # the segments stack without gap or overlap, each as tall as its MiB
    segs = sorted(rects.values(), key=lambda r: -float(r.get("y")))
    per = [float(r.get("height")) / float(r.get("data-mib")) for r in segs if float(r.get("data-mib")) > 0]
    if per and max(per) - min(per) > 1e-6 * max(per) + 1e-3:
        fail(f"segment heights are not proportional to their MiB: {min(per)}..{max(per)} px/MiB")
    for lower, upper in zip(segs, segs[1:]):
        if abs(float(upper.get("y")) + float(upper.get("height")) - float(lower.get("y"))) > 0.01:
            fail(f"{upper.get('data-term')} does not sit on {lower.get('data-term')}")
    for word in ("addressable", "slack band"):
        if word not in alltext:
            fail(f"no '{word}' label")
    verdict = [t for t in root.iter(NS + "text") if t.get("data-verdict")]
    if not verdict or verdict[0].get("data-verdict") != plan["verdict"]:
        fail(f"verdict missing or not {plan['verdict']}")
    if not any(l.get("data-line") == "addressable" for l in root.iter(NS + "line")):
        fail("no addressable line")


def cmd_bars(svg, n):
    text = open(svg, encoding="utf-8").read()
    root = load(svg)
    check_standalone(root, text)
    bars = {}
    for r in root.iter(NS + "rect"):
        if not r.get("data-term"):
            continue
        bars.setdefault(r.get("data-bar"), []).append(r)
        t = r.find(NS + "title")
        want = f"{r.get('data-term')} {mib(float(r.get('data-mib')))} MiB"
        if t is None or t.text != want:
            fail(f"segment {r.get('data-term')} of {r.get('data-bar')}: title is not '{want}'")
    if len(bars) != int(n):
        fail(f"{len(bars)} bars, expected {n}")


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit(f"{path}: PNG kind {depth}/{ctype}/{interlace} not read here")
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def cmd_pixels(svg, png):
    root = load(svg)
    w, h, bpp, rows = read_png(png)

    def px(x, y):
        x, y = int(round(x)), int(round(y))
        if not (0 <= x < w and 0 <= y < h):
            return None
        r = rows[y]
        return tuple(r[x * bpp : x * bpp + 3])

    def rgb(hexc):
        return tuple(int(hexc[i : i + 2], 16) for i in (1, 3, 5))

    checked = 0
    for r in root.iter(NS + "rect"):
        if not r.get("data-term"):
            continue
        x, y = float(r.get("x")), float(r.get("y"))
        rw, rh = float(r.get("width")), float(r.get("height"))
        if rh < 6 or rw < 6:
            continue
        got, want = px(x + rw / 2, y + rh / 2), rgb(r.get("fill"))
        if got is None or max(abs(a - b) for a, b in zip(got, want)) > 3:
            fail(f"{r.get('data-bar')} {r.get('data-term')} at ({x + rw / 2:.0f},{y + rh / 2:.0f}): "
                 f"pixel {got}, fill {want}")
        checked += 1
    if checked == 0:
        fail("no segment large enough to check")
    line = next((l for l in root.iter(NS + "line") if l.get("data-line") == "addressable"), None)
    if line is not None:
        x = (float(line.get("x1")) + float(line.get("x2"))) / 2
        y = float(line.get("y1"))
        want = rgb(line.get("stroke"))
        near = [px(x, y + d) for d in (-1, 0, 1)]
        if not any(p and max(abs(a - b) for a, b in zip(p, want)) <= 40 for p in near):
            fail(f"the addressable line is not drawn at ({x:.0f},{y:.0f}): {near}")
    print(f"checked {checked} segments")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    {"xml": cmd_xml, "bars": cmd_bars, "pixels": cmd_pixels}[sys.argv[1]](*sys.argv[2:4])
    for f in fails:
        print(f)
    sys.exit(1 if fails else 0)
