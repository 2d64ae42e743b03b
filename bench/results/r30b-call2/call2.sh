#!/bin/bash
# round 30B's second device call: N2 (-DMS_CU_K2_HQ0=2) against D and N on the bench's top-p rows; top-p alone on
# sharper peaked rows (MS_BENCH_PEAKS=3: the peaked values times 3), DB (r30b's default build, whose bench has the knob;
# its kernels' SASS equals D's) against N and N2, alternating; tests on N2; ncu K2 times at PEAKS=3 B=64 if time is left.
set -u
cd "$(dirname "$0")/../.." 2>/dev/null || true
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-100}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r30b AB_DESC="D=main f0b09f1 default (s22/D);N=-DMS_CU_K2_HQ0=1 (r30b c673938);N2=-DMS_CU_K2_HQ0=2 (r30b d57b04b);DB=r30b c673938 default build (bench with MS_BENCH_PEAKS; main's kernels);D3=DB with MS_BENCH_PEAKS=3;N3=N with MS_BENCH_PEAKS=3;N23=N2 with MS_BENCH_PEAKS=3"
export AB_ALIAS="D3=DB;N3=N;N23=N2" AB_ENV="D3=MS_BENCH_PEAKS=3;N3=MS_BENCH_PEAKS=3;N23=MS_BENCH_PEAKS=3"
AB_VARIANTS="D N N2" AB_B=16,64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab > "$OUT/run.log" 2>&1
AB_VARIANTS="D3 N3 N23" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=top-p AB_SHAPE=peaked AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
echo "bench done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
AB_TESTS="cuda_identity_top_p_alone cuda_identity_band cuda_identity_band_edges cuda_identity_oneread cuda_identity_k3_giveup cuda_graph_replay_equals_eager" \
  AB_STEPS="tests:N2" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
{
for vp in DB N2; do
  [ $(left) -gt 14 ] || break
  echo "== ncu top-p peaked B=64 $vp MS_BENCH_PEAKS=3"
  MS_BENCH_PEAKS=3 timeout 13 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 --metrics gpu__time_duration.sum \
    build-gpu$vp/ms_bench_cuda --batch 64 --vocab 151936 --shape peaked --setting top-p --no-baseline --reps 3 >/tmp/ncu.log 2>&1
  grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $2, $(NF)}'
done
} > "$OUT/ncu_times.txt" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
rm -f "$OUT/build.log"
