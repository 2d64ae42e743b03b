#!/usr/bin/env bash
# Round 32B, device call 2 (helper B): run from the repo root with carry .devcarry/r32b (D bench, T bench+tests)
set -u
date -u
export AB_BIN=.devcarry/r32b
export AB_ALIAS="T8=T;T16=T;T24=T"
export AB_ENV="T8=MS_CU_ORTAPER=8;T16=MS_CU_ORTAPER=16;T24=MS_CU_ORTAPER=24"
export AB_DESC="D=main 30dd785 default (s23/D);T=r32b -DMS_CU_OR_TRANSPOSE -DMS_CU_OR_TAPER=0 (transposed ring-less K2or, static equal chunks);T8=T with MS_CU_ORTAPER=8 (chunk density 1+-8/64 falling with g);T16=T with taper 16;T24=T with taper 24"
AB_STEPS=ab AB_VARIANTS="D T T8 T16 T24" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full BUDGET_S=${B1:-60} bash scripts/gpu_run.sh ab
mv $OUT/bench.txt $OUT/bench_full.txt
MS_CU_ORTAPER=16 AB_STEPS="tests:T" AB_TESTS="cuda_identity_oneread cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_k2_stage cuda_identity_ring" BUDGET_S=${B2:-45} bash scripts/gpu_run.sh ab
date -u
