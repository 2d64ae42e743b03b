# Round 31C: the A/B tables of a call's bench.txt (gpu_run.sh ab): per (setting, dtype, shape, B) each variant's runs
# (alternating in the call), their mean, and each variant's mean minus the base's (D, or D3 for the PEAKS=3 aliases).
import re, sys, collections
runs = collections.defaultdict(list)
tok = {}
hdr = None
for l in open(sys.argv[1]):
    m = re.match(r'== bench (\S+), V=(\d+), (\w+) \(.*\)(, (\w+))? \(\d\d:\d\d:\d\d\)', l)
    if m:
        hdr = (m.group(1), m.group(5) or 'fp32', m.group(3)); continue
    f = l.split()
    if hdr and len(f) >= 9 and f[0].split('.')[0] == hdr[0] and f[2].isdigit():
        st, dt, v = hdr
        key = (st, dt, f[1] + (' PEAKS=3' if v.endswith('3') else ''), int(f[2]))  # D3 / R3 / N23: MS_BENCH_PEAKS=3
        runs[(key, v)].append(float(f[4]))
        if '/' in f[8] and f[8] != '0/0': tok[(key, v)] = f[8]
keys = sorted({k for k, v in runs}, key=lambda k: (k[0], k[1], k[2], k[3]))
vs = sorted({v for k, v in runs}, key=lambda v: (v.endswith('3'), v.rstrip('3').replace('N2', 'N') != 'D', v))
print("| setting | dtype | shape | B | runs / mean (us a step) | differences | tokens |")
print("|---|---|---|---|---|---|---|")
for k in keys:
    present = [v for v in vs if (k, v) in runs]
    base = next((v for v in present if v in ('D', 'D3')), None)
    mean = {v: sum(runs[(k, v)]) / len(runs[(k, v)]) for v in present}
    cells = ["%s %s / %.2f" % (v, " / ".join("%.2f" % x for x in runs[(k, v)]), mean[v]) for v in present]
    diff = ", ".join("%s - %s %+.2f" % (v, base, mean[v] - mean[base]) for v in present if base and v != base)
    print("| %s | %s | %s | %d | %s | %s | %s |" % (k[0], k[1], k[2], k[3], "; ".join(cells), diff,
          ", ".join("%s %s" % (v, tok.get((k, v), '-')) for v in present)))
