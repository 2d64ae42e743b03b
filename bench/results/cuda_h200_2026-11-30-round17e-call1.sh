# Round 17E, call 1 (22:53-22:56 UTC, 2026-11-30; the device tool's `run`, carry [".devcarry/r17e"], timeout 245 s, wall 157.4 s).
# Ran in /work/main's working tree (main c15d894); binaries built in /work/wt-e (branch r17e at 4fc82bc) and the lead's MG (D).
export AB_BIN=.devcarry/r17e AB_DESC="D=main c15d894 (lead's MG build);R=4fc82bc -DMS_CU_K4_RANKTRIM;T=4fc82bc -DMS_CU_K4_TSEL_OR;RS=R + -DMS_CU_STAMPS"; date -u
AB_STEPS="tests:R" BUDGET_S=140 bash scripts/gpu_run.sh ab > /dev/null 2>&1 & sleep 4
AB_STEPS="san:R" BUDGET_S=135 bash scripts/gpu_run.sh ab > /dev/null 2>&1; wait; date -u; cat $OUT/tests.log $OUT/san.log | grep -E "^not ok|differ [1-9]|SUMMARY|exit" ; date -u
STAMPS_B=64 AB_VARIANTS="D R T" AB_B=52,64,128,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab stamps:RS" BUDGET_S=60 bash scripts/gpu_run.sh ab > /dev/null 2>&1; date -u
AB_VARIANTS="D R" AB_B=52,64,128,256 AB_N=1 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=33 OUT=$OUT/tp bash scripts/gpu_run.sh ab > /dev/null 2>&1; date -u
