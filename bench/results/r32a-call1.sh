#!/usr/bin/env bash
# Round 32A, device call 1: N's tests (the cut in every plain lite step whose K4 is K4<false>: MS_CU_RC_MIN=0, the most
# rows through it; the default rule only narrows it), then D / N / N3 (N's binary without K2's pre-test,
# MS_CU_RC_BITS=3), alternating, the full setting fp32 V=151936 B=1..24 both shapes; bf16 and V=262144 at B=1 / 16;
# top-p alone B=16 / 64 (D N).
export AB_BIN=.devcarry/r32a
export AB_DESC="D=main default (55ca3aa kernels, .devcarry/s23/D);N=r32a -DMS_CU_K1_ROWCUT -DMS_CU_K1_RC_OWN -DMS_CU_RC_INST (cut in own instantiations, count after atomicMax, K2 pre-test);N3=N without K2's pre-test (MS_CU_RC_BITS=3)"
export AB_ALIAS="N3=N" AB_ENV="N3=MS_CU_RC_BITS=3"
T="cuda_identity_lite cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_matrix cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps"
MS_CU_RC_MIN=0 AB_STEPS="tests:N" AB_TESTS="${TESTS:-$T}" BUDGET_S=${B0:-50} bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N N3" AB_B=1,2,4,8,16,24 AB_N=2 AB_SETTINGS=full BUDGET_S=${B1:-40} bash scripts/gpu_run.sh ab
AB_STEPS="ab:bf16" AB_VARIANTS_DT="D N" AB_B_DT=1,16 AB_N_DT=2 AB_SETTINGS=full BUDGET_S=${B2:-12} bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N" AB_V=262144 AB_B=1,16 AB_N=2 AB_SETTINGS=full BUDGET_S=${B3:-12} bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N" AB_B=16,64 AB_N=2 AB_SETTINGS=top-p BUDGET_S=${B4:-16} bash scripts/gpu_run.sh ab
# the other ten CUDA tests on N (what budget is left), MS_CU_RC_MIN=0 as above
T2="cuda_identity_k2_stage cuda_identity_top_p_alone cuda_bad_inputs cuda_identity_band cuda_identity_band_edges cuda_identity_oneread cuda_oneread_model cuda_identity_ring cuda_identity_big_chunks cuda_identity_k3_giveup"
MS_CU_RC_MIN=0 AB_STEPS="tests:N" AB_TESTS="$T2" BUDGET_S=${B5:-55} bash scripts/gpu_run.sh ab
