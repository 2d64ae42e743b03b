#!/bin/bash
# Round 35A, call 3 (prepared, NOT run in the round; carried as .devcarry/r35a/call3.sh; run from the repository root with $OUT set; carry .devcarry/r35a).
# D = main's default (.devcarry/s27/F: c749933, kernels as main 3666153); N2 = r35a -DMS_CU_OR_TKGATE=2 (127f9de); N3 = r35a
# -DMS_CU_OR_TKGATE=3 (29904da: =2 with the pass's loop in two copies, the first without the cut's per-step code until the
# block's stage holds k' tokens). ncu and tests on N3; A/B D, N2, N3 alternating.
# Steps: ncu source counters of K2or (ms_cu_k2, launch 40) at B=64 full fp32 V=151936, D and N, flat and peaked (exports in
# the background); the 6 tests on N; A/B fp32 B=28..128 both shapes (2 runs, D first); peaked B=64 3 more runs (N first);
# top-p alone B=64 (2 runs); bf16 B=64 (2 runs). Everything lands in $W and comes back as one archive.
B=.devcarry/r35a
W=/tmp/w; rm -rf $W; mkdir -p $W $OUT; T0=$(date +%s)
for p in /work/main:ms_cuda_main.cu /work/wt-a:ms_cuda_r35a3.cu; do
  d=${p%%:*}; [ -e $d/src/cuda/ms_cuda.cu ] || { mkdir -p $d/src/cuda && cp $B/src/${p#*:} $d/src/cuda/ms_cuda.cu; }
done 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1; ncu --version | tail -1 >> $W/machine.txt
echo "start $(date -u +%H:%M:%S)" >> $W/times.txt
prof() { # tag binary shape
  local tag=$1 bin=$2 sh=$3
  echo "== ncu $tag $sh B=64 ($(date -u +%H:%M:%S))" >> $W/ncu_$tag$sh.log
  timeout 40 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 1 --section SourceCounters \
    --section InstructionStats --section SpeedOfLight --import-source yes -o /tmp/rep_$tag$sh -f $bin --batch 64 --vocab 151936 --shape $sh \
    --setting full --no-baseline --reps 3 >> $W/ncu_$tag$sh.log 2>&1
  echo "rc $? ($(( $(date +%s) - T0 )) s)" >> $W/ncu_$tag$sh.log
  ( ncu -i /tmp/rep_$tag$sh.ncu-rep --page details --print-details all >> $W/ncu_$tag$sh.log 2>&1
    ncu -i /tmp/rep_$tag$sh.ncu-rep --page source --print-source cuda,sass --csv 2>&1 | gzip > $W/src_$tag$sh.csv.gz
    echo "exported ($(( $(date +%s) - T0 )) s)" >> $W/ncu_$tag$sh.log ) &
}
prof D $B/D/ms_bench_cuda flat
prof N3 $B/N3/ms_bench_cuda flat
prof D $B/D/ms_bench_cuda peaked
prof N3 $B/N3/ms_bench_cuda peaked
echo "ncu: $(( $(date +%s) - T0 )) s" >> $W/times.txt
DESC="D=main default (s27/F, c749933, kernels as 3666153);N2=r35a -DMS_CU_OR_TKGATE=2 (stk by a plain load; the scan gated on the stage reaching k');N3=r35a -DMS_CU_OR_TKGATE=3 (=2, the loop in two copies)"
OUT=$W AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:N3" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps" \
  BUDGET_S=45 bash scripts/gpu_run.sh ab > $W/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s" >> $W/times.txt
OUT=$W AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N2 N3" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full \
  AB_STEPS="ab" BUDGET_S=70 bash scripts/gpu_run.sh ab > $W/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s" >> $W/times.txt
OUT=$W AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="N3 N2 D" AB_B=64 AB_N=3 AB_SETTINGS=full AB_SHAPE=peaked AB_STEPS="ab" \
  BUDGET_S=40 bash scripts/gpu_run.sh ab > $W/ab2_run.log 2>&1
echo "ab2: $(( $(date +%s) - T0 )) s" >> $W/times.txt
OUT=$W AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N2 N3" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" \
  BUDGET_S=35 bash scripts/gpu_run.sh ab > $W/ab3_run.log 2>&1
echo "ab3: $(( $(date +%s) - T0 )) s" >> $W/times.txt
OUT=$W AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N2 N3" AB_B=64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab:bf16" \
  BUDGET_S=40 bash scripts/gpu_run.sh ab > $W/ab4_run.log 2>&1
echo "ab4 (bf16): $(( $(date +%s) - T0 )) s" >> $W/times.txt
wait
echo "all: $(( $(date +%s) - T0 )) s" >> $W/times.txt
rm -rf build-gpu*
cp $W/bench.txt $W/tests.log $W/times.txt $OUT/ 2>/dev/null
tar czf $OUT/call3.tgz -C $W .
ls -la $W $OUT
