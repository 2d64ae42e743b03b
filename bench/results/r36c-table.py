#!/usr/bin/env python3
"""Round 36C: the A/B table of a call's bench.txt (gpu_run.sh ab steps): per cell (setting, dtype, shape, B) each
variant's runs in order, their mean, and mean(X) - mean(D); tokens checks from the first run of each cell."""
import re, sys, collections
runs = collections.defaultdict(list); tok = {}
var = dt = None
for l in open(sys.argv[1]):
    m = re.match(r'== bench (\S+), V=(\d+), (\S+) \(.*\)(, (bf16|f16))? \(\d\d:\d\d:\d\d\)$', l.rstrip())
    if m:
        var, dt = m.group(3), (m.group(5) or 'fp32'); continue
    f = l.split()
    if len(f) >= 9 and f[0].split('.')[0] in ('full', 'top-p') and f[2].isdigit():
        f[0] = f[0].split('.')[0]
        k = (f[0], dt, f[1], int(f[2]))
        runs[(k, var)].append(float(f[4]))
        if '/' in f[8]: tok.setdefault((k, var), f[8])
vs = sorted({v for (_, v) in runs}, key=lambda v: (v != 'D', v))
cells = sorted({k for (k, _) in runs}, key=lambda k: (k[0] != 'full', k[1], k[2], k[3]))
print('| setting | dtype | shape | B | ' + ' | '.join(vs) + ' | ' + ' | '.join(v + ' - D' for v in vs if v != 'D') + ' | tokens |')
print('|' + '---|' * (4 + 2 * len(vs)))
for k in cells:
    mean = {v: sum(runs[(k, v)]) / len(runs[(k, v)]) for v in vs if runs.get((k, v))}
    row = [k[0], k[1], k[2], str(k[3])] + ['/'.join('%.2f' % x for x in runs.get((k, v), [])) for v in vs]
    row += ['%+.2f' % (mean[v] - mean['D']) if v in mean and 'D' in mean else '-' for v in vs if v != 'D']
    row += [' '.join('%s %s' % (v, tok[(k, v)]) for v in vs if (k, v) in tok)]
    print('| ' + ' | '.join(row) + ' |')
