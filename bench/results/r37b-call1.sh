# Round 37B, device call 1: run tool, carry [".devcarry/r37b"] (D = .devcarry/s28fin/M's bench (main b20f0da's default kernels);
# N2 = /work/wt-b build-n2 (r37b d06be6b, -DMS_CU_K4W_BW=2) bench and tests; N1 = build-n1 (r37b d06be6b, -DMS_CU_K4W_BW=1) bench; stripped)
export AB_BIN=.devcarry/r37b AB_DESC="D=main b20f0da default (.devcarry/s28fin/M);N2=r37b d06be6b -DMS_CU_K4W_BW=2 (warp 0 scans the bins, bmax polled);N1=r37b d06be6b -DMS_CU_K4W_BW=1 (bins before the candidates, per warp)"
date -u +%T > $OUT/times.txt
AB_STEPS="ab" AB_VARIANTS="D N2 N1" AB_B=1,2,4 AB_N=5 AB_SETTINGS=full BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/call1.log 2>&1
AB_STEPS="ab" AB_V=262144 AB_VARIANTS="D N2 N1" AB_B=1 AB_N=3 AB_SETTINGS=full BUDGET_S=25 bash scripts/gpu_run.sh ab >> $OUT/call1.log 2>&1
AB_STEPS="ab:bf16" AB_VARIANTS_DT="D N2 N1" AB_B_DT=1 AB_N_DT=3 BUDGET_S=25 bash scripts/gpu_run.sh ab >> $OUT/call1.log 2>&1
AB_STEPS="ab" AB_VARIANTS="D N2 N1" AB_B=1 AB_N=3 AB_SETTINGS=top-p BUDGET_S=25 bash scripts/gpu_run.sh ab >> $OUT/call1.log 2>&1
date -u +%T >> $OUT/times.txt
AB_STEPS="tests:N2" AB_TESTS="cuda_identity_lite cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_matrix cuda_identity_top_p_alone cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps cuda_identity_band cuda_identity_band_edges" BUDGET_S=110 bash scripts/gpu_run.sh ab >> $OUT/call1.log 2>&1
date -u +%T >> $OUT/times.txt
grep -c '^ok' $OUT/tests.log; grep -i 'not ok\|differ' $OUT/tests.log | grep -v ' 0 differ' | head
