#!/bin/bash
# Twenty-eighth session's final call. D = the session's new default f3dce4e (round 35C's IDSCAN=2 on; the bench of
# .devcarry/s28/X2, built from 954cb13 with -DMS_CU_K4_IDSCAN=2, whose kernels are f3dce4e's). M = the merged tree
# (rounds 36A and 36B merged) with round 36A's MS_CU_K4_ORPRE=2 as its default (the one-read K4's stats in one 16-byte
# load after the wait, candidates only below cand_n); round 36B's switches off. check:M runs all CUDA tests, memcheck and
# racecheck on M; then the full setting side by side, alternating, three runs each, D first, then again M first; bf16;
# top-p alone; V=262144.
B=.devcarry/s28fin
mkdir -p $OUT
T0=$(date +%s)
DESC="D=f3dce4e default (IDSCAN=2);M=merged tree with K4_ORPRE=2"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=185 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
mv $OUT/tests.log $OUT/tests_m.log
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,2,16,28,32,64,96,128 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="D M" AB_B_DT=1,64 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=80 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_main.txt
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M D" AB_B=28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=50 bash scripts/gpu_run.sh ab > $OUT/ab2_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_order.txt
echo "order: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_tp.txt
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D M" AB_B=1,64 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_262.txt
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'tests_*.log' ! -name 'bench_*.txt' ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
