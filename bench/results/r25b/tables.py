#!/usr/bin/env python3
"""Round 25B: markdown tables from gpu_run.sh ab's bench.txt (two alternating runs a variant).
usage: tables.py bench.txt BASE VARIANT..."""
import re, sys, collections
f, base, vs = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = collections.defaultdict(list)  # (set, dtype, shape, B, variant) -> [us]
tok = {}
cur = None
for ln in open(f):
    m = re.match(r"== bench (\S+), V=\d+, (\S+) \(.*?\)(, (\w+))? \(\d", ln)
    if m:
        cur = (m.group(1), m.group(4) or "f32", m.group(2)); continue
    p = ln.split()
    if cur and len(p) >= 9 and p[0].startswith(("full", "top-p")) and p[2].isdigit():
        k = (cur[0], cur[1], p[1], int(p[2]), int(p[3]), cur[2])
        runs[k].append(float(p[4]))
        if "/" in p[8] and k not in tok: tok[k] = p[8]
keys = sorted({k[:5] for k in runs}, key=lambda k: (k[0], k[1], k[4], k[2], k[3]))
print("| setting | dtype | V | shape | B | " + " | ".join(f"{v} (runs)" for v in [base] + vs) + " | " +
      " | ".join(f"{v} - {base}" for v in vs) + " |")
print("|" + "---|" * (5 + 1 + 2 * len(vs)))
for k in keys:
    def cell(v):
        r = runs.get(k + (v,))
        if not r: return "-", None
        m = sum(r) / len(r)
        return f"{m:.2f} ({' / '.join(f'{x:.2f}' for x in r)})", m
    b, bm = cell(base)
    cs = [cell(v) for v in vs]
    d = [f"{c[1] - bm:+.2f}" if c[1] is not None and bm is not None else "-" for c in cs]
    print(f"| {k[0]} | {k[1]} | {k[4]} | {k[2]} | {k[3]} | {b} | " + " | ".join(c[0] for c in cs) + " | " + " | ".join(d) + " |")
print()
bad = [f"{k[5]} {k[0]}/{k[1]} V={k[4]} {k[2]} B={k[3]}: {t}" for k, t in sorted(tok.items()) if t.split("/")[0] != t.split("/")[1]]
print(f"tokens (first run of each variant against the CPU reference): {len(tok)} cells checked, " +
      ("every one equal (a/a, e.g. " + ", ".join(sorted({t for t in tok.values()}, key=lambda x: int(x.split('/')[1]))) + ")" if not bad else "DIFFER: " + "; ".join(bad)))
