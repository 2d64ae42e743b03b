# Round 37B, device call 2: run tool, carry [".devcarry/r37b"] (D = .devcarry/s28fin/M's bench (main b20f0da's default kernels);
# N3 = /work/wt-b build-n3 (r37b 067880b, -DMS_CU_K4W_P1T=1) bench and tests; NS = build-ns (r37b d06be6b, -DMS_CU_K4W_BW=2 -DMS_CU_STAMPS) bench; stripped)
export AB_BIN=.devcarry/r37b AB_DESC="D=main b20f0da default (.devcarry/s28fin/M);N3=r37b 067880b -DMS_CU_K4W_P1T=1 (K4w pass 1 transposed);NS=r37b d06be6b -DMS_CU_K4W_BW=2 -DMS_CU_STAMPS"
date -u +%T > $OUT/times.txt
STAMPS_B=1 AB_STEPS="stamps:NS" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/call2.log 2>&1
AB_STEPS="ab" AB_VARIANTS="D N3" AB_B=1,2,4 AB_N=5 AB_SETTINGS=full BUDGET_S=40 bash scripts/gpu_run.sh ab >> $OUT/call2.log 2>&1
AB_STEPS="ab" AB_V=262144 AB_VARIANTS="D N3" AB_B=1 AB_N=3 AB_SETTINGS=full BUDGET_S=35 bash scripts/gpu_run.sh ab >> $OUT/call2.log 2>&1
AB_STEPS="ab:bf16" AB_VARIANTS_DT="D N3" AB_B_DT=1 AB_N_DT=3 BUDGET_S=35 bash scripts/gpu_run.sh ab >> $OUT/call2.log 2>&1
AB_STEPS="ab" AB_VARIANTS="D N3" AB_B=1 AB_N=3 AB_SETTINGS=top-p BUDGET_S=35 bash scripts/gpu_run.sh ab >> $OUT/call2.log 2>&1
date -u +%T >> $OUT/times.txt
AB_STEPS="tests:N3" AB_TESTS="cuda_identity_lite cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_matrix cuda_identity_top_p_alone cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps cuda_identity_band cuda_identity_band_edges" BUDGET_S=110 bash scripts/gpu_run.sh ab >> $OUT/call2.log 2>&1
date -u +%T >> $OUT/times.txt
grep -c '^ok' $OUT/tests.log; grep -i 'not ok\|differ' $OUT/tests.log | grep -v ' 0 differ' | head
