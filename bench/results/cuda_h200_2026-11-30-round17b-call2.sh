# Round 17B, call 2 (22:18-22:22 UTC, 2026-11-30; the device tool's `run`, carry [".devcarry/r17b"], timeout 280 s).
# Ran in /work/main's working tree at the time (its scripts/gpu_run.sh's SANSET then also named cuda_stats_between_steps,
# a test these binaries do not have).
export AB_BIN=.devcarry/r17b AB_DESC="D=main d4181c2;G=e352ed4 -DMS_CU_K4_EARLYLD -DMS_CU_K4_LIST1 -DMS_CU_K4_TSEL;G6=G + -DMS_CU_K4_PF=6;G6W=G6 + -DMS_CU_K4_WARM_OR;SG6W=G6W + -DMS_CU_STAMPS"; date -u
STAMPS_B=1,16,64 AB_VARIANTS="D G G6 G6W" AB_B=1,4,16,64,128,256 AB_N=2 AB_SETTINGS=full,top-p AB_B_DT=64 AB_VARIANTS_DT="D G6 G6W" AB_STEPS="stamps:SG6W ab ab:bf16" BUDGET_S=110 bash scripts/gpu_run.sh ab; date -u
AB_STEPS="tests:G6" BUDGET_S=150 bash scripts/gpu_run.sh ab > /dev/null 2>&1 & sleep 4
AB_STEPS="san:G6" BUDGET_S=140 bash scripts/gpu_run.sh ab > /dev/null 2>&1; wait; cat $OUT/tests.log $OUT/san.log; date -u
