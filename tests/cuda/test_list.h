/* test_list.h: the CUDA runner's registry (tests/cuda/test_cuda.c). */
MS_TEST_ENTRY(cuda_bad_inputs)
MS_TEST_ENTRY(cuda_graph_replay_equals_eager)
MS_TEST_ENTRY(cuda_identity_many_steps)
MS_TEST_ENTRY(cuda_identity_matrix)
MS_TEST_ENTRY(cuda_identity_lite)
MS_TEST_ENTRY(cuda_identity_top_p_alone)
MS_TEST_ENTRY(cuda_identity_band)
MS_TEST_ENTRY(cuda_identity_lite_bins)
