#!/usr/bin/env bash
# Round 29C, call 1: A/B of D (main b1272aa's default, s21/D) and N (r29c + -DMS_CU_K4_FUSE=1), full setting at the
# one-read B, both shapes, two alternating runs; stamps of DS at B=32,64 (NS: call 2); the tests covering K4<true> on N.
cd "$(dirname "$0")/../.."
B=.devcarry/r29c
DESC="D=main b1272aa default (s21/D);N=r29c + -DMS_CU_K4_FUSE=1;DS=D + MS_CU_STAMPS (s21/DS);NS=N + MS_CU_STAMPS"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=32,48,64,106,128,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=95 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" STAMPS_B=32,64 AB_STEPS="stamps:DS" BUDGET_S=40 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_lite cuda_identity_minp_edges cuda_graph_replay_equals_eager cuda_identity_big_chunks" AB_STEPS="tests:N" BUDGET_S=70 bash scripts/gpu_run.sh ab
