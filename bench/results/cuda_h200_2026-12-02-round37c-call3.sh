#!/bin/bash
# Round 37C part 2, call 3 (carried as .devcarry/r37c/call3.sh; run from the repository root with $OUT set; carry .devcarry/r37c).
# D = main b20f0da's default (.devcarry/s28fin/M's bench); N = r37c built with -DMS_CU_OR_SMALLB=22, the rule gated on
# every resident request being a lite one-read row (orx_slots == 0), filters on and aligned rows; O = r37c's tests built
# without the switch (the default), for the new test cuda_identity_smallb. Tests first, then the A/B runs.
B=.devcarry/r37c
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main default (s28fin/M);N=r37c -DMS_CU_OR_SMALLB=22 gated on every resident request lite"
run() { # name budget, then env
  local n=$1 b=$2; shift 2
  env AB_BIN=$B "AB_DESC=$DESC" BUDGET_S=$b "$@" bash scripts/gpu_run.sh ab > $OUT/run_$n.log 2>&1
  [ -f $OUT/bench.txt ] && mv $OUT/bench.txt $OUT/bench_$n.txt
  echo "$n: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
}
run tests 55 AB_STEPS=tests:N AB_TESTS="cuda_identity_smallb cuda_identity_oneread cuda_identity_lite cuda_graph_replay_equals_eager cuda_stats_between_steps"
{ echo "== tests on O (r37c default build, no switch) ($(date -u +%H:%M:%S))"; s=$(date +%s)
  timeout 25 $B/O/ms_cuda_tests cuda_identity_smallb 2>&1 | tail -8; echo "   (cuda_identity_smallb: $(( $(date +%s) - s )) s)"; } | tee -a $OUT/tests.log
echo "testsO: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
run main 30 AB_STEPS=ab AB_N=2 AB_VARIANTS="D N" AB_B=22,24,27 AB_SETTINGS=full
run tp 25 AB_STEPS=ab AB_N=2 AB_VARIANTS="D N" AB_B=24,27 AB_SETTINGS=top-p
run bf16 25 AB_STEPS=ab:bf16 AB_N_DT=2 AB_VARIANTS_DT="D N" AB_B_DT=24 AB_SETTINGS=full
echo "all: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
rm -rf build-gpu*
cd $OUT && tar czf /tmp/logs.tgz run_*.log build.log machine.txt 2>/dev/null
rm -f run_*.log build.log; mv /tmp/logs.tgz .; ls -la
