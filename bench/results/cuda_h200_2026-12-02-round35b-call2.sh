#!/bin/bash
# Round 35B, call 2 (carried as .devcarry/r35b/call2.sh; run from the repository root with $OUT set; carry .devcarry/r35b).
# D = main 3666153's default (.devcarry/s27/F: c749933, the same kernels); N2 = r35b -DMS_CU_OR_SPF (K2or's slot and
# settings loads issued first, then an L1 prefetch of the first step's logits, the set-up from those slot values);
# DS2 = r35b -DMS_CU_OR_SPF -DMS_CU_OR_SPF_RT -DMS_CU_OR_ST35 -DMS_CU_STAMPS with MS_CU_SPF=0 (main's order at K2or's entry,
# with two more stamps: 36 the row's settings arrived, 37 past the set-up's first barrier); N2S = the same binary with
# MS_CU_SPF=1 (N2's order). (The tool's 64 MiB bound on the tree and the carry leaves room for one stamps binary beside
# N2's test runner.)
# Steps: stamps DS2 / N2S at B=32,64 (both shapes), twice alternating; A/B full fp32 V=151936 B=28..128 both shapes (D N2 twice, then N2 D
# once); full and top-p alone B=64 fp32 and bf16 (D N2, then N2 D); the 7 tests of the brief on N2's runner.
B=.devcarry/r35b
W=/tmp/w; rm -rf $W; mkdir -p $W $OUT; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
DESC="D=main 3666153 default (s27/F);N2=r35b -DMS_CU_OR_SPF;DS2=r35b SPF+SPF_RT+ST35+STAMPS, MS_CU_SPF=0;N2S=DS2's binary, MS_CU_SPF=1"
COMMON="AB_BIN=$B AB_ALIAS=N2S=DS2"
sv() { cp $W/bench.txt $W/stamps.txt $W/tests.log $W/times.txt $OUT/ 2>/dev/null; } # what is there so far, should the call run out
date -u +"start %H:%M:%S" >> $W/times.txt
env OUT=$W $COMMON AB_ENV="DS2=MS_CU_SPF=0;N2S=MS_CU_SPF=1" AB_DESC="$DESC" STAMPS_B=32,64 AB_STEPS="stamps:DS2 stamps:N2S stamps:DS2 stamps:N2S" BUDGET_S=${BS:-70} bash scripts/gpu_run.sh ab > $W/stamps_run.log 2>&1
echo "stamps: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D N2" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full \
  AB_STEPS="ab" BUDGET_S=${BA:-80} bash scripts/gpu_run.sh ab > $W/ab_run.log 2>&1
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="N2 D" AB_B=28,32,48,64,96,128 AB_N=1 AB_SETTINGS=full \
  AB_STEPS="ab" BUDGET_S=${BA2:-50} bash scripts/gpu_run.sh ab > $W/ab2_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
cp $W/bench.txt $W/bench_fp32.txt
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D N2" AB_B=64 AB_N=1 AB_SETTINGS=full,top-p AB_B_DT=64 AB_N_DT=1 \
  AB_VARIANTS_DT="D N2" AB_STEPS="ab ab:bf16" BUDGET_S=${BB:-45} bash scripts/gpu_run.sh ab > $W/abx_run.log 2>&1
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="N2 D" AB_B=64 AB_N=1 AB_SETTINGS=full,top-p AB_B_DT=64 AB_N_DT=1 \
  AB_VARIANTS_DT="N2 D" AB_STEPS="ab ab:bf16" BUDGET_S=${BB:-45} bash scripts/gpu_run.sh ab > $W/abx2_run.log 2>&1
echo "bf16/top-p: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
env OUT=$W $COMMON AB_DESC="$DESC" AB_STEPS="tests:N2" \
  AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_lite" \
  BUDGET_S=${BT:-70} bash scripts/gpu_run.sh ab > $W/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
date -u +"end %H:%M:%S" >> $W/times.txt
rm -rf build-gpu*
cp $W/bench_fp32.txt $W/bench.txt $W/stamps.txt $W/tests.log $W/times.txt $OUT/ 2>/dev/null
tar czf $OUT/call2.tgz -C $W .
ls -la $OUT
