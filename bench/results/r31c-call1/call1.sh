#!/bin/bash
# round 31C's first device call: R (-DMS_CU_K2_HQ0=3: round 30B's =2 loop or the default's, chosen once a warp) against
# D (main 55ca3aa's default, the lead's s23/D bench, which has MS_BENCH_PEAKS) and N2 (-DMS_CU_K2_HQ0=2, this branch):
# tests on R first; top-p alone fp32 both shapes; top-p peaked with MS_BENCH_PEAKS=3; bf16 top-p; full B=64 (control).
set -u
cd "$(dirname "$0")/../.." 2>/dev/null || true
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-150}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r31c AB_DESC="D=main 55ca3aa default (s23/D);R=-DMS_CU_K2_HQ0=3 (r31c);N2=-DMS_CU_K2_HQ0=2 (r31c tree);D3=D with MS_BENCH_PEAKS=3;R3=R with MS_BENCH_PEAKS=3;N23=N2 with MS_BENCH_PEAKS=3"
export AB_ALIAS="D3=D;R3=R;N23=N2" AB_ENV="D3=MS_BENCH_PEAKS=3;R3=MS_BENCH_PEAKS=3;N23=MS_BENCH_PEAKS=3"
AB_TESTS="cuda_identity_top_p_alone cuda_identity_band cuda_identity_band_edges cuda_identity_k3_giveup cuda_graph_replay_equals_eager cuda_identity_matrix" \
  AB_STEPS="tests:R" BUDGET_S=$(( $(left) - 62 )) bash scripts/gpu_run.sh ab > "$OUT/run.log" 2>&1
echo "tests done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
AB_VARIANTS="D3 R3 N23" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=top-p AB_SHAPE=peaked AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D R" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D R" AB_B=64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D R" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab:bf16" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
rm -f "$OUT/build.log"
