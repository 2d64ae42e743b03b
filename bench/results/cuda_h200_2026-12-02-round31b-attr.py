#!/usr/bin/env python3
"""Round 31B: K2or's executed warp instructions and stall samples by code region, flat vs peaked (B=64, full setting,
fp32, V=151936), from ncu's `--page source --print-source cuda,sass --csv` exports of call 1 (r31b-call1/src_*.csv.gz).
Line numbers are those of D's binary (-lineinfo, built from f0b09f1: `git show f0b09f1:src/cuda/ms_cuda.cu`; main
55ca3aa's file has other line numbers, same kernels). A SASS instruction whose line lies in a header (intrinsics, cmath,
ms_math.h) or in a small helper (ms_cu_key, ms_cu_obin, ms_cu_from_y...) takes the region of the last instruction before
it (in address order) whose line defines one. Usage: attr.py DIR F0B_SOURCE [lines|regions|counts]
       attr.py DIR F0B_SOURCE nregions N_CSV N_SOURCE: D's flat regions beside N's (call 2's src_flat_N.csv.gz, N's source:
       its lines mapped to f0b09f1's by difflib; N's own new lines, round 31B's filter, count as the drain)"""
import csv, gzip, sys, collections
D, SRC = sys.argv[1], sys.argv[2]
what = sys.argv[3] if len(sys.argv) > 3 else 'regions'
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
    b = min(out)
    return {a - b: v for a, v in out.items()}
F, P = load(f'{D}/src_flat.csv.gz'), load(f'{D}/src_peaked.csv.gz')
src = open(SRC).read().split('\n')
def region(l): # f0b09f1's lines
    if 2415 <= l <= 2491 or 2285 <= l <= 2300 or 1442 <= l <= 1450: return 'A loads, penalty, group max, cheap test'
    if 2205 <= l <= 2260 or 2561 <= l <= 2586: return "C top-k' scan (ms_cu_or_tkcut)"
    if 2493 <= l <= 2560 or 2587 <= l <= 2589 or 2166 <= l <= 2175: return 'B bookkeeping (max, bound, cuts)'
    if 2591 <= l <= 2653 or 2820 <= l <= 2830: return 'D staging (mask, warp loop, stage, bin count)'
    if 2655 <= l <= 2668: return 'E scan tail'
    if 1751 <= l <= 1777: return 'F drain (division, exp, min-p test, C)'
    if 1872 <= l <= 1972: return 'G list (bin cut / select, cand)'
    if 2319 <= l <= 2414: return 'H scan set-up'
    if 2742 <= l <= 3008 or 3150 <= l <= 3400: return 'I K2or set-up, chunk max, end'
    return None
addrs = sorted(F); reg = {}; lastr = 'I K2or set-up, chunk max, end'; ctx = {}; lastl = 0
for a in addrs:
    f, l, s, d = F[a]
    r = region(l) if f == 'ms_cuda.cu' else None
    if r: lastr = r
    if f == 'ms_cuda.cu': lastl = l
    reg[a] = r or lastr; ctx[a] = lastl
NTOK = 64 * 151936
IE, WS, LS = 'Instructions Executed', 'Warp Stall Sampling (All Samples)', 'stall_long_sb'
if what == 'nregions':
    import difflib
    N = load(sys.argv[4]); nsrc = open(sys.argv[5]).read().split('\n'); mp = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, src, nsrc, autojunk=False).get_opcodes():
        if tag == 'equal':
            for k in range(j2 - j1): mp[j1 + k + 1] = i1 + k + 1
    lastr = 'I K2or set-up, chunk max, end'; nagg = collections.defaultdict(float); dagg = collections.defaultdict(float)
    for a in sorted(N):
        f, l, s_, d = N[a]
        r = None
        if f == 'ms_cuda.cu':
            r = region(mp[l]) if l in mp else 'F drain (division, exp, min-p test, C)'
        if r: lastr = r
        nagg[r or lastr] += d[IE]
    for a in addrs: dagg[reg[a]] += F[a][3][IE]
    print('| region | D flat M inst (call 1) | N flat M inst (call 2) | N - D |')
    print('| --- | --- | --- | --- |')
    for k in sorted(set(dagg) | set(nagg)):
        print(f'| {k} | {dagg[k]/1e6:.3f} | {nagg[k]/1e6:.3f} | {(nagg[k]-dagg[k])/1e6:+.3f} |')
    print(f'| total | {sum(dagg.values())/1e6:.3f} | {sum(nagg.values())/1e6:.3f} | {(sum(nagg.values())-sum(dagg.values()))/1e6:+.3f} |')
elif what == 'regions':
    agg = collections.defaultdict(lambda: [0.0] * 4)
    for a in addrs:
        v = agg[reg[a]]
        v[0] += F[a][3][IE]; v[1] += P[a][3][IE]; v[2] += F[a][3][WS]; v[3] += P[a][3][WS]
    T = [sum(v[i] for v in agg.values()) for i in range(4)]
    print('| region | flat M inst | peaked M inst | flat - peaked | flat inst/token | peaked inst/token | flat stall samples % | peaked % |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- |')
    for k in sorted(agg):
        v = agg[k]
        print(f'| {k} | {v[0]/1e6:.3f} | {v[1]/1e6:.3f} | {(v[0]-v[1])/1e6:+.3f} | {v[0]/NTOK:.3f} | {v[1]/NTOK:.3f} | {100*v[2]/T[2]:.1f} | {100*v[3]/T[3]:.1f} |')
    print(f'| total | {T[0]/1e6:.3f} | {T[1]/1e6:.3f} | {(T[0]-T[1])/1e6:+.3f} | {T[0]/NTOK:.3f} | {T[1]/NTOK:.3f} | {T[2]:.0f} samples | {T[3]:.0f} |')
elif what == 'lines':
    agg = collections.defaultdict(lambda: [0.0] * 4)
    for a in addrs:
        v = agg[ctx[a]]
        v[0] += F[a][3][IE]; v[1] += P[a][3][IE]; v[2] += F[a][3][WS]; v[3] += P[a][3][WS]
    sf = sum(v[2] for v in agg.values()); sp = sum(v[3] for v in agg.values())
    print(' line  flat_kinst peak_kinst  diff  flat%samp peak%samp  source (f0b09f1)')
    for l, v in sorted(agg.items(), key=lambda kv: -kv[1][0])[:45]:
        print(f'{l:5} {v[0]/1e3:9.1f} {v[1]/1e3:9.1f} {(v[0]-v[1])/1e3:8.1f} {100*v[2]/sf:5.1f} {100*v[3]/sp:5.1f}  {src[l-1].strip()[:90] if l > 0 else ""}')
else: # counts: how often a line's instructions ran (warp-level), flat | peaked
    for l in [2415, 2488, 2498, 2530, 2562, 2231, 2601, 2604, 1759, 1761]:
        out = []
        for nm, M in (('flat', F), ('peaked', P)):
            c = collections.Counter()
            for a, (f, ln, s, d) in M.items():
                if f == 'ms_cuda.cu' and ln == l and d[IE] > 0: c[int(d[IE])] += 1
            out.append(f'{nm} ' + ' '.join(str(k) for k in sorted(c, reverse=True)[:3]))
        print(l, src[l-1].strip()[:70], '|', ' | '.join(out))
