/*
 * ms_cpu_ref.c: the straightforward CPU pipeline of SPEC section 2, one row at a time.
 *
 * Written to be obviously right rather than fast: it sorts the survivors for top-k and top-p.
 * It is the oracle of the fast paths (CPU and CUDA) and the baseline of the benchmarks, so keep
 * it plain: every step below is one numbered rule of the SPEC.
 */
#include <stdlib.h>
#include <string.h>

#include "ms_internal.h"
#include "ms_math.h"

static float ms__load(const void *row, ms_dtype dtype, int32_t t) {
    switch (dtype) {
    case MS_DTYPE_F16: return ms__f16_to_f32(((const uint16_t *)row)[t]);
    case MS_DTYPE_BF16: return ms__bf16_to_f32(((const uint16_t *)row)[t]);
    default: return ((const float *)row)[t];
    }
}

/* Ascending in-place heapsort. Not qsort: glibc's qsort takes a buffer from malloc for arrays of
 * 1 KiB and more, and the library must not allocate while sampling (issue 7; caught by
 * tests/alloc). The keys are distinct (the id is in the low bits), so any correct sort gives the
 * same order. */
static void ms__sift_down(uint64_t *a, size_t root, size_t n) {
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && a[child + 1] > a[child]) child++;
        if (a[root] >= a[child]) return;
        uint64_t tmp = a[root];
        a[root] = a[child];
        a[child] = tmp;
        root = child;
    }
}

void ms__heapsort_u64(uint64_t *a, size_t n) {
    for (size_t i = n / 2; i-- > 0;) ms__sift_down(a, i, n);
    for (size_t end = n; end-- > 1;) {
        uint64_t tmp = a[0];
        a[0] = a[end];
        a[end] = tmp;
        ms__sift_down(a, 0, end);
    }
}

/* Sorts the current survivors by y descending (ties by id); returns their count. */
static int32_t ms__sorted_survivors(const float *y, const uint8_t *keep, int32_t V, uint64_t *keys) {
    int32_t n = 0;
    for (int32_t t = 0; t < V; t++)
        if (keep[t]) keys[n++] = ms__desc_key(y[t], (uint32_t)t);
    ms__heapsort_u64(keys, (size_t)n);
    return n;
}

#define MS__KEY_ID(k) ((int32_t)(uint32_t)(k))
#define MS__KEY_VAL(k) ((k) >> 32)

/* top-k: keep t iff fewer than k survivors have a strictly greater y (ties with the k-th kept). */
static void ms__top_k(const float *y, uint8_t *keep, int32_t V, int32_t k, uint64_t *keys) {
    int32_t n = ms__sorted_survivors(y, keep, V, keys);
    int32_t group_start = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i > 0 && MS__KEY_VAL(keys[i]) != MS__KEY_VAL(keys[i - 1])) group_start = i;
        if (group_start >= k) keep[MS__KEY_ID(keys[i])] = 0;
    }
}

/* top-p: keep t iff 2^32 * M(>y_t) < p_q * M, or fewer than min_keep survivors are above t. */
static void ms__top_p(const float *y, const uint64_t *q, uint8_t *keep, int32_t V, uint64_t p_q,
                      int32_t min_keep, uint64_t *keys) {
    int32_t n = ms__sorted_survivors(y, keep, V, keys);
    uint64_t total = 0;
    for (int32_t i = 0; i < n; i++) total += q[MS__KEY_ID(keys[i])];
    uint64_t running = 0, above = 0;
    int32_t group_start = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i > 0 && MS__KEY_VAL(keys[i]) != MS__KEY_VAL(keys[i - 1])) {
            group_start = i;
            above = running;
        }
        int32_t t = MS__KEY_ID(keys[i]);
        running += q[t];
        if (!(ms__top_p_keeps(above, total, p_q) || group_start < min_keep)) keep[t] = 0;
    }
}

void ms__window_penalty(const ms_row_job *job, float *x, int32_t *count) {
    const ms_req_config *cfg = job->cfg;
    const float r = cfg->repetition_penalty;
    if (!job->hist) return;
    int32_t w = cfg->repetition_window < job->hist_len ? cfg->repetition_window : job->hist_len;
    for (int32_t i = 0; i < w; i++) {
        int32_t pos = (job->hist_head - 1 - i + 2 * job->hist_cap) % job->hist_cap;
        count[job->hist[pos]]++;
    }
    for (int32_t i = 0; i < w; i++) {
        int32_t pos = (job->hist_head - 1 - i + 2 * job->hist_cap) % job->hist_cap;
        int32_t t = job->hist[pos];
        if (count[t] > 0) {
            x[t] = ms__penalize(x[t], ms__pow_n(r, count[t]));
            count[t] = 0; /* once per token; leaves the array zeroed for the next row */
        }
    }
}

static void ms__penalties(const ms_row_job *job, float *x, int32_t *count) {
    const ms_req_config *cfg = job->cfg;
    float r = cfg->repetition_penalty;
    if (r == 1.0f) return; /* x / 1 and x * 1 are x exactly */
    if (cfg->repetition_window > 0) {
        /* 1b: f = r^n, n = occurrences among the last w committed tokens */
        ms__window_penalty(job, x, count);
    } else if (job->apply_penalty && job->seen) {
        /* 1a: f = r once for every token of the seen set */
        for (int32_t t = 0; t < job->V; t++)
            if (ms__bit_get(job->seen, t)) x[t] = ms__penalize(x[t], r);
    }
}

void ms__ref_row(const ms_row_job *job, ms_scratch *s, bool draw, ms_row_out *out) {
    const ms_req_config *cfg = job->cfg;
    const int32_t V = job->V;
    float *y = s->y;
    uint64_t *q = s->q;
    uint8_t *keep = s->keep;
    const bool floor = job->stop_mask && job->n < (uint64_t)cfg->min_tokens;

    memset(out, 0, sizeof *out);
    out->token = -1;
    out->status = MS_ROW_EMPTY;

    for (int32_t t = 0; t < V; t++) y[t] = ms__sanitize(ms__load(job->row, job->dtype, t));

    /* 1. penalties */
    ms__penalties(job, y, s->count);

    /* 2. greedy: argmax (lowest id on ties) after the min-tokens floor */
    if (cfg->temperature < MS_GREEDY_TEMPERATURE) {
        int32_t best = -1, best_free = -1;
        for (int32_t t = 0; t < V; t++) {
            if (ms__is_neg_inf(y[t])) continue;
            if (best < 0 || y[t] > y[best]) best = t;
            if (floor && !ms__bit_get(job->stop_mask, t) && (best_free < 0 || y[t] > y[best_free])) best_free = t;
        }
        out->greedy = true;
        out->floor_active = floor && best_free >= 0;
        out->token = out->floor_active ? best_free : best;
        out->status = out->token < 0 ? MS_ROW_EMPTY : MS_ROW_OK;
        return;
    }

    /* 3. temperature */
    const float T = cfg->temperature;
    float m = ms__neg_inf();
    for (int32_t t = 0; t < V; t++) {
        y[t] = y[t] / T;
        if (y[t] > m) m = y[t];
    }
    if (ms__is_neg_inf(m)) return; /* no finite or +inf logit: empty row */

    /* weights w = exp(y - max y) and masses q = floor(w 2^40); +inf logits share the mass */
    const bool inf_row = ms__is_pos_inf(m);
    float *w = s->w;
    for (int32_t t = 0; t < V; t++) {
        w[t] = inf_row ? (ms__is_pos_inf(y[t]) ? 1.0f : 0.0f) : ms__exp(y[t] - m);
        q[t] = ms__mass(w[t]);
        keep[t] = 1;
    }

    /* 4. filters */
    if (job->apply_filters) {
        if (cfg->min_p > 0.0f)
            for (int32_t t = 0; t < V; t++) keep[t] = w[t] >= cfg->min_p;
        const int32_t k = cfg->top_k < V ? cfg->top_k : 0;
        const bool top_p_on = cfg->top_p < 1.0f;
        const uint64_t p_q = ms__top_p_q(cfg->top_p);
        if (!cfg->top_p_first) {
            if (k > 0) ms__top_k(y, keep, V, k, s->keys);
            if (top_p_on) ms__top_p(y, q, keep, V, p_q, cfg->top_p_min_keep, s->keys);
        } else {
            if (top_p_on) ms__top_p(y, q, keep, V, p_q, cfg->top_p_min_keep, s->keys);
            int32_t k2 = k > 0 ? (k > cfg->top_p_min_keep ? k : cfg->top_p_min_keep) : 0;
            if (k2 > 0 && k2 < V) ms__top_k(y, keep, V, k2, s->keys);
        }
    }

    /* 5. min-tokens floor: stop ids get no mass, unless nothing would be left */
    if (floor) {
        uint64_t free_mass = 0;
        for (int32_t t = 0; t < V; t++)
            if (keep[t] && !ms__bit_get(job->stop_mask, t)) free_mass += q[t];
        if (free_mass > 0) {
            for (int32_t t = 0; t < V; t++)
                if (ms__bit_get(job->stop_mask, t)) keep[t] = 0;
            out->floor_active = true;
        }
    }

    uint64_t total = 0;
    for (int32_t t = 0; t < V; t++)
        if (keep[t]) total += q[t];
    out->total_mass = total;
    if (total == 0) return; /* cannot happen for a row with a finite logit; kept defensive */
    out->status = MS_ROW_OK;
    if (!draw) return;

    /* 6. draw: the smallest id whose running kept mass exceeds floor(r M / 2^64) */
    const uint64_t target = ms__draw_target(ms__draw_bits(cfg->seed, job->n, job->row_k), total);
    uint64_t running = 0;
    for (int32_t t = 0; t < V; t++) {
        if (!keep[t]) continue;
        running += q[t];
        if (running > target) {
            out->token = t;
            return;
        }
    }
}
