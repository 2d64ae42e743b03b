#!/usr/bin/env bash
# Round 33A, device call 1: N = -DMS_CU_K1_ROWCUT -DMS_CU_K1_RC_OWN -DMS_CU_RC_INST -DMS_CU_RC_LEAN (K1 counts only warp
# maxima that pass min-p's test against the row's running max; the ticket acq_rel, no fence; one lite body in RC K2),
# its seven tests with MS_CU_RC_MIN=0 (the cut in every plain lite step whose K4 is K4<false>); then D / N / NF (N with
# MS_CU_RC_BITS=7: K1's count unfiltered) / NC (N with MS_CU_RC_BITS=4: RC kernels, nothing counted or read) / N32
# (round 32A as merged: the same tree without -DMS_CU_RC_LEAN), alternating, fp32 V=151936 B=1..24; D / N at bf16
# B=16, V=262144 B=16, top-p alone B=16.
export AB_BIN=.devcarry/r33a
export AB_DESC="D=main default (1821d95 kernels, .devcarry/s24/D);N=r33a -DMS_CU_K1_ROWCUT -DMS_CU_K1_RC_OWN -DMS_CU_RC_INST -DMS_CU_RC_LEAN;NF=N with MS_CU_RC_BITS=7 (K1's count unfiltered);NC=N with MS_CU_RC_BITS=4 (RC kernels, no count, no read);N32=round 32A (-DMS_CU_K1_ROWCUT -DMS_CU_K1_RC_OWN -DMS_CU_RC_INST, no LEAN)"
export AB_ALIAS="NF=N;NC=N" AB_ENV="NF=MS_CU_RC_BITS=7;NC=MS_CU_RC_BITS=4"
T="cuda_stats_between_steps cuda_graph_replay_equals_eager cuda_identity_many_steps cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_lite cuda_identity_matrix"
MS_CU_RC_MIN=0 AB_STEPS="tests:N" AB_TESTS="${TESTS:-$T}" BUDGET_S=${B0:-75} bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N NF NC N32" AB_B=1,4,8,16,24 AB_N=2 AB_SETTINGS=full BUDGET_S=45 bash scripts/gpu_run.sh ab
AB_STEPS="ab:bf16" AB_VARIANTS_DT="D N" AB_B_DT=16 AB_N_DT=2 AB_SETTINGS=full BUDGET_S=20 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N" AB_V=262144 AB_B=16 AB_N=2 AB_SETTINGS=full BUDGET_S=20 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N" AB_B=16 AB_N=2 AB_SETTINGS=top-p BUDGET_S=20 bash scripts/gpu_run.sh ab
