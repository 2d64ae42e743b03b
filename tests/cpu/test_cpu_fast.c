/* test_cpu_fast.c: the fast CPU row (ms_cpu_fast.c) against the reference (ms_cpu_ref.c), token
 * for token and kept set for kept set, over random rows of every setting and awkward sizes, for
 * every SIMD level this machine offers; and the worker pool: 1, 2 and 3 threads draw what the
 * reference backend draws. */
#include <math.h>
#include <stdlib.h>

#include "ms_cpu.h"
#include "ms_math.h"
#include "ms_test.h"

/* ---- fixtures ------------------------------------------------------------------------------- */

typedef struct fx {
    int32_t V;
    ms_scratch a, b;          /* reference, fast */
    uint64_t *seen, *stops;   /* bitsets over V */
    int32_t hist[16];
    float *x;                 /* the row as fp32 */
    uint16_t *h;              /* the row as f16 / bf16 */
} fx;

static void scratch_init(ms_scratch *s, int32_t V) {
    s->y = (float *)malloc((size_t)V * 4);
    s->w = (float *)malloc((size_t)V * 4);
    s->q = (uint64_t *)malloc((size_t)V * 8);
    s->keep = (uint8_t *)malloc((size_t)V);
    s->keys = (uint64_t *)malloc((size_t)V * 8);
    s->count = (int32_t *)calloc((size_t)V, 4);
    s->fast = NULL;
    ms__fast_scratch_init(s, V);
}
static void scratch_free(ms_scratch *s) {
    free(s->y); free(s->w); free(s->q); free(s->keep); free(s->keys); free(s->count);
    ms__fast_scratch_free(s);
}
static void fx_init(fx *f, int32_t V) {
    memset(f, 0, sizeof *f);
    f->V = V;
    scratch_init(&f->a, V);
    scratch_init(&f->b, V);
    f->seen = (uint64_t *)calloc((size_t)(V + 63) / 64, 8);
    f->stops = (uint64_t *)calloc((size_t)(V + 63) / 64, 8);
    f->x = (float *)malloc((size_t)V * 4);
    f->h = (uint16_t *)malloc((size_t)V * 2);
}
static void fx_free(fx *f) {
    scratch_free(&f->a); scratch_free(&f->b);
    free(f->seen); free(f->stops); free(f->x); free(f->h);
}

static uint16_t f32_to_bf16(float v) { return (uint16_t)(ms__f2u(v) >> 16); } /* truncation: any bits do */
static uint16_t f32_to_f16(float v) {
    /* a crude but total mapping (the values only need to be valid halves of every class) */
    uint32_t u = ms__f2u(v), sign = (u >> 16) & 0x8000u;
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    int32_t e = (int32_t)((u >> 23) & 0xff) - 127 + 15;
    uint32_t man = (u >> 13) & 0x3ffu;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        return (uint16_t)(sign | ((man | 0x400u) >> (1 - e)));
    }
    return (uint16_t)(sign | ((uint32_t)e << 10) | man);
}

enum { SHAPE_FLAT, SHAPE_PEAKED, SHAPE_TIES, SHAPE_SPECIAL, SHAPE_ASCENDING, SHAPE_ONE_HOT, SHAPE_N };

static void gen_row(fx *f, ms_trng *r, int shape) {
    const int32_t V = f->V;
    for (int32_t t = 0; t < V; t++) {
        double z = ms_trng_normal(r);
        float v;
        switch (shape) {
        case SHAPE_PEAKED: v = (float)(3.0 * z + (ms_trng_below(r, 1000) < 3 ? 8.0 : 0.0)); break;
        case SHAPE_TIES: v = (float)((int)(z * 2.0)) * 0.5f; break; /* a handful of values, many ties */
        case SHAPE_ASCENDING: v = (float)t * 1e-3f; break;
        case SHAPE_ONE_HOT: v = t == V / 3 ? 30.0f : -30.0f + (float)z; break;
        case SHAPE_SPECIAL: {
            uint32_t c = ms_trng_below(r, 20);
            v = c == 0 ? NAN : c == 1 ? -INFINITY : c == 2 ? (ms_trng_below(r, 50) == 0 ? INFINITY : -0.0f)
                : c == 3 ? 0.0f : (float)(z * 4.0);
            break;
        }
        default: v = (float)z;
        }
        f->x[t] = v;
    }
}

/* A random request; every knob the pipeline has. */
static ms_req_config gen_cfg(ms_trng *r, int32_t V) {
    ms_req_config c = ms_req_config_default();
    static const float temps[] = {0.0f, 9e-6f, 1e-5f, 0.05f, 0.3f, 0.7f, 1.0f, 2.0f};
    static const float top_ps[] = {1.0f, 1.0f, 0.9f, 0.5f, 0.01f, 0.999f, 0.95f};
    static const float min_ps[] = {0.0f, 0.0f, 0.0f, 0.05f, 0.5f, 1.0f, 1e-8f, 0.001f};
    const int32_t top_ks[] = {0, 0, 1, 5, 50, 1000, V - 1, V, V + 5};
    c.temperature = temps[ms_trng_below(r, 8)];
    c.top_p = top_ps[ms_trng_below(r, 7)];
    c.min_p = min_ps[ms_trng_below(r, 8)];
    c.top_k = top_ks[ms_trng_below(r, 9)];
    if (c.top_k < 0) c.top_k = 0;
    c.top_p_first = ms_trng_below(r, 3) == 0;
    static const int32_t keeps[] = {1, 1, 2, 7, 100};
    c.top_p_min_keep = keeps[ms_trng_below(r, 5)];
    static const float pens[] = {1.0f, 1.3f, 0.7f};
    c.repetition_penalty = pens[ms_trng_below(r, 3)];
    c.repetition_window = ms_trng_below(r, 4) == 0 ? 1 + (int32_t)ms_trng_below(r, 16) : 0;
    c.min_tokens = ms_trng_below(r, 4) == 0 ? 5 : 0;
    c.seed = ms_trng_next(r);
    return c;
}

/* The oracle of exp_mass_top's extra outputs: the exact mass and count of the tokens with y >= ytop,
 * token by token. */
static void mass_count_ge(const float *y, const float *w, int32_t V, float ytop, uint64_t *mass, int64_t *cnt) {
    uint64_t ms = 0;
    int64_t cs = 0;
    for (int32_t t = 0; t < V; t++)
        if (y[t] >= ytop) {
            ms += ms__mass(w[t]);
            cs++;
        }
    *mass = ms;
    *cnt = cs;
}

/* An fp32 row with penalties and filters applied, as most cases here build it. */
static ms_row_job f32_job(const ms_req_config *cfg, int32_t V, const float *row) {
    ms_row_job job;
    memset(&job, 0, sizeof job);
    job.cfg = cfg;
    job.apply_penalty = job.apply_filters = true;
    job.V = V;
    job.row = row;
    job.dtype = MS_DTYPE_F32;
    return job;
}

/* One comparison: the job under both pipelines, drawing and explaining. */
static int compare_job(fx *f, const ms_row_job *job, const char *what) {
    int bad = 0;
    for (int draw = 1; draw >= 0; draw--) {
        ms_row_out ra, rb;
        ms__ref_row(job, &f->a, draw, &ra);
        ms__fast_row(job, &f->b, draw, &rb);
        if (ra.token != rb.token || ra.status != rb.status || ra.greedy != rb.greedy ||
            ra.floor_active != rb.floor_active || ra.total_mass != rb.total_mass) {
            MS_FAIL_AT("%s draw=%d level=%s: ref token %d status %d greedy %d floor %d M %llu; fast token %d status %d "
                       "greedy %d floor %d M %llu", what, draw, ms__cpu_fast_level_name(ms__cpu_fast_level()), ra.token,
                       ra.status, ra.greedy, ra.floor_active, (unsigned long long)ra.total_mass, rb.token, rb.status,
                       rb.greedy, rb.floor_active, (unsigned long long)rb.total_mass);
            bad = 1;
        }
        if (!draw && ra.status == MS_ROW_OK && !ra.greedy) {
            for (int32_t t = 0; t < job->V; t++) {
                int ka = f->a.keep[t] && f->a.q[t] > 0, kb = f->b.keep[t] && f->b.q[t] > 0;
                if (ka != kb || (ka && f->a.q[t] != f->b.q[t])) {
                    MS_FAIL_AT("%s level=%s: kept sets differ at token %d (ref %d q %llu, fast %d q %llu)", what,
                               ms__cpu_fast_level_name(ms__cpu_fast_level()), t, ka, (unsigned long long)f->a.q[t],
                               kb, (unsigned long long)f->b.q[t]);
                    bad = 1;
                    break;
                }
            }
        }
    }
    return bad;
}

/* compare_job at every SIMD level this machine can run; the caller restores its level. */
static int compare_job_levels(fx *f, const ms_row_job *job, const char *what) {
    int bad = 0;
    for (int level = 0; level < MS_FAST_N_LEVELS; level++) {
        if (!ms__cpu_fast_level_ok(level)) continue;
        ms__cpu_fast_set_level(level);
        bad |= compare_job(f, job, what);
    }
    return bad;
}

/* n random (row, config) cases of width V at every usable level. */
static void run_random(int32_t V, int n_cases, uint64_t seed) {
    fx f;
    fx_init(&f, V);
    ms_trng r = {seed};
    int saved = ms__cpu_fast_level();
    int failures = 0;
    for (int i = 0; i < n_cases && failures < 5; i++) {
        int shape = (int)ms_trng_below(&r, SHAPE_N);
        gen_row(&f, &r, shape);
        ms_req_config cfg = gen_cfg(&r, V);
        ms_dtype dtype = (ms_dtype)ms_trng_below(&r, 3);
        if (dtype == MS_DTYPE_F16)
            for (int32_t t = 0; t < V; t++) f.h[t] = f32_to_f16(f.x[t]);
        if (dtype == MS_DTYPE_BF16)
            for (int32_t t = 0; t < V; t++) f.h[t] = f32_to_bf16(f.x[t]);
        memset(f.seen, 0, (size_t)(V + 63) / 64 * 8);
        memset(f.stops, 0, (size_t)(V + 63) / 64 * 8);
        for (int j = 0; j < 64; j++) ms__bit_set(f.seen, (int32_t)ms_trng_below(&r, (uint32_t)V));
        for (int j = 0; j < 3; j++) ms__bit_set(f.stops, (int32_t)ms_trng_below(&r, (uint32_t)V));
        if (ms_trng_below(&r, 4) == 0) ms__bit_set(f.stops, V / 3); /* the one-hot's peak */
        for (int j = 0; j < 16; j++) f.hist[j] = (int32_t)ms_trng_below(&r, (uint32_t)(V < 8 ? V : 8));
        ms_row_job job;
        memset(&job, 0, sizeof job);
        job.cfg = &cfg;
        job.n = ms_trng_below(&r, 10);
        job.row_k = ms_trng_below(&r, 3);
        job.seen = f.seen;
        job.hist = f.hist;
        job.hist_cap = 16;
        job.hist_len = (int32_t)ms_trng_below(&r, 17);
        job.hist_head = (int32_t)ms_trng_below(&r, 16);
        job.stop_mask = ms_trng_below(&r, 2) ? f.stops : NULL;
        job.apply_penalty = ms_trng_below(&r, 5) != 0;
        job.apply_filters = ms_trng_below(&r, 6) != 0;
        job.V = V;
        job.row = dtype == MS_DTYPE_F32 ? (const void *)f.x : (const void *)f.h;
        job.dtype = dtype;
        char what[160];
        snprintf(what, sizeof what, "V=%d case %d shape %d dtype %d T=%g k=%d p=%g minp=%g first=%d keep=%d r=%g win=%d",
                 (int)V, i, shape, (int)dtype, cfg.temperature, (int)cfg.top_k, cfg.top_p, cfg.min_p, cfg.top_p_first,
                 (int)cfg.top_p_min_keep, cfg.repetition_penalty, (int)cfg.repetition_window);
        failures += compare_job_levels(&f, &job, what);
    }
    ms__cpu_fast_set_level(saved);
    fx_free(&f);
}

/* The benchmark settings on both shapes, at the sizes that take the sampled paths. */
static void run_bench_settings(int32_t V, int n_cases, uint64_t seed) {
    fx f;
    fx_init(&f, V);
    ms_trng r = {seed};
    int saved = ms__cpu_fast_level();
    for (int i = 0; i < n_cases; i++) {
        gen_row(&f, &r, i % 2 ? SHAPE_PEAKED : SHAPE_FLAT);
        memset(f.seen, 0, (size_t)(V + 63) / 64 * 8);
        for (int j = 0; j < 64; j++) ms__bit_set(f.seen, (int32_t)ms_trng_below(&r, (uint32_t)V));
        ms_req_config cfg = ms_req_config_default();
        cfg.temperature = 0.7f;
        cfg.seed = ms_trng_next(&r);
        int setting = (i / 2) % 4;
        if (setting == 0) { cfg.repetition_penalty = 1.3f; cfg.min_p = 0.05f; cfg.top_k = 50; cfg.top_p = 0.9f; }
        if (setting == 1) cfg.top_p = 0.9f;
        if (setting == 2) { cfg.top_p = 0.9f; cfg.top_k = 50; cfg.top_p_first = true; }
        if (setting == 3) cfg.top_k = 50;
        ms_row_job job = f32_job(&cfg, V, f.x);
        job.seen = f.seen;
        char what[96];
        snprintf(what, sizeof what, "bench V=%d case %d setting %d", (int)V, i, setting);
        compare_job_levels(&f, &job, what);
    }
    ms__cpu_fast_set_level(saved);
    fx_free(&f);
}

/* Rows whose first eighth misleads the sampled top-k threshold (the prefix sits 5 above the rest):
 * the list pass 1 made holds fewer than k tokens, so the row falls back to a pass over every token,
 * which must first rebuild the copy pass 1 did not write (sparse pass 1); min-p then top-k, and
 * top-k alone, every dtype and level, penalised tokens in and out of the prefix. */
TEST(cpu_fast_prefix_misleads) {
    const int32_t V = 32768;
    fx f;
    fx_init(&f, V);
    ms_trng r = {71};
    int saved = ms__cpu_fast_level();
    for (int i = 0; i < 12; i++) {
        for (int32_t t = 0; t < V; t++) f.x[t] = (float)ms_trng_normal(&r) + (t < V / 8 ? 5.0f : 0.0f);
        const ms_dtype dtype = (ms_dtype)(i % 3);
        if (dtype == MS_DTYPE_F16)
            for (int32_t t = 0; t < V; t++) f.h[t] = f32_to_f16(f.x[t]);
        if (dtype == MS_DTYPE_BF16)
            for (int32_t t = 0; t < V; t++) f.h[t] = f32_to_bf16(f.x[t]);
        memset(f.seen, 0, (size_t)(V + 63) / 64 * 8);
        for (int j = 0; j < 64; j++) ms__bit_set(f.seen, (int32_t)ms_trng_below(&r, (uint32_t)V));
        ms_req_config cfg = ms_req_config_default();
        cfg.temperature = 0.7f;
        cfg.top_k = 200;
        cfg.min_p = (i / 3) % 2 ? 0.0f : 0.05f;
        cfg.top_p = i / 6 ? 0.9f : 1.0f;
        cfg.repetition_penalty = 1.3f;
        cfg.seed = ms_trng_next(&r);
        ms_row_job job;
        memset(&job, 0, sizeof job);
        job.cfg = &cfg;
        job.seen = f.seen;
        job.apply_penalty = job.apply_filters = true;
        job.V = V;
        job.row = dtype == MS_DTYPE_F32 ? (const void *)f.x : (const void *)f.h;
        job.dtype = dtype;
        char what[96];
        snprintf(what, sizeof what, "prefix V=%d case %d dtype %d minp=%g p=%g", (int)V, i, (int)dtype, cfg.min_p,
                 cfg.top_p);
        for (int level = 0; level < MS_FAST_N_LEVELS; level++) {
            if (!ms__cpu_fast_level_ok(level)) continue;
            ms__cpu_fast_set_level(level);
            /* a stale copy from another row must not leak in: fill the fast scratch with it first */
            for (int32_t t = 0; t < V; t++) f.b.y[t] = 100.0f;
            compare_job(&f, &job, what);
        }
    }
    ms__cpu_fast_set_level(saved);
    fx_free(&f);
}

/* min-p then top-k on flat rows shifted below zero (and around it): pass 1's list is cut to its
 * top k by a radix select over the floats' bits, whose negative keys this exercises. */
TEST(cpu_fast_trim_signs) {
    const int32_t V = 32768;
    fx f;
    fx_init(&f, V);
    ms_trng r = {83};
    int saved = ms__cpu_fast_level();
    static const float shifts[] = {-20.0f, -3.0f, 0.0f, -1e-3f};
    for (int i = 0; i < 8; i++) {
        for (int32_t t = 0; t < V; t++) f.x[t] = (float)ms_trng_normal(&r) * (i & 1 ? 1.0f : 1e-3f) + shifts[i / 2];
        ms_req_config cfg = ms_req_config_default();
        cfg.temperature = 0.7f;
        cfg.top_k = i & 1 ? 50 : 5;
        cfg.min_p = 0.05f;
        cfg.top_p = 0.9f;
        cfg.seed = ms_trng_next(&r);
        ms_row_job job = f32_job(&cfg, V, f.x);
        char what[64];
        snprintf(what, sizeof what, "trim V=%d case %d shift %g", (int)V, i, shifts[i / 2]);
        compare_job_levels(&f, &job, what);
    }
    ms__cpu_fast_set_level(saved);
    fx_free(&f);
}

/* NaN logits in the sparse part of pass 1 (round 4): that loop takes the max and tests tau on the
 * raw loads and turns NaN into -inf only in a block with a listed token, so NaN must neither win
 * the max nor be listed. Rows with NaN scattered (1 in 7), NaN runs of whole 64-token blocks, and
 * NaN right beside the row's maximum; min-p then top-k and top-k alone, every dtype and level. */
TEST(cpu_fast_pass1_nan) {
    const int32_t V = 32768;
    fx f;
    fx_init(&f, V);
    ms_trng r = {97};
    int saved = ms__cpu_fast_level();
    for (int i = 0; i < 12; i++) {
        for (int32_t t = 0; t < V; t++) {
            float v = (float)ms_trng_normal(&r);
            if (i % 3 == 0 && t % 7 == 3) v = NAN;
            if (i % 3 == 1 && (t / 64) % 5 == 2) v = NAN;
            f.x[t] = v;
        }
        if (i % 3 == 2) { /* the maximum past the prefix, NaN in the rest of its vector and block */
            const int32_t at = V / 2 + 64 * (int32_t)ms_trng_below(&r, 64) + 5;
            for (int32_t t = at - 5; t < at + 59; t++) f.x[t] = NAN;
            f.x[at] = 9.0f;
        }
        const ms_dtype dtype = (ms_dtype)((i / 3) % 3);
        if (dtype == MS_DTYPE_F16)
            for (int32_t t = 0; t < V; t++) f.h[t] = f32_to_f16(f.x[t]);
        if (dtype == MS_DTYPE_BF16)
            for (int32_t t = 0; t < V; t++) f.h[t] = f32_to_bf16(f.x[t]);
        ms_req_config cfg = ms_req_config_default();
        cfg.temperature = 0.7f;
        cfg.top_k = 50;
        cfg.min_p = i % 2 ? 0.0f : 0.05f;
        cfg.top_p = 0.9f;
        cfg.seed = ms_trng_next(&r);
        ms_row_job job;
        memset(&job, 0, sizeof job);
        job.cfg = &cfg;
        job.apply_penalty = job.apply_filters = true;
        job.V = V;
        job.row = dtype == MS_DTYPE_F32 ? (const void *)f.x : (const void *)f.h;
        job.dtype = dtype;
        char what[64];
        snprintf(what, sizeof what, "nan V=%d case %d dtype %d minp=%g", (int)V, i, (int)dtype, cfg.min_p);
        compare_job_levels(&f, &job, what);
    }
    ms__cpu_fast_set_level(saved);
    fx_free(&f);
}

/* Top-p over every token with a misleading sample (round 4): the band that should hold the
 * threshold is chosen from a sample of runs of 16 tokens every 16 * stride (V = 32768: every 128),
 * estimating the mass below the crossing. Rows whose sampled runs sit 3 below (or above) the
 * rest put the estimate, and so the band, on the wrong side; the exact check must then widen the
 * band (both directions) and still match the reference. Top-p alone and the HF order with top-k. */
TEST(cpu_fast_bracket_misleads) {
    const int32_t V = 32768;
    fx f;
    fx_init(&f, V);
    ms_trng r = {113};
    int saved = ms__cpu_fast_level();
    int64_t c0[5], c1[5];
    ms__fast_top_p_counts(c0);
    for (int i = 0; i < 10; i++) {
        const float shift = i % 2 ? 3.0f : -3.0f;
        for (int32_t t = 0; t < V; t++) f.x[t] = (float)ms_trng_normal(&r) + (t % 128 < 16 && i < 8 ? shift : 0.0f);
        /* cases 8, 9 (round 7): only the sampled runs' light tokens lowered, so the sample sees the
         * heavy tokens right (the pre-sampled band's first bucket holds) but too little mass in the
         * tail: the band ends too early and must widen after band_list */
        if (i >= 8)
            for (int32_t t = 0; t < V; t++)
                if (t % 128 < 16 && f.x[t] < 0.5f) f.x[t] -= 3.0f;
        ms_req_config cfg = ms_req_config_default();
        cfg.temperature = 0.7f;
        cfg.top_p = i / 4 ? 0.5f : 0.9f;
        cfg.top_p_first = i % 4 >= 2;
        cfg.top_k = cfg.top_p_first ? 2000 : 0;
        cfg.seed = ms_trng_next(&r);
        ms_row_job job = f32_job(&cfg, V, f.x);
        char what[80];
        snprintf(what, sizeof what, "bracket V=%d case %d shift %g p=%g", (int)V, i, shift, cfg.top_p);
        compare_job_levels(&f, &job, what);
    }
    /* round 7's paths were reached: the pre-sampled band (shift +3: the sample's band lies above
     * the crossing, so it widens), its edge found wrong (shift -3), the band widened after it */
    ms__fast_top_p_counts(c1);
    printf("# top-p rows: pre-sampled band %lld, its edge wrong %lld, widened after it %lld\n",
           (long long)(c1[0] - c0[0]), (long long)(c1[1] - c0[1]), (long long)(c1[2] - c0[2]));
    CHECK(c1[0] > c0[0]);
    CHECK(c1[1] > c0[1]);
    CHECK(c1[2] > c0[2]);
    ms__cpu_fast_set_level(saved);
    fx_free(&f);
}

TEST(cpu_fast_levels_offered) {
    /* the portable levels always exist; the chosen level is usable */
    CHECK(ms__cpu_fast_level_ok(MS_FAST_GENERIC));
    CHECK(ms__cpu_fast_level_ok(MS_FAST_W16));
    CHECK(ms__cpu_fast_level_ok(ms__cpu_fast_level()));
    CHECK_EQ_I64(ms__cpu_fast_set_level(MS_FAST_N_LEVELS), -1);
    CHECK_EQ_I64(ms__cpu_fast_set_level(-1), -1);
    for (int l = 0; l < MS_FAST_N_LEVELS; l++)
        printf("# level %s: %s\n", ms__cpu_fast_level_name(l), ms__cpu_fast_level_ok(l) ? "usable" : "absent");
}

TEST(cpu_fast_zero_mass_bound) {
    /* exp_mass skips the exp of groups whose d = y - m all lie below MS_FAST_ZERO_D, storing w = 0:
     * that is exact only if every such d has mass 0. Check every float in [-86, MS_FAST_ZERO_D]
     * (below -86 ms__exp returns 0 itself), and that the bound is tight enough to matter (just
     * above -ln 2^40 = -27.726 masses are 1). */
    int64_t bad = 0;
    float first_bad = 0.0f;
    for (uint32_t u = ms__f2u(MS_FAST_ZERO_D); u <= ms__f2u(MS_EXP_MIN); u++) { /* negative: bits grow as d falls */
        const float d = ms__u2f(u);
        if (ms__mass(ms__exp(d)) != 0 && bad++ == 0) first_bad = d;
    }
    CHECK_MSG(bad == 0, "%lld floats d <= %g have a non-zero mass (first %.9g)", (long long)bad,
              (double)MS_FAST_ZERO_D, (double)first_bad);
    CHECK(ms__mass(ms__exp(-27.7f)) == 1);
    CHECK(MS_FAST_ZERO_D < -27.72588f); /* -40 ln 2 */
}

TEST(cpu_fast_tiny_rows) {
    run_random(1, 300, 11);
    run_random(2, 300, 12);
    run_random(7, 300, 13);
}
TEST(cpu_fast_v111) { run_random(111, 400, 21); }
TEST(cpu_fast_v1000) { run_random(1000, 200, 31); }
TEST(cpu_fast_v32000) { run_random(32000, 150, 41); }
TEST(cpu_fast_v151936) { run_random(151936, 40, 51); }
TEST(cpu_fast_bench_settings) {
    int64_t c0[5], c1[5];
    ms__fast_top_p_counts(c0);
    run_bench_settings(32000, 32, 61);
    run_bench_settings(151936, 24, 62);
    run_bench_settings(262144, 8, 63);
    /* round 7's band_list served both shapes: flat rows' pre-sampled bands, peaked rows' count-rule bands */
    ms__fast_top_p_counts(c1);
    CHECK(c1[0] > c0[0]);
    CHECK(c1[4] > c0[4]);
    printf("# band_list rows: %lld pre-sampled, %lld peaked\n", (long long)(c1[0] - c0[0]), (long long)(c1[4] - c0[4]));
}

/* ---- through the public API: the pool, widths > V, strides, threads 1/2/3 --------------------- */

TEST(cpu_threads_match_reference) {
    const int32_t V = 32000, width = 32011, B = 37;
    int32_t stops[2] = {5, 17};
    ms_spec spec = ms_spec_default();
    spec.vocab_size = V;
    spec.enable_min_p = true;
    spec.max_repetition_window = 8;
    spec.enable_top_p_first = true;
    spec.min_tokens_stop_ids = stops;
    spec.n_min_tokens_stop_ids = 2;
    ms_trng r = {77};
    float *logits = (float *)malloc((size_t)B * (size_t)width * 4);
    for (int32_t i = 0; i < B * width; i++) logits[i] = (float)(2.0 * ms_trng_normal(&r));
    int64_t rids[37];
    int32_t ref_tokens[37], tok[37], st[37];
    ms_resource *res[4] = {0};
    const int32_t threads[4] = {1, 1, 2, 3};
    for (int j = 0; j < 4; j++) {
        ms_resource_params p = ms_resource_params_default();
        p.capacity = 8;
        p.max_rows = 64;
        p.n_threads = threads[j];
        p.backend = j == 0 ? MS_BACKEND_CPU_REF : MS_BACKEND_CPU;
        REQUIRE(ms_resource_create(&res[j], &spec, &p) == MS_OK);
        ms_trng rc = {99};
        for (int64_t id = 0; id < 8; id++) {
            ms_req_config c = gen_cfg(&rc, V);
            if (c.repetition_window > 8) c.repetition_window = 8;
            c.min_tokens = id % 3 == 0 ? 3 : 0;
            REQUIRE(ms_ingest(res[j], id, &c) == MS_OK);
        }
    }
    for (int32_t i = 0; i < B; i++) rids[i] = (int64_t)ms_trng_below(&r, 8);
    for (int step = 0; step < 4; step++) {
        ms_batch b = {B, rids, logits, MS_DTYPE_F32, width, 0};
        for (int j = 0; j < 4; j++) {
            REQUIRE(ms_sample(res[j], NULL, &b, j == 0 ? ref_tokens : tok, st) == MS_OK);
            if (j > 0)
                for (int32_t i = 0; i < B; i++)
                    CHECK_MSG(tok[i] == ref_tokens[i], "step %d threads %d row %d: %d != reference %d", step,
                              (int)threads[j], (int)i, (int)tok[i], (int)ref_tokens[i]);
            CHECK(ms_commit(res[j], NULL) >= 0);
        }
    }
    /* batch 1 and a row stride larger than the width */
    ms_batch b1 = {1, rids, logits, MS_DTYPE_F32, V, width};
    for (int j = 0; j < 4; j++) {
        REQUIRE(ms_sample(res[j], NULL, &b1, j == 0 ? ref_tokens : tok, st) == MS_OK);
        if (j > 0) CHECK_EQ_I64(tok[0], ref_tokens[0]);
    }
    for (int j = 0; j < 4; j++) ms_resource_free(res[j]);
    free(logits);
}

TEST(cpu_pool_many_calls) {
    /* many small calls on a 3-thread pool: no lost wake-up, no row done twice or skipped */
    ms_spec spec = ms_spec_default();
    spec.vocab_size = 111;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 4;
    p.n_threads = 3;
    ms_resource *fast = NULL, *ref = NULL;
    REQUIRE(ms_resource_create(&fast, &spec, &p) == MS_OK);
    p.backend = MS_BACKEND_CPU_REF;
    p.n_threads = 1;
    REQUIRE(ms_resource_create(&ref, &spec, &p) == MS_OK);
    ms_req_config c = ms_req_config_default();
    c.top_k = 10;
    for (int64_t id = 0; id < 4; id++) {
        c.seed = (uint64_t)id * 7919u;
        REQUIRE(ms_ingest(fast, id, &c) == MS_OK);
        REQUIRE(ms_ingest(ref, id, &c) == MS_OK);
    }
    ms_trng r = {5};
    float logits[5 * 111];
    int64_t rids[5];
    int32_t ta[5], tb[5];
    int mismatches = 0;
    for (int call = 0; call < 2000; call++) {
        int32_t n = 1 + (int32_t)ms_trng_below(&r, 5);
        for (int32_t i = 0; i < n * 111; i++) logits[i] = (float)ms_trng_normal(&r);
        for (int32_t i = 0; i < n; i++) rids[i] = (int64_t)ms_trng_below(&r, 4);
        ms_batch b = {n, rids, logits, MS_DTYPE_F32, 111, 0};
        for (int32_t i = 0; i < n; i++) ta[i] = tb[i] = -9;
        REQUIRE(ms_sample(fast, NULL, &b, ta, NULL) == MS_OK);
        REQUIRE(ms_sample(ref, NULL, &b, tb, NULL) == MS_OK);
        for (int32_t i = 0; i < n; i++) mismatches += ta[i] != tb[i];
    }
    CHECK_EQ_I64(mismatches, 0);
    ms_resource_free(fast);
    ms_resource_free(ref);
}

/* ---- one row over the pool (round 5): batches smaller than the thread count split each row's
 * passes over the team; the tokens must be the reference's whatever the split ------------------ */

static void split_row(ms_trng *r, float *x, int32_t V, int shape) {
    for (int32_t t = 0; t < V; t++) {
        const double z = ms_trng_normal(r);
        float v = (float)z;
        if (shape == 1) v = (float)(3.0 * z + (ms_trng_below(r, 1000) < 3 ? 8.0 : 0.0));
        if (shape == 2) v = (float)((int)(z * 2.0)) * 0.5f;
        if (shape == 3) {
            const uint32_t c = ms_trng_below(r, 40);
            v = c == 0 ? NAN : c == 1 ? -INFINITY : (float)(z * 4.0);
        }
        x[t] = v;
    }
}

static void split_rows_run(int stalls);

TEST(cpu_split_rows_match) { split_rows_run(0); }

/* The team's rare waits, forced: a worker stalled inside its chunk (the caller blocks on the
 * team's condvar, finishes the call alone, skips the team for a few calls), and a caller pausing
 * between passes (idle workers block and must be woken by the next task). Same tokens. */
TEST(cpu_split_rows_stalled) {
    ms__cpu_team_test_stalls(1);
    split_rows_run(1);
    ms__cpu_team_test_stalls(2);
    split_rows_run(2);
    ms__cpu_team_test_stalls(0);
}

static void split_rows_run(int stalls) {
    /* V = 70001: eight whole chunks of MS_FAST_CHUNK and a ragged one. Threads 1 (no split), 2 and
     * 3 (batch 1: the rows split over 2 or 3 threads; batch 2 on 3 threads) against the reference
     * backend, every setting: the fixed ones the split serves (top-p alone, no filter, the HF
     * order, penalties, min-p alone) and random ones. */
    const int32_t V = 70001, NR = 10;
    int32_t stops[2] = {3, 1000};
    ms_spec spec = ms_spec_default();
    spec.vocab_size = V;
    spec.enable_min_p = true;
    spec.max_repetition_window = 8;
    spec.enable_top_p_first = true;
    spec.min_tokens_stop_ids = stops;
    spec.n_min_tokens_stop_ids = 2;
    ms_resource *res[4] = {0};
    const int32_t threads[4] = {1, 1, 2, 3};
    for (int j = 0; j < 4; j++) {
        ms_resource_params p = ms_resource_params_default();
        p.capacity = NR;
        p.max_rows = 4;
        p.n_threads = threads[j];
        p.backend = j == 0 ? MS_BACKEND_CPU_REF : MS_BACKEND_CPU;
        REQUIRE(ms_resource_create(&res[j], &spec, &p) == MS_OK);
        ms_trng rc = {1234};
        for (int64_t id = 0; id < NR; id++) {
            ms_req_config c = gen_cfg(&rc, V);
            if (c.repetition_window > 8) c.repetition_window = 8;
            ms_req_config d = ms_req_config_default();
            d.seed = c.seed;
            switch (id) {
            case 0: d.temperature = 0.7f; d.top_p = 0.9f; c = d; break;            /* top-p alone */
            case 1: d.temperature = 1.0f; c = d; break;                             /* no filter */
            case 2: d.temperature = 0.7f; d.top_p = 0.5f; d.top_k = 50; d.top_p_first = true; c = d; break;
            case 3: d.temperature = 0.7f; d.top_p = 0.95f; d.repetition_penalty = 1.3f; c = d; break;
            case 4: d.temperature = 0.7f; d.top_p = 0.9f; d.repetition_penalty = 1.3f; d.repetition_window = 5;
                    c = d; break;
            case 5: d.temperature = 0.7f; d.min_p = 0.05f; c = d; break;            /* min-p alone */
            case 6: d.temperature = 0.7f; d.top_p = 0.9f; d.min_tokens = 4; c = d; break; /* the stop floor */
            default: break;                                                         /* random */
            }
            REQUIRE(ms_ingest(res[j], id, &c) == MS_OK);
        }
    }
    float *logits = (float *)malloc((size_t)2 * V * 4);
    int64_t tp0[5], tp1[5];
    ms__fast_top_p_counts(tp0);
    int32_t ref_tok[2], tok[2], ref_st[2], st[2];
    int64_t rids[2];
    ms_trng r = {4321};
    int bad = 0;
    for (int step = 0; step < 3 * NR; step++) {
        const int32_t B = step % 3 == 2 ? 2 : 1;
        for (int32_t i = 0; i < B; i++) {
            rids[i] = (step + 3 * i) % NR;
            split_row(&r, logits + (size_t)i * V, V, (int)ms_trng_below(&r, 4));
        }
        ms_batch b = {B, rids, logits, MS_DTYPE_F32, V, 0};
        for (int j = 0; j < 4; j++) {
            REQUIRE(ms_sample(res[j], NULL, &b, j == 0 ? ref_tok : tok, j == 0 ? ref_st : st) == MS_OK);
            if (j > 0)
                for (int32_t i = 0; i < B; i++)
                    if (tok[i] != ref_tok[i] || st[i] != ref_st[i]) {
                        if (bad++ < 10)
                            MS_FAIL_AT("step %d threads %d row %d (request %d): token %d status %d, reference %d %d", step,
                                       (int)threads[j], (int)i, (int)rids[i], (int)tok[i], (int)st[i],
                                       (int)ref_tok[i], (int)ref_st[i]);
                    }
            CHECK(ms_commit(res[j], NULL) >= 0);
        }
    }
    CHECK_EQ_I64(bad, 0);
    /* the flat top-p rows took round 7's pre-sampled band over the team */
    ms__fast_top_p_counts(tp1);
    CHECK_MSG(tp1[3] > tp0[3], "no split row took the pre-sampled band");
    printf("# stalls %d: split rows with the pre-sampled band: %lld\n", stalls, (long long)(tp1[3] - tp0[3]));
    /* the split really ran: the workers did chunks inside rows */
    CHECK_MSG(ms__cpu_team_helped(res[2]) > 0, "2 threads: no chunk done by a worker");
    CHECK_MSG(ms__cpu_team_helped(res[3]) > 0, "3 threads: no chunk done by a worker");
    CHECK_EQ_I64(ms__cpu_team_helped(res[1]), 0);
    printf("# stalls %d: chunks done by workers: %lld (2 threads), %lld (3 threads)\n", stalls,
           (long long)ms__cpu_team_helped(res[2]), (long long)ms__cpu_team_helped(res[3]));
    for (int j = 0; j < 4; j++) ms_resource_free(res[j]);
    free(logits);
}

/* ---- each level's kernels against the generic ones, at the edges of their vectors (round 6) ----
 * The avx512 level packs its lists with vpcompressd and stores whole 16-entry vectors past the
 * count: lists that end exactly at a vector's end, full and empty masks, blocks of MS_FAST_BLOCK,
 * and the room each kernel may write into (a guard past it must stay untouched). Masses near 2^40
 * and near 0 check band_hist's fixed-point sums. */
#define KG 64 /* guard entries past each output's room */
#define KSENT 0x5a5a5a5au
static int guard_ok(const uint32_t *p, int64_t room) {
    for (int i = 0; i < KG; i++)
        if (p[room + i] != KSENT) return 0;
    return 1;
}
static uint32_t *guarded(int64_t room) {
    uint32_t *p = (uint32_t *)malloc((size_t)(room + KG) * 4);
    for (int64_t i = 0; i < room + KG; i++) p[i] = KSENT;
    return p;
}

static void kernel_edges_level(const ms_fast_kernels *K, const ms_fast_kernels *G, int32_t V, ms_trng *r, int variant) {
    const char *L = K->name;
    float *y = (float *)malloc((size_t)V * 4), *w = (float *)malloc((size_t)V * 4);
    float *yk = (float *)malloc((size_t)V * 4), *yg = (float *)malloc((size_t)V * 4);
    const float m = 1.5f;
    for (int32_t t = 0; t < V; t++) {
        /* y over [m - 40, m]: every bucket; ties and the max itself in places */
        float v = variant == 1 ? m : m - (float)(40.0 * ms_trng_unit(r));
        if (variant == 2 && t % 3 == 0) v = m - 2.0f;
        y[t] = v;
        w[t] = ms__exp(v - m);
        switch (ms_trng_below(r, 12)) { /* masses at the edges of the fixed point */
        case 0: w[t] = 1.0f; break;                                  /* 2^40 */
        case 1: w[t] = ms__u2f(0x3f7fffffu); break;                  /* 2^40 - 2^16 */
        case 2: w[t] = 0x1p-40f; break;                              /* 1 */
        case 3: w[t] = ms__u2f(ms__f2u(0x1p-40f) - 1); break;        /* 0 */
        case 4: w[t] = 0.0f; break;
        default: break;
        }
    }
    /* tokens exactly at the band cuts below (ms__fast_bucket_cut) and one float under them, spread
     * over the row (the vector lanes and the scalar tail), so that >= and < at the cuts matter */
    {
        static const int32_t cut_b[] = {5, 32, 33, 41, 61, MS_FAST_NB - 1};
        int32_t k = 0;
        for (size_t i = 0; i < sizeof cut_b / sizeof *cut_b; i++)
            for (int j = 0; j < 4; j++, k++) {
                const float c = ms__fast_bucket_cut(m, cut_b[i]);
                const int32_t t = (int32_t)(((int64_t)k * 7919 + 3) % V);
                y[t] = j % 2 ? nextafterf(c, ms__neg_inf()) : c;
                if (j == 3 && V > 1) y[V - 1] = c; /* the last token: the scalar tail of most sizes */
            }
    }
    /* select_ge: full, empty, middle and exact-value thresholds; ids has room for V */
    const float taus[5] = {ms__neg_inf(), ms__pos_inf(), m - 20.0f, y[V / 2], m};
    for (int i = 0; i < 5; i++) {
        uint32_t *a = guarded(V), *b = guarded(V);
        const int32_t na = K->select_ge(y, V, taus[i], (int32_t *)a), nb = G->select_ge(y, V, taus[i], (int32_t *)b);
        CHECK_MSG(na == nb && memcmp(a, b, (size_t)na * 4) == 0, "%s select_ge V=%d tau %g: %d vs %d ids", L, (int)V,
                  (double)taus[i], (int)na, (int)nb);
        CHECK_MSG(guard_ok(a, V), "%s select_ge V=%d wrote past V", L, (int)V);
        free(a); free(b);
    }
    /* load_max with a list (dense and sparse copies), and a seen bitset on the first block */
    /* load_max reads a seen word for every 64 tokens of the row, so the bitset spans V (ASan in CI
     * caught the one-word array this test first had) */
    uint64_t *seen = (uint64_t *)calloc((size_t)(V + 63) / 64, sizeof *seen);
    if (seen) seen[0] = 0x8000000000000101ull;
    for (int sparse = 0; sparse < 2; sparse++)
        for (int i = 0; i < 5; i++) {
            if (sparse && ms__is_neg_inf(taus[i])) continue; /* sparse needs tau above -inf */
            uint32_t *a = guarded(V), *b = guarded(V);
            int32_t na = -1, nb = -2;
            const uint64_t *sn = V >= 64 && i == 2 ? seen : NULL;
            const float ma = K->load_max(y, MS_DTYPE_F32, V, sn, 1.25f, yk, taus[i], (int32_t *)a, &na, sparse);
            const float mb = G->load_max(y, MS_DTYPE_F32, V, sn, 1.25f, yg, taus[i], (int32_t *)b, &nb, sparse);
            int same = ma == mb && na == nb && memcmp(a, b, (size_t)(na > 0 ? na : 0) * 4) == 0;
            for (int32_t j = 0; same && j < na; j++) same = yk[((int32_t *)a)[j]] == yg[((int32_t *)a)[j]];
            CHECK_MSG(same, "%s load_max V=%d sparse %d tau %g: max %g vs %g, %d vs %d ids", L, (int)V, sparse,
                      (double)taus[i], (double)ma, (double)mb, (int)na, (int)nb);
            CHECK_MSG(guard_ok(a, V), "%s load_max V=%d wrote past V", L, (int)V);
            free(a); free(b);
        }
    free(seen);
    /* bucket_ids (room V) and band_hist (lists: room V + 16) over several bands */
    const float scale = (float)MS_FAST_NB / 32.0f;
    const int32_t bands[5][2] = {{0, MS_FAST_NB - 1}, {0, 40}, {5, 60}, {MS_FAST_NB - 1, MS_FAST_NB - 1}, {32, 32}};
    for (int i = 0; i < 5; i++) {
        const int32_t blo = bands[i][0], bhi = bands[i][1];
        uint32_t *a = guarded(V), *b = guarded(V);
        const int32_t na = K->bucket_ids(y, V, m, scale, bhi, (int32_t *)a), nb = G->bucket_ids(y, V, m, scale, bhi, (int32_t *)b);
        CHECK_MSG(na == nb && memcmp(a, b, (size_t)na * 4) == 0, "%s bucket_ids V=%d b %d: %d vs %d", L, (int)V,
                  (int)bhi, (int)na, (int)nb);
        CHECK_MSG(guard_ok(a, V), "%s bucket_ids V=%d wrote past V", L, (int)V);
        free(a); free(b);
        uint64_t ha[MS_FAST_NB], hb[MS_FAST_NB], ta = 1, tb = 2;
        uint32_t ca[MS_FAST_NB], cb[MS_FAST_NB];
        int64_t nta = -1, ntb = -2;
        int32_t nla = -1, nlb = -2;
        uint32_t *la = guarded(V + 16), *lb = guarded(V + 16), *ka = guarded(V + 16), *kb = guarded(V + 16);
        uint32_t *work = (uint32_t *)malloc(MS_FAST_BAND_WORK * 4);
        K->band_hist(y, w, V, m, scale, blo, bhi, ha, ca, &ta, &nta, (int32_t *)la, ka, &nla, work);
        G->band_hist(y, w, V, m, scale, blo, bhi, hb, cb, &tb, &ntb, (int32_t *)lb, kb, &nlb, work);
        int same = ta == tb && nta == ntb && nla == nlb && memcmp(la, lb, (size_t)nla * 4) == 0 &&
                   memcmp(ka, kb, (size_t)nla * 4) == 0;
        for (int32_t bb = blo; same && bb <= bhi; bb++) same = ha[bb] == hb[bb] && ca[bb] == cb[bb];
        CHECK_MSG(same, "%s band_hist V=%d band [%d, %d]: top %llu vs %llu, count %lld vs %lld, list %d vs %d", L,
                  (int)V, (int)blo, (int)bhi, (unsigned long long)ta, (unsigned long long)tb, (long long)nta,
                  (long long)ntb, (int)nla, (int)nlb);
        CHECK_MSG(guard_ok(la, V + 16) && guard_ok(ka, V + 16), "%s band_hist V=%d wrote past V + 16", L, (int)V);
        /* band_pick over that list (room n + 16): every bucket, one that matches all, none */
        const uint32_t whichs[3] = {(uint32_t)bhi, nla > 0 ? ka[0] : 0u, (uint32_t)MS_FAST_NB};
        for (int j = 0; j < 3; j++) {
            uint32_t *pa = guarded(nla + 16), *pb = guarded(nla + 16);
            const int32_t npa = K->band_pick((int32_t *)la, ka, nla, whichs[j], (int32_t *)pa);
            const int32_t npb = G->band_pick((int32_t *)la, ka, nla, whichs[j], (int32_t *)pb);
            CHECK_MSG(npa == npb && memcmp(pa, pb, (size_t)npa * 4) == 0, "%s band_pick n=%d which %u: %d vs %d", L,
                      (int)nla, whichs[j], (int)npa, (int)npb);
            CHECK_MSG(guard_ok(pa, nla + 16), "%s band_pick n=%d wrote past n + 16", L, (int)nla);
            free(pa); free(pb);
        }
        /* band_list (round 7) over the same band, cut by ms__fast_bucket_cut: at the buckets' own
         * scale it must give band_hist's list, buckets (less b_lo) and per-bucket sums; at 16x finer
         * units each unit must lie inside its bucket, and the sums must add up to the bucket's */
        if (blo > 0) {
            const float yhi = ms__fast_bucket_cut(m, blo);
            const float ylo = bhi + 1 < MS_FAST_NB ? ms__fast_bucket_cut(m, bhi + 1) : ms__neg_inf();
            for (int f = 1; f <= 16; f *= 16) {
                const int32_t nu = (bhi - blo + 1) * f;
                uint64_t *fh = (uint64_t *)malloc((size_t)nu * 8), *fg = (uint64_t *)malloc((size_t)nu * 8);
                uint32_t *fc = (uint32_t *)malloc((size_t)nu * 4), *fcg = (uint32_t *)malloc((size_t)nu * 4);
                uint32_t *la2 = guarded(V + 16), *ka2 = guarded(V + 16), *lg2 = guarded(V + 16), *kg2 = guarded(V + 16);
                int32_t n2 = -1, ng2 = -2;
                K->band_list(y, w, V, m, scale * (float)f, ylo, yhi, blo * f, (bhi + 1) * f - 1, fh, fc, (int32_t *)la2,
                             ka2, &n2);
                G->band_list(y, w, V, m, scale * (float)f, ylo, yhi, blo * f, (bhi + 1) * f - 1, fg, fcg, (int32_t *)lg2,
                             kg2, &ng2);
                int same2 = n2 == ng2 && memcmp(la2, lg2, (size_t)n2 * 4) == 0 && memcmp(ka2, kg2, (size_t)n2 * 4) == 0;
                for (int32_t u = 0; same2 && u < nu; u++) same2 = fh[u] == fg[u] && fc[u] == fcg[u];
                CHECK_MSG(same2, "%s band_list V=%d band [%d, %d] f %d: %d vs %d listed", L, (int)V, (int)blo, (int)bhi,
                          f, (int)n2, (int)ng2);
                CHECK_MSG(guard_ok(la2, V + 16) && guard_ok(ka2, V + 16), "%s band_list V=%d wrote past V + 16", L,
                          (int)V);
                /* against band_hist (the generic one's outputs, lb / kb / hb / cb) */
                int agree = n2 == nlb && memcmp(la2, lb, (size_t)n2 * 4) == 0;
                for (int32_t i2 = 0; agree && i2 < n2; i2++) agree = ka2[i2] / (uint32_t)f == kb[i2] - (uint32_t)blo;
                for (int32_t bb = blo; agree && bb <= bhi; bb++) {
                    uint64_t hs = 0;
                    uint32_t cs = 0;
                    for (int32_t u = (bb - blo) * f; u < (bb - blo + 1) * f; u++) {
                        hs += fh[u];
                        cs += fc[u];
                    }
                    agree = hs == hb[bb] && cs == cb[bb];
                }
                CHECK_MSG(agree, "%s band_list V=%d band [%d, %d] f %d differs from band_hist (%d vs %d listed)", L,
                          (int)V, (int)blo, (int)bhi, f, (int)n2, (int)nlb);
                free(fh); free(fg); free(fc); free(fcg); free(la2); free(ka2); free(lg2); free(kg2);
            }
            /* exp_mass_top: the mass and count of y >= yhi (after the division) are band_hist's
             * mass_top and cnt_top when T = 1; and y, w, the block masses and M are exp_mass's */
            float *y1 = (float *)malloc((size_t)V * 4), *y2 = (float *)malloc((size_t)V * 4);
            float *w1 = (float *)malloc((size_t)V * 4), *w2 = (float *)malloc((size_t)V * 4);
            const int32_t nbk = (V + MS_FAST_BLOCK - 1) / MS_FAST_BLOCK;
            uint64_t *b1 = (uint64_t *)calloc((size_t)nbk, 8), *b2 = (uint64_t *)calloc((size_t)nbk, 8);
            for (int tcase = 0; tcase < 2; tcase++) {
                const float T = tcase ? 0.7f : 1.0f;
                memcpy(y1, y, (size_t)V * 4);
                memcpy(y2, y, (size_t)V * 4);
                uint64_t mt = 1;
                int64_t ct = -1;
                const uint64_t M1 = K->exp_mass_top(y1, y1, w1, V, T, m / T, b1, yhi, &mt, &ct);
                const uint64_t M2 = G->exp_mass(y2, y2, w2, V, T, m / T, b2);
                int same3 = M1 == M2 && memcmp(y1, y2, (size_t)V * 4) == 0 && memcmp(w1, w2, (size_t)V * 4) == 0 &&
                            memcmp(b1, b2, (size_t)nbk * 8) == 0;
                uint64_t ms;
                int64_t cs;
                mass_count_ge(y2, w2, V, yhi, &ms, &cs);
                same3 = same3 && mt == ms && ct == cs;
                if (T == 1.0f) { /* band_hist's own mass above b_lo over these y, w */
                    uint64_t t3 = 0;
                    int64_t n3 = 0;
                    int32_t nl3 = 0;
                    G->band_hist(y2, w2, V, m, scale, blo, bhi, hb, cb, &t3, &n3, (int32_t *)lb, kb, &nl3, work);
                    same3 = same3 && mt == t3 && ct == n3;
                }
                CHECK_MSG(same3, "%s exp_mass_top V=%d T %g cut of bucket %d: M %llu vs %llu, top %llu/%lld vs %llu/%lld",
                          L, (int)V, (double)T, (int)blo, (unsigned long long)M1, (unsigned long long)M2,
                          (unsigned long long)mt, (long long)ct, (unsigned long long)ms, (long long)cs);
            }
            free(y1); free(y2); free(w1); free(w2); free(b1); free(b2);
        }
        free(la); free(lb); free(ka); free(kb); free(work);
    }
    free(y); free(w); free(yk); free(yg);
}

TEST(cpu_fast_kernel_edges) {
    const ms_fast_kernels *G = ms__cpu_fast_kernels(MS_FAST_GENERIC);
    REQUIRE(G != NULL);
    static const int32_t sizes[] = {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1023, 1024, 1040, 2048, 2063, 5000};
    ms_trng r = {71};
    int levels = 0;
    for (int l = MS_FAST_GENERIC; l < MS_FAST_N_LEVELS; l++) { /* generic too: against band_hist, scalar sums */
        const ms_fast_kernels *K = ms__cpu_fast_kernels(l);
        if (!K) continue;
        levels++;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (int variant = 0; variant < 3; variant++) kernel_edges_level(K, G, sizes[i], &r, variant);
    }
    CHECK(levels >= 1); /* w16 at least */
}

/* ---- pass 1's penalty and listing against scalar code (round 8) ----
 * load_max's blocks with a seen token apply ms__penalize lane by lane (masks from the bitset's
 * word), and its listed blocks (sparse) pack the ids without a branch (AVX2: the permute table).
 * Each level against ms_math.h's scalar operations over dense bitsets (lanes at the vectors'
 * edges, whole words, bits past the last whole block), values of every sign, zeros, infinities
 * and NaN, each dtype, penalties above and below 1: the same y, maximum and ids. */
static void pass1_penalty_one(const ms_fast_kernels *K, int32_t V, ms_dtype dt, float pen, ms_trng *r) {
    const char *L = K->name;
    const int32_t nw = (V + 63) / 64;
    float *x = (float *)malloc((size_t)V * 4), *ye = (float *)malloc((size_t)V * 4), *yk = (float *)malloc((size_t)V * 4);
    uint16_t *h = (uint16_t *)malloc((size_t)V * 2);
    uint64_t *seen = (uint64_t *)calloc((size_t)nw, 8);
    uint32_t *ids = guarded(V);
    for (int32_t t = 0; t < V; t++) {
        float v = (float)(3.0 * ms_trng_normal(r));
        switch (ms_trng_below(r, 16)) {
        case 0: v = 0.0f; break;
        case 1: v = -0.0f; break;
        case 2: v = ms__neg_inf(); break;
        case 3: v = ms__pos_inf(); break;
        case 4: v = ms__u2f(0x7fc00000u); break; /* NaN */
        case 5: v = 9.0f; break;                 /* ties at the top */
        default: break;
        }
        x[t] = v;
        /* the row as the dtype holds it: f16 / bf16 bits by truncation; the oracle reads them back */
        if (dt == MS_DTYPE_BF16) h[t] = (uint16_t)(ms__f2u(v) >> 16);
        else if (dt == MS_DTYPE_F16) h[t] = (uint16_t)ms_trng_below(r, 65536);
    }
    for (int32_t i = 0; i < nw; i++) {
        switch (ms_trng_below(r, 4)) {
        case 0: seen[i] = 0; break;
        case 1: seen[i] = ~0ull; break;
        case 2: seen[i] = 0x8000800180018001ull << ms_trng_below(r, 2); break; /* lanes at vector edges */
        default: seen[i] = ms_trng_next(r) & ms_trng_next(r); break;
        }
    }
    const void *row = dt == MS_DTYPE_F32 ? (const void *)x : (const void *)h;
    float me = ms__neg_inf();
    for (int32_t t = 0; t < V; t++) {
        float v = dt == MS_DTYPE_F32 ? x[t] : dt == MS_DTYPE_BF16 ? ms__bf16_to_f32(h[t]) : ms__f16_to_f32(h[t]);
        v = ms__sanitize(v);
        if (ms__bit_get(seen, t)) v = ms__penalize(v, pen);
        ye[t] = v;
        if (v > me) me = v;
    }
    const float taus[3] = {ms__neg_inf(), 2.5f, 9.0f};
    for (int mode = 0; mode < 3; mode++) { /* no list, dense list, sparse list */
        const float tau = taus[mode == 0 ? 0 : 1 + (int)ms_trng_below(r, 2)];
        for (int32_t i = 0; i < V + KG; i++) ids[i] = KSENT;
        int32_t n = -1;
        const float m = K->load_max(row, dt, V, seen, pen, yk, tau, mode ? (int32_t *)ids : NULL, mode ? &n : NULL,
                                    mode == 2);
        int same = ms__f2u(m) == ms__f2u(me) || (m == me && m == 0.0f); /* +-0: either zero is the max */
        int32_t ne = 0, bad = -1;
        for (int32_t t = 0; t < V && bad < 0; t++) {
            const int listed = mode && ye[t] >= tau;
            if (listed && (ne >= n || ((int32_t *)ids)[ne] != t)) bad = t;
            ne += listed;
            /* every y when no list is sparse; the listed ones otherwise */
            if ((mode < 2 || listed) && ms__f2u(yk[t]) != ms__f2u(ye[t]) && !(yk[t] != yk[t] && ye[t] != ye[t])) bad = t;
        }
        CHECK_MSG(same && bad < 0 && (!mode || n == ne), "%s load_max %s V=%d r=%g mode %d tau %g: max %g/%g, n %d/%d, first bad %d",
                  L, dt == MS_DTYPE_F32 ? "f32" : dt == MS_DTYPE_BF16 ? "bf16" : "f16", (int)V, (double)pen, mode,
                  (double)tau, (double)m, (double)me, (int)n, (int)ne, (int)bad);
        CHECK_MSG(guard_ok(ids, V), "%s load_max V=%d wrote past V", L, (int)V);
    }
    free(x); free(ye); free(yk); free(h); free(seen); free(ids);
}

TEST(cpu_fast_pass1_penalty) {
    static const int32_t sizes[] = {1, 63, 64, 65, 127, 128, 200, 1000, 4096, 20011};
    static const float pens[] = {1.3f, 0.7f, 2.0f};
    ms_trng r = {808};
    int levels = 0;
    for (int l = MS_FAST_GENERIC; l < MS_FAST_N_LEVELS; l++) {
        const ms_fast_kernels *K = ms__cpu_fast_kernels(l);
        if (!K) continue;
        levels++;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (int dt = 0; dt < 3; dt++)
                for (int p = 0; p < 3; p++)
                    pass1_penalty_one(K, sizes[i], dt == 0 ? MS_DTYPE_F32 : dt == 1 ? MS_DTYPE_BF16 : MS_DTYPE_F16, pens[p], &r);
    }
    CHECK(levels >= 1);
}

/* ---- round 9: the exp pass reading the caller's fp32 row (no copy from pass 1) ---------------- */

/* Each level's exp_mass and exp_mass_top from a raw row x (NaN, -inf, +-0, far tails, whole
 * groups below MS_FAST_ZERO_D) against the generic in-place pass over sanitize(x): the same y, w,
 * block masses, total, and mass and count above the cut, x untouched, ragged sizes. */
TEST(cpu_fast_exp_direct) {
    static const int32_t sizes[] = {1, 7, 8, 15, 16, 17, 63, 64, 65, 127, 128, 1000, 1024, 1031, 5003, 20011};
    const ms_fast_kernels *G = ms__cpu_fast_kernels(MS_FAST_GENERIC);
    REQUIRE(G != NULL);
    ms_trng r = {9090};
    const int32_t VM = 20011, nbm = (VM + MS_FAST_BLOCK - 1) / MS_FAST_BLOCK;
    float *x = (float *)malloc((size_t)VM * 4), *x0 = (float *)malloc((size_t)VM * 4);
    float *ys = (float *)malloc((size_t)VM * 4), *ws_ = (float *)malloc((size_t)VM * 4);
    float *yk = (float *)malloc((size_t)VM * 4), *wk = (float *)malloc((size_t)VM * 4);
    uint64_t *bs = (uint64_t *)calloc((size_t)nbm, 8), *bk = (uint64_t *)calloc((size_t)nbm, 8);
    int checked = 0;
    for (int l = MS_FAST_GENERIC; l < MS_FAST_N_LEVELS; l++) {
        const ms_fast_kernels *K = ms__cpu_fast_kernels(l);
        if (!K) continue;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            const int32_t V = sizes[i], nb = (V + MS_FAST_BLOCK - 1) / MS_FAST_BLOCK;
            for (int shape = 0; shape < 3; shape++) {
                for (int32_t t = 0; t < V; t++) {
                    const uint32_t c = ms_trng_below(&r, 16);
                    float v = (float)ms_trng_normal(&r);
                    if (shape == 1) v = c == 0 ? NAN : c == 1 ? -INFINITY : c == 2 ? -0.0f : c == 3 ? 0.0f : v * 4.0f;
                    /* shape 2: runs of 64 far below the max (no exp for the group) among ordinary ones */
                    if (shape == 2) v = ((t / 64) % 3 == 1) ? -100.0f + v : (c == 0 ? NAN : v);
                    x[t] = v;
                }
                memcpy(x0, x, (size_t)V * 4);
                float mx = -INFINITY;
                for (int32_t t = 0; t < V; t++) {
                    ys[t] = ms__sanitize(x[t]);
                    if (ys[t] > mx) mx = ys[t];
                }
                if (ms__is_neg_inf(mx)) continue;
                for (int tc = 0; tc < 2; tc++) {
                    const float T = tc ? 0.7f : 1.0f, m = mx / T, ytop = m - 1.0f;
                    for (int32_t t = 0; t < V; t++) ys[t] = ms__sanitize(x[t]);
                    for (int32_t t = 0; t < V; t++) yk[t] = 12345.0f; /* overwritten whole */
                    const uint64_t Ms = G->exp_mass(ys, ys, ws_, V, T, m, bs);
                    const uint64_t Mk = K->exp_mass(x, yk, wk, V, T, m, bk);
                    int same = Ms == Mk && memcmp(ys, yk, (size_t)V * 4) == 0 && memcmp(ws_, wk, (size_t)V * 4) == 0 &&
                               memcmp(bs, bk, (size_t)nb * 8) == 0 && memcmp(x, x0, (size_t)V * 4) == 0;
                    for (int32_t t = 0; t < V; t++) yk[t] = 12345.0f;
                    uint64_t mt = 1;
                    int64_t ct = -1;
                    const uint64_t Mt = K->exp_mass_top(x, yk, wk, V, T, m, bk, ytop, &mt, &ct);
                    uint64_t ms;
                    int64_t cs;
                    mass_count_ge(ys, ws_, V, ytop, &ms, &cs);
                    same = same && Mt == Ms && mt == ms && ct == cs && memcmp(ys, yk, (size_t)V * 4) == 0 &&
                           memcmp(ws_, wk, (size_t)V * 4) == 0 && memcmp(bs, bk, (size_t)nb * 8) == 0 &&
                           memcmp(x, x0, (size_t)V * 4) == 0;
                    CHECK_MSG(same, "%s direct exp pass V=%d shape %d T %g: M %llu / %llu / %llu, top %llu/%lld vs %llu/%lld",
                              K->name, (int)V, shape, (double)T, (unsigned long long)Ms, (unsigned long long)Mk,
                              (unsigned long long)Mt, (unsigned long long)mt, (long long)ct, (unsigned long long)ms,
                              (long long)cs);
                    checked++;
                }
            }
        }
    }
    CHECK(checked > 0);
    free(x); free(x0); free(ys); free(ws_); free(yk); free(wk); free(bs); free(bk);
}

/* Whole rows on the direct path (fp32, nothing penalised, every token gets an exp: top-p alone,
 * no filter, the HF order) and next to it (a penalty, a windowed one, min-p, bf16), with the path
 * on and off, at every level, against the reference; and that the direct rows really ran. */
TEST(cpu_fast_direct_rows) {
    static const int32_t sizes[] = {1000, 32013, 151936};
    ms_trng r = {9191};
    const int saved = ms__cpu_fast_level();
    const int64_t d0 = ms__fast_direct_rows();
    int64_t expect = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const int32_t V = sizes[si];
        fx f;
        fx_init(&f, V);
        const int n_cases = V > 100000 ? 6 : 14;
        for (int i = 0; i < n_cases; i++) {
            static const int shapes[] = {SHAPE_FLAT, SHAPE_PEAKED, SHAPE_SPECIAL, SHAPE_TIES, SHAPE_ONE_HOT};
            gen_row(&f, &r, shapes[i % 5]);
            for (int32_t t = 0; t < V; t++)
                if (f.x[t] == INFINITY) f.x[t] = 3.0f; /* (+inf rows go to the reference before the exp pass) */
            memset(f.seen, 0, (size_t)(V + 63) / 64 * 8);
            for (int j = 0; j < 64; j++) ms__bit_set(f.seen, (int32_t)ms_trng_below(&r, (uint32_t)V));
            for (int j = 0; j < 16; j++) f.hist[j] = (int32_t)ms_trng_below(&r, 8);
            ms_req_config cfg = ms_req_config_default();
            cfg.temperature = i % 3 == 2 ? 1.3f : 0.7f;
            cfg.seed = ms_trng_next(&r);
            const int setting = i % 7;
            static const float ps[] = {0.9f, 0.5f, 0.999f, 0.95f};
            cfg.top_p = ps[(i / 7) % 4];
            if (setting == 1) cfg.top_p = 1.0f;                        /* no filter */
            if (setting == 2) { cfg.top_k = 50; cfg.top_p_first = true; } /* the HF order */
            if (setting == 3) cfg.repetition_penalty = 1.3f;           /* penalised: not direct */
            if (setting == 4) { cfg.repetition_penalty = 1.3f; cfg.repetition_window = 4; } /* windowed */
            if (setting == 5) cfg.min_p = 0.05f;                       /* min-p: not the exp path */
            if (setting == 6) cfg.top_p_min_keep = 100;
            ms_row_job job;
            memset(&job, 0, sizeof job);
            job.cfg = &cfg;
            job.seen = f.seen;
            job.hist = f.hist;
            job.hist_cap = 16;
            job.hist_len = 8;
            job.apply_penalty = i % 4 != 3; /* a penalty not applied: direct again */
            job.apply_filters = true;
            job.V = V;
            job.row = f.x;
            job.dtype = MS_DTYPE_F32;
            /* (a windowed penalty edits the copy whether or not apply_penalty holds: never direct) */
            const bool direct = setting < 3 || setting == 6 || (setting == 3 && !job.apply_penalty);
            for (int on = 1; on >= 0; on--) {
                ms__fast_set_direct(on);
                char what[128];
                snprintf(what, sizeof what, "direct=%d V=%d case %d setting %d p %g apply_penalty %d", on, (int)V, i,
                         setting, (double)cfg.top_p, (int)job.apply_penalty);
                const int64_t before = ms__fast_direct_rows();
                compare_job_levels(&f, &job, what);
                const int64_t ran = ms__fast_direct_rows() - before;
                /* an empty row (every token -inf or NaN) stops before the path: the special shape never is */
                CHECK_MSG(on && direct ? ran > 0 : ran == 0, "%s: %lld direct rows", what, (long long)ran);
                if (on && direct) expect++;
            }
        }
        fx_free(&f);
    }
    ms__fast_set_direct(1);
    ms__cpu_fast_set_level(saved);
    CHECK(expect > 0 && ms__fast_direct_rows() - d0 > 0);
    printf("# direct rows: %lld (cases %lld)\n", (long long)(ms__fast_direct_rows() - d0), (long long)expect);
}

/* Round 9: a flat row whose bracket sample catches its maximum (token 0 is always sampled; the rest
 * of the row is N(0,1) clipped to |z| <= 3.5, so no other token is near it) is still a flat row: it
 * takes the pre-sampled band (counts[0]) and neither the peaked rows' count-rule band (counts[4])
 * nor a widened band (counts[2]), which cost such rows ~2.5x (the largest sampled weight made the
 * sample's n_eff ~240 < 256 before). The same tokens and kept sets as the reference at every level. */
TEST(cpu_fast_flat_sampled_max) {
    const int32_t V = 151936;
    fx f;
    fx_init(&f, V);
    ms_trng r = {4242};
    const int saved = ms__cpu_fast_level();
    int64_t c0[5], c1[5];
    ms__fast_top_p_counts(c0);
    int calls = 0;
    for (int i = 0; i < 3; i++) {
        for (int32_t t = 0; t < V; t++) {
            double z = ms_trng_normal(&r);
            f.x[t] = (float)(z > 3.5 ? 3.5 : z < -3.5 ? -3.5 : z);
        }
        f.x[0] = 5.5f;
        ms_req_config cfg = ms_req_config_default();
        cfg.temperature = 0.7f;
        cfg.top_p = i == 2 ? 0.95f : 0.9f;
        cfg.seed = ms_trng_next(&r);
        ms_row_job job = f32_job(&cfg, V, f.x);
        char what[80];
        snprintf(what, sizeof what, "flat row with its max sampled, case %d", i);
        compare_job_levels(&f, &job, what);
        for (int level = 0; level < MS_FAST_N_LEVELS; level++) calls += ms__cpu_fast_level_ok(level) ? 2 : 0;
    }
    ms__fast_top_p_counts(c1);
    CHECK_MSG(c1[0] - c0[0] == calls, "pre-sampled band in %lld of %d rows", (long long)(c1[0] - c0[0]), calls);
    CHECK_EQ_I64(c1[4] - c0[4], 0);
    CHECK_EQ_I64(c1[2] - c0[2], 0);
    ms__cpu_fast_set_level(saved);
    fx_free(&f);
}
