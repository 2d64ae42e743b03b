#!/usr/bin/env python3
"""Round 37B: r35c-table.py with the vocabulary V as a column: means of the alternating bench runs in r37b-callN/bench.txt, variant - D per (setting, dtype, V, shape, B).
Usage: r37b-table.py bench.txt [bench.txt ...]"""
import re, sys
from collections import defaultdict
runs = defaultdict(list)  # (set, dtype, shape, B, variant) -> [us]
tok = {}
for path in sys.argv[1:]:
    v = dt = V = None
    for line in open(path):
        m = re.match(r'== bench (\S+), V=(\d+), (\S+) .*?(, (bf16))? \(\d\d:\d\d:\d\d\)$', line.strip())
        if m:
            v, dt, V = m.group(3), (m.group(5) or 'fp32'), int(m.group(2))
            continue
        f = line.split()
        if v and len(f) >= 9 and f[0].split('.')[0] in ('full', 'top-p') and f[2].isdigit():
            k = (f[0].split('.')[0], dt, V, f[1], int(f[2]), v)
            runs[k].append(float(f[4]))
            if f[8] != '0/0': tok[k] = f[8]
variants = sorted({k[5] for k in runs}, key=lambda x: (x != 'D', x))
cells = sorted({k[:5] for k in runs})
print('| setting | dtype | V | shape | B | ' + ' | '.join(f'{x} runs' for x in variants) + ' | ' +
      ' | '.join(f'{x} - D' for x in variants if x != 'D') + ' | tokens |')
print('|' + '---|' * (5 + len(variants) + len(variants) - 1 + 1))
for c in cells:
    d = runs.get(c + ('D',))
    row = [c[0], c[1], str(c[2]), c[3], str(c[4])]
    for x in variants:
        r = runs.get(c + (x,))
        row.append(' / '.join(f'{u:.2f}' for u in r) if r else '-')
    for x in variants:
        if x == 'D': continue
        r = runs.get(c + (x,))
        row.append(f'{sum(r)/len(r) - sum(d)/len(d):+.2f}' if r and d else '-')
    row.append(', '.join(f'{x} {tok[c + (x,)]}' for x in variants if c + (x,) in tok))
    print('| ' + ' | '.join(row) + ' |')
