#!/usr/bin/env bash
# round 16B, call 1: A/B of D (main 4caf94d), A (+ chain hook, minchunk knob), T (A + -DMS_CU_K2_TAIL),
# TW (T + -DMS_CU_K4_WARM); the chain; the minchunk sweep; stamps of AS / TWS (+ -DMS_CU_STAMPS);
# three lite tests on TW; ncu source counters of K4 and K2 at B=1 flat (A) with what time is left.
set -uo pipefail
C=.devcarry/r16b
RO=${OUT:-/tmp/ro}; mkdir -p $RO
O=/tmp/o1; mkdir -p $O
T0=$(date +%s)
el() { echo "== $* (t=$(( $(date +%s) - T0 )) s, $(date -u +%H:%M:%S))"; }
export OUT=$O
el "ab D A T TW"
AB_BIN=$C AB_VARIANTS="D A T TW" AB_B=1,4,16,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" \
  AB_DESC="D=main 4caf94d;A=r16b chain+minchunk knob;T=A -DMS_CU_K2_TAIL;TW=T -DMS_CU_K4_WARM;AS=A -DMS_CU_STAMPS;TWS=TW -DMS_CU_STAMPS" BUDGET_S=100 bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/build.log $O/bench.txt
el "chain on A (flat, full)"
timeout 40 build-gpuA/ms_bench_cuda --setting full --vocab 151936 --batch 1,4,16,64 --shape flat --reps 3 --no-baseline --chain 2>&1 | grep -v "^#"
el "chain on A, minchunk 4096"
MS_BENCH_MINCHUNK=4096 timeout 20 build-gpuA/ms_bench_cuda --setting full --vocab 151936 --batch 1 --shape flat --reps 3 --no-baseline --chain 2>&1 | grep -v "^#"
for mc in 2048 4096 8192; do
  for v in A TW; do
    el "minchunk $mc on $v, full, B=1,4"
    MS_BENCH_MINCHUNK=$mc timeout 30 build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch 1,4 --shape both --reps 3 --no-baseline 2>&1 | grep -v "^#"
  done
done
el "minchunk 4096 on TW, full and top-p, B=1,4, tokens checked"
MS_BENCH_MINCHUNK=4096 timeout 30 build-gpuTW/ms_bench_cuda --setting full,top-p --vocab 151936 --batch 1,4 --shape both --reps 3 2>&1 | grep -v "^#"
for vm in AS:1024 AS:4096 TWS:1024 TWS:4096; do
  v=${vm%%:*}; mc=${vm##*:}
  el "stamps $v minchunk $mc flat, peaked"
  for shape in flat peaked; do
    MS_BENCH_MINCHUNK=$mc MS_BENCH_STAMPS=1 timeout 30 build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch 1 --shape $shape --reps 3 --no-baseline 2>&1 | grep -v "^#"
  done
done
el "tests (lite) on TW"
for t in cuda_identity_lite cuda_identity_lite_bins cuda_identity_minp_edges; do timeout 60 build-gpuTW/tests/cuda/ms_cuda_tests $t 2>&1 | tail -3; done
el "ncu src (A) K4 and K2 at B=1 flat"
mkdir -p build-gpu && cp build-gpuA/ms_bench_cuda build-gpu/ms_bench_cuda
rm -f $O/ncu.txt
SKIP_BUILD=1 SRC_K="ms_cu_k4:1 ms_cu_k2:1" PROF_SHAPE=flat BUDGET_S=$(( ${CALL_S:-200} - ($(date +%s) - T0) - 6 )) bash scripts/gpu_run.sh src >/dev/null 2>&1
cat $O/ncu.txt
cp $O/src_*.csv.gz $RO/ 2>/dev/null
el "end"
