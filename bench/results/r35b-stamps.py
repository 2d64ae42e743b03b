#!/usr/bin/env python3
"""Round 35B: the K2/K4 events of a gpu_run.sh stamps.txt as one table (us after the first K1 block, earliest/latest block,
median of 9 single steps). In round 35B's ST35 stamps build, 'K4 warm0' is event 36 (K2or's row settings arrived) and
'K4 warm1' event 37 (past K2or's set-up barrier, before the scan's first step): shown as 'settings' and 'set-up'.
Usage: r35b-stamps.py stamps.txt"""
import re, sys
cur = None; out = {}; n = {}
for ln in open(sys.argv[1]):
    if ln.startswith('== stamps'):
        m = re.search(r'full (\w+) V=\d+ \((\w+):', ln); shape, v = m.group(1), m.group(2); continue
    f = ln.split()
    if len(f) >= 3 and f[0] == 'full':
        B = int(f[2]); k = (v, shape, B); n[k] = n.get(k, 0) + 1; cur = k + (n[k],); out[cur] = {'step': f[4]}; continue
    m = re.match(r'\s+(K\d\w* ?\w*)\s+([\d.]+)\s+([\d.]+)', ln)
    if m and cur: out[cur][m.group(1).strip()] = (m.group(2), m.group(3))
keys = ['K2 in', 'K4 warm0', 'K4 warm1', 'K2 first', 'K2 half', 'K2 scan', 'K2 drained', 'K2 out', 'K4 wait', 'K4 drawn']
names = {'K4 warm0': 'settings (36)', 'K4 warm1': 'set-up (37)'}
print('| variant | shape | B | run | step us | ' + ' | '.join(names.get(x, x) for x in keys) + ' |')
print('|---' * (5 + len(keys)) + '|')
for k, d in sorted(out.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][3], kv[0][0])):
    print(f'| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {d["step"]} | ' + ' | '.join('/'.join(d.get(x, ('-', '-'))) for x in keys) + ' |')
