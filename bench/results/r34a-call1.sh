export AB_BIN=.devcarry/r34a AB_DESC="D=main 35bf75e default (.devcarry/s25/D);DS=main 35bf75e stamps (.devcarry/s26/DS);DS2=DS with MS_BENCH_MINCHUNK=2048;N=r34a -DMS_CU_WARM_CHUNK=2048 (warm-up steps: chunks >= 2048);N15=N with MS_CU_WARMCHUNK=1536;N30=N with MS_CU_WARMCHUNK=3072" AB_ALIAS="N15=N;N30=N;DS2=DS" AB_ENV="N15=MS_CU_WARMCHUNK=1536;N30=MS_CU_WARMCHUNK=3072;DS2=MS_BENCH_MINCHUNK=2048"
STAMPS_B=1 AB_STEPS="stamps:DS stamps:DS2" BUDGET_S=45 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N N15 N30" AB_B=1,2,4,8 AB_N=3 AB_SETTINGS=full BUDGET_S=50 bash scripts/gpu_run.sh ab
AB_STEPS="ab:bf16" AB_VARIANTS_DT="D N" AB_B_DT=1 AB_N_DT=3 AB_SETTINGS=full BUDGET_S=35 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N" AB_B=1 AB_N=3 AB_SETTINGS=top-p BUDGET_S=40 bash scripts/gpu_run.sh ab
AB_STEPS="tests:N" AB_TESTS="cuda_identity_lite cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_matrix cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps" BUDGET_S=85 bash scripts/gpu_run.sh ab
