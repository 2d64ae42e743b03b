#!/bin/bash
# Twenty-fifth session's last call: M2 = M with a host rule (TAIL2 off in the steps that launch K4L / K4R, B > SMs: the
# big-B call found peaked rows 0.2-0.7 us slower there); its kernels' SASS equals M's (cuobjdump, cmp). Every CUDA test
# on M2's runner, then D, M and M2 at B=128 (control: TAIL2 on in M2 too), 176, 200 and 256, fp32 V=151936, both shapes,
# once in each order.
B=.devcarry/fin25
mkdir -p $OUT
DESC="D=1821d95 session start;M=merged default, TAIL2 at every one-read B;M2=M with TAIL2 only where K4 is one kernel"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:M2" BUDGET_S=130 bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M M2" AB_B=128,176,200,256 AB_N=1 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/ab1_run.log 2>&1
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M2 M D" AB_B=128,176,200,256 AB_N=1 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/ab2_run.log 2>&1
cd $OUT && ls -la
