/* ms_internal.h: the resource's state and the contract between it and its backends. */
#ifndef MS_INTERNAL_H
#define MS_INTERNAL_H

#include <stdarg.h>

#include "msampler.h"

#define MS_ERRMSG_SIZE 256

/* One resident request. */
typedef struct ms_slot {
    int64_t rid;
    int32_t used;
    int32_t hist_len;  /* tokens in the ring (<= spec.max_repetition_window) */
    int32_t hist_head; /* index where the next token goes */
    ms_req_config cfg;
    uint64_t n;        /* committed tokens */
} ms_slot;

/* Everything the per-row pipeline (SPEC section 2) needs about one row. */
typedef struct ms_row_job {
    const ms_req_config *cfg;
    uint64_t n;                /* committed count: Philox counter and the min-tokens floor */
    uint32_t row_k;            /* index of this row among its request's rows in the call */
    const uint64_t *seen;      /* presence-penalty bitset over V, NULL when the spec has none */
    const int32_t *hist;       /* history ring, NULL when windows are disabled */
    int32_t hist_cap, hist_len, hist_head;
    const uint64_t *stop_mask; /* bitset over V of min_tokens_stop_ids, NULL when none */
    bool apply_penalty, apply_filters;
    int32_t V;
    const void *row;
    ms_dtype dtype;
} ms_row_job;

/* Per-thread scratch for a CPU row, sized for V at create time. */
typedef struct ms_scratch {
    float *y;       /* penalised logits, then y = x / T */
    float *w;       /* weights exp(y - max y) */
    uint64_t *q;    /* fixed-point masses */
    uint8_t *keep;  /* survivors of the filters and the floor */
    uint64_t *keys; /* sort / selection workspace */
    int32_t *count; /* per-token counts (windowed penalty); all zero between rows */
    void *fast;     /* the fast CPU row's own workspace (ms_cpu_fast.c; made by ms__cpu_init), or NULL */
} ms_scratch;

/* What a row's pipeline produces. When want_support is set, scratch->keep[t] && q[t] > 0 marks the
 * support of the final distribution (greedy rows: the one id, in `token`). */
typedef struct ms_row_out {
    int32_t token;
    int32_t status;
    bool greedy;
    bool floor_active;
    uint64_t total_mass;
} ms_row_out;

/* The straightforward reference pipeline: the oracle and the baseline (ms_cpu_ref.c). When
 * draw is false it stops before the draw (explain). */
void ms__ref_row(const ms_row_job *job, ms_scratch *s, bool draw, ms_row_out *out);

/* SPEC 2.1b on x, the row's values: f = r^n for each token among the request's last
 * repetition_window committed tokens (n its count there); count is V zeroed ints, left zeroed.
 * The reference and the fast path both call it (ms_cpu_ref.c). */
void ms__window_penalty(const ms_row_job *job, float *x, int32_t *count);

/* The sort key of the CPU pipelines: ascending order is y descending, then the low word ascending
 * (a token id, or an index into a list of ids ascending). -0 is folded into +0 so that keys are
 * equal exactly when the fp32 values compare equal (SPEC: "strictly greater"). */
static inline uint64_t ms__desc_key(float y, uint32_t low) {
    union { float f; uint32_t u; } v;
    v.f = y == 0.0f ? 0.0f : y;
    uint32_t ord = (v.u & 0x80000000u) ? ~v.u : (v.u | 0x80000000u); /* ascending with y */
    return ((uint64_t)(~ord) << 32) | low;
}

/* Ascending in-place heapsort (ms_cpu_ref.c). Not qsort: glibc's qsort takes a buffer from malloc
 * for arrays of 1 KiB and more, and the library must not allocate while sampling. */
void ms__heapsort_u64(uint64_t *a, size_t n);

/* Row of the pending sample, remembered for ms_commit. */
typedef struct ms_pending_row {
    int32_t slot; /* -1 when its request was removed since */
    int32_t token;
} ms_pending_row;

typedef struct ms_hash_entry {
    int64_t rid;
    int32_t slot; /* -1: empty */
} ms_hash_entry;

struct ms_resource {
    ms_spec spec;             /* with copied arrays below */
    char *resource_key;
    char **nodes;
    int32_t *stop_ids;
    ms_resource_params params;
    int32_t V;                /* spec.vocab_size, or 0 when the row width decides */
    int32_t scratch_V;        /* the widest V the scratch serves */
    int32_t bitset_words;     /* words per seen set (V known) */

    ms_slot *slots;
    int32_t n_resident;
    int32_t *free_list;       /* stack of free slot indices */
    int32_t n_free;
    ms_hash_entry *table;     /* open addressing, linear probing, power-of-two size */
    uint32_t table_mask;

    uint64_t *seen;           /* capacity * bitset_words, or NULL */
    int32_t *hist;            /* capacity * max_repetition_window, or NULL */
    uint64_t *stop_mask;      /* bitset_words, or NULL */

    ms_pending_row *pending;  /* max_rows */
    int32_t n_pending;
    bool has_pending;
    int32_t *row_k;           /* max_rows: index of a row among its request's rows */
    int32_t *row_slot;        /* max_rows */
    uint8_t *mark;            /* capacity: per-slot marks for commit and plan */
    int32_t *slot_rows;       /* capacity: rows seen so far per slot (row_k) */

    ms_scratch *scratch;      /* one per thread */
    /* the row pipeline of this backend (ms__ref_row, or a fast path bit-identical to it) */
    void (*row_fn)(const ms_row_job *job, ms_scratch *s, bool draw, ms_row_out *out);
    int32_t n_scratch;

    void *backend_state;      /* CPU thread pool or CUDA state */
    char err[MS_ERRMSG_SIZE];
};

/* Formats into res->err and returns code. */
int ms__fail(ms_resource *res, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

int32_t ms__slot_of(const ms_resource *res, int64_t rid);

static inline int ms__bit_get(const uint64_t *bits, int32_t i) { return (int)((bits[i >> 6] >> (i & 63)) & 1u); }
static inline void ms__bit_set(uint64_t *bits, int32_t i) { bits[i >> 6] |= 1ull << (i & 63); }

/* Fills a row job for `slot` from the resource state. */
void ms__fill_job(const ms_resource *res, int32_t slot, const ms_step *step, ms_row_job *job);

#endif /* MS_INTERNAL_H */
