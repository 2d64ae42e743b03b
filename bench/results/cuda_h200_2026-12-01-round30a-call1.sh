#!/bin/bash
# Round 30A, call 1. D = main f0b09f1's default (the lead's s22/D); N = -DMS_CU_OR_RC2 (round 30A's lean row cut);
# R = -DMS_CU_OR_ROWCUT (round 20A's row cut, today's source, bench only). Tests on N.
B=.devcarry/r30a
mkdir -p $OUT
T0=$(date +%s)
DESC="D=main f0b09f1 default;N=r30a -DMS_CU_OR_RC2 (lean row cut);R=r30a -DMS_CU_OR_ROWCUT (round 20A's row cut)"
VS=${VS:-D N R}
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:N" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps cuda_identity_k3_giveup" BUDGET_S=${BT:-45} bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="$VS" AB_B=28,32,48,64,96,128 AB_N=${NF:-3} AB_SETTINGS=full AB_VARIANTS_DT="$VS" AB_B_DT=64,128 AB_N_DT=2 \
AB_STEPS="ab ab:bf16" BUDGET_S=${BA:-95} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench-full.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="$VS" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=${BP:-30} bash scripts/gpu_run.sh ab > $OUT/abp_run.log 2>&1
echo "abp: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench-topp.txt
ls -la $OUT
