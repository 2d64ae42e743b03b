#!/usr/bin/env bash
# round 16B, call 2: F (-DMS_CU_K2_TAIL -DMS_CU_K4_WARM -DMS_CU_K4_PF=6) against D (main 4caf94d), with G (F at PF=4)
# and H (F without the warm-up) for attribution: ab B=1,4,16,64 full and top-p, both shapes, two alternating runs;
# the chain and the minchunk sweep on F; stamps of AS and FS at B=1; all CUDA tests on F; memcheck and racecheck on F.
set -uo pipefail
C=.devcarry/r16b
RO=${OUT:-/tmp/ro}; mkdir -p $RO
O=/tmp/o2; mkdir -p $O
T0=$(date +%s)
el() { echo "== $* (t=$(( $(date +%s) - T0 )) s, $(date -u +%H:%M:%S))"; }
export OUT=$O
DESC="D=main 4caf94d;F=r16b -DMS_CU_K2_TAIL -DMS_CU_K4_WARM -DMS_CU_K4_PF=6;G=F at -DMS_CU_K4_PF=4;H=-DMS_CU_K2_TAIL -DMS_CU_K4_PF=6 (no warm-up);AS=r16b default -DMS_CU_STAMPS;FS=F -DMS_CU_STAMPS"
el "ab D F G H"
AB_BIN=$C AB_VARIANTS="D F G H" AB_B=1,4,16,64 AB_N=2 AB_SETTINGS=full,top-p AB_STEPS="ab" AB_DESC="$DESC" BUDGET_S=120 bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/build.log $O/bench.txt
el "chain on F (flat, full, B=1,4)"
timeout 30 build-gpuF/ms_bench_cuda --setting full --vocab 151936 --batch 1,4 --shape flat --reps 3 --no-baseline --chain 2>&1 | grep -v "^#"
for mc in 2048 4096; do
  el "minchunk $mc on F, full, B=1,2,4"
  MS_BENCH_MINCHUNK=$mc timeout 30 build-gpuF/ms_bench_cuda --setting full --vocab 151936 --batch 1,2,4 --shape both --reps 3 --no-baseline 2>&1 | grep -v "^#"
done
for v in AS FS; do
  el "stamps $v B=1 flat, peaked"
  for shape in flat peaked; do
    MS_BENCH_STAMPS=1 timeout 30 build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch 1 --shape $shape --reps 3 --no-baseline 2>&1 | grep -v "^#"
  done
done
el "tests and sanitizers on F"
AB_BIN=$C AB_STEPS="tests:F san:F" AB_DESC="$DESC" BUDGET_S=$(( ${CALL_S:-280} - ($(date +%s) - T0) - 3 )) bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/tests.log $O/san.log
el "end"
