#!/usr/bin/env python3
"""Round 37B: B=1 stamps of two stamps benches (latest block, medians) side by side: r37b-stamps.py A.txt B.txt (A: round 36B's DS, B: NS)."""
import re, sys
def parse(path):
    out = {}; shape = None
    for l in open(path):
        m = re.match(r'stamps full (\w+) B=1 ', l)
        if m: shape = m.group(1); out[shape] = {}; continue
        m = re.match(r'  (K\S+(?: \S+)?)\s+([\d.]+)\s+([\d.]+)$', l.rstrip())
        if shape and m: out[shape][m.group(1).strip()] = float(m.group(3))
    return out
ds, ns = parse(sys.argv[1]), parse(sys.argv[2])
ev = [('K2 out', 'K2 out (latest block)'), ('K4 wait', 'K4w wait (9)'), ('K4 loads', 'stats checked (10)'),
      ('K4 pre', "candidates in, after the bins' scan (17)"), ('K4 list0', 'list done (18)'), ('K4 list', "after the list's barrier (11)"),
      ('K4 fmass', 'entries (23)'), ('K4w rank', 'pass 1 (13)'), ('K4w filt', 'filters (14)'), ('K4w idord', 'id order (15)'), ('K4 drawn', 'drawn (12)')]
print('| event (stamp) | DS flat | NS flat | DS peaked | NS peaked | DS flat - peaked | NS flat - peaked |')
print('|---|---|---|---|---|---|---|')
for k, name in ev:
    a, b, c, d = ds['flat'][k], ns['flat'][k], ds['peaked'][k], ns['peaked'][k]
    print(f'| {name} | {a:.2f} | {b:.2f} | {c:.2f} | {d:.2f} | {a-c:+.2f} | {b-d:+.2f} |')
print()
print('| step | DS flat | NS flat | DS peaked | NS peaked |')
print('|---|---|---|---|---|')
for (k0, n0), (k1, n1) in list(zip(ev[1:], ev[2:])) + [(ev[1], ev[-1])]:
    print(f'| {n0.split(" (")[0]} -> {n1.split(" (")[0]} | {ds["flat"][k1]-ds["flat"][k0]:.2f} | {ns["flat"][k1]-ns["flat"][k0]:.2f} | '
          f'{ds["peaked"][k1]-ds["peaked"][k0]:.2f} | {ns["peaked"][k1]-ns["peaked"][k0]:.2f} |')
