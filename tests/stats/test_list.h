/* test_list.h of the stats runner (tests/stats). */
MS_TEST_ENTRY(stats_chi_square_calibration)
MS_TEST_ENTRY(stats_masked_never_drawn_and_chi_square)
