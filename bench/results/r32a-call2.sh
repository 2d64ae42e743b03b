#!/usr/bin/env bash
# Round 32A, device call 2: N = the K4-free form (the row's last K2 block zeroes the bins; counters in ms_cu_k2_rows),
# its seven tests (MS_CU_RC_MIN=0: the cut in every plain lite step whose K4 is K4<false>); then D / N / N1 (call 1's
# binary: K4<false, true> zeroes) / NC (N, MS_CU_RC_BITS=4: the RC kernels launched, K1 counts nothing, K2 reads
# nothing) / NK (N, MS_CU_RC_BITS=5: K1 counts, K2 takes the ticket and zeroes, never reads), alternating, fp32
# V=151936 B=1..24; D / N at bf16 B=1 / 16, V=262144 B=1 / 16, top-p alone B=16 / 64. Each ab invocation's budget
# is only a cap (the step needs 25 s left to start a run).
export AB_BIN=.devcarry/r32a
export AB_DESC="D=main default (55ca3aa kernels, .devcarry/s23/D);N=r32a -DMS_CU_K1_ROWCUT -DMS_CU_K1_RC_OWN -DMS_CU_RC_INST, bins zeroed by the row's last K2 block (K4 untouched);N1=call 1's N (K4<false, true> zeroes the bins);NC=N with MS_CU_RC_BITS=4 (RC kernels, no count, no read);NK=N with MS_CU_RC_BITS=5 (K1 counts, K2 zeroes, no read)"
export AB_ALIAS="NC=N;NK=N" AB_ENV="NC=MS_CU_RC_BITS=4;NK=MS_CU_RC_BITS=5"
T="cuda_stats_between_steps cuda_graph_replay_equals_eager cuda_identity_many_steps cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_lite cuda_identity_matrix"
MS_CU_RC_MIN=0 AB_STEPS="tests:N" AB_TESTS="${TESTS:-$T}" BUDGET_S=${B0:-75} bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N N1 NC NK" AB_B=1,2,4,8,16,24 AB_N=2 AB_SETTINGS=full BUDGET_S=45 bash scripts/gpu_run.sh ab
AB_STEPS="ab:bf16" AB_VARIANTS_DT="D N" AB_B_DT=1,16 AB_N_DT=2 AB_SETTINGS=full BUDGET_S=32 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N" AB_V=262144 AB_B=1,16 AB_N=2 AB_SETTINGS=full BUDGET_S=32 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N" AB_B=16,64 AB_N=2 AB_SETTINGS=top-p BUDGET_S=35 bash scripts/gpu_run.sh ab
