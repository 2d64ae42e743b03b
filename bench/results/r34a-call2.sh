export AB_BIN=.devcarry/r34a AB_DESC="D=main 35bf75e default (.devcarry/s25/D);N2=r34a 365eb4f -DMS_CU_WARM_CHUNK=2048 (fp32 warm-up steps: chunks >= 2048);N215=N2 with MS_CU_WARMCHUNK=1536;DB15=D with MS_BENCH_MINCHUNK=1536 (every dtype and B)" AB_ALIAS="N215=N2;DB15=D" AB_ENV="N215=MS_CU_WARMCHUNK=1536;DB15=MS_BENCH_MINCHUNK=1536"
AB_STEPS="ab" AB_VARIANTS="D N2 N215" AB_B=1,2,4,8 AB_N=3 AB_SETTINGS=full BUDGET_S=40 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N2" AB_V=262144 AB_B=1,2 AB_N=2 AB_SETTINGS=full BUDGET_S=30 bash scripts/gpu_run.sh ab
AB_STEPS="ab:bf16" AB_VARIANTS_DT="D N2 DB15" AB_B_DT=1 AB_N_DT=2 AB_SETTINGS=full BUDGET_S=30 bash scripts/gpu_run.sh ab
AB_STEPS="ab" AB_VARIANTS="D N2" AB_B=1 AB_N=2 AB_SETTINGS=top-p BUDGET_S=30 bash scripts/gpu_run.sh ab
AB_STEPS="tests:N2" AB_TESTS="cuda_identity_lite cuda_identity_k3_giveup cuda_identity_top_p_alone cuda_bad_inputs cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps" BUDGET_S=45 bash scripts/gpu_run.sh ab
