#!/usr/bin/env python3
"""Round 32A: the medians of each variant's runs in an ab bench.txt, and their differences against D.
Usage: r32a-table.py bench.txt [variants...]"""
import sys, re, statistics
from collections import defaultdict
cur = None; v = defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'== bench (\S+), V=(\d+), (\S+) .*?(?:, (bf16))?\)? \(\d', line)
    if line.startswith('== bench'):
        m = re.match(r'== bench (\S+), V=(\d+), (\S+) ', line)
        dt = 'bf16' if ', bf16' in line else 'fp32'
        cur = (m.group(1), m.group(2), m.group(3), dt); continue
    f = line.split()
    if cur and len(f) >= 5 and f[0] in ('full', 'top-p', 'full.bf16', 'top-p.bf16') and f[2].isdigit():
        v[(cur[0], cur[3], cur[1], f[1], int(f[2]), cur[2])].append(float(f[4]))
names = sys.argv[2:] or sorted({k[5] for k in v})
cells = sorted({k[:5] for k in v}, key=lambda k: (k[0], k[1], k[2], k[3], k[4]))
print('| setting | dtype | V | shape | B | ' + ' | '.join(names) + ' | ' + ' | '.join(n + ' - D' for n in names if n != 'D') + ' |')
print('|' + '---|' * (5 + len(names) + len(names) - 1))
for c in cells:
    med = {n: statistics.median(v[c + (n,)]) for n in names if v.get(c + (n,))}
    runs = {n: '/'.join('%.2f' % x for x in v[c + (n,)]) for n in med}
    d = med.get('D')
    print('| %s | %s | %s | %s | %d | ' % c + ' | '.join(runs.get(n, '') for n in names) + ' | ' +
          ' | '.join(('%+.2f' % (med[n] - d)) if n in med and d is not None else '' for n in names if n != 'D') + ' |')
