#!/bin/bash
# Twenty-eighth session's first call: X2 = main 954cb13 built with round 35C's -DMS_CU_K4_IDSCAN=2 (the id-rank draw in
# every K4, not only K4w), the twenty-seventh session's last call's candidate. check:X2 runs all CUDA tests, memcheck and
# racecheck on X2; then D = the default (954cb13's: IDSCAN=1, TKGATE=4; .devcarry/fin27d/F's bench) and X2 side by
# side, alternating, three runs each, X2 first (the last call ran F first); bf16 B=1,64; top-p alone B=1,64.
B=.devcarry/s28c1
mkdir -p $OUT
T0=$(date +%s)
DESC="D=954cb13 default (IDSCAN=1, TKGATE=4);X2=954cb13 with K4_IDSCAN=2"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:X2" BUDGET_S=185 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
mv $OUT/tests.log $OUT/tests_x2.log
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="X2 D" AB_B=1,2,16,28,32,64,96,128 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="X2 D" AB_B_DT=1,64 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=170 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench_main.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="X2 D" AB_B=1,64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_tp.txt
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'tests_*.log' ! -name 'bench_*.txt' ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
