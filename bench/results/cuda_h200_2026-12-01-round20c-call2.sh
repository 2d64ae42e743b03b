#!/usr/bin/env bash
# Round 20C's second device call (helper C): stamps of DS and CKGS (B=1,4 both shapes); A/B of D, CK, CKN, CKG (full
# setting B=1..256 both shapes, three alternating runs); top-p alone and bf16 (full) of D, CKN, CKG (B=1,16,64, two
# runs); then all 16 CUDA tests on the one of CKG / CKN with the lower B=1 mean (flat and peaked). TOTAL_S: the budget.
set -u
T0=$(date +%s)
left() { echo $(( ${TOTAL_S:-215} - ($(date +%s) - T0) )); }
B=.devcarry/r20c
export AB_BIN=$B AB_DESC="D=main 6d11f28 (lead's build);DS=main 6d11f28 -DMS_CU_STAMPS (lead's build);CK=r20c -DMS_CU_K3_B0LATE -DMS_CU_CARVE=100;CKN=r20c CK + -DMS_CU_NO_K4_WARM;CKG=r20c CK + -DMS_CU_K4_FREESM;CKGS=r20c CKG + -DMS_CU_STAMPS"
echo "== call start $(date -u +%H:%M:%S)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
STAMPS_B=1,4 AB_STEPS="stamps:DS stamps:CKGS" BUDGET_S=$(( $(left) - 180 )) bash scripts/gpu_run.sh ab > /tmp/ab0.log 2>&1
tail -1 /tmp/ab0.log
AB_VARIANTS="D CK CKN CKG" AB_B=1,4,16,32,64,128,256 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(( $(left) - 140 )) bash scripts/gpu_run.sh ab > /tmp/ab1.log 2>&1
tail -1 /tmp/ab1.log
AB_VARIANTS="D CKN CKG" AB_B=1,16,64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(( $(left) - 125 )) bash scripts/gpu_run.sh ab > /tmp/ab2.log 2>&1
AB_VARIANTS_DT="D CKN CKG" AB_B_DT=1,16,64 AB_N_DT=2 AB_SETTINGS=full AB_STEPS="ab:bf16" BUDGET_S=$(( $(left) - 115 )) bash scripts/gpu_run.sh ab > /tmp/ab3.log 2>&1
tail -1 /tmp/ab3.log
# the B=1 full-setting fp32 means (flat + peaked) of CKG and CKN: test the lower
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
print('CKG' if m.get('CKG', 1e9) <= m.get('CKN', 1e9) else 'CKN')
PY
)
echo "== tests on $pick"
AB_STEPS="tests:$pick" BUDGET_S=$(( $(left) - 3 )) bash scripts/gpu_run.sh ab > /tmp/ab4.log 2>&1
grep -E "passed|failed|not ok|FAIL|differ" $OUT/tests.log | tail -20
tail -1 /tmp/ab4.log
rm -f $OUT/build.log
ls -la $OUT
echo "== call end $(date -u +%H:%M:%S) ($(( $(date +%s) - T0 )) s)"
