#!/usr/bin/env python3
"""Round 37C's tables: every cell's runs of D and of each other variant (alternating in one call), and each variant's
difference of means against D. Usage: r37c-table.py BENCH_TXT... (gpu_run.sh ab logs). Also lists any tokens column
that is not n/n."""
import collections, re, sys

HDR = re.compile(r'== bench (\S+), V=(\d+), (\w+) .*?(?:, (bf16|f16))? \(\d\d:\d\d:\d\d\)$')


def parse(paths):
    cur, d, bad, order = None, collections.defaultdict(list), [], []
    for path in paths:
        for line in open(path):
            m = HDR.match(line.strip())
            if m:
                cur = (m.group(1), m.group(2), m.group(4) or 'fp32', m.group(3))
                if cur[3] not in order:
                    order.append(cur[3])
                continue
            p = line.split()
            if cur and len(p) >= 9 and p[0].split('.')[0] in ('full', 'top-p') and p[2].isdigit():
                d[(cur[0], cur[1], cur[2], p[1], int(p[2]), cur[3])].append(float(p[4]))
                t = p[8].split('/')
                if len(t) == 2 and t[0] != t[1]:
                    bad.append((path, line.strip()))
    return d, bad, order


def main():
    d, bad, order = parse(sys.argv[1:])
    vs = [v for v in order if v != 'D']
    print('| setting | V | dtype | shape | B | D | ' + ' | '.join('%s | %s - D' % (v, v) for v in vs) + ' |')
    print('|---|---|---|---|---|---|' + '---|---|' * len(vs))
    for k in sorted(set(k[:5] for k in d)):
        a = d.get(k + ('D',), [])
        if not a:
            continue
        ma = sum(a) / len(a)
        row = ['%s | %s | %s | %s | %d' % k, ' / '.join('%.2f' % x for x in a)]
        for v in vs:
            b = d.get(k + (v,), [])
            if not b:
                row += ['', '']
                continue
            row += [' / '.join('%.2f' % x for x in b), '%+.2f' % (sum(b) / len(b) - ma)]
        print('| ' + ' | '.join(row) + ' |')
    print('\ntokens not n/n: %d' % len(bad))
    for p, l in bad:
        print('  ', p, l)


main()
