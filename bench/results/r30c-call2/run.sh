#!/usr/bin/env bash
# Round 30C, call 2: D (main f0b09f1's default) and N2 (-DMS_CU_K4_LDTWO=1, final form: the loads in K4L only; K4R and
# ms_cu_k4<true> / <false> as the default's): N2's tests; full fp32 V=151936 at B=64 (control), 160, 200, 256, both
# shapes, two alternating runs; top-p alone at B=176 / 256 and full V=262144 at B=133 / 256, one run each.
cd "$(dirname "$0")/../.."
B=.devcarry/r30c
DESC="D=main f0b09f1 default (s22/D);N2=r30c + -DMS_CU_K4_LDTWO=1 (K4L only)"
AB_BIN=$B AB_DESC="$DESC" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_identity_lite cuda_identity_minp_edges cuda_graph_replay_equals_eager cuda_stats_between_steps" AB_VARIANTS="D N2" AB_B=64,160,200,256 AB_N=2 AB_SETTINGS=full AB_STEPS="tests:N2 ab" BUDGET_S=85 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N2" AB_B=176,256 AB_N=1 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=45 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N2" AB_B=133,256 AB_N=1 AB_V=262144 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab
