/*
 * msampler: exact, deterministic next-token sampling for LLM inference engines.
 *
 * SPDX-License-Identifier: Apache-2.0
 *
 * This header is the manual. The behaviour contract is docs/SPEC.md (a copy of the project's
 * shared SPEC with the decisions recorded in docs/decisions.md); every number below refers to it.
 *
 * ---------------------------------------------------------------------------------------------
 * Sample usage (error checks shortened):
 *
 *     ms_spec spec = ms_spec_default();          // what the resource is able to do
 *     spec.resource_key = "LLM_SAMPLER";
 *     spec.vocab_size   = 151936;
 *     spec.enable_min_p = true;
 *
 *     ms_resource_params rp = ms_resource_params_default();
 *     rp.capacity = 64;                          // resident requests; memory is taken now
 *     ms_resource *res = NULL;
 *     if (ms_resource_create(&res, &spec, &rp) < 0) { ...ms_last_create_error()... }
 *
 *     ms_req_config cfg = ms_req_config_default();  // temperature 0.6, top-k/top-p off, ...
 *     cfg.top_p = 0.9f; cfg.min_p = 0.05f;
 *     ms_req_config_apply_conductor(&cfg, 42, "LLM_SAMPLER");   // seed = derive_seed(42, key)
 *     if (ms_ingest(res, 7, &cfg) < 0) puts(ms_resource_last_error(res));
 *
 *     int32_t prompt[] = {1, 2, 3};
 *     ms_step step = ms_step_default();
 *     ms_prefill pf = { 7, prompt, 3 };
 *     step.prefill = &pf; step.n_prefill = 1;
 *     ms_plan(res, &step);                       // prompt tokens join the seen set
 *
 *     int64_t rids[1] = {7};
 *     ms_batch b = { 1, rids, logits, MS_DTYPE_F32, 151936, 0 };
 *     int32_t token, status;
 *     ms_sample(res, &step, &b, &token, &status); // reads state, changes none
 *     ms_commit(res, &step);                      // the kept rows' tokens become history
 *     ...
 *     ms_remove(res, 7);
 *     ms_resource_free(res);
 * ---------------------------------------------------------------------------------------------
 *
 * Conventions
 *  - Functions returning int return 0 (MS_OK) or more on success and a negative ms_error on failure.
 *  - A failing call changes no state of the resource (its last-error message aside).
 *  - The library never aborts, never prints, and allocates only in ms_resource_create.
 *  - Threads (docs/reliability.md; tested under ThreadSanitizer by tests/threads):
 *    . One resource, one thread at a time: calls on the same resource (queries such as
 *      ms_contains and ms_resource_last_error included, ms_resource_free above all) must not
 *      overlap. A resource may move between threads if the caller orders the calls (a mutex).
 *    . Distinct resources may be used from distinct threads at the same time, each with its own
 *      worker pool (params.n_threads), whose workers touch the resource only during its calls.
 *    . Every function that takes no resource is thread-safe: ms_spec_check,
 *      ms_req_config_validate, ms_req_config_apply_conductor, ms_derive_seed, ms_strerror,
 *      ms_err_name, the *_default() getters, ms_exp_f32, ms_philox4x32_10, ms_version_*.
 *    . ms_last_create_error() is thread-local: it tells the calling thread's last failed
 *      ms_resource_create, whatever other threads do.
 *    . Host inputs (spec, configs, steps, batches) are only read, and only during the call, so
 *      several threads may pass the same ones; ms_resource_create copies the spec's strings and
 *      arrays. (CUDA device buffers are read in stream order: see the CUDA section.)
 *  - Token ids are int32; request ids are int64 chosen by the caller.
 */
#ifndef MSAMPLER_H
#define MSAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(MSAMPLER_BUILD_SHARED)
#  define MS_API __declspec(dllexport)
#elif defined(_WIN32) && defined(MSAMPLER_SHARED)
#  define MS_API __declspec(dllimport)
#elif defined(__GNUC__)
#  define MS_API __attribute__((visibility("default")))
#else
#  define MS_API
#endif

#define MS_VERSION_MAJOR 0
#define MS_VERSION_MINOR 1
#define MS_VERSION_PATCH 0
#define MS_VERSION_NUMBER (MS_VERSION_MAJOR * 10000 + MS_VERSION_MINOR * 100 + MS_VERSION_PATCH)
#define MS_VERSION_STRING "0.1.0"

/** The MS_VERSION_NUMBER the library was built with (compare with the header's). */
MS_API int ms_version_number(void);
MS_API const char *ms_version_string(void);

/* ---------------------------------------------------------------------------------------------
 * Errors. Numbers are pinned forever; new ones are only ever appended.
 * ------------------------------------------------------------------------------------------- */
#define MS_ERRNO_MAP(XX)                                                                        \
    XX(EINVAL, -1, "invalid argument")                                                          \
    XX(ECONFIG, -2, "request config outside the contract")                                      \
    XX(ECAPABILITY, -3, "request config needs a capability the spec does not enable")           \
    XX(ENOMEM, -4, "out of memory")                                                             \
    XX(EEXIST, -5, "request id already resident")                                               \
    XX(ENOENT, -6, "unknown request id")                                                        \
    XX(EFULL, -7, "resource is at capacity")                                                    \
    XX(ERANGE, -8, "token id outside [0, vocab_size)")                                          \
    XX(ESHAPE, -9, "bad shape")                                                                 \
    XX(EDTYPE, -10, "unsupported dtype")                                                        \
    XX(ESTATE, -11, "call out of order")                                                        \
    XX(EBACKEND, -12, "backend not available in this build or on this machine")                 \
    XX(ECUDA, -13, "CUDA runtime error")                                                        \
    XX(ESPEC, -14, "invalid sampler spec")                                                      \
    XX(ENOSPC, -15, "output buffer too small")

typedef enum ms_error {
    MS_OK = 0,
#define MS__ERR_ENUM(name, num, msg) MS_##name = (num),
    MS_ERRNO_MAP(MS__ERR_ENUM)
#undef MS__ERR_ENUM
} ms_error;

/** A static description of an error code ("unknown error" for anything else). */
MS_API const char *ms_strerror(int err);
/** The code's name without prefix, e.g. "ECONFIG". */
MS_API const char *ms_err_name(int err);

/* ---------------------------------------------------------------------------------------------
 * Declarations (SPEC section 1)
 * ------------------------------------------------------------------------------------------- */

/** What one sampler resource is able to do (capability, not intent). */
typedef struct ms_spec {
    const char *resource_key;            /* the resource's name (copied at create); NULL = "" */
    const char *const *nodes;            /* graph nodes served (copied); may be NULL when n_nodes = 0 */
    size_t n_nodes;
    int32_t vocab_size;                  /* 0 = None: the row width. Required (> 0) when a penalty,
                                          * a repetition window or a stop id is enabled */
    bool enable_repetition_penalty;      /* default true (the seed spells it enable_repetion_penalty) */
    bool enable_min_p;                   /* default false */
    int32_t max_repetition_window;       /* default 0: windowed penalty unavailable */
    const int32_t *min_tokens_stop_ids;  /* copied at create; each in [0, vocab_size) */
    size_t n_min_tokens_stop_ids;
    bool enable_top_p_first;             /* default false */
} ms_spec;

MS_API ms_spec ms_spec_default(void);

/** Checks a spec on its own. Returns 0 or MS_ESPEC with a message in msg (may be NULL); MS_EINVAL for a
 *  NULL spec, or a NULL nodes / nodes[i] / min_tokens_stop_ids where their count says they exist. */
MS_API int ms_spec_check(const ms_spec *spec, char *msg, size_t msg_size);

/** One request's settings. Defaults exactly as the seed: see ms_req_config_default(). */
typedef struct ms_req_config {
    float temperature;         /* 0.6; < 1e-5 means greedy */
    int32_t top_k;             /* 0 = off; >= the vocab size also means off */
    float top_p;               /* 1 = off; in (0, 1] */
    bool ignore_eos;           /* carried for the engine's stop check; never changes the distribution */
    float repetition_penalty;  /* 1 = off; > 0 */
    float min_p;               /* 0 = off; in [0, 1] */
    int32_t repetition_window; /* 0 = presence penalty over the seen set; > 0 = windowed penalty */
    int32_t min_tokens;        /* stop ids are masked while fewer tokens are committed */
    bool top_p_first;          /* HF order: top-p, then top-k with k' = max(k, top_p_min_keep) */
    int32_t top_p_min_keep;    /* 1 */
    bool penalize_prompt;      /* true: prefill tracked tokens join the seen set */
    uint64_t seed;             /* 0; the Philox key (low word, high word) */
} ms_req_config;

MS_API ms_req_config ms_req_config_default(void);

/**
 * Validates cfg against the absolute rules and, when spec is not NULL, against its capabilities.
 * Returns 0, MS_ECONFIG or MS_ECAPABILITY (MS_EINVAL for a NULL cfg); msg receives a one-line message that names the field,
 * its value and the rule (or the capability and its value), truncated to msg_size.
 */
MS_API int ms_req_config_validate(const ms_req_config *cfg, const ms_spec *spec, char *msg,
                                  size_t msg_size);

/** apply_conductor_config: seed becomes `seed` when resource_key is NULL, else derive_seed(seed, key). */
MS_API int ms_req_config_apply_conductor(ms_req_config *cfg, int64_t seed, const char *resource_key);

/**
 * derive_seed(seed, stream): the low 63 bits of BLAKE2b-64 (little-endian) of the UTF-8 text
 * "<seed in decimal>:<stream>". stream is len bytes (need not be NUL-terminated).
 */
MS_API int64_t ms_derive_seed(int64_t seed, const char *stream, size_t len);

/** Tokens a request's prompt adds to its seen set (SamplerStep.prefill_tracked_tokens). */
typedef struct ms_prefill {
    int64_t rid;
    const int32_t *tokens;
    int32_t n_tokens;
} ms_prefill;

/** One step's work (SamplerStep). */
typedef struct ms_step {
    bool apply_penalty;        /* true: the presence penalty runs (windowed penalties always run) */
    bool apply_filters;        /* true: min-p, top-k, top-p run */
    const ms_prefill *prefill; /* used by ms_plan */
    int32_t n_prefill;
    const int64_t *kept_rids;  /* used by ms_commit. NULL = every row's token is kept; otherwise only
                                * rows of these ids are committed (to keep none, pass a non-NULL
                                * pointer with n_kept_rids = 0) */
    int32_t n_kept_rids;
} ms_step;

MS_API ms_step ms_step_default(void);

/* ---------------------------------------------------------------------------------------------
 * The resource (SPEC section 4)
 * ------------------------------------------------------------------------------------------- */

typedef enum ms_backend {
    MS_BACKEND_CPU = 0,     /* the fast CPU path (default); bit-identical to MS_BACKEND_CPU_REF */
    MS_BACKEND_CPU_REF = 1, /* the straightforward reference: the oracle and the baseline */
    MS_BACKEND_CUDA = 2     /* device memory; see the CUDA section */
} ms_backend;

typedef enum ms_dtype {
    MS_DTYPE_F32 = 0,
    MS_DTYPE_F16 = 1,
    MS_DTYPE_BF16 = 2
} ms_dtype;

/** Per-row outcome, written next to each token. */
typedef enum ms_row_status {
    MS_ROW_OK = 0,
    MS_ROW_EMPTY = 1 /* no logit in [0, V) was finite or +inf (all NaN / -inf): token is -1 */
} ms_row_status;

typedef struct ms_resource_params {
    int32_t capacity;   /* resident requests at most (default 256) */
    int32_t max_rows;   /* rows per sample call at most (default 4 * capacity) */
    int32_t max_vocab;  /* when spec.vocab_size is 0: the widest row accepted (default 262144) */
    ms_backend backend; /* default MS_BACKEND_CPU */
    int32_t n_threads;  /* CPU worker threads; 0 = every online core, sysconf(_SC_NPROCESSORS_ONLN), which
                         * ignores taskset and cgroup limits: set it under those (default 0). The CPU
                         * backend picks its SIMD level at run time (avx512, avx2, or generic C; the
                         * same tokens at every level); MSAMPLER_CPU_LEVEL=avx2|w16|generic in the
                         * environment forces a lower one, for comparisons. */
    int32_t device;     /* CUDA device ordinal (default 0) */
} ms_resource_params;

MS_API ms_resource_params ms_resource_params_default(void);

typedef struct ms_resource ms_resource;

/** Largest vocabulary (or row width when vocab_size is 0) a resource accepts: masses must fit
 *  2^40 * V <= 2^63, so that a row's total mass fits an unsigned 64-bit sum. */
#define MS_MAX_VOCAB (1 << 23)

/**
 * Builds a resource. All memory is taken here. On failure *out is NULL, and the message is
 * available from ms_last_create_error() (thread-local).
 */
MS_API int ms_resource_create(ms_resource **out, const ms_spec *spec, const ms_resource_params *params);
MS_API const char *ms_last_create_error(void);
/** Frees everything; NULL is allowed. */
MS_API void ms_resource_free(ms_resource *res);

/** The message of the last failing call on res ("" when none failed yet). */
MS_API const char *ms_resource_last_error(const ms_resource *res);
/** The vocabulary width V of the spec (0 when unset). */
MS_API int32_t ms_resource_vocab_size(const ms_resource *res);
MS_API ms_backend ms_resource_backend(const ms_resource *res);

/** Validates cfg against the spec and makes rid resident with empty state. */
MS_API int ms_ingest(ms_resource *res, int64_t rid, const ms_req_config *cfg);
/** Frees rid's slot; a reused slot starts empty. Rows of rid in the pending sample are dropped. */
MS_API int ms_remove(ms_resource *res, int64_t rid);
MS_API bool ms_contains(const ms_resource *res, int64_t rid);
/** Number of resident requests. */
MS_API int32_t ms_resident(const ms_resource *res);

/** Adds step->prefill tokens to the seen sets of requests whose penalize_prompt is true. */
MS_API int ms_plan(ms_resource *res, const ms_step *step);

/** A batch of logits rows. Row i belongs to request rids[i]; a request may own several rows. */
typedef struct ms_batch {
    int32_t n_rows;
    const int64_t *rids;
    const void *logits;  /* n_rows rows of `width` values; host memory for the CPU backends */
    ms_dtype dtype;
    int32_t width;       /* >= V; columns >= V are never drawn (padded heads) */
    int64_t row_stride;  /* in elements; 0 = width */
} ms_batch;

/**
 * Draws one token per row (SPEC section 2) and remembers the rows for ms_commit. Reads the
 * request state, changes none: calling it again with the same input draws the same tokens.
 * step may be NULL (defaults). row_status may be NULL.
 */
MS_API int ms_sample(ms_resource *res, const ms_step *step, const ms_batch *batch, int32_t *tokens,
                     int32_t *row_status);

/**
 * Commits the rows of the last ms_sample whose request is kept (step->kept_rids): each token joins
 * its request's history and seen set, and the request's committed count n grows by one. Rows with
 * token -1 commit nothing. Returns the number of tokens committed. A second commit without a new
 * sample is MS_ESTATE.
 */
MS_API int ms_commit(ms_resource *res, const ms_step *step);

/** Commits explicit tokens for rid (speculative decoding, replay), as ms_commit would. */
MS_API int ms_accept(ms_resource *res, int64_t rid, const int32_t *tokens, int32_t n_tokens);

/** What ms_explain tells about one row. */
typedef struct ms_explanation {
    int32_t n_kept;      /* ids written (the support of the final distribution: kept, mass > 0) */
    int32_t status;      /* ms_row_status */
    bool greedy;         /* temperature < 1e-5: the one id is the argmax, probability 1 */
    bool floor_active;   /* the min-tokens floor masked the stop ids */
    uint64_t total_mass; /* M, the sum of the kept 2^40 fixed-point masses (0 for greedy) */
} ms_explanation;

/**
 * The final distribution of one row without drawing: the ids (ascending) that can be drawn, their
 * probabilities q/M and, when masses is not NULL, their fixed-point masses q. cap is the length of
 * the output arrays; cap >= V always suffices, and when it is too small the call returns MS_ENOSPC
 * with info->n_kept set to the length needed. The row belongs to request rid. Host memory.
 */
MS_API int ms_explain(ms_resource *res, const ms_step *step, int64_t rid, const void *row,
                      ms_dtype dtype, int32_t width, int32_t cap, int32_t *ids, double *probs,
                      uint64_t *masses, ms_explanation *info);

/* ---------------------------------------------------------------------------------------------
 * Building blocks, exposed for tests and for engines that embed the rules (SPEC section 3).
 * ------------------------------------------------------------------------------------------- */

/** The project's exp for d <= 0 (fp32 operations only; identical on every backend). */
MS_API float ms_exp_f32(float d);
/** Philox4x32-10: out[4] from counter[4] and key[2]. */
MS_API void ms_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

/* ---------------------------------------------------------------------------------------------
 * CUDA (experimental; present in every build, MS_EBACKEND where CUDA was not built or no device)
 * ------------------------------------------------------------------------------------------- */
/*
 * A resource built with params.backend = MS_BACKEND_CUDA keeps every request's state on the device
 * (params.device). On it:
 *  - ms_sample takes DEVICE pointers for batch->logits, tokens and row_status (rids stay on the host);
 *    the work is enqueued on the resource's stream and the call returns without waiting.
 *  - ms_commit enqueues the commit on the device and returns the number of rows queued (kept and
 *    resident; a row whose token is -1 among them commits nothing) without waiting.
 *  - ms_ingest, ms_remove, ms_plan and ms_accept copy host data to the device in stream order; they
 *    read the host data during the call only (through a pageable staging copy), so they may wait for
 *    the stream to reach them.
 *  - ms_explain takes a HOST row; it waits for the stream and copies the request's state back.
 * Tokens and kept sets are bit-identical to MS_BACKEND_CPU_REF (SPEC section 3).
 *
 * Graph capture: ms_cuda_sample_rows and ms_cuda_commit_rows enqueue kernels and memsets only (no
 * host synchronisation, no allocation), so an engine may capture them once and replay while it
 * rewrites, between replays, its own device arrays row_slot / row_k / row_kept (which requests fill
 * the rows) and ingests or removes requests (their settings live in device buffers). Learn a
 * request's slot with ms_cuda_slot_of. Streams are passed as void * (a cudaStream_t); NULL is the
 * legacy default stream.
 */

/** Number of CUDA devices visible, or MS_EBACKEND when CUDA was not built or none is present. */
MS_API int ms_cuda_device_count(void);

/** Sets the stream every later call on res enqueues on (NULL: the default stream). The stream must
 *  outlive the resource: ms_resource_free waits on it (free the resource first, or set NULL). As with
 *  cublasSetStream, switching does not order the new stream after work the resource already queued on
 *  the old one (an ingest, accept or sample): order them yourself (cudaEventRecord on the old stream,
 *  cudaStreamWaitEvent on the new) or switch between steps after a synchronisation. The stream must
 *  belong to the resource's device. */
MS_API int ms_cuda_set_stream(ms_resource *res, void *stream);

/** The device slot of rid (>= 0; stable while rid is resident), or MS_ENOENT / MS_EBACKEND. */
MS_API int ms_cuda_slot_of(const ms_resource *res, int64_t rid);

/** One graph-capturable call's rows; every pointer is device memory, aligned to its elements (4 bytes
 *  for int32 and fp32, 2 for fp16 / bf16: a misaligned one is refused with MS_EINVAL). */
typedef struct ms_cuda_rows {
    int32_t n_rows;           /* host value, fixed for a captured graph */
    const int32_t *row_slot;  /* n_rows slots (ms_cuda_slot_of); -1 or a free slot: an unused row,
                               * token -1 and status MS_ROW_EMPTY */
    const int32_t *row_k;     /* n_rows: index of the row among its request's rows in this call
                               * (0 for a request's first row; the Philox counter's third word) */
    const void *logits;       /* n_rows rows of `width` values, row_stride elements apart */
    ms_dtype dtype;
    int32_t width;            /* >= the spec's vocab_size; the row width is V when it is unset */
    int64_t row_stride;       /* 0 = width */
    bool apply_penalty;       /* as ms_step */
    bool apply_filters;
    int32_t *tokens;          /* out: n_rows tokens */
    int32_t *row_status;      /* out: n_rows ms_row_status; may be NULL */
} ms_cuda_rows;

/**
 * Device workspace (bytes) ms_cuda_sample_rows needs for n_rows rows (CUB pattern: ask, allocate
 * once, pass it on every call). 256-byte aligned pieces are carved from it, so its start must be
 * 256-byte aligned, as cudaMalloc returns it (else ms_cuda_sample_rows answers MS_EINVAL). n_rows < 0:
 * MS_ESHAPE.
 */
MS_API int ms_cuda_workspace_size(const ms_resource *res, int32_t n_rows, size_t *bytes);

/**
 * Draws one token per row like ms_sample, on device arrays, enqueued on the resource's stream.
 * workspace may be NULL to use the resource's own (sized at create for max_rows rows); then calls
 * on res must not overlap in time. Does not touch the host-side pending sample: commit with
 * ms_cuda_commit_rows. Rows of a request see its state as committed before the call.
 */
MS_API int ms_cuda_sample_rows(ms_resource *res, const ms_cuda_rows *rows, void *workspace, size_t workspace_bytes);

/**
 * Commits on the device, in row order, the tokens of rows whose row_kept[i] != 0 (row_kept NULL:
 * every row), whose slot is in use and whose token is >= 0: each joins its request's history and
 * seen set and the request's count n grows by one. Enqueued on the resource's stream.
 */
MS_API int ms_cuda_commit_rows(ms_resource *res, int32_t n_rows, const int32_t *row_slot, const uint8_t *row_kept,
                               const int32_t *tokens);

#ifdef __cplusplus
}
#endif
#endif /* MSAMPLER_H */
