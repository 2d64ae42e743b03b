#!/usr/bin/env python3
"""Tables of the twenty-sixth session's calls: every cell's runs of D and of the other variant (M or F), and the
difference of their means. Usage: session26-table.py BENCH_TXT VARIANT (the bench logs of gpu_run.sh's ab steps)."""
import collections, re, sys

HDR = re.compile(r'== bench (\S+), V=(\d+), (\w+) .*?(?:, (bf16|f16))? \(\d\d:\d\d:\d\d\)$')


def parse(path):
    cur, d = None, collections.defaultdict(list)
    for line in open(path):
        m = HDR.match(line.strip())
        if m:
            cur = (m.group(1), m.group(2), m.group(4) or 'fp32', m.group(3))
            continue
        p = line.split()
        if cur and len(p) >= 9 and p[0].split('.')[0] in ('full', 'top-p') and p[2].isdigit():
            d[(cur[0], cur[1], cur[2], p[1], int(p[2]), cur[3])].append((float(p[4]), float(p[7])))
    return d


def main():
    d, var = parse(sys.argv[1]), sys.argv[2]
    print('| setting | dtype | V | shape | B | D | %s | %s - D | %s ratio |' % (var, var, var))
    print('|---|---|---|---|---|---|---|---|---|')
    for k in sorted(set(k[:5] for k in d)):
        a, b = d.get(k + ('D',), []), d.get(k + (var,), [])
        if not a or not b:
            continue
        mean = lambda xs: sum(x[0] for x in xs) / len(xs)
        print('| %s | %s | %s | %s | %d | %s | %s | %+.2f | %s |' % (
            k[0], k[2], k[1], k[3], k[4], ' / '.join('%.2f' % x[0] for x in a),
            ' / '.join('%.2f' % x[0] for x in b), mean(b) - mean(a), ' / '.join('%.2f' % x[1] for x in b)))


if __name__ == '__main__':
    main()
