#!/usr/bin/env python3
"""Round 37A: tables from a call's bench.txt (call1.sh / call2.sh format: '== tag variant args (time)' then the bench's
rows 'set shape B V us floor read ratio tokens fi'). Prints, per (set, shape, B), each variant's runs and its mean, and
each variant's mean minus D's; and the tokens column of every first run. Round 38B: with --v (before the file), V joins
the key and the table (r38b-table.py, its copy with V, folded in here)."""
import sys, re, collections
bv = sys.argv[1] == '--v'
if bv: del sys.argv[1]
runs = collections.defaultdict(lambda: collections.defaultdict(list))
toks = []
tag = var = None
for line in open(sys.argv[1]):
    m = re.match(r'== (\S+) (\S+) ', line)
    if m:
        tag, var = m.group(1), m.group(2)
        continue
    f = line.split()
    if len(f) >= 9 and f[0] in ('full', 'top-p', 'full.bf16', 'top-p.bf16') and f[2].isdigit():
        key = (f[0], f[1], int(f[2])) + ((int(f[3]),) if bv else ())
        runs[key][var].append(float(f[4]))
        if f[8] != '0/0':
            toks.append((tag, var, f[0], f[1], f[2], f[8]))
vs = []
for k in runs:
    for v in runs[k]:
        if v not in vs: vs.append(v)
print('| set | shape | B | ' + ('V | ' if bv else '') + ' | '.join(f'{v} runs (mean)' for v in vs) + ' | ' +
      ' | '.join(f'{v} - D' for v in vs if v != 'D') + ' |')
print('|' + '---|' * (3 + bv + len(vs) + len(vs) - 1))
for k in sorted(runs, key=lambda k: ((k[3],) if bv else ()) + k[:3]):
    r = runs[k]
    mean = {v: sum(r[v]) / len(r[v]) for v in r}
    cells = [(' / '.join(f'{x:.2f}' for x in r[v]) + f' ({mean[v]:.2f})') if v in r else '-' for v in vs]
    diffs = [f'{mean[v] - mean["D"]:+.2f}' if v in r and 'D' in r else '-' for v in vs if v != 'D']
    print(f'| {k[0]} | {k[1]} | {k[2]} | ' + (f'{k[3]} | ' if bv else '') + ' | '.join(cells) + ' | ' + ' | '.join(diffs) + ' |')
print()
print('tokens (first runs):', '; '.join(f'{t[1]} {t[2]} {t[3]} B={t[4]}: {t[5]}' for t in toks))
