# Round 35C, a prepared call (NOT RUN): validation of =1 (-DMS_CU_K4_IDSCAN=1: ms_cu_k4w alone) before it goes on.
# Carry [".devcarry/r35c"] holding D (main 3666153's bench, .devcarry/s27/F) and N1 (build-n1: 384e51f's source, whose code is
# 3e94ed7's, with -DMS_CU_K4_IDSCAN=1; bench + tests). ~150 s of device time.
export AB_BIN=.devcarry/r35c AB_DESC="D=main 3666153 default (.devcarry/s27/F);N1=r35c -DMS_CU_K4_IDSCAN=1 (the id-rank draw in ms_cu_k4w alone)"
AB_STEPS="check:N1" BUDGET_S=150 bash scripts/gpu_run.sh ab > $OUT/call3.log 2>&1
AB_STEPS="ab" AB_VARIANTS="D N1" AB_B=1,2 AB_N=3 AB_SETTINGS=full BUDGET_S=45 bash scripts/gpu_run.sh ab >> $OUT/call3.log 2>&1
AB_V=262144 AB_STEPS="ab" AB_VARIANTS="D N1" AB_B=1 AB_N=3 AB_SETTINGS=full BUDGET_S=40 bash scripts/gpu_run.sh ab >> $OUT/call3.log 2>&1
