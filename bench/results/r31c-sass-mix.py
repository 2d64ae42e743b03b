import re, sys, collections
exec(open('/tmp/r31c-seg.py').read().split('# coarse map')[0].replace('groups = {k: [] for k in sys.argv[2:]}', 'groups = {}'))
rng = [tuple(int(x, 16) for x in r.split('-')) for r in sys.argv[2:]]
for lo, hi in rng:
    c = collections.Counter()
    for a, t, cc in ins:
        if lo <= a < hi:
            op = t.split()[0] if not t.startswith('@') else t.split()[1]
            c[op.split('.')[0]] += 1
    print(hex(lo), hex(hi), sum(c.values()), sorted(c.items(), key=lambda x: -x[1])[:22])
