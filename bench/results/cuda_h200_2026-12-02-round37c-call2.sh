#!/bin/bash
# Round 37C, call 2 (carried as .devcarry/r37c/call2.sh; run from the repository root with $OUT set; carry .devcarry/r37c).
# D = main b20f0da's default (.devcarry/s28fin/M's bench); N = r37c built with -DMS_CU_OR_SMALLB=22 (the one-read path at
# MS_CU_OR_GMAX=18 chunks a row in two-pass steps whose ms_cu_grid G <= 22 and whose rows hold 18 chunks of 8192 tokens:
# B=23..27 at V=151936 / 262144); G18 = D with MS_BENCH_ORMIN=1024,MS_BENCH_ORG=18 (the path forced at 18 chunks a row at
# every B: N's launch where N's rule holds, and the edge below it); T = D with MS_BENCH_ORMIN=1000000000 (the two-pass
# path at every B: what the default's B=28/32 one-read steps gain or lose). Tests on N first, then the A/B runs.
B=.devcarry/r37c
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main default (s28fin/M);N=r37c -DMS_CU_OR_SMALLB=22;G18=D with ORMIN=1024 ORG=18;T=D with ORMIN=1e9 (two-pass always)"
ENVS="G18=MS_BENCH_ORMIN=1024,MS_BENCH_ORG=18;T=MS_BENCH_ORMIN=1000000000"
run() { # name budget, then env
  local n=$1 b=$2; shift 2
  env AB_BIN=$B "AB_ALIAS=G18=D;T=D" "AB_DESC=$DESC" "AB_ENV=$ENVS" BUDGET_S=$b "$@" bash scripts/gpu_run.sh ab > $OUT/run_$n.log 2>&1
  [ -f $OUT/bench.txt ] && mv $OUT/bench.txt $OUT/bench_$n.txt
  echo "$n: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
}
run tests 85 AB_STEPS=tests:N AB_TESTS="cuda_oneread_model cuda_identity_oneread cuda_identity_lite cuda_identity_matrix cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_big_chunks"
run main 50 AB_STEPS=ab AB_N=3 AB_VARIANTS="D N G18 T" AB_B=16,20,22,23,24,25,26,27,28,32 AB_SETTINGS=full
run order 35 AB_STEPS=ab AB_N=2 AB_VARIANTS="N D" AB_B=22,23,24,27,28 AB_SETTINGS=full
run bf16 35 AB_STEPS=ab:bf16 AB_N_DT=2 AB_VARIANTS_DT="D N" AB_B_DT=22,23,24,27,28 AB_SETTINGS=full
run tp 40 AB_STEPS=ab AB_N=2 AB_VARIANTS="D N T" AB_B=22,24,27,28,32 AB_SETTINGS=top-p
run 262 35 AB_STEPS=ab AB_N=2 AB_V=262144 AB_VARIANTS="D N" AB_B=16,20,22,23,24,27,28 AB_SETTINGS=full
echo "all: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
rm -rf build-gpu*
cd $OUT && cat bench_order.txt bench_bf16.txt bench_tp.txt bench_262.txt > bench_more.txt 2>/dev/null
tar czf /tmp/logs.tgz run_*.log build.log machine.txt bench_order.txt bench_bf16.txt bench_tp.txt bench_262.txt 2>/dev/null
rm -f run_*.log build.log bench_order.txt bench_bf16.txt bench_tp.txt bench_262.txt; mv /tmp/logs.tgz .; ls -la
