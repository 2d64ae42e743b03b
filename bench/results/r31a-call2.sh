#!/usr/bin/env bash
# Round 31A, device call 2: N2's tests (its default rule: chunks >= 2048 tokens), then D / N2 / NA (N2, MS_CU_RC_MIN=0:
# every plain step, as call 1's N) / NK (K1's count alone, every plain step) / NX (N2, MS_CU_RC_MIN=1000000000: compiled, never taken), alternating.
export AB_BIN=.devcarry/r31a
export AB_DESC="D=main default (f0b09f1 kernels, .devcarry/s22/D);N2=r31a -DMS_CU_K1_ROWCUT, rule chunks >= 2048 tokens;NA=N2 with MS_CU_RC_MIN=0, the cut in every plain step;NK=N2 with MS_CU_RC_MIN=0 MS_CU_RC_BITS=1, K1 counts in every plain step, K2 never reads;NX=N2 with MS_CU_RC_MIN=1000000000, compiled, never taken"
export AB_ALIAS="NA=N2;NK=N2;NX=N2" AB_ENV="NA=MS_CU_RC_MIN=0;NK=MS_CU_RC_MIN=0,MS_CU_RC_BITS=1;NX=MS_CU_RC_MIN=1000000000"
T="cuda_identity_lite cuda_identity_lite_bins cuda_identity_minp_edges cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps"
# the tests on N2's binary with the cut in every plain step (MS_CU_RC_MIN=0: the most rows through it; the rule only narrows it)
MS_CU_RC_MIN=0 AB_STEPS="tests:N2" AB_TESTS="$T" BUDGET_S=${B0:-45} bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N2 NA NK NX" AB_B=1,2,4,8,16,24 AB_N=2 AB_SETTINGS=full BUDGET_S=${B1:-60} bash scripts/gpu_run.sh ab
AB_STEPS="ab:bf16" AB_VARIANTS_DT="D N2" AB_B_DT=8,16 AB_N_DT=2 AB_SETTINGS=full BUDGET_S=${B2:-30} bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N2" AB_V=262144 AB_B=4,8,16 AB_N=2 AB_SETTINGS=full BUDGET_S=${B3:-30} bash scripts/gpu_run.sh ab
