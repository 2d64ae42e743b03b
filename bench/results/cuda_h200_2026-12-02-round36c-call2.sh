#!/bin/bash
# Round 36C, call 2 (carried as .devcarry/r36c/call2.sh; run from the repository root with $OUT set; carry .devcarry/r36c).
# D = main f3dce4e's default (.devcarry/s28/X2: 954cb13 with -DMS_CU_K4_IDSCAN=2, the same kernels); S = r36c
# -DMS_CU_OR_SPF=2 (round 35B's slot order without the prefetch), the binary of call 1, now with its test runner.
# (S3 = -DMS_CU_OR_SPF=3 was built, but its K2or's SASS equals S's: not carried.)
# Steps: A/B full fp32 V=151936 B=28,32,48,64,96,128 both shapes (D S twice, then S D once); top-p alone fp32
# and full B=28,64,128 (D S, S D); the same two settings B=64 bf16 (D S, S D); the 7 tests of the brief on S's runner.
B=.devcarry/r36c
W=/tmp/w; rm -rf $W; mkdir -p $W $OUT; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
DESC="D=main f3dce4e default (s28/X2);S=r36c -DMS_CU_OR_SPF=2"
COMMON="AB_BIN=$B"
sv() { cp $W/bench.txt $W/tests.log $W/times.txt $OUT/ 2>/dev/null; }
date -u +"start %H:%M:%S" >> $W/times.txt
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D S" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full \
  AB_STEPS="ab" BUDGET_S=${BA:-45} bash scripts/gpu_run.sh ab > $W/ab_run.log 2>&1
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="S D" AB_B=28,32,48,64,96,128 AB_N=1 AB_SETTINGS=full \
  AB_STEPS="ab" BUDGET_S=${BA2:-30} bash scripts/gpu_run.sh ab > $W/ab2_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
cp $W/bench.txt $W/bench_fp32.txt
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D S" AB_B=28,64,128 AB_N=1 AB_SETTINGS=top-p,full AB_B_DT=64 AB_N_DT=1 \
  AB_VARIANTS_DT="D S" AB_STEPS="ab ab:bf16" BUDGET_S=${BB:-40} bash scripts/gpu_run.sh ab > $W/abx_run.log 2>&1
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="S D" AB_B=28,64,128 AB_N=1 AB_SETTINGS=top-p,full AB_B_DT=64 AB_N_DT=1 \
  AB_VARIANTS_DT="S D" AB_STEPS="ab ab:bf16" BUDGET_S=${BB:-40} bash scripts/gpu_run.sh ab > $W/abx2_run.log 2>&1
echo "top-p/bf16: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
env OUT=$W $COMMON AB_DESC="$DESC" AB_STEPS="tests:S" \
  AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_lite" \
  BUDGET_S=${BT:-60} bash scripts/gpu_run.sh ab > $W/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
date -u +"end %H:%M:%S" >> $W/times.txt
rm -rf build-gpu*
cp $W/bench_fp32.txt $W/bench.txt $W/tests.log $W/times.txt $OUT/ 2>/dev/null
tar czf $OUT/call2.tgz -C $W .
ls -la $OUT
