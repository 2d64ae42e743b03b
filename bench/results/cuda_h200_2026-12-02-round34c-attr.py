#!/usr/bin/env python3
"""Round 34C: K2or's (ms_cu_k2<1,0,1,0>) executed warp instructions and stall samples by code region, from ncu's
`--page source --print-source cuda,sass --csv` exports (src_<tag>peaked.csv.gz), with round 33B's regions
(cuda_h200_2026-12-02-round33b-attr.py, on 782f18d's lines). Each binary's source lines are mapped to 782f18d's by
difflib (equal lines); a SASS instruction whose line is unmapped (new code), in a header or in a helper outside every
region takes the region of the last instruction before it (address order) whose line defines one, as round 33B's.
Also: the main loop's (region A + B + C + D) instructions per warp-step, and the loop's hottest stall lines.
Usage: attr.py DIR SRC782 TAG=SRC [TAG=SRC ...]   (e.g. D=/tmp/cmain.cu N2=/work/wt-c/src/cuda/ms_cuda.cu)"""
import csv, gzip, sys, collections, difflib
D, SRC = sys.argv[1], sys.argv[2]
R = [ # 782f18d's lines (round 33B's table)
 ('A loads, penalty, group max, cheap (LEAN) test', [(2846, 2928), (983, 1070), (1096, 1140), (2711, 2722), (1632, 1650)]),
 ('B bookkeeping (warp max, bound, cuts)', [(2929, 3002), (3044, 3046), (2551, 2558)]),
 ("C top-k' scan (ms_cu_or_tkcut)", [(3003, 3043), (2590, 2639)]),
 ('D staging (mask, warp loop, stage, bin count)', [(3047, 3127), (3310, 3318), (2583, 2587)]),
 ('E scan tail', [(3128, 3141)]),
 ('F1 DCUT2 filter (round 32C)', [(3413, 3440)]),
 ('F drain (division, exp, C test)', [(1991, 2016), (3441, 3442)]),
 ('G list (TAIL, bin cut, compaction)', [(2116, 2214), (3464, 3496)]),
 ('I set-up, chunk max, overflow, end', [(3216, 3309), (3319, 3412), (3443, 3463), (3519, 3551), (3700, 3900)]),
]
def region(l):
    for n, rr in R:
        for a, b in rr:
            if a <= l <= b: return n
    return None
def load(fn):
    fname = None; hdr = None; out = {}; line = -1
    for r in csv.reader(gzip.open(fn, 'rt', errors='replace')):
        if len(r) == 2 and r[0] == 'File Path': fname = r[1].split('/')[-1]; continue
        if r and r[0] == 'Line No': hdr = r; continue
        if not hdr or len(r) < 10: continue
        if r[0].strip(): line = int(r[0]); continue
        if not r[2].startswith('0x'): continue
        d = {}
        for i, h in enumerate(hdr[4:], 4):
            try: d[h] = float(r[i]) if r[i] not in ('', '-') else 0.0
            except ValueError: d[h] = 0.0
        a = int(r[2], 16)
        if a not in out or fname == 'ms_cuda.cu': out[a] = (fname, line, r[3].strip(), d)
    if not out: return {}
    b = min(out)
    return {a - b: v for a, v in out.items()}
src = open(SRC).read().split('\n')
def lmap(fn):
    other = open(fn).read().split('\n'); mp = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, src, other, autojunk=False).get_opcodes():
        if tag == 'equal':
            for k in range(j2 - j1): mp[j1 + k + 1] = i1 + k + 1
    return mp
def agg(P, mp):
    out = collections.defaultdict(lambda: [0.0, 0.0]); lastr = 'I set-up, chunk max, overflow, end'
    for a in sorted(P):
        f, l, s, d = P[a]
        r = region(mp[l]) if f == 'ms_cuda.cu' and l in mp else None
        if r: lastr = r
        out[lastr][0] += d.get('Instructions Executed', 0.0)
        out[lastr][1] += d.get('Warp Stall Sampling (All Samples)', 0.0)
    return out
cols = []
for ts in sys.argv[3:]:
    tag, fn = ts.split('=', 1)
    P = load(f'{D}/src_{tag}peaked.csv.gz')
    if P: cols.append((tag, agg(P, lmap(fn)), P))
names = [n for n, _ in R]
print('| region (peaked B=64, M warp instructions) | ' + ' | '.join(c for c, _, _ in cols) + ' |' + ''.join(f' {c} - {cols[0][0]} |' for c, _, _ in cols[1:]))
print('|---' * (1 + len(cols) + len(cols) - 1) + '|')
tot = [0.0] * len(cols)
for n in names:
    v = [c[n][0] / 1e6 for _, c, _ in cols]
    for i, x in enumerate(v): tot[i] += x
    print(f'| {n} | ' + ' | '.join(f'{x:.2f}' for x in v) + ' |' + ''.join(f' {x - v[0]:+.2f} |' for x in v[1:]))
print('| total | ' + ' | '.join(f'{x:.2f}' for x in tot) + ' |' + ''.join(f' {x - tot[0]:+.2f} |' for x in tot[1:]))
print()
for tag, c, P in cols:
    S = sum(v[1] for v in c.values())
    print(f'{tag}: stall samples {S:.0f}: ' + ', '.join(f'{n.split()[0]} {c[n][1] / S * 100:.1f}%' for n in names if S))
    # loop steps: the executed count of the loop's back-edge is not labelled; use the most executed count in region A
    cnt = collections.Counter(int(d.get('Instructions Executed', 0)) for a, (f, l, s, d) in P.items())
    print(f'  most frequent per-instruction counts: {cnt.most_common(6)}')
