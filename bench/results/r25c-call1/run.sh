#!/bin/bash
# round 25C's device call: ab (D, Q, Q4; full and top-p, fp32; bf16 top-p at B=64), ncu per kernel at top-p flat
# B=64, then all 16 tests of the faster of Q / Q4 (top-p flat B=64 + 256, both runs)
set -u
cd "$(dirname "$0")/../.."
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-250}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r25c AB_DESC="D=main 58a5672 default (s18/D);Q=-DMS_CU_K3_WQ;Q4=-DMS_CU_K3_WQ -DMS_CU_K3_WQ_NG=4"
AB_VARIANTS="D Q Q4" AB_B=1,16,64,256 AB_N=2 AB_SETTINGS=full,top-p AB_STEPS="ab" \
  BUDGET_S=$(left) bash scripts/gpu_run.sh ab > "$OUT/gpu_run.log" 2>&1
AB_VARIANTS="D Q Q4" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab:bf16" \
  BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/gpu_run.log" 2>&1
AB_NCU="D:64 Q:64 Q4:64" AB_NCU_SETTING=top-p AB_STEPS="ncu" \
  BUDGET_S=$(( $(left) > 60 ? 60 : $(left) )) bash scripts/gpu_run.sh ab >> "$OUT/gpu_run.log" 2>&1
pick=$(awk '/^== bench/{ v=""; if ($3=="top-p," && $0 !~ /bf16/) v=$5 } v!="" && $1=="top-p" && $2=="flat" && ($3==64 || $3==256) { s[v]+=$5 }
  END { b=""; for (k in s) if (k!="D" && (b=="" || s[k]<s[b])) b=k; for (k in s) printf "%s %.2f\n", k, s[k] > "/dev/stderr"; print b }' "$OUT/bench.txt" 2>"$OUT/pick.txt")
echo "pick: $pick" >> "$OUT/pick.txt"
AB_STEPS="tests:${pick:-Q}" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/gpu_run.log" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/pick.txt"
