/* test_cuda.c: the CUDA backend against the CPU reference (issue 4). Every test needs a CUDA device;
 * without one (CI) it prints the reason and exits with 77, which CTest reports as skipped. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ms_cuda.h" /* ms__cuda_mode_rows: which K4 path served the rows */
#include "ms_math.h"        /* cuda_oneread_model: the shared exp and keys */
#include "ms_test.h"
#include "msampler.h"

#define MS_SKIP_CODE 77

/* MS_CUDA_TEST_QUICK=1: a few small cases (for compute-sanitizer, which runs kernels far slower). */
static bool quick(void) {
    const char *q = getenv("MS_CUDA_TEST_QUICK");
    return q && *q == '1';
}

static void need_device(const char *test) {
    int n = ms_cuda_device_count();
    if (n < 1) {
        printf("SKIP %s: %s\n", test,
               n == MS_EBACKEND ? "no CUDA device visible (or no CUDA backend in this build); GPU tests run on the lent GPU"
                                : "no CUDA device");
        fflush(stdout);
        exit(MS_SKIP_CODE);
    }
    /* Under compute-sanitizer (the quick sets) K2's blocks run far slower: a longer time bound for their wait on the
     * row's mode (round 15B), so that the rows take their usual paths there too (the hook test forces the others) */
    if (quick()) (void)ms__cuda_k3(-1, 100000, NULL);
}

#define CU(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            MS_FAIL_AT("%s: %s", #call, cudaGetErrorString(e_));                                  \
            return;                                                                               \
        }                                                                                         \
    } while (0)

/* ---- inputs ----------------------------------------------------------------------------------- */

static uint16_t f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xffu) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000u;
        int shift = 14 - e;
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

static uint16_t f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
    return (uint16_t)(x >> 16);
}

/* One row of logits of a random shape: flat, peaked, many ties, or with NaN / -inf / +inf. */
static void gen_row(ms_trng *g, float *x, int32_t width, int32_t V) {
    int shape = (int)ms_trng_below(g, 100);
    double scale = 0.5 + 3.0 * ms_trng_unit(g);
    for (int32_t t = 0; t < width; t++) {
        double v;
        if (shape < 35) v = ms_trng_normal(g) * scale;                              /* flat */
        else if (shape < 70) v = 3.0 * ms_trng_normal(g) + (ms_trng_below(g, 1000) < 3 ? 8.0 : 0.0); /* peaked */
        else if (shape < 85) v = (double)(int)ms_trng_below(g, 7) - 3.0;            /* ties */
        else v = ms_trng_normal(g) * 2.0;
        x[t] = (float)v;
    }
    if (shape >= 85) { /* special values */
        int kind = (int)ms_trng_below(g, 6);
        int32_t n = 1 + (int32_t)ms_trng_below(g, V < 8 ? 1 : 8);
        for (int32_t i = 0; i < n; i++) {
            int32_t t = (int32_t)ms_trng_below(g, (uint32_t)V);
            x[t] = kind == 0 ? NAN : kind == 1 ? -INFINITY : kind == 2 ? INFINITY : x[t];
        }
        if (kind == 3) /* most of the row masked */
            for (int32_t t = 0; t < V; t++)
                if (ms_trng_below(g, 10) < 9) x[t] = -INFINITY;
        if (kind == 4) /* an empty row */
            for (int32_t t = 0; t < V; t++) x[t] = ms_trng_below(g, 2) ? -INFINITY : NAN;
    }
}

static ms_req_config gen_cfg(ms_trng *g, int32_t V, int32_t max_window, bool stops) {
    ms_req_config c = ms_req_config_default();
    uint32_t u = ms_trng_below(g, 100);
    c.temperature = u < 6 ? 0.0f : u < 9 ? 5e-6f : u < 30 ? 0.7f : u < 40 ? 1.0f : (float)(0.05 + 2.0 * ms_trng_unit(g));
    u = ms_trng_below(g, 100);
    c.top_k = u < 40 ? 0 : u < 45 ? 1 : u < 50 ? V : u < 55 ? (V > 1 ? V - 1 : 1) : 1 + (int32_t)ms_trng_below(g, 100);
    u = ms_trng_below(g, 100);
    c.top_p = u < 40 ? 1.0f : u < 45 ? 1e-6f : (float)(0.05 + 0.94 * ms_trng_unit(g));
    u = ms_trng_below(g, 100);
    c.min_p = u < 50 ? 0.0f : u < 53 ? 1.0f : (float)(0.005 + 0.3 * ms_trng_unit(g));
    u = ms_trng_below(g, 100);
    c.repetition_penalty = u < 40 ? 1.0f : (float)(0.5 + 1.5 * ms_trng_unit(g));
    c.repetition_window = (max_window > 0 && ms_trng_below(g, 3) == 0) ? 1 + (int32_t)ms_trng_below(g, (uint32_t)max_window) : 0;
    c.min_tokens = (stops && ms_trng_below(g, 3) == 0) ? 1 + (int32_t)ms_trng_below(g, 3) : 0;
    c.top_p_first = ms_trng_below(g, 5) == 0;
    c.top_p_min_keep = ms_trng_below(g, 3) == 0 ? 1 + (int32_t)ms_trng_below(g, 60) : 1;
    c.penalize_prompt = ms_trng_below(g, 4) != 0;
    c.seed = ms_trng_next(g);
    return c;
}

/* Rows aimed at K2's per-chunk top-k of the min-p survivors (the "lite" rows of src/cuda/ms_cuda.cu):
 * nearly flat rows (a chunk's survivors overflow its stage: the chunk is re-read), all-equal rows (the
 * candidates overflow: the exact whole-row path), one high token (the max in one chunk only), ties,
 * high tokens on both sides of chunk boundaries (multiples of 8), +inf tokens. */
static void gen_row_lite(ms_trng *g, float *x, int32_t width, int32_t V) {
    int shape = (int)ms_trng_below(g, 7);
    for (int32_t t = 0; t < width; t++) {
        double v = ms_trng_normal(g);
        if (shape == 0) v *= 0.02;
        else if (shape == 1) v = 1.5;
        else if (shape == 3) v = (double)(int)ms_trng_below(g, 4);
        x[t] = (float)v;
    }
    if (shape == 2) x[ms_trng_below(g, (uint32_t)V)] = 30.0f;
    if (shape == 4)
        for (int32_t t = 7; t + 1 < V; t += 8 * (1 + (int32_t)ms_trng_below(g, 300))) {
            x[t] = 6.0f;
            x[t + 1] = 6.0f;
        }
    if (shape == 5)
        for (int i = 0; i < 3; i++) x[ms_trng_below(g, (uint32_t)V)] = INFINITY;
}

static ms_req_config gen_cfg_lite(ms_trng *g) {
    static const float temps[] = {0.7f, 1.0f, 2.5f}, minps[] = {1e-4f, 1e-3f, 0.05f, 0.3f, 1.0f};
    static const int32_t ks[] = {1, 2, 50, 64, 1024, 1025};
    ms_req_config c = ms_req_config_default();
    c.temperature = temps[ms_trng_below(g, 3)];
    c.min_p = minps[ms_trng_below(g, 5)];
    c.top_k = ks[ms_trng_below(g, 6)];
    uint32_t u = ms_trng_below(g, 4);
    c.top_p = u == 0 ? 1.0f : u == 1 ? 1e-6f : 0.9f;
    c.top_p_first = ms_trng_below(g, 4) == 0;
    c.top_p_min_keep = ms_trng_below(g, 3) == 0 ? 1 + (int32_t)ms_trng_below(g, 60) : 1;
    c.repetition_penalty = ms_trng_below(g, 2) ? 1.2f : 1.0f;
    c.seed = ms_trng_next(g);
    return c;
}

/* Rows for the lite rows' candidate histogram (round 5, ms_cu_lbin in ms_cuda.cu): K4 loads only the
 * candidates in the bins up to the k'-th's. Flat rows at several scales (many candidates a bin, or few);
 * values on a coarse grid (ties at a chunk's k'-th key and at the k'-th candidate, whole bins tied);
 * all-equal rows; a row max in the last chunk (the last tokens high) or in the first; +inf and NaN
 * tokens (+inf rows do not use the bins); a narrow row (every token in the first bins). */
static void gen_row_bins(ms_trng *g, float *x, int32_t width, int32_t V) {
    int shape = (int)ms_trng_below(g, 8);
    const double scale = shape == 0 ? 0.05 : shape == 1 ? 3.0 : 1.0;
    for (int32_t t = 0; t < width; t++) {
        double v = ms_trng_normal(g) * scale;
        if (shape == 2) v = floor(v * 4.0) / 4.0;                 /* a coarse grid: many exact ties */
        if (shape == 3) v = 0.5;                                  /* all equal */
        if (shape == 7) v = floor(v * 64.0) / 64.0;               /* a fine grid: ties near bin edges */
        x[t] = (float)v;
    }
    if (shape == 4) /* the max in the last chunk: the last tokens high, some tied */
        for (int32_t t = V - 1; t >= 0 && t > V - 40; t--) x[t] = 5.0f + (float)((V - 1 - t) % 5) * 0.125f;
    if (shape == 5) {
        x[ms_trng_below(g, (uint32_t)V)] = INFINITY;
        x[ms_trng_below(g, (uint32_t)V)] = NAN;
    }
    if (shape == 6) {
        x[ms_trng_below(g, (uint32_t)V)] = NAN;
        x[0] = 7.0f; /* the max in the first chunk */
    }
}

static ms_req_config gen_cfg_bins(ms_trng *g) {
    static const float temps[] = {0.7f, 1.0f, 3.0f}, minps[] = {1e-4f, 0.05f, 0.5f, 1.0f};
    static const int32_t ks[] = {1, 2, 50, 64, 65, 300, 2048};
    ms_req_config c = ms_req_config_default();
    c.temperature = temps[ms_trng_below(g, 3)];
    c.min_p = minps[ms_trng_below(g, 4)];
    c.top_k = ks[ms_trng_below(g, 7)];
    c.top_p = ms_trng_below(g, 2) ? 0.9f : 1.0f;
    c.top_p_first = ms_trng_below(g, 4) == 0;
    c.top_p_min_keep = ms_trng_below(g, 4) == 0 ? 1 + (int32_t)ms_trng_below(g, 100) : 1;
    c.repetition_penalty = ms_trng_below(g, 2) ? 1.3f : 1.0f;
    c.seed = ms_trng_next(g);
    return c;
}

/* Rows for K4's whole-row path (round 3): top-p with no top-k or min-p (or a top-k over 2048, or a
 * tiny min-p) on rows whose candidates do not fit: flat rows at several scales, all-equal rows, few
 * distinct values, masked tails and NaN. */
static void gen_row_topp(ms_trng *g, float *x, int32_t width, int32_t V) {
    static const double scales[] = {0.3, 1.0, 3.0};
    const int shape = (int)ms_trng_below(g, 6);
    const double scale = scales[ms_trng_below(g, 3)];
    for (int32_t t = 0; t < width; t++) {
        double v = ms_trng_normal(g) * scale;
        if (shape == 1) v = 1.5;
        else if (shape == 2) v = (double)(int)ms_trng_below(g, 4);
        else if (shape == 3 && ms_trng_below(g, 5) == 0) v = -INFINITY;
        x[t] = (float)v;
    }
    if (shape == 4)
        for (int i = 0; i < 4; i++) x[ms_trng_below(g, (uint32_t)V)] = i == 0 ? NAN : -INFINITY;
    if (shape == 5) x[ms_trng_below(g, (uint32_t)V)] = 4.0f * (float)scale; /* one token a little above */
}

static ms_req_config gen_cfg_topp(ms_trng *g) {
    static const float temps[] = {0.3f, 1.0f, 2.0f}, ps[] = {1e-6f, 0.5f, 0.9f, 0.999f, 1.0f};
    static const int32_t keeps[] = {1, 1, 1, 2, 37, 5000, 200000};
    ms_req_config c = ms_req_config_default();
    c.temperature = temps[ms_trng_below(g, 3)];
    c.top_p = ps[ms_trng_below(g, 5)];
    uint32_t u = ms_trng_below(g, 8);
    c.top_k = u == 0 ? 3000 : u == 1 ? 20000 : 0;
    c.min_p = ms_trng_below(g, 8) == 0 ? 1e-4f : 0.0f;
    c.top_p_first = ms_trng_below(g, 3) == 0;
    c.top_p_min_keep = keeps[ms_trng_below(g, 7)];
    c.repetition_penalty = ms_trng_below(g, 3) == 0 ? 1.3f : 1.0f;
    c.min_tokens = ms_trng_below(g, 3) == 0 ? 1 + (int32_t)ms_trng_below(g, 3) : 0;
    c.seed = ms_trng_next(g);
    return c;
}

/* Rows for the BAND path (round 4: top-p alone over the whole chip): flat rows at three scales (the
 * threshold's bucket holds ~1300 tokens), peaked rows (their candidates fit: K3/K4's list path), tied
 * rows (4 values: the bucket overflows the list and the row falls back to FULL), flat rows whose stop
 * ids (0, V/2, V-1) lead (the floor decides), masked tails with NaN, one token a little above. */
static void gen_row_band(ms_trng *g, float *x, int32_t width, int32_t V) {
    static const double scales[] = {0.3, 1.0, 3.0};
    const int shape = (int)ms_trng_below(g, 6);
    const double scale = scales[ms_trng_below(g, 3)];
    for (int32_t t = 0; t < width; t++) {
        double v = ms_trng_normal(g) * scale;
        if (shape == 1) v = 3.0 * ms_trng_normal(g) + (ms_trng_below(g, 1000) < 3 ? 8.0 : 0.0);
        else if (shape == 2) v = (double)(int)ms_trng_below(g, 4);
        else if (shape == 4 && ms_trng_below(g, 5) == 0) v = -INFINITY;
        x[t] = (float)v;
    }
    if (shape == 3) {
        x[0] = (float)(4.0 * scale);
        x[V / 2] = (float)(3.0 * scale);
        x[V - 1] = (float)(5.0 * scale);
    }
    if (shape == 4) x[ms_trng_below(g, (uint32_t)V)] = NAN;
    if (shape == 5) x[ms_trng_below(g, (uint32_t)V)] = (float)(4.0 * scale);
}

/* The BAND rows' settings from tables (the draws in the same order for every table, so that each generator's
 * rows stay as they were): T, top-p and min_keep from the tables; the HF order one time in three; a top-k
 * after top-p (3000) or alone (20000) one time in ten each; min-p 1e-4 one time in minp_in; a 1.3 penalty one
 * time in four; the min-tokens floor (1-3) one time in floor_in. */
static ms_req_config gen_cfg_band_from(ms_trng *g, const float *temps, uint32_t nt, const float *ps, uint32_t np,
                                       const int32_t *keeps, uint32_t minp_in, uint32_t floor_in) {
    ms_req_config c = ms_req_config_default();
    c.temperature = temps[ms_trng_below(g, nt)];
    c.top_p = ps[ms_trng_below(g, np)];
    c.top_p_first = ms_trng_below(g, 3) == 0;
    c.top_p_min_keep = keeps[ms_trng_below(g, np)];
    const uint32_t u = ms_trng_below(g, 10);
    c.top_k = u == 0 ? 3000 : u == 1 ? 20000 : 0;
    if (u == 1 && !c.top_p_first) c.top_p = 1.0f;
    c.min_p = ms_trng_below(g, minp_in) == 0 ? 1e-4f : 0.0f; /* not a lite row */
    c.repetition_penalty = ms_trng_below(g, 4) == 0 ? 1.3f : 1.0f;
    c.min_tokens = ms_trng_below(g, floor_in) == 0 ? 1 + (int32_t)ms_trng_below(g, 3) : 0;
    c.seed = ms_trng_next(g);
    return c;
}

static ms_req_config gen_cfg_band(ms_trng *g) {
    static const float temps[] = {0.3f, 1.0f, 2.0f}, ps[] = {1e-6f, 0.5f, 0.9f, 0.9f, 0.999f, 1.0f};
    static const int32_t keeps[] = {1, 1, 1, 2, 37, 5000}; /* one per entry of ps */
    return gen_cfg_band_from(g, temps, 3, ps, 6, keeps, 8, 3);
}

/* Round 11: settings for the BAND path's new parts (K3 taking the masses above the bucket from K2's per-block
 * bucket masses, -DMS_CU_PB; K4's chunk walk with 16-byte loads, -DMS_CU_DRAWV): T in {0.5, 1, 2} (powers of two:
 * x / T exact, so the rows below put y exactly on K2's bucket edges) and 0.7; top-p from 1e-6 to 0.999 and off;
 * the HF order; min_keep up to 200000; a top-k alone (20000) or after top-p (3000); min-p 1e-4 now and then; the
 * min-tokens floor (K3's walk with exp); penalties. */
static ms_req_config gen_cfg_edge(ms_trng *g) {
    static const float temps[] = {0.5f, 1.0f, 2.0f, 0.7f}, ps[] = {1e-6f, 0.5f, 0.9f, 0.9f, 0.99f, 0.999f, 1.0f};
    static const int32_t keeps[] = {1, 1, 1, 2, 37, 5000, 200000};
    return gen_cfg_band_from(g, temps, 4, ps, 7, keeps, 10, 4);
}

/* Rows for round 11: flat at three scales; values y = x / T exactly on K2's bucket edges (key >> 21: four
 * edges a binade, 2^e (1 + j/4)) or one ulp off them, both signs (many ties at the edges: the pre-filters'
 * margins and the bucket test); a wide row (scale 40); four values (the bucket overflows the list: FULL);
 * flat rows whose stop ids lead (the floor); peaked rows; masked tails with NaN and -inf. */
static void gen_row_edge(ms_trng *g, float *x, int32_t width, int32_t V, const ms_req_config *cfg) {
    static const double scales[] = {0.3, 1.0, 3.0};
    const int shape = (int)ms_trng_below(g, 7);
    const double scale = scales[ms_trng_below(g, 3)];
    const float T = cfg->temperature;
    for (int32_t t = 0; t < width; t++) {
        double v = ms_trng_normal(g) * scale;
        if (shape == 1) {
            const int e = (int)ms_trng_below(g, 5) - 3, j = (int)ms_trng_below(g, 4);
            float y = ldexpf(1.0f + (float)j / 4.0f, e);
            if (ms_trng_below(g, 3) == 0) y = -y;
            const uint32_t o = ms_trng_below(g, 8);
            if (o == 0) y = nextafterf(y, INFINITY);
            else if (o == 1) y = nextafterf(y, -INFINITY);
            v = (double)(y * T);
        } else if (shape == 2) {
            v = ms_trng_normal(g) * 40.0;
        } else if (shape == 3) {
            v = (double)(int)ms_trng_below(g, 4);
        } else if (shape == 5) {
            v = 3.0 * ms_trng_normal(g) + (ms_trng_below(g, 1000) < 3 ? 8.0 : 0.0);
        } else if (shape == 6 && ms_trng_below(g, 5) == 0) {
            v = -INFINITY;
        }
        x[t] = (float)v;
    }
    if (shape == 4) {
        x[0] = (float)(4.0 * scale);
        x[V / 2] = (float)(3.0 * scale);
        x[V - 1] = (float)(5.0 * scale);
    }
    if (shape == 6) x[ms_trng_below(g, (uint32_t)V)] = NAN;
}

/* Rows at min-p's edges (written in round 8 for the fused path, removed in round 11; they now test the lite
 * path's min-p pre-filters, candidate bins and K4's exact test at the same edges). The row knows its
 * request's T and min-p (cfg), so that tokens can sit at min-p's boundary: flat rows at three scales; a
 * coarse grid (ties at the cuts); the max in the last chunk (the last tokens high: the other chunks' lower
 * bound may be stale); scattered tokens within +-0.02 of the boundary (listed by the superset, some outside
 * S0: K4's exact test drops them); a block of 70 tokens exactly at the boundary in one chunk and the max
 * elsewhere (that chunk cuts at k' <= 64 inside the boundary's band: the check fails, the whole-row path,
 * every such row unless min-p is 1); all-equal rows (every chunk's superset overflows K2's stage); +inf and
 * NaN tokens. */
static void gen_row_fused(ms_trng *g, float *x, int32_t width, int32_t V, const ms_req_config *cfg) {
    const int shape = (int)ms_trng_below(g, 8);
    const double scale = shape == 0 ? 0.3 : shape == 1 ? 3.0 : 1.0;
    const float T = cfg->temperature > 0.0f ? cfg->temperature : 1.0f;
    const float lnp = cfg->min_p > 0.0f ? logf(cfg->min_p) : -5.0f;
    for (int32_t t = 0; t < width; t++) {
        double v = ms_trng_normal(g) * scale;
        if (shape == 2) v = floor(v * 4.0) / 4.0;
        if (shape == 4 || shape == 5) v -= 30.0; /* far below the max: S0 is the placed tokens */
        if (shape == 6) v = 0.5;
        x[t] = (float)v;
    }
    if (shape == 3) /* the max in the last chunk */
        for (int32_t t = V - 1; t >= 0 && t > V - 40; t--) x[t] = 5.0f + (float)((V - 1 - t) % 5) * 0.125f;
    if (shape == 4) { /* tokens scattered around min-p's boundary */
        x[ms_trng_below(g, (uint32_t)V)] = 5.0f;
        for (int i = 0; i < 40; i++)
            x[ms_trng_below(g, (uint32_t)V)] = 5.0f + T * (lnp + 0.02f * (float)((int)ms_trng_below(g, 41) - 20) / 20.0f);
    }
    if (shape == 5 && V > 200) { /* a block at the boundary, the max half a row away */
        const int32_t p0 = (int32_t)ms_trng_below(g, (uint32_t)(V - 100));
        for (int32_t t = p0; t < p0 + 70; t++) x[t] = 5.0f + T * lnp;
        x[(p0 + V / 2) % V] = 5.0f;
    }
    if (shape == 7) {
        x[ms_trng_below(g, (uint32_t)V)] = INFINITY;
        x[ms_trng_below(g, (uint32_t)V)] = INFINITY;
        x[ms_trng_below(g, (uint32_t)V)] = NAN;
    }
}

/* Rows for round 12's K2 stage (the tokens that pass the cheap test on x appended to one block-wide stage of
 * MS_CU_HB = 2048 entries; more than that and the chunk re-reads itself) and its bin cut (a chunk with more
 * than k' survivors lists those in the candidate bins up to the k'-th's; crowded bins take the radix
 * select: ties, narrow rows, V=111). The row knows
 * its request's T and min-p: flat rows (~1% pass); nearly flat and all-equal rows (every token passes: the
 * stage overflows at every chunk size over 2048); a fraction of 5-20% of the tokens inside min-p's band and
 * the rest far below (around 2048 passing tokens in a B=64 chunk of 18992: some chunks overflow, some just
 * fit); a coarse grid (ties at a chunk's k'-th key); a narrow band where the seen set's penalty moves tokens
 * across the cut (every 8th token high, so groups of 4 mix penalised and high tokens); aligned groups of four
 * NaN (their fmaxf is NaN: the group is not skipped, each NaN fails per token), -inf runs, +inf tokens. */
static void gen_row_stage(ms_trng *g, float *x, int32_t width, int32_t V, const ms_req_config *cfg) {
    static const double fracs[] = {0.05, 0.105, 0.108, 0.112, 0.2};
    const int shape = (int)ms_trng_below(g, 8);
    const float T = cfg->temperature > 0.0f ? cfg->temperature : 1.0f;
    const float lnp = cfg->min_p > 0.0f ? logf(cfg->min_p) : -5.0f;
    const double frac = fracs[ms_trng_below(g, 5)];
    for (int32_t t = 0; t < width; t++) {
        double v = ms_trng_normal(g);
        if (shape == 1) v *= 0.02;
        if (shape == 2) v = 0.5;
        if (shape == 3) v = ms_trng_unit(g) < frac ? 5.0 + T * lnp * ms_trng_unit(g) : -30.0;
        if (shape == 4) v = floor(v * 4.0) / 4.0;
        if (shape == 5) v = (t & 7) == 0 ? 3.0 + 0.3 * v : 0.3 * v;
        if (shape == 6 && ms_trng_below(g, 50) == 0) v = -INFINITY;
        x[t] = (float)v;
    }
    if (shape == 6 && V >= 8) {
        for (int i = 0; i < 20; i++) {
            const int32_t t0 = (int32_t)ms_trng_below(g, (uint32_t)(V / 4)) * 4;
            for (int32_t t = t0; t < t0 + 4 && t < V; t++) x[t] = NAN;
        }
        x[ms_trng_below(g, (uint32_t)V)] = 6.0f;
    }
    if (shape == 7) {
        x[ms_trng_below(g, (uint32_t)V)] = INFINITY;
        x[ms_trng_below(g, (uint32_t)V)] = NAN;
    }
}

/* Round 14: the bench's rows and full setting (ms_bench_cuda: T 0.7, min-p 0.05, top-k 50, top-p 0.9, a
 * repetition penalty 1.2), for the one-read path's online top-k' cut: flat rows (N(0,1), three in four; their
 * chunks' min-p supersets overflowed round 13's stage) and peaked ones (3 N(0,1), about 0.3% of the tokens
 * raised by 8). */
static void gen_row_oflat(ms_trng *g, float *x, int32_t width) {
    const bool peaked = ms_trng_below(g, 4) == 0;
    for (int32_t t = 0; t < width; t++) {
        double v = ms_trng_normal(g);
        if (peaked) v = 3.0 * v + (ms_trng_below(g, 1000) < 3 ? 8.0 : 0.0);
        x[t] = (float)v;
    }
}
static ms_req_config gen_cfg_oflat(ms_trng *g) {
    ms_req_config c = ms_req_config_default();
    c.temperature = 0.7f;
    c.top_p = 0.9f;
    c.top_k = 50;
    c.min_p = 0.05f;
    c.repetition_penalty = 1.2f;
    c.seed = ms_trng_next(g);
    return c;
}

/* Round 37C: the bench's top-p alone (gen_cfg_oflat without top-k and min-p): not a lite row */
static ms_req_config gen_cfg_tpa(ms_trng *g) {
    ms_req_config c = gen_cfg_oflat(g);
    c.top_k = 0;
    c.min_p = 0.0f;
    return c;
}

/* Mostly lite rows (min-p and a top-k <= 64 in the default order), mixed with rows of the other paths in
 * the same batch: the HF order, a top-k over 2048 or none, greedy, a window penalty. */
static ms_req_config gen_cfg_fused(ms_trng *g) {
    static const float temps[] = {0.7f, 1.0f, 2.0f}, minps[] = {1e-4f, 0.05f, 0.5f, 1.0f};
    static const int32_t ks[] = {1, 2, 50, 64};
    ms_req_config c = ms_req_config_default();
    c.temperature = temps[ms_trng_below(g, 3)];
    c.min_p = minps[ms_trng_below(g, 4)];
    c.top_k = ks[ms_trng_below(g, 4)];
    c.top_p = ms_trng_below(g, 2) ? 0.9f : 1.0f;
    c.top_p_min_keep = ms_trng_below(g, 4) == 0 ? 1 + (int32_t)ms_trng_below(g, 80) : 1;
    c.repetition_penalty = ms_trng_below(g, 2) ? 1.3f : 1.0f;
    const uint32_t u = ms_trng_below(g, 12);
    if (u == 0) c.top_p_first = true;
    if (u == 1) c.top_k = ms_trng_below(g, 2) ? 0 : 3000;
    if (u == 2) c.temperature = 0.0f;
    if (u == 3) c.repetition_window = 8;
    c.seed = ms_trng_next(g);
    return c;
}

/* ---- one case: the same requests, steps and logits on CPU_REF and CUDA ------------------------- */

typedef struct idcase {
    int32_t V, B, steps;
    ms_dtype dtype;
    uint64_t seed;
    bool spec_vocab; /* spec.vocab_size = V (else None: the row width) */
    bool lite;       /* gen_cfg_lite / gen_row_lite */
    bool topp;       /* gen_cfg_topp / gen_row_topp */
    bool band;       /* gen_cfg_band / gen_row_band */
    bool bins;       /* gen_cfg_bins / gen_row_bins */
    bool fused;      /* gen_cfg_fused / gen_row_fused: rows at min-p's edges */
    bool edge;       /* gen_cfg_edge / gen_row_edge: round 11, rows at K2's bucket edges */
    bool stage;      /* gen_cfg_fused / gen_row_stage: round 12, rows for K2's block-wide stage */
    bool oflat;      /* gen_cfg_oflat / gen_row_oflat: round 14, the bench's rows, every row 16-byte aligned */
    int tpa;         /* with oflat (round 37C): request 0 top-p alone (gen_cfg_tpa), 1: throughout, 2: for step 0 only */
    /* results */
    long rows, mismatches, errors, explained;
    char msg[512];
} idcase;

static size_t dsize(ms_dtype d) { return d == MS_DTYPE_F32 ? 4 : 2; }

#define CASE_FAIL(...)                                                     \
    do {                                                                   \
        if (!c->msg[0]) snprintf(c->msg, sizeof c->msg, __VA_ARGS__);      \
        c->errors++;                                                       \
        goto done;                                                         \
    } while (0)

static void run_case(idcase *c) {
    ms_trng g = {c->seed};
    const int32_t V = c->V, B = c->B;
    const int32_t width = c->spec_vocab && V > 1 ? V + 3 : V; /* padded head columns are never drawn */
    int64_t stride = width + (ms_trng_below(&g, 2) ? 5 : 0);
    if (c->oflat) stride = (width + 7) / 8 * 8; /* every row aligned: all on the one-read path where it runs */
    const int32_t n_req = B > 1 ? (B * 4 + 4) / 5 : 1;
    int32_t stop_ids[3] = {0, V > 2 ? V / 2 : 0, V - 1};
    ms_spec spec = ms_spec_default();
    spec.resource_key = "test";
    if (c->spec_vocab) {
        spec.vocab_size = V;
        spec.enable_min_p = true;
        spec.max_repetition_window = 16;
        spec.min_tokens_stop_ids = stop_ids;
        spec.n_min_tokens_stop_ids = 3;
        spec.enable_top_p_first = true;
    } else {
        spec.enable_repetition_penalty = false;
        spec.enable_min_p = true;
        spec.enable_top_p_first = true;
    }
    ms_resource_params p = ms_resource_params_default();
    p.capacity = n_req + 2;
    p.max_rows = B;
    p.max_vocab = width;
    p.n_threads = 1;
    ms_resource *ref = NULL, *gpu = NULL;
    float *xf = NULL;
    void *host = NULL, *dev = NULL;
    int32_t *tok_c = NULL, *st_c = NULL, *tok_g = NULL, *st_g = NULL, *d_tok = NULL, *d_st = NULL;
    int64_t *rids = NULL, *req = NULL, *kept = NULL;
    int32_t *ids_c = NULL, *ids_g = NULL;
    double *pr_c = NULL, *pr_g = NULL;
    p.backend = MS_BACKEND_CPU_REF;
    if (ms_resource_create(&ref, &spec, &p) != MS_OK) CASE_FAIL("create ref: %s", ms_last_create_error());
    p.backend = MS_BACKEND_CUDA;
    if (ms_resource_create(&gpu, &spec, &p) != MS_OK) CASE_FAIL("create cuda: %s", ms_last_create_error());
    xf = malloc((size_t)width * sizeof(float));
    host = malloc((size_t)B * (size_t)stride * dsize(c->dtype));
    tok_c = malloc((size_t)B * 4); st_c = malloc((size_t)B * 4); tok_g = malloc((size_t)B * 4); st_g = malloc((size_t)B * 4);
    rids = malloc((size_t)B * 8); req = malloc((size_t)n_req * 8); kept = malloc((size_t)n_req * 8);
    ids_c = malloc((size_t)V * 4); ids_g = malloc((size_t)V * 4); pr_c = malloc((size_t)V * 8); pr_g = malloc((size_t)V * 8);
    if (!xf || !host || !tok_c || !st_c || !tok_g || !st_g || !rids || !req || !kept || !ids_c || !ids_g || !pr_c || !pr_g)
        CASE_FAIL("host malloc");
    if (cudaMalloc(&dev, (size_t)B * (size_t)stride * dsize(c->dtype)) != cudaSuccess ||
        cudaMalloc((void **)&d_tok, (size_t)B * 4) != cudaSuccess || cudaMalloc((void **)&d_st, (size_t)B * 4) != cudaSuccess)
        CASE_FAIL("cudaMalloc");
    int64_t next_rid = 1000;
    static _Thread_local ms_req_config fcfg[256]; /* the requests' settings (gen_row_fused) */
    for (int32_t i = 0; i < n_req; i++) {
        ms_req_config cfg = c->lite ? gen_cfg_lite(&g) : c->bins ? gen_cfg_bins(&g) : c->topp ? gen_cfg_topp(&g) : c->band ? gen_cfg_band(&g)
                          : c->fused || c->stage ? gen_cfg_fused(&g) : c->edge ? gen_cfg_edge(&g) : c->oflat ? gen_cfg_oflat(&g) : gen_cfg(&g, V, c->spec_vocab ? 16 : 0, c->spec_vocab);
        if (!c->spec_vocab) cfg.repetition_penalty = 1.0f, cfg.repetition_window = 0;
        if (c->tpa && i == 0) cfg = gen_cfg_tpa(&g);
        if (i < 256) fcfg[i] = cfg;
        req[i] = next_rid++;
        int a = ms_ingest(ref, req[i], &cfg), b = ms_ingest(gpu, req[i], &cfg);
        if (a != MS_OK || b != MS_OK) CASE_FAIL("ingest %d/%d: %s | %s", a, b, ms_resource_last_error(ref), ms_resource_last_error(gpu));
    }
    for (int32_t s = 0; s < c->steps; s++) {
        ms_step step = ms_step_default();
        step.apply_penalty = ms_trng_below(&g, 8) != 0;
        step.apply_filters = ms_trng_below(&g, 10) != 0;
        if (c->oflat) step.apply_filters = true; /* the bench's steps (one step in the quick set) */
        /* prefill for a few requests */
        if (c->spec_vocab) {
            int32_t pt[40];
            ms_prefill pf[2];
            for (int k = 0; k < 2; k++) {
                int32_t n = 1 + (int32_t)ms_trng_below(&g, 40);
                pf[k].rid = req[ms_trng_below(&g, (uint32_t)n_req)];
                pf[k].tokens = pt;
                pf[k].n_tokens = n;
            }
            for (int k = 0; k < 40; k++) pt[k] = (int32_t)ms_trng_below(&g, (uint32_t)V);
            step.prefill = pf;
            step.n_prefill = pf[0].rid == pf[1].rid ? 1 : 2;
            int a = ms_plan(ref, &step), b = ms_plan(gpu, &step);
            if (a != MS_OK || b != MS_OK) CASE_FAIL("plan %d/%d", a, b);
            step.prefill = NULL;
            step.n_prefill = 0;
        }
        for (int32_t r = 0; r < B; r++) {
            rids[r] = r < n_req ? req[r] : req[ms_trng_below(&g, (uint32_t)n_req)];
            if (c->lite) gen_row_lite(&g, xf, width, V);
            else if (c->bins) gen_row_bins(&g, xf, width, V);
            else if (c->topp) gen_row_topp(&g, xf, width, V);
            else if (c->band) gen_row_band(&g, xf, width, V);
            else if (c->oflat) gen_row_oflat(&g, xf, width);
            else if (c->fused || c->edge || c->stage) {
                int32_t i = 0; /* the row's request, for its T and min-p */
                while (i + 1 < n_req && i + 1 < 256 && req[i] != rids[r]) i++;
                if (c->fused) gen_row_fused(&g, xf, width, V, &fcfg[i]);
                else if (c->stage) gen_row_stage(&g, xf, width, V, &fcfg[i]);
                else gen_row_edge(&g, xf, width, V, &fcfg[i]);
            }
            else gen_row(&g, xf, width, V);
            char *dst = (char *)host + (size_t)r * (size_t)stride * dsize(c->dtype);
            for (int32_t t = 0; t < width; t++) {
                if (c->dtype == MS_DTYPE_F32) ((float *)dst)[t] = xf[t];
                else if (c->dtype == MS_DTYPE_BF16) ((uint16_t *)dst)[t] = f32_to_bf16(xf[t]);
                else ((uint16_t *)dst)[t] = f32_to_f16(xf[t]);
            }
        }
        if (cudaMemcpy(dev, host, (size_t)B * (size_t)stride * dsize(c->dtype), cudaMemcpyHostToDevice) != cudaSuccess)
            CASE_FAIL("upload");
        ms_batch bh = {B, rids, host, c->dtype, width, stride};
        ms_batch bd = {B, rids, dev, c->dtype, width, stride};
        int a = ms_sample(ref, &step, &bh, tok_c, st_c);
        int b = ms_sample(gpu, &step, &bd, d_tok, d_st);
        if (a != MS_OK || b != MS_OK) CASE_FAIL("sample %d/%d: %s | %s", a, b, ms_resource_last_error(ref), ms_resource_last_error(gpu));
        if (cudaMemcpy(tok_g, d_tok, (size_t)B * 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
            cudaMemcpy(st_g, d_st, (size_t)B * 4, cudaMemcpyDeviceToHost) != cudaSuccess)
            CASE_FAIL("download: %s", cudaGetErrorString(cudaGetLastError()));
        for (int32_t r = 0; r < B; r++) {
            c->rows++;
            if (tok_c[r] != tok_g[r] || st_c[r] != st_g[r]) {
                if (!c->msg[0])
                    snprintf(c->msg, sizeof c->msg, "V=%d B=%d dtype=%d step=%d row=%d rid=%lld: cpu %d/%d gpu %d/%d",
                             V, B, (int)c->dtype, s, r, (long long)rids[r], tok_c[r], st_c[r], tok_g[r], st_g[r]);
                c->mismatches++;
            }
        }
        /* explain one row on both (the CUDA side reads the device state back) */
        if (c->spec_vocab && c->dtype == MS_DTYPE_F32) {
            int32_t r = (int32_t)ms_trng_below(&g, (uint32_t)B);
            ms_explanation ec, eg;
            const void *row = (const char *)host + (size_t)r * (size_t)stride * 4;
            a = ms_explain(ref, &step, rids[r], row, c->dtype, width, V, ids_c, pr_c, NULL, &ec);
            b = ms_explain(gpu, &step, rids[r], row, c->dtype, width, V, ids_g, pr_g, NULL, &eg);
            if (a != MS_OK || b != MS_OK) CASE_FAIL("explain %d/%d: %s", a, b, ms_resource_last_error(gpu));
            c->explained++;
            if (ec.n_kept != eg.n_kept || ec.total_mass != eg.total_mass || ec.status != eg.status ||
                memcmp(ids_c, ids_g, (size_t)ec.n_kept * 4) != 0)
                CASE_FAIL("explain differs: V=%d step=%d row=%d n_kept %d/%d", V, s, r, ec.n_kept, eg.n_kept);
        }
        /* commit: all, some, or explicit tokens */
        uint32_t how = ms_trng_below(&g, 4);
        if (how == 3) {
            int64_t rid = req[ms_trng_below(&g, (uint32_t)n_req)];
            int32_t acc[3] = {(int32_t)ms_trng_below(&g, (uint32_t)V), (int32_t)ms_trng_below(&g, (uint32_t)V), 0};
            a = ms_accept(ref, rid, acc, 3);
            b = ms_accept(gpu, rid, acc, 3);
            if (a != MS_OK || b != MS_OK) CASE_FAIL("accept %d/%d", a, b);
        }
        ms_step cs = ms_step_default();
        int32_t nk = 0;
        if (how == 1 || how == 2) {
            for (int32_t i = 0; i < n_req; i++)
                if (ms_trng_below(&g, 2)) kept[nk++] = req[i];
            cs.kept_rids = kept;
            cs.n_kept_rids = nk;
        }
        a = ms_commit(ref, &cs);
        b = ms_commit(gpu, &cs);
        if (a < 0 || b < 0) CASE_FAIL("commit %d/%d", a, b);
        /* round 37C: the top-p alone request leaves after step 0 and a lite one takes its slot */
        if (c->tpa == 2 && s == 0) {
            ms_remove(ref, req[0]);
            ms_remove(gpu, req[0]);
            ms_req_config cfg = gen_cfg_oflat(&g);
            req[0] = next_rid++;
            a = ms_ingest(ref, req[0], &cfg);
            b = ms_ingest(gpu, req[0], &cfg);
            if (a != MS_OK || b != MS_OK) CASE_FAIL("re-ingest %d/%d", a, b);
        }
        /* now and then a request leaves and a new one takes its slot */
        if (ms_trng_below(&g, 3) == 0) {
            int32_t i = (int32_t)ms_trng_below(&g, (uint32_t)n_req);
            ms_remove(ref, req[i]);
            ms_remove(gpu, req[i]);
            ms_req_config cfg = c->lite ? gen_cfg_lite(&g) : c->bins ? gen_cfg_bins(&g) : c->topp ? gen_cfg_topp(&g) : c->band ? gen_cfg_band(&g)
                              : c->fused || c->stage ? gen_cfg_fused(&g) : c->edge ? gen_cfg_edge(&g) : c->oflat ? gen_cfg_oflat(&g) : gen_cfg(&g, V, c->spec_vocab ? 16 : 0, c->spec_vocab);
            if (!c->spec_vocab) cfg.repetition_penalty = 1.0f, cfg.repetition_window = 0;
            if (c->tpa == 1 && i == 0) cfg = gen_cfg_tpa(&g); /* round 37C: one top-p alone request throughout */
            if (i < 256) fcfg[i] = cfg;
            req[i] = next_rid++;
            a = ms_ingest(ref, req[i], &cfg);
            b = ms_ingest(gpu, req[i], &cfg);
            if (a != MS_OK || b != MS_OK) CASE_FAIL("re-ingest %d/%d", a, b);
        }
    }
done:
    ms_resource_free(ref);
    ms_resource_free(gpu);
    cudaFree(dev);
    cudaFree(d_tok);
    cudaFree(d_st);
    free(xf); free(host); free(tok_c); free(st_c); free(tok_g); free(st_g); free(rids); free(req); free(kept);
    free(ids_c); free(ids_g); free(pr_c); free(pr_g);
}

typedef struct pool {
    idcase *cases;
    int n, next;
    pthread_mutex_t mu;
} pool;

static void *worker(void *arg) {
    pool *p = (pool *)arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n) return NULL;
        run_case(&p->cases[i]);
    }
}

/* Appends a case: V, B, dtype, steps and seed set, the SPEC's vocabulary on, every other field zero; returns
 * it (the caller sets the path's flag) and counts it in *n. */
static idcase *case_add(idcase *cases, int *n, int32_t V, int32_t B, ms_dtype d, int steps, uint64_t seed) {
    idcase *c = &cases[(*n)++];
    memset(c, 0, sizeof *c);
    c->V = V;
    c->B = B;
    c->dtype = d;
    c->steps = steps;
    c->spec_vocab = true;
    c->seed = seed;
    return c;
}

/* The reference is single-threaded and sorts; run the cases on all cores. */
static void run_cases(idcase *cases, int n) {
    pool p = {cases, n, 0, PTHREAD_MUTEX_INITIALIZER};
    /* MS_CUDA_TEST_THREADS=1 for compute-sanitizer: racecheck lost track of launches from 16 threads */
    const char *env = getenv("MS_CUDA_TEST_THREADS");
    int nt = env && atoi(env) >= 1 && atoi(env) <= 16 ? atoi(env) : 16;
    pthread_t th[16];
    for (int i = 0; i < nt; i++) pthread_create(&th[i], NULL, worker, &p);
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
    long rows = 0, mism = 0, expl = 0;
    for (int i = 0; i < n; i++) {
        rows += cases[i].rows;
        mism += cases[i].mismatches;
        expl += cases[i].explained;
        CHECK_MSG(cases[i].errors == 0 && cases[i].mismatches == 0, "case V=%d B=%d dtype=%d: %ld mismatches: %s",
                  cases[i].V, cases[i].B, (int)cases[i].dtype, cases[i].mismatches, cases[i].msg);
    }
    printf("  %ld rows compared, %ld differ; %ld explanations compared\n", rows, mism, expl);
    CHECK(rows > 0);
}

/* Every dtype x V in {1, 111, 32000, 151936, 262144} x B in {1, 99, 256}, two steps each. */
TEST(cuda_identity_matrix) {
    need_device("cuda_identity_matrix");
    static const int32_t Vs_full[] = {1, 111, 32000, 151936, 262144}, Vs_quick[] = {1, 111, 32000};
    static const int32_t Bs_full[] = {1, 99, 256}, Bs_quick[] = {1, 19};
    const int32_t *Vs = quick() ? Vs_quick : Vs_full, *Bs = quick() ? Bs_quick : Bs_full;
    static const ms_dtype Ds[] = {MS_DTYPE_F32, MS_DTYPE_BF16, MS_DTYPE_F16};
    idcase cases[45];
    int n = 0;
    const int nv = quick() ? 3 : 5, nb = quick() ? 2 : 3;
    for (int d = 0; d < 3; d++)
        for (int v = 0; v < nv; v++)
            for (int b = 0; b < nb; b++) {
                (void)case_add(cases, &n, Vs[v], Bs[b], Ds[d], quick() ? 1 : 2, 0x5eed0000u + (uint64_t)n);
            }
    run_cases(cases, n);
}

/* The per-chunk top-k path: min-p and top-k on in every request, rows that overflow a chunk's stage or
 * the candidate list, the max in one chunk, ties across chunk boundaries; B=1 spreads a row over the
 * most chunks. Round 16B: the cases run under the default smallest chunk, then (new seeds) under the other
 * of 1024 / 4096 tokens (ms__cuda_minchunk: B=1 at V=151936 then has 38 or 149 blocks a row). */
TEST(cuda_identity_lite) {
    need_device("cuda_identity_lite");
    static const int32_t Vs[] = {4099, 32000, 151936}, Bs[] = {1, 7, 64};
    const int32_t mc0 = ms__cuda_minchunk(0); /* 0: unchanged, the value in force */
    for (int part = 0; part < 2; part++) {
        if (part == 1) ms__cuda_minchunk(mc0 == 1024 ? 4096 : 1024);
        idcase cases[18];
        int n = 0;
        for (int d = 0; d < 2; d++)
            for (int v = 0; v < 3; v++)
                for (int b = 0; b < 3; b++) {
                    if (quick() && (v == 2 || b == 2)) continue;
                    if (part == 1 && b == 2) continue; /* B=64: one block per multiprocessor's share either way */
                    idcase *cs = case_add(cases, &n, Vs[v], Bs[b], d ? MS_DTYPE_BF16 : MS_DTYPE_F32, 3,
                        0x11e0000u + 1000u * (uint64_t)part + (uint64_t)n);
                    cs->lite = true;
                }
        run_cases(cases, n);
        ms__cuda_minchunk(-1);
    }
}

/* K4's whole-row path (top-p alone on rows whose candidates overflow): per-warp histograms, the
 * descent from K2's buckets, the draw by steps of 32 tokens; with the HF order, min_keep, top-k after
 * top-p, the stop-id floor, penalties, fp32 and bf16, V 151936 / 262144 (and 4099), B 1 / 37. */
TEST(cuda_identity_top_p_alone) {
    need_device("cuda_identity_top_p_alone");
    static const int32_t Vs[] = {4099, 151936, 262144}, Bs[] = {1, 37};
    idcase cases[12];
    int n = 0;
    for (int d = 0; d < 2; d++)
        for (int v = 0; v < 3; v++)
            for (int b = 0; b < 2; b++) {
                if (quick() && (v > 0 || b > 0)) continue;
                idcase *cs = case_add(cases, &n, Vs[v], Bs[b], d ? MS_DTYPE_BF16 : MS_DTYPE_F32, 3,
                    0x70b0000u + (uint64_t)n);
                cs->topp = true;
            }
    run_cases(cases, n);
}

/* The BAND path (round 4): top-p alone (and with min_keep, the HF order's top-k, a top-k alone, min-p
 * 1e-4, the floor) on flat rows, where K2's threshold bucket is gathered and K4 draws chunk by chunk (since
 * round 23C, MS_CU_SEGW, by 512-token segments of the chunks: every BAND row here takes them, dozens a chunk at B 99 / 256);
 * peaked rows (the list path) and tied rows (the bucket overflows: FULL) beside them. fp32 and bf16,
 * V 151936 / 262144, B 1 / 99 / 256 (1 to 5+ chunks a row: 149..5 blocks per row). The tokens must
 * equal the reference's, and K4's counters must show both BAND and FULL rows, so that the test fails
 * if the path is never taken. Quick (compute-sanitizer): V 32000, B 1 and 7. */
TEST(cuda_identity_band) {
    need_device("cuda_identity_band");
    static const int32_t Vs[] = {151936, 262144}, Bs[] = {1, 99, 256};
    uint64_t before[8], after[8];
    REQUIRE(ms__cuda_mode_rows(before) == MS_OK);
    idcase cases[12];
    int n = 0;
    for (int d = 0; d < 2; d++)
        for (int v = 0; v < 2; v++)
            for (int b = 0; b < 3; b++) {
                if (quick() && (d > 0 || v > 0 || b > 1)) continue;
                if (d == 1 && b == 2) continue; /* bf16 at B 1 / 99: the largest cases dominate the time */
                idcase *cs = case_add(cases, &n, quick() ? 32000 : Vs[v], quick() ? (b ? 7 : 1) : Bs[b],
                    d ? MS_DTYPE_BF16 : MS_DTYPE_F32, quick() ? 1 : Bs[b] == 256 ? 1 : 3, 0xba4d000u + (uint64_t)n);
                cs->band = true;
            }
    run_cases(cases, n);
    REQUIRE(ms__cuda_mode_rows(after) == MS_OK);
    const uint64_t band = after[4] - before[4], full = after[3] - before[3];
    printf("  K4 rows by path: BAND %llu, FULL %llu\n", (unsigned long long)band, (unsigned long long)full);
    CHECK_MSG(band > 0, "no row took the BAND path");
    if (!quick()) CHECK_MSG(full > 0, "no row fell back to FULL (tied rows overflow the bucket)");
}

/* Round 15B: K3's gather in K2 (ms_cu_k2_k3), whose blocks may give it up (after their spin's time bound), and K4
 * then takes the row's whole-row path. The test hook (ms__cuda_k3) forces it. Part 1, hook 1 (a row's odd blocks
 * but its last give up without marking the row, so the others gather: a partial list, partial chunk masses): BAND
 * and top-p rows (gen_cfg_band, gen_cfg_topp: BAND, FAST and FULL rows) at fp32 V 151936 B 1 / 37 and topp B 7,
 * bf16 V 32000 B 7, two steps. Part 2, hook 2 (every block gives up): fp32 V 151936 B 7, topp V 32000 B 1. Part 3,
 * the hook off: BAND rows at V 151936 B 1 / 99, one step, where no block may give up. Tokens equal to the
 * reference's; the counters must show rows served whole after a give-up and none by BAND in parts 1-2, blocks
 * that gathered in part 1 but none in part 2, and in part 3 BAND rows and no give-up. A build with K3 as its own
 * kernel (the default since round 15B; -DMS_CU_K3_IN_K2 builds the gather in K2) has no hook: the test says so and
 * passes. Quick: V 32000, B 1 / 8, one step.
 * Round 25A (-DMS_CU_K3W_K2): K3's blocks in K2's grid, only in the steps that launch K4w (B=1 at V 151936, B <= 8 at V
 * 32000 on the H200; -DMS_CU_K3W_K2=2: every step without the one-read path or the ring), use the same hook with the
 * same meaning (1: the odd blocks give up unmarked; 2: every block). So every case is such a step: part 1 BAND and
 * top-p rows at fp32 V 151936 B 1, top-p fp32 V 32000 B 7, bf16 V 32000 B 7 (two steps); part 2 BAND rows at fp32 V
 * 151936 B 1 and V 32000 B 7; part 3 BAND rows at V 151936 B 1 and V 32000 B 8, one step. (Before round 25A: B 37,
 * 7 and 99 at V 151936, which a -DMS_CU_K3W_K2 build serves with K3's kernel.)
 * Round 26D (-DMS_CU_K3W_K2=3: ms__cuda_k3 returns 2): the one-read steps' K2or has the blocks too; parts 4-6 repeat
 * parts 1-3 in one-read steps (the path forced by ms__cuda_oneread(0); B=64 at fp32 V 151936 takes it by the host's
 * rule anyway): part 4 (hook 1) BAND and top-p rows at fp32 V 151936 B 64, bf16 V 32000 B 8 top-p, two steps; part 5
 * (hook 2) BAND rows at fp32 V 151936 B 64, top-p V 32000 B 8; part 6 (no hook) BAND rows at V 151936 B 64 and V
 * 32000 B 8, one step. Quick: V 32000 B 8. */
static void k3_part(int part, uint64_t k3[2], uint64_t md[8]) {
    uint64_t kb[2], ka[2], mb[8], ma[8];
    REQUIRE(ms__cuda_mode_rows(mb) == MS_OK);
    idcase cases[8];
    int n = 0;
    const bool orp = part >= 4; /* round 26D: one-read steps */
    if (orp) {
        REQUIRE(ms__cuda_oneread(0, NULL) >= 0);
        part -= 3;
    }
    REQUIRE(ms__cuda_k3(part == 3 ? 0 : part, -2, kb) >= 1);
    for (int k = 0; k < 4; k++) {
        int32_t V = 151936, B = 1;
        ms_dtype d = MS_DTYPE_F32;
        bool topp = false;
        if (orp) {
            if (k > (part == 1 ? 2 : 1)) break;
            V = k == 2 || (k == 1 && part != 1) ? 32000 : 151936;
            B = V == 32000 ? 8 : 64;
            if (part == 1 && k == 1) topp = true;
            if (part == 1 && k == 2) topp = true, d = MS_DTYPE_BF16;
            if (part == 2 && k == 1) topp = true;
            if (quick()) V = 32000, B = 8;
        } else if (part == 1) {
            if (k == 1) topp = true;
            else if (k == 2) V = 32000, B = 7, topp = true;
            else if (k == 3) V = 32000, B = 7, d = MS_DTYPE_BF16;
        } else if (part == 2) {
            if (k > 1) break;
            if (k == 1) V = 32000, B = 7;
        } else {
            if (k > 1) break;
            if (k == 1) V = 32000, B = 8;
        }
        if (quick() && !orp) V = 32000, B = B > 1 ? 8 : 1; /* round 25A: steps that launch K4w (B <= 8 at V 32000) */
        idcase *cs = case_add(cases, &n, V, B, d, quick() || part == 3 ? 1 : 2,
                              0x3b15000u + 100u * (uint64_t)(part + (orp ? 3 : 0)) + (uint64_t)n);
        if (topp) cs->topp = true;
        else cs->band = true;
    }
    run_cases(cases, n);
    if (orp) REQUIRE(ms__cuda_oneread(-1, NULL) >= 0); /* the host's rules again */
    REQUIRE(ms__cuda_k3(0, -2, ka) >= 1);
    REQUIRE(ms__cuda_mode_rows(ma) == MS_OK);
    for (int i = 0; i < 2; i++) k3[i] = ka[i] - kb[i];
    for (int i = 0; i < 8; i++) md[i] = ma[i] - mb[i];
    printf("  part %d: K2 blocks that gathered %llu; rows served whole after a give-up %llu; K4 rows BAND %llu, FULL "
           "%llu\n", part + (orp ? 3 : 0), (unsigned long long)k3[0], (unsigned long long)k3[1], (unsigned long long)md[4],
           (unsigned long long)md[3]);
}
TEST(cuda_identity_k3_giveup) {
    need_device("cuda_identity_k3_giveup");
    uint64_t k3[2], md[8];
    if (ms__cuda_k3(-1, -2, NULL) == 0) {
        printf("  K3 is its own kernel in this build (the default; -DMS_CU_K3_IN_K2 puts its gather in K2): nothing to give up\n");
        return;
    }
    /* parts 1-3, and 4-6 (round 26D: the same checks in one-read steps, only when K2or gathers: -DMS_CU_K3W_K2=3) */
    const int parts = ms__cuda_k3(-1, -2, NULL) >= 2 ? 6 : 3;
    for (int p = 1; p <= parts; p++) {
        const int hook = (p - 1) % 3 + 1; /* 1: the odd blocks give up unmarked; 2: every block; 3: no hook */
        const char *where = p > 3 ? " (one-read)" : "";
        k3_part(p, k3, md);
        if (hook < 3) {
            CHECK_MSG(k3[1] > 0, "part %d%s: no row served whole after a give-up", p, where);
            CHECK_MSG(md[4] == 0, "part %d%s: a row served by BAND although its blocks gave up", p, where);
        } else {
            CHECK_MSG(k3[1] == 0, "part %d%s: a block gave up without the hook (its spin's time bound is too short)", p,
                      where);
            CHECK_MSG(md[4] > 0, "part %d%s: no row took the BAND path", p, where);
        }
        if (hook == 2) CHECK_MSG(k3[0] == 0, "part %d%s: a block gathered although every block gave up", p, where);
        else CHECK_MSG(k3[0] > 0, "part %d%s: no block gathered (in K2's grid%s)", p, where,
                       hook == 1 ? "; the partial lists were not exercised" : "");
    }
}

/* Round 11: the BAND path's new parts (ms__cuda_r11: K3's masses above the bucket from K2's per-block masses,
 * K4's chunk walk with 16-byte loads, each on for large chunks only) on rows at K2's bucket edges
 * (gen_cfg_edge / gen_row_edge). Part 1, the default thresholds: fp32 x V {111, 32000, 151936, 262144} x B {1,
 * 99}, B=256 at V 151936 / 262144 (one step), bf16 and fp16 at V 151936 B 1 / 99, two steps. Part 2, both on for
 * every chunk (ms__cuda_r11_minchunk(0, 0)): fp32 x V {111, 32000, 151936} x B {1, 7}, bf16 V 32000 B 7. Odd
 * strides now and then (the walk's scalar loads). Tokens equal to the reference's; the counters must show BAND
 * and FULL rows (part 1), and, in each part, BAND chunks K3 served from the per-block masses and BAND draws
 * walked with 16-byte loads when those are built in (none otherwise), else it fails. Quick: part 2 at V 32000,
 * B 1 / 64, one step. */
static void band_edges_part(int part, uint64_t dl[8]) {
    static const int32_t Vs[] = {111, 32000, 151936, 262144};
    uint64_t before[8], after[8];
    if (part == 1 && quick()) return;
    REQUIRE(ms__cuda_mode_rows(before) == MS_OK);
    idcase cases[16];
    int n = 0;
    for (int k = 0; k < 14; k++) {
        int32_t V, B;
        ms_dtype d = MS_DTYPE_F32;
        if (part == 1) {
            if (k < 8) V = Vs[k / 2], B = k % 2 ? 99 : 1;
            else if (k < 10) V = k == 8 ? 151936 : 262144, B = 256;
            else V = 151936, B = k % 2 ? 99 : 1, d = k < 12 ? MS_DTYPE_BF16 : MS_DTYPE_F16;
        } else {
            if (k > 6) break;
            if (k < 6) V = Vs[k / 2], B = k % 2 ? 7 : 1;
            else V = 32000, B = 7, d = MS_DTYPE_BF16;
            if (quick() && (V != 32000 || k == 6)) continue;
        }
        if (quick() && B == 7) B = 64; /* enough rows that some take the BAND path under the sanitizers */
        idcase *cs = case_add(cases, &n, V, B, d, quick() || B == 256 ? 1 : 2,
            0x11ed000u + 100u * (uint64_t)part + (uint64_t)n);
        cs->edge = true;
    }
    if (part == 2) ms__cuda_r11_minchunk(0, 0);
    run_cases(cases, n);
    ms__cuda_r11_minchunk(-1, -1);
    REQUIRE(ms__cuda_mode_rows(after) == MS_OK);
    for (int i = 0; i < 8; i++) dl[i] = after[i] - before[i];
    const int r11 = ms__cuda_r11();
    printf("  part %d: K4 rows by path: BAND %llu, FULL %llu; K3 chunks from K2's per-block masses %llu (%s); BAND "
           "draws with 16-byte loads %llu (%s)\n", part, (unsigned long long)dl[4], (unsigned long long)dl[3],
           (unsigned long long)dl[1], (r11 & 1) ? "built in" : "not built", (unsigned long long)dl[2],
           (r11 & 2) ? "built in" : "not built");
    /* Under compute-sanitizer (quick) a row's K2 blocks can outwait even need_device's longer bound on the row's mode
     * and give the row up to FULL (exact: round 15B), so how many rows take BAND there is a matter of timing: the
     * twenty-fourth session's final call saw racecheck, run beside the tests and memcheck, send every BAND row of a
     * run to FULL (0 hazards, 0 rows differ). There the paths are reported, not required; the full runs require them. */
    const bool timed = quick();
    if (timed && (dl[4] == 0 || ((r11 & 2) && dl[2] == 0)))
        printf("  (quick: no BAND row or no 16-byte draw in this run; under a sanitizer the paths follow timing)\n");
    CHECK_MSG(dl[4] > 0 || timed, "no row took the BAND path");
    if (part == 1) CHECK_MSG(dl[3] > 0, "no row fell back to FULL");
    if (r11 & 1) CHECK_MSG(dl[1] > 0 || (timed && dl[4] == 0), "no BAND chunk served from K2's per-block masses");
    else CHECK_MSG(dl[1] == 0, "per-block masses counted in a build without them");
    if (r11 & 2) CHECK_MSG(dl[2] > 0 || timed, "no BAND draw with 16-byte loads");
    else CHECK_MSG(dl[2] == 0, "16-byte walks counted in a build without them");
}
TEST(cuda_identity_band_edges) {
    need_device("cuda_identity_band_edges");
    uint64_t dl[8];
    band_edges_part(1, dl);
    band_edges_part(2, dl);
}

/* The lite rows' candidate histogram (round 5): fp32 x V {111, 32000, 151936, 262144} x B {1, 99},
 * B=256 at V 32000 / 151936, bf16 at V 151936 B 1 / 99. K4's counters must show rows that took the cut
 * and rows where it left more than k' + 16 candidates (crowded bins: the trim after it), else it fails;
 * with K4's lean path (round 6, the default since round 7) also rows on it and rows of it that took the trim. */
TEST(cuda_identity_lite_bins) {
    need_device("cuda_identity_lite_bins");
    static const int32_t Vs[] = {111, 32000, 151936, 262144}, Bs[] = {1, 99};
    uint64_t before[8], after[8];
    /* round 13's one-read path (where built: -DMS_CU_ONEREAD) lists its rows without bins: off here, so that
     * this test's counters see the rows it was written for (cuda_identity_oneread tests that path) */
    REQUIRE(ms__cuda_oneread(INT32_MAX, NULL) >= 0);
    REQUIRE(ms__cuda_mode_rows(before) == MS_OK);
    uint64_t rc0[2], rc1[2];
    const int rc_built = ms__cuda_rowcut_rows(rc0);
    REQUIRE(rc_built >= 0);
    idcase cases[16];
    int n = 0;
    for (int k = 0; k < 12; k++) {
        int32_t V, B;
        ms_dtype d = MS_DTYPE_F32;
        if (k < 8) V = Vs[k / 2], B = Bs[k % 2];
        else if (k < 10) V = k == 8 ? 32000 : 151936, B = 256;
        else V = 151936, B = k == 10 ? 1 : 99, d = MS_DTYPE_BF16;
        if (quick() && (V > 32000 || B > 99)) continue; /* quick (compute-sanitizer): V 111 / 32000, B 1 / 7 */
        idcase *cs = case_add(cases, &n, V, quick() && B > 1 ? 7 : B, d, B == 256 || quick() ? 1 : 3,
            0xb1450000u + (uint64_t)n);
        cs->bins = true;
    }
    run_cases(cases, n);
    REQUIRE(ms__cuda_mode_rows(after) == MS_OK);
    const uint64_t cut = after[5] - before[5], crowded = after[6] - before[6];
    const uint64_t lean = after[7] - before[7], trimmed = after[0] - before[0];
    printf("  K4 lite rows: bin cut %llu, more than k'+16 left after it %llu; served by the lean path %llu, "
           "of which trimmed by the block %llu\n",
           (unsigned long long)cut, (unsigned long long)crowded, (unsigned long long)lean, (unsigned long long)trimmed);
    CHECK_MSG(cut > 0, "no lite row took the bin cut");
    CHECK_MSG(crowded > 0, "no lite row had crowded bins (the trim after the cut)");
    /* round 6 (ms_cu_k4_lite, the default since round 7): rows must take K4's lean path, and some of them
     * its trim */
    CHECK_MSG(lean > 0, "no lite row took K4's lean path");
    CHECK_MSG(trimmed > 0, "no lite row on K4's lean path took the block's trim");
    /* round 31A's row cut from K1's warp maxima (where built: -DMS_CU_K1_ROWCUT): in the steps whose
     * chunks hold at least 2048 tokens (here V=151936 / 262144 at B=99 and V=262144 at B=1), K2's lite blocks read
     * K1's bins, and on some rows the bins raise the cut */
    REQUIRE(ms__cuda_rowcut_rows(rc1) == rc_built);
    printf("  round 31A row cut: K2 lite blocks that read K1's bins %llu, raised their cut %llu\n",
           (unsigned long long)(rc1[0] - rc0[0]), (unsigned long long)(rc1[1] - rc0[1]));
    if (rc_built && !quick()) {
        CHECK_MSG(rc1[0] > rc0[0], "no K2 lite block read K1's bins (round 31A's row cut)");
        CHECK_MSG(rc1[1] > rc0[1], "no K2 lite block raised its cut from K1's bins (round 31A's row cut)");
    }
    REQUIRE(ms__cuda_oneread(-1, NULL) >= 0); /* the host's threshold again */
}

/* Rows at min-p's edges (gen_row_fused, mixed with rows of the other paths): fp32 x V {151936, 262144} x
 * B {32, 64, 99} and bf16 at V 151936 B 64, three steps; then small chunks' sizes, fp32 x V {4099, 32000,
 * 151936} x B {1, 7}, two steps. Tokens, statuses and one ms_explain a step equal to the reference, and
 * some rows must reach K4's lean path. Quick (compute-sanitizer): fp32, V 151936, B 32, one step; V 32000,
 * B 1. (Round 8-10 ran these rows through the fused path, -DMS_CU_FUSE12, removed in round 11.) */
TEST(cuda_identity_minp_edges) {
    need_device("cuda_identity_minp_edges");
    static const int32_t Vs[] = {151936, 262144}, Bs[] = {32, 64, 99};
    static const int32_t Vs2[] = {4099, 32000, 151936}, Bs2[] = {1, 7};
    uint64_t before[8], after[8];
    REQUIRE(ms__cuda_mode_rows(before) == MS_OK);
    idcase cases[14];
    int n = 0;
    for (int k = 0; k < 13; k++) {
        const bool small = k >= 7;
        const int32_t V = small ? Vs2[(k - 7) / 2] : k < 6 ? Vs[k / 3] : 151936;
        const int32_t B = small ? Bs2[(k - 7) % 2] : k < 6 ? Bs[k % 3] : 64;
        if (quick() && k != 0 && k != 9) continue;
        idcase *cs = case_add(cases, &n, V, B, k == 6 ? MS_DTYPE_BF16 : MS_DTYPE_F32, quick() ? 1 : small ? 2 : 3,
            (small ? 0xf05e1000u : 0xf05e0000u) + (uint64_t)n);
        cs->fused = true;
    }
    run_cases(cases, n);
    REQUIRE(ms__cuda_mode_rows(after) == MS_OK);
    const uint64_t lean = after[7] - before[7];
    printf("  min-p edge rows: served by K4's lean path %llu\n", (unsigned long long)lean);
    CHECK_MSG(lean > 0, "no min-p edge row took K4's lean path");
}

/* Round 12's K2 stage and bin cut (gen_row_stage, mixed with rows of the other paths: the HF order, greedy, a
 * window penalty, a top-k over 2048): fp32 x V {111, 32000, 151936, 262144} x B {1, 64}; bf16 and fp16 at V
 * 151936 B {1, 64}; fp16 V 262144 B 64; fp32 V 151936 B 256; two steps. Tokens, statuses and one ms_explain a
 * step equal to the reference; where the stage is built (ms__cuda_k2_rows, bit 0) blocks must have run it,
 * some must have overflowed it and some not; where the bin cut is (bit 1), chunks must have been cut by the
 * bins and some (crowded bins) by the radix select. Quick (compute-sanitizer): fp32 V 151936 B 64 (chunks of
 * 18992: the overflow) and V 32000 B 1, one step. */
TEST(cuda_identity_k2_stage) {
    need_device("cuda_identity_k2_stage");
    static const int32_t Vs[] = {111, 32000, 151936, 262144};
    uint64_t before[4], after[4];
    /* round 13's one-read path (where built) would take these lite rows from round 12's stage: off here
     * (cuda_identity_oneread tests it on the same rows) */
    REQUIRE(ms__cuda_oneread(INT32_MAX, NULL) >= 0);
    const int built = ms__cuda_k2_rows(before);
    REQUIRE(built >= 0);
    idcase cases[16];
    int n = 0;
    for (int k = 0; k < 14; k++) {
        int32_t V, B;
        ms_dtype d = MS_DTYPE_F32;
        if (k < 8) V = Vs[k / 2], B = k % 2 ? 64 : 1;
        else if (k < 12) V = 151936, B = k % 2 ? 64 : 1, d = k < 10 ? MS_DTYPE_BF16 : MS_DTYPE_F16;
        else if (k == 12) V = 262144, B = 64, d = MS_DTYPE_F16;
        else V = 151936, B = 256;
        if (quick() && !(V == 151936 && B == 64 && d == MS_DTYPE_F32) && !(V == 32000 && B == 1)) continue;
        idcase *cs = case_add(cases, &n, V, B, d, quick() ? 1 : 2, 0x57a60000u + (uint64_t)n);
        cs->stage = true;
    }
    run_cases(cases, n);
    REQUIRE(ms__cuda_k2_rows(after) >= 0);
    uint64_t dl[4];
    for (int i = 0; i < 4; i++) dl[i] = after[i] - before[i];
    printf("  K2 stage (%s): blocks that ran it %llu, overflowed (re-read) %llu; bin cut (%s): chunks cut by "
           "bins %llu, by the radix select (crowded) %llu\n",
           built & 1 ? "built" : "not built", (unsigned long long)dl[0], (unsigned long long)dl[1],
           built & 2 ? "built" : "not built", (unsigned long long)dl[2], (unsigned long long)dl[3]);
    if (built & 1) {
        CHECK_MSG(dl[0] > 0, "no K2 lite block ran the stage");
        CHECK_MSG(dl[1] > 0, "no K2 lite block overflowed the stage");
        CHECK_MSG(dl[1] < dl[0], "every K2 lite block overflowed the stage");
    } else {
        CHECK_MSG(dl[0] == 0 && dl[1] == 0, "the stage's counters moved in a build without it");
    }
    if (built & 2) {
        CHECK_MSG(dl[2] > 0, "no K2 lite chunk was cut by the bins");
        CHECK_MSG(dl[3] > 0, "no K2 lite chunk had crowded bins (the radix select)");
    } else {
        CHECK_MSG(dl[2] == 0 && dl[3] == 0, "the bin cut's counters moved in a build without it");
    }
    REQUIRE(ms__cuda_oneread(-1, NULL) >= 0); /* the host's threshold again */
}

/* Round 15A: K2's scans through the per-thread cp.async ring (ms_cu_ring; the host takes it only for grids past
 * one wave, B=128 and 256 at V=151936 on an H200), forced on in every step (ms__cuda_ring(1)): round 12's stage
 * rows (gen_row_stage: flat, all-equal, tied, NaN groups, +-inf; the presence penalty, windows) through the lite
 * scan in fp32, bf16 and fp16, with unaligned rows among them (the tail code); the same and the min-p edges
 * (gen_row_fused) with the one-read path forced on (ms__cuda_oneread(0)); the bench's rows at B=64. Tokens,
 * statuses and explanations equal to the reference; where the ring is built, blocks of both scans must have run
 * through it (its counters), and none where it is not. Quick (compute-sanitizer): fp32 V 151936 B 64 lite, fp32
 * V 32000 B 1 one-read, bf16 V 151936 B 16 one-read, one step each. */
TEST(cuda_identity_ring) {
    need_device("cuda_identity_ring");
    uint64_t before[2], after[2];
    const int built = ms__cuda_ring(-2, before);
    REQUIRE(built >= 0);
    REQUIRE(ms__cuda_ring(1, NULL) == built);
    for (int part = 0; part < 2; part++) {
        idcase cases[8];
        int n = 0;
        for (int k = 0; k < 7; k++) {
            static const int32_t Vs[] = {151936, 151936, 32000, 151936, 262144, 151936, 151936};
            static const int32_t Bs[] = {64, 1, 1, 16, 7, 64, 99};
            static const ms_dtype Ds[] = {MS_DTYPE_F32, MS_DTYPE_F32, MS_DTYPE_F32, MS_DTYPE_BF16, MS_DTYPE_F16,
                                          MS_DTYPE_F32, MS_DTYPE_BF16};
            if (quick() && !(part == 0 && k == 0) && !(part == 1 && (k == 2 || k == 3))) continue;
            idcase *cs = case_add(cases, &n, Vs[k], Bs[k], Ds[k], quick() ? 1 : 2, 0x15a10000u + (uint64_t)(part * 16 + k));
            if (k == 5) cs->oflat = true;
            else if (part == 1 && k % 2) cs->fused = true;
            else cs->stage = true;
        }
        /* part zero: the one-read path off (lite rows take round 12's scan); part one: on in every step */
        REQUIRE(ms__cuda_oneread(part == 0 ? INT32_MAX : 0, NULL) >= 0);
        run_cases(cases, n);
    }
    REQUIRE(ms__cuda_oneread(-1, NULL) >= 0); /* the host's rules again, for the tests after this one */
    REQUIRE(ms__cuda_ring(-1, after) == built);
    const uint64_t dl = after[0] - before[0], d1 = after[1] - before[1];
    printf("  ring (%s): K2 blocks through it, lite %llu, one-read %llu\n", built ? "built" : "not built",
           (unsigned long long)dl, (unsigned long long)d1);
    if (built) {
        CHECK_MSG(dl > 0, "no lite K2 block ran its scan through the ring");
        const int orb = ms__cuda_oneread(-2, NULL);
        CHECK_MSG(orb <= 0 || d1 > 0, "no one-read K2 block ran its scan through the ring");
    } else {
        CHECK_MSG(dl == 0 && d1 == 0, "the ring's counters moved in a build without it");
    }
}

/* Twentieth session: round 28B's one-wave rule (MS_CU_OR_ONEWAVE) gives the one-read steps chunks over ms_cu_grid's 32768
 * tokens (37984 at V=151936 B=106..132), and the segment walk of K3 and K4 keeps up to MS_CU_SEGW_CHUNK (65536). Here the
 * one-read path is on in every step (ms__cuda_oneread(0)) and its steps' chunks a row are forced (ms__cuda_org) to 4, 3
 * and 2 at V=151936, 151936 and 131072 (37984, 50648 and 65536 tokens): lite rows of the full setting, the bench's
 * aligned rows (the one-read K2 itself), and beside them rows of the general paths in the same steps with the same large
 * chunks: top-p alone, BAND rows (flat: every chunk's segments walked), round 12's stage rows, min-p's edges; fp32 and
 * bf16. Tokens, statuses and explanations equal the reference's, and one-read blocks must have run. Quick: one part. */
TEST(cuda_identity_big_chunks) {
    need_device("cuda_identity_big_chunks");
    uint64_t before[5], after[5];
    const int built = ms__cuda_oneread(-2, before);
    REQUIRE(built >= 0);
    static const int32_t Vs[] = {151936, 151936, 131072}, Gs[] = {4, 3, 2};
    for (int part = 0; part < 3; part++) {
        if (quick() && part != 2) continue;
        REQUIRE(ms__cuda_oneread(0, NULL) == built);
        REQUIRE(ms__cuda_org(Gs[part], -2) == (built ? Gs[part] : 0));
        idcase cases[8];
        int n = 0;
        for (int k = 0; k < 6; k++) {
            if (quick() && k > 2) continue;
            static const int32_t Bs[] = {4, 3, 3, 3, 3, 2};
            idcase *cs = case_add(cases, &n, Vs[part], Bs[k], k == 3 ? MS_DTYPE_BF16 : MS_DTYPE_F32, 2,
                                  0x28b00000u + (uint64_t)(part * 16 + k));
            if (k == 0) cs->oflat = true;
            else if (k == 1) cs->lite = true;
            else if (k == 2) cs->band = true;
            else if (k == 3) cs->topp = true;
            else if (k == 4) cs->stage = true;
            else cs->fused = true;
        }
        run_cases(cases, n);
    }
    REQUIRE(ms__cuda_org(-1, -2) >= 0);               /* the launch's grid again */
    REQUIRE(ms__cuda_oneread(-1, NULL) == built); /* the host's rules again */
    REQUIRE(ms__cuda_oneread(-2, after) == built);
    printf("  one-read K2 blocks with forced chunks: %llu\n", (unsigned long long)(after[0] - before[0]));
    if (built) CHECK_MSG(after[0] > before[0], "no K2 block took the one-read path with the forced chunks");
}

/* Round 13's one-read path for lite rows (built with -DMS_CU_ONEREAD; off by default; written without a device:
 * never run yet). K1 skips those rows, each K2 block lists its chunk's top k' of the superset C (min-p from the
 * chunk's own max) and K4 applies min-p's exact test with the true max. The rows of cuda_identity_k2_stage and
 * of the min-p edges (gen_cfg_fused: mostly lite rows of the default order, mixed with the HF order, greedy rows,
 * window penalties, top-k over 2048 or none, which must keep the old paths; presence penalties over the seen
 * set, whose maxima a second step penalises; gen_row_stage: flat, nearly flat and all-equal rows (the pass
 * stage overflows), ties on a coarse grid, NaN groups, -inf runs, +inf tokens; gen_row_fused: tokens at
 * min-p's boundary, the max in the last chunk (the other chunks' maxima far below it), a block at the
 * boundary) in every dtype (the path takes rows whose start is aligned to 4 values: with the harness's odd
 * strides about a quarter of them, all with the even ones), against the CPU reference token for token (and kept set for kept set where the
 * harness explains). Part one at round 13's threshold (chunks of at least 8192 tokens: V=151936 from B=32),
 * part two with the path forced on every step (B=1 and 16: chunks of 1024-4604 tokens, whose maxima lie
 * far below the row's, so C is long). Where the path is built, K2 blocks must have taken it, some of them
 * overflowed their pass stage, and K4 must have served rows from it; without it the counters stay zero.
 * Part three (round 14): the bench's rows and full setting (gen_row_oflat, every row aligned) at B = 64, 128
 * and 256 (fp32; bf16 at 256), the path forced on, where the pass's online top-k' cut must fire in most blocks and leave almost
 * none to overflow the pass stage or to take the select over re-reads (round 13 overflowed 2875 of 5490).
 * Quick: V=151936 B=64 fp32 and V=32000 B=1 (forced), one step; part three at B=64 fp32, one step. */
TEST(cuda_identity_oneread) {
    need_device("cuda_identity_oneread");
    uint64_t before[5], after[5], mid[5];
    const int built = ms__cuda_oneread(-1, before);
    REQUIRE(built >= 0);
    for (int part = 0; part < 3; part++) {
        if (part == 2) {
            REQUIRE(ms__cuda_oneread(-2, mid) >= 0);
            idcase fc[4];
            static const int32_t Bs[] = {64, 128, 256, 256};
            int nf = 0;
            for (int k = 0; k < 4; k++) {
                if (quick() && k != 0) continue;
                idcase *cs = case_add(fc, &nf, 151936, Bs[k], k == 3 ? MS_DTYPE_BF16 : MS_DTYPE_F32, quick() ? 1 : 2,
                    0x14f1a700u + (uint64_t)k);
                cs->oflat = true;
            }
            REQUIRE(ms__cuda_oneread(0, NULL) == built); /* on at every B, whatever the host's L2 rule says */
            run_cases(fc, nf);
            REQUIRE(ms__cuda_oneread(-1, NULL) == built);
            break;
        }
        idcase cases[16];
        int n = 0;
        for (int k = 0; k < 8; k++) {
            int32_t V = 151936, B;
            ms_dtype d = MS_DTYPE_F32;
            if (part == 0) {
                static const int32_t Bs[] = {32, 64, 64, 64, 256, 64, 32, 64};
                B = Bs[k];
                if (k == 2 || k == 6) d = MS_DTYPE_BF16;
                if (k == 3) d = MS_DTYPE_F16;
                if (k == 5) V = 262144, d = MS_DTYPE_F16;
                if (quick() && k != 1) continue;
            } else {
                static const int32_t Vs[] = {151936, 151936, 32000, 111, 151936, 262144, 32000, 151936};
                static const int32_t Bs[] = {1, 16, 1, 1, 16, 1, 99, 4};
                V = Vs[k];
                B = Bs[k];
                if (k == 4) d = MS_DTYPE_BF16;
                if (k == 7) d = MS_DTYPE_F16;
                if (quick() && k != 2) continue;
            }
            idcase *cs = case_add(cases, &n, V, B, d, quick() ? 1 : 2, 0x13ead000u + (uint64_t)(part * 16 + k));
            if (k % 2) cs->fused = true;
            else cs->stage = true;
        }
        /* part one: chunks of 8192 tokens (round 13's threshold, without round 14's L2 condition, which leaves
         * B=32 off at V=151936 fp32, and B=64 too before round 16A); part two: every step, chunks of any size */
        REQUIRE(ms__cuda_oneread(part == 1 ? 0 : 8192, NULL) == built);
        run_cases(cases, n);
        REQUIRE(ms__cuda_oneread(-1, NULL) == built); /* the default again, for the tests after this one */
    }
    REQUIRE(ms__cuda_oneread(-2, after) >= 0);
    uint64_t dl[5], df[5];
    for (int i = 0; i < 5; i++) {
        dl[i] = mid[i] - before[i];
        df[i] = after[i] - mid[i];
    }
    printf("  one-read path (%s), parts 1-2: K2 blocks %llu, pass stage overflowed (re-read) %llu, C over the stage "
           "(select over re-reads) %llu; rows K4 served from it %llu; top-k' cut fired in %llu blocks\n",
           built ? "built" : "not built", (unsigned long long)dl[0], (unsigned long long)dl[1],
           (unsigned long long)dl[2], (unsigned long long)dl[3], (unsigned long long)dl[4]);
    printf("  part 3 (the bench's rows): K2 blocks %llu, overflowed %llu, select over re-reads %llu; rows K4 served "
           "%llu; top-k' cut fired in %llu blocks\n",
           (unsigned long long)df[0], (unsigned long long)df[1], (unsigned long long)df[2], (unsigned long long)df[3],
           (unsigned long long)df[4]);
    if (built) {
        /* round 14: on the bench's rows the cut fires in (nearly) every block and (nearly) none overflows */
        CHECK_MSG(df[0] > 0, "no K2 block of part three took the one-read path");
        /* flat rows are three in four; a peaked chunk stages fewer than k' tokens, so its cut need not fire */
        CHECK_MSG(df[4] * 2 >= df[0], "the top-k' cut fired in fewer than half of part three's blocks");
        CHECK_MSG(df[1] * 50 <= df[0], "more than 2%% of part three's blocks overflowed their pass stage");
        CHECK_MSG(df[2] * 50 <= df[0], "more than 2%% of part three's blocks took the select over re-reads");
        CHECK_MSG(dl[4] > 0, "the top-k' cut never fired in parts one and two");
        CHECK_MSG(dl[0] > 0, "no K2 block took the one-read path");
        CHECK_MSG(dl[3] > 0, "K4 served no row from the one-read path");
        /* the quick set has too few aligned all-equal rows to be sure of one (the path takes aligned rows only) */
        if (!quick()) CHECK_MSG(dl[1] > 0, "no one-read block overflowed its pass stage");
        CHECK_MSG(dl[1] < dl[0], "every one-read block overflowed its pass stage");
    } else {
        CHECK_MSG(dl[0] == 0 && dl[1] == 0 && dl[2] == 0 && dl[3] == 0 && dl[4] == 0 && df[0] == 0,
                  "the one-read counters moved in a build without it");
    }
}

/* Round 37C (-DMS_CU_OR_SMALLB=g): the steps that rule changes, through the host's own rules (no hook forces a path):
 * the bench's rows and full setting (gen_cfg_oflat, every row aligned) at V=151936, B=24 and 27 (two-pass in the
 * default, the one-read path in 18 chunks a row with the switch) and 25 (bf16), against the CPU reference; with one
 * top-p alone request resident throughout (the rule off: no step may take the path), and one resident for step 0 only
 * (then removed: the rule on from step 1). Passes with and without the switch (both paths exact); where the switch is
 * built (ms__cuda_orsmallb) the lite groups' steps must have taken the one-read path, and in any build none of the
 * mixed group's. Quick: B=24 fp32 of each group, two steps. */
TEST(cuda_identity_smallb) {
    need_device("cuda_identity_smallb");
    const int32_t smallb = ms__cuda_orsmallb();
    REQUIRE(ms__cuda_oneread(-1, NULL) >= 0); /* the host's rules (the default threshold, the L2 rule) */
    uint64_t c0[5], c1[5], c2[5];
    REQUIRE(ms__cuda_oneread(-2, c0) >= 0);
    /* group 1: every request lite, or the top-p alone one gone after step 0 */
    idcase lc[6];
    int nl = 0;
    static const int32_t Bs[] = {24, 27, 25, 24, 27};
    for (int k = 0; k < 5; k++) {
        if (quick() && k != 0 && k != 3) continue;
        idcase *cs = case_add(lc, &nl, 151936, Bs[k], k == 2 ? MS_DTYPE_BF16 : MS_DTYPE_F32, quick() ? 2 : 3,
                              0x37c0a000u + (uint64_t)k);
        cs->oflat = true;
        if (k >= 3) cs->tpa = 2;
    }
    run_cases(lc, nl);
    REQUIRE(ms__cuda_oneread(-2, c1) >= 0);
    /* group 2: one top-p alone request resident throughout */
    idcase mc[2];
    int nm = 0;
    for (int k = 0; k < 2; k++) {
        if (quick() && k != 0) continue;
        idcase *cs = case_add(mc, &nm, 151936, k == 0 ? 24 : 27, MS_DTYPE_F32, quick() ? 2 : 3, 0x37c0b000u + (uint64_t)k);
        cs->oflat = true;
        cs->tpa = 1;
    }
    run_cases(mc, nm);
    REQUIRE(ms__cuda_oneread(-2, c2) >= 0);
    printf("  MS_CU_OR_SMALLB %d: one-read K2 blocks, lite groups %llu (rows K4 served %llu), mixed group %llu\n", (int)smallb,
           (unsigned long long)(c1[0] - c0[0]), (unsigned long long)(c1[3] - c0[3]), (unsigned long long)(c2[0] - c1[0]));
    CHECK_MSG(c2[0] == c1[0], "a step with a top-p alone request resident took the one-read path");
    if (smallb >= 22) CHECK_MSG(c1[0] > c0[0] && c1[3] > c0[3], "no step of the lite groups took the one-read path");
    else if (smallb == 0) CHECK_MSG(c1[0] == c0[0], "a step at B < 28 took the one-read path without the switch");
}

/* Round 13's argument for the one-read path, checked on the host with the shared ms_math.h (no device: it
 * runs in CI too; it tests a model of the kernels' selection, not the kernels, which cuda_identity_oneread
 * tests on a device). For random rows (flat, peaked, all equal, a coarse grid of ties, tokens at min-p's
 * boundary, the max in the last chunk, +inf, NaN, -inf runs, penalised tokens): each chunk scans its tokens in
 * the kernel's thread order with the cut from the running bound (every thread's group max, shared at the end of
 * each step), keeps C = {ms__exp(fl(y - cm)) >= min_p} from its own max cm, lists C's top k' (the bin cut from
 * cm, or the k'-th key with ties when its bins are crowded); then the union's tokens of S0 (min-p's test from the
 * true m) must hold the row's top k' of S0 with ties, and only tokens of S0. Also checked on the way: every token
 * of C passed the cut in force when it was scanned, and C holds the chunk's tokens of S0. */
static uint32_t om_key(float y) {
    uint32_t u = ms__f2u(y == 0.0f ? 0.0f : y);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
static float om_unkey(uint32_t k) { return ms__u2f((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); }
static float om_w(float y, float m) { return ms__is_pos_inf(m) ? (ms__is_pos_inf(y) ? 1.0f : 0.0f) : ms__exp(y - m); }
static float om_cut(float T, float minp_cut, float mx) { /* ms_cu_or_cut */
    const float m = mx / T;
    if (ms__is_pos_inf(m)) return -INFINITY;
    float v = (m + minp_cut) * T;
    v = v - (fabsf(v) + (fabsf(m) + fabsf(minp_cut)) * T) * 1e-5f;
    return isfinite(v) ? v : -INFINITY;
}
static int om_cmp_desc(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}
/* the kk-th largest key of keys[0..n) (n > kk), ties counted */
static uint32_t om_kth(const uint32_t *keys, int32_t n, int32_t kk, uint32_t *tmp) {
    memcpy(tmp, keys, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, om_cmp_desc);
    return tmp[kk - 1];
}

TEST(cuda_oneread_model) {
    enum { V = 20000, THREADS = 256, NG = 2 };
    static float x[V];
    static uint8_t inC[V], listed[V], s0[V], passed[V];
    static uint32_t keys[V], tmp[V];
    static const float temps[] = {0.7f, 1.0f, 2.0f}, minps[] = {1e-4f, 0.05f, 0.5f, 1.0f};
    static const int32_t ks[] = {1, 2, 50, 64, 300}, Gs[] = {1, 2, 3, 8};
    ms_trng g = {0x13ead0de1ull};
    long rows = 0, listed_n = 0, s0_n = 0, chunks_bins = 0, chunks_sel = 0;
    for (int it = 0; it < 300; it++) {
        const float T = temps[ms_trng_below(&g, 3)], min_p = minps[ms_trng_below(&g, 4)];
        const int32_t kk = ks[ms_trng_below(&g, 5)], G = Gs[ms_trng_below(&g, 4)];
        const float lnp = logf(min_p), minp_cut = lnp - 0.01f;
        const int shape = (int)ms_trng_below(&g, 9);
        for (int32_t t = 0; t < V; t++) {
            double v = ms_trng_normal(&g);
            if (shape == 1) v *= 4.0;                          /* peaked */
            if (shape == 2) v = 0.5;                           /* all equal */
            if (shape == 3) v = floor(v * 4.0) / 4.0;          /* ties */
            if (shape == 5) v -= 30.0;
            x[t] = (float)v;
        }
        if (shape == 4) /* the max in the last chunk, far above the others */
            for (int32_t t = V - 1; t > V - 40; t--) x[t] = 8.0f + (float)((V - 1 - t) % 5) * 0.125f;
        if (shape == 5) { /* tokens around min-p's boundary */
            x[ms_trng_below(&g, V)] = 5.0f;
            for (int i = 0; i < 60; i++)
                x[ms_trng_below(&g, V)] = 5.0f + T * (lnp + 0.02f * (float)((int)ms_trng_below(&g, 41) - 20) / 20.0f);
        }
        if (shape == 6) {
            x[ms_trng_below(&g, V)] = INFINITY;
            x[ms_trng_below(&g, V)] = NAN;
        }
        if (shape == 7)
            for (int i = 0; i < 40; i++) {
                const int32_t t0 = (int32_t)ms_trng_below(&g, V / 4) * 4;
                for (int32_t t = t0; t < t0 + 4; t++) x[t] = ms_trng_below(&g, 2) ? NAN : -INFINITY;
            }
        /* the penalised logits (a presence penalty on ~1/16 of the tokens, the max among them sometimes) */
        for (int32_t t = 0; t < V; t++) {
            x[t] = ms__sanitize(x[t]);
            if (shape == 8 || ms_trng_below(&g, 16) == 0) x[t] = ms__penalize(x[t], 1.3f);
        }
        /* the reference: m, S0 */
        float mx = ms__neg_inf();
        for (int32_t t = 0; t < V; t++) mx = fmaxf(mx, x[t]);
        const float m = mx / T;
        if (!(m > ms__neg_inf())) continue; /* an empty row: nothing to select */
        int32_t ns0 = 0;
        for (int32_t t = 0; t < V; t++) {
            const float y = x[t] / T;
            s0[t] = om_w(y, m) >= min_p;
            if (s0[t]) keys[ns0++] = om_key(y);
            listed[t] = 0;
        }
        const uint32_t kth_row = ns0 > kk ? om_kth(keys, ns0, kk, tmp) : 0;
        /* the chunks, as K2 */
        const int32_t chunk = ((V + G - 1) / G + 7) & ~7;
        for (int32_t c0 = 0; c0 < V; c0 += chunk) {
            const int32_t c1 = c0 + chunk < V ? c0 + chunk : V;
            float bound = ms__neg_inf(), rmt[THREADS];
            for (int i = 0; i < THREADS; i++) rmt[i] = ms__neg_inf();
            for (int32_t t = c0; t < c1; t++) inC[t] = 0;
            /* steps of NG groups of 4 per thread; the bound shared after each step (a model of the warps' atomics:
             * here every thread sees the whole block's max so far, a lower bound as in the kernel) */
            for (int32_t base = c0; base < c1; base += THREADS * 4 * NG) {
                for (int th = 0; th < THREADS; th++)
                    for (int u = 0; u < NG; u++)
                        for (int k = 0; k < 4; k++) {
                            const int32_t t = base + u * THREADS * 4 + th * 4 + k;
                            if (t < c1) rmt[th] = fmaxf(rmt[th], x[t]);
                        }
                for (int th = 0; th < THREADS; th++) bound = fmaxf(bound, rmt[th]);
                const float cut = om_cut(T, minp_cut, bound);
                for (int32_t t = base; t < c1 && t < base + THREADS * 4 * NG; t++) passed[t] = !(x[t] < cut);
            }
            float cmx = ms__neg_inf();
            for (int32_t t = c0; t < c1; t++) cmx = fmaxf(cmx, x[t]);
            const float cm = cmx / T;
            if (!(cm > ms__neg_inf())) {
                for (int32_t t = c0; t < c1; t++) CHECK_MSG(!s0[t], "a chunk without a finite y holds a token of S0");
                continue;
            }
            int32_t nc = 0;
            for (int32_t t = c0; t < c1; t++) {
                const float y = x[t] / T;
                const bool pre_out = !ms__is_pos_inf(cm) && y - cm < minp_cut; /* ms_cu_from_y_pre */
                inC[t] = !pre_out && om_w(y, cm) >= min_p;
                if (inC[t]) {
                    CHECK_MSG(passed[t], "row %d: a token of C (t %d) failed the running cut", it, (int)t);
                    keys[nc++] = om_key(y);
                }
                if (s0[t]) CHECK_MSG(inC[t], "row %d: a token of S0 (t %d) outside its chunk's C", it, (int)t);
            }
            /* C's top kk: the bin cut from cm, or the kk-th key */
            uint32_t kth = 0;
            int32_t bcut = 256;
            const float lscale = ms__is_pos_inf(cm) ? 0.0f : 255.0f / (0.01f - logf(min_p));
            if (nc > kk && !ms__is_pos_inf(cm)) {
                uint32_t h[256] = {0};
                for (int32_t i = 0; i < nc; i++) {
                    const float v = (cm - om_unkey(keys[i])) * lscale;
                    h[v < 255.0f ? (uint32_t)v : 255u]++;
                }
                uint32_t run = 0;
                for (int b = 0; b < 256; b++) {
                    if (run < (uint32_t)kk && run + h[b] >= (uint32_t)kk) {
                        bcut = run + h[b] <= (uint32_t)(kk + kk / 8 + 8) ? b : 256;
                        break;
                    }
                    run += h[b];
                }
            }
            if (nc > kk && bcut == 256) kth = om_kth(keys, nc, kk, tmp);
            chunks_bins += bcut < 256, chunks_sel += nc > kk && bcut == 256;
            for (int32_t t = c0; t < c1; t++) {
                if (!inC[t]) continue;
                const float y = x[t] / T;
                bool keep = om_key(y) >= kth;
                if (bcut < 256) {
                    const float v = (cm - y) * lscale;
                    keep = keep && (int32_t)(v < 255.0f ? (uint32_t)v : 255u) <= bcut;
                }
                listed[t] = keep;
            }
        }
        /* K4: the listed tokens of S0 (the exact test from m); their top kk must be the row's */
        int32_t nl = 0;
        for (int32_t t = 0; t < V; t++)
            if (listed[t] && om_w(x[t] / T, m) >= min_p) keys[nl++] = om_key(x[t] / T);
        const uint32_t kth_l = nl > kk ? om_kth(keys, nl, kk, tmp) : 0;
        for (int32_t t = 0; t < V; t++) {
            const bool row_keeps = s0[t] && om_key(x[t] / T) >= kth_row;
            const bool k4_keeps = listed[t] && om_w(x[t] / T, m) >= min_p && om_key(x[t] / T) >= kth_l;
            if (row_keeps != k4_keeps) {
                CHECK_MSG(0, "row %d (shape %d, T %g, min_p %g, k %d, G %d): token %d kept by %s only", it, shape,
                          (double)T, (double)min_p, (int)kk, (int)G, (int)t, row_keeps ? "the reference" : "the model");
                break;
            }
        }
        rows++;
        listed_n += nl;
        s0_n += ns0;
    }
    printf("  %ld rows: %ld tokens of S0, %ld listed tokens of S0; chunks cut by the bins %ld, by the k'-th key %ld\n",
           rows, s0_n, listed_n, chunks_bins, chunks_sel);
    CHECK(rows > 250);
    CHECK(chunks_bins > 0 && chunks_sel > 0);
}

/* Long runs at small V: state (counts, windows, seen sets, the floor, slot reuse) across many steps;
 * plus resources whose V is the row width. */
TEST(cuda_identity_many_steps) {
    need_device("cuda_identity_many_steps");
    idcase cases[16];
    int n = 0;
    for (int i = 0; i < 16; i++) {
        idcase *cs = case_add(cases, &n, i % 4 == 0 ? 5 : i % 4 == 1 ? 111 : i % 4 == 2 ? 2000 : 32000,
            i % 2 ? 37 : 99, (ms_dtype)(i % 3), quick() ? 3 : 25, 0xabc000u + (uint64_t)i);
        cs->spec_vocab = i < 12;
    }
    run_cases(cases, n);
}

/* The spec of the graph tests: min-p, a repetition window of 8, the HF order available; one thread a resource. */
static ms_spec graph_spec(int32_t V) {
    ms_spec spec = ms_spec_default();
    spec.vocab_size = V;
    spec.enable_min_p = true;
    spec.max_repetition_window = 8;
    spec.enable_top_p_first = true;
    return spec;
}

/* An engine captures sample + commit once and replays it while the rows change hands; the tokens
 * equal an eager CUDA resource's and the CPU reference's, step after step. */
TEST(cuda_graph_replay_equals_eager) {
    need_device("cuda_graph_replay_equals_eager");
    const int32_t V = 32000, B = 24, NREQ = 40, STEPS = quick() ? 3 : 12;
    ms_spec spec = graph_spec(V);
    ms_resource_params p = ms_resource_params_default();
    p.capacity = NREQ;
    p.max_rows = B;
    p.n_threads = 1;
    ms_resource *gr = NULL, *eg = NULL, *ref = NULL;
    p.backend = MS_BACKEND_CUDA;
    REQUIRE(ms_resource_create(&gr, &spec, &p) == MS_OK);
    REQUIRE(ms_resource_create(&eg, &spec, &p) == MS_OK);
    p.backend = MS_BACKEND_CPU_REF;
    REQUIRE(ms_resource_create(&ref, &spec, &p) == MS_OK);
    ms_trng g = {77};
    for (int64_t i = 0; i < NREQ; i++) {
        ms_req_config cfg = gen_cfg(&g, V, 8, false);
        CHECK_EQ_I64(ms_ingest(gr, i, &cfg), MS_OK);
        CHECK_EQ_I64(ms_ingest(eg, i, &cfg), MS_OK);
        CHECK_EQ_I64(ms_ingest(ref, i, &cfg), MS_OK);
    }
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_EQ_I64(ms_cuda_set_stream(gr, stream), MS_OK);
    float *d_x = NULL, *h_x = malloc((size_t)B * V * 4);
    int32_t *d_slot, *d_k, *d_tok, *d_st, *d_tok_e;
    uint8_t *d_kept;
    void *ws;
    size_t wsb = 0;
    CHECK_EQ_I64(ms_cuda_workspace_size(gr, B, &wsb), MS_OK);
    CU(cudaMalloc((void **)&d_x, (size_t)B * V * 4));
    CU(cudaMalloc((void **)&d_slot, B * 4));
    CU(cudaMalloc((void **)&d_k, B * 4));
    CU(cudaMalloc((void **)&d_tok, B * 4));
    CU(cudaMalloc((void **)&d_tok_e, B * 4));
    CU(cudaMalloc((void **)&d_st, B * 4));
    CU(cudaMalloc((void **)&d_kept, B));
    CU(cudaMalloc(&ws, wsb));
    /* capture once, with whatever the device arrays hold */
    CU(cudaMemset(d_slot, 0xff, B * 4));
    CU(cudaMemset(d_k, 0, B * 4));
    ms_cuda_rows rows = {B, d_slot, d_k, d_x, MS_DTYPE_F32, V, 0, true, true, d_tok, d_st};
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CU(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    int rc1 = ms_cuda_sample_rows(gr, &rows, ws, wsb);
    int rc2 = ms_cuda_commit_rows(gr, B, d_slot, d_kept, d_tok);
    CU(cudaStreamEndCapture(stream, &graph));
    REQUIRE(rc1 == MS_OK && rc2 == MS_OK);
    CU(cudaGraphInstantiate(&exec, graph, 0));
    int32_t slot[64], rk[64], tg[64], te[64], tc[64], cnt[64];
    int64_t rids[64];
    uint8_t kept[64];
    long compared = 0;
    for (int s = 0; s < STEPS; s++) {
        /* which requests fill the rows this step: some rows unused (-1), some requests twice */
        int32_t n_used = 0;
        memset(cnt, 0, sizeof cnt);
        for (int32_t r = 0; r < B; r++) {
            if (ms_trng_below(&g, 6) == 0) {
                slot[r] = -1;
                rk[r] = 0;
                continue;
            }
            int64_t rid = (int64_t)ms_trng_below(&g, NREQ);
            rids[n_used] = rid;
            slot[r] = ms_cuda_slot_of(gr, rid);
            REQUIRE(slot[r] >= 0);
            rk[r] = cnt[rid]++;
            n_used++;
        }
        for (size_t i = 0; i < (size_t)B * V; i++) h_x[i] = (float)(ms_trng_normal(&g) * 2.0);
        /* kept is decided per request (kept_rids cannot tell two rows of one request apart) */
        uint8_t kreq[64];
        for (int32_t q = 0; q < NREQ; q++) kreq[q] = ms_trng_below(&g, 4) != 0;
        for (int32_t r = 0, u2 = 0; r < B; r++) kept[r] = slot[r] >= 0 ? kreq[rids[u2++]] : 0;
        CU(cudaMemcpy(d_x, h_x, (size_t)B * V * 4, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d_slot, slot, B * 4, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d_k, rk, B * 4, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d_kept, kept, B, cudaMemcpyHostToDevice));
        CU(cudaGraphLaunch(exec, stream));
        CU(cudaStreamSynchronize(stream));
        CU(cudaMemcpy(tg, d_tok, B * 4, cudaMemcpyDeviceToHost));
        /* eager twin and reference: the used rows only, in row order */
        float *xs = malloc((size_t)(n_used ? n_used : 1) * V * 4);
        int32_t u = 0, map[64];
        for (int32_t r = 0; r < B; r++)
            if (slot[r] >= 0) {
                memcpy(xs + (size_t)u * V, h_x + (size_t)r * V, (size_t)V * 4);
                map[u++] = r;
            }
        CU(cudaMemcpy(d_x, xs, (size_t)(n_used ? n_used : 1) * V * 4, cudaMemcpyHostToDevice));
        ms_batch bd = {n_used, rids, d_x, MS_DTYPE_F32, V, 0};
        ms_batch bh = {n_used, rids, xs, MS_DTYPE_F32, V, 0};
        CHECK_EQ_I64(ms_sample(eg, NULL, &bd, d_tok_e, NULL), MS_OK);
        CHECK_EQ_I64(ms_sample(ref, NULL, &bh, tc, NULL), MS_OK);
        CU(cudaMemcpy(te, d_tok_e, (size_t)(n_used ? n_used : 1) * 4, cudaMemcpyDeviceToHost));
        for (int32_t i = 0; i < n_used; i++) {
            CHECK_MSG(tg[map[i]] == te[i] && te[i] == tc[i], "step %d row %d: graph %d eager %d cpu %d", s, map[i],
                      tg[map[i]], te[i], tc[i]);
            compared++;
        }
        for (int32_t r = 0; r < B; r++)
            if (slot[r] < 0) CHECK_EQ_I64(tg[r], -1);
        int64_t kr[64];
        int32_t nk = 0;
        for (int32_t q = 0; q < NREQ; q++)
            if (kreq[q]) kr[nk++] = q;
        ms_step cs = ms_step_default();
        cs.kept_rids = kr;
        cs.n_kept_rids = nk;
        CHECK(ms_commit(eg, &cs) >= 0);
        CHECK(ms_commit(ref, &cs) >= 0);
        free(xs);
    }
    printf("  %ld graph rows compared\n", compared);
    CHECK(compared > 0);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    /* the resource uses its stream until it is freed: free it first */
    ms_resource_free(gr);
    ms_resource_free(eg);
    ms_resource_free(ref);
    cudaFree(d_x); cudaFree(d_slot); cudaFree(d_k); cudaFree(d_tok); cudaFree(d_tok_e); cudaFree(d_st); cudaFree(d_kept); cudaFree(ws);
    cudaStreamDestroy(stream);
    free(h_x);
}

/* Round 17C: steps of different n back to back (4, 1, 4, 64, 2, twice) on one resource of max_rows 64, in four
 * ways: eager and replayed graphs (one captured per n), each with the resource's own workspace and with a caller's.
 * With MS_CU_K4_ZERO (the default since round 17C) the own workspace's row stats are zeroed once, at create, and
 * each step's K4 leaves its rows' zero for the next (no K0): a row left dirty would carry a max, K2's ticket or a
 * candidate count into the next step that uses it. Rows of mixed settings (lite, greedy, unfiltered, top-p, unused slots), every used row against the
 * CPU reference, unused rows -1; eager own-workspace steps alternate ms_cuda_sample_rows and ms_sample. */
TEST(cuda_stats_between_steps) {
    need_device("cuda_stats_between_steps");
    enum { MAXB = 64, NREQ = 64, NS = 5 };
    static const int32_t ns[NS] = {4, 1, 4, 64, 2};
    const int32_t V = 32000, ROUNDS = quick() ? 1 : 2;
    ms_spec spec = graph_spec(V);
    ms_resource_params p = ms_resource_params_default();
    p.capacity = NREQ;
    p.max_rows = MAXB;
    p.n_threads = 1;
    ms_resource *gpu = NULL, *ref = NULL;
    p.backend = MS_BACKEND_CUDA;
    REQUIRE(ms_resource_create(&gpu, &spec, &p) == MS_OK);
    p.backend = MS_BACKEND_CPU_REF;
    REQUIRE(ms_resource_create(&ref, &spec, &p) == MS_OK);
    ms_trng g = {0x17c};
    for (int64_t i = 0; i < NREQ; i++) {
        ms_req_config cfg = i % 3 == 0 ? gen_cfg_lite(&g) : gen_cfg(&g, V, 8, false);
        CHECK_EQ_I64(ms_ingest(gpu, i, &cfg), MS_OK);
        CHECK_EQ_I64(ms_ingest(ref, i, &cfg), MS_OK);
    }
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_EQ_I64(ms_cuda_set_stream(gpu, stream), MS_OK);
    float *d_x = NULL, *h_x = malloc((size_t)MAXB * V * 4), *xs = malloc((size_t)MAXB * V * 4);
    int32_t *d_slot, *d_k, *d_tok;
    void *ws;
    size_t wsb = 0;
    REQUIRE(h_x && xs);
    CHECK_EQ_I64(ms_cuda_workspace_size(gpu, MAXB, &wsb), MS_OK);
    CU(cudaMalloc((void **)&d_x, (size_t)MAXB * V * 4));
    CU(cudaMalloc((void **)&d_slot, MAXB * 4));
    CU(cudaMalloc((void **)&d_k, MAXB * 4));
    CU(cudaMalloc((void **)&d_tok, MAXB * 4));
    CU(cudaMalloc(&ws, wsb));
    CU(cudaMemset(d_slot, 0xff, MAXB * 4));
    CU(cudaMemset(d_k, 0, MAXB * 4));
    long compared = 0, empty = 0;
    for (int mode = 0; mode < 4; mode++) { /* 0 eager own, 1 graphs own, 2 eager caller's, 3 graphs caller's */
        const bool graph = mode & 1, own = mode < 2;
        cudaGraphExec_t ex[NS];
        if (graph)
            for (int i = 0; i < NS; i++) {
                ms_cuda_rows rows = {ns[i], d_slot, d_k, d_x, MS_DTYPE_F32, V, 0, true, true, d_tok, NULL};
                cudaGraph_t gr;
                CU(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
                int rc = ms_cuda_sample_rows(gpu, &rows, own ? NULL : ws, own ? 0 : wsb);
                CU(cudaStreamEndCapture(stream, &gr));
                REQUIRE(rc == MS_OK);
                CU(cudaGraphInstantiate(&ex[i], gr, 0));
                cudaGraphDestroy(gr);
            }
        for (int s = 0; s < ROUNDS * NS; s++) {
            const int32_t n = ns[s % NS];
            const bool via_sample = mode == 0 && (s & 1); /* ms_sample: the used rows only */
            int32_t slot[MAXB], rk[MAXB], tg[MAXB], tc[MAXB], cnt[NREQ], map[MAXB], n_used = 0;
            int64_t rids[MAXB];
            memset(cnt, 0, sizeof cnt);
            for (int32_t r = 0; r < n; r++) {
                if (!via_sample && ms_trng_below(&g, 8) == 0) { /* an unused row */
                    slot[r] = -1;
                    rk[r] = 0;
                    continue;
                }
                const int64_t rid = (int64_t)ms_trng_below(&g, NREQ);
                rids[n_used] = rid;
                slot[r] = ms_cuda_slot_of(gpu, rid);
                REQUIRE(slot[r] >= 0);
                rk[r] = cnt[rid]++;
                map[n_used++] = r;
            }
            for (int32_t r = 0; r < n; r++) { /* each step's rows at another scale: stale maxima show */
                gen_row(&g, h_x + (size_t)r * V, V, V);
                const float sc = (float)(0.25 + (double)((s + r) % 4));
                for (int32_t t = 0; t < V; t++) h_x[(size_t)r * V + t] *= sc;
            }
            for (int32_t i = 0; i < n_used; i++) memcpy(xs + (size_t)i * V, h_x + (size_t)map[i] * V, (size_t)V * 4);
            if (via_sample) {
                CU(cudaMemcpy(d_x, xs, (size_t)(n_used ? n_used : 1) * V * 4, cudaMemcpyHostToDevice));
                ms_batch bd = {n_used, rids, d_x, MS_DTYPE_F32, V, 0};
                CHECK_EQ_I64(ms_sample(gpu, NULL, &bd, d_tok, NULL), MS_OK);
            } else {
                CU(cudaMemcpy(d_x, h_x, (size_t)n * V * 4, cudaMemcpyHostToDevice));
                CU(cudaMemcpy(d_slot, slot, (size_t)n * 4, cudaMemcpyHostToDevice));
                CU(cudaMemcpy(d_k, rk, (size_t)n * 4, cudaMemcpyHostToDevice));
                if (graph) {
                    CU(cudaGraphLaunch(ex[s % NS], stream));
                } else {
                    ms_cuda_rows rows = {n, d_slot, d_k, d_x, MS_DTYPE_F32, V, 0, true, true, d_tok, NULL};
                    CHECK_EQ_I64(ms_cuda_sample_rows(gpu, &rows, own ? NULL : ws, own ? 0 : wsb), MS_OK);
                }
            }
            CU(cudaStreamSynchronize(stream));
            CU(cudaMemcpy(tg, d_tok, (size_t)(via_sample ? (n_used ? n_used : 1) : n) * 4, cudaMemcpyDeviceToHost));
            ms_batch bh = {n_used, rids, xs, MS_DTYPE_F32, V, 0};
            CHECK_EQ_I64(ms_sample(ref, NULL, &bh, tc, NULL), MS_OK);
            for (int32_t i = 0; i < n_used; i++) {
                const int32_t got = via_sample ? tg[i] : tg[map[i]];
                CHECK_MSG(got == tc[i], "mode %d step %d (n=%d) row %d: gpu %d cpu %d", mode, s, n, map[i], got, tc[i]);
                compared++;
            }
            if (!via_sample)
                for (int32_t r = 0; r < n; r++)
                    if (slot[r] < 0) {
                        CHECK_EQ_I64(tg[r], -1);
                        empty++;
                    }
        }
        if (graph)
            for (int i = 0; i < NS; i++) cudaGraphExecDestroy(ex[i]);
    }
    printf("  %ld rows compared, %ld unused rows\n", compared, empty);
    CHECK(compared > 0);
    ms_resource_free(gpu);
    ms_resource_free(ref);
    cudaFree(d_x); cudaFree(d_slot); cudaFree(d_k); cudaFree(d_tok); cudaFree(ws);
    cudaStreamDestroy(stream);
    free(h_x);
    free(xs);
}

/* Inputs the CUDA entry points must refuse, changing nothing. */
TEST(cuda_bad_inputs) {
    need_device("cuda_bad_inputs");
    ms_spec spec = ms_spec_default();
    spec.vocab_size = 100;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 4;
    p.backend = MS_BACKEND_CUDA;
    ms_resource *res = NULL;
    REQUIRE(ms_resource_create(&res, &spec, &p) == MS_OK);
    ms_cuda_rows rows = {1, NULL, NULL, NULL, MS_DTYPE_F32, 100, 0, true, true, NULL, NULL};
    CHECK_EQ_I64(ms_cuda_sample_rows(res, &rows, NULL, 0), MS_EINVAL);
    int32_t *d;
    CU(cudaMalloc((void **)&d, 4096));
    rows.row_slot = d; rows.row_k = d; rows.logits = d; rows.tokens = d;
    rows.dtype = (ms_dtype)7;
    CHECK_EQ_I64(ms_cuda_sample_rows(res, &rows, NULL, 0), MS_EDTYPE);
    rows.dtype = MS_DTYPE_F32;
    rows.width = 99;
    CHECK_EQ_I64(ms_cuda_sample_rows(res, &rows, NULL, 0), MS_ESHAPE);
    rows.width = 100;
    size_t need = 0;
    CHECK_EQ_I64(ms_cuda_workspace_size(res, 1, &need), MS_OK);
    CHECK_EQ_I64(ms_cuda_sample_rows(res, &rows, d, need - 1), MS_ENOSPC);
    CHECK_EQ_I64(ms_cuda_slot_of(res, 5), MS_ENOENT);
    CHECK_EQ_I64(ms_cuda_commit_rows(res, -1, d, NULL, d), MS_ESHAPE);
    /* Seventh session's review: misaligned device pointers fault a kernel and poison the process's CUDA
     * context, so they are refused before anything is enqueued; n_rows < 0 is MS_ESHAPE everywhere, with a
     * message. (Written without a GPU at hand: first run in the next session with device time.) */
    rows.logits = (char *)d + 2;
    CHECK_EQ_I64(ms_cuda_sample_rows(res, &rows, NULL, 0), MS_EINVAL);
    rows.logits = d;
    rows.tokens = (int32_t *)((char *)d + 2);
    CHECK_EQ_I64(ms_cuda_sample_rows(res, &rows, NULL, 0), MS_EINVAL);
    rows.tokens = d;
    CHECK_EQ_I64(ms_cuda_sample_rows(res, &rows, (char *)d + 16, need + 256), MS_EINVAL);
    CHECK(strstr(ms_resource_last_error(res), "256-byte") != NULL);
    CHECK_EQ_I64(ms_cuda_commit_rows(res, 1, (const int32_t *)((const char *)d + 2), NULL, d), MS_EINVAL);
    size_t keep = need;
    CHECK_EQ_I64(ms_cuda_workspace_size(res, -1, &keep), MS_ESHAPE);
    CHECK_EQ_I64((int64_t)keep, (int64_t)need);
    CHECK(strstr(ms_resource_last_error(res), "n_rows") != NULL);
    {
        ms_req_config one = ms_req_config_default();
        REQUIRE(ms_ingest(res, 1, &one) == MS_OK);
        int64_t rid1 = 1;
        ms_batch mis = {1, &rid1, (const char *)d + 2, MS_DTYPE_F32, 100, 0};
        CHECK_EQ_I64(ms_sample(res, NULL, &mis, d, NULL), MS_EINVAL);
        CHECK_EQ_I64(ms_commit(res, NULL), MS_ESTATE); /* the failed sample left nothing to commit */
        REQUIRE(ms_remove(res, 1) == MS_OK);
    }
    /* a CPU resource is not a CUDA one */
    ms_resource *cpu = NULL;
    p.backend = MS_BACKEND_CPU_REF;
    REQUIRE(ms_resource_create(&cpu, &spec, &p) == MS_OK);
    CHECK_EQ_I64(ms_cuda_set_stream(cpu, NULL), MS_EBACKEND);
    CHECK_EQ_I64(ms_cuda_slot_of(cpu, 1), MS_EBACKEND);
    /* an empty batch is fine */
    int64_t rid = 1;
    ms_batch b = {0, &rid, d, MS_DTYPE_F32, 100, 0};
    CHECK_EQ_I64(ms_sample(res, NULL, &b, d, NULL), MS_OK);
    CHECK(ms_commit(res, NULL) >= 0);
    CHECK_EQ_I64(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(d);
    ms_resource_free(cpu);
    ms_resource_free(res);
}
