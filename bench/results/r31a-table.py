#!/usr/bin/env python3
"""Round 31A: D/N table from gpu_run.sh's bench.txt (alternating runs): every run's us/step, N - D of the medians."""
import re, sys, statistics as st
from collections import OrderedDict
cells = OrderedDict()  # (setting, dtype, V, shape, B) -> {variant: [us]}
toks = {}
var = dt = None
for line in open(sys.argv[1]):
    m = re.match(r'== bench (\S+), V=(\d+), (\w+) \(.*?\)(?:, (\w+))? \(', line)
    if m:
        var, dt = m.group(3), m.group(4) or 'fp32'
        continue
    f = line.split()
    if var and len(f) >= 9 and f[0].split('.')[0] in ('full', 'top-p') and f[2].isdigit():
        key = (f[0], dt, int(f[3]), f[1], int(f[2]))
        cells.setdefault(key, {}).setdefault(var, []).append(float(f[4]))
        if '/' in f[8]:
            a, b = f[8].split('/')
            toks.setdefault(var, [0, 0, 0])
            toks[var][0] += 1
            toks[var][1] += a == b
vs = sys.argv[2:] or ['D', 'N']
print('| setting | dtype | V | shape | B | ' + ' | '.join(vs) + ' | ' + ' | '.join(f'{v} - {vs[0]}' for v in vs[1:]) + ' |')
print('|' + ' --- |' * (5 + 2 * len(vs) - 1))
for k, d in cells.items():
    med = {v: st.median(d[v]) for v in vs if v in d}
    row = [k[0], k[1], str(k[2]), k[3], str(k[4])]
    row += [' / '.join(f'{x:.2f}' for x in d.get(v, [])) for v in vs]
    row += [f'{med[v] - med[vs[0]]:+.2f}' if v in med and vs[0] in med else '-' for v in vs[1:]]
    print('| ' + ' | '.join(row) + ' |')
for v, (n, ok, _) in toks.items():
    print(f'\ntokens {v}: {ok} of {n} checked cells equal the CPU reference', end='')
print()
