/* test_stats.c: statistical tests of the draw (issue 2) over more than a million draws.
 *
 * For each of several distributions (each filter, the min-tokens floor, zero-mass tokens, fp16 rows
 * wider than V) a request's row is explained once, then drawn hundreds of thousands of times while
 * the Philox counter moves: several rows of one request per call (row_k), commit, accept and
 * kept_rids between calls (n). Half the cases use the default (fast) CPU backend, half the reference
 * backend, so both draw paths are checked. Checks:
 *   - a token outside the explained support (filtered, floored, q = 0, or a padded column) is never
 *     drawn;
 *   - the frequencies agree with the explained masses by a chi-square test at significance 1e-9
 *     (bins with fewer than 5 expected draws merged), so a correct sampler fails it with probability
 *     1e-9 whatever the seeds; the seeds are fixed, so the outcome is too;
 *   - the same chi-square rejects a perturbed distribution (1% of the mass moved between two tokens,
 *     or a masked token given its unfiltered mass) from the same counts: the test has the power to
 *     fail.
 */
#include <math.h>
#include <stdlib.h>

#include "ms_test.h"
#include "msampler.h"

#define STATS_ALPHA 1e-9
#define STATS_MIN_EXPECTED 5.0

/* ---- chi-square -------------------------------------------------------------------------------- */

/* Regularised upper incomplete gamma Q(a, x) (series below a + 1, Lentz continued fraction above). */
static double stats_gamma_q(double a, double x) {
    if (x <= 0) return 1.0;
    double lg = lgamma(a);
    if (x < a + 1.0) {
        double ap = a, sum = 1.0 / a, del = sum;
        for (int i = 0; i < 10000; i++) {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * 1e-15) break;
        }
        return 1.0 - sum * exp(-x + a * log(x) - lg);
    }
    double b = x + 1.0 - a, c = 1.0 / 1e-300, d = 1.0 / b, h = d;
    for (int i = 1; i < 10000; i++) {
        double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < 1e-300) d = 1e-300;
        c = b + an / c;
        if (fabs(c) < 1e-300) c = 1e-300;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-15) break;
    }
    return exp(-x + a * log(x) - lg) * h;
}

/* Chi-square of counts against probabilities p (n bins, summing to 1) over `draws` draws, merging
 * bins whose expectation is under STATS_MIN_EXPECTED into one. Returns the p-value. */
static double stats_chi_square(const uint64_t *counts, const double *p, int32_t n, uint64_t draws, double *chi2_out,
                               int32_t *df_out) {
    double chi2 = 0.0, rest_e = 0.0, rest_o = 0.0;
    int32_t bins = 0;
    for (int32_t i = 0; i < n; i++) {
        double e = p[i] * (double)draws;
        if (e < STATS_MIN_EXPECTED) {
            rest_e += e;
            rest_o += (double)counts[i];
            continue;
        }
        double d = (double)counts[i] - e;
        chi2 += d * d / e;
        bins++;
    }
    if (rest_e > 0.0 || rest_o > 0.0) {
        /* a merged bin with (almost) no expectation but draws is itself a failure */
        double e = rest_e > 1e-12 ? rest_e : 1e-12;
        double d = rest_o - e;
        chi2 += d * d / e;
        bins++;
    }
    int32_t df = bins > 1 ? bins - 1 : 1;
    if (chi2_out) *chi2_out = chi2;
    if (df_out) *df_out = df;
    return stats_gamma_q(0.5 * df, 0.5 * chi2);
}

TEST(stats_chi_square_calibration) {
    /* Q against known chi-square quantiles: P(chi2_1 > 3.841459) = 0.05, P(chi2_10 > 18.307) = 0.05,
     * P(chi2_100 > 124.342) = 0.05, P(chi2_2 > x) = exp(-x/2). */
    CHECK(fabs(stats_gamma_q(0.5, 3.841459 / 2) - 0.05) < 1e-6);
    CHECK(fabs(stats_gamma_q(5.0, 18.307038 / 2) - 0.05) < 1e-6);
    CHECK(fabs(stats_gamma_q(50.0, 124.342113 / 2) - 0.05) < 1e-6);
    CHECK(fabs(stats_gamma_q(1.0, 41.4465 / 2) - exp(-41.4465 / 2)) < 1e-15);
    /* exact counts pass; counts off by 10 sd fail */
    uint64_t counts[4] = {250000, 250000, 250000, 250000};
    double p[4] = {0.25, 0.25, 0.25, 0.25};
    CHECK(stats_chi_square(counts, p, 4, 1000000, NULL, NULL) > 0.999);
    counts[0] += 4330;
    counts[1] -= 4330;
    CHECK(stats_chi_square(counts, p, 4, 1000000, NULL, NULL) < STATS_ALPHA);
}

/* ---- the draws --------------------------------------------------------------------------------- */

typedef struct stats_case {
    const char *name;
    int32_t V, width;
    ms_dtype dtype;
    const char *shape;  /* "flat", "peaked", "grain" (tokens below the 2^-40 grain, NaN, -inf) */
    ms_req_config cfg;
    ms_backend backend;
    int32_t threads;
    int32_t rows_per_req; /* rows of each request in one call: row_k = 0 .. rows_per_req - 1 */
    int32_t n_reqs;
    int32_t calls;
} stats_case;

static void stats_row(const stats_case *c, uint64_t seed, float *x) {
    ms_trng r = {seed};
    for (int32_t t = 0; t < c->width; t++) {
        double g = ms_trng_normal(&r);
        if (!strcmp(c->shape, "peaked")) {
            g *= 3.0;
            if (ms_trng_unit(&r) < 0.03) g += 8.0;
        } else if (!strcmp(c->shape, "grain")) {
            uint32_t u = ms_trng_below(&r, 10);
            if (u == 0) g = -45.0 + g; /* w = e^-45 < 2^-40: q = 0, never drawn */
            if (u == 1) g = NAN;
            if (u == 2) g = -INFINITY;
        }
        x[t] = (float)g;
    }
    for (int32_t t = c->V; t < c->width; t++) x[t] = 1e4f; /* padded columns: never drawn */
}

static uint16_t stats_f32_to_f16(float f) {
    /* fp16 of f by round-to-nearest-even, for normal values of moderate size only (the rows here) */
    union { float f; uint32_t u; } v = {f};
    uint32_t sign = (v.u >> 16) & 0x8000u;
    int32_t e = (int32_t)((v.u >> 23) & 0xff) - 127 + 15;
    uint32_t man = v.u & 0x7fffffu;
    if (((v.u >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) return (uint16_t)sign; /* flush: tiny logits do not occur in these rows */
    uint32_t h = sign | ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)h;
}

/* Runs one case: explain, then calls x rows draws while n moves. Returns the draw count. */
static uint64_t stats_run(const stats_case *c, uint64_t row_seed) {
    static const int32_t stops[3] = {0, 1, 2};
    ms_spec spec = ms_spec_default();
    spec.resource_key = "stats";
    spec.vocab_size = c->V;
    spec.enable_min_p = true;
    spec.enable_top_p_first = true;
    spec.max_repetition_window = 4;
    spec.min_tokens_stop_ids = stops;
    spec.n_min_tokens_stop_ids = c->V >= 3 ? 3 : 0;
    ms_resource_params rp = ms_resource_params_default();
    rp.capacity = 4;
    rp.backend = c->backend;
    rp.n_threads = c->threads;
    ms_resource *res = NULL;
    if (ms_resource_create(&res, &spec, &rp) != MS_OK) {
        MS_FAIL_AT("%s: create: %s", c->name, ms_last_create_error());
        return 0;
    }
    const int32_t R = c->rows_per_req * c->n_reqs, W = c->width, V = c->V;
    float *x = (float *)malloc((size_t)W * sizeof(float));
    uint16_t *h = (uint16_t *)malloc((size_t)W * sizeof(uint16_t));
    void *rows = malloc((size_t)R * (size_t)W * sizeof(float));
    int64_t *rids = (int64_t *)malloc((size_t)R * sizeof(int64_t));
    int32_t *tokens = (int32_t *)malloc((size_t)R * sizeof(int32_t)), *status = (int32_t *)malloc((size_t)R * sizeof(int32_t));
    int32_t *ids = (int32_t *)malloc((size_t)W * sizeof(int32_t));
    uint64_t *masses = (uint64_t *)malloc((size_t)W * sizeof(uint64_t));
    int32_t *slot_of = (int32_t *)malloc((size_t)W * sizeof(int32_t));
    uint64_t *counts = (uint64_t *)calloc((size_t)W, sizeof(uint64_t));
    double *p = (double *)malloc((size_t)W * sizeof(double)), *pp = (double *)malloc((size_t)W * sizeof(double));
    uint64_t draws = 0, masked_drawn = 0, empty = 0;
    if (!(x && h && rows && rids && tokens && status && ids && masses && slot_of && counts && p && pp)) {
        MS_FAIL_AT("%s: out of memory", c->name);
        return 0; /* a test process: what was allocated goes with it */
    }

    stats_row(c, row_seed, x);
    const void *row = x;
    size_t esize = sizeof(float);
    if (c->dtype == MS_DTYPE_F16) {
        for (int32_t t = 0; t < W; t++) h[t] = stats_f32_to_f16(x[t]);
        row = h;
        esize = 2;
    }
    for (int32_t i = 0; i < R; i++) memcpy((char *)rows + (size_t)i * (size_t)W * esize, row, (size_t)W * esize);
    /* request j owns rows j*rows_per_req .. : several rows of one request in a call (row_k) */
    for (int32_t j = 0; j < c->n_reqs; j++) {
        ms_req_config cfg = c->cfg;
        ms_req_config_apply_conductor(&cfg, 1000 + j, c->name);
        if (ms_ingest(res, 77 + j, &cfg) != MS_OK) MS_FAIL_AT("%s: ingest: %s", c->name, ms_resource_last_error(res));
        for (int32_t k = 0; k < c->rows_per_req; k++) rids[j * c->rows_per_req + k] = 77 + j;
    }
    ms_step step = ms_step_default();
    ms_explanation info;
    int rc = ms_explain(res, &step, 77, row, c->dtype, W, W, ids, NULL, masses, &info);
    if (!(rc == MS_OK && info.status == MS_ROW_OK && !info.greedy)) {
        MS_FAIL_AT("%s: explain rc=%d status=%d greedy=%d: %s", c->name, rc, info.status, (int)info.greedy,
                   ms_resource_last_error(res));
        return 0;
    }
    CHECK_MSG(info.n_kept < V, "%s: nothing is masked (%d of %d kept): the case tests nothing", c->name, info.n_kept, V);
    for (int32_t t = 0; t < W; t++) slot_of[t] = -1;
    for (int32_t i = 0; i < info.n_kept; i++) {
        slot_of[ids[i]] = i;
        p[i] = (double)masses[i] / (double)info.total_mass;
    }

    ms_batch b = {R, rids, rows, c->dtype, W, 0};
    for (int32_t call = 0; call < c->calls; call++) {
        rc = ms_sample(res, &step, &b, tokens, status);
        if (rc != MS_OK) {
            MS_FAIL_AT("%s: sample: %s", c->name, ms_resource_last_error(res));
            break;
        }
        for (int32_t i = 0; i < R; i++) {
            if (status[i] != MS_ROW_OK || tokens[i] < 0 || tokens[i] >= W) {
                empty++;
                continue;
            }
            int32_t s = slot_of[tokens[i]];
            if (s < 0) masked_drawn++;
            else counts[s]++;
            draws++;
        }
        /* move every request's n (a request whose n stayed would redraw the same tokens): commit
         * all rows, commit with kept_rids naming every request, or accept explicit tokens */
        switch (call % 3) {
        case 0:
            ms_commit(res, &step);
            break;
        case 1: {
            int64_t kept[8];
            for (int32_t j = 0; j < c->n_reqs; j++) kept[j] = 77 + j;
            ms_step ks = step;
            ks.kept_rids = kept;
            ks.n_kept_rids = c->n_reqs;
            ms_commit(res, &ks);
            break;
        }
        default:
            for (int32_t j = 0; j < c->n_reqs; j++) ms_accept(res, 77 + j, tokens, 1 + (call + j) % 3);
        }
    }
    CHECK_MSG(masked_drawn == 0, "%s: %llu draws of tokens outside the explained support", c->name,
              (unsigned long long)masked_drawn);
    CHECK_MSG(empty == 0, "%s: %llu rows came back empty", c->name, (unsigned long long)empty);
    double chi2;
    int32_t df;
    double pv = stats_chi_square(counts, p, info.n_kept, draws, &chi2, &df);
    printf("# %-22s %8llu draws, %4d of %6d kept, chi2 %9.1f df %4d, p %.3g\n", c->name, (unsigned long long)draws,
           info.n_kept, V, chi2, df, pv);
    CHECK_MSG(pv >= STATS_ALPHA, "%s: frequencies disagree with explain: chi2 %.1f, df %d, p %.3g", c->name, chi2, df, pv);

    /* Power: the same counts against a distribution with 1% of the mass moved from the most
     * likely token to the second must be rejected ... */
    if (info.n_kept >= 2) {
        int32_t a = 0, bb = 1;
        for (int32_t i = 0; i < info.n_kept; i++)
            if (p[i] > p[a]) a = i;
        if (bb == a) bb = 0;
        for (int32_t i = 0; i < info.n_kept; i++)
            if (i != a && p[i] > p[bb]) bb = i;
        memcpy(pp, p, (size_t)info.n_kept * sizeof(double));
        double d = p[a] < 0.01 ? p[a] : 0.01;
        pp[a] -= d;
        pp[bb] += d;
        double pv2 = stats_chi_square(counts, pp, info.n_kept, draws, NULL, NULL);
        CHECK_MSG(pv2 < STATS_ALPHA, "%s: a perturbed distribution is not rejected (p %.3g)", c->name, pv2);
    }
    /* ... and so must one in which the largest masked token (by logit) keeps mass it lost */
    {
        int32_t best = -1;
        for (int32_t t = 0; t < V; t++)
            if (slot_of[t] < 0 && isfinite(x[t]) && (best < 0 || x[t] > x[best])) best = t;
        if (best >= 0) {
            int32_t n = info.n_kept;
            for (int32_t i = 0; i < n; i++) pp[i] = p[i] * 0.99;
            pp[n] = 0.01;
            counts[n] = 0; /* observed: never drawn */
            double pv3 = stats_chi_square(counts, pp, n + 1, draws, NULL, NULL);
            CHECK_MSG(pv3 < STATS_ALPHA, "%s: a distribution keeping masked token %d is not rejected (p %.3g)",
                      c->name, best, pv3);
        }
    }
    free(x), free(h), free(rows), free(rids), free(tokens), free(status), free(ids), free(masses), free(slot_of);
    free(counts), free(p), free(pp);
    ms_resource_free(res);
    return draws;
}

static ms_req_config stats_cfg(float T) {
    ms_req_config c = ms_req_config_default();
    c.temperature = T;
    return c;
}

TEST(stats_masked_never_drawn_and_chi_square) {
    stats_case cases[8];
    int n = 0;
    stats_case base = {0};
    base.V = 111;
    base.width = 111;
    base.dtype = MS_DTYPE_F32;
    base.shape = "peaked";
    base.backend = MS_BACKEND_CPU;
    base.threads = 1;
    base.rows_per_req = 8;
    base.n_reqs = 2;
    base.calls = 12500; /* 200,000 draws */

    cases[n] = base; /* top-k: ties and the tail masked */
    cases[n].name = "top_k_20";
    cases[n].cfg = stats_cfg(0.8f);
    cases[n].cfg.top_k = 20;
    n++;
    cases[n] = base; /* top-p on a flat row */
    cases[n].name = "top_p_0.7_flat";
    cases[n].shape = "flat";
    cases[n].cfg = stats_cfg(1.0f);
    cases[n].cfg.top_p = 0.7f;
    cases[n].backend = MS_BACKEND_CPU_REF;
    n++;
    cases[n] = base; /* min-p */
    cases[n].name = "min_p_0.02";
    cases[n].cfg = stats_cfg(1.3f);
    cases[n].cfg.min_p = 0.02f;
    cases[n].threads = 2;
    n++;
    cases[n] = base; /* the floor: stop ids 0, 1, 2 masked for ever (min_tokens out of reach) */
    cases[n].name = "floor_stop_ids";
    cases[n].shape = "flat";
    cases[n].cfg = stats_cfg(1.0f);
    cases[n].cfg.min_tokens = 1000000000;
    cases[n].backend = MS_BACKEND_CPU_REF;
    n++;
    cases[n] = base; /* zero-mass, NaN and -inf tokens; HF order with min_keep */
    cases[n].name = "grain_nan_hf_order";
    cases[n].shape = "grain";
    cases[n].cfg = stats_cfg(1.0f);
    cases[n].cfg.top_p_first = true;
    cases[n].cfg.top_p = 0.9f;
    cases[n].cfg.top_k = 3;
    cases[n].cfg.top_p_min_keep = 30;
    cases[n].threads = 2;
    n++;
    cases[n] = base; /* fp16, a padded head (columns >= V hold the largest logits), wider vocab */
    cases[n].name = "f16_padded_V1000";
    cases[n].V = 1000;
    cases[n].width = 1003;
    cases[n].dtype = MS_DTYPE_F16;
    cases[n].shape = "flat";
    cases[n].cfg = stats_cfg(0.9f);
    cases[n].cfg.top_p = 0.95f;
    cases[n].cfg.min_p = 0.01f;
    cases[n].rows_per_req = 4;
    cases[n].n_reqs = 3;
    cases[n].backend = MS_BACKEND_CPU_REF;
    cases[n].calls = 20000; /* 240,000 draws */
    n++;

    uint64_t total = 0;
    for (int i = 0; i < n; i++) total += stats_run(&cases[i], 0x5eed0000u + (uint64_t)i);
    printf("# %llu draws in all\n", (unsigned long long)total);
    CHECK(total >= 1000000);
}
