#!/bin/bash
# Round 19A's second device call: D against C with the logits warm at the step's start (ms_bench_cuda's round-19A knobs):
# MS_BENCH_SETS=1 (the same logits every step) and MS_BENCH_REWRITE=1 (a device copy writes the logits just before).
set -u
T0=$(date +%s); O=$OUT
export AB_BIN=.devcarry/r19a
export AB_DESC="D=daba039+bench knobs, default build (kernels' SASS = main a267b81's);C=-DMS_CU_LOGITS_EF -DMS_CU_LOGITS_CS"
mkdir -p $O/one $O/rw
OUT=$O/one MS_BENCH_SETS=1 AB_VARIANTS="D C" AB_B=52,64,128 AB_N=2 AB_SETTINGS=full AB_STEPS=ab BUDGET_S=45 bash scripts/gpu_run.sh ab
OUT=$O/rw MS_BENCH_REWRITE=1 AB_VARIANTS="D C" AB_B=52,64,128 AB_N=2 AB_SETTINGS=full AB_STEPS=ab BUDGET_S=45 bash scripts/gpu_run.sh ab
echo "call2: $(( $(date +%s) - T0 )) s"
