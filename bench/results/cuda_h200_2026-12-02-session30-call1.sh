#!/bin/bash
# Thirtieth session, lead's call 1 (carried as .devcarry/s30/call1.sh; carry .devcarry/s30 and third_party/flashinfer).
# (1) FlashInfer 0.7.4 live beside main 545d677's default (FI = its bench built with FlashInfer's headers):
#     scripts/gpu_flashinfer.sh with FI_BIN, the ANCHORS sizes, both settings.
# (2) Round 37C's unmeasured cells at B=22: M = 545d677's default (SMALLB 24: B=22 one-read), T = M's binary with
#     MS_BENCH_ORMIN=1000000000 (the host rule off, two-pass at B=22: the g=22 default's launches there).
#     V=262144 B=22 (M T, three runs), V=151936 B=22 in the reverse order (T M, three runs), top-p alone B=22 (M T, two).
mkdir -p $OUT; T0=$(date +%s)
echo "start $(date -u +%H:%M:%S)" > $OUT/times.txt
FI_BIN=.devcarry/s30/FI/ms_bench_cuda BENCH_T=100 bash scripts/gpu_flashinfer.sh > $OUT/fi_run.log 2>&1
echo "fi: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
D="M=545d677 default (SMALLB 24);T=M with MS_BENCH_ORMIN=1000000000 (two-pass at B=22)"
AB_BIN=.devcarry/s30 AB_DESC="$D" AB_ALIAS="T=M" AB_ENV="T=MS_BENCH_ORMIN=1000000000" AB_VARIANTS="M T" AB_V=262144 AB_B=22 AB_N=3 \
  AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=60 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_262.txt
AB_BIN=.devcarry/s30 AB_DESC="$D" AB_ALIAS="T=M" AB_ENV="T=MS_BENCH_ORMIN=1000000000" AB_VARIANTS="T M" AB_B=22 AB_N=3 \
  AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=60 bash scripts/gpu_run.sh ab > $OUT/abrev_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_rev.txt
AB_BIN=.devcarry/s30 AB_DESC="$D" AB_ALIAS="T=M" AB_ENV="T=MS_BENCH_ORMIN=1000000000" AB_VARIANTS="M T" AB_B=22 AB_N=2 \
  AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=60 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_tp.txt
echo "all: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
ls -la $OUT
