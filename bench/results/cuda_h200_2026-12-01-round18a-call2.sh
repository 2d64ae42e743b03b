#!/bin/bash
# Round 18A, device call 2: pick the fastest of EC / ECF / ECFT at B=64 (one run each beside D and ECB), then all CUDA
# tests and memcheck + racecheck on it, then the A/B (D against it) and the stamps of ECS.
set -u
R=.devcarry/r18a; B=$R/bin
T0=$(date +%s)
left() { echo $(( ${TOTAL_S:-245} - ($(date +%s) - T0) )); }
bench() { local v=$1; shift; timeout 40 $B/$v/ms_bench_cuda "$@" 2>&1 | grep -v '^#'; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/machine.txt
for v in D EC ECF ECFT ECB; do echo "== select $v ($(date -u +%H:%M:%S))"; bench $v --setting full --vocab 151936 --batch 64 --shape both --reps 3 --no-baseline; done | tee $OUT/select.txt
V=$(awk '/^== select/{v=$3} $1=="full"{s[v]+=$5; n[v]++} END{b="";m=1e9; for (k in s) if (k!="D" && k!="ECB" && s[k]/n[k]<m){m=s[k]/n[k]; b=k}; print b}' $OUT/select.txt)
[ -n "$V" ] || V=EC
echo "chosen: $V" | tee -a $OUT/select.txt
AB_BIN=$B AB_VARIANTS="D $V" AB_STEPS="tests:$V san:$V" BUDGET_S=$(( $(left) - 45 )) bash scripts/gpu_run.sh ab 2>&1 | grep -v "carried binaries" | tail -5
for i in 1 2; do for v in D $V; do
  [ $(left) -gt 12 ] || break
  echo "== bench full $v run $i ($(date -u +%H:%M:%S))"
  bench $v --setting full --vocab 151936 --batch 52,64,128,256 --shape both --reps 3 $([ $i = 1 ] || echo --no-baseline)
done; done | tee $OUT/bench.txt
for v in D $V; do [ $(left) -gt 8 ] || break; echo "== bench bf16 $v"; bench $v --setting full --vocab 151936 --batch 64,128 --shape both --reps 3 --no-baseline --dtype bf16; done | tee -a $OUT/bench.txt
for v in D $V; do [ $(left) -gt 8 ] || break; echo "== bench top-p $v"; bench $v --setting top-p --vocab 151936 --batch 64,256 --shape both --reps 3 --no-baseline; done | tee -a $OUT/bench.txt
for sh in flat peaked; do [ $(left) -gt 5 ] || break; echo "== stamps ECS $sh"; MS_BENCH_STAMPS=1 bench ECS --setting full --vocab 151936 --batch 64 --shape $sh --reps 3 --no-baseline; done | tee $OUT/stamps.txt
echo "call2 done in $(( $(date +%s) - T0 )) s"
