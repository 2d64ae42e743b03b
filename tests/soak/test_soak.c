/*
 * test_soak.c: a model-based soak test of the resource (issue 7).
 *
 * A resource is driven through long random sequences of operations: ingest with valid and invalid
 * configs, remove, plan, sample, commit with kept_rids, accept, explain, and bad inputs that must
 * fail. A plain model follows what the SPEC says the state should be: the resident set, and per
 * request its config, committed count n, prompt tokens (the seen set's prefill part) and the full
 * list of committed tokens (history and seen set). After every operation the resource is checked
 * against the model through the public API only:
 *  - the resident set: ms_resident and ms_contains for every id of the pool;
 *  - seen set, window counts and n: ms_explain of a probe row (every logit 1.0, filters off) on a
 *    resident request. The model computes each token's penalised logit with the SPEC's fp32 rules,
 *    and the explained masses must order the tokens exactly as those logits do (equal logits, equal
 *    masses; greater logits, greater masses), with the stop ids out of the support exactly while
 *    n < min_tokens. Greedy requests must pick the model's argmax. After a failing call every
 *    resident request is probed, so "a failing call changes nothing" is checked in full;
 *  - tokens: each sampled row must equal the row drawn by a fresh resource of the reference
 *    backend that is given the model's state (ingest, plan with the prompt, accept the history);
 *    explain must equal that fresh resource's explain, id for id and mass for mass.
 * The pending rows of the last sample are modelled too (commit appends the kept rows of requests
 * not removed since, in row order; a second commit is MS_ESTATE; a failing sample keeps them).
 *
 * MS_SOAK_OPS in the environment scales the number of operations (for a longer or a valgrind run).
 */
#include <math.h>
#include <stdlib.h>

#include "ms_test.h"
#include "msampler.h"

#define SK_POOL 9       /* request ids 0..8, more than the capacity */
#define SK_ROWS 8       /* max_rows */
#define SK_MAXV 64      /* widest vocabulary of the soaks */
#define SK_HIST 400     /* a request is removed before its history outgrows this */
#define SK_PROMPT 64

typedef struct sk_req {
    bool resident;
    uint32_t gen;       /* bumped at every ingest: pending rows of an earlier life are dropped */
    ms_req_config cfg;
    int32_t prompt[SK_PROMPT]; /* distinct prefill tokens, in the order they were planned */
    int32_t n_prompt;
    int32_t hist[SK_HIST];     /* every committed token; n = n_hist */
    int32_t n_hist;
} sk_req;

typedef struct sk_pending {
    int32_t rid;
    uint32_t gen;
    int32_t token;
} sk_pending;

typedef struct sk_soak {
    ms_spec spec;
    int32_t V;          /* spec vocab_size (0 = the row width decides) */
    int32_t width_max;  /* max_vocab when V = 0 */
    int32_t capacity;
    ms_resource *res;
    ms_trng rng;
    sk_req req[SK_POOL];
    int32_t n_resident;
    sk_pending pending[SK_ROWS];
    int32_t n_pending;
    bool has_pending;
    bool refused;       /* the last operation was (rightly) refused */
    long ops, failures_expected, samples_checked, probes;
} sk_soak;

static uint32_t sk_below(sk_soak *k, uint32_t n) { return ms_trng_below(&k->rng, n); }
static bool sk_chance(sk_soak *k, double p) { return ms_trng_unit(&k->rng) < p; }

static int32_t sk_vocab(const sk_soak *k) { return k->V > 0 ? k->V : k->width_max; }

/* ---- configs ------------------------------------------------------------------------------- */

static ms_req_config sk_valid_config(sk_soak *k) {
    static const float temps[] = {0.0f, 0.3f, 0.7f, 1.0f, 1.5f};
    static const float pens[] = {1.0f, 0.8f, 1.25f, 1.5f, 2.0f};
    static const int32_t windows[] = {0, 0, 1, 2, 4};
    static const int32_t top_ks[] = {0, 1, 3, 10, 50};
    static const float top_ps[] = {1.0f, 0.9f, 0.5f};
    static const float min_ps[] = {0.0f, 0.05f, 0.2f};
    static const int32_t min_tokens[] = {0, 0, 2, 5};
    ms_req_config c = ms_req_config_default();
    c.temperature = temps[sk_below(k, 5)];
    c.top_k = top_ks[sk_below(k, 5)];
    c.top_p = top_ps[sk_below(k, 3)];
    c.penalize_prompt = sk_chance(k, 0.7);
    c.ignore_eos = sk_chance(k, 0.5);
    c.seed = ms_trng_next(&k->rng);
    if (k->spec.enable_repetition_penalty || k->spec.max_repetition_window > 0) {
        c.repetition_penalty = pens[sk_below(k, 5)];
        c.repetition_window = windows[sk_below(k, 5)];
        if (c.repetition_window > k->spec.max_repetition_window) c.repetition_window = 0;
        if (c.repetition_window == 0 && !k->spec.enable_repetition_penalty) c.repetition_penalty = 1.0f;
    }
    if (k->spec.enable_min_p) c.min_p = min_ps[sk_below(k, 3)];
    if (k->spec.n_min_tokens_stop_ids) c.min_tokens = min_tokens[sk_below(k, 4)];
    if (k->spec.enable_top_p_first) {
        c.top_p_first = sk_chance(k, 0.3);
        c.top_p_min_keep = 1 + (int32_t)sk_below(k, 3);
    }
    return c;
}

/* A config that breaks exactly one rule (absolute, or a capability the spec lacks). */
static ms_req_config sk_invalid_config(sk_soak *k, int *expect) {
    ms_req_config c = sk_valid_config(k);
    *expect = MS_ECONFIG;
    for (;;) {
        switch (sk_below(k, 14)) {
        case 0: c.temperature = NAN; return c;
        case 1: c.temperature = -0.5f; return c;
        case 2: c.top_p = 0.0f; return c;
        case 3: c.top_p = 1.5f; return c;
        case 4: c.min_p = -0.1f; return c;
        case 5: c.repetition_penalty = 0.0f; return c;
        case 6: c.top_k = -1; return c;
        case 7: c.min_tokens = -3; return c;
        case 8: c.top_p_min_keep = 0; return c;
        case 9: c.repetition_penalty = INFINITY; return c;
        case 10:
            *expect = MS_ECAPABILITY;
            c.repetition_window = k->spec.max_repetition_window + 1;
            c.repetition_penalty = 1.5f;
            return c;
        case 11:
            if (k->spec.enable_min_p) continue;
            *expect = MS_ECAPABILITY;
            c.min_p = 0.1f;
            return c;
        case 12:
            if (k->spec.n_min_tokens_stop_ids) continue;
            *expect = MS_ECAPABILITY;
            c.min_tokens = 1;
            return c;
        default:
            if (k->spec.enable_top_p_first) continue;
            *expect = MS_ECAPABILITY;
            c.top_p_first = true;
            return c;
        }
    }
}

/* ---- the model's view of one request ------------------------------------------------------- */

static bool sk_is_stop(const sk_soak *k, int32_t t) {
    for (size_t i = 0; i < k->spec.n_min_tokens_stop_ids; i++)
        if (k->spec.min_tokens_stop_ids[i] == t) return true;
    return false;
}

/* SPEC 2 step 1 on a logit of 1.0 for token t, in fp32 as the SPEC writes it. */
static float sk_penalised_one(const sk_soak *k, const sk_req *q, int32_t t, bool apply_penalty) {
    float x = 1.0f, r = q->cfg.repetition_penalty;
    if (r == 1.0f) return x;
    if (q->cfg.repetition_window > 0) {
        int32_t n = 0;
        for (int32_t i = q->n_hist - 1; i >= 0 && i >= q->n_hist - q->cfg.repetition_window; i--) n += q->hist[i] == t;
        float f = 1.0f;
        for (int32_t i = 0; i < n; i++) f = f * r;
        return x > 0 ? x / f : x * f;
    }
    if (!apply_penalty || !k->spec.enable_repetition_penalty) return x;
    bool seen = false;
    for (int32_t i = 0; i < q->n_hist && !seen; i++) seen = q->hist[i] == t;
    for (int32_t i = 0; q->cfg.penalize_prompt && i < q->n_prompt && !seen; i++) seen = q->prompt[i] == t;
    return seen ? x / r : x;
}

/* Probes request rid with a constant row; see the file comment. */
static void sk_probe(sk_soak *k, int32_t rid) {
    const sk_req *q = &k->req[rid];
    const int32_t V = sk_vocab(k);
    float row[SK_MAXV], y[SK_MAXV];
    int32_t ids[SK_MAXV];
    uint64_t masses[SK_MAXV], qv[SK_MAXV];
    ms_explanation info;
    ms_step st = ms_step_default();
    st.apply_filters = false;
    st.apply_penalty = sk_chance(k, 0.8);
    for (int32_t t = 0; t < V; t++) row[t] = 1.0f;
    int rc = ms_explain(k->res, &st, rid, row, MS_DTYPE_F32, V, V, ids, NULL, masses, &info);
    k->probes++;
    if (rc != MS_OK) {
        MS_FAIL_AT("op %ld: probe of request %d: %s", k->ops, rid, ms_resource_last_error(k->res));
        return;
    }
    const bool floor = (uint64_t)q->n_hist < (uint64_t)q->cfg.min_tokens && k->spec.n_min_tokens_stop_ids > 0;
    for (int32_t t = 0; t < V; t++) y[t] = sk_penalised_one(k, q, t, st.apply_penalty);
    if (q->cfg.temperature < 1e-5f) {
        int32_t best = -1;
        for (int32_t t = 0; t < V; t++)
            if (!(floor && sk_is_stop(k, t)) && (best < 0 || y[t] > y[best])) best = t;
        CHECK_MSG(info.greedy && info.n_kept == 1 && ids[0] == best,
                  "op %ld: greedy probe of request %d: id %d, model %d (n=%d)", k->ops, rid, ids[0], best, q->n_hist);
        CHECK_MSG(info.floor_active == floor, "op %ld: request %d floor %d, model %d", k->ops, rid, info.floor_active, floor);
        return;
    }
    for (int32_t t = 0; t < V; t++) y[t] = y[t] / q->cfg.temperature;
    int32_t expect_kept = 0;
    for (int32_t t = 0; t < V; t++) expect_kept += !(floor && sk_is_stop(k, t));
    CHECK_MSG(info.floor_active == floor, "op %ld: request %d floor %d, model %d (n=%d, min_tokens=%d)", k->ops, rid,
              info.floor_active, floor, q->n_hist, q->cfg.min_tokens);
    if (info.n_kept != expect_kept) {
        MS_FAIL_AT("op %ld: request %d: %d ids in the support, model %d", k->ops, rid, info.n_kept, expect_kept);
        return;
    }
    memset(qv, 0, sizeof qv);
    for (int32_t i = 0; i < info.n_kept; i++) {
        if (floor && sk_is_stop(k, ids[i])) MS_FAIL_AT("op %ld: request %d: stop id %d drawn below min_tokens", k->ops, rid, ids[i]);
        qv[ids[i]] = masses[i];
    }
    /* masses must order tokens exactly as the model's penalised logits do */
    for (int32_t i = 0; i < info.n_kept; i++)
        for (int32_t j = i + 1; j < info.n_kept; j++) {
            int32_t a = ids[i], b = ids[j];
            int ym = (y[a] > y[b]) - (y[a] < y[b]);
            int qm = (qv[a] > qv[b]) - (qv[a] < qv[b]);
            if (ym != qm) {
                MS_FAIL_AT("op %ld: request %d (r=%g, window=%d, n=%d): tokens %d, %d: model order %d, masses %d",
                           k->ops, rid, (double)q->cfg.repetition_penalty, q->cfg.repetition_window, q->n_hist, a, b, ym, qm);
                return;
            }
        }
}

/* A fresh reference resource holding the model's state of rid. */
static ms_resource *sk_fresh(sk_soak *k, int32_t rid) {
    const sk_req *q = &k->req[rid];
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 1;
    p.max_rows = SK_ROWS;
    p.max_vocab = k->width_max;
    p.backend = MS_BACKEND_CPU_REF;
    p.n_threads = 1;
    ms_resource *f = NULL;
    if (ms_resource_create(&f, &k->spec, &p) != MS_OK) {
        MS_FAIL_AT("fresh resource: %s", ms_last_create_error());
        return NULL;
    }
    ms_step st = ms_step_default();
    ms_prefill pf = {rid, q->prompt, q->n_prompt};
    st.prefill = &pf;
    st.n_prefill = 1;
    if (ms_ingest(f, rid, &q->cfg) != MS_OK || ms_plan(f, &st) != MS_OK || ms_accept(f, rid, q->hist, q->n_hist) != MS_OK) {
        MS_FAIL_AT("fresh resource: %s", ms_resource_last_error(f));
        ms_resource_free(f);
        return NULL;
    }
    return f;
}

static void sk_check_resident(sk_soak *k) {
    CHECK_MSG(ms_resident(k->res) == k->n_resident, "op %ld: %d resident, model %d", k->ops, ms_resident(k->res),
              k->n_resident);
    for (int32_t r = 0; r < SK_POOL; r++)
        CHECK_MSG(ms_contains(k->res, r) == k->req[r].resident, "op %ld: contains(%d) = %d, model %d", k->ops, r,
                  ms_contains(k->res, r), k->req[r].resident);
    CHECK(!ms_contains(k->res, -1) && !ms_contains(k->res, SK_POOL) && !ms_contains(k->res, INT64_MIN));
}

static int32_t sk_pick_resident(sk_soak *k) {
    if (k->n_resident == 0) return -1;
    int32_t i = (int32_t)sk_below(k, (uint32_t)k->n_resident);
    for (int32_t r = 0; r < SK_POOL; r++)
        if (k->req[r].resident && i-- == 0) return r;
    return -1;
}

static int32_t sk_pick_absent(sk_soak *k) {
    for (int tries = 0; tries < 20; tries++) {
        int32_t r = (int32_t)sk_below(k, SK_POOL);
        if (!k->req[r].resident) return r;
    }
    return SK_POOL + 5; /* never resident */
}

/* ---- logits ---------------------------------------------------------------------------------- */

static uint16_t sk_f16_bits(sk_soak *k) {
    uint32_t u = (uint32_t)ms_trng_next(&k->rng);
    uint16_t sign = (uint16_t)((u & 1u) << 15), exp = (uint16_t)(9 + (u >> 1) % 9), man = (uint16_t)((u >> 8) & 0x3ffu);
    return (uint16_t)(sign | (exp << 10) | man); /* about 2^-6 .. 2^2 in magnitude */
}

static void sk_fill_row(sk_soak *k, void *row, ms_dtype dt, int32_t width) {
    const int mode = (int)sk_below(k, 40); /* 0: empty row (all -inf / NaN); 1: some +inf; 2: some NaN */
    for (int32_t t = 0; t < width; t++) {
        float x = (float)(2.0 * ms_trng_normal(&k->rng));
        if (mode == 0) x = sk_chance(k, 0.5) ? -INFINITY : NAN;
        else if (mode == 1 && sk_chance(k, 0.1)) x = INFINITY;
        else if (mode == 2 && sk_chance(k, 0.2)) x = NAN;
        else if (sk_chance(k, 0.02)) x = -INFINITY;
        if (dt == MS_DTYPE_F32) ((float *)row)[t] = x;
        else {
            uint16_t b;
            if (dt == MS_DTYPE_F16) {
                b = sk_f16_bits(k);
                if (isnan(x)) b = 0x7e00;
                else if (isinf(x)) b = x > 0 ? 0x7c00 : 0xfc00;
            } else {
                uint32_t u;
                memcpy(&u, &x, 4);
                b = (uint16_t)(u >> 16);
            }
            ((uint16_t *)row)[t] = b;
        }
    }
}

/* ---- operations ------------------------------------------------------------------------------ */

static void sk_op_ingest(sk_soak *k) {
    int32_t rid;
    ms_req_config c;
    int expect = MS_OK;
    const int kind = (int)sk_below(k, 10);
    if (kind < 6) { /* valid, on an absent id */
        rid = sk_pick_absent(k);
        if (rid >= SK_POOL) return;
        c = sk_valid_config(k);
        if (k->n_resident == k->capacity) expect = MS_EFULL;
    } else if (kind < 8) {
        rid = sk_pick_absent(k);
        if (rid >= SK_POOL) return;
        c = sk_invalid_config(k, &expect);
    } else { /* duplicate */
        rid = sk_pick_resident(k);
        if (rid < 0) return;
        c = sk_valid_config(k);
        expect = MS_EEXIST;
    }
    int rc = ms_ingest(k->res, rid, &c);
    k->refused = rc < 0;
    CHECK_MSG(rc == expect, "op %ld: ingest(%d) = %d, expected %d: %s", k->ops, rid, rc, expect, ms_resource_last_error(k->res));
    if (rc == MS_OK) {
        sk_req *q = &k->req[rid];
        q->resident = true;
        q->gen++;
        q->cfg = c;
        q->n_prompt = 0;
        q->n_hist = 0;
        k->n_resident++;
    }
}

static void sk_op_remove(sk_soak *k) {
    bool known = sk_chance(k, 0.85);
    int32_t rid = known ? sk_pick_resident(k) : sk_pick_absent(k);
    if (rid < 0) return;
    int rc = ms_remove(k->res, rid);
    k->refused = rc < 0;
    if (rid < SK_POOL && k->req[rid].resident) {
        CHECK_MSG(rc == MS_OK, "op %ld: remove(%d) = %d", k->ops, rid, rc);
        k->req[rid].resident = false;
        k->n_resident--;
    } else {
        CHECK_MSG(rc == MS_ENOENT, "op %ld: remove of absent %d = %d", k->ops, rid, rc);
    }
}

static void sk_op_plan(sk_soak *k) {
    const int32_t V = sk_vocab(k);
    int32_t toks[2][6];
    ms_prefill pf[2];
    int32_t n = 1 + (int32_t)sk_below(k, 2);
    int expect = MS_OK;
    for (int32_t i = 0; i < n; i++) {
        int32_t rid = sk_pick_resident(k);
        if (rid < 0) return;
        pf[i].rid = rid;
        pf[i].n_tokens = (int32_t)sk_below(k, 7);
        for (int32_t j = 0; j < pf[i].n_tokens; j++) toks[i][j] = (int32_t)sk_below(k, (uint32_t)V);
        pf[i].tokens = toks[i];
    }
    const int bad = (int)sk_below(k, 8);
    if (bad == 0 && pf[n - 1].n_tokens > 0) { /* a token outside [0, V) in the last prefill */
        toks[n - 1][pf[n - 1].n_tokens - 1] = k->V > 0 && sk_chance(k, 0.5) ? k->V : -1 - (int32_t)sk_below(k, 5);
        expect = MS_ERANGE;
    } else if (bad == 1) {
        pf[n - 1].rid = sk_pick_absent(k);
        expect = MS_ENOENT;
    }
    ms_step st = ms_step_default();
    st.prefill = pf;
    st.n_prefill = n;
    int rc = ms_plan(k->res, &st);
    k->refused = rc < 0;
    CHECK_MSG(rc == expect, "op %ld: plan = %d, expected %d: %s", k->ops, rc, expect, ms_resource_last_error(k->res));
    if (rc != MS_OK) return;
    for (int32_t i = 0; i < n; i++) {
        sk_req *q = &k->req[pf[i].rid];
        for (int32_t j = 0; j < pf[i].n_tokens; j++) {
            bool have = false;
            for (int32_t m = 0; m < q->n_prompt && !have; m++) have = q->prompt[m] == pf[i].tokens[j];
            if (!have && q->n_prompt < SK_PROMPT) q->prompt[q->n_prompt++] = pf[i].tokens[j];
        }
    }
}

static void sk_op_accept(sk_soak *k) {
    const int32_t V = sk_vocab(k);
    int32_t rid = sk_chance(k, 0.9) ? sk_pick_resident(k) : sk_pick_absent(k);
    if (rid < 0) return;
    int32_t toks[4];
    int32_t n = (int32_t)sk_below(k, 5);
    for (int32_t i = 0; i < n; i++) toks[i] = (int32_t)sk_below(k, (uint32_t)V);
    int expect = rid < SK_POOL && k->req[rid].resident ? MS_OK : MS_ENOENT;
    if (expect == MS_OK && n > 0 && sk_chance(k, 0.15)) {
        toks[n - 1] = k->V > 0 && sk_chance(k, 0.5) ? k->V + (int32_t)sk_below(k, 3) : -1;
        expect = MS_ERANGE;
    }
    if (expect == MS_OK && sk_chance(k, 0.05)) {
        n = -1;
        expect = MS_EINVAL;
    }
    int rc = ms_accept(k->res, rid, toks, n);
    k->refused = rc < 0;
    CHECK_MSG(rc == expect, "op %ld: accept(%d, n=%d) = %d, expected %d: %s", k->ops, rid, n, rc, expect,
              ms_resource_last_error(k->res));
    if (rc == MS_OK) {
        sk_req *q = &k->req[rid];
        for (int32_t i = 0; i < n; i++) q->hist[q->n_hist++] = toks[i];
    }
}

static void sk_op_sample(sk_soak *k) {
    const int32_t V = sk_vocab(k);
    int32_t n_rows = 1 + (int32_t)sk_below(k, SK_ROWS);
    int64_t rids[SK_ROWS + 1];
    for (int32_t i = 0; i < n_rows; i++) {
        int32_t r = sk_pick_resident(k);
        if (r < 0) return;
        rids[i] = r;
    }
    ms_dtype dt = (ms_dtype)sk_below(k, 3);
    int32_t width = k->V > 0 ? V + (int32_t)sk_below(k, 4) : 1 + (int32_t)sk_below(k, (uint32_t)V);
    int64_t stride = sk_chance(k, 0.7) ? 0 : width + (int64_t)sk_below(k, 3);
    int64_t es = stride ? stride : width;
    size_t esz = dt == MS_DTYPE_F32 ? 4 : 2;
    static unsigned char buf[(SK_ROWS + 1) * (SK_MAXV + 8) * 4];
    for (int32_t i = 0; i < n_rows; i++) sk_fill_row(k, buf + (size_t)i * (size_t)es * esz, dt, width);
    ms_batch b = {n_rows, rids, buf, dt, width, stride};
    ms_step st = ms_step_default();
    st.apply_penalty = sk_chance(k, 0.8);
    st.apply_filters = sk_chance(k, 0.85);
    int expect = MS_OK;
    const int bad = (int)sk_below(k, 12);
    if (bad == 0) {
        rids[sk_below(k, (uint32_t)n_rows)] = sk_pick_absent(k);
        expect = MS_ENOENT;
    } else if (bad == 1) {
        b.dtype = (ms_dtype)(3 + (int)sk_below(k, 5));
        expect = MS_EDTYPE;
    } else if (bad == 2 && k->V > 1) {
        b.width = k->V - 1;
        b.row_stride = 0;
        expect = MS_ESHAPE;
    } else if (bad == 3) {
        b.row_stride = width - 1 - (int64_t)sk_below(k, 3);
        if (b.row_stride == 0) b.row_stride = -1;
        expect = MS_ESHAPE;
    } else if (bad == 4) {
        b.n_rows = sk_chance(k, 0.5) ? SK_ROWS + 1 : -1;
        expect = MS_ESHAPE;
    } else if (bad == 5 && k->V == 0) {
        b.width = k->width_max + 1;
        expect = MS_ESHAPE;
    }
    int32_t tokens[SK_ROWS + 1], status[SK_ROWS + 1];
    int rc = ms_sample(k->res, &st, &b, tokens, status);
    k->refused = rc < 0;
    CHECK_MSG(rc == expect, "op %ld: sample = %d, expected %d: %s", k->ops, rc, expect, ms_resource_last_error(k->res));
    if (rc != MS_OK) return; /* the pending rows of the last good sample stay */
    const int32_t Vrow = k->V > 0 ? k->V : width;
    for (int32_t i = 0; i < n_rows; i++) {
        CHECK_MSG(tokens[i] >= -1 && tokens[i] < Vrow, "op %ld: row %d token %d", k->ops, i, tokens[i]);
        CHECK((tokens[i] == -1) == (status[i] == MS_ROW_EMPTY));
        k->pending[i].rid = (int32_t)rids[i];
        k->pending[i].gen = k->req[rids[i]].gen;
        k->pending[i].token = tokens[i];
    }
    k->n_pending = n_rows;
    k->has_pending = true;
    /* each request's rows against a fresh reference resource given the model's state */
    for (int32_t i = 0; i < n_rows; i++) {
        bool first = true;
        for (int32_t j = 0; j < i; j++) first &= rids[j] != rids[i];
        if (!first) continue;
        ms_resource *f = sk_fresh(k, (int32_t)rids[i]);
        if (!f) return;
        static unsigned char fbuf[(SK_ROWS + 1) * (SK_MAXV + 8) * 4];
        int64_t frids[SK_ROWS];
        int32_t map[SK_ROWS], nf = 0;
        for (int32_t j = i; j < n_rows; j++)
            if (rids[j] == rids[i]) {
                memcpy(fbuf + (size_t)nf * (size_t)width * esz, buf + (size_t)j * (size_t)es * esz, (size_t)width * esz);
                frids[nf] = rids[j];
                map[nf++] = j;
            }
        ms_batch fb = {nf, frids, fbuf, dt, width, 0};
        int32_t ft[SK_ROWS], fs[SK_ROWS];
        CHECK_EQ_I64(ms_sample(f, &st, &fb, ft, fs), MS_OK);
        for (int32_t m = 0; m < nf; m++)
            CHECK_MSG(ft[m] == tokens[map[m]] && fs[m] == status[map[m]],
                      "op %ld: request %d row %d: token %d, fresh resource %d (n=%d)", k->ops, (int)rids[i], map[m],
                      tokens[map[m]], ft[m], k->req[rids[i]].n_hist);
        k->samples_checked += nf;
        ms_resource_free(f);
    }
    /* sampling again draws the same (sample changes no state) */
    if (sk_chance(k, 0.1)) {
        int32_t again[SK_ROWS + 1];
        CHECK_EQ_I64(ms_sample(k->res, &st, &b, again, NULL), MS_OK);
        for (int32_t i = 0; i < n_rows; i++) CHECK(again[i] == tokens[i]);
    }
}

static void sk_op_commit(sk_soak *k) {
    int64_t kept[4];
    ms_step st = ms_step_default();
    const int kind = (int)sk_below(k, 4);
    bool keep[SK_POOL + 8];
    memset(keep, kind == 0, sizeof keep);
    if (kind > 0) {
        st.kept_rids = kept;
        st.n_kept_rids = kind == 1 ? 0 : 1 + (int32_t)sk_below(k, 4);
        for (int32_t i = 0; i < st.n_kept_rids; i++) {
            kept[i] = sk_chance(k, 0.8) ? (int64_t)sk_below(k, SK_POOL) : 1000 + (int64_t)i; /* ids never resident are ignored */
            if (kept[i] < SK_POOL) keep[kept[i]] = true;
        }
    }
    int rc = ms_commit(k->res, &st);
    k->refused = rc < 0;
    if (!k->has_pending) {
        CHECK_MSG(rc == MS_ESTATE, "op %ld: commit without a sample = %d", k->ops, rc);
        return;
    }
    int expect = 0;
    for (int32_t i = 0; i < k->n_pending; i++) {
        const sk_pending *p = &k->pending[i];
        sk_req *q = &k->req[p->rid];
        if (!q->resident || q->gen != p->gen || p->token < 0 || !keep[p->rid]) continue;
        q->hist[q->n_hist++] = p->token;
        expect++;
    }
    CHECK_MSG(rc == expect, "op %ld: commit = %d, model %d", k->ops, rc, expect);
    k->has_pending = false;
    k->n_pending = 0;
}

static void sk_op_explain(sk_soak *k) {
    const int32_t V = sk_vocab(k);
    int32_t rid = sk_chance(k, 0.95) ? sk_pick_resident(k) : sk_pick_absent(k);
    if (rid < 0) return;
    static unsigned char row[(SK_MAXV + 8) * 4];
    ms_dtype dt = (ms_dtype)sk_below(k, 3);
    int32_t width = k->V > 0 ? V + (int32_t)sk_below(k, 3) : 1 + (int32_t)sk_below(k, (uint32_t)V);
    sk_fill_row(k, row, dt, width);
    ms_step st = ms_step_default();
    st.apply_penalty = sk_chance(k, 0.8);
    st.apply_filters = sk_chance(k, 0.85);
    int32_t ids[SK_MAXV + 8], fids[SK_MAXV + 8];
    uint64_t m[SK_MAXV + 8], fm[SK_MAXV + 8];
    ms_explanation info, finfo;
    int rc = ms_explain(k->res, &st, rid, row, dt, width, width, ids, NULL, m, &info);
    k->refused = rc < 0;
    if (rid >= SK_POOL || !k->req[rid].resident) {
        CHECK_MSG(rc == MS_ENOENT, "op %ld: explain of absent %d = %d", k->ops, rid, rc);
        return;
    }
    CHECK_MSG(rc == MS_OK, "op %ld: explain = %d: %s", k->ops, rc, ms_resource_last_error(k->res));
    ms_resource *f = sk_fresh(k, rid);
    if (!f) return;
    CHECK_EQ_I64(ms_explain(f, &st, rid, row, dt, width, width, fids, NULL, fm, &finfo), MS_OK);
    CHECK_MSG(info.n_kept == finfo.n_kept && info.status == finfo.status && info.total_mass == finfo.total_mass &&
                  info.greedy == finfo.greedy && info.floor_active == finfo.floor_active,
              "op %ld: explain of request %d differs from a fresh resource (%d vs %d ids)", k->ops, rid, info.n_kept,
              finfo.n_kept);
    for (int32_t i = 0; i < info.n_kept && i < finfo.n_kept && info.status == MS_ROW_OK; i++)
        CHECK_MSG(ids[i] == fids[i] && m[i] == fm[i], "op %ld: explain of request %d: id %d mass %llu vs %d %llu", k->ops,
                  rid, ids[i], (unsigned long long)m[i], fids[i], (unsigned long long)fm[i]);
    ms_resource_free(f);
}

/* NULL pointers and nonsense that every entry point must refuse without touching state. */
static void sk_op_bad(sk_soak *k) {
    int32_t rid = sk_pick_resident(k);
    if (rid < 0) return; /* with no request resident some of these are MS_ENOENT first */
    int rc;
    ms_step st = ms_step_default();
    ms_prefill pf = {rid, NULL, 3};
    int32_t tok;
    ms_explanation info;
    float row[SK_MAXV + 4] = {0};
    switch (sk_below(k, 7)) {
    case 0: rc = ms_ingest(k->res, rid, NULL); break;
    case 1: rc = ms_sample(k->res, &st, NULL, &tok, NULL); break;
    case 2:
        st.prefill = &pf;
        st.n_prefill = 1;
        rc = ms_plan(k->res, &st);
        break;
    case 3:
        st.prefill = &pf;
        st.n_prefill = -2;
        rc = ms_plan(k->res, &st);
        break;
    case 4: rc = ms_accept(k->res, rid, NULL, 2); break;
    case 5: rc = ms_explain(k->res, NULL, rid, row, MS_DTYPE_F32, sk_vocab(k), -1, NULL, NULL, NULL, &info); break;
    default: {
        int64_t r = rid;
        ms_batch b = {1, &r, NULL, MS_DTYPE_F32, sk_vocab(k), 0};
        rc = ms_sample(k->res, &st, &b, &tok, NULL);
        break;
    }
    }
    k->refused = rc < 0;
    CHECK_MSG(rc == MS_EINVAL, "op %ld: a bad call returned %d", k->ops, rc);
    CHECK(ms_resource_last_error(k->res)[0] != '\0');
}

static void sk_run(sk_soak *k, long n_ops) {
    for (k->ops = 0; k->ops < n_ops && ms_test_failures < 10; k->ops++) {
        /* keep histories bounded: a long-lived request leaves */
        for (int32_t r = 0; r < SK_POOL; r++)
            if (k->req[r].resident && k->req[r].n_hist > SK_HIST - 2 * SK_ROWS) {
                CHECK_EQ_I64(ms_remove(k->res, r), MS_OK);
                k->req[r].resident = false;
                k->n_resident--;
            }
        const int before = ms_test_failures;
        const uint32_t pick = sk_below(k, 100);
        k->refused = false;
        if (pick < 16) sk_op_ingest(k);
        else if (pick < 24) sk_op_remove(k);
        else if (pick < 34) sk_op_plan(k);
        else if (pick < 56) sk_op_sample(k);
        else if (pick < 72) sk_op_commit(k);
        else if (pick < 82) sk_op_accept(k);
        else if (pick < 94) sk_op_explain(k);
        else sk_op_bad(k);
        sk_check_resident(k);
        /* after a refused call (and now and then anyway) every request is probed; otherwise one */
        const bool failed_call = k->refused;
        if (failed_call || k->ops % 64 == 0) {
            for (int32_t r = 0; r < SK_POOL; r++)
                if (k->req[r].resident) sk_probe(k, r);
            if (failed_call) k->failures_expected++;
        } else {
            int32_t r = sk_pick_resident(k);
            if (r >= 0) sk_probe(k, r);
        }
        if (ms_test_failures > before) fprintf(stderr, "  (failure at op %ld)\n", k->ops);
    }
}

static long sk_ops(long dflt) {
    const char *e = getenv("MS_SOAK_OPS");
    if (e && *e) {
        double scale = atof(e) / 100000.0; /* MS_SOAK_OPS is the total over the soaks */
        if (scale > 0) return (long)(dflt * scale) + 1;
    }
    return dflt;
}

static void sk_soak_run(ms_spec spec, int32_t capacity, int32_t width_max, int32_t threads, ms_backend backend,
                        uint64_t seed, long n_ops) {
    static sk_soak k; /* large; one soak per runner process at a time */
    memset(&k, 0, sizeof k);
    k.spec = spec;
    k.V = spec.vocab_size;
    k.width_max = width_max;
    k.capacity = capacity;
    k.rng.s = seed;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = capacity;
    p.max_rows = SK_ROWS;
    p.max_vocab = width_max;
    p.n_threads = threads;
    p.backend = backend;
    REQUIRE(ms_resource_create(&k.res, &spec, &p) == MS_OK);
    sk_run(&k, n_ops);
    printf("# soak: %ld operations (%ld refused as expected), %ld sampled rows checked against a fresh resource, "
           "%ld probes\n",
           k.ops, k.failures_expected, k.samples_checked, k.probes);
    ms_resource_free(k.res);
}

/* ---- the soaks ------------------------------------------------------------------------------- */

static const int32_t sk_stops[2] = {0, 5};

static ms_spec sk_rich_spec(void) {
    ms_spec s = ms_spec_default();
    s.resource_key = "soak";
    s.vocab_size = 37;
    s.enable_min_p = true;
    s.max_repetition_window = 4;
    s.min_tokens_stop_ids = sk_stops;
    s.n_min_tokens_stop_ids = 2;
    s.enable_top_p_first = true;
    return s;
}

/* Every feature, V = 37, the fast CPU backend on one thread: 70,000 operations. */
TEST(soak_model_rich_spec) { sk_soak_run(sk_rich_spec(), 5, 64, 1, MS_BACKEND_CPU, 0x50a4, sk_ops(70000)); }

/* The same on three worker threads (the CPU backend's pool): 20,000 operations. */
TEST(soak_model_rich_spec_threads) { sk_soak_run(sk_rich_spec(), 4, 64, 3, MS_BACKEND_CPU, 0x7e4d, sk_ops(20000)); }

/* vocab_size None (the row width decides, up to max_vocab = 64), no penalties: 20,000 operations. */
TEST(soak_model_vocab_none) {
    ms_spec s = ms_spec_default();
    s.enable_repetition_penalty = false; /* needs a vocabulary */
    sk_soak_run(s, 3, 64, 1, MS_BACKEND_CPU, 0x3001, sk_ops(20000));
}
