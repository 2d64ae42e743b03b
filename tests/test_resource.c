/* test_resource.c: the resource of SPEC section 4 through the public API: lifecycle, errors that
 * change nothing, determinism (batch order, row position, threads, kept_rids), row edge cases. */
#include <math.h>
#include <stdlib.h>

#include "ms_test.h"
#include "msampler.h"

#if defined(__x86_64__) || defined(__i386__)
#  include <xmmintrin.h>
#endif

#define V_SMALL 111

static ms_spec rich_spec(int32_t V, const int32_t *stops, size_t n_stops) {
    ms_spec s = ms_spec_default();
    s.resource_key = "LLM_SAMPLER";
    s.vocab_size = V;
    s.enable_min_p = true;
    s.max_repetition_window = 8;
    s.min_tokens_stop_ids = stops;
    s.n_min_tokens_stop_ids = n_stops;
    s.enable_top_p_first = true;
    return s;
}

static ms_resource *make_res(const ms_spec *spec, int32_t capacity, ms_backend backend, int32_t threads) {
    ms_resource_params p = ms_resource_params_default();
    p.capacity = capacity;
    p.backend = backend;
    p.n_threads = threads;
    ms_resource *res = NULL;
    int rc = ms_resource_create(&res, spec, &p);
    if (rc != MS_OK) fprintf(stderr, "  create: %s\n", ms_last_create_error());
    return res;
}

static void fill_logits(float *x, int32_t n, ms_trng *r, double scale) {
    for (int32_t i = 0; i < n; i++) x[i] = (float)(scale * ms_trng_normal(r));
}

static ms_req_config cfg_sampling(uint64_t seed) {
    ms_req_config c = ms_req_config_default();
    c.temperature = 0.7f;
    c.top_k = 20;
    c.top_p = 0.9f;
    c.seed = seed;
    return c;
}

static int sample1(ms_resource *res, const ms_step *st, int64_t rid, const float *row, int32_t width, int32_t *tok) {
    ms_batch b = {1, &rid, row, MS_DTYPE_F32, width, 0};
    int32_t status = -7;
    int rc = ms_sample(res, st, &b, tok, &status);
    return rc;
}

TEST(resource_create_checks_input) {
    ms_spec s = rich_spec(V_SMALL, NULL, 0);
    ms_resource *res = (ms_resource *)0x1;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 0;
    CHECK_EQ_I64(ms_resource_create(&res, &s, &p), MS_EINVAL);
    CHECK(res == NULL);
    CHECK_STR_HAS(ms_last_create_error(), "capacity=0");
    p = ms_resource_params_default();
    p.backend = (ms_backend)99;
    CHECK_EQ_I64(ms_resource_create(&res, &s, &p), MS_EINVAL);
    ms_spec bad = ms_spec_default(); /* penalty enabled without a vocabulary */
    CHECK_EQ_I64(ms_resource_create(&res, &bad, NULL), MS_ESPEC);
    CHECK_STR_HAS(ms_last_create_error(), "vocab_size");
    CHECK_EQ_I64(ms_resource_create(NULL, &s, NULL), MS_EINVAL);
    /* a backend that cannot start (no CUDA build, or no device) names its code once */
    p = ms_resource_params_default();
    p.backend = MS_BACKEND_CUDA;
    int rc = ms_resource_create(&res, &s, &p);
    if (rc < 0) {
        CHECK(res == NULL);
        CHECK_STR_HAS(ms_last_create_error(), ms_err_name(rc));
        CHECK_MSG(strstr(ms_last_create_error(), ": E") == NULL, "doubled prefix: %s", ms_last_create_error());
    } else {
        ms_resource_free(res); /* a machine with a GPU */
    }
    CHECK_EQ_I64(ms_resource_create(&res, NULL, NULL), MS_EINVAL);
    ms_resource_free(NULL);
}

TEST(resource_lifecycle_errors_change_nothing) {
    ms_spec s = rich_spec(V_SMALL, NULL, 0);
    ms_resource *res = make_res(&s, 2, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = cfg_sampling(1);
    CHECK_EQ_I64(ms_ingest(res, 10, &c), MS_OK);
    CHECK_EQ_I64(ms_ingest(res, 10, &c), MS_EEXIST);
    CHECK_STR_HAS(ms_resource_last_error(res), "10 is already resident");
    ms_req_config bad = c;
    bad.top_p = 0.0f;
    CHECK_EQ_I64(ms_ingest(res, 11, &bad), MS_ECONFIG);
    CHECK_STR_HAS(ms_resource_last_error(res), "top_p=0");
    CHECK(!ms_contains(res, 11));
    CHECK_EQ_I64(ms_resident(res), 1);
    bad = c;
    bad.min_tokens = 2; /* the spec has no stop ids */
    CHECK_EQ_I64(ms_ingest(res, 11, &bad), MS_ECAPABILITY);
    CHECK(!ms_contains(res, 11));
    CHECK_EQ_I64(ms_ingest(res, 11, &c), MS_OK);
    CHECK_EQ_I64(ms_ingest(res, 12, &c), MS_EFULL);
    CHECK_EQ_I64(ms_resident(res), 2);
    CHECK_EQ_I64(ms_remove(res, 12), MS_ENOENT);
    CHECK_EQ_I64(ms_remove(res, 10), MS_OK);
    CHECK(!ms_contains(res, 10));
    CHECK(ms_contains(res, 11));
    CHECK_EQ_I64(ms_ingest(res, 12, &c), MS_OK);
    CHECK_EQ_I64(ms_ingest(res, 13, NULL), MS_EINVAL);
    /* many ids through few slots: the table keeps finding them */
    for (int64_t rid = 1000; rid < 3000; rid++) {
        CHECK_EQ_I64(ms_remove(res, rid - 1 == 999 ? 12 : rid - 1), MS_OK);
        CHECK_EQ_I64(ms_ingest(res, rid, &c), MS_OK);
        CHECK(ms_contains(res, 11) && ms_contains(res, rid));
        if (ms_test_failures) break;
    }
    ms_resource_free(res);
}

TEST(resource_sample_checks_input) {
    ms_spec s = rich_spec(V_SMALL, NULL, 0);
    ms_resource *res = make_res(&s, 4, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = cfg_sampling(3);
    ms_ingest(res, 1, &c);
    float row[V_SMALL + 5];
    ms_trng r = {9};
    fill_logits(row, V_SMALL + 5, &r, 1.0);
    int32_t tok = 0, st = 0;
    int64_t rid = 1, unknown = 2;
    ms_batch b = {1, &rid, row, MS_DTYPE_F32, V_SMALL - 1, 0};
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_ESHAPE);
    CHECK_STR_HAS(ms_resource_last_error(res), "narrower than vocab_size=111");
    b.width = V_SMALL;
    b.dtype = (ms_dtype)7;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_EDTYPE);
    b.dtype = MS_DTYPE_F32;
    b.rids = &unknown;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_ENOENT);
    b.rids = &rid;
    b.n_rows = 5000;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_ESHAPE);
    b.n_rows = 1;
    b.row_stride = 3;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_ESHAPE);
    b.row_stride = 0;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, NULL, &st), MS_EINVAL);
    CHECK_EQ_I64(ms_sample(res, NULL, NULL, &tok, &st), MS_EINVAL);
    /* none of those left a pending sample */
    CHECK_EQ_I64(ms_commit(res, NULL), MS_ESTATE);
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_OK);
    CHECK(tok >= 0 && tok < V_SMALL && st == MS_ROW_OK);
    ms_resource_free(res);
}

/* The same requests in any batch order and row position draw the same tokens. */
TEST(determinism_batch_order_and_position) {
    enum { NREQ = 24, V = 1000 };
    ms_spec s = rich_spec(V, NULL, 0);
    ms_resource *a = make_res(&s, 64, MS_BACKEND_CPU, 1), *b = make_res(&s, 64, MS_BACKEND_CPU, 1);
    REQUIRE(a && b);
    static float logits[NREQ][V], shuffled[NREQ + 5][V];
    ms_trng r = {42};
    int64_t rids[NREQ], srids[NREQ + 5];
    ms_req_config cfgs[NREQ];
    for (int i = 0; i < NREQ; i++) {
        rids[i] = 100 + i * 7;
        cfgs[i] = cfg_sampling(ms_trng_next(&r));
        cfgs[i].temperature = 0.5f + (float)(i % 5) * 0.3f;
        CHECK_EQ_I64(ms_ingest(a, rids[i], &cfgs[i]), MS_OK);
        fill_logits(logits[i], V, &r, 2.0);
    }
    /* b holds the same requests, ingested in reverse order after unrelated ones (other slots) */
    ms_req_config filler = cfg_sampling(5);
    for (int i = 0; i < 5; i++) ms_ingest(b, -1 - i, &filler);
    for (int i = NREQ - 1; i >= 0; i--) CHECK_EQ_I64(ms_ingest(b, rids[i], &cfgs[i]), MS_OK);
    ms_step st = ms_step_default();
    for (int step = 0; step < 6; step++) {
        int32_t ta[NREQ], tb[NREQ + 5];
        ms_batch ba = {NREQ, rids, logits, MS_DTYPE_F32, V, 0};
        CHECK_EQ_I64(ms_sample(a, &st, &ba, ta, NULL), MS_OK);
        /* shuffled batch with unrelated rows in between */
        int perm[NREQ];
        for (int i = 0; i < NREQ; i++) perm[i] = i;
        for (int i = NREQ - 1; i > 0; i--) {
            int j = (int)ms_trng_below(&r, (uint32_t)i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        int nb = 0;
        for (int i = 0; i < NREQ; i++) {
            if (i % 5 == 2) {
                srids[nb] = -1 - (i % 5);
                fill_logits(shuffled[nb], V, &r, 1.0);
                nb++;
            }
            srids[nb] = rids[perm[i]];
            memcpy(shuffled[nb], logits[perm[i]], sizeof logits[0]);
            nb++;
        }
        ms_batch bb = {nb, srids, shuffled, MS_DTYPE_F32, V, 0};
        CHECK_EQ_I64(ms_sample(b, &st, &bb, tb, NULL), MS_OK);
        for (int k = 0; k < nb; k++)
            for (int i = 0; i < NREQ; i++)
                if (srids[k] == rids[i]) CHECK_MSG(tb[k] == ta[i], "step %d rid %lld: %d != %d", step, (long long)rids[i], tb[k], ta[i]);
        CHECK_EQ_I64(ms_commit(a, &st), NREQ);
        CHECK_EQ_I64(ms_commit(b, &st), nb);
        for (int i = 0; i < NREQ; i++) fill_logits(logits[i], V, &r, 2.0);
    }
    ms_resource_free(a);
    ms_resource_free(b);
}

/* Sampling reads state only: the same call twice draws the same tokens. */
TEST(sample_is_repeatable) {
    ms_spec s = rich_spec(V_SMALL, NULL, 0);
    ms_resource *res = make_res(&s, 4, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = cfg_sampling(77);
    c.repetition_penalty = 1.3f;
    ms_ingest(res, 5, &c);
    float row[V_SMALL];
    ms_trng r = {3};
    fill_logits(row, V_SMALL, &r, 1.0);
    int32_t t1, t2;
    CHECK_EQ_I64(sample1(res, NULL, 5, row, V_SMALL, &t1), MS_OK);
    CHECK_EQ_I64(sample1(res, NULL, 5, row, V_SMALL, &t2), MS_OK);
    CHECK_EQ_I64(t1, t2);
    ms_resource_free(res);
}

/* Two dropped steps then a kept one draw exactly what one kept step draws (n does not move). */
TEST(kept_rids_dropped_steps_redraw) {
    ms_spec s = rich_spec(V_SMALL, NULL, 0);
    ms_resource *a = make_res(&s, 4, MS_BACKEND_CPU, 1), *b = make_res(&s, 4, MS_BACKEND_CPU, 1);
    REQUIRE(a && b);
    ms_req_config c = cfg_sampling(1234);
    c.top_k = 0;
    c.top_p = 1.0f;
    c.temperature = 1.5f; /* a flat distribution: different counters almost surely differ */
    ms_ingest(a, 1, &c);
    ms_ingest(a, 2, &c);
    ms_ingest(b, 1, &c);
    ms_trng r = {8};
    float rows[3][2][V_SMALL];
    for (int k = 0; k < 3; k++) fill_logits(&rows[k][0][0], 2 * V_SMALL, &r, 0.3);
    int64_t both[2] = {1, 2}, only2[1] = {2}, only1[1] = {1};
    int32_t tok[2], tb;
    ms_step drop1 = ms_step_default();
    drop1.kept_rids = only2;
    drop1.n_kept_rids = 1;
    ms_batch batch = {2, both, rows[0], MS_DTYPE_F32, V_SMALL, 0};
    for (int k = 0; k < 2; k++) {
        batch.logits = rows[k];
        CHECK_EQ_I64(ms_sample(a, &drop1, &batch, tok, NULL), MS_OK);
        CHECK_EQ_I64(ms_commit(a, &drop1), 1);
    }
    ms_step keep1 = ms_step_default();
    keep1.kept_rids = only1;
    keep1.n_kept_rids = 1;
    batch.logits = rows[2];
    CHECK_EQ_I64(ms_sample(a, &keep1, &batch, tok, NULL), MS_OK);
    CHECK_EQ_I64(sample1(b, NULL, 1, rows[2][0], V_SMALL, &tb), MS_OK);
    CHECK_EQ_I64(tok[0], tb);
    /* and the next step too, after both commit */
    CHECK_EQ_I64(ms_commit(a, &keep1), 1);
    CHECK_EQ_I64(ms_commit(b, NULL), 1);
    CHECK_EQ_I64(sample1(a, NULL, 1, rows[0][1], V_SMALL, &tok[0]), MS_OK);
    CHECK_EQ_I64(sample1(b, NULL, 1, rows[0][1], V_SMALL, &tb), MS_OK);
    CHECK_EQ_I64(tok[0], tb);
    /* the counter does move with commits: over 32 committed steps on one row, not all equal */
    int distinct = 0, first = -1;
    for (int k = 0; k < 32; k++) {
        int32_t t;
        sample1(b, NULL, 1, rows[1][0], V_SMALL, &t);
        ms_commit(b, NULL);
        if (first < 0) first = t;
        distinct |= t != first;
    }
    CHECK(distinct);
    /* an empty kept set commits nothing; a second commit is out of order */
    ms_step none = ms_step_default();
    none.kept_rids = only1;
    none.n_kept_rids = 0;
    CHECK_EQ_I64(ms_sample(a, &none, &batch, tok, NULL), MS_OK);
    CHECK_EQ_I64(ms_commit(a, &none), 0);
    CHECK_EQ_I64(ms_commit(a, &none), MS_ESTATE);
    ms_resource_free(a);
    ms_resource_free(b);
}

/* A slot freed and taken again starts empty: no seen set, no history, n = 0. */
TEST(reused_slot_starts_empty) {
    ms_spec s = rich_spec(V_SMALL, NULL, 0);
    ms_resource *a = make_res(&s, 1, MS_BACKEND_CPU, 1), *fresh = make_res(&s, 1, MS_BACKEND_CPU, 1);
    REQUIRE(a && fresh);
    ms_req_config c = cfg_sampling(99);
    c.repetition_penalty = 3.0f;
    c.top_k = 0;
    c.top_p = 1.0f;
    ms_ingest(a, 1, &c);
    int32_t prompt[40];
    for (int i = 0; i < 40; i++) prompt[i] = i * 2;
    ms_prefill pf = {1, prompt, 40};
    ms_step st = ms_step_default();
    st.prefill = &pf;
    st.n_prefill = 1;
    CHECK_EQ_I64(ms_plan(a, &st), MS_OK);
    int32_t gen[5] = {1, 3, 5, 7, 9};
    CHECK_EQ_I64(ms_accept(a, 1, gen, 5), MS_OK);
    float row[V_SMALL];
    ms_trng r = {5};
    fill_logits(row, V_SMALL, &r, 1.0);
    ms_explanation ia, ib;
    int32_t ida[V_SMALL], idb[V_SMALL];
    double pa[V_SMALL], pb[V_SMALL];
    CHECK_EQ_I64(ms_explain(a, NULL, 1, row, MS_DTYPE_F32, V_SMALL, V_SMALL, ida, pa, NULL, &ia), MS_OK);
    ms_remove(a, 1);
    ms_ingest(a, 2, &c); /* the same slot */
    ms_ingest(fresh, 2, &c);
    CHECK_EQ_I64(ms_explain(a, NULL, 2, row, MS_DTYPE_F32, V_SMALL, V_SMALL, ida, pa, NULL, &ia), MS_OK);
    CHECK_EQ_I64(ms_explain(fresh, NULL, 2, row, MS_DTYPE_F32, V_SMALL, V_SMALL, idb, pb, NULL, &ib), MS_OK);
    CHECK_EQ_I64(ia.n_kept, ib.n_kept);
    CHECK_EQ_U64(ia.total_mass, ib.total_mass);
    for (int i = 0; i < ia.n_kept && i < ib.n_kept; i++) CHECK(ida[i] == idb[i] && pa[i] == pb[i]);
    int32_t ta, tb;
    sample1(a, NULL, 2, row, V_SMALL, &ta);
    sample1(fresh, NULL, 2, row, V_SMALL, &tb);
    CHECK_EQ_I64(ta, tb); /* n = 0 in both */
    ms_resource_free(a);
    ms_resource_free(fresh);
}

/* Probability of a token from explain (0 when not in the support). */
static double prob_of(ms_resource *res, const ms_step *st, int64_t rid, const float *row, int32_t V, int32_t id) {
    int32_t ids[256];
    double p[256];
    ms_explanation info;
    if (ms_explain(res, st, rid, row, MS_DTYPE_F32, V, 256, ids, p, NULL, &info) != MS_OK) return -1.0;
    for (int i = 0; i < info.n_kept; i++)
        if (ids[i] == id) return p[i];
    return 0.0;
}

TEST(plan_and_accept_are_atomic) {
    ms_spec s = rich_spec(V_SMALL, NULL, 0);
    ms_resource *res = make_res(&s, 4, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = ms_req_config_default();
    c.temperature = 1.0f;
    c.repetition_penalty = 2.0f;
    ms_ingest(res, 1, &c);
    ms_ingest(res, 2, &c);
    float row[V_SMALL];
    for (int i = 0; i < V_SMALL; i++) row[i] = 1.0f;
    double before = prob_of(res, NULL, 1, row, V_SMALL, 5);
    int32_t good[2] = {5, 6}, bad[2] = {7, V_SMALL};
    ms_prefill pf[2] = {{1, good, 2}, {2, bad, 2}};
    ms_step st = ms_step_default();
    st.prefill = pf;
    st.n_prefill = 2;
    CHECK_EQ_I64(ms_plan(res, &st), MS_ERANGE);
    CHECK_STR_HAS(ms_resource_last_error(res), "token[1]=111");
    CHECK(prob_of(res, NULL, 1, row, V_SMALL, 5) == before); /* the first prefill did not land */
    pf[1].rid = 99;
    pf[1].tokens = good;
    CHECK_EQ_I64(ms_plan(res, &st), MS_ENOENT);
    CHECK(prob_of(res, NULL, 1, row, V_SMALL, 5) == before);
    st.n_prefill = 1;
    CHECK_EQ_I64(ms_plan(res, &st), MS_OK);
    double after = prob_of(res, NULL, 1, row, V_SMALL, 5);
    CHECK_MSG(after < before, "penalised token: %g !< %g", after, before);
    /* presence: once per token however often seen */
    CHECK_EQ_I64(ms_plan(res, &st), MS_OK);
    CHECK(prob_of(res, NULL, 1, row, V_SMALL, 5) == after);
    /* apply_penalty = false switches the presence penalty off for the step */
    ms_step nopen = ms_step_default();
    nopen.apply_penalty = false;
    CHECK(prob_of(res, &nopen, 1, row, V_SMALL, 5) == before);
    /* accept checks every token first */
    int32_t acc[3] = {1, 2, -1};
    CHECK_EQ_I64(ms_accept(res, 2, acc, 3), MS_ERANGE);
    CHECK(prob_of(res, NULL, 2, row, V_SMALL, 1) == before);
    CHECK_EQ_I64(ms_accept(res, 3, acc, 2), MS_ENOENT);
    CHECK_EQ_I64(ms_accept(res, 2, acc, 2), MS_OK);
    CHECK(prob_of(res, NULL, 2, row, V_SMALL, 1) == after);
    ms_resource_free(res);
}

TEST(penalty_values_by_hand) {
    /* V = 2, logits (1, -1), r = 2, T = 1: presence on both gives (0.5, -2). */
    ms_spec s = rich_spec(2, NULL, 0);
    ms_resource *res = make_res(&s, 2, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = ms_req_config_default();
    c.temperature = 1.0f;
    c.repetition_penalty = 2.0f;
    ms_ingest(res, 1, &c);
    int32_t both[2] = {0, 1};
    ms_accept(res, 1, both, 2);
    float row[2] = {1.0f, -1.0f};
    double p0 = prob_of(res, NULL, 1, row, 2, 0);
    double ref = 1.0 / (1.0 + exp(-2.5));
    CHECK_MSG(fabs(p0 - ref) < 1e-6, "presence: %.9f vs %.9f", p0, ref);
    /* windowed: token 0 seen 3 times in the last 4 -> f = 8; token 1 once -> 2 */
    ms_req_config w = c;
    w.repetition_window = 4;
    ms_ingest(res, 2, &w);
    int32_t h[6] = {1, 1, 0, 1, 0, 0};
    ms_accept(res, 2, h, 6); /* last 4: 0, 1, 0, 0 */
    double pw = prob_of(res, NULL, 2, row, 2, 0);
    double refw = 1.0 / (1.0 + exp(-2.0 - 0.125)); /* x0 = 1/8, x1 = -1*2 */
    CHECK_MSG(fabs(pw - refw) < 1e-6, "window: %.9f vs %.9f", pw, refw);
    /* the windowed penalty applies whatever apply_penalty says */
    ms_step nopen = ms_step_default();
    nopen.apply_penalty = false;
    CHECK(prob_of(res, &nopen, 2, row, 2, 0) == pw);
    ms_resource_free(res);
}

/* A windowed factor r^n that overflows (r = 1e30, n = 2: f = inf) or underflows (r = 1e-30: f = 0)
 * makes 0 * inf and -inf * 0 NaN; that NaN counts as -inf like a NaN logit, so the greedy token is the
 * real argmax and the penalised token is never drawn, on the reference and the fast backend alike.
 * Before the fix the reference took the NaN token 0 for the argmax. */
TEST(penalty_nan_counts_as_neg_inf) {
    ms_spec s = rich_spec(4, NULL, 0);
    for (int backend = 0; backend < 2; backend++) {
        ms_resource *res = make_res(&s, 4, backend ? MS_BACKEND_CPU_REF : MS_BACKEND_CPU, 1);
        REQUIRE(res);
        const float rs[2] = {1e30f, 1e-30f};
        for (int k = 0; k < 2; k++) {
            /* r = 1e30: x0 = 0 -> 0 * inf; r = 1e-30: x0 = NaN (= -inf) -> -inf * 0 */
            float row[4] = {k ? NAN : 0.0f, -1.0f, -2.0f, -3.0f};
            int32_t twice[2] = {0, 0};
            for (int greedy = 0; greedy < 2; greedy++) {
                const int64_t rid = 1 + 2 * k + greedy;
                ms_req_config c = ms_req_config_default();
                c.temperature = greedy ? 0.0f : 1.0f;
                c.repetition_penalty = rs[k];
                c.repetition_window = 2;
                c.seed = (uint64_t)rid;
                REQUIRE(ms_ingest(res, rid, &c) == MS_OK);
                REQUIRE(ms_accept(res, rid, twice, 2) == MS_OK);
                int32_t tok = -7;
                CHECK(sample1(res, NULL, rid, row, 4, &tok) == MS_OK);
                if (greedy)
                    CHECK_MSG(tok == 1, "backend %d r=%g greedy: token %d, want 1", backend, rs[k], tok);
                else
                    CHECK_MSG(tok >= 1 && tok <= 3, "backend %d r=%g: token %d", backend, rs[k], tok);
                int32_t ids[4];
                double pr[4];
                ms_explanation e;
                CHECK(ms_explain(res, NULL, rid, row, MS_DTYPE_F32, 4, 4, ids, pr, NULL, &e) == MS_OK);
                CHECK_MSG(e.n_kept >= 1 && ids[0] != 0, "backend %d r=%g: token 0 in the support", backend, rs[k]);
                REQUIRE(ms_remove(res, rid) == MS_OK);
            }
        }
        ms_resource_free(res);
    }
}

TEST(rows_nan_inf_and_padding) {
    enum { V = 16, W = 20 };
    ms_spec s = rich_spec(V, NULL, 0);
    ms_resource *res = make_res(&s, 4, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = cfg_sampling(4);
    ms_ingest(res, 1, &c);
    ms_req_config g = ms_req_config_default();
    g.temperature = 0.0f;
    ms_ingest(res, 2, &g);
    float row[W];
    int32_t tok, st;
    int64_t rid = 1;
    ms_batch b = {1, &rid, row, MS_DTYPE_F32, W, 0};
    /* every logit NaN or -inf: token -1, status empty, no crash; padding is never looked at */
    for (int i = 0; i < W; i++) row[i] = (i % 2) ? NAN : -INFINITY;
    row[V + 1] = 100.0f;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_OK);
    CHECK_EQ_I64(tok, -1);
    CHECK_EQ_I64(st, MS_ROW_EMPTY);
    CHECK_EQ_I64(ms_commit(res, NULL), 0); /* an empty row commits nothing */
    rid = 2;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_OK);
    CHECK_EQ_I64(tok, -1);
    CHECK_EQ_I64(st, MS_ROW_EMPTY);
    /* two +inf logits share the mass equally, whatever the finite ones say */
    for (int i = 0; i < W; i++) row[i] = (float)i;
    row[3] = INFINITY;
    row[9] = INFINITY;
    row[V] = INFINITY; /* padding */
    ms_explanation info;
    int32_t ids[V];
    double p[V];
    c.top_k = 0;
    c.top_p = 1.0f;
    ms_req_config c2 = c;
    ms_ingest(res, 3, &c2);
    CHECK_EQ_I64(ms_explain(res, NULL, 3, row, MS_DTYPE_F32, W, V, ids, p, NULL, &info), MS_OK);
    CHECK_EQ_I64(info.n_kept, 2);
    CHECK(ids[0] == 3 && ids[1] == 9 && p[0] == 0.5 && p[1] == 0.5);
    /* greedy takes the lowest +inf id */
    rid = 2;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_OK);
    CHECK_EQ_I64(tok, 3);
    /* greedy ties go to the lowest id; NaN counts as -inf */
    for (int i = 0; i < W; i++) row[i] = 1.0f;
    row[0] = NAN;
    row[4] = 2.0f;
    row[7] = 2.0f;
    row[V + 2] = 50.0f;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_OK);
    CHECK_EQ_I64(tok, 4);
    /* padding columns are never drawn, however large */
    for (int i = 0; i < W; i++) row[i] = i < V ? 0.0f : 1e30f;
    rid = 1;
    for (int k = 0; k < 200; k++) {
        CHECK_EQ_I64(ms_sample(res, NULL, &b, &tok, &st), MS_OK);
        CHECK(tok >= 0 && tok < V);
        ms_commit(res, NULL);
    }
    ms_resource_free(res);
}

TEST(min_tokens_floor) {
    enum { V = 8 };
    int32_t stops[2] = {0, 5};
    ms_spec s = rich_spec(V, stops, 2);
    ms_resource *res = make_res(&s, 4, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = ms_req_config_default();
    c.temperature = 1.0f;
    c.min_tokens = 2;
    ms_ingest(res, 1, &c);
    float row[V] = {5, 0, 0, 0, 0, 5, 0, 0};
    CHECK(prob_of(res, NULL, 1, row, V, 0) == 0.0);
    CHECK(prob_of(res, NULL, 1, row, V, 5) == 0.0);
    CHECK(prob_of(res, NULL, 1, row, V, 1) > 0.1);
    /* greedy under the floor takes the best non-stop token */
    ms_req_config g = c;
    g.temperature = 0.0f;
    ms_ingest(res, 2, &g);
    int32_t tok;
    row[3] = 1.0f;
    CHECK_EQ_I64(sample1(res, NULL, 2, row, V, &tok), MS_OK);
    CHECK_EQ_I64(tok, 3);
    /* when only stop ids have mass, the row keeps its unfloored distribution */
    ms_req_config k1 = c;
    k1.top_k = 1; /* survivors: ids 0 and 5 (tied) */
    ms_ingest(res, 3, &k1);
    double p0 = prob_of(res, NULL, 3, row, V, 0);
    CHECK_MSG(p0 == 0.5, "p0 = %g", p0);
    /* after two committed tokens the floor is gone */
    int32_t two[2] = {1, 2};
    ms_accept(res, 1, two, 2);
    CHECK(prob_of(res, NULL, 1, row, V, 0) > 0.1);
    ms_accept(res, 2, two, 2);
    CHECK_EQ_I64(sample1(res, NULL, 2, row, V, &tok), MS_OK);
    CHECK_EQ_I64(tok, 0);
    ms_resource_free(res);
}

static uint16_t f32_to_bf16_trunc(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

/* An fp16/bf16 row draws what the fp32 row of its exactly converted values draws. */
TEST(dtypes_convert_exactly) {
    enum { V = 2000 };
    ms_spec s = rich_spec(V, NULL, 0);
    ms_resource *res = make_res(&s, 4, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = cfg_sampling(31337);
    c.top_k = 0;
    ms_ingest(res, 1, &c);
    static float f32[V];
    static uint16_t b16[V];
    ms_trng r = {6};
    for (int k = 0; k < 20; k++) {
        for (int i = 0; i < V; i++) {
            b16[i] = f32_to_bf16_trunc((float)(3.0 * ms_trng_normal(&r)));
            uint32_t u = (uint32_t)b16[i] << 16;
            memcpy(&f32[i], &u, 4);
        }
        int64_t rid = 1;
        int32_t t32, t16;
        ms_batch b = {1, &rid, f32, MS_DTYPE_F32, V, 0};
        ms_sample(res, NULL, &b, &t32, NULL);
        b.logits = b16;
        b.dtype = MS_DTYPE_BF16;
        ms_sample(res, NULL, &b, &t16, NULL);
        CHECK_EQ_I64(t32, t16);
        ms_commit(res, NULL);
    }
    /* fp16: 1.0 = 0x3c00, 2.0 = 0x4000, a subnormal 0x0001 = 2^-24 */
    uint16_t h[3] = {0x3c00, 0x4000, 0x0001};
    float hf[3] = {1.0f, 2.0f, 5.9604644775390625e-08f};
    ms_spec s3 = rich_spec(3, NULL, 0);
    ms_resource *r3 = make_res(&s3, 1, MS_BACKEND_CPU, 1);
    REQUIRE(r3);
    ms_req_config d = ms_req_config_default();
    d.temperature = 1.0f;
    ms_ingest(r3, 1, &d);
    uint64_t m16[3], m32[3];
    int32_t ids[3];
    ms_explanation i16, i32;
    CHECK_EQ_I64(ms_explain(r3, NULL, 1, h, MS_DTYPE_F16, 3, 3, ids, NULL, m16, &i16), MS_OK);
    CHECK_EQ_I64(ms_explain(r3, NULL, 1, hf, MS_DTYPE_F32, 3, 3, ids, NULL, m32, &i32), MS_OK);
    CHECK_EQ_I64(i16.n_kept, 3);
    for (int i = 0; i < 3; i++) CHECK_EQ_U64(m16[i], m32[i]);
    ms_resource_free(r3);
    ms_resource_free(res);
}

/* Rows of one request in a call draw with counters (n, k): position among the request's rows. */
TEST(several_rows_per_request) {
    enum { V = 500 };
    ms_spec s = rich_spec(V, NULL, 0);
    ms_resource *res = make_res(&s, 4, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = cfg_sampling(2024);
    c.top_k = 0;
    c.top_p = 1.0f;
    c.temperature = 2.0f;
    ms_ingest(res, 1, &c);
    ms_ingest(res, 2, &c);
    static float rows[4][V];
    ms_trng r = {10};
    fill_logits(&rows[0][0], 4 * V, &r, 0.1);
    for (int i = 1; i < 4; i++) memcpy(rows[i], rows[0], sizeof rows[0]);
    int64_t rids[4] = {1, 2, 1, 1};
    int32_t tok[4], tok2[4];
    ms_batch b = {4, rids, rows, MS_DTYPE_F32, V, 0};
    CHECK_EQ_I64(ms_sample(res, NULL, &b, tok, NULL), MS_OK);
    /* request 1's rows 0, 2, 3 are its k = 0, 1, 2; request 2's row is k = 0, like request 1's first */
    CHECK_EQ_I64(tok[0], tok[1]);
    CHECK_MSG(!(tok[0] == tok[2] && tok[2] == tok[3]), "k must change the draw");
    int64_t rids2[3] = {2, 1, 1};
    b.n_rows = 3;
    b.rids = rids2;
    CHECK_EQ_I64(ms_sample(res, NULL, &b, tok2, NULL), MS_OK);
    CHECK_EQ_I64(tok2[1], tok[0]);
    CHECK_EQ_I64(tok2[2], tok[2]);
    /* commit appends all three of request 1's tokens: n grows by 3 */
    b.n_rows = 4;
    b.rids = rids;
    ms_sample(res, NULL, &b, tok, NULL);
    CHECK_EQ_I64(ms_commit(res, NULL), 4);
    ms_resource *ref = make_res(&s, 1, MS_BACKEND_CPU, 1);
    REQUIRE(ref);
    ms_ingest(ref, 1, &c);
    int32_t three[3] = {tok[0], tok[2], tok[3]};
    ms_accept(ref, 1, three, 3);
    int32_t ta, tb;
    sample1(res, NULL, 1, rows[0], V, &ta);
    sample1(ref, NULL, 1, rows[0], V, &tb);
    CHECK_EQ_I64(ta, tb);
    ms_resource_free(ref);
    ms_resource_free(res);
}

/* Any thread count and either CPU backend draws the same tokens. */
TEST(determinism_threads_and_backends) {
    enum { NREQ = 37, V = 3000 };
    ms_spec s = rich_spec(V, NULL, 0);
    ms_resource *res[4] = {make_res(&s, 64, MS_BACKEND_CPU_REF, 1), make_res(&s, 64, MS_BACKEND_CPU, 1),
                           make_res(&s, 64, MS_BACKEND_CPU, 2), make_res(&s, 64, MS_BACKEND_CPU, 3)};
    for (int k = 0; k < 4; k++) REQUIRE(res[k]);
    static float logits[NREQ][V];
    int64_t rids[NREQ];
    ms_trng r = {77};
    for (int i = 0; i < NREQ; i++) {
        rids[i] = i;
        ms_req_config c = cfg_sampling(ms_trng_next(&r));
        c.min_p = (i % 3) ? 0.02f : 0.0f;
        c.top_k = (int32_t)(i % 4) * 15;
        c.repetition_penalty = 1.1f;
        for (int k = 0; k < 4; k++) CHECK_EQ_I64(ms_ingest(res[k], rids[i], &c), MS_OK);
    }
    for (int step = 0; step < 4; step++) {
        fill_logits(&logits[0][0], NREQ * V, &r, 2.5);
        int32_t tok[4][NREQ];
        for (int k = 0; k < 4; k++) {
            ms_batch b = {NREQ, rids, logits, MS_DTYPE_F32, V, 0};
            CHECK_EQ_I64(ms_sample(res[k], NULL, &b, tok[k], NULL), MS_OK);
            CHECK_EQ_I64(ms_commit(res[k], NULL), NREQ);
        }
        for (int k = 1; k < 4; k++)
            for (int i = 0; i < NREQ; i++) CHECK_MSG(tok[k][i] == tok[0][i], "resource %d row %d", k, i);
    }
    for (int k = 0; k < 4; k++) ms_resource_free(res[k]);
}

/* A caller with flush-to-zero / denormals-are-zero set gets the same tokens, and its MXCSR back. */
TEST(fp_environment_is_isolated) {
#if defined(__x86_64__) || defined(__i386__)
    enum { V = 64 };
    ms_spec s = rich_spec(V, NULL, 0);
    ms_resource *res = make_res(&s, 2, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = ms_req_config_default();
    c.temperature = 1e-3f; /* subnormal-range logits divided into normal range */
    c.seed = 5;
    ms_ingest(res, 1, &c);
    float row[V];
    for (int i = 0; i < V; i++) row[i] = (float)(i + 1) * 1e-40f; /* subnormal logits */
    ms_explanation a, b;
    uint64_t ma[V], mb[V];
    int32_t ids[V];
    CHECK_EQ_I64(ms_explain(res, NULL, 1, row, MS_DTYPE_F32, V, V, ids, NULL, ma, &a), MS_OK);
    unsigned saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040u); /* FTZ | DAZ */
    int rc = ms_explain(res, NULL, 1, row, MS_DTYPE_F32, V, V, ids, NULL, mb, &b);
    unsigned after = _mm_getcsr();
    _mm_setcsr(saved);
    CHECK_EQ_I64(rc, MS_OK);
    CHECK_EQ_U64(after, saved | 0x8040u);
    CHECK_EQ_I64(a.n_kept, b.n_kept);
    for (int i = 0; i < a.n_kept && i < b.n_kept; i++) CHECK_EQ_U64(ma[i], mb[i]);
    ms_resource_free(res);
#endif
}

TEST(explain_reports_space_needed) {
    enum { V = 50 };
    ms_spec s = rich_spec(V, NULL, 0);
    ms_resource *res = make_res(&s, 1, MS_BACKEND_CPU, 1);
    REQUIRE(res);
    ms_req_config c = ms_req_config_default();
    c.temperature = 1.0f;
    ms_ingest(res, 1, &c);
    float row[V] = {0};
    int32_t ids[V];
    ms_explanation info;
    CHECK_EQ_I64(ms_explain(res, NULL, 1, row, MS_DTYPE_F32, V, 10, ids, NULL, NULL, &info), MS_ENOSPC);
    CHECK_EQ_I64(info.n_kept, V);
    CHECK_EQ_I64(ms_explain(res, NULL, 1, row, MS_DTYPE_F32, V, V, ids, NULL, NULL, &info), MS_OK);
    CHECK_EQ_I64(info.n_kept, V);
    CHECK_EQ_U64(info.total_mass, (uint64_t)V << 40);
    CHECK_EQ_I64(ms_explain(res, NULL, 2, row, MS_DTYPE_F32, V, V, ids, NULL, NULL, &info), MS_ENOENT);
    ms_resource_free(res);
}
