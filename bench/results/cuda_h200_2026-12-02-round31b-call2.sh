#!/bin/bash
# Round 31B, call 2. D = main's default (.devcarry/r31b/D, from f0b09f1: kernels as main 55ca3aa); N = r31b -DMS_CU_OR_DCUT=1
# (the drain after the block's final cuts). Tests on N; A/B full setting fp32 B=28..128 both shapes (2 runs, alternating),
# bf16 B=64 (2 runs); ncu: K2or's time and warp instructions at B=64 (D, N; flat, peaked), N's source counters (flat).
B=.devcarry/r31b
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main default (f0b09f1 binaries);N=r31b -DMS_CU_OR_DCUT=1 (drain after the block's final cuts)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:N" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps" BUDGET_S=${BT:-50} bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full AB_VARIANTS_DT="D N" AB_B_DT=64 AB_N_DT=2 \
AB_STEPS="ab ab:bf16" BUDGET_S=${BA:-45} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
M="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio"
for sh in flat peaked; do for v in D N; do
  [ $(( $(date +%s) - T0 )) -lt ${NCU_END:-125} ] || break
  echo "== ncu $v $sh B=64 ($(date -u +%H:%M:%S))" >> $OUT/ncu.txt
  timeout 20 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 2 --metrics "$M" \
    $B/$v/ms_bench_cuda --batch 64 --vocab 151936 --shape $sh --setting full --no-baseline --reps 3 > /tmp/ncu_$v$sh.log 2>&1
  grep -E "ms_cu_k2|gpu__time|inst_executed|latency_per" /tmp/ncu_$v$sh.log | sed 's/  */ /g' >> $OUT/ncu.txt
done; done
echo "ncu: $(( $(date +%s) - T0 )) s"
if [ $(( $(date +%s) - T0 )) -lt ${SRC_END:-130} ]; then
  timeout 40 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 1 --section SourceCounters --section WarpStateStats \
    --import-source yes -o /tmp/rep_n -f $B/N/ms_bench_cuda --batch 64 --vocab 151936 --shape flat --setting full --no-baseline --reps 3 > /tmp/ncu_src.log 2>&1
  ncu -i /tmp/rep_n.ncu-rep --page source --print-source cuda,sass --csv 2>&1 | gzip > $OUT/src_flat_N.csv.gz
fi
echo "src: $(( $(date +%s) - T0 )) s"
ls -la $OUT
