#!/usr/bin/env python3
"""Round 35A: A/B table from gpu_run.sh's bench.txt (ab, ab:bf16 and top-p steps): per variant, setting, dtype and cell,
the runs in order, and variant - D per run index and in the mean; floors (the bench's floor_us) per cell as min..max.
Usage: r35a-table.py DIR/bench.txt"""
import sys, re, collections
runs = collections.defaultdict(list)  # (variant, setting, dtype, shape, B) -> [us]
floors = collections.defaultdict(list)
tok = {}
v = dt = st = None
for l in open(sys.argv[1]):
    m = re.match(r'== bench (\S+), V=\d+, (\S+) \(.*\)(, bf16)? \(', l)
    if m: st = m.group(1); v = m.group(2); dt = 'bf16' if m.group(3) else 'fp32'; continue
    f = l.split()
    if len(f) >= 9 and f[0].split('.')[0] in ('full', 'top-p') and f[2].isdigit():
        k = (v, f[0].split('.')[0], f[0].split('.')[1] if '.' in f[0] else 'fp32', f[1], int(f[2])); runs[k].append(float(f[4])); floors[k[1:]].append(float(f[5]))
        if f[8] != '0/0': tok[k] = f[8]
vs = []
for k in runs:
    if k[0] not in vs: vs.append(k[0])
cells = sorted({k[1:] for k in runs}, key=lambda c: (c[0] != 'full', c[1] != 'fp32', c[2], c[3]))
print('| setting | dtype | shape | B | ' + ' | '.join(f'{x} runs' for x in vs) + ' | ' +
      ' | '.join(f'{x} - D (runs; mean)' for x in vs if x != 'D') + ' | floor | tokens |')
print('|---' * (4 + len(vs) + len(vs) - 1 + 2) + '|')
for c in cells:
    d = runs.get(('D',) + c, [])
    row = [c[0], c[1], c[2], str(c[3])]
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
    fl = floors[c]
    row.append(f'{min(fl):.2f}..{max(fl):.2f}')
    row.append(', '.join(f'{x} {tok[(x,) + c]}' for x in vs if (x,) + c in tok))
    print('| ' + ' | '.join(row) + ' |')
