#!/bin/bash
# Fifteenth session, after the final call: the shared-memory carveout hint on the one-read steps' kernels alone
# (CO: -DMS_CU_CARVE_OR=100; CO3: also K3) against M, the merged default (validated in the final call). The
# device code of all three is the same (a host-side hint). Then the tests of CO and CO3.
B=.devcarry/c15
mkdir -p $OUT
T0=$(date +%s)
AB_BIN=$B AB_DESC="M=merged default 70f35c2;CO=M + carveout 100 on K1<true>, K2or, K4<true>, K4L, K4R;CO3=CO + K3" \
AB_VARIANTS="M CO CO3" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=full,top-p AB_STEPS="ab" BUDGET_S=90 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
S0=$(date +%s)
for V in CO CO3; do [ $V = CO3 ] && [ $(( $(date +%s) - S0 )) -gt 95 ] && { echo "CO3: no time" >> $OUT/tests.log; break; }; T=$B/$V/ms_cuda_tests; for t in $($T --list); do s=$(date +%s); timeout 60 $T $t 2>&1 | tail -3; echo "   ($V $t: $(( $(date +%s) - s )) s)"; done >> $OUT/tests.log 2>&1; done
echo "tests ok: $(grep -c '^ok ' $OUT/tests.log)"
