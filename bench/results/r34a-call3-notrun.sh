# Round 34A, for the lead (not run by the round: its device share was spent): c = 1536 on N2's binaries through the knob.
# All 17 CUDA tests with every resource at c = 1536 (MS_CU_WARMCHUNK is read at each resource's creation), then D / W
# alternating at the cells the round left thin: fp32 V=151936 B=1,2 and V=262144 B=1 (three runs).
export AB_BIN=.devcarry/r34a AB_DESC="D=main 35bf75e default (.devcarry/s25/D);N2=r34a 365eb4f -DMS_CU_WARM_CHUNK=2048;W=N2 with MS_CU_WARMCHUNK=1536" AB_ALIAS="W=N2" AB_ENV="W=MS_CU_WARMCHUNK=1536"
MS_CU_WARMCHUNK=1536 AB_STEPS="tests:N2" BUDGET_S=150 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D W" AB_B=1,2 AB_N=3 AB_SETTINGS=full BUDGET_S=35 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D W" AB_V=262144 AB_B=1 AB_N=3 AB_SETTINGS=full BUDGET_S=35 bash scripts/gpu_run.sh ab
