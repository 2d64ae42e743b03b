#!/usr/bin/env python3
"""Round 33B: the A/B table (variant - REF, mean of the alternating runs) from a call's bench.txt. Usage: r33b-table.py DIR [REF (D)]"""
import re, sys, collections
REF = sys.argv[2] if len(sys.argv) > 2 else 'D'
d = collections.defaultdict(list); v = dt = None
for l in open(sys.argv[1] + '/bench.txt'):
    m = re.match(r'== bench full, V=151936, (\w+) .*?(, bf16)? \(\d', l)
    if m: v, dt = m.group(1), 'bf16' if ', bf16 (' in l else 'fp32'; continue
    f = l.split()
    if len(f) >= 9 and f[0].startswith('full'): d[(dt, f[1], int(f[2]), v)].append((float(f[4]), f[8]))
vs = []; [vs.append(k[3]) for k in d if k[3] not in vs]
for dt in ('fp32', 'bf16'):
    for sh in ('flat', 'peaked'):
        bs = sorted({k[2] for k in d if k[0] == dt and k[1] == sh})
        if not bs: continue
        print(f'\n{dt} {sh}: us a step, runs (mean); variant - {REF} (mean); tokens of the first run')
        print('| variant | ' + ' | '.join(f'B={b}' for b in bs) + ' |')
        print('|---' * (len(bs) + 1) + '|')
        for x in vs:
            cells = []
            for b in bs:
                r = d.get((dt, sh, b, x)); r0 = d.get((dt, sh, b, REF))
                if not r: cells.append('-'); continue
                mu = sum(t for t, _ in r) / len(r)
                s = ' / '.join(f'{t:.2f}' for t, _ in r) + f' ({mu:.2f})'
                if x != REF and r0: s += f' **{mu - sum(t for t, _ in r0) / len(r0):+.2f}**'
                s += f' [{r[0][1]}]'
                cells.append(s)
            print(f'| {x} | ' + ' | '.join(cells) + ' |')
