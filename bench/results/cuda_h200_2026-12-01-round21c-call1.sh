#!/usr/bin/env bash
# Round 21C's device call (helper C): A/B of D, W, WK (full setting B=1,4,16,32 both shapes, two alternating runs;
# top-p alone and bf16 full at B=1,16); stamps of DS and WS at B=1 (both shapes); then all 16 CUDA tests on the one of
# W / WK with the lower B=1 mean (full fp32, flat and peaked). TOTAL_S: the budget.
set -u
T0=$(date +%s)
left() { echo $(( ${TOTAL_S:-200} - ($(date +%s) - T0) )); }
B=.devcarry/r21c
export AB_BIN=$B AB_DESC="D=main e40eb42 (lead's build of 70f35c2, same sm_90 SASS);DS=D -DMS_CU_STAMPS (lead's build);W=r21c -DMS_CU_K4_PWARM;WK=r21c -DMS_CU_K4_PWARM -DMS_CU_K3_B0LATE;WS=r21c W + -DMS_CU_STAMPS"
echo "== call start $(date -u +%H:%M:%S)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
AB_VARIANTS="D W WK" AB_B=1,4,16,32 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(( $(left) - 150 )) bash scripts/gpu_run.sh ab > /tmp/ab1.log 2>&1
tail -1 /tmp/ab1.log
STAMPS_B=1 AB_STEPS="stamps:DS stamps:WS" BUDGET_S=$(( $(left) - 135 )) bash scripts/gpu_run.sh ab > /tmp/ab0.log 2>&1
tail -1 /tmp/ab0.log
AB_VARIANTS="D W WK" AB_B=1,16 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(( $(left) - 122 )) bash scripts/gpu_run.sh ab > /tmp/ab2.log 2>&1
AB_VARIANTS_DT="D W WK" AB_B_DT=1,16 AB_N_DT=2 AB_SETTINGS=full AB_STEPS="ab:bf16" BUDGET_S=$(( $(left) - 110 )) bash scripts/gpu_run.sh ab > /tmp/ab3.log 2>&1
tail -1 /tmp/ab3.log
pick=$(python3 - "$OUT/bench.txt" <<'PY'
import re, sys
v = None; s = {}
for l in open(sys.argv[1]):
    m = re.match(r'== bench (\S+), V=\d+, (\w+) ', l)
    if m: v = (m.group(1), m.group(2), 'bf16' in l); continue
    p = l.split()
    if v and v[0] == 'full' and not v[2] and len(p) > 4 and p[0] == 'full' and p[2] == '1':
        s.setdefault(v[1], []).append(float(p[4]))
m = {k: sum(x) / len(x) for k, x in s.items()}
print(m, file=sys.stderr)
print('WK' if m.get('WK', 1e9) < m.get('W', 1e9) - 0.15 else 'W')
PY
)
echo "== tests on $pick"
AB_STEPS="tests:$pick" BUDGET_S=$(( $(left) - 3 )) bash scripts/gpu_run.sh ab > /tmp/ab4.log 2>&1
grep -E "passed|failed|not ok|FAIL|differ" $OUT/tests.log | tail -20
tail -1 /tmp/ab4.log
rm -f $OUT/build.log
ls -la $OUT
echo "== call end $(date -u +%H:%M:%S) ($(( $(date +%s) - T0 )) s)"
