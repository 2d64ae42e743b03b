#!/bin/bash
# Round 32C, call 1 (carried as .devcarry/r32c/call1.sh; run from the repository root with $OUT set).
# D = main's default (.devcarry/s23/D: 55ca3aa binaries, kernels as main 30dd785); G = r32c -DMS_CU_OR_DCUT2=1;
# GS = r32c -DMS_CU_OR_DCUT2=1 -DMS_CU_OR_WSEL=1. Tests on GS and G; A/B full setting fp32 V=151936 B=28..128 both
# shapes (3 runs, alternating), bf16 B=64 (2 runs); ncu: K2or's time and warp instructions at B=64 (flat, peaked).
B=.devcarry/r32c
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main default (s23/D, 55ca3aa binaries);G=r32c -DMS_CU_OR_DCUT2=1 (warp-local drain filter in blocks staging > 256);GS=r32c -DMS_CU_OR_DCUT2=1 -DMS_CU_OR_WSEL=1 (G and the staging's tree select)"
TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:GS tests:G" AB_TESTS="$TESTS" BUDGET_S=${BT:-70} bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="${VL:-D G GS}" AB_B=28,32,48,64,96,128 AB_N=${NR:-3} AB_SETTINGS=full AB_B_DT=64 AB_N_DT=2 \
AB_STEPS="ab ab:bf16" BUDGET_S=${BA:-60} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
M="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio"
for sh in flat peaked; do for v in ${VL:-D G GS}; do
  [ $(( $(date +%s) - T0 )) -lt ${NCU_END:-150} ] || break
  echo "== ncu $v $sh B=64 ($(date -u +%H:%M:%S))" >> $OUT/ncu.txt
  timeout 20 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 2 --metrics "$M" \
    $B/$v/ms_bench_cuda --batch 64 --vocab 151936 --shape $sh --setting full --no-baseline --reps 3 > /tmp/ncu_$v$sh.log 2>&1
  grep -E "ms_cu_k2|gpu__time|inst_executed|latency_per" /tmp/ncu_$v$sh.log | sed 's/  */ /g' >> $OUT/ncu.txt
done; done
echo "ncu: $(( $(date +%s) - T0 )) s"
ls -la $OUT
