/* tests/alloc/test_list.h: the allocation runner's registry (issue 7). */
MS_TEST_ENTRY(allocation_counter_counts)
MS_TEST_ENTRY(no_allocation_after_create_cpu)
MS_TEST_ENTRY(no_allocation_after_create_cpu_ref)
MS_TEST_ENTRY(no_allocation_one_row_over_pool)
