/* test_list.h: the registry. One MS_TEST_ENTRY per TEST(), grouped by file. */
/* test_math.c */
MS_TEST_ENTRY(philox_known_answers)
MS_TEST_ENTRY(exp_accuracy_against_expl)
MS_TEST_ENTRY(exp_never_subnormal)
MS_TEST_ENTRY(f16_bf16_conversion_exact)
MS_TEST_ENTRY(wide_arithmetic)
MS_TEST_ENTRY(blake2b_rfc7693)
MS_TEST_ENTRY(derive_seed_vectors)
/* test_config.c */
MS_TEST_ENTRY(config_defaults_match_seed)
MS_TEST_ENTRY(config_absolute_rules_refused)
MS_TEST_ENTRY(config_absolute_rules_accepted)
MS_TEST_ENTRY(config_capability_rules)
MS_TEST_ENTRY(spec_rules)
MS_TEST_ENTRY(errors_table)
/* test_resource.c */
