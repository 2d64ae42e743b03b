#!/usr/bin/env python3
"""Round 34B: A/B table from gpu_run.sh's bench.txt (ab and ab:bf16 steps): per variant and cell, the runs in order,
their mean, and variant - D per run index and in the mean. Usage: r34b-table.py DIR/bench.txt"""
import sys, re, collections
runs = collections.defaultdict(list)  # (variant, dtype, shape, B) -> [us]
tok = {}
v = dt = None
for l in open(sys.argv[1]):
    m = re.match(r'== bench full, V=\d+, (\S+) \(.*\)(, bf16)? \(', l)
    if m: v = m.group(1); dt = 'bf16' if m.group(2) else 'fp32'; continue
    f = l.split()
    if len(f) >= 9 and f[0].startswith('full') and f[2].isdigit():
        k = (v, dt, f[1], int(f[2])); runs[k].append(float(f[4]))
        if f[8] != '0/0': tok[k] = f[8]
vs = []
for k in runs:
    if k[0] not in vs: vs.append(k[0])
cells = sorted({k[1:] for k in runs}, key=lambda c: (c[0] != 'fp32', c[1], c[2]))
print('| dtype | shape | B | ' + ' | '.join(f'{x} runs' for x in vs) + ' | ' + ' | '.join(f'{x} - D (runs; mean)' for x in vs if x != 'D') + ' | tokens |')
print('|---' * (3 + len(vs) + len(vs) - 1 + 1) + '|')
for c in cells:
    d = runs.get(('D',) + c, [])
    row = [c[0], c[1], str(c[2])]
    for x in vs:
        r = runs.get((x,) + c, [])
        row.append(' / '.join(f'{u:.2f}' for u in r) if r else '-')
    for x in vs:
        if x == 'D': continue
        r = runs.get((x,) + c, [])
        if r and d:
            diffs = [a - b for a, b in zip(r, d)]
            row.append(' / '.join(f'{u:+.2f}' for u in diffs) + f'; **{sum(r) / len(r) - sum(d) / len(d):+.2f}**')
        else: row.append('-')
    row.append(', '.join(f'{x} {tok[(x,) + c]}' for x in vs if (x,) + c in tok))
    print('| ' + ' | '.join(row) + ' |')
