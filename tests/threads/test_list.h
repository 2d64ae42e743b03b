/* tests/threads/test_list.h: the thread-rules runner's registry (issue 7). */
MS_TEST_ENTRY(threads_parallel_resources)
MS_TEST_ENTRY(threads_free_functions_and_create_error)
