#!/usr/bin/env python3
"""Round 19C: the code a kernel ran, from `ncu -i REP --page source --print-source cuda,sass --csv` (gzip or plain).
usage: cuda_h200_2026-12-01-round19c-ncu.py SRC.csv[.gz] [TOP]
Every SASS row (an address) is counted once. Prints: the SASS instructions the kernel ran at least once (distinct
addresses), the distinct 128-byte code lines they lie in and the address range; the instructions executed (warp
level) and the warp-stall samples by reason (all samples); then the TOP 128-byte code lines by no-instruction
samples, with their offset from the kernel's lowest address."""
import csv, gzip, sys, collections
fn = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
f = gzip.open(fn, 'rt', errors='replace') if fn.endswith('.gz') else open(fn, errors='replace')
hdr, rows = None, {}
for r in csv.reader(f):
    if r and r[0] == 'Line No': hdr = r; continue
    if not hdr or len(r) < 8 or not r[2].startswith('0x'): continue
    a = int(r[2], 16)
    if a in rows: continue
    d = {}
    for i, h in enumerate(hdr):
        if i >= 4 and i < len(r):
            try: d[h] = float(r[i] or 0)
            except ValueError: pass
    rows[a] = (r[3].strip(), d)
base = min(rows)
ran = [a for a, (t, d) in rows.items() if d.get('Instructions Executed', 0) > 0]
lines = collections.Counter((a - base) // 128 for a in ran)
print('SASS rows %d (kernel %d bytes); ran at least once: %d instructions in %d distinct 128-byte lines, offsets 0x%x..0x%x'
      % (len(rows), max(rows) + 16 - base, len(ran), len(lines), min(ran) - base, max(ran) + 16 - base))
tot = collections.Counter()
for a, (t, d) in rows.items():
    for k, v in d.items():
        if k.startswith('stall_') and '(Not Issued)' not in k: tot[k] += v
    tot['Instructions Executed'] += d.get('Instructions Executed', 0)
    tot['samples'] += d.get('Warp Stall Sampling (All Samples)', 0)
print('instructions executed (warp level) %d; stall samples %d: %s' % (tot['Instructions Executed'], tot['samples'],
      ', '.join('%s %d' % (k[6:], v) for k, v in sorted(tot.items(), key=lambda x: -x[1]) if k.startswith('stall_') and v)))
ni = collections.Counter()
for a, (t, d) in rows.items(): ni[(a - base) // 128] += d.get('stall_no_inst', 0)
print('code lines by no-instruction samples (offset: samples):',
      ', '.join('0x%x: %d' % (l * 128, v) for l, v in ni.most_common(top) if v))
