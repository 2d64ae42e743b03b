#!/bin/bash
# round 25C's second device call: ab (D, B; top-p and full, fp32), ncu per kernel at top-p flat B=64 (D, B), then
# the BAND tests of B as time allows
set -u
cd "$(dirname "$0")/../.."
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-72}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r25c AB_DESC="D=main 58a5672 default (s18/D);B=-DMS_CU_K3_BF"
AB_VARIANTS="D B" AB_B=1,16,64,256 AB_N=2 AB_SETTINGS=top-p,full AB_STEPS="ab" \
  BUDGET_S=$(left) bash scripts/gpu_run.sh ab > "$OUT/gpu_run.log" 2>&1
AB_NCU="D:64 B:64" AB_NCU_SETTING=top-p AB_STEPS="ncu" \
  BUDGET_S=$(( $(left) + 30 )) bash scripts/gpu_run.sh ab >> "$OUT/gpu_run.log" 2>&1
AB_STEPS="tests:B" AB_TESTS="cuda_identity_top_p_alone cuda_identity_band cuda_identity_band_edges" BUDGET_S=$(left) \
  bash scripts/gpu_run.sh ab >> "$OUT/gpu_run.log" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/gpu_run.log"
