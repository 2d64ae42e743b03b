#!/usr/bin/env python3
"""Round 35B (copied from r34c-table.py): means of the alternating runs in a gpu_run.sh bench.txt, each variant against D (us a step).
Usage: r34c-table.py bench.txt"""
import sys, collections
runs = collections.defaultdict(list); tok = {}; v = None; dt = ''
for ln in open(sys.argv[1]):
    if ln.startswith('== bench'):
        f = ln.split(); v = f[4]; dt = ' bf16' if ', bf16' in ln else ''
        continue
    f = ln.split()
    if len(f) >= 9 and f[0].split('.')[0] in ('full', 'top-p') and f[1] in ('flat', 'peaked'):
        k = (f[0], f[1], int(f[2])); runs[(v, k)].append(float(f[4]))
        if f[8] != '0/0': tok[(v, k)] = f[8]
vs = []; ks = []
for (vv, k) in runs:
    if vv not in vs: vs.append(vv)
    if k not in ks: ks.append(k)
ks.sort()
print('| setting | shape | B | ' + ' | '.join(vs) + ' | ' + ' | '.join(f'{x} - D' for x in vs if x != 'D') + ' | tokens |')
print('|---' * (3 + len(vs) + len(vs) - 1 + 1) + '|')
for k in ks:
    m = {x: sum(runs[(x, k)]) / len(runs[(x, k)]) for x in vs if runs.get((x, k))}
    cells = [('/'.join(f'{y:.2f}' for y in runs[(x, k)]) if (x, k) in runs else '-') for x in vs]
    diffs = [(f'{m[x] - m["D"]:+.2f}' if x in m and 'D' in m else '-') for x in vs if x != 'D']
    t = ' '.join(sorted(set(tok[(x, k)] for x in vs if (x, k) in tok)))
    print(f'| {k[0]} | {k[1]} | {k[2]} | ' + ' | '.join(cells) + ' | ' + ' | '.join(diffs) + f' | {t} |')
