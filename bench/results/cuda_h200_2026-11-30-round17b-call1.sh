# Round 17B, call 1 (22:07-22:10 UTC, 2026-11-30; the device tool's `run`, carry [".devcarry/r17b"], timeout 290 s)
export AB_BIN=.devcarry/r17b AB_DESC="D=main d4181c2;E=49c2655 -DMS_CU_K4_EARLYLD;F=49c2655 -DMS_CU_K4_EARLYLD -DMS_CU_K4_LIST1 -DMS_CU_K4_ORBIN -DMS_CU_K4_TSEL;S=49c2655 -DMS_CU_STAMPS;SF=F + -DMS_CU_STAMPS"; date -u
STAMPS_B=1,16,64 AB_VARIANTS="D E F" AB_B=1,4,16,64 AB_N=2 AB_SETTINGS=full AB_STEPS="stamps:S stamps:SF ab" BUDGET_S=115 bash scripts/gpu_run.sh ab
AB_STEPS="tests:F" BUDGET_S=130 bash scripts/gpu_run.sh ab > /dev/null 2>&1 & sleep 4
AB_STEPS="san:F" BUDGET_S=125 bash scripts/gpu_run.sh ab > /dev/null 2>&1; wait; cat $OUT/tests.log $OUT/san.log; date -u
