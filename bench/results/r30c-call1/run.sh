#!/usr/bin/env bash
# Round 30C, call 1: D (main f0b09f1's default) and N (-DMS_CU_K4_LDTWO=1: round 29C's one-round-trip loads in K4L / K4R
# only), full setting fp32 V=151936 at B=64 (control) and the two-kernel B, both shapes, three alternating runs; N's tests;
# bf16 full at B=176 / 256, two runs.
cd "$(dirname "$0")/../.."
B=.devcarry/r30c
DESC="D=main f0b09f1 default (s22/D);N=r30c + -DMS_CU_K4_LDTWO=1"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=64,133,144,160,176,200,256 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=80 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_identity_lite cuda_identity_minp_edges cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_matrix cuda_identity_band" AB_STEPS="tests:N" BUDGET_S=85 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=176,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab:bf16" BUDGET_S=35 bash scripts/gpu_run.sh ab
