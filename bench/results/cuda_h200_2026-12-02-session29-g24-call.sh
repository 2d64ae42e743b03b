#!/bin/bash
# Twenty-ninth session's last call (round 37C's Left (b)): N = the committed default (54f50f6's tree) built with
# -DMS_CU_OR_SMALLB=24 instead of 22: the rule then also takes B=22 (ms_cu_grid's 24 chunks a row on 132 SMs) at
# V=151936 and 262144; D = the committed default (SMALLB 22, .devcarry/s29fin/M). check:N runs all CUDA tests, memcheck
# and racecheck on N; then A/B at B=21 (a control), 22 (the change), 23 (both take the rule) in both orders, bf16, top-p
# alone (the rule off there), V=262144; and F = D's bench with the path forced at 18 chunks (MS_BENCH_ORMIN=1024,
# MS_BENCH_ORG=18) at B=20 and 21, for the record.
B=.devcarry/s29g
mkdir -p $OUT
T0=$(date +%s)
DESC="D=54f50f6 default (SMALLB 22);N=SMALLB 24;F=D forced one-read G=18"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:N" BUDGET_S=190 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
mv $OUT/tests.log $OUT/tests_n.log
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=21,22,23 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="D N" AB_B_DT=22 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_main.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="N D" AB_B=22 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=25 bash scripts/gpu_run.sh ab > $OUT/ab2_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_order.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=22 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=25 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_tp.txt
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D N" AB_B=21,22 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=25 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_262.txt
AB_BIN=$B AB_DESC="$DESC" AB_ALIAS="F=D" AB_ENV="F=MS_BENCH_ORMIN=1024,MS_BENCH_ORG=18" AB_VARIANTS="D F" AB_B=20,21 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=25 bash scripts/gpu_run.sh ab > $OUT/abf_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_forced.txt
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'tests_*.log' ! -name 'bench_*.txt' ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
