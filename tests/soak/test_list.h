/* tests/soak/test_list.h: the soak runner's registry (issue 7). */
MS_TEST_ENTRY(soak_model_rich_spec)
MS_TEST_ENTRY(soak_model_rich_spec_threads)
MS_TEST_ENTRY(soak_model_vocab_none)
