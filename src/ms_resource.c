/* ms_resource.c: the resource of SPEC section 4: slots, state, and the public entry points. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ms_cpu.h"
#include "ms_internal.h"
#include "ms_math.h"
#ifdef MSAMPLER_HAVE_CUDA
#  include "cuda/ms_cuda.h"
#endif

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
#  include <xmmintrin.h>
#  define MS__HAVE_MXCSR 1
#endif

/* ---- errors ----------------------------------------------------------------------------------- */

static _Thread_local char ms__create_err[MS_ERRMSG_SIZE];

const char *ms_last_create_error(void) { return ms__create_err; }

int ms__fail(ms_resource *res, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *dst = res ? res->err : ms__create_err;
    int n = snprintf(dst, MS_ERRMSG_SIZE, "%s: ", ms_err_name(code));
    if (n < 0 || n >= MS_ERRMSG_SIZE) n = 0;
    vsnprintf(dst + n, (size_t)(MS_ERRMSG_SIZE - n), fmt, ap);
    va_end(ap);
    return code;
}

const char *ms_resource_last_error(const ms_resource *res) { return res ? res->err : "resource is NULL"; }
int32_t ms_resource_vocab_size(const ms_resource *res) { return res ? res->V : 0; }
ms_backend ms_resource_backend(const ms_resource *res) { return res ? res->params.backend : MS_BACKEND_CPU; }
int32_t ms_resident(const ms_resource *res) { return res ? res->n_resident : 0; }

/* ---- the floating-point environment ------------------------------------------------------------
 * The contract needs IEEE round-to-nearest with subnormals honoured. A host process may have set
 * flush-to-zero or denormals-are-zero (some frameworks do), so every CPU entry point that computes
 * sets the default control word and restores the caller's on the way out. */
unsigned ms__fpenv_enter(void) {
#ifdef MS__HAVE_MXCSR
    unsigned saved = _mm_getcsr();
    _mm_setcsr(0x1F80u); /* all exceptions masked, round to nearest, no FTZ, no DAZ */
    return saved;
#else
    return 0;
#endif
}

void ms__fpenv_leave(unsigned saved) {
#ifdef MS__HAVE_MXCSR
    _mm_setcsr(saved);
#else
    (void)saved;
#endif
}

/* ---- rid -> slot table ---------------------------------------------------------------------- */

static uint32_t ms__hash_rid(int64_t rid) {
    uint64_t z = (uint64_t)rid + 0x9E3779B97F4A7C15ull; /* splitmix64 finaliser */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)(z ^ (z >> 31));
}

int32_t ms__slot_of(const ms_resource *res, int64_t rid) {
    for (uint32_t i = ms__hash_rid(rid) & res->table_mask;; i = (i + 1) & res->table_mask) {
        if (res->table[i].slot < 0) return -1;
        if (res->table[i].rid == rid) return res->table[i].slot;
    }
}

static void ms__table_insert(ms_resource *res, int64_t rid, int32_t slot) {
    uint32_t i = ms__hash_rid(rid) & res->table_mask;
    while (res->table[i].slot >= 0) i = (i + 1) & res->table_mask;
    res->table[i].rid = rid;
    res->table[i].slot = slot;
}

/* Deletion with backward shift, so that probes never need tombstones. */
static void ms__table_erase(ms_resource *res, int64_t rid) {
    uint32_t mask = res->table_mask, i = ms__hash_rid(rid) & mask;
    while (res->table[i].rid != rid || res->table[i].slot < 0) i = (i + 1) & mask;
    uint32_t j = i;
    for (;;) {
        res->table[i].slot = -1;
        for (;;) {
            j = (j + 1) & mask;
            if (res->table[j].slot < 0) return;
            uint32_t home = ms__hash_rid(res->table[j].rid) & mask;
            /* move j into the hole at i unless its home lies cyclically in (i, j] */
            if (i <= j ? (i < home && home <= j) : (i < home || home <= j)) continue;
            break;
        }
        res->table[i] = res->table[j];
        i = j;
    }
}

/* ---- create / free ------------------------------------------------------------------------- */

ms_resource_params ms_resource_params_default(void) {
    ms_resource_params p;
    memset(&p, 0, sizeof p);
    p.capacity = 256;
    p.max_rows = 0; /* 4 * capacity */
    p.max_vocab = 262144;
    p.backend = MS_BACKEND_CPU;
    p.n_threads = 0;
    p.device = 0;
    return p;
}

static char *ms__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void ms_resource_free(ms_resource *res) {
    if (!res) return;
    ms__cpu_destroy(res);
#ifdef MSAMPLER_HAVE_CUDA
    ms__cuda_destroy(res);
#endif
    if (res->nodes)
        for (size_t i = 0; i < res->spec.n_nodes; i++) free(res->nodes[i]);
    free(res->nodes);
    free(res->resource_key);
    free(res->stop_ids);
    free(res->slots);
    free(res->free_list);
    free(res->table);
    free(res->seen);
    free(res->hist);
    free(res->stop_mask);
    free(res->pending);
    free(res->row_k);
    free(res->row_slot);
    free(res->mark);
    free(res->slot_rows);
    if (res->scratch)
        for (int32_t i = 0; i < res->n_scratch; i++) {
            free(res->scratch[i].y);
            free(res->scratch[i].w);
            free(res->scratch[i].q);
            free(res->scratch[i].keep);
            free(res->scratch[i].keys);
            free(res->scratch[i].count);
        }
    free(res->scratch);
    free(res);
}

int ms_resource_create(ms_resource **out, const ms_spec *spec, const ms_resource_params *params_in) {
    ms__create_err[0] = '\0';
    if (!out) return ms__fail(NULL, MS_EINVAL, "out is NULL");
    *out = NULL;
    char msg[MS_ERRMSG_SIZE];
    int rc = ms_spec_check(spec, msg, sizeof msg);
    if (rc < 0) return ms__fail(NULL, rc, "%s", msg);
    ms_resource_params p = params_in ? *params_in : ms_resource_params_default();
    if (p.capacity < 1 || p.capacity > (1 << 20))
        return ms__fail(NULL, MS_EINVAL, "capacity=%" PRId32 ": must be in [1, %d]", p.capacity, 1 << 20);
    if (p.max_rows == 0) p.max_rows = 4 * p.capacity;
    if (p.max_rows < 1 || p.max_rows > (1 << 22))
        return ms__fail(NULL, MS_EINVAL, "max_rows=%" PRId32 ": must be in [1, %d]", p.max_rows, 1 << 22);
    if (p.max_vocab < 1 || p.max_vocab > MS_MAX_VOCAB)
        return ms__fail(NULL, MS_EINVAL, "max_vocab=%" PRId32 ": must be in [1, %d]", p.max_vocab, MS_MAX_VOCAB);
    if (p.n_threads < 0 || p.n_threads > 1024)
        return ms__fail(NULL, MS_EINVAL, "n_threads=%" PRId32 ": must be in [0, 1024]", p.n_threads);
    if (p.backend != MS_BACKEND_CPU && p.backend != MS_BACKEND_CPU_REF && p.backend != MS_BACKEND_CUDA)
        return ms__fail(NULL, MS_EINVAL, "backend=%d: unknown", (int)p.backend);
#ifndef MSAMPLER_HAVE_CUDA
    if (p.backend == MS_BACKEND_CUDA)
        return ms__fail(NULL, MS_EBACKEND, "backend=cuda: this build of msampler has no CUDA backend");
#endif
    if (p.n_threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        p.n_threads = n < 1 ? 1 : (n > 1024 ? 1024 : (int32_t)n);
    }

    ms_resource *res = (ms_resource *)calloc(1, sizeof *res);
    if (!res) return ms__fail(NULL, MS_ENOMEM, "resource");
    res->spec = *spec;
    res->params = p;
    res->V = spec->vocab_size;
    res->scratch_V = res->V ? res->V : p.max_vocab;
    res->bitset_words = (res->scratch_V + 63) / 64;
    res->row_fn = ms__ref_row;
    const int32_t cap = p.capacity;
    const size_t V = (size_t)res->scratch_V;
    bool ok = true;

    res->resource_key = ms__strdup(spec->resource_key ? spec->resource_key : "");
    ok = ok && res->resource_key;
    res->spec.resource_key = res->resource_key;
    if (spec->n_nodes) {
        res->nodes = (char **)calloc(spec->n_nodes, sizeof(char *));
        ok = ok && res->nodes;
        for (size_t i = 0; ok && i < spec->n_nodes; i++) ok = (res->nodes[i] = ms__strdup(spec->nodes[i])) != NULL;
        res->spec.nodes = (const char *const *)res->nodes;
    }
    if (spec->n_min_tokens_stop_ids) {
        res->stop_ids = (int32_t *)malloc(spec->n_min_tokens_stop_ids * sizeof(int32_t));
        res->stop_mask = (uint64_t *)calloc((size_t)res->bitset_words, sizeof(uint64_t));
        ok = ok && res->stop_ids && res->stop_mask;
        if (ok) {
            memcpy(res->stop_ids, spec->min_tokens_stop_ids, spec->n_min_tokens_stop_ids * sizeof(int32_t));
            for (size_t i = 0; i < spec->n_min_tokens_stop_ids; i++) ms__bit_set(res->stop_mask, res->stop_ids[i]);
        }
        res->spec.min_tokens_stop_ids = res->stop_ids;
    }
    res->slots = (ms_slot *)calloc((size_t)cap, sizeof(ms_slot));
    res->free_list = (int32_t *)malloc((size_t)cap * sizeof(int32_t));
    uint32_t tsize = 1;
    while (tsize < 2u * (uint32_t)cap) tsize <<= 1;
    res->table = (ms_hash_entry *)malloc(tsize * sizeof(ms_hash_entry));
    res->table_mask = tsize - 1;
    if (spec->enable_repetition_penalty)
        res->seen = (uint64_t *)calloc((size_t)cap * (size_t)res->bitset_words, sizeof(uint64_t));
    if (spec->max_repetition_window > 0)
        res->hist = (int32_t *)calloc((size_t)cap * (size_t)spec->max_repetition_window, sizeof(int32_t));
    res->pending = (ms_pending_row *)malloc((size_t)p.max_rows * sizeof(ms_pending_row));
    res->row_k = (int32_t *)malloc((size_t)p.max_rows * sizeof(int32_t));
    res->row_slot = (int32_t *)malloc((size_t)p.max_rows * sizeof(int32_t));
    res->mark = (uint8_t *)calloc((size_t)cap, 1);
    res->slot_rows = (int32_t *)calloc((size_t)cap, sizeof(int32_t));
    ok = ok && res->slots && res->free_list && res->table && res->pending && res->row_k && res->row_slot &&
         res->mark && res->slot_rows && (!spec->enable_repetition_penalty || res->seen) &&
         (spec->max_repetition_window == 0 || res->hist);
    /* One scratch per CPU worker; the CUDA backend keeps one for explain. */
    res->n_scratch = p.backend == MS_BACKEND_CUDA ? 1 : p.n_threads;
    res->scratch = (ms_scratch *)calloc((size_t)res->n_scratch, sizeof(ms_scratch));
    ok = ok && res->scratch;
    for (int32_t i = 0; ok && i < res->n_scratch; i++) {
        ms_scratch *s = &res->scratch[i];
        s->y = (float *)malloc(V * sizeof(float));
        s->w = (float *)malloc(V * sizeof(float));
        s->q = (uint64_t *)malloc(V * sizeof(uint64_t));
        s->keep = (uint8_t *)malloc(V);
        s->keys = (uint64_t *)malloc(V * sizeof(uint64_t));
        s->count = (int32_t *)calloc(V, sizeof(int32_t));
        ok = s->y && s->w && s->q && s->keep && s->keys && s->count;
    }
    if (!ok) {
        ms_resource_free(res);
        return ms__fail(NULL, MS_ENOMEM, "could not allocate the resource's state (capacity=%" PRId32
                        ", vocab=%zu)", cap, V);
    }
    for (uint32_t i = 0; i < tsize; i++) res->table[i].slot = -1;
    for (int32_t i = 0; i < cap; i++) res->free_list[i] = cap - 1 - i; /* slot 0 is taken first */
    res->n_free = cap;

    rc = p.backend == MS_BACKEND_CUDA ? MS_OK : ms__cpu_init(res);
#ifdef MSAMPLER_HAVE_CUDA
    if (rc == MS_OK && p.backend == MS_BACKEND_CUDA) rc = ms__cuda_init(res);
#endif
    if (rc < 0) {
        /* the backend's message already carries its code's name: hand it over as it is */
        memcpy(ms__create_err, res->err, sizeof ms__create_err);
        ms_resource_free(res);
        return rc;
    }
    *out = res;
    return MS_OK;
}

/* ---- lifecycle -------------------------------------------------------------------------------- */

bool ms_contains(const ms_resource *res, int64_t rid) { return res && ms__slot_of(res, rid) >= 0; }

int ms_ingest(ms_resource *res, int64_t rid, const ms_req_config *cfg) {
    if (!res) return MS_EINVAL;
    if (!cfg) return ms__fail(res, MS_EINVAL, "config is NULL");
    char msg[MS_ERRMSG_SIZE];
    int rc = ms_req_config_validate(cfg, &res->spec, msg, sizeof msg);
    if (rc < 0) return ms__fail(res, rc, "request %" PRId64 ": %s", rid, msg);
    if (ms__slot_of(res, rid) >= 0) return ms__fail(res, MS_EEXIST, "request %" PRId64 " is already resident", rid);
    if (res->n_free == 0)
        return ms__fail(res, MS_EFULL, "request %" PRId64 ": all %" PRId32 " slots are taken", rid, res->params.capacity);
    int32_t slot = res->free_list[res->n_free - 1];
#ifdef MSAMPLER_HAVE_CUDA
    if (res->params.backend == MS_BACKEND_CUDA) {
        rc = ms__cuda_ingest(res, slot, cfg);
        if (rc < 0) return rc;
    }
#endif
    res->n_free--;
    ms_slot *s = &res->slots[slot];
    s->rid = rid;
    s->used = 1;
    s->cfg = *cfg;
    s->n = 0;
    s->hist_len = 0;
    s->hist_head = 0;
    ms__table_insert(res, rid, slot);
    res->n_resident++;
    return MS_OK;
}

int ms_remove(ms_resource *res, int64_t rid) {
    if (!res) return MS_EINVAL;
    int32_t slot = ms__slot_of(res, rid);
    if (slot < 0) return ms__fail(res, MS_ENOENT, "request %" PRId64 " is not resident", rid);
    ms__table_erase(res, rid);
    ms_slot *s = &res->slots[slot];
    memset(s, 0, sizeof *s);
    if (res->seen) memset(res->seen + (size_t)slot * (size_t)res->bitset_words, 0, (size_t)res->bitset_words * 8);
    for (int32_t i = 0; i < res->n_pending; i++)
        if (res->pending[i].slot == slot) res->pending[i].slot = -1;
#ifdef MSAMPLER_HAVE_CUDA
    if (res->params.backend == MS_BACKEND_CUDA) ms__cuda_remove(res, slot);
#endif
    res->free_list[res->n_free++] = slot;
    res->n_resident--;
    return MS_OK;
}

/* Checks a token list against [0, V) (only >= 0 when V is the row width). */
static int ms__check_tokens(ms_resource *res, int64_t rid, const int32_t *tokens, int32_t n) {
    if (n < 0) return ms__fail(res, MS_EINVAL, "request %" PRId64 ": n_tokens=%" PRId32 " is negative", rid, n);
    if (n > 0 && !tokens) return ms__fail(res, MS_EINVAL, "request %" PRId64 ": tokens is NULL", rid);
    for (int32_t i = 0; i < n; i++)
        if (tokens[i] < 0 || (res->V > 0 && tokens[i] >= res->V))
            return ms__fail(res, MS_ERANGE, "request %" PRId64 ": token[%" PRId32 "]=%" PRId32 " outside [0, %" PRId32 ")",
                            rid, i, tokens[i], res->V);
    return MS_OK;
}

int ms_plan(ms_resource *res, const ms_step *step) {
    if (!res) return MS_EINVAL;
    if (!step || step->n_prefill == 0) return MS_OK;
    if (step->n_prefill < 0 || !step->prefill)
        return ms__fail(res, MS_EINVAL, "prefill is NULL or n_prefill=%" PRId32 " is negative", step->n_prefill);
    /* Check everything first: a failing plan changes nothing. */
    for (int32_t i = 0; i < step->n_prefill; i++) {
        const ms_prefill *pf = &step->prefill[i];
        if (ms__slot_of(res, pf->rid) < 0)
            return ms__fail(res, MS_ENOENT, "prefill[%" PRId32 "]: request %" PRId64 " is not resident", i, pf->rid);
        int rc = ms__check_tokens(res, pf->rid, pf->tokens, pf->n_tokens);
        if (rc < 0) return rc;
    }
    if (!res->seen) return MS_OK;
    for (int32_t i = 0; i < step->n_prefill; i++) {
        const ms_prefill *pf = &step->prefill[i];
        int32_t slot = ms__slot_of(res, pf->rid);
        if (!res->slots[slot].cfg.penalize_prompt) continue;
        uint64_t *bits = res->seen + (size_t)slot * (size_t)res->bitset_words;
        for (int32_t j = 0; j < pf->n_tokens; j++) ms__bit_set(bits, pf->tokens[j]);
    }
#ifdef MSAMPLER_HAVE_CUDA
    if (res->params.backend == MS_BACKEND_CUDA) return ms__cuda_plan(res, step);
#endif
    return MS_OK;
}

/* Appends one committed token to a slot's history and seen set (SPEC section 4, commit). */
static void ms__append(ms_resource *res, int32_t slot, int32_t token) {
    ms_slot *s = &res->slots[slot];
    if (res->seen) ms__bit_set(res->seen + (size_t)slot * (size_t)res->bitset_words, token);
    if (res->hist) {
        int32_t cap = res->spec.max_repetition_window;
        res->hist[(size_t)slot * (size_t)cap + (size_t)s->hist_head] = token;
        s->hist_head = (s->hist_head + 1) % cap;
        if (s->hist_len < cap) s->hist_len++;
    }
    s->n++;
}

int ms_accept(ms_resource *res, int64_t rid, const int32_t *tokens, int32_t n_tokens) {
    if (!res) return MS_EINVAL;
    int32_t slot = ms__slot_of(res, rid);
    if (slot < 0) return ms__fail(res, MS_ENOENT, "request %" PRId64 " is not resident", rid);
    int rc = ms__check_tokens(res, rid, tokens, n_tokens);
    if (rc < 0) return rc;
    for (int32_t i = 0; i < n_tokens; i++) ms__append(res, slot, tokens[i]);
#ifdef MSAMPLER_HAVE_CUDA
    if (res->params.backend == MS_BACKEND_CUDA) return ms__cuda_accept(res, slot, tokens, n_tokens);
#endif
    return MS_OK;
}

void ms__fill_job(const ms_resource *res, int32_t slot, const ms_step *step, ms_row_job *job) {
    const ms_slot *s = &res->slots[slot];
    memset(job, 0, sizeof *job);
    job->cfg = &s->cfg;
    job->n = s->n;
    job->seen = res->seen ? res->seen + (size_t)slot * (size_t)res->bitset_words : NULL;
    if (res->hist) {
        job->hist_cap = res->spec.max_repetition_window;
        job->hist = res->hist + (size_t)slot * (size_t)job->hist_cap;
        job->hist_len = s->hist_len;
        job->hist_head = s->hist_head;
    }
    job->stop_mask = res->stop_mask;
    job->apply_penalty = step ? step->apply_penalty : true;
    job->apply_filters = step ? step->apply_filters : true;
}

/* Checks a row's shape and returns V for it (or a negative error). */
static int ms__row_vocab(ms_resource *res, ms_dtype dtype, int32_t width, int32_t *V) {
    if (dtype != MS_DTYPE_F32 && dtype != MS_DTYPE_F16 && dtype != MS_DTYPE_BF16)
        return ms__fail(res, MS_EDTYPE, "dtype=%d: expected MS_DTYPE_F32, MS_DTYPE_F16 or MS_DTYPE_BF16", (int)dtype);
    if (width < 1) return ms__fail(res, MS_ESHAPE, "width=%" PRId32 ": must be >= 1", width);
    if (res->V > 0 && width < res->V)
        return ms__fail(res, MS_ESHAPE, "width=%" PRId32 " is narrower than vocab_size=%" PRId32, width, res->V);
    if (res->V == 0 && width > res->scratch_V)
        return ms__fail(res, MS_ESHAPE, "width=%" PRId32 " exceeds max_vocab=%" PRId32 " (spec.vocab_size is None)",
                        width, res->scratch_V);
    *V = res->V > 0 ? res->V : width;
    return MS_OK;
}

static size_t ms__dtype_size(ms_dtype d) { return d == MS_DTYPE_F32 ? 4 : 2; }

int ms_sample(ms_resource *res, const ms_step *step, const ms_batch *batch, int32_t *tokens, int32_t *row_status) {
    if (!res) return MS_EINVAL;
    if (!batch) return ms__fail(res, MS_EINVAL, "batch is NULL");
    const int32_t n = batch->n_rows;
    if (n < 0 || n > res->params.max_rows)
        return ms__fail(res, MS_ESHAPE, "n_rows=%" PRId32 ": must be in [0, max_rows=%" PRId32 "]", n, res->params.max_rows);
    if (n > 0 && (!batch->rids || !batch->logits || !tokens))
        return ms__fail(res, MS_EINVAL, "rids, logits and tokens must not be NULL");
    int32_t V;
    int rc = ms__row_vocab(res, batch->dtype, batch->width, &V);
    if (rc < 0) return rc;
    const int64_t stride = batch->row_stride ? batch->row_stride : batch->width;
    if (stride < batch->width)
        return ms__fail(res, MS_ESHAPE, "row_stride=%" PRId64 " is smaller than width=%" PRId32, stride, batch->width);
    for (int32_t i = 0; i < n; i++) {
        int32_t slot = ms__slot_of(res, batch->rids[i]);
        if (slot < 0) {
            for (int32_t j = 0; j < i; j++) res->slot_rows[res->row_slot[j]] = 0;
            return ms__fail(res, MS_ENOENT, "row %" PRId32 ": request %" PRId64 " is not resident", i, batch->rids[i]);
        }
        res->row_slot[i] = slot;
        res->row_k[i] = res->slot_rows[slot]++;
    }
    for (int32_t i = 0; i < n; i++) res->slot_rows[res->row_slot[i]] = 0;

#ifdef MSAMPLER_HAVE_CUDA
    if (res->params.backend == MS_BACKEND_CUDA) {
        rc = ms__cuda_sample(res, step, batch, V, stride, tokens, row_status);
        if (rc < 0) return rc;
    } else
#endif
    {
        ms_cpu_rows rows = {step, batch, V, stride, ms__dtype_size(batch->dtype), tokens, row_status};
        unsigned env = ms__fpenv_enter();
        ms__cpu_sample_rows(res, &rows);
        ms__fpenv_leave(env);
    }
    for (int32_t i = 0; i < n; i++) {
        res->pending[i].slot = res->row_slot[i];
        res->pending[i].token = res->params.backend == MS_BACKEND_CUDA ? 0 : tokens[i];
    }
    res->n_pending = n;
    res->has_pending = true;
    return MS_OK;
}

int ms_commit(ms_resource *res, const ms_step *step) {
    if (!res) return MS_EINVAL;
    if (!res->has_pending) return ms__fail(res, MS_ESTATE, "commit without a sample since the last commit");
    const bool all = !step || !step->kept_rids;
    if (!all && step->n_kept_rids < 0)
        return ms__fail(res, MS_EINVAL, "n_kept_rids=%" PRId32 " is negative", step->n_kept_rids);
#ifdef MSAMPLER_HAVE_CUDA
    if (res->params.backend == MS_BACKEND_CUDA) return ms__cuda_commit(res, step);
#endif
    if (!all)
        for (int32_t i = 0; i < step->n_kept_rids; i++) {
            int32_t slot = ms__slot_of(res, step->kept_rids[i]);
            if (slot >= 0) res->mark[slot] = 1; /* ids not resident (removed since) are ignored */
        }
    int committed = 0;
    for (int32_t i = 0; i < res->n_pending; i++) {
        const ms_pending_row *pr = &res->pending[i];
        if (pr->slot < 0 || pr->token < 0 || !(all || res->mark[pr->slot])) continue;
        ms__append(res, pr->slot, pr->token);
        committed++;
    }
    if (!all)
        for (int32_t i = 0; i < step->n_kept_rids; i++) {
            int32_t slot = ms__slot_of(res, step->kept_rids[i]);
            if (slot >= 0) res->mark[slot] = 0;
        }
    res->has_pending = false;
    res->n_pending = 0;
    return committed;
}

int ms_explain(ms_resource *res, const ms_step *step, int64_t rid, const void *row, ms_dtype dtype, int32_t width,
               int32_t cap, int32_t *ids, double *probs, uint64_t *masses, ms_explanation *info) {
    if (!res) return MS_EINVAL;
    if (!row || !info) return ms__fail(res, MS_EINVAL, "row and info must not be NULL");
    if (cap < 0 || (cap > 0 && !ids)) return ms__fail(res, MS_EINVAL, "cap=%" PRId32 " with ids NULL or cap < 0", cap);
    int32_t V;
    int rc = ms__row_vocab(res, dtype, width, &V);
    if (rc < 0) return rc;
    int32_t slot = ms__slot_of(res, rid);
    if (slot < 0) return ms__fail(res, MS_ENOENT, "request %" PRId64 " is not resident", rid);
#ifdef MSAMPLER_HAVE_CUDA
    /* the device holds a CUDA resource's state (commits run there): refresh the host copy first */
    if (res->params.backend == MS_BACKEND_CUDA) {
        rc = ms__cuda_pull_slot(res, slot);
        if (rc < 0) return rc;
    }
#endif
    ms_row_job job;
    ms__fill_job(res, slot, step, &job);
    job.V = V;
    job.row = row;
    job.dtype = dtype;
    ms_scratch *s = &res->scratch[0];
    ms_row_out out;
    unsigned env = ms__fpenv_enter();
    res->row_fn(&job, s, false, &out);
    ms__fpenv_leave(env);
    memset(info, 0, sizeof *info);
    info->status = out.status;
    info->greedy = out.greedy;
    info->floor_active = out.floor_active;
    info->total_mass = out.total_mass;
    if (out.status != MS_ROW_OK) return MS_OK;
    if (out.greedy) {
        info->n_kept = 1;
        if (cap < 1) return ms__fail(res, MS_ENOSPC, "cap=%" PRId32 ": 1 id to write", cap);
        ids[0] = out.token;
        if (probs) probs[0] = 1.0;
        if (masses) masses[0] = MS_MASS_ONE;
        return MS_OK;
    }
    int32_t k = 0;
    for (int32_t t = 0; t < V; t++) k += s->keep[t] && s->q[t] > 0;
    info->n_kept = k;
    if (k > cap) return ms__fail(res, MS_ENOSPC, "cap=%" PRId32 ": %" PRId32 " ids to write", cap, k);
    k = 0;
    for (int32_t t = 0; t < V; t++) {
        if (!(s->keep[t] && s->q[t] > 0)) continue;
        ids[k] = t;
        if (probs) probs[k] = (double)s->q[t] / (double)out.total_mass;
        if (masses) masses[k] = s->q[t];
        k++;
    }
    return MS_OK;
}

float ms_exp_f32(float d) { return ms__exp(d); }

void ms_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
    ms__philox(counter, key, out);
}
