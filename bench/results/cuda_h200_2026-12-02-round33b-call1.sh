#!/bin/bash
# Round 33B, call 1 (carried as .devcarry/r33b/call1.sh; run from the repository root with $OUT set; carry .devcarry/r33b).
# D = main's default (.devcarry/s24/D, built from 782f18d's tree, -lineinfo); N = r33b -DMS_CU_OR_TAIL2=1024
# -DMS_CU_OR_DCUT2_RT=1 (one binary; its knobs from the environment: MS_CU_ORTAIL2 the row budget R, MS_CU_ORDC2 round
# 32C's gate). Steps: ncu source counters of K2or (ms_cu_k2<1,0,1,0>) at B=64 full setting fp32 V=151936, D flat and
# peaked, N flat (R=1024); their CSV exports in the background; A/B fp32 B=28..128 both shapes (2 runs alternating) and
# bf16 B=64; tests on N (R=1024).
B=.devcarry/r33b
mkdir -p $OUT; T0=$(date +%s)
# the sources the binaries' line tables name, for ncu's --import-source
# (only where no such file exists there: the text only; the line numbers come from the binaries)
for p in /work/main:ms_cuda_782f18d.cu /work/wt-b:ms_cuda_r33b.cu; do
  d=${p%%:*}; [ -e $d/src/cuda/ms_cuda.cu ] || { mkdir -p $d/src/cuda && cp $B/src/${p#*:} $d/src/cuda/ms_cuda.cu; }
done 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/machine.txt 2>&1; ncu --version | tail -1 >> $OUT/machine.txt
prof() { # tag binary shape env...
  local tag=$1 bin=$2 sh=$3; shift 3
  echo "== ncu $tag $sh B=64 ($(date -u +%H:%M:%S))" >> $OUT/ncu_$tag$sh.log
  env "$@" timeout 40 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 1 --section SourceCounters \
    --section WarpStateStats --section LaunchStats --section SpeedOfLight --section InstructionStats --import-source yes \
    -o /tmp/rep_$tag$sh -f $bin --batch 64 --vocab 151936 --shape $sh --setting full --no-baseline --reps 3 >> $OUT/ncu_$tag$sh.log 2>&1
  echo "rc $? ($(( $(date +%s) - T0 )) s)" >> $OUT/ncu_$tag$sh.log
  ( ncu -i /tmp/rep_$tag$sh.ncu-rep --page details --print-details all >> $OUT/ncu_$tag$sh.log 2>&1
    ncu -i /tmp/rep_$tag$sh.ncu-rep --page source --print-source cuda,sass --csv 2>&1 | gzip > $OUT/src_$tag$sh.csv.gz
    echo "exported ($(( $(date +%s) - T0 )) s)" >> $OUT/ncu_$tag$sh.log ) &
}
prof D $B/D/ms_bench_cuda flat
prof D $B/D/ms_bench_cuda peaked
prof N $B/N/ms_bench_cuda flat MS_CU_ORTAIL2=1024
echo "ncu: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
DESC="D=main default (s24/D, 782f18d tree);N0=r33b N binary, MS_CU_ORTAIL2=0 (D's path);N=r33b TAIL2 R=1024;N2=r33b TAIL2 R=2048;Ga=r33b R=0 gate MS_CU_ORDC2=128;Gb=r33b R=0 gate 512"
AB_BIN=$B AB_DESC="$DESC" AB_ALIAS="N0=N;N2=N;Ga=N;Gb=N" AB_ENV="N0=MS_CU_ORTAIL2=0;N=MS_CU_ORTAIL2=1024;N2=MS_CU_ORTAIL2=2048;Ga=MS_CU_ORTAIL2=0,MS_CU_ORDC2=128;Gb=MS_CU_ORTAIL2=0,MS_CU_ORDC2=512" \
AB_VARIANTS="D N0 N N2 Ga Gb" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full AB_B_DT=64 AB_N_DT=2 AB_VARIANTS_DT="D N N2" \
AB_STEPS="ab ab:bf16" BUDGET_S=${BA:-70} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
MS_CU_ORTAIL2=1024 AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:N" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps" \
  BUDGET_S=${BT:-40} bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
wait
echo "all: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
rm -rf build-gpu*
ls -la $OUT
