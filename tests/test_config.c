/* test_config.c: defaults and every validation rule of SPEC section 1, accepted and refused. */
#include <math.h>

#include "ms_test.h"
#include "msampler.h"

TEST(config_defaults_match_seed) {
    ms_req_config c = ms_req_config_default();
    CHECK(c.temperature == 0.6f);
    CHECK_EQ_I64(c.top_k, 0);
    CHECK(c.top_p == 1.0f);
    CHECK(!c.ignore_eos);
    CHECK(c.repetition_penalty == 1.0f);
    CHECK(c.min_p == 0.0f);
    CHECK_EQ_I64(c.repetition_window, 0);
    CHECK_EQ_I64(c.min_tokens, 0);
    CHECK(!c.top_p_first);
    CHECK_EQ_I64(c.top_p_min_keep, 1);
    CHECK(c.penalize_prompt);
    CHECK_EQ_U64(c.seed, 0);
    ms_spec s = ms_spec_default();
    CHECK(s.enable_repetition_penalty);
    CHECK(!s.enable_min_p);
    CHECK_EQ_I64(s.max_repetition_window, 0);
    CHECK_EQ_I64(s.n_min_tokens_stop_ids, 0);
    CHECK(!s.enable_top_p_first);
    CHECK_EQ_I64(s.vocab_size, 0);
    ms_step st = ms_step_default();
    CHECK(st.apply_penalty && st.apply_filters && st.kept_rids == NULL);
}

typedef struct {
    const char *what;
    void (*set)(ms_req_config *);
    int code;
    const char *msg; /* a piece the message must contain */
} bad_case;

#define SETTER(name, body) static void name(ms_req_config *c) { body; }
SETTER(t_neg, c->temperature = -0.1f)
SETTER(t_nan, c->temperature = NAN)
SETTER(t_inf, c->temperature = INFINITY)
SETTER(p_zero, c->top_p = 0.0f)
SETTER(p_big, c->top_p = 1.0001f)
SETTER(p_nan, c->top_p = NAN)
SETTER(p_neg, c->top_p = -0.5f)
SETTER(minp_neg, c->min_p = -0.01f)
SETTER(minp_big, c->min_p = 1.5f)
SETTER(minp_nan, c->min_p = NAN)
SETTER(minp_inf, c->min_p = INFINITY)
SETTER(rp_zero, c->repetition_penalty = 0.0f)
SETTER(rp_neg, c->repetition_penalty = -1.0f)
SETTER(rp_inf, c->repetition_penalty = INFINITY)
SETTER(rp_nan, c->repetition_penalty = NAN)
SETTER(k_neg, c->top_k = -1)
SETTER(w_neg, c->repetition_window = -3)
SETTER(mt_neg, c->min_tokens = -1)
SETTER(keep_zero, c->top_p_min_keep = 0)

TEST(config_absolute_rules_refused) {
    const bad_case cases[] = {
        {"temperature<0", t_neg, MS_ECONFIG, "temperature=-0.1"},
        {"temperature nan", t_nan, MS_ECONFIG, "temperature=nan"},
        {"temperature inf", t_inf, MS_ECONFIG, "temperature=inf"},
        {"top_p 0", p_zero, MS_ECONFIG, "top_p=0: must be finite and in (0, 1]"},
        {"top_p>1", p_big, MS_ECONFIG, "top_p=1.0001"},
        {"top_p nan", p_nan, MS_ECONFIG, "top_p=nan"},
        {"top_p<0", p_neg, MS_ECONFIG, "top_p=-0.5"},
        {"min_p<0", minp_neg, MS_ECONFIG, "min_p=-0.01: must be finite and in [0, 1]"},
        {"min_p>1", minp_big, MS_ECONFIG, "min_p=1.5"},
        {"min_p nan", minp_nan, MS_ECONFIG, "min_p=nan"},
        {"min_p inf", minp_inf, MS_ECONFIG, "min_p=inf"},
        {"penalty 0", rp_zero, MS_ECONFIG, "repetition_penalty=0: must be finite and > 0"},
        {"penalty<0", rp_neg, MS_ECONFIG, "repetition_penalty=-1"},
        {"penalty inf", rp_inf, MS_ECONFIG, "repetition_penalty=inf"},
        {"penalty nan", rp_nan, MS_ECONFIG, "repetition_penalty=nan"},
        {"top_k<0", k_neg, MS_ECONFIG, "top_k=-1: must be an integer >= 0"},
        {"window<0", w_neg, MS_ECONFIG, "repetition_window=-3: must be >= 0"},
        {"min_tokens<0", mt_neg, MS_ECONFIG, "min_tokens=-1: must be >= 0"},
        {"min_keep<1", keep_zero, MS_ECONFIG, "top_p_min_keep=0: must be >= 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_req_config c = ms_req_config_default();
        cases[i].set(&c);
        char msg[256];
        int rc = ms_req_config_validate(&c, NULL, msg, sizeof msg);
        CHECK_MSG(rc == cases[i].code, "%s: rc %d", cases[i].what, rc);
        CHECK_STR_HAS(msg, cases[i].msg);
    }
}

TEST(config_absolute_rules_accepted) {
    ms_req_config c = ms_req_config_default();
    char msg[256];
    CHECK_EQ_I64(ms_req_config_validate(&c, NULL, msg, sizeof msg), MS_OK);
    CHECK_EQ_I64(msg[0], 0);
    c.temperature = 0.0f; c.top_p = 1.0f; c.min_p = 1.0f; c.top_k = 1000000000; c.repetition_penalty = 1e-3f;
    c.repetition_window = 5; c.min_tokens = 10; c.top_p_min_keep = 100; c.top_p = 1e-9f;
    CHECK_EQ_I64(ms_req_config_validate(&c, NULL, msg, sizeof msg), MS_OK);
    c.min_p = 0.0f; c.temperature = 100.0f;
    CHECK_EQ_I64(ms_req_config_validate(&c, NULL, NULL, 0), MS_OK);
    CHECK_EQ_I64(ms_req_config_validate(NULL, NULL, msg, sizeof msg), MS_EINVAL);
}

TEST(config_capability_rules) {
    int32_t stops[] = {2};
    ms_spec bare = ms_spec_default();
    bare.vocab_size = 100;
    bare.enable_repetition_penalty = false;
    ms_spec rich = bare;
    rich.enable_repetition_penalty = true;
    rich.enable_min_p = true;
    rich.max_repetition_window = 16;
    rich.min_tokens_stop_ids = stops;
    rich.n_min_tokens_stop_ids = 1;
    rich.enable_top_p_first = true;
    char msg[256];
    ms_req_config c;

    c = ms_req_config_default(); c.min_p = 0.05f;
    CHECK_EQ_I64(ms_req_config_validate(&c, &bare, msg, sizeof msg), MS_ECAPABILITY);
    CHECK_STR_HAS(msg, "enable_min_p=False");
    CHECK_EQ_I64(ms_req_config_validate(&c, &rich, msg, sizeof msg), MS_OK);

    c = ms_req_config_default(); c.repetition_penalty = 1.2f;
    CHECK_EQ_I64(ms_req_config_validate(&c, &bare, msg, sizeof msg), MS_ECAPABILITY);
    CHECK_STR_HAS(msg, "enable_repetion_penalty=False");
    CHECK_EQ_I64(ms_req_config_validate(&c, &rich, msg, sizeof msg), MS_OK);
    /* a windowed penalty does not need the presence capability, only the window */
    c.repetition_window = 16;
    CHECK_EQ_I64(ms_req_config_validate(&c, &bare, msg, sizeof msg), MS_ECAPABILITY);
    CHECK_STR_HAS(msg, "max_repetition_window=0");
    CHECK_EQ_I64(ms_req_config_validate(&c, &rich, msg, sizeof msg), MS_OK);
    c.repetition_window = 17;
    CHECK_EQ_I64(ms_req_config_validate(&c, &rich, msg, sizeof msg), MS_ECAPABILITY);
    CHECK_STR_HAS(msg, "max_repetition_window=16");
    /* penalty 1 with a window: still needs the window capability */
    c = ms_req_config_default(); c.repetition_window = 1;
    CHECK_EQ_I64(ms_req_config_validate(&c, &bare, msg, sizeof msg), MS_ECAPABILITY);

    c = ms_req_config_default(); c.min_tokens = 3;
    CHECK_EQ_I64(ms_req_config_validate(&c, &bare, msg, sizeof msg), MS_ECAPABILITY);
    CHECK_STR_HAS(msg, "min_tokens_stop_ids=()");
    CHECK_EQ_I64(ms_req_config_validate(&c, &rich, msg, sizeof msg), MS_OK);

    c = ms_req_config_default(); c.top_p_first = true;
    CHECK_EQ_I64(ms_req_config_validate(&c, &bare, msg, sizeof msg), MS_ECAPABILITY);
    CHECK_STR_HAS(msg, "enable_top_p_first=False");
    CHECK_EQ_I64(ms_req_config_validate(&c, &rich, msg, sizeof msg), MS_OK);
    c = ms_req_config_default(); c.top_p_min_keep = 2;
    CHECK_EQ_I64(ms_req_config_validate(&c, &bare, msg, sizeof msg), MS_ECAPABILITY);
    CHECK_STR_HAS(msg, "top_p_min_keep=2");
    CHECK_EQ_I64(ms_req_config_validate(&c, &rich, msg, sizeof msg), MS_OK);

    /* everything off is accepted by the barest spec */
    c = ms_req_config_default();
    CHECK_EQ_I64(ms_req_config_validate(&c, &bare, msg, sizeof msg), MS_OK);
}

TEST(spec_rules) {
    char msg[256];
    ms_spec s = ms_spec_default(); /* penalty enabled, vocab None */
    CHECK_EQ_I64(ms_spec_check(&s, msg, sizeof msg), MS_ESPEC);
    CHECK_STR_HAS(msg, "vocab_size is required when enable_repetition_penalty=True");
    s.enable_repetition_penalty = false;
    CHECK_EQ_I64(ms_spec_check(&s, msg, sizeof msg), MS_OK);
    s.max_repetition_window = 4;
    CHECK_EQ_I64(ms_spec_check(&s, msg, sizeof msg), MS_ESPEC);
    s.vocab_size = 10;
    CHECK_EQ_I64(ms_spec_check(&s, msg, sizeof msg), MS_OK);
    int32_t stops[] = {3, 10};
    s.min_tokens_stop_ids = stops;
    s.n_min_tokens_stop_ids = 2;
    CHECK_EQ_I64(ms_spec_check(&s, msg, sizeof msg), MS_ESPEC);
    CHECK_STR_HAS(msg, "min_tokens_stop_ids[1]=10");
    s.vocab_size = -1;
    CHECK_EQ_I64(ms_spec_check(&s, msg, sizeof msg), MS_ESPEC);
    s.vocab_size = MS_MAX_VOCAB + 1;
    CHECK_EQ_I64(ms_spec_check(&s, msg, sizeof msg), MS_ESPEC);
    s.vocab_size = 11;
    s.max_repetition_window = -1;
    CHECK_EQ_I64(ms_spec_check(&s, msg, sizeof msg), MS_ESPEC);
    CHECK_EQ_I64(ms_spec_check(NULL, msg, sizeof msg), MS_EINVAL);
}

TEST(errors_table) {
    CHECK_STR_HAS(ms_strerror(MS_ECONFIG), "contract");
    CHECK_STR_HAS(ms_err_name(MS_ENOSPC), "ENOSPC");
    CHECK_STR_HAS(ms_strerror(12345), "unknown");
    CHECK_EQ_I64(MS_EINVAL, -1);
    CHECK_EQ_I64(MS_ENOSPC, -15);
    CHECK_EQ_I64(ms_version_number(), MS_VERSION_NUMBER);
}
