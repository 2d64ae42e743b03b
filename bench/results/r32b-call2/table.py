# Round 29B: the A/B table of a call's bench file (us a step; variant - D, each run and the mean)
import re, sys, collections
f = sys.argv[1]; vs = sys.argv[2].split(',')
d = collections.defaultdict(list); v = None; st = None
for line in open(f):
    m = re.match(r'== bench (\S+), V=\d+, (\S+) ', line)
    if m: st, v = m.group(1), m.group(2); continue
    x = line.split()
    if len(x) > 8 and x[0] in ('full', 'top-p') and x[1] in ('flat', 'peaked'):
        d[(x[0], v, x[1], int(x[2]))].append(float(x[4]))
sets = sorted({k[0] for k in d}); Bs = sorted({k[3] for k in d})
for s in sets:
    print(f"\n{s}: D (runs), then variant - D: mean (runs)\n")
    print("| shape | B | D | " + " | ".join(vs[1:]) + " |")
    print("|---|---|---|" + "---|" * (len(vs) - 1))
    for sh in ('flat', 'peaked'):
        for B in Bs:
            b = d.get((s, vs[0], sh, B))
            if not b: continue
            mb = sum(b) / len(b)
            row = [sh, str(B), f"{mb:.2f} ({' / '.join('%.2f' % q for q in b)})"]
            for w in vs[1:]:
                x = d.get((s, w, sh, B))
                if not x: row.append('-'); continue
                row.append(f"{sum(x)/len(x)-mb:+.2f} ({' / '.join('%+.2f' % (p - q) for p, q in zip(x, b))})")
            print("| " + " | ".join(row) + " |")
