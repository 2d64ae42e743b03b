#!/bin/bash
# Twentieth session's final call. D0 = the session's start (the binaries validated last session, built from 749eeac;
# their kernels' SASS = main 3221ccc's default), M = the merged default (round 28B's one-wave rule for chunks up to 40960
# tokens, the segment walk for 64k-token chunks; rounds 28A / 28C off), MS = M + MS_CU_STAMPS (bench only). Validation of
# M first (gpu_run.sh's check:M: every test, memcheck and racecheck side by side), then the benches alone.
B=.devcarry/fin20
mkdir -p $OUT
T0=$(date +%s)
DESC="D0=749eeac session start (main 3221ccc SASS);M=merged default (28B one-wave rule <= 40960-token chunks, SEGW_CHUNK 65536);MS=M + MS_CU_STAMPS"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=230 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D0 M" AB_B=${FIN_B:-1,16,32,64,106,112,128,256} AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D0 M" AB_B_DT=1,64,112,128,256 AB_N_DT=1 \
STAMPS_B=1,64 AB_STEPS="ab ab:bf16 stamps:MS" BUDGET_S=${AB_BUDGET:-130} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D0 M" AB_B=1,29,64,70 AB_N=1 AB_SETTINGS=full,top-p AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
echo "ab262: $(( $(date +%s) - T0 )) s"
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && cp fi/bench_fi.md fi.md 2>/dev/null
tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log ! -name stamps.txt ! -name fi.md -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
