#!/usr/bin/env python3
"""Round 33B: K2or's (ms_cu_k2<1,0,1,0>) executed warp instructions and stall samples by code region, from ncu's
`--page source --print-source cuda,sass --csv` exports (call 1: src_Dflat, src_Dpeaked, src_Nflat .csv.gz). D's line
numbers are those of 782f18d's src/cuda/ms_cuda.cu (the tree D was built from: of the 458 source lines K2or's line table
names, 3 fall on blank / comment / preprocessor lines of 782f18d's file and 155 of 8cd0198's); N's (r33b) are mapped to
782f18d's by difflib, its own new lines counting as the list. As round 31B's script: a SASS instruction whose line lies
in a header or in a helper outside every region takes the region of the last instruction before it (address order)
whose line defines one. Usage: attr.py DIR SRC782 [NSRC]"""
import csv, gzip, sys, collections, difflib
D, SRC = sys.argv[1], sys.argv[2]
NSRC = sys.argv[3] if len(sys.argv) > 3 else None
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
        out[int(r[2], 16)] = (fname, line, r[3].strip(), d)
    if not out: return {}
    b = min(out)
    return {a - b: v for a, v in out.items()}
R = [ # 782f18d's lines
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
def agg(P, mp=None, newr='G list (TAIL, bin cut, compaction)'):
    out = collections.defaultdict(lambda: [0.0, 0.0]); lastr = 'I set-up, chunk max, overflow, end'
    for a in sorted(P):
        f, l, s, d = P[a]
        r = None
        if f == 'ms_cuda.cu':
            if mp is None: r = region(l)
            else: r = region(mp[l]) if l in mp else newr
        if r: lastr = r
        out[lastr][0] += d.get('Instructions Executed', 0.0)
        out[lastr][1] += d.get('Warp Stall Sampling (All Samples)', 0.0)
    return out
F = load(f'{D}/src_Dflat.csv.gz'); P = load(f'{D}/src_Dpeaked.csv.gz')
cols = [('D flat', agg(F)), ('D peaked', agg(P))]
if NSRC:
    import os
    src = open(SRC).read().split('\n'); nsrc = open(NSRC).read().split('\n'); mp = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, src, nsrc, autojunk=False).get_opcodes():
        if tag == 'equal':
            for k in range(j2 - j1): mp[j1 + k + 1] = i1 + k + 1
    N = load(f'{D}/src_Nflat.csv.gz')
    if N: cols.append(('N flat', agg(N, mp)))
names = [n for n, _ in R]
print('| region | ' + ' | '.join(c for c, _ in cols) + ' | flat - peaked (D) |' + (' N - D flat |' if len(cols) > 2 else ''))
print('|---' * (len(cols) + 2 + (1 if len(cols) > 2 else 0)) + '|')
tot = [0.0] * len(cols)
for n in names:
    v = [c[n][0] / 1e6 for _, c in cols]
    for i, x in enumerate(v): tot[i] += x
    s = f'| {n} | ' + ' | '.join(f'{x:.2f}' for x in v) + f' | {v[0] - v[1]:+.2f} |'
    if len(cols) > 2: s += f' {v[2] - v[0]:+.2f} |'
    print(s)
s = '| total (M warp instructions) | ' + ' | '.join(f'{x:.2f}' for x in tot) + f' | {tot[0] - tot[1]:+.2f} |'
if len(cols) > 2: s += f' {tot[2] - tot[0]:+.2f} |'
print(s)
print()
print('stall samples by region (share of the kernel\'s):')
for c, a in cols:
    t = sum(x[1] for x in a.values()) or 1
    print(c + ': ' + ', '.join(f'{n.split(" ")[0]} {100 * a[n][1] / t:.1f}%' for n in names))
