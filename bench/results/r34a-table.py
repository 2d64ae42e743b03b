#!/usr/bin/env python3
"""Round 34A: the A/B tables from gpu_run.sh's bench.txt (us a step per run, in run order; mean; mean minus D's)."""
import re, sys, collections
runs = collections.defaultdict(list)  # (setting, dtype, V, shape, B, variant) -> [us]
tok = collections.defaultdict(lambda: [0, 0])
var = None; dt = 'fp32'; V = None
for path in sys.argv[1:]:
    for line in open(path):
        m = re.match(r'== bench (\S+), V=(\d+), (\S+) \(.*\)(, bf16)? \(\d\d:\d\d:\d\d\)', line)
        if m:
            var, V, dt = m.group(3), int(m.group(2)), 'bf16' if m.group(4) else 'fp32'
            continue
        f = line.split()
        if var and len(f) >= 9 and f[2].isdigit():
            setting = f[0].split('.')[0]
            key = (setting, dt, V, f[1], int(f[2]), var)
            runs[key].append(float(f[4]))
            t = f[8]
            if '/' in t and t != '0/0':
                a, b = t.split('/'); tok[var][0] += int(a) == int(b); tok[var][1] += 1
cells = sorted({k[:5] for k in runs}, key=lambda c: (c[0], c[1], c[2], c[3], c[4]))
vars_ = []
for k in runs:
    if k[5] not in vars_: vars_.append(k[5])
print('| setting | dtype | V | shape | B | ' + ' | '.join(vars_) + ' | ' + ' | '.join(v + ' - D' for v in vars_ if v != 'D') + ' |')
print('|' + ' --- |' * (5 + 2 * len(vars_) - 1))
for c in cells:
    row = list(map(str, c))
    means = {}
    for v in vars_:
        r = runs.get(c + (v,))
        if r: means[v] = sum(r) / len(r)
        row.append(' / '.join('%.2f' % x for x in r) if r else '')
    for v in vars_:
        if v == 'D': continue
        row.append('%+.2f' % (means[v] - means['D']) if v in means and 'D' in means else '')
    print('| ' + ' | '.join(row) + ' |')
print()
for v in vars_:
    print('tokens %s: %d of %d checked cells equal the CPU reference' % (v, tok[v][0], tok[v][1]))
