/*
 * ms_cpu_fast.c: the fast CPU row (issue 5), bit-identical to ms__ref_row (ms_cpu_ref.c).
 *
 * No sorting of the vocabulary. The row is read from memory once (load, NaN -> -inf, presence
 * penalty, max; ms_cpu_fast_simd.c); the rest works on the fp32 copy in the thread's scratch
 * (L2-resident up to ~256k tokens) or on a short candidate list:
 *
 *  - min-p on: max y = (max x) / T exactly (division by T > 0 is monotone), so the tokens that can
 *    pass min-p lie above a threshold on x computed with a generous margin (the project's exp has a
 *    relative error below 1e-7, docs/decisions.md); one compare pass collects them, and every
 *    decision is then taken exactly on that list: y = x / T, w = exp(y - m), q, the filters in the
 *    request's order, the floor and the draw, with the reference's own rules.
 *  - top-k first (no min-p): a strided sample of the row proposes a threshold with at least k
 *    tokens above it; the compare pass collects them and the list is checked to hold every token
 *    whose y reaches the k-th largest y (else the threshold drops to -inf, the reference's case).
 *  - top-p first (no min-p): one vector pass computes y = x / T, w and the exact total mass M; a
 *    sample of w brackets the top-p threshold; a band pass gives the exact mass above the bracket
 *    and the ids inside it; exact mass histograms over the band find the crossing group. The kept
 *    set of top-p is an upper set in y, so the result is a threshold Y: kept iff y >= Y.
 *  - no filter: the exp pass's per-block masses find the drawn block; one block is rescanned.
 * A guess that fails its exact check only costs time (the fallback is the whole row), never bits.
 * Rows with a +inf logit (after temperature) go to the reference pipeline: they are rare and their
 * distribution is trivial.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ms_cpu.h"
#include "ms_math.h"

extern const ms_fast_kernels ms__fast_generic_kernels, ms__fast_w16_kernels;
#ifdef MS_CPU_FAST_X86
extern const ms_fast_kernels ms__fast_avx2_kernels, ms__fast_avx512_kernels;
#endif

/* ---- SIMD level ------------------------------------------------------------------------------ */

static const ms_fast_kernels *ms__level_kernels(int level) {
    switch (level) {
    case MS_FAST_GENERIC: return &ms__fast_generic_kernels;
    case MS_FAST_W16: return &ms__fast_w16_kernels;
#ifdef MS_CPU_FAST_X86
    case MS_FAST_AVX2: return &ms__fast_avx2_kernels;
    case MS_FAST_AVX512: return &ms__fast_avx512_kernels;
#endif
    default: return NULL;
    }
}

bool ms__cpu_fast_level_ok(int level) {
    if (!ms__level_kernels(level)) return false;
#ifdef MS_CPU_FAST_X86
    if (level == MS_FAST_AVX2) return __builtin_cpu_supports("avx2");
    if (level == MS_FAST_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
    return true;
}

const ms_fast_kernels *ms__cpu_fast_kernels(int level) {
    return level >= 0 && level < MS_FAST_N_LEVELS && ms__cpu_fast_level_ok(level) ? ms__level_kernels(level) : NULL;
}

const char *ms__cpu_fast_level_name(int level) {
    static const char *const names[MS_FAST_N_LEVELS] = {"generic", "w16", "avx2", "avx512"};
    return level >= 0 && level < MS_FAST_N_LEVELS ? names[level] : "?";
}

static atomic_int ms__level = -1;

int ms__cpu_fast_level(void) {
    int level = atomic_load_explicit(&ms__level, memory_order_relaxed);
    if (level >= 0) return level;
    level = MS_FAST_GENERIC;
    if (ms__cpu_fast_level_ok(MS_FAST_AVX2)) level = MS_FAST_AVX2;
    if (ms__cpu_fast_level_ok(MS_FAST_AVX512)) level = MS_FAST_AVX512;
    const char *env = getenv("MSAMPLER_CPU_LEVEL");
    if (env)
        for (int l = 0; l < MS_FAST_N_LEVELS; l++)
            if (strcmp(env, ms__cpu_fast_level_name(l)) == 0 && ms__cpu_fast_level_ok(l)) level = l;
    atomic_store_explicit(&ms__level, level, memory_order_relaxed);
    return level;
}

int ms__cpu_fast_set_level(int level) {
    if (level < 0 || level >= MS_FAST_N_LEVELS || !ms__cpu_fast_level_ok(level)) return -1;
    atomic_store_explicit(&ms__level, level, memory_order_relaxed);
    return level;
}

/* the top-p bracket's sample (8192 and 16384 were tried: no faster, docs/cpu.md) */
#define MS__BRACKET_SAMPLES 4096
/* band_list's units (finer buckets of the band, round 7) */
#define MS__FINE_UNITS 1024

/* ---- the thread's workspace (scratch->fast): everything the row needs besides ms_scratch, made
 * with the resource, so that nothing is allocated while sampling (no TLS either: a dlopen'ed
 * library's thread-local blocks are allocated lazily, on first use in each thread) ---- */
typedef struct ms_fast_ws {
    int32_t n_blocks;
    uint64_t *bsum;                /* n_blocks: exact mass per MS_FAST_BLOCK tokens */
    uint64_t hist[MS_FAST_NB];     /* exact mass per top-p bucket */
    uint32_t hcnt[MS_FAST_NB];
    double hw[MS_FAST_NB];         /* sampled weight per bucket */
    double hq[MS_FAST_NB];         /* sampled squared weight per bucket */
    int32_t hc[MS_FAST_NB];        /* sampled count per bucket */
    uint32_t band_work[MS_FAST_BAND_WORK]; /* band_hist's per-block lists */
    float sy[MS__BRACKET_SAMPLES], sw[MS__BRACKET_SAMPLES]; /* the top-p bracket's sample: y, w */
    double s_tot, s_sq;            /* its weights' sum and sum of squares */
    float s_wmax;                  /* its largest weight (round 9: ms__top_p_flat leaves it out) */
    uint64_t fhist[MS__FINE_UNITS]; /* band_list's exact mass and count per unit (round 7) */
    uint32_t fhcnt[MS__FINE_UNITS];
    uint32_t *band_bk;             /* V + 16: the bucket of each token band_hist listed */
    /* a row split over the pool's team (round 5; only the pool caller's scratch has one): per
     * chunk of MS_FAST_CHUNK tokens its outputs, merged in chunk order; per slot (thread) the
     * band's block lists */
    ms_cpu_team *team;
    int32_t n_chunks, n_slots;
    float *c_max;
    uint64_t *c_mass;
    int64_t *c_cnt;
    int32_t *c_n;
    uint64_t *c_hist; /* n_chunks x MS_FAST_NB */
    uint32_t *c_hcnt;
    uint64_t *c_top;  /* round 7: per chunk, exp_mass_top's mass above the band */
    uint64_t *c_fhist; /* n_chunks x MS__FINE_UNITS: band_list's per-chunk units */
    uint32_t *c_fhcnt;
    uint32_t *s_work; /* n_slots x MS_FAST_BAND_WORK */
} ms_fast_ws;

int ms__fast_scratch_init(ms_scratch *s, int32_t V) {
    ms_fast_ws *ws = (ms_fast_ws *)calloc(1, sizeof *ws);
    if (!ws) return MS_ENOMEM;
    ws->n_blocks = (V + MS_FAST_BLOCK - 1) / MS_FAST_BLOCK;
    ws->bsum = (uint64_t *)calloc((size_t)ws->n_blocks + 1, sizeof *ws->bsum);
    ws->band_bk = (uint32_t *)calloc((size_t)V + 16, sizeof *ws->band_bk);
    if (!ws->bsum || !ws->band_bk) {
        free(ws->bsum);
        free(ws->band_bk);
        free(ws);
        return MS_ENOMEM;
    }
    s->fast = ws;
    return MS_OK;
}

static void ms__fast_team_free(ms_fast_ws *ws) {
    free(ws->c_max);
    free(ws->c_mass);
    free(ws->c_cnt);
    free(ws->c_n);
    free(ws->c_hist);
    free(ws->c_hcnt);
    free(ws->c_top);
    free(ws->c_fhist);
    free(ws->c_fhcnt);
    free(ws->s_work);
    ws->team = NULL;
}

int ms__fast_scratch_team(ms_scratch *s, ms_cpu_team *team, int32_t n_slots) {
    ms_fast_ws *ws = (ms_fast_ws *)s->fast;
    if (!ws || !team || n_slots < 2) return MS_OK;
    const int32_t V = ws->n_blocks * MS_FAST_BLOCK;
    const size_t nc = (size_t)(V + MS_FAST_CHUNK - 1) / MS_FAST_CHUNK;
    ws->c_max = (float *)calloc(nc, sizeof *ws->c_max);
    ws->c_mass = (uint64_t *)calloc(nc, sizeof *ws->c_mass);
    ws->c_cnt = (int64_t *)calloc(nc, sizeof *ws->c_cnt);
    ws->c_n = (int32_t *)calloc(nc, sizeof *ws->c_n);
    ws->c_hist = (uint64_t *)calloc(nc * MS_FAST_NB, sizeof *ws->c_hist);
    ws->c_hcnt = (uint32_t *)calloc(nc * MS_FAST_NB, sizeof *ws->c_hcnt);
    ws->c_top = (uint64_t *)calloc(nc, sizeof *ws->c_top);
    ws->c_fhist = (uint64_t *)calloc(nc * MS__FINE_UNITS, sizeof *ws->c_fhist);
    ws->c_fhcnt = (uint32_t *)calloc(nc * MS__FINE_UNITS, sizeof *ws->c_fhcnt);
    ws->s_work = (uint32_t *)calloc((size_t)n_slots * MS_FAST_BAND_WORK, sizeof *ws->s_work);
    if (!ws->c_max || !ws->c_mass || !ws->c_cnt || !ws->c_n || !ws->c_hist || !ws->c_hcnt || !ws->c_top || !ws->c_fhist ||
        !ws->c_fhcnt || !ws->s_work) {
        ms__fast_team_free(ws);
        return MS_ENOMEM;
    }
    ws->team = team;
    ws->n_chunks = (int32_t)nc;
    ws->n_slots = n_slots;
    return MS_OK;
}

void ms__fast_scratch_free(ms_scratch *s) {
    ms_fast_ws *ws = (ms_fast_ws *)s->fast;
    if (ws) {
        free(ws->bsum);
        free(ws->band_bk);
        ms__fast_team_free(ws);
    }
    free(ws);
    s->fast = NULL;
}

/* ---- small helpers ----------------------------------------------------------------------------- */

/* Sort keys are the reference's (ms__desc_key, ms_internal.h); here the low word holds an index
 * into the candidate list (ids ascending, so ties still order by id). */
#define MS__FKEY_IDX(k) ((uint32_t)(k))
#define MS__FKEY_VAL(k) ((k) >> 32)


/* Sorts keys[0, n) ascending. The low words are ascending indices already, so a stable LSD radix
 * sort on the high words (4 passes of 8 bits) gives the full order; tmp needs n entries (NULL: an
 * in-place heapsort). Up to 64 keys: an insertion sort. */
static void ms__sort_keys(uint64_t *keys, int32_t n, uint64_t *tmp) {
    if (n <= 64) {
        /* Round 8: up to 64 keys (the full pipeline's ~50 survivors) by insertion: about one
         * branch miss per key (its inner loop's exit), where the heapsort's data-dependent
         * compares missed about every other time (~200 misses per flat row, callgrind), for
         * about as many instructions (~n^2 / 4 moves) */
        for (int32_t i = 1; i < n; i++) {
            const uint64_t x = keys[i];
            int32_t j = i;
            for (; j > 0 && keys[j - 1] > x; j--) keys[j] = keys[j - 1];
            keys[j] = x;
        }
        return;
    }
    if (n < 64 || !tmp) {
        ms__heapsort_u64(keys, (size_t)n);
        return;
    }
    /* Only the high words' bits that differ are sorted (round 4): a top-p bucket's values share
     * their sign, exponent and leading mantissa bits. The nb varying bits go in one to three
     * passes of at most 11 bits (four 8-bit passes before, each with a counting pass). */
    uint32_t all_and = ~0u, all_or = 0;
    for (int32_t i = 0; i < n; i++) {
        all_and &= (uint32_t)(keys[i] >> 32);
        all_or |= (uint32_t)(keys[i] >> 32);
    }
    if (all_and == all_or) return; /* one value: the low words' order stands */
    const int nb = 32 - __builtin_clz(all_and ^ all_or);
    const int passes = (nb + 10) / 11, bits = (nb + passes - 1) / passes;
    const uint32_t mask = (1u << bits) - 1u;
    uint64_t *src = keys, *dst = tmp;
    for (int shift = 32; shift < 32 + nb; shift += bits) {
        int32_t cnt[2048];
        memset(cnt, 0, (size_t)(mask + 1) * sizeof cnt[0]);
        for (int32_t i = 0; i < n; i++) cnt[(src[i] >> shift) & mask]++;
        int32_t pos = 0;
        for (uint32_t d = 0; d <= mask; d++) {
            int32_t c = cnt[d];
            cnt[d] = pos;
            pos += c;
        }
        for (int32_t i = 0; i < n; i++) dst[cnt[(src[i] >> shift) & mask]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != keys) memcpy(keys, src, (size_t)n * sizeof *keys);
}

/* The j-th largest (1-based) of a[0, n), reordering a (quickselect). */
static float ms__kth_largest(float *a, int32_t n, int32_t j) {
    int32_t lo = 0, hi = n - 1, want = j - 1;
    while (hi - lo > 16) {
        float pivot = a[lo + (hi - lo) / 2];
        int32_t i = lo, k = hi;
        while (i <= k) {
            while (a[i] > pivot) i++;
            while (a[k] < pivot) k--;
            if (i <= k) {
                float tmp = a[i];
                a[i] = a[k];
                a[k] = tmp;
                i++;
                k--;
            }
        }
        if (want <= k) hi = k;
        else if (want >= i) lo = i;
        else return pivot;
    }
    for (int32_t i = lo + 1; i <= hi; i++) { /* insertion sort, descending */
        float v = a[i];
        int32_t k = i;
        while (k > lo && a[k - 1] < v) {
            a[k] = a[k - 1];
            k--;
        }
        a[k] = v;
    }
    return a[want];
}

#define MS__SAMPLES 4096
/* Pass 1's guess from its prefix (round 4): 1024 samples and the (2 ceil(k ns / V) + 1)-th largest
 * (3rd for k = 50 at V = 151936), not 4096 and the 12th. The guess only chooses what pass 1 lists;
 * the list is checked exactly. About as many tokens listed (~445 expected at k = 50), a guess 4x
 * cheaper (the 4096-sample guess was ~10 % of the flat full pipeline's instructions, ~4 us); the
 * row's k-th largest falls below the guess, so the check fails and the fallback runs, when 3 of
 * the 1024 samples lie above it: about 0.5 % of rows (Poisson, mean 0.34). A slack of 2 (0.04 %)
 * listed ~150 more tokens per row and measured slower. docs/cpu.md has the numbers. */
#define MS__PRE_SAMPLES 1024
#define MS__PRE_SLACK 1
/* the prefix: 1/8 of the row (1/16 measured no faster) */
#define MS__PRE_DIV 8
/* the flat rows' band: z standard deviations plus a slack of M's fraction. Round 7: z = 3 and a
 * slack of 0.001 (4 and 0.002 before): with the band's first bucket now chosen before the exp pass
 * (ms__top_p_pre_edge) the band is ~25 % wider than with the exact M, and its tokens are the band
 * pass's cost; no edge failed and no band widened in 1650 rows (V 32000 / 151936 / 262144, p 0.5 /
 * 0.8 / 0.9 / 0.95, T 0.7 / 1 / 1.5; round 4 saw none in 640 rows at these values either).
 * A build may set them to compare. */
#ifndef MS__BRACKET_Z
#define MS__BRACKET_Z 3.0
#endif
#ifndef MS__BRACKET_SLACK
#define MS__BRACKET_SLACK 0.001
#endif

/* A threshold with (very likely) at least k and not many more of y[0, V) at or above it, from a
 * strided sample; -inf when sampling cannot help. The caller checks the count. */
static float ms__guess_topk_tau_n(const float *y, int32_t n, int32_t V, int32_t k);

static float ms__guess_topk_tau(const float *y, int32_t V, int32_t k) { return ms__guess_topk_tau_n(y, V, V, k); }

/* From the first n of V tokens (n = V: the whole row): a threshold with about 2k of the V tokens
 * above it, if the n tokens look like the rest. */
static float ms__guess_topk_tau_n(const float *y, int32_t n_in, int32_t V, int32_t k) {
    if (n_in < 2048 || V < 8192 || k > V / 16) return ms__neg_inf();
    const int32_t every = n_in == V ? 16 : 4; /* the whole row: every 16th token at most; a prefix: 4th */
    const int32_t cap = n_in == V ? MS__SAMPLES : MS__PRE_SAMPLES;
    const int32_t ns = n_in / every < cap ? n_in / every : cap;
    const int32_t stride = n_in / ns;
    /* runs of 16 neighbours (one cache line each) rather than single tokens: 16x fewer lines */
    const int32_t run_gap = 16 * stride;
    /* the k largest of V are about k ns / V samples; take 2x plus slack for sampling noise */
    int32_t j = (int32_t)(2 * ((int64_t)k * ns + V - 1) / V) + (n_in == V ? 8 : MS__PRE_SLACK);
    if (j > ns) return ms__neg_inf();
    if (j > 64) {
        float sample[MS__SAMPLES]; /* (the quickselect reorders: a copy) */
        for (int32_t i = 0; i < ns; i++) sample[i] = y[(i >> 4) * run_gap + (i & 15)];
        return ms__kth_largest(sample, ns, j);
    }
    /* small j (the usual top-k): keep the j largest in a sorted array; most samples fail the
     * first comparison */
    float top[64];
    int32_t n = 0;
    for (int32_t i0 = 0; i0 < ns; i0 += 16) {
        /* sample i is y[(i >> 4) run_gap + (i & 15)]: read in place, no gathered copy */
        const float *sample = y + (i0 >> 4) * run_gap - i0;
        const int32_t i1 = i0 + 16 < ns ? i0 + 16 : ns;
        if (n == j && i1 - i0 == 16) {
            /* once top is full, a run of 16 with none above top[j - 1] changes nothing: one
             * branch per 16 samples (vectorised compares) instead of one per sample (this loop was
             * 13 % of the full pipeline's instructions, callgrind) */
            const float th = top[j - 1];
            int any = 0;
            for (int32_t q = 0; q < 16; q++) any |= sample[i0 + q] > th;
            if (!any) continue;
        }
        for (int32_t i = i0; i < i1; i++) {
            const float v = sample[i];
            if (n == j && !(v > top[j - 1])) continue;
            int32_t pos = n < j ? n++ : j - 1;
            while (pos > 0 && top[pos - 1] < v) {
                top[pos] = top[pos - 1];
                pos--;
            }
            top[pos] = v;
        }
    }
    return top[j - 1];
}

/* ---- the candidate list ------------------------------------------------------------------------
 * n candidates, ids ascending: id[i], y (after temperature) cy[i], mass cq[i], flag keep[i]. The
 * list holds every token the first filter can keep; tokens outside are dropped. */
typedef struct ms_cand {
    int32_t n;
    int32_t *id;
    float *cy;
    uint64_t *cq;
    uint8_t *keep;
    uint64_t *keys;
    int32_t cap; /* entries of keys (V) */
} ms_cand;

static int32_t ms__cand_sorted(const ms_cand *c) {
    int32_t n = 0;
    for (int32_t i = 0; i < c->n; i++)
        if (c->keep[i]) c->keys[n++] = ms__desc_key(c->cy[i], (uint32_t)i);
    ms__sort_keys(c->keys, n, 2 * n <= c->cap ? c->keys + n : NULL);
    return n;
}

/* ms_cpu_ref.c's ms__top_k over the list: t is kept iff fewer than k survivors have a strictly
 * greater y, that is iff y_t >= the k-th largest y (ties with it are kept); no sort needed. */
static void ms__cand_top_k(ms_cand *c, int32_t k) {
    float *vals = (float *)c->keys;
    int32_t n = 0;
    for (int32_t i = 0; i < c->n; i++)
        if (c->keep[i]) vals[n++] = c->cy[i];
    if (n <= k) return;
    const float yk = ms__kth_largest(vals, n, k);
    for (int32_t i = 0; i < c->n; i++)
        if (c->keep[i] && !(c->cy[i] >= yk)) c->keep[i] = 0;
}

/* ms_cpu_ref.c's ms__top_p over the list */
static void ms__cand_top_p(ms_cand *c, uint64_t p_q, int32_t min_keep) {
    int32_t n = ms__cand_sorted(c);
    uint64_t total = 0;
    for (int32_t i = 0; i < n; i++) total += c->cq[MS__FKEY_IDX(c->keys[i])];
    uint64_t running = 0, above = 0;
    int32_t group_start = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i > 0 && MS__FKEY_VAL(c->keys[i]) != MS__FKEY_VAL(c->keys[i - 1])) {
            group_start = i;
            above = running;
        }
        uint32_t j = MS__FKEY_IDX(c->keys[i]);
        running += c->cq[j];
        if (!(ms__top_p_keeps(above, total, p_q) || group_start < min_keep)) c->keep[j] = 0;
    }
}

/* Steps 4b-6 on the list; the caller has set keep (min-p or all ones). */
static void ms__cand_finish(const ms_row_job *job, ms_scratch *s, ms_cand *c, bool draw, bool floor,
                            ms_row_out *out) {
    const ms_req_config *cfg = job->cfg;
    const int32_t V = job->V;
    if (job->apply_filters) {
        const int32_t k = cfg->top_k < V ? cfg->top_k : 0;
        const bool top_p_on = cfg->top_p < 1.0f;
        const uint64_t p_q = ms__top_p_q(cfg->top_p);
        if (!cfg->top_p_first) {
            if (k > 0) ms__cand_top_k(c, k);
            if (top_p_on) ms__cand_top_p(c, p_q, cfg->top_p_min_keep);
        } else {
            if (top_p_on) ms__cand_top_p(c, p_q, cfg->top_p_min_keep);
            int32_t k2 = k > 0 ? (k > cfg->top_p_min_keep ? k : cfg->top_p_min_keep) : 0;
            if (k2 > 0 && k2 < V) ms__cand_top_k(c, k2);
        }
    }
    if (floor) {
        uint64_t free_mass = 0;
        for (int32_t i = 0; i < c->n; i++)
            if (c->keep[i] && !ms__bit_get(job->stop_mask, c->id[i])) free_mass += c->cq[i];
        if (free_mass > 0) {
            for (int32_t i = 0; i < c->n; i++)
                if (ms__bit_get(job->stop_mask, c->id[i])) c->keep[i] = 0;
            out->floor_active = true;
        }
    }
    uint64_t total = 0;
    for (int32_t i = 0; i < c->n; i++)
        if (c->keep[i]) total += c->cq[i];
    out->total_mass = total;
    if (total > 0) out->status = MS_ROW_OK;
    if (!draw) {
        /* explain: scatter the list to keep[id] / q[id] (ids ascending and id[i] >= i, so walking
         * down never overwrites an entry not yet read) */
        memset(s->keep + c->n, 0, (size_t)(V - c->n));
        for (int32_t i = c->n - 1; i >= 0; i--) {
            uint8_t kk = c->keep[i];
            uint64_t qq = c->cq[i];
            c->keep[i] = 0;
            s->keep[c->id[i]] = kk;
            s->q[c->id[i]] = qq;
        }
        return;
    }
    if (total == 0) return;
    const uint64_t target = ms__draw_target(ms__draw_bits(cfg->seed, job->n, job->row_k), total);
    uint64_t running = 0;
    for (int32_t i = 0; i < c->n; i++) {
        if (!c->keep[i]) continue;
        running += c->cq[i];
        if (running > target) {
            out->token = c->id[i];
            return;
        }
    }
}

/* Turns the ids in c->id (taken from the x copy in s->y) into the list: cy, cq; keep = 1 or min-p.
 * cy and cq are written over s->y and s->q in place (i <= id[i]). */
static void ms__cand_fill(ms_cand *c, ms_scratch *s, float T, float m, float min_p) {
    for (int32_t i = 0; i < c->n; i++) {
        float y = s->y[c->id[i]] / T;
        float w = ms__exp(y - m);
        c->cy[i] = y;
        c->cq[i] = ms__mass(w);
        c->keep[i] = min_p > 0.0f ? w >= min_p : 1;
    }
}

/* The lowest float f with f <= d (d finite or infinite). */
static float ms__float_below(double d) {
    if (!(d > -3.0e38)) return ms__neg_inf();
    if (d > 3.0e38) return 3.0e38f;
    float f = (float)d;
    if ((double)f > d) f = nextafterf(f, ms__neg_inf());
    return f;
}

/* ---- the threshold representation: kept iff y >= Y (minus stop ids under the floor) -------- */

static uint64_t ms__stop_mass(const ms_row_job *job, const float *y, const float *w, int32_t lo, int32_t hi,
                              float Y) {
    uint64_t sm = 0;
    for (int32_t wd = lo >> 6; wd <= (hi - 1) >> 6; wd++)
        for (uint64_t bits = job->stop_mask[wd]; bits; bits &= bits - 1) {
            int32_t t = wd * 64 + __builtin_ctzll(bits);
            if (t >= lo && t < hi && y[t] >= Y) sm += ms__mass(w[t]);
        }
    return sm;
}

static void ms__thresh_finish(const ms_row_job *job, ms_scratch *s, const ms_fast_kernels *K, float Y,
                              uint64_t total, const uint64_t *bsum, bool draw, bool floor, ms_row_out *out) {
    const int32_t V = job->V;
    const float *y = s->y, *w = s->w;
    bool mask_stops = false;
    if (floor) {
        uint64_t stop = ms__stop_mass(job, y, w, 0, V, Y);
        if (total - stop > 0) {
            mask_stops = true;
            total -= stop;
            out->floor_active = true;
        }
    }
    out->total_mass = total;
    if (total > 0) out->status = MS_ROW_OK;
    if (!draw) {
        for (int32_t t = 0; t < V; t++) {
            s->keep[t] = y[t] >= Y && !(mask_stops && ms__bit_get(job->stop_mask, t));
            s->q[t] = ms__mass(w[t]);
        }
        return;
    }
    if (total == 0) return;
    const uint64_t target = ms__draw_target(ms__draw_bits(job->cfg->seed, job->n, job->row_k), total);
    const int32_t nb = (V + MS_FAST_BLOCK - 1) / MS_FAST_BLOCK;
    /* The drawn block b* is the one whose kept mass before it is <= target < that plus its own.
     * Without block masses, each block's is a pass over it: walk from the nearer end (round 4:
     * a quarter of the row on average, not half). From the end, the mass before block b is total
     * minus the blocks from b on; these are exact sums of the same tokens, so both walks find b*. */
    int32_t b0 = 0;
    uint64_t running = 0;
    if (!bsum && target >= total / 2) {
        uint64_t from = 0; /* the kept mass of blocks b.. */
        for (b0 = nb - 1; b0 > 0; b0--) {
            const int32_t lo = b0 * MS_FAST_BLOCK, hi = lo + MS_FAST_BLOCK < V ? lo + MS_FAST_BLOCK : V;
            uint64_t bm = K->mass_ge(y, w, lo, hi, Y);
            if (mask_stops) bm -= ms__stop_mass(job, y, w, lo, hi, Y);
            from += bm;
            if (total - from <= target) break;
        }
        running = b0 > 0 ? total - from : 0;
    }
    for (int32_t b = b0; b < nb; b++) {
        const int32_t lo = b * MS_FAST_BLOCK, hi = lo + MS_FAST_BLOCK < V ? lo + MS_FAST_BLOCK : V;
        if (b > b0 || b0 == 0) {
            uint64_t bm = bsum ? bsum[b] : K->mass_ge(y, w, lo, hi, Y);
            if (mask_stops) bm -= ms__stop_mass(job, y, w, lo, hi, Y);
            if (running + bm <= target) {
                running += bm;
                continue;
            }
        }
        for (int32_t t = lo; t < hi; t++) {
            if (!(y[t] >= Y) || (mask_stops && ms__bit_get(job->stop_mask, t))) continue;
            running += ms__mass(w[t]);
            if (running > target) {
                out->token = t;
                return;
            }
        }
    }
}

/* The k-th largest value of y[0, V) (after temperature), using ids as workspace. */
static float ms__kth_value(const ms_fast_kernels *K, const float *y, int32_t V, int32_t k, int32_t *ids,
                           float *vals) {
    float tau = ms__guess_topk_tau(y, V, k);
    int32_t n = K->select_ge(y, V, tau, ids);
    if (n < k) n = K->select_ge(y, V, ms__neg_inf(), ids);
    for (int32_t i = 0; i < n; i++) vals[i] = y[ids[i]];
    return ms__kth_largest(vals, n, k);
}

#define MS__SCALE ((float)MS_FAST_NB / 32.0f) /* buckets per unit of y below the max */
/* The coarse top-p bucket of y below the max m, min(NB - 1, trunc((m - y) MS__SCALE)): band_hist's
 * bucket (ms__vbucket) in scalar form, one copy for the sample, the bucket cut and the threshold's
 * search, so that they agree with the kernels and with each other. */
static inline int32_t ms__coarse_bucket(float m, float y) {
    const float d = (m - y) * MS__SCALE;
    return d < (float)(MS_FAST_NB - 1) ? (int32_t)d : MS_FAST_NB - 1;
}

/* Top-p over every token (no min-p, top-p first), on buckets of y below the max (monotone in y, so
 * buckets are strictly ordered and equal values share one). hist/hcnt hold the exact mass and count
 * of buckets b_lo..b_hi; the buckets before b_lo hold mass_top and cnt_top in all. Whole buckets
 * are kept or dropped by the integer top-p test; only the bucket holding the threshold is listed
 * (one pass), sorted and walked with the reference's rule. Top-p keeps an upper set in y, so the
 * result is a threshold: *Y. Returns 0, or -1 when b_lo must be lower (a token before it may be
 * dropped) or -2 when b_hi must be higher (the threshold lies beyond it). band: band_hist's list of
 * the ids in [b_lo, b_hi], band_bk their buckets. Uses the lower half of s->keys (ids; band is its
 * upper half) and s->q (sort keys). */
/* The threshold inside one bucket (round 5): the reference's walk over the bucket's tokens sorted
 * by y (groups of equal y kept or dropped whole: a group is kept iff top_p_keeps(mass strictly
 * above it) or fewer than min_keep tokens lie strictly above it) keeps the groups down to the
 * lowest one passing that test, which is monotone (true, then false, as y falls). So no sort is
 * needed: an MSD radix select over the keys' varying bits, with each 8-bit digit's exact mass
 * and count, finds the lowest digit whose first group passes, and narrows to it until one value
 * is left (the sort of ~2.6k tokens and the walk were ~8 % of a flat top-p row). ids[0, n): the
 * bucket's tokens; above, count: the mass and count of every token above the bucket; the
 * bucket's first group passes. Returns Y (the lowest kept y) and *kept, the exact mass of the
 * tokens with y >= Y. ord, q: room for n each. */
static float ms__bucket_threshold(const float *y, const float *w, const int32_t *ids, int32_t n, uint64_t above,
                                  int64_t count, uint64_t M, uint64_t p_q, int32_t min_keep, uint32_t *ord, uint64_t *q,
                                  uint64_t *kept) {
    uint32_t all_and = ~0u, all_or = 0;
    for (int32_t i = 0; i < n; i++) {
        const float v = y[ids[i]];
        const uint32_t u = ms__f2u(v == 0.0f ? 0.0f : v); /* -0 and +0: one value (ms__desc_key) */
        ord[i] = u & 0x80000000u ? ~u : u | 0x80000000u; /* larger y, larger key */
        q[i] = ms__mass(w[ids[i]]);
        all_and &= ord[i];
        all_or |= ord[i];
    }
    int32_t m = n;
    for (;;) {
        const uint32_t diff = all_and ^ all_or;
        if (!diff) break; /* one value left: the threshold's group */
        const int top = 31 - __builtin_clz(diff);
        const int shift = top >= 7 ? top - 7 : 0;
        uint32_t cnt[256] = {0};
        uint64_t ms[256] = {0};
        for (int32_t i = 0; i < m; i++) {
            const uint32_t d = (ord[i] >> shift) & 255u;
            cnt[d]++;
            ms[d] += q[i];
        }
        /* from the highest digit down: the lowest digit whose first group passes */
        int32_t dstar = -1;
        uint64_t a = above, a_star = above;
        int64_t c = count, c_star = count;
        for (int32_t d = 255; d >= 0; d--) {
            if (!cnt[d]) continue;
            if (!(ms__top_p_keeps(a, M, p_q) || c < min_keep)) break;
            dstar = d;
            a_star = a;
            c_star = c;
            a += ms[d];
            c += cnt[d];
        }
        /* dstar >= 0: the candidates' first group passes (the caller's bucket, then each digit kept) */
        int32_t mm = 0;
        all_and = ~0u;
        all_or = 0;
        for (int32_t i = 0; i < m; i++) {
            ord[mm] = ord[i];
            q[mm] = q[i];
            mm += ((ord[i] >> shift) & 255u) == (uint32_t)dstar;
        }
        for (int32_t i = 0; i < mm; i++) {
            all_and &= ord[i];
            all_or |= ord[i];
        }
        m = mm;
        above = a_star;
        count = c_star;
    }
    uint64_t g = 0;
    for (int32_t i = 0; i < m; i++) g += q[i];
    *kept = above + g;
    const uint32_t key = ord[0];
    return ms__u2f(key & 0x80000000u ? key & 0x7fffffffu : ~key);
}

/* The band as the threshold's search sees it: units of y below the max (band_hist's buckets, or
 * with band_list (round 7) a power-of-two refinement of them, so that the bucket holding the
 * threshold holds ~16x fewer tokens for ms__bucket_threshold), their exact masses and counts, and
 * the list of the band's tokens with each one's unit. */
typedef struct ms_band {
    const uint64_t *hist; /* per unit, local index 0..n_units - 1 */
    const uint32_t *hcnt;
    int32_t n_units;
    float uscale;         /* units per unit of y below the max */
    int32_t u_lo, u_top;  /* unit of local 0; the clamp: unit = min(u_top, trunc((m - y) uscale)) */
    uint32_t pick_base;   /* list_bk's value for local unit 0 */
    int32_t b_lo;         /* the first coarse bucket (MS__SCALE) of the band */
    bool last;            /* the band reaches the last bucket: nothing lies beyond it */
    uint64_t mass_top;    /* the exact mass and count of the tokens before the band */
    int64_t cnt_top;
    const int32_t *list;  /* the band's tokens, ascending ids, and their units */
    const uint32_t *list_bk;
    int32_t n;
} ms_band;

/* The local unit of y (any y of the band): band_hist's / band_list's own formula. */
static int32_t ms__band_unit(const ms_band *bd, float m, float y) {
    const float d = (m - y) * bd->uscale;
    return (d < (float)bd->u_top ? (int32_t)d : bd->u_top) - bd->u_lo;
}

static int ms__top_p_threshold(const ms_row_job *job, ms_scratch *s, const ms_fast_kernels *K, float m,
                                uint64_t M, uint64_t p_q, int32_t min_keep, const ms_band *bd, float *Y_out,
                                uint64_t *kept_out) {
    const int32_t V = job->V;
    const float *y = s->y, *w = s->w;
    int32_t *ids = (int32_t *)s->keys;
    const uint64_t *hist = bd->hist;
    const uint32_t *hcnt = bd->hcnt;
    /* every token before b_lo must be kept: fewer than mass_top strictly above each */
    if (bd->cnt_top > 0 && !ms__top_p_keeps(bd->mass_top, M, p_q)) return -1;
    uint64_t above = bd->mass_top;
    int64_t count = bd->cnt_top;
    float Y = ms__pos_inf();
    /* a kept bucket whose lowest y is the threshold: before the band (coarse buckets, searched over
     * the row), or a unit of the band (its tokens are listed) */
    int32_t need_min = bd->cnt_top > 0 ? bd->b_lo - 1 : -1, need_unit = -1;
    uint64_t kept = bd->mass_top; /* the mass of the tokens with y >= the threshold found so far */
    bool decided = bd->last;
    for (int32_t b = 0; b < bd->n_units; b++) {
        if (!hcnt[b]) continue;
        if (ms__top_p_keeps(above + hist[b], M, p_q)) {
            /* every token of the unit has less than above + hist[b] strictly above it */
            above += hist[b];
            count += hcnt[b];
            need_min = -1;
            need_unit = b;
            kept = above;
            continue;
        }
        if (!ms__top_p_keeps(above, M, p_q) && count >= min_keep) { /* this and every later one */
            decided = true;
            break;
        }
        /* the threshold is inside this unit: its ids from the band's list and units by vector
         * compares (round 4: the scalar scan that recomputed each listed token's bucket
         * mispredicted and was ~20 % of a flat top-p row) */
        const int32_t n = K->band_pick(bd->list, bd->list_bk, bd->n, bd->pick_base + (uint32_t)b, ids);
        if (n > 0 && 3 * (int64_t)n <= 2 * (int64_t)V) { /* q (8 bytes) and ord (4) for n fit in s->q */
            Y = ms__bucket_threshold(y, w, ids, n, above, count, M, p_q, min_keep, (uint32_t *)(s->q + n), s->q, &kept);
            need_min = need_unit = -1;
        } else { /* a list too long for the select's room: sort it and walk */
            uint64_t *keys = s->q;
            for (int32_t i = 0; i < n; i++) keys[i] = ms__desc_key(y[ids[i]], (uint32_t)ids[i]);
            ms__sort_keys(keys, n, 2 * n <= V ? keys + n : NULL);
            uint64_t running = above, gabove = above;
            int64_t gstart = count;
            for (int32_t i = 0; i < n; i++) {
                if (i > 0 && MS__FKEY_VAL(keys[i]) != MS__FKEY_VAL(keys[i - 1])) {
                    gstart = count + i;
                    gabove = running;
                }
                const int32_t t = (int32_t)MS__FKEY_IDX(keys[i]);
                running += ms__mass(w[t]);
                if (!(ms__top_p_keeps(gabove, M, p_q) || gstart < min_keep)) break;
                Y = y[t];
                kept = running;
                need_min = need_unit = -1;
            }
        }
        above += hist[b];
        count += hcnt[b];
        if (!(ms__top_p_keeps(above, M, p_q) || count < min_keep)) {
            decided = true;
            break;
        }
    }
    if (!decided) return -2;
    /* the last kept unit was kept whole: its lowest y */
    if (need_unit >= 0) {
        const int32_t n = K->band_pick(bd->list, bd->list_bk, bd->n, bd->pick_base + (uint32_t)need_unit, ids);
        for (int32_t i = 0; i < n; i++)
            if (y[ids[i]] < Y) Y = y[ids[i]];
    }
    /* (buckets before b_lo: the nearest non-empty one, found over the row) */
    for (int32_t b = need_min; b >= 0; b--) {
        const int32_t n = K->bucket_ids(y, V, m, MS__SCALE, b, ids);
        for (int32_t i = 0; i < n; i++)
            if (y[ids[i]] < Y) Y = y[ids[i]];
        if (n > 0) break;
    }
    *Y_out = Y;
    *kept_out = kept;
    return 0;
}

/* Round 9: whether the exp-path rows that can read the caller's row do (tests switch it off to
 * compare both ways), and how many did. */
static atomic_int ms__fast_direct = 1;
static atomic_llong ms__direct_rows;
int ms__fast_set_direct(int on) {
    return on < 0 ? atomic_load(&ms__fast_direct) : atomic_exchange(&ms__fast_direct, on ? 1 : 0);
}
int64_t ms__fast_direct_rows(void) { return (int64_t)atomic_load_explicit(&ms__direct_rows, memory_order_relaxed); }

/* The top-p bracket's sample (round 7: taken before the exp pass): ns tokens of the row in runs of
 * 16 neighbours, copied from x (s->y before the division, or round 9 the caller's fp32 row: hence the
 * NaN -> -inf, a no-op on s->y) into ws->sy and run through exp_mass,
 * which gives each exactly the y and w the exp pass will give it (the same operations); their
 * weights by bucket of y below the max in hw, hq (squares), hc. Returns ns (0: the row is too small
 * to sample, V < 8192). */
/* How often the top-p paths of round 7 ran (tests: that the forced cases reach them). */
static atomic_llong ms__tp_counts[5];
void ms__fast_top_p_counts(int64_t out[5]) {
    for (int i = 0; i < 5; i++) out[i] = (int64_t)atomic_load_explicit(&ms__tp_counts[i], memory_order_relaxed);
}

static int32_t ms__top_p_sample(ms_fast_ws *ws, const ms_fast_kernels *K, const float *x, int32_t V, float T,
                                float m) {
    if (V < 8192) return 0;
    const int32_t ns = V / 8 < MS__BRACKET_SAMPLES ? V / 8 : MS__BRACKET_SAMPLES;
    const int32_t stride = V / ns, run_gap = 16 * stride;
    /* sample i is x[(i >> 4) run_gap + (i & 15)]; whole runs by a fixed-size copy (two vector moves:
     * the variable-size memcpy was a rep movsq, ~2 % of a flat row's time) */
    int32_t i = 0;
    for (; i + 16 <= ns; i += 16) {
        const float *src = x + (i >> 4) * run_gap;
        for (int k = 0; k < 16; k++) ws->sy[i + k] = ms__sanitize(src[k]);
    }
    for (; i < ns; i++) ws->sy[i] = ms__sanitize(x[(i >> 4) * run_gap + (i & 15)]);
    uint64_t bs[MS__BRACKET_SAMPLES / MS_FAST_BLOCK + 1];
    (void)K->exp_mass(ws->sy, ws->sy, ws->sw, ns, T, m, bs);
    memset(ws->hw, 0, sizeof ws->hw);
    memset(ws->hc, 0, sizeof ws->hc);
    memset(ws->hq, 0, sizeof ws->hq);
    float wmax = 0.0f;
    for (i = 0; i < ns; i++) {
        const float w = ws->sw[i];
        wmax = w > wmax ? w : wmax;
        const int32_t b = ms__coarse_bucket(m, ws->sy[i]);
        ws->hw[b] += w;
        ws->hc[b]++;
        ws->hq[b] += (double)w * w;
    }
    /* the totals from the buckets (summed per sample they were two chains of dependent adds) */
    double tot = 0, sq = 0;
    for (int32_t b = 0; b < MS_FAST_NB; b++) {
        tot += ws->hw[b];
        sq += ws->hq[b];
    }
    ws->s_tot = tot;
    ws->s_sq = sq;
    ws->s_wmax = wmax;
    return ns;
}

/* A flat row's sample has many comparable weights (n_eff >= 256); a peaked one a few heavy tokens.
 * Round 9: n_eff without the sample's largest weight. A flat row whose sample happened to catch one
 * token near the max (w ~ 1 against ~20 for the whole sample, in ~2 % of N(0,1) rows at V=151936,
 * T 0.7) had n_eff ~240 and took the peaked rows' count-rule band, which never holds a flat row's
 * threshold: they widened to band_hist, ~2x the row's time (~650 against ~300 us at V=151936). A peaked row's sample holds several
 * heavy tokens, so leaving one out keeps it peaked. Only the path depends on it, never a value. */
static bool ms__top_p_flat(const ms_fast_ws *ws) {
    const double wm = ws->s_wmax, tot = ws->s_tot - wm, sq = ws->s_sq - wm * wm;
    const double n_eff = sq > 0 && tot > 0 ? tot * tot / sq : 0; /* the sample's effective size */
    return n_eff >= 256;
}

/* The bucket range [b_lo, b_hi] likely to hold the top-p threshold, from the sample (ns tokens,
 * ms__top_p_sample) and the exact total M. A sample with many comparable weights (a flat row)
 * locates the crossing of p well: see below. When a few heavy tokens hold the mass (a peaked row)
 * the fraction is unreliable but the crossing is among few tokens: take the top buckets holding
 * about 8192 tokens by the sampled counts, which are reliable. */
static void ms__top_p_bracket(const ms_fast_ws *ws, int32_t ns, int32_t V, double p, uint64_t M, int32_t *b_lo,
                              int32_t *b_hi) {
    *b_lo = 0;
    *b_hi = MS_FAST_NB - 1;
    if (ns == 0) return;
    const double *hw = ws->hw, *hq = ws->hq;
    const int32_t *hc = ws->hc;
    const int32_t stride = V / ns;
    if (!ms__top_p_flat(ws)) {
        int64_t cnt = 0;
        int32_t b = 0;
        while (b < MS_FAST_NB - 1 && (cnt + (int64_t)hc[b]) * stride <= 8192) cnt += hc[b++];
        *b_hi = b;
        return;
    }
    {
        /* Round 4: the mass below the crossing, estimated from the light tokens' samples against the
         * exact total M, not the sampled fraction of the whole mass: the heavy tokens that make the
         * sampled fraction noisy (n_eff ~ 530 of 4096 in a flat row) do not enter it. A flat row's
         * band at V = 151936 went from ~50k tokens (p -/+ 0.062 of the sampled fraction) to ~11k,
         * with no retry in 640 rows (peaked rows, where the light tokens' mass is itself held by
         * few sampled heavy ones, failed a third of the time with it: they keep the count rule).
         * G(b), the mass of buckets >= b, is estimated as (V / ns) times the sampled weight there,
         * with a standard deviation from the sampled squares; the crossing bucket b* has
         * G(b*) > (1 - p) M >= G(b* + 1). The band is where that is not certain at z deviations
         * plus a slack. */
        const double L = (1.0 - p) * ((double)M / 1099511627776.0), f = (double)V / ns;
        const double z = MS__BRACKET_Z, slack = MS__BRACKET_SLACK * ((double)M / 1099511627776.0);
        double g = 0, q = 0, sd = 0; /* sd = sqrt(q), recomputed only when q changes */
        int32_t lo = -1, hi = MS_FAST_NB - 1;
        for (int32_t b = MS_FAST_NB - 1; b >= 0; b--) {
            /* g, q: buckets > b */
            if (f * g + z * f * sd + slack < L) hi = b; /* G(b + 1) < L surely: b* <= b */
            if (!hc[b]) continue; /* nothing sampled: g, q and the test below as for b + 1 */
            g += hw[b];
            q += hq[b];
            sd = sqrt(q);
            if (f * g - z * f * sd - slack > L) { /* G(b) > L surely: b* >= b */
                lo = b;
                break;
            }
        }
        if (lo > 0) *b_lo = lo;
        *b_hi = hi >= *b_lo ? hi : *b_lo;
    }
}

/* Round 7: the band's first bucket chosen before the exp pass, when M is not known yet, so that the
 * exp pass sums the exact mass above it (exp_mass_top) and the band's pass reads y alone. Every
 * token in buckets < b is kept when G(b) > (1 - p) M (G: the mass of buckets >= b): then the mass
 * above any of them is below p M. Without M, D(b) = G(b) - (1 - p) M = sum over the tokens of
 * w (1[bucket >= b] - (1 - p)) is estimated from the sample with its standard deviation (the heavy
 * tokens enter with the factor 1 - p); b is the highest bucket where D > 0 at z deviations plus
 * the slack. Returns 0 (no edge: the band's pass sums the mass above itself, band_hist) for a
 * peaked or unsampled row, or when no bucket qualifies. The exp pass's exact sums check it. */
static int32_t ms__top_p_pre_edge(const ms_fast_ws *ws, int32_t ns, int32_t V, double p) {
    if (ns == 0 || !ms__top_p_flat(ws)) return 0;
    const double *hw = ws->hw, *hq = ws->hq;
    const int32_t *hc = ws->hc;
    const double f = (double)V / ns, z = MS__BRACKET_Z, slack = MS__BRACKET_SLACK * f * ws->s_tot;
    double g = 0, qg = 0;
    for (int32_t b = MS_FAST_NB - 1; b > 0; b--) {
        if (!hc[b]) continue;
        g += hw[b];
        qg += hq[b];
        const double d = f * (g - (1.0 - p) * ws->s_tot);
        const double var = f * f * (p * p * qg + (1.0 - p) * (1.0 - p) * (ws->s_sq - qg));
        if (d - z * sqrt(var) - slack > 0) return b;
    }
    return 0;
}

/* The lowest y whose bucket (band_hist's min(NB - 1, trunc((m - y) scale)), monotone in y) is below
 * b, 1 <= b <= NB: the tokens with y >= it are exactly those in buckets < b. A search over the
 * floats' order (-inf included) with the scalar bucket itself, so the cut agrees with it exactly. */
float ms__fast_bucket_cut(float m, int32_t b) {
    /* order-preserving keys: k(-inf) .. k(m); the predicate holds at m (bucket 0) */
    uint32_t lo = ~ms__f2u(ms__neg_inf()), hi;
    const uint32_t um = ms__f2u(m);
    hi = um & 0x80000000u ? ~um : um | 0x80000000u;
    /* invariant: the predicate holds at hi; it fails below lo or lo is the first key */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const float v = ms__u2f(mid & 0x80000000u ? mid & 0x7fffffffu : ~mid);
        if (ms__coarse_bucket(m, v) < b) hi = mid;
        else lo = mid + 1;
    }
    return ms__u2f(hi & 0x80000000u ? hi & 0x7fffffffu : ~hi);
}

/* ---- one row over the pool's team (round 5) ------------------------------------------------------
 * The heavy passes of a wide row, cut into chunks of MS_FAST_CHUNK tokens (whole blocks and bitset
 * words) that the team's threads claim. Every chunk writes its own outputs: the max is exact, masses
 * and counts are integers, lists are concatenated in chunk order, so the row's values are those of
 * the one-thread passes whoever did which chunk (tests/cpu: cpu_split_rows_match). */
typedef struct ms_split_ctx {
    const ms_fast_kernels *K;
    ms_fast_ws *ws;
    int32_t V;
    const ms_row_job *job; /* pass 1 */
    const uint64_t *seen;
    float r, T, m;
    float *y, *w;
    int32_t b_lo, b_hi; /* band */
    int32_t *band;
    float ytop;         /* round 7: exp_mass_top's cut; band_list's cuts and units */
    float ylo, uscale;
    int32_t u_lo, u_top;
    const float *x;     /* round 9: the exp pass's input (y itself, or the caller's fp32 row) */
} ms_split_ctx;

static inline int32_t ms__chunk_len(int32_t V, int32_t c) {
    const int32_t lo = c * MS_FAST_CHUNK;
    return V - lo < MS_FAST_CHUNK ? V - lo : MS_FAST_CHUNK;
}

static void ms__split_load_chunk(void *arg, int32_t c, int32_t slot) {
    const ms_split_ctx *x = (const ms_split_ctx *)arg;
    (void)slot;
    const int32_t lo = c * MS_FAST_CHUNK;
    const size_t es = x->job->dtype == MS_DTYPE_F32 ? 4 : 2;
    if (!x->y) { /* round 9: the max alone (ms__split_load_max with y NULL: a direct row, whose exp pass reads the caller's row) */
        x->ws->c_max[c] = x->K->max((const float *)x->job->row + lo, ms__chunk_len(x->V, c));
        return;
    }
    x->ws->c_max[c] = x->K->load_max((const char *)x->job->row + (size_t)lo * es, x->job->dtype, ms__chunk_len(x->V, c),
                                     x->seen ? x->seen + lo / 64 : NULL, x->r, x->y + lo, 0.0f, NULL, NULL, 0);
}

static void ms__split_exp_chunk(void *arg, int32_t c, int32_t slot) {
    const ms_split_ctx *x = (const ms_split_ctx *)arg;
    (void)slot;
    const int32_t lo = c * MS_FAST_CHUNK;
    x->ws->c_mass[c] = x->K->exp_mass(x->x + lo, x->y + lo, x->w + lo, ms__chunk_len(x->V, c), x->T, x->m,
                                      x->ws->bsum + lo / MS_FAST_BLOCK);
}

static void ms__split_exp_top_chunk(void *arg, int32_t c, int32_t slot) {
    const ms_split_ctx *x = (const ms_split_ctx *)arg;
    (void)slot;
    const int32_t lo = c * MS_FAST_CHUNK;
    x->ws->c_mass[c] = x->K->exp_mass_top(x->x + lo, x->y + lo, x->w + lo, ms__chunk_len(x->V, c), x->T, x->m,
                                          x->ws->bsum + lo / MS_FAST_BLOCK, x->ytop, &x->ws->c_top[c], &x->ws->c_cnt[c]);
}

static void ms__split_list_chunk(void *arg, int32_t c, int32_t slot) {
    const ms_split_ctx *x = (const ms_split_ctx *)arg;
    ms_fast_ws *ws = x->ws;
    (void)slot;
    const int32_t lo = c * MS_FAST_CHUNK;
    /* the chunk lists into its own range of band, as band_hist's chunks */
    x->K->band_list(x->y + lo, x->w + lo, ms__chunk_len(x->V, c), x->m, x->uscale, x->ylo, x->ytop, x->u_lo, x->u_top,
                    ws->c_fhist + (size_t)c * MS__FINE_UNITS, ws->c_fhcnt + (size_t)c * MS__FINE_UNITS, x->band + lo,
                    ws->band_bk + lo, &ws->c_n[c]);
}

static void ms__split_band_chunk(void *arg, int32_t c, int32_t slot) {
    const ms_split_ctx *x = (const ms_split_ctx *)arg;
    ms_fast_ws *ws = x->ws;
    const int32_t lo = c * MS_FAST_CHUNK;
    /* the chunk lists into its own range of band (its ids never exceed its tokens, and a vector's
     * overshoot stays below the chunk's end) */
    x->K->band_hist(x->y + lo, x->w + lo, ms__chunk_len(x->V, c), x->m, MS__SCALE, x->b_lo, x->b_hi,
                    ws->c_hist + (size_t)c * MS_FAST_NB, ws->c_hcnt + (size_t)c * MS_FAST_NB, &ws->c_mass[c],
                    &ws->c_cnt[c], x->band + lo, ws->band_bk + lo, &ws->c_n[c],
                    ws->s_work + (size_t)slot * MS_FAST_BAND_WORK);
}

static int32_t ms__n_chunks(int32_t V) { return (V + MS_FAST_CHUNK - 1) / MS_FAST_CHUNK; }

/* Whether this row's passes go over the team. */
static bool ms__split_on(const ms_fast_ws *ws, int32_t V) {
    return ws->team && V >= MS_FAST_TEAM_MIN_V && ms__n_chunks(V) <= ws->n_chunks && ms__cpu_team_active(ws->team);
}

static float ms__split_load_max(ms_fast_ws *ws, const ms_row_job *job, const ms_fast_kernels *K, const uint64_t *seen,
                                float r, float *y) {
    ms_split_ctx x = {K, ws, job->V, job, seen, r, 1.0f, 0.0f, y, NULL, 0, 0, NULL, 0.0f, 0.0f, 0.0f, 0, 0, NULL};
    const int32_t nc = ms__n_chunks(job->V);
    ms__cpu_team_for(ws->team, nc, ms__split_load_chunk, &x);
    float mx = ws->c_max[0];
    for (int32_t c = 1; c < nc; c++)
        if (ws->c_max[c] > mx) mx = ws->c_max[c];
    return mx;
}

static uint64_t ms__split_exp_mass(ms_fast_ws *ws, const ms_fast_kernels *K, const float *src, float *y, float *w,
                                   int32_t V, float T, float m) {
    ms_split_ctx x = {K, ws, V, NULL, NULL, 1.0f, T, m, y, w, 0, 0, NULL, 0.0f, 0.0f, 0.0f, 0, 0, src};
    const int32_t nc = ms__n_chunks(V);
    ms__cpu_team_for(ws->team, nc, ms__split_exp_chunk, &x);
    uint64_t M = 0;
    for (int32_t c = 0; c < nc; c++) M += ws->c_mass[c];
    return M;
}

/* exp_mass_top over the team: the same y, w, block masses, M, mass and count above ytop */
static uint64_t ms__split_exp_mass_top(ms_fast_ws *ws, const ms_fast_kernels *K, const float *src, float *y, float *w,
                                       int32_t V, float T, float m, float ytop, uint64_t *mass_top, int64_t *cnt_top) {
    ms_split_ctx x = {K, ws, V, NULL, NULL, 1.0f, T, m, y, w, 0, 0, NULL, ytop, 0.0f, 0.0f, 0, 0, src};
    const int32_t nc = ms__n_chunks(V);
    ms__cpu_team_for(ws->team, nc, ms__split_exp_top_chunk, &x);
    uint64_t M = 0, top = 0;
    int64_t ntop = 0;
    for (int32_t c = 0; c < nc; c++) {
        M += ws->c_mass[c];
        top += ws->c_top[c];
        ntop += ws->c_cnt[c];
    }
    *mass_top = top;
    *cnt_top = ntop;
    return M;
}

/* band_list over the team: the same units' sums and list as one band_list call */
static void ms__split_band_list(ms_fast_ws *ws, const ms_fast_kernels *K, const float *y, const float *w, int32_t V,
                                float m, float uscale, float ylo, float yhi, int32_t u_lo, int32_t u_top, uint64_t *hist,
                                uint32_t *hcnt, int32_t *band, int32_t *n_band) {
    ms_split_ctx x = {K, ws, V, NULL, NULL, 1.0f, 1.0f, m, (float *)y, (float *)w, 0, 0, band, yhi, ylo, uscale, u_lo, u_top, NULL};
    const int32_t nc = ms__n_chunks(V), nu = u_top - u_lo + 1;
    ms__cpu_team_for(ws->team, nc, ms__split_list_chunk, &x);
    memset(hist, 0, (size_t)nu * sizeof *hist);
    memset(hcnt, 0, (size_t)nu * sizeof *hcnt);
    int32_t n = 0;
    for (int32_t c = 0; c < nc; c++) {
        const uint64_t *ch = ws->c_fhist + (size_t)c * MS__FINE_UNITS;
        const uint32_t *cc = ws->c_fhcnt + (size_t)c * MS__FINE_UNITS;
        for (int32_t u = 0; u < nu; u++) {
            hist[u] += ch[u];
            hcnt[u] += cc[u];
        }
        const int32_t lo = c * MS_FAST_CHUNK, cn = ws->c_n[c];
        for (int32_t i = 0; i < cn; i++) { /* moved down to follow the previous chunks' (n <= lo) */
            band[n + i] = band[lo + i] + lo;
            ws->band_bk[n + i] = ws->band_bk[lo + i];
        }
        n += cn;
    }
    *n_band = n;
}

/* band_hist over the team: the same hist, hcnt, mass_top, cnt_top and list as one band_hist call */
static void ms__split_band_hist(ms_fast_ws *ws, const ms_fast_kernels *K, const float *y, const float *w, int32_t V,
                                float m, int32_t b_lo, int32_t b_hi, uint64_t *hist, uint32_t *hcnt,
                                uint64_t *mass_top, int64_t *cnt_top, int32_t *band, int32_t *n_band) {
    ms_split_ctx x = {K, ws, V, NULL, NULL, 1.0f, 1.0f, m, (float *)y, (float *)w, b_lo, b_hi, band, 0.0f, 0.0f, 0.0f, 0, 0, NULL};
    const int32_t nc = ms__n_chunks(V);
    ms__cpu_team_for(ws->team, nc, ms__split_band_chunk, &x);
    memset(hist + b_lo, 0, (size_t)(b_hi - b_lo + 1) * sizeof *hist);
    memset(hcnt + b_lo, 0, (size_t)(b_hi - b_lo + 1) * sizeof *hcnt);
    uint64_t top = 0;
    int64_t ntop = 0;
    int32_t n = 0;
    for (int32_t c = 0; c < nc; c++) {
        const uint64_t *ch = ws->c_hist + (size_t)c * MS_FAST_NB;
        const uint32_t *cc = ws->c_hcnt + (size_t)c * MS_FAST_NB;
        for (int32_t b = b_lo; b <= b_hi; b++) {
            hist[b] += ch[b];
            hcnt[b] += cc[b];
        }
        top += ws->c_mass[c];
        ntop += ws->c_cnt[c];
        /* the chunk's list, moved down to follow the previous ones (n <= lo: never overtakes) */
        const int32_t lo = c * MS_FAST_CHUNK, cn = ws->c_n[c];
        for (int32_t i = 0; i < cn; i++) {
            band[n + i] = band[lo + i] + lo;
            ws->band_bk[n + i] = ws->band_bk[lo + i];
        }
        n += cn;
    }
    *mass_top = top;
    *cnt_top = ntop;
    *n_band = n;
}

/* band_hist over [b_lo, b_hi] (over the team when split) into bd: its units are the buckets. */
static void ms__band_hist_any(ms_fast_ws *ws, const ms_fast_kernels *K, bool split, const float *y, const float *w,
                              int32_t V, float m, int32_t b_lo, int32_t b_hi, int32_t *band, ms_band *bd) {
    if (split)
        ms__split_band_hist(ws, K, y, w, V, m, b_lo, b_hi, ws->hist, ws->hcnt, &bd->mass_top, &bd->cnt_top, band,
                            &bd->n);
    else
        K->band_hist(y, w, V, m, MS__SCALE, b_lo, b_hi, ws->hist, ws->hcnt, &bd->mass_top, &bd->cnt_top, band,
                     ws->band_bk, &bd->n, ws->band_work);
    bd->hist = ws->hist + b_lo;
    bd->hcnt = ws->hcnt + b_lo;
    bd->n_units = b_hi - b_lo + 1;
    bd->uscale = MS__SCALE;
    bd->u_lo = b_lo;
    bd->u_top = MS_FAST_NB - 1;
    bd->pick_base = (uint32_t)b_lo;
    bd->b_lo = b_lo;
    bd->last = b_hi == MS_FAST_NB - 1;
}

/* Which filters a row applies and whether a top-k cut comes first: ms__fast_row's path, and the
 * split decision below, read these same facts from one place. */
typedef struct ms_fast_order {
    int32_t k;       /* top-k's k when it cuts (< V), else 0 */
    int32_t k2;      /* max(k, top-p's min_keep) when k > 0: top-k in the HF order */
    bool top_p_on, minp_on;
    bool topk_first; /* a top-k cut comes first (pass 1 lists the tokens above its guessed threshold) */
} ms_fast_order;

static ms_fast_order ms__fast_order(const ms_row_job *job) {
    const ms_req_config *cfg = job->cfg;
    const bool filt = job->apply_filters;
    ms_fast_order o;
    o.k = filt && cfg->top_k < job->V ? cfg->top_k : 0;
    o.top_p_on = filt && cfg->top_p < 1.0f;
    o.k2 = o.k > 0 ? (o.k > cfg->top_p_min_keep ? o.k : cfg->top_p_min_keep) : 0;
    o.minp_on = filt && cfg->min_p > 0.0f;
    o.topk_first = !o.minp_on && o.k > 0 && (!cfg->top_p_first || (!o.top_p_on && o.k2 < job->V));
    return o;
}

/* The rows whose every token gets an exp (top-p first without min-p, or no filter): the ones a
 * team pays for (the exp pass and band_hist, ~80 % of a ~250-450 us row at V = 151936). */
bool ms__fast_row_splits(const ms_row_job *job) {
    const ms_fast_order o = ms__fast_order(job);
    return job->V >= MS_FAST_TEAM_MIN_V && job->cfg->temperature >= MS_GREEDY_TEMPERATURE && !o.minp_on &&
           !o.topk_first;
}

/* ---- the row ------------------------------------------------------------------------------------ */

static void ms__fast_greedy(const ms_row_job *job, const ms_fast_kernels *K, const float *y, float mx, bool floor,
                            ms_row_out *out) {
    const int32_t V = job->V;
    out->greedy = true;
    if (ms__is_neg_inf(mx)) return; /* empty row */
    const int32_t best = K->first_ge(y, V, mx); /* nothing exceeds mx: the first equal to it */
    int32_t pick = best;
    if (floor) {
        int32_t best_free = -1;
        if (!ms__bit_get(job->stop_mask, best)) {
            best_free = best; /* first of the maximal value, and not a stop id */
        } else {
            for (int32_t t = 0; t < V; t++) {
                if (ms__is_neg_inf(y[t]) || ms__bit_get(job->stop_mask, t)) continue;
                if (best_free < 0 || y[t] > y[best_free]) best_free = t;
            }
        }
        out->floor_active = best_free >= 0;
        if (best_free >= 0) pick = best_free;
    }
    out->token = pick;
    out->status = MS_ROW_OK;
}

/* min-p then top-k over pass 1's list ids[0, n) (x >= tau_pre; every token left out has y <= out_y):
 * with yk the k-th largest y of the list, if yk > out_y and every listed token with y >= yk passes
 * min-p, those (at least k) survivors lie strictly above every other token, listed or not, so top-k
 * cuts all the others: the list shrinks to them (ids stay ascending, so ties and the draw walk in the
 * same order) and only they get an exp, not the ~10k/ns x more pass 1 listed. The k-th largest
 * survivor is then yk itself, so cand_top_k keeps the same set. Returns false (ids untouched) when
 * the check fails. Scratch: s->q (as floats) and s->keys, both free until cand_fill. */
/* The j-th largest (1-based, 1 <= j <= n) of a[0, n) (no NaN), by an MSD radix select over
 * order-preserving keys: four passes of 8-bit digit counts over the shrinking candidates, with no
 * data-dependent branch per element (the quickselect mispredicted about every other compare: ~7 %
 * of a flat row at V=151936, perf). keys: room for n. Equal floats of different bits (-0, +0)
 * give either one: the callers compare values, never bits. */
static float ms__kth_largest_radix(const float *a, int32_t n, int32_t j, uint32_t *keys) {
    uint32_t all_and = ~0u, all_or = 0;
    for (int32_t i = 0; i < n; i++) {
        const uint32_t u = ms__f2u(a[i]);
        keys[i] = u & 0x80000000u ? ~u : u | 0x80000000u; /* larger float, larger key */
        all_and &= keys[i];
        all_or |= keys[i];
    }
    /* Round 4: the digits start at the highest bit where the keys differ (pass 1's list lies in a
     * narrow range: its top 8 bits, sign and exponent, were one value, a wasted pass), and the
     * passes stop once at most 16 candidates remain: the rest is a sort of those. */
    const uint32_t diff = all_and ^ all_or;
    if (!diff) return a[0];
    const int top = 31 - __builtin_clz(diff); /* the highest differing bit */
    int32_t m = n;
    for (int shift = top - 7; m > 16; shift -= 8) {
        if (shift < 0) shift = 0;
        uint32_t count[256] = {0};
        for (int32_t i = 0; i < m; i++) count[(keys[i] >> shift) & 255u]++;
        int32_t b = 255;
        while ((int32_t)count[b] < j) j -= (int32_t)count[b--]; /* j <= the candidates left: stops */
        int32_t mm = 0;
        for (int32_t i = 0; i < m; i++) {
            keys[mm] = keys[i];
            mm += ((keys[i] >> shift) & 255u) == (uint32_t)b;
        }
        m = mm;
        if (shift == 0) break; /* every bit decided: the candidates are equal */
    }
    /* the j-th largest of the m candidates left (all keys, not just the digits decided so far) */
    for (int32_t i = 1; i < m; i++) {
        const uint32_t v = keys[i];
        int32_t k = i;
        while (k > 0 && keys[k - 1] < v) {
            keys[k] = keys[k - 1];
            k--;
        }
        keys[k] = v;
    }
    const uint32_t key = keys[j - 1];
    return ms__u2f(key & 0x80000000u ? key & 0x7fffffffu : ~key);
}

static bool ms__fast_trim_top_k(ms_scratch *s, int32_t *ids, int32_t n, int32_t k, float T, float m, float min_p,
                                float out_y, int32_t *n_out) {
    float *ys = (float *)s->q;
    for (int32_t i = 0; i < n; i++) ys[i] = s->y[ids[i]] / T;
    const float yk = ms__kth_largest_radix(ys, n, k, (uint32_t *)s->keys);
    if (!(yk > out_y)) return false;
    for (int32_t i = 0; i < n; i++)
        if (ys[i] >= yk && !(ms__exp(ys[i] - m) >= min_p)) return false;
    int32_t nh = 0;
    for (int32_t i = 0; i < n; i++)
        if (ys[i] >= yk) ids[nh++] = ids[i];
    *n_out = nh;
    return true;
}

/* Pass 1 again, storing the whole copy: after a sparse pass 1 (only the listed tokens in y), for a
 * fallback that needs every token. The same operations on the same inputs: the same values. */
static void ms__fast_full_copy(const ms_row_job *job, const ms_fast_kernels *K, const uint64_t *seen, float r,
                               float *y) {
    (void)K->load_max(job->row, job->dtype, job->V, seen, r, y, 0.0f, NULL, NULL, 0);
}

void ms__fast_row(const ms_row_job *job, ms_scratch *s, bool draw, ms_row_out *out) {
    const ms_req_config *cfg = job->cfg;
    const int32_t V = job->V;
    const ms_fast_kernels *K = ms__level_kernels(ms__cpu_fast_level());
    const bool floor = job->stop_mask && job->n < (uint64_t)cfg->min_tokens;
    const float r = cfg->repetition_penalty;

    if (!s->fast || V > ((ms_fast_ws *)s->fast)->n_blocks * MS_FAST_BLOCK) {
        ms__ref_row(job, s, draw, out); /* a scratch made without the workspace (cannot happen via ms_cpu.c) */
        return;
    }
    memset(out, 0, sizeof *out);
    out->token = -1;
    out->status = MS_ROW_EMPTY;

    /* pass 1 and step 1: the row from memory into s->y, penalised; its max */
    const bool presence = r != 1.0f && cfg->repetition_window == 0 && job->apply_penalty && job->seen;
    /* the filter order decides whether a top-k cut comes first (then its sampled threshold is
     * guessed now and pass 1 lists the tokens above it) */
    const bool filt = job->apply_filters;
    const ms_fast_order o = ms__fast_order(job);
    const int32_t k = o.k, k2 = o.k2;
    const bool top_p_on = o.top_p_on, minp_on = o.minp_on, topk_first = o.topk_first;
    const int32_t kk = minp_on ? (k > 0 && !cfg->top_p_first ? k : 0) : (topk_first ? (cfg->top_p_first ? k2 : k) : 0);
    int32_t *pre = (int32_t *)s->w, n_pre = -1; /* ids with x >= tau_pre from pass 1 (c.id below) */
    float tau_pre = ms__neg_inf();
    const uint64_t *seen = presence ? job->seen : NULL;
    float mx;
    const int32_t P = (V / MS__PRE_DIV) & ~63; /* a prefix, whole bitset words */
    const bool windowed = r != 1.0f && cfg->repetition_window > 0 && job->hist && job->hist_len > 0;
    /* Whether s->y past the prefix holds only the listed tokens: the second part of a two-part
     * pass 1 lists without writing the copy (the later passes only read the listed tokens;
     * 7/8 of the row's stores saved: 73-79 -> 69-72 us/row flat at V=151936, docs/cpu.md). A fallback that needs every
     * token first rebuilds the copy from the caller's row (ms__fast_full_copy: same values). */
    bool y_sparse = false;
    /* Round 9: a row on the exp path (every token gets an exp: top-p first without min-p, or no
     * filter) whose y before the division is sanitize(x) (fp32, nothing penalised) makes no copy:
     * pass 1 takes the max of the caller's row alone and the exp pass reads that row (valid
     * during the call), writing y = sanitize(x) / T; its V stores are saved. */
    const bool direct = atomic_load_explicit(&ms__fast_direct, memory_order_relaxed) && job->dtype == MS_DTYPE_F32 && !seen && !windowed && !minp_on &&
                        !topk_first && cfg->temperature >= MS_GREEDY_TEMPERATURE;
    const float *xsrc = direct ? (const float *)job->row : s->y; /* the exp pass's input */
    if (direct) {
        atomic_fetch_add_explicit(&ms__direct_rows, 1, memory_order_relaxed);
        /* the max of sanitize(x) is the max of x: ms__vmax and the scalar > never take a NaN */
        mx = ms__split_on((ms_fast_ws *)s->fast, V)
                 ? ms__split_load_max((ms_fast_ws *)s->fast, job, K, NULL, 1.0f, NULL) /* y NULL: the max alone */
                 : K->max(xsrc, V);
    } else if (kk > 0 && cfg->temperature >= MS_GREEDY_TEMPERATURE && V >= 16384) {
        /* pass 1 in two parts: the prefix, a top-k threshold guessed from it (L1/L2-resident), then
         * the rest listing the tokens above the guess as it streams; the prefix is listed from the
         * copy. One read of the row; the list is checked exactly below. */
        const size_t es = job->dtype == MS_DTYPE_F32 ? 4 : 2;
        mx = K->load_max(job->row, job->dtype, P, seen, r, s->y, 0.0f, NULL, NULL, 0);
        tau_pre = ms__guess_topk_tau_n(s->y, P, V, kk);
        if (!ms__is_neg_inf(tau_pre)) {
            int32_t n1 = K->select_ge(s->y, P, tau_pre, pre), n2 = 0;
            float mx2 = K->load_max((const char *)job->row + (size_t)P * es, job->dtype, V - P, seen ? seen + P / 64 : NULL,
                                    r, s->y + P, tau_pre, pre + n1, &n2, !windowed);
            y_sparse = !windowed;
            for (int32_t i = n1; i < n1 + n2; i++) pre[i] += P;
            n_pre = n1 + n2;
            if (mx2 > mx) mx = mx2;
        } else {
            float mx2 = K->load_max((const char *)job->row + (size_t)P * es, job->dtype, V - P, seen ? seen + P / 64 : NULL,
                                    r, s->y + P, 0.0f, NULL, NULL, 0);
            if (mx2 > mx) mx = mx2;
        }
    } else if (ms__split_on((ms_fast_ws *)s->fast, V)) {
        mx = ms__split_load_max((ms_fast_ws *)s->fast, job, K, seen, r, s->y);
    } else {
        mx = K->load_max(job->row, job->dtype, V, seen, r, s->y, 0.0f, NULL, NULL, 0);
    }
    if (windowed) {
        /* 1b, the reference's own code, on the copy; then the max again */
        ms__window_penalty(job, s->y, s->count);
        mx = K->max(s->y, V);
        n_pre = -1; /* the values moved: pass 1's list no longer holds */
    }

    if (cfg->temperature < MS_GREEDY_TEMPERATURE) {
        ms__fast_greedy(job, K, s->y, mx, floor, out);
        return;
    }
    if (ms__is_neg_inf(mx)) return; /* empty row */
    const float T = cfg->temperature;
    const float m = mx / T; /* = max of y / T: correctly rounded division by T > 0 is monotone */
    if (ms__is_pos_inf(m)) {
        ms__ref_row(job, s, draw, out); /* +inf logits share the mass: the reference's easy case */
        return;
    }

    ms_cand c = {0, (int32_t *)s->w, s->y, s->q, s->keep, s->keys, V};

    if (filt && cfg->min_p > 0.0f) {
        /* min-p first: only x above tau_x can reach w >= min_p (margins far above exp's 1e-7) */
        const double L = log((double)cfg->min_p);
        const double ty = (double)m + L - 1e-5 * (1.0 + fabs((double)m) + fabs(L));
        const double tx = (double)T * ty - 1e-5 * (1e-30 + fabs((double)T * ty));
        const float tau_minp = ms__float_below(tx);
        if (n_pre >= 0) {
            /* pass 1 listed x >= tau_pre (the sampled top-k threshold) */
            if (tau_pre > tau_minp) {
                /* accepted when k min-p survivors lie strictly above every token left out (as below) */
                const float out_y = tau_pre / T;
                if (n_pre >= k && ms__fast_trim_top_k(s, pre, n_pre, k, T, m, cfg->min_p, out_y, &c.n)) {
                    ms__cand_fill(&c, s, T, m, cfg->min_p);
                    ms__cand_finish(job, s, &c, draw, floor, out);
                    return;
                }
                int32_t above = 0;
                for (int32_t i = 0; i < n_pre && above < k; i++) {
                    const float yy = s->y[pre[i]] / T;
                    above += yy > out_y && ms__exp(yy - m) >= cfg->min_p;
                }
                if (above >= k) {
                    c.n = n_pre;
                    ms__cand_fill(&c, s, T, m, cfg->min_p);
                    ms__cand_finish(job, s, &c, draw, floor, out);
                    return;
                }
                if (y_sparse) ms__fast_full_copy(job, K, seen, r, s->y);
                c.n = K->select_ge(s->y, V, tau_minp, c.id);
            } else {
                c.n = 0; /* the list holds every min-p candidate: keep those */
                for (int32_t i = 0; i < n_pre; i++)
                    if (s->y[pre[i]] >= tau_minp) c.id[c.n++] = pre[i];
            }
            ms__cand_fill(&c, s, T, m, cfg->min_p);
            ms__cand_finish(job, s, &c, draw, floor, out);
            return;
        }
        if (k > 0 && !cfg->top_p_first) {
            /* top-k follows: a token needs fewer than k min-p survivors strictly above it. Take
             * the sampled top-k threshold when it is higher; if at least k survivors lie strictly
             * above every token left out (their y <= tau / T), the left-out ones are all cut by
             * top-k and the list decides the rest exactly. Otherwise use the min-p list. */
            const float tau = ms__guess_topk_tau(s->y, V, k);
            if (tau > tau_minp) {
                c.n = K->select_ge(s->y, V, tau, c.id);
                const float out_y = tau / T;
                int32_t above = 0;
                for (int32_t i = 0; i < c.n && above < k; i++) {
                    const float yy = s->y[c.id[i]] / T;
                    above += yy > out_y && ms__exp(yy - m) >= cfg->min_p;
                }
                if (above >= k) {
                    ms__cand_fill(&c, s, T, m, cfg->min_p);
                    ms__cand_finish(job, s, &c, draw, floor, out);
                    return;
                }
            }
        }
        c.n = K->select_ge(s->y, V, tau_minp, c.id);
        ms__cand_fill(&c, s, T, m, cfg->min_p);
        ms__cand_finish(job, s, &c, draw, floor, out);
        return;
    }
    if (topk_first) {
        float tau;
        if (n_pre >= 0) {
            tau = tau_pre;
            c.n = n_pre;
        } else {
            tau = ms__guess_topk_tau(s->y, V, kk);
            c.n = K->select_ge(s->y, V, tau, c.id);
        }
        if (c.n >= kk && !ms__is_neg_inf(tau)) {
            /* every token whose y reaches the kk-th largest y must be listed: those left out have
             * x < tau, so y <= tau / T; the kk-th largest y is that of the kk-th largest x */
            float *vals = (float *)s->keys;
            for (int32_t i = 0; i < c.n; i++) vals[i] = s->y[c.id[i]];
            const float yk = ms__kth_largest(vals, c.n, kk) / T;
            if (!(yk > tau / T)) c.n = 0;
        } else {
            c.n = 0;
        }
        if (c.n == 0) {
            if (y_sparse) ms__fast_full_copy(job, K, seen, r, s->y);
            c.n = K->select_ge(s->y, V, ms__neg_inf(), c.id);
        }
        ms__cand_fill(&c, s, T, m, 0.0f);
        ms__cand_finish(job, s, &c, draw, floor, out);
        return;
    }

    /* every token has a mass: y = x / T, w = exp(y - m), the exact total and block masses */
    ms_fast_ws *ws = (ms_fast_ws *)s->fast;
    uint64_t *bsum = ws->bsum;
    const bool split = ms__split_on(ws, V);
    if (!top_p_on) { /* no filter left: every token is kept */
        const uint64_t M = split ? ms__split_exp_mass(ws, K, xsrc, s->y, s->w, V, T, m)
                                 : K->exp_mass(xsrc, s->y, s->w, V, T, m, bsum);
        ms__thresh_finish(job, s, K, ms__neg_inf(), M, bsum, draw, floor, out);
        return;
    }
    const uint64_t p_q = ms__top_p_q(cfg->top_p);
    const double pf = (double)p_q / 4294967296.0;
    /* round 7: the bracket's sample before the exp pass; in a flat row it picks the band's first
     * bucket b_e now, the exp pass sums the exact mass above it, and the band's pass reads y alone */
    const int32_t ns = ms__top_p_sample(ws, K, xsrc, V, T, m);
    const int32_t b_e = ms__top_p_pre_edge(ws, ns, V, pf);
    const float y_e = b_e > 0 ? ms__fast_bucket_cut(m, b_e) : ms__pos_inf();
    ms_band bd;
    bd.mass_top = 0;
    bd.cnt_top = 0;
    const uint64_t M =
        b_e > 0 ? (split ? ms__split_exp_mass_top(ws, K, xsrc, s->y, s->w, V, T, m, y_e, &bd.mass_top, &bd.cnt_top)
                         : K->exp_mass_top(xsrc, s->y, s->w, V, T, m, bsum, y_e, &bd.mass_top, &bd.cnt_top))
        : split ? ms__split_exp_mass(ws, K, xsrc, s->y, s->w, V, T, m)
                : K->exp_mass(xsrc, s->y, s->w, V, T, m, bsum);
    int32_t b_lo, b_hi;
    ms__top_p_bracket(ws, ns, V, pf, M, &b_lo, &b_hi);
    float Y = ms__pos_inf();
    uint64_t kept = 0; /* the exact mass of the tokens with y >= Y (from the threshold's search) */
    int32_t *band = (int32_t *)s->keys + V; /* the upper half of keys (V entries: 2V ids) */
    bd.list = band;
    bd.list_bk = ws->band_bk;
    /* the band from b_e (its edge held), or a peaked row's count-rule band from the top (b_lo = 0:
     * nothing above it) when it is sparse: its ~8192 tokens at most 1/8 of the row (band_list's
     * per-token work, the bucket from a gathered y, made a V = 32000 row's quarter-row band 4 %
     * slower than band_hist's vector buckets) */
    const bool listed = b_e > 0 ? !(bd.cnt_top > 0 && !ms__top_p_keeps(bd.mass_top, M, p_q))
                                : ns > 0 && b_lo == 0 && V >= 8 * 8192;
    if (listed) {
        /* every token above b_e is kept (the mass above each is below p M): the band starts there,
         * its end from the sample and the exact M as before; its units are the buckets split in F
         * (as many as fit the workspace: 16 for bands of up to 64 buckets) */
        if (b_e > 0) b_lo = b_e;
        if (b_hi < b_lo) b_hi = b_lo;
        int32_t F = 16;
        while (F > 1 && (b_hi - b_lo + 1) * F > MS__FINE_UNITS) F /= 2;
        bd.uscale = MS__SCALE * (float)F;
        bd.u_lo = b_lo * F;
        bd.u_top = (b_hi + 1) * F - 1;
        bd.n_units = bd.u_top - bd.u_lo + 1;
        bd.pick_base = 0;
        bd.b_lo = b_lo;
        bd.last = b_hi == MS_FAST_NB - 1;
        bd.hist = ws->fhist;
        bd.hcnt = ws->fhcnt;
        const float y_lo = b_hi + 1 < MS_FAST_NB ? ms__fast_bucket_cut(m, b_hi + 1) : ms__neg_inf();
        if (split) {
            ms__split_band_list(ws, K, s->y, s->w, V, m, bd.uscale, y_lo, y_e, bd.u_lo, bd.u_top, ws->fhist, ws->fhcnt,
                                band, &bd.n);
            atomic_fetch_add_explicit(&ms__tp_counts[3], 1, memory_order_relaxed);
        } else {
            K->band_list(s->y, s->w, V, m, bd.uscale, y_lo, y_e, bd.u_lo, bd.u_top, ws->fhist, ws->fhcnt, band,
                         ws->band_bk, &bd.n);
        }
        atomic_fetch_add_explicit(&ms__tp_counts[b_e > 0 ? 0 : 4], 1, memory_order_relaxed);
    } else {
        if (b_e > 0) atomic_fetch_add_explicit(&ms__tp_counts[1], 1, memory_order_relaxed); /* the edge failed */
        ms__band_hist_any(ws, K, split, s->y, s->w, V, m, b_lo, b_hi, band, &bd);
    }
    for (int attempt = 0;; attempt++) {
        const int rc = ms__top_p_threshold(job, s, K, m, M, p_q, cfg->top_p_min_keep, &bd, &Y, &kept);
        if (rc == 0) break;
        if (attempt == 0 && listed)
            atomic_fetch_add_explicit(&ms__tp_counts[2], 1, memory_order_relaxed);
        /* the sample misled: widen the side that failed (then both); b_lo = 0, b_hi = NB - 1 always
         * decides. Undecided means every token up to b_hi is kept, so the next range starts there. */
        if (rc == -1 || attempt > 0) b_lo = 0;
        if (rc == -2 && attempt == 0) b_lo = b_hi + 1 < MS_FAST_NB ? b_hi + 1 : b_lo;
        if (rc == -2 || attempt > 0) b_hi = MS_FAST_NB - 1;
        ms__band_hist_any(ws, K, split, s->y, s->w, V, m, b_lo, b_hi, band, &bd);
    }
    bool kept_ok = !ms__is_pos_inf(Y);
    if (cfg->top_p_first && k2 > 0 && k2 < V) {
        /* top-p's kept set is an upper set in y, so top-k over it keeps the tokens of the whole
         * row's top-k: the intersection of two upper sets, the higher threshold */
        float yk = ms__kth_value(K, s->y, V, k2, (int32_t *)s->keys, (float *)s->q);
        if (yk > Y) {
            Y = yk;
            kept_ok = false;
        }
    }
    /* the kept mass: when Y's unit uY is in the band, every token above the band is kept (mass_top),
     * so is every token of the band's units before uY (whole units: their exact masses are in
     * hist), and none after uY; only uY's own tokens are tested (round 4: no pass over the row).
     * Y is a token's y (or -inf): at most m, so its unit is >= 0 in band terms iff it is not above
     * the band's first bucket */
    uint64_t total = kept;
    const int32_t bY = ms__coarse_bucket(m, Y);
    if (kept_ok) {
        /* the search's own sum (round 5: the loop below over Y's bucket mispredicted its y >= Y) */
    } else if (!ms__is_pos_inf(Y) && bY >= b_lo && bY <= b_hi) {
        const int32_t uY = ms__band_unit(&bd, m, Y);
        total = bd.mass_top;
        for (int32_t u = 0; u < uY; u++) total += bd.hist[u];
        int32_t *ids = (int32_t *)s->keys; /* the lower half: free again */
        const int32_t n = K->band_pick(band, ws->band_bk, bd.n, bd.pick_base + (uint32_t)uY, ids);
        for (int32_t i = 0; i < n; i++)
            if (s->y[ids[i]] >= Y) total += ms__mass(s->w[ids[i]]);
    } else {
        total = K->mass_ge(s->y, s->w, 0, V, Y);
    }
    ms__thresh_finish(job, s, K, Y, total, NULL, draw, floor, out);
}
