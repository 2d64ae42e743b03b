#!/bin/bash
# Round 32C, call 2 (carried as .devcarry/r32c/call2.sh; run from the repository root with $OUT set).
# D = main's default (.devcarry/s23/D); G = -DMS_CU_OR_DCUT2=1; S = -DMS_CU_OR_WSEL=1; GS = both (G and GS: bench only
# here, their tests ran in call 1). A/B full setting fp32 V=151936 B=28..128 both shapes (3 runs, alternating), bf16
# B=64 (3 runs); ncu of S's K2or at B=64; tests on S (the two the staging touches most).
B=.devcarry/r32c
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main default (s23/D, 55ca3aa binaries);G=r32c -DMS_CU_OR_DCUT2=1 (warp-local drain filter in blocks staging > 256);S=r32c -DMS_CU_OR_WSEL=1 (the staging's tree select);GS=r32c -DMS_CU_OR_DCUT2=1 -DMS_CU_OR_WSEL=1"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D G S GS" AB_B=28,32,48,64,96,128 AB_N=${NR:-3} AB_SETTINGS=full AB_B_DT=64 AB_N_DT=3 \
AB_STEPS="ab ab:bf16" BUDGET_S=${BA:-75} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
M="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio"
for sh in flat peaked; do for v in S; do
  [ $(( $(date +%s) - T0 )) -lt ${NCU_END:-85} ] || break
  echo "== ncu $v $sh B=64 ($(date -u +%H:%M:%S))" >> $OUT/ncu.txt
  timeout 20 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 2 --metrics "$M" \
    $B/$v/ms_bench_cuda --batch 64 --vocab 151936 --shape $sh --setting full --no-baseline --reps 3 > /tmp/ncu_$v$sh.log 2>&1
  grep -E "ms_cu_k2|gpu__time|inst_executed|latency_per" /tmp/ncu_$v$sh.log | sed 's/  */ /g' >> $OUT/ncu.txt
done; done
echo "ncu: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:S" AB_TESTS="cuda_identity_oneread cuda_identity_ring" BUDGET_S=${BT:-28} bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s"
ls -la $OUT
