#!/bin/bash
# Twenty-seventh session's default call. D = the session's start (main 3666153's default, .devcarry/s27/F), F = the new
# default as committed (9e1c0a7): round 35C's MS_CU_K4_IDSCAN=1 and round 35A's MS_CU_OR_TKGATE=4 (=2's bookkeeping in the
# ring-less K2or only; the ring's K2or, which 2-byte one-read steps take, as D's). check:F runs all CUDA tests, memcheck
# and racecheck on F's own binaries; then D and F side by side, alternating (three runs each, D first): the full setting
# fp32 B=1, 16 and the one-read steps 28..128 both shapes; bf16 B=1 / 64 (the ring's K2or at B=64: D's code); V=262144
# B=1 / 64; top-p alone B=1 / 64.
B=.devcarry/fin27d
mkdir -p $OUT
T0=$(date +%s)
DESC="D=3666153 session start;F=new default 9e1c0a7 (K4_IDSCAN=1, OR_TKGATE=4)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:F" BUDGET_S=185 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
mv $OUT/tests.log $OUT/tests_f.log
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D F" AB_B=1,16,28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="D F" AB_B_DT=1,64 AB_N_DT=3 AB_STEPS="ab ab:bf16" BUDGET_S=150 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench_main.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D F" AB_B=1,64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_tp.txt
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D F" AB_B=1,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=35 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_262.txt
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'tests_*.log' ! -name 'bench_*.txt' ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
