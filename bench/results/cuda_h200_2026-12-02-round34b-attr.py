#!/usr/bin/env python3
"""Round 34B: K2or's (ms_cu_k2<1,0,1,0>) executed warp instructions and stall samples by code region, from ncu's
`--page source --print-source cuda,sass --csv` exports (src_{D,N}{flat,peaked}.csv.gz), with round 33B's regions
(cuda_h200_2026-12-02-round33b-attr.py: 782f18d's line numbers). Each binary's ms_cuda.cu lines are mapped to 782f18d's by
difflib; a line that 782f18d lacks (round 33B's TAIL2, this round's MS_CU_OR_SB code) takes the 782f18d line of the
nearest mapped line before it. As round 33B's script, a SASS instruction whose line lies in a header or in a helper
outside every region takes the region of the last instruction before it (address order) whose line defines one.
Usage: attr.py DIR SRC782 DSRC NSRC"""
import csv, gzip, sys, collections, difflib
D, SRC, DSRC, NSRC = sys.argv[1:5]
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
        out[a] = (fname, line, r[3].strip(), d) # the last line an address is listed under, as round 33B's script
    if not out: return {}
    b = min(out)
    return {a - b: v for a, v in out.items()}
R = [ # 782f18d's lines (round 33B's)
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
src = open(SRC).read().split('\n')
def mapping(fn):
    nsrc = open(fn).read().split('\n'); mp = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, src, nsrc, autojunk=False).get_opcodes():
        if tag == 'equal':
            for k in range(j2 - j1): mp[j1 + k + 1] = i1 + k + 1
    last = 0
    for l in range(1, len(nsrc) + 1):
        if l in mp: last = mp[l]
        else: mp[l] = last
    return mp
def agg(P, mp):
    out = collections.defaultdict(lambda: [0.0, 0.0]); lastr = 'I set-up, chunk max, overflow, end'
    for a in sorted(P):
        f, l, s, d = P[a]
        r = region(mp.get(l, 0)) if f == 'ms_cuda.cu' else None
        if r: lastr = r
        out[lastr][0] += d.get('Instructions Executed', 0.0)
        out[lastr][1] += d.get('Warp Stall Sampling (All Samples)', 0.0)
    return out
mD, mN = mapping(DSRC), mapping(NSRC)
cols = []
for tag, mp in (('D', mD), ('N', mN)):
    for sh in ('flat', 'peaked'):
        import os
        if not os.path.exists(f'{D}/src_{tag}{sh}.csv.gz'): continue
        P = load(f'{D}/src_{tag}{sh}.csv.gz')
        if P: cols.append((f'{tag} {sh}', agg(P, mp)))
names = [n for n, _ in R]
C = dict(cols)
print('M warp instructions by region')
print('| region | ' + ' | '.join(c for c, _ in cols) + ' | N - D flat | N - D peaked |')
print('|---' * (len(cols) + 3) + '|')
tot = collections.defaultdict(float)
for n in names:
    v = {c: C[c][n][0] / 1e6 for c in C}
    for c in v: tot[c] += v[c]
    s = f'| {n} | ' + ' | '.join(f'{v[c]:.2f}' for c, _ in cols)
    s += f" | {v.get('N flat', 0) - v.get('D flat', 0):+.2f} | {v.get('N peaked', 0) - v.get('D peaked', 0):+.2f} |"
    print(s)
print('| total | ' + ' | '.join(f'{tot[c]:.2f}' for c, _ in cols) +
      f" | {tot.get('N flat', 0) - tot.get('D flat', 0):+.2f} | {tot.get('N peaked', 0) - tot.get('D peaked', 0):+.2f} |")
print()
print("stall samples by region (share of the kernel's)")
for c, o in cols:
    t = sum(o[n][1] for n in names) or 1.0
    print(f'{c}: ' + ', '.join(f'{n.split()[0]} {100 * o[n][1] / t:.1f} %' for n in names) + f' (total {int(t)})')
