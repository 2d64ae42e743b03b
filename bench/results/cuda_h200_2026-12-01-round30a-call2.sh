#!/bin/bash
# Round 30A, call 2. D = main f0b09f1's default; N = -DMS_CU_OR_RC2 with the knob MS_CU_RC2_G (default 16: as call 1's N);
# NX = N's binary with MS_CU_RC2_G=0 (the row cut compiled, never taken); R = -DMS_CU_OR_ROWCUT (round 20A's, bench only).
B=.devcarry/r30a
mkdir -p $OUT
T0=$(date +%s)
DESC="D=main f0b09f1 default;N=r30a -DMS_CU_OR_RC2 (lean row cut, knob MS_CU_RC2_G);NX=N with MS_CU_RC2_G=0 (compiled, never taken);R=r30a -DMS_CU_OR_ROWCUT (round 20A's row cut)"
VS=${VS:-D N NX R}
export AB_ALIAS="NX=N" AB_ENV="NX=MS_CU_RC2_G=0"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:N" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps cuda_identity_k3_giveup" BUDGET_S=${BT:-45} bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="$VS" AB_B=28,32,48,64,96,128 AB_N=${NF:-2} AB_SETTINGS=full AB_VARIANTS_DT="D N" AB_B_DT=64,128 AB_N_DT=2 \
AB_STEPS="ab ab:bf16" BUDGET_S=${BA:-80} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench-full.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=${BP:-50} bash scripts/gpu_run.sh ab > $OUT/abp_run.log 2>&1
echo "abp: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench-topp.txt
# ncu: K2or's stall reasons and executed instructions, B=64 full setting, peaked then flat (D, N, NX)
M="gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_per_inst_issued.ratio,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for sh in peaked flat; do for v in D N NX; do
  [ $(( $(date +%s) - T0 )) -lt ${NCU_END:-185} ] || break
  b=build-gpu$v/ms_bench_cuda; [ -x $b ] || b=$B/$v/ms_bench_cuda; [ $v = NX ] && b=$B/N/ms_bench_cuda
  echo "== ncu $v $sh B=64" >> $OUT/ncu.txt
  ( [ $v = NX ] && export MS_CU_RC2_G=0; timeout 25 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 2 --metrics "$M" \
    $b --batch 64 --vocab 151936 --shape $sh --setting full --no-baseline --reps 3 > /tmp/ncu_$v$sh.log 2>&1 )
  grep -E "ms_cu_k2|gpu__time|inst_executed|warps_active|latency_per|stalled" /tmp/ncu_$v$sh.log | grep -vE " 0(\.0+)?$|==PROF==" | sed 's/  */ /g' >> $OUT/ncu.txt
done; done
echo "ncu: $(( $(date +%s) - T0 )) s"
ls -la $OUT
