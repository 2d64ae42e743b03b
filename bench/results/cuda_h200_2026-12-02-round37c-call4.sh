#!/bin/bash
# Round 37C part 2, call 4 (carried as .devcarry/r37c/call4.sh; run from the repository root with $OUT set; carry .devcarry/r37c).
# Call 3's top-p alone and bf16 steps never ran (their BUDGET_S of 25 left no run: gpu_run.sh starts one only with more
# than 25 s left): those, and the full setting again with N first. D and N as in call3.sh.
B=.devcarry/r37c
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main default (s28fin/M);N=r37c -DMS_CU_OR_SMALLB=22 gated on every resident request lite"
run() { # name budget, then env
  local n=$1 b=$2; shift 2
  env AB_BIN=$B "AB_DESC=$DESC" BUDGET_S=$b "$@" bash scripts/gpu_run.sh ab > $OUT/run_$n.log 2>&1
  [ -f $OUT/bench.txt ] && mv $OUT/bench.txt $OUT/bench_$n.txt
  echo "$n: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
}
run tp 50 AB_STEPS=ab AB_N=2 AB_VARIANTS="D N" AB_B=24,27 AB_SETTINGS=top-p
run bf16 45 AB_STEPS=ab:bf16 AB_N_DT=2 AB_VARIANTS_DT="D N" AB_B_DT=24 AB_SETTINGS=full
run order 45 AB_STEPS=ab AB_N=2 AB_VARIANTS="N D" AB_B=22,24,27 AB_SETTINGS=full
echo "all: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
rm -rf build-gpu*
cd $OUT && tar czf /tmp/logs.tgz run_*.log build.log machine.txt 2>/dev/null
rm -f run_*.log build.log; mv /tmp/logs.tgz .; ls -la
