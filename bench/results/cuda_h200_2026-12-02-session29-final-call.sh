#!/bin/bash
# Twenty-ninth session's final call. D = main b20f0da's default (the bench of .devcarry/s28fin/M, validated in the
# twenty-eighth session's final call). M = the merged tree (rounds 37A, 37B, 37C) with round 37C's MS_CU_OR_SMALLB 22 as
# its default (host only: the one-read path at the two-pass steps of at most 22 chunks a row, B=23..27, in 18 chunks a
# row, while every resident request is lite); rounds 37A's and 37B's switches off. check:M runs all CUDA tests (round
# 37C's new cuda_identity_smallb among them, and in the sanitizers' quick sets), memcheck and racecheck on M; then the
# full setting side by side, alternating, three runs each, D first, then M first at the B it changes; bf16; top-p
# alone (the rule off there); V=262144.
B=.devcarry/s29fin
mkdir -p $OUT
T0=$(date +%s)
DESC="D=b20f0da default;M=merged tree with OR_SMALLB=22 (host only)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=190 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
mv $OUT/tests.log $OUT/tests_m.log
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=16,22,23,24,25,26,27,28 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="D M" AB_B_DT=24,27 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=60 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_main.txt
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M D" AB_B=23,24,25,26,27,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=35 bash scripts/gpu_run.sh ab > $OUT/ab2_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_order.txt
echo "order: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=24,27 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_tp.txt
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D M" AB_B=22,24,27 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=35 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_262.txt
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'tests_*.log' ! -name 'bench_*.txt' ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
