#!/bin/bash
# Twenty-fourth session's third call: check:M again (all CUDA tests, memcheck and racecheck side by side) with the
# test binary rebuilt after cuda_identity_band_edges' path checks were made timing-tolerant under the sanitizers (the
# library is the final call's), then D and M at B=176 / 256 (the final call's ab step ran out before them).
B=.devcarry/fin24
mkdir -p $OUT
T0=$(date +%s)
DESC="D=30dd785 session start;M=merged default (round 32C's DCUT2 and WSEL on; 32A and 32B off)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=185 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=176,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=70 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
