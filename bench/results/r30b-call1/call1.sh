#!/bin/bash
# round 30B's first device call: ab of D (main f0b09f1's default, .devcarry/s22/D) and N (-DMS_CU_K2_HQ0=1):
# top-p fp32 B=1,16,64,128,256 both shapes; top-p bf16 B=64,256; full
# B=1,16,64 (control); then tests on N.
set -u
cd "$(dirname "$0")/../.." 2>/dev/null || true
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-200}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r30b AB_DESC="D=main f0b09f1 default (s22/D);N=-DMS_CU_K2_HQ0=1 (r30b c673938)"
AB_VARIANTS="D N" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab > "$OUT/run.log" 2>&1
AB_VARIANTS="D N" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab:bf16" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D N" AB_B=1,16,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
echo "bench done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
AB_TESTS="cuda_identity_top_p_alone cuda_identity_band cuda_identity_band_edges cuda_identity_k3_giveup cuda_graph_replay_equals_eager cuda_identity_oneread cuda_identity_ring cuda_identity_matrix" \
  AB_STEPS="tests:N" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
rm -f "$OUT/build.log"
