#!/bin/bash
# Twenty-seventh session's order call, after the final call: M (the merged tree with K4_IDSCAN=1 and OR_TKGATE=2) first,
# then D (main 3666153's default), then X3 (M with round 35A's OR_TKGATE=3: K2or's loop in two copies, the first without
# the cut's per-step work until the block's stage holds k' tokens; not run in its round), alternating, three runs each:
# the full setting fp32 both shapes at B=1, 16 and the one-read steps 28..128; bf16 B=1 / 64; top-p alone B=64.
B=.devcarry/fin27c
mkdir -p $OUT
T0=$(date +%s)
DESC="D=3666153 session start;M=merged tree with K4_IDSCAN=1 and OR_TKGATE=2;X3=M with OR_TKGATE=3"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M D X3" AB_B=1,16,28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="M D X3" AB_B_DT=1,64 AB_N_DT=3 AB_STEPS="ab ab:bf16" BUDGET_S=150 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench_main.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M D X3" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_tp.txt
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'bench_*.txt' -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
