#!/usr/bin/env python3
# Round 33C (from round 32C's r32c-table.py, with the setting as a key): the A/B table from a call's bench.txt: us a step per variant, run, dtype, shape, B; variant - D by run.
import re, sys, collections
d = collections.defaultdict(list)  # (dtype, variant, shape, B) -> [us per run]
tok = {}
cur = None
for line in open(sys.argv[1]):
    m = re.match(r'== bench (\S+), V=\d+, (\S+) ', line)
    if m:
        cur = m.group(2); continue
    f = line.split()
    if cur and len(f) >= 9 and f[0].split('.')[0] in ('full', 'top-p') and f[1] in ('flat', 'peaked'):
        dt = f[0].split('.')[1] if '.' in f[0] else 'fp32'
        d[(f[0].split('.')[0] + ' ' + dt, cur, f[1], int(f[2]))].append(float(f[4]))
        if f[8] != '0/0': tok.setdefault((f[0], cur), []).append(f[8])
vs = sorted({k[1] for k in d}, key=lambda v: (v != 'D', v))
for dt in sorted({k[0] for k in d}):
    for sh in ('flat', 'peaked'):
        Bs = sorted({k[3] for k in d if k[0] == dt and k[2] == sh})
        if not Bs: continue
        print(f'\n{dt} {sh}: us a step (runs), and variant - D (mean of runs; each run)')
        print('| variant | ' + ' | '.join(f'B={b}' for b in Bs) + ' |')
        print('|---|' + '---|' * len(Bs))
        for v in vs:
            cells = []
            for b in Bs:
                x = d.get((dt, v, sh, b)); D = d.get((dt, 'D', sh, b))
                if not x: cells.append(''); continue
                s = ' / '.join(f'{y:.2f}' for y in x)
                if v != 'D' and D:
                    diffs = [a - c for a, c in zip(x, D)]
                    s += f' ({sum(diffs)/len(diffs):+.2f}: ' + ' '.join(f'{q:+.2f}' for q in diffs) + ')'
                cells.append(s)
            print(f'| {v} | ' + ' | '.join(cells) + ' |')
print('\ntokens checks (first run of each cell):')
for k, t in sorted(tok.items()):
    print(k, ' '.join(t))
