#!/bin/bash
# round 31C's second device call: R4 (-DMS_CU_K2_HQ0=4: the choice from the loop's own first loads, in the plain steps'
# K2 only) against D (main 55ca3aa's default, s23/D) and R (=3, call 1's form): tests on R4 first; top-p alone with
# MS_BENCH_PEAKS=3; top-p alone fp32 both shapes; full B=64 (control); bf16 top-p.
set -u
cd "$(dirname "$0")/../.." 2>/dev/null || true
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-135}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r31c AB_DESC="D=main 55ca3aa default (s23/D);R=-DMS_CU_K2_HQ0=3 (r31c 9ac28a3);R4=-DMS_CU_K2_HQ0=4 (r31c e719379);D3=D with MS_BENCH_PEAKS=3;R43=R4 with MS_BENCH_PEAKS=3"
export AB_ALIAS="D3=D;R43=R4" AB_ENV="D3=MS_BENCH_PEAKS=3;R43=MS_BENCH_PEAKS=3"
AB_TESTS="cuda_identity_top_p_alone cuda_identity_band cuda_identity_band_edges cuda_identity_k3_giveup cuda_graph_replay_equals_eager cuda_identity_matrix" \
  AB_STEPS="tests:R4" BUDGET_S=$(( $(left) - 60 )) bash scripts/gpu_run.sh ab > "$OUT/run.log" 2>&1
echo "tests done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
AB_VARIANTS="D3 R43" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=top-p AB_SHAPE=peaked AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D R4 R" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D R4" AB_B=64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D R4" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab:bf16" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
rm -f "$OUT/build.log"
