#!/usr/bin/env python3
"""scripts/gpu_gaps.py: from `nsys stats -r cuda_gpu_trace -f csv` of ms_bench_cuda's graph replays (node-level
tracing), the median duration of each operation of a step and the median gap before it (end of the previous
GPU operation to its start), and the median step span (first start to last end)."""
import csv, sys, statistics as S
rows = list(csv.DictReader(open(sys.argv[1])))
def col(r, *names):
    for n in names:
        for k in r:
            if k.startswith(n): return r[k]
    return None
ops = []
for r in rows:
    name = col(r, "Name") or ""
    st = float(col(r, "Start") or 0); du = float(col(r, "Duration") or 0)
    short = "memset" if "memset" in name.lower() else ("memcpy" if "memcpy" in name.lower() else name.split("(")[0].split("<")[0].strip())
    ops.append((st, du, short))
ops.sort()
# steps: a memset (or K1 when there is none) followed by ms_cu_k* ops
seq = [o for o in ops if o[2].startswith("ms_cu_k") or o[2] == "memset"]
first = "memset" if any(o[2] == "memset" for o in seq) else "ms_cu_k1"
steps, cur = [], []
for o in seq:
    if o[2] == first and cur: steps.append(cur); cur = []
    cur.append(o)
if cur: steps.append(cur)
steps = [s for s in steps if len(s) >= 4][len(steps) // 3:]  # skip warm-up and the copy-bandwidth part
if not steps: print("no steps found; names:", sorted({o[2] for o in ops})[:20]); sys.exit(0)
n = max(len(s) for s in steps)
steps = [s for s in steps if len(s) == n]
print(f"{len(steps)} steps of {n} operations (ns, median)")
print("op           duration   gap_before")
for i in range(n):
    d = S.median(s[i][1] for s in steps)
    g = S.median(s[i][0] - (s[i - 1][0] + s[i - 1][1]) for s in steps) if i else 0
    print(f"{steps[0][i][2]:12s} {d:9.0f} {g:9.0f}")
span = S.median(s[-1][0] + s[-1][1] - s[0][0] for s in steps)
gapn = [s[i][0] - (s[i - 1][0] + s[i - 1][1]) for s in steps for i in range(1, n)]
between = S.median(steps[i + 1][0][0] - (steps[i][-1][0] + steps[i][-1][1]) for i in range(len(steps) - 1)) if len(steps) > 1 else 0
print(f"step span {span:.0f} ns; gap between steps {between:.0f} ns")
