#!/usr/bin/env bash
# Round 29B, left for the lead (never run): AT (-DMS_CU_OR_TRANSPOSE on A) against D and A, then AT's one-read tests.
# Run from the repo root with carry .devcarry/r29b (D, A, AS, AT, tools: 56 MiB).
set -u
cp .devcarry/r29b/tools/gpu_run.sh scripts/gpu_run.sh # round 29B's gpu_run.sh (AB_ALIAS, AB_ENV)
export AB_BIN=.devcarry/r29b
export AB_ALIAS="AT56=AT;A56=A"
export AB_ENV="AT56=MS_BENCH_ORDYN=56;A56=MS_BENCH_ORDYN=56"
export AB_DESC="D=main b1272aa default;A=r29b -DMS_CU_OR_DYN -DMS_CU_OR_DYN_ALWAYS -DMS_CU_OR_DYN_RTQ=48;A56=A at q=56;AT=A with -DMS_CU_OR_TRANSPOSE (q=48);AT56=AT at q=56"
AB_STEPS=ab AB_VARIANTS="D AT A AT56 A56" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full BUDGET_S=${B1:-80} bash scripts/gpu_run.sh ab
mv $OUT/bench.txt $OUT/bench_full.txt
AB_STEPS="tests:AT" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_identity_lite cuda_stats_between_steps cuda_identity_k2_stage cuda_identity_matrix" BUDGET_S=${B2:-90} bash scripts/gpu_run.sh ab
