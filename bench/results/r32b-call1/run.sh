#!/usr/bin/env bash
# Round 32B, device call 1 (helper B): run from the repo root with carry .devcarry/r32b (D bench, AT bench+tests, A bench)
set -u
date -u
export AB_BIN=.devcarry/r32b
export AB_ALIAS="AT56=AT"
export AB_ENV="AT56=MS_BENCH_ORDYN=56"
export AB_DESC="D=main 30dd785 default (s23/D);A=r32b -DMS_CU_OR_DYN -DMS_CU_OR_DYN_ALWAYS -DMS_CU_OR_DYN_RTQ=48;AT=A with -DMS_CU_OR_TRANSPOSE (q=48);AT56=AT at q=56"
AB_STEPS=ab AB_VARIANTS="D AT A AT56" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full BUDGET_S=${B1:-60} bash scripts/gpu_run.sh ab
mv $OUT/bench.txt $OUT/bench_full.txt
AB_STEPS="tests:AT" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_identity_lite cuda_stats_between_steps cuda_identity_k2_stage cuda_identity_matrix" BUDGET_S=${B2:-85} bash scripts/gpu_run.sh ab
date -u
