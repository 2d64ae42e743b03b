#!/bin/bash
# round 30B's second device call: top-p alone on sharper peaked rows (the bench's MS_BENCH_PEAKS=3 and =2: the peaked
# values times 3 / 2), DB (r30b's default build, whose bench has the knob; its kernels are main's) against N
# (-DMS_CU_K2_HQ0=1), alternating; then ncu kernel times of top-p peaked B=64 (PEAKS=3: DB, N; the bench's own rows: D, N).
set -u
cd "$(dirname "$0")/../.." 2>/dev/null || true
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-80}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r30b AB_DESC="D=main f0b09f1 default (s22/D);N=-DMS_CU_K2_HQ0=1 (r30b c673938);DB=r30b c673938 default build (bench with MS_BENCH_PEAKS; main's kernels);D3=DB with MS_BENCH_PEAKS=3;N3=N with MS_BENCH_PEAKS=3;D2=DB with MS_BENCH_PEAKS=2;N2=N with MS_BENCH_PEAKS=2"
export AB_ALIAS="D3=DB;N3=N;D2=DB;N2=N" AB_ENV="D3=MS_BENCH_PEAKS=3;N3=MS_BENCH_PEAKS=3;D2=MS_BENCH_PEAKS=2;N2=MS_BENCH_PEAKS=2"
AB_VARIANTS="D3 N3" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=top-p AB_SHAPE=peaked AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab > "$OUT/run.log" 2>&1
AB_VARIANTS="D2 N2" AB_B=16,64,256 AB_N=2 AB_SETTINGS=top-p AB_SHAPE=peaked AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
echo "bench done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
{
for vp in DB:3 N:3 D:1 N:1; do
  v=${vp%%:*}; p=${vp##*:}
  [ $(left) -gt 14 ] || break
  echo "== ncu top-p peaked B=64 $v MS_BENCH_PEAKS=$p"
  MS_BENCH_PEAKS=$p timeout 15 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 --metrics gpu__time_duration.sum \
    build-gpu$v/ms_bench_cuda --batch 64 --vocab 151936 --shape peaked --setting top-p --no-baseline --reps 3 >/tmp/ncu.log 2>&1
  grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $2, $(NF)}'
done
} > "$OUT/ncu_times.txt" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
rm -f "$OUT/build.log"
