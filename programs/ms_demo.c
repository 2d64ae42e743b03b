/*
 * ms_demo.c: `msample demo`, the README's main job (issue 3).
 *
 * A simulated serving loop: 32 requests with six kinds of settings join and leave a batch over 64
 * decode steps at vocab 151936. Each request's logits row is a function of (rid, n, last token) only,
 * shaped like a language model's (a Zipf profile over a fixed permutation, noise, a few context
 * tokens raised, the stop ids growing likelier with length). The run samples each setting as its own
 * sub-batch (timed); the baseline does the same on the reference backend (MS_BACKEND_CPU_REF); then a
 * replay on a fresh resource, with requests ingested in another order, all rows in one batch shuffled
 * per step and another thread count. All three must give identical tokens: a request's n-th token
 * depends only on its row, settings, seed and n (SPEC section 3).
 */
#define _POSIX_C_SOURCE 200809L
#include "ms_demo.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MSAMPLE_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* ---- sampling on host arrays for every backend ---------------------------------------------- */

int ms_demo_sample(ms_resource *res, const ms_step *step, const int64_t *rids, int32_t n_rows, const void *logits,
                   ms_dtype dtype, int32_t width, int32_t *tokens, int32_t *status, char *err, size_t err_size) {
    ms_batch b = {n_rows, rids, logits, dtype, width, 0};
    if (ms_resource_backend(res) != MS_BACKEND_CUDA) {
        int rc = ms_sample(res, step, &b, tokens, status);
        if (rc < 0) snprintf(err, err_size, "%s", ms_resource_last_error(res));
        return rc;
    }
#ifdef MSAMPLE_HAVE_CUDA
    /* the CUDA backend reads logits and writes tokens in device memory */
    const size_t esz = dtype == MS_DTYPE_F32 ? 4 : 2, n = n_rows > 0 ? (size_t)n_rows : 1;
    void *d_logits = NULL, *d_tokens = NULL, *d_status = NULL;
    int rc = MS_ECUDA;
    cudaError_t ce = cudaMalloc(&d_logits, n * (size_t)width * esz);
    if (ce == cudaSuccess) ce = cudaMalloc(&d_tokens, n * sizeof(int32_t));
    if (ce == cudaSuccess) ce = cudaMalloc(&d_status, n * sizeof(int32_t));
    if (ce == cudaSuccess) ce = cudaMemcpy(d_logits, logits, (size_t)n_rows * (size_t)width * esz, cudaMemcpyHostToDevice);
    /* a pageable copy may still be in flight when cudaMemcpy returns, and the library's stream need
     * not order after the default stream: wait before sampling */
    if (ce == cudaSuccess) ce = cudaDeviceSynchronize();
    if (ce == cudaSuccess) {
        b.logits = d_logits;
        rc = ms_sample(res, step, &b, (int32_t *)d_tokens, (int32_t *)d_status);
        if (rc < 0) snprintf(err, err_size, "%s", ms_resource_last_error(res));
        /* the library may use its own stream: wait for it before reading the results */
        if (rc >= 0) ce = cudaDeviceSynchronize();
        if (rc >= 0 && ce == cudaSuccess)
            ce = cudaMemcpy(tokens, d_tokens, (size_t)n_rows * sizeof(int32_t), cudaMemcpyDeviceToHost);
        if (rc >= 0 && ce == cudaSuccess && status)
            ce = cudaMemcpy(status, d_status, (size_t)n_rows * sizeof(int32_t), cudaMemcpyDeviceToHost);
    }
    if (ce != cudaSuccess) {
        rc = MS_ECUDA;
        snprintf(err, err_size, "CUDA: %s", cudaGetErrorString(ce));
    }
    cudaFree(d_logits);
    cudaFree(d_tokens);
    cudaFree(d_status);
    return rc;
#else
    snprintf(err, err_size, "the CUDA backend needs a CUDA-enabled build of msample");
    return MS_EBACKEND;
#endif
}

/* ---- the simulated workload ----------------------------------------------------------------- */

#define DEMO_REQUESTS 32
#define DEMO_GROUPS 6
#define DEMO_PROMPT 16
#define DEMO_CONTEXT 24 /* tokens raised per row: a model's plausible continuations */

static const char *const group_name[DEMO_GROUPS] = {
    "greedy (temperature 0)",
    "top-p 0.9, T 0.7",
    "top-k 40 then top-p 0.95, T 0.8",
    "min-p 0.05, presence penalty 1.2, T 1.0",
    "windowed penalty 1.3 over 64, min_tokens 16",
    "HF order: top-p 0.8, top-k 20, min_keep 5",
};

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct demo_req {
    int64_t rid;
    int group;
    int join_step, max_new;
    ms_req_config cfg;
    int32_t prompt[DEMO_PROMPT];
    /* outcome */
    int32_t *tokens;
    int n_tokens;
    int left_step; /* -1 while active */
    const char *ended;
} demo_req;

typedef struct demo {
    int32_t V, steps;
    ms_backend backend;
    float *base;      /* the Zipf profile over a fixed permutation of the vocabulary */
    int32_t stop_ids[2];
    demo_req req[DEMO_REQUESTS];
} demo;

static ms_req_config group_config(int g, int i) {
    ms_req_config c = ms_req_config_default();
    switch (g) {
    case 0: c.temperature = 0.0f; break;
    case 1: c.temperature = 0.7f; c.top_p = 0.9f; break;
    case 2: c.temperature = 0.8f; c.top_k = 40; c.top_p = 0.95f; break;
    case 3: c.temperature = 1.0f; c.min_p = 0.05f; c.repetition_penalty = 1.2f; break;
    case 4: c.temperature = 0.7f; c.repetition_penalty = 1.3f; c.repetition_window = 64; c.min_tokens = 16; break;
    default: c.temperature = 0.9f; c.top_p = 0.8f; c.top_k = 20; c.top_p_first = true; c.top_p_min_keep = 5; break;
    }
    ms_req_config_apply_conductor(&c, 1000 + i, "LLM_SAMPLER");
    return c;
}

static int demo_init(demo *d) {
    const int32_t V = d->V;
    d->stop_ids[0] = V >= 151646 ? 151643 : V - 2; /* Qwen's <|endoftext|> and <|im_end|> */
    d->stop_ids[1] = V >= 151646 ? 151645 : V - 1;
    d->base = malloc(sizeof(float) * (size_t)V);
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)V);
    if (!d->base || !perm) {
        free(perm);
        return -1;
    }
    uint64_t s = 12345;
    for (int32_t t = 0; t < V; t++) perm[t] = t;
    for (int32_t t = V - 1; t > 0; t--) {
        int32_t j = (int32_t)(splitmix64(&s) % (uint64_t)(t + 1)), tmp = perm[t];
        perm[t] = perm[j];
        perm[j] = tmp;
    }
    for (int32_t r = 0; r < V; r++) d->base[perm[r]] = (float)(-1.1 * log(1.0 + r));
    free(perm);
    for (int i = 0; i < DEMO_REQUESTS; i++) {
        demo_req *q = &d->req[i];
        memset(q, 0, sizeof *q);
        q->rid = 100 + 7 * i;
        q->group = i % DEMO_GROUPS;
        q->join_step = d->steps > 1 ? (int)((int64_t)i * (d->steps * 11 / 16) / (DEMO_REQUESTS - 1)) : 0;
        q->max_new = 8 + (i * 11) % 41;
        q->cfg = group_config(q->group, i);
        uint64_t ps = (uint64_t)q->rid * 31;
        for (int k = 0; k < DEMO_PROMPT; k++) q->prompt[k] = (int32_t)(splitmix64(&ps) % (uint64_t)(V > 2 ? V - 2 : 1));
        q->left_step = -1;
        if (!(q->tokens = malloc(sizeof(int32_t) * (size_t)(q->max_new > 0 ? q->max_new : 1)))) return -1;
    }
    return 0;
}

static void demo_free(demo *d) {
    free(d->base);
    for (int i = 0; i < DEMO_REQUESTS; i++) free(d->req[i].tokens);
}

/* The row a model would give request q after n tokens, the last being `last`: a function of those only. */
static void demo_logits(const demo *d, const demo_req *q, int n, int32_t last, float *x) {
    const int32_t V = d->V;
    uint64_t s = (uint64_t)q->rid * 0x100000001B3ull ^ (uint64_t)n << 40 ^ (uint64_t)(uint32_t)last;
    splitmix64(&s);
    uint64_t r = 0;
    for (int32_t t = 0; t < V; t++) {
        if ((t & 1) == 0) r = splitmix64(&s);
        uint32_t u = (uint32_t)(r >> ((t & 1) * 32));
        x[t] = d->base[t] + ((float)(u >> 8) * (1.0f / 16777216.0f) - 0.5f) * 3.0f;
    }
    for (int k = 0; k < DEMO_CONTEXT; k++) {
        uint64_t h = splitmix64(&s);
        x[h % (uint64_t)V] = 1.0f + (float)(h >> 60) * 0.25f; /* above the profile's head (0 + noise) */
    }
    for (int k = 0; k < 2; k++) x[d->stop_ids[k]] = -5.0f + 0.35f * (float)n;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct run_stats {
    double seconds[DEMO_GROUPS];
    int64_t rows[DEMO_GROUPS];
} run_stats;

/*
 * One pass of the serving loop. shuffled = 0: requests ingested in rid order and each setting sampled
 * as its own batch (timed into st); shuffled = 1: ingested in reverse order, all rows in one batch in
 * a shuffled order. Tokens go to out[i] (request i); record: also note when and why requests left.
 * Returns 0, or an exit status.
 */
static int demo_run(demo *d, const char *tag, int shuffled, ms_backend backend, int32_t n_threads, bool record,
                    int32_t **out, int *n_out, run_stats *st) {
    const int32_t V = d->V;
    ms_spec spec = ms_spec_default();
    spec.resource_key = "LLM_SAMPLER";
    spec.vocab_size = V;
    spec.enable_min_p = true;
    spec.max_repetition_window = 64;
    spec.min_tokens_stop_ids = d->stop_ids;
    spec.n_min_tokens_stop_ids = 2;
    spec.enable_top_p_first = true;
    ms_resource_params rp = ms_resource_params_default();
    rp.capacity = DEMO_REQUESTS;
    rp.backend = backend;
    rp.n_threads = n_threads;
    ms_resource *res = NULL;
    if (ms_resource_create(&res, &spec, &rp) < 0) {
        fprintf(stderr, "msample: demo: cannot build the resource: %s\n", ms_last_create_error());
        return 2;
    }
    float *logits = malloc(sizeof(float) * (size_t)V * DEMO_REQUESTS);
    int64_t rids[DEMO_REQUESTS];
    int idx[DEMO_REQUESTS], active[DEMO_REQUESTS];
    int32_t tokens[DEMO_REQUESTS], status[DEMO_REQUESTS];
    bool done[DEMO_REQUESTS];
    char err[512];
    int rc = 0;
    if (!logits) {
        fprintf(stderr, "msample: demo: out of memory\n");
        ms_resource_free(res);
        return 1;
    }
    memset(n_out, 0, sizeof(int) * DEMO_REQUESTS);
    memset(done, 0, sizeof done);
    uint64_t shuf = 0xC0FFEE;
    const double t0 = now_s();
    int finished = 0;
    for (int step = 0; step < d->steps && !rc; step++) {
        /* join: ingest and plan the prompt (reverse order in the replay, so slots differ) */
        ms_prefill pf[DEMO_REQUESTS];
        int np = 0;
        for (int k = 0; k < DEMO_REQUESTS; k++) {
            int i = shuffled ? DEMO_REQUESTS - 1 - k : k;
            demo_req *q = &d->req[i];
            if (q->join_step != step) continue;
            if (ms_ingest(res, q->rid, &q->cfg) < 0) {
                fprintf(stderr, "msample: demo: ingest %" PRId64 ": %s\n", q->rid, ms_resource_last_error(res));
                rc = 1;
                break;
            }
            pf[np++] = (ms_prefill){q->rid, q->prompt, DEMO_PROMPT};
        }
        ms_step plan = ms_step_default();
        plan.prefill = pf;
        plan.n_prefill = np;
        if (!rc && np && ms_plan(res, &plan) < 0) {
            fprintf(stderr, "msample: demo: plan: %s\n", ms_resource_last_error(res));
            rc = 1;
        }
        /* the active requests' rows */
        int n_active = 0;
        for (int i = 0; i < DEMO_REQUESTS; i++)
            if (d->req[i].join_step <= step && !done[i]) active[n_active++] = i;
        if (shuffled)
            for (int k = n_active - 1; k > 0; k--) {
                int j = (int)(splitmix64(&shuf) % (uint64_t)(k + 1)), tmp = active[k];
                active[k] = active[j];
                active[j] = tmp;
            }
        ms_step step_args = ms_step_default();
        /* one batch in the replay; one batch per setting in the timed run */
        for (int g = 0; g < (shuffled ? 1 : DEMO_GROUPS) && !rc; g++) {
            int n = 0;
            for (int k = 0; k < n_active; k++) {
                int i = active[k];
                if (!shuffled && d->req[i].group != g) continue;
                idx[n] = i;
                rids[n] = d->req[i].rid;
                int32_t last = n_out[i] ? out[i][n_out[i] - 1] : -1;
                demo_logits(d, &d->req[i], n_out[i], last, logits + (size_t)n * (size_t)V);
                n++;
            }
            if (n == 0) continue;
            double ts = now_s();
            if (ms_demo_sample(res, &step_args, rids, n, logits, MS_DTYPE_F32, V, tokens, status, err, sizeof err) < 0 ||
                ms_commit(res, &step_args) < 0) {
                fprintf(stderr, "msample: demo: step %d: %s\n", step, err[0] ? err : ms_resource_last_error(res));
                rc = 1;
                break;
            }
            if (!shuffled) {
                st->seconds[g] += now_s() - ts;
                st->rows[g] += n;
            }
            for (int k = 0; k < n; k++) {
                int i = idx[k];
                demo_req *q = &d->req[i];
                if (tokens[k] >= 0) out[i][n_out[i]++] = tokens[k];
                const bool stop = tokens[k] == d->stop_ids[0] || tokens[k] == d->stop_ids[1];
                if (stop || tokens[k] < 0 || n_out[i] >= q->max_new) {
                    done[i] = true;
                    finished++;
                    if (record) {
                        q->left_step = step;
                        q->ended = stop ? "stop id" : tokens[k] < 0 ? "empty row" : "length";
                    }
                    ms_remove(res, q->rid);
                }
            }
        }
        if ((step + 1) % 8 == 0 || step + 1 == d->steps)
            fprintf(stderr, "[%s] step %2d/%d: %2d rows, %2d requests finished, %.1f s\n", tag, step + 1, d->steps,
                    n_active, finished, now_s() - t0);
    }
    free(logits);
    ms_resource_free(res);
    return rc;
}

static double per_row_us(double seconds, int64_t rows) { return rows ? 1e6 * seconds / (double)rows : 0.0; }

/* Requests whose token lists are equal; *diff counts the tokens that differ (or are missing). */
static int count_same(int32_t *const *a, const int *na, int32_t *const *b, const int *nb, int64_t *diff) {
    int same = 0;
    *diff = 0;
    for (int i = 0; i < DEMO_REQUESTS; i++) {
        const int n = na[i] < nb[i] ? na[i] : nb[i];
        int64_t dd = na[i] > nb[i] ? na[i] - nb[i] : nb[i] - na[i];
        for (int k = 0; k < n; k++) dd += a[i][k] != b[i][k];
        same += dd == 0;
        *diff += dd;
    }
    return same;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

int ms_demo_main(int argc, char **argv) {
    demo d;
    memset(&d, 0, sizeof d);
    d.V = 151936;
    d.steps = 64;
    d.backend = MS_BACKEND_CPU;
    bool with_baseline = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int x;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("usage: msample demo [--steps N] [--vocab V] [--backend cpu|cpu-ref|cuda] [--no-baseline]\n"
                   "A simulated serving loop: %d requests, six kinds of settings, joining and leaving;\n"
                   "the same run on the reference backend (the baseline, unless --no-baseline); then a\n"
                   "replay with shuffled batches. All must give identical tokens.\n"
                   "Defaults: --steps 64 --vocab 151936 --backend cpu. Manual: docs/msample.md\n",
                   DEMO_REQUESTS);
            return 0;
        } else if (strcmp(a, "--no-baseline") == 0) {
            with_baseline = false;
        } else if (strcmp(a, "--steps") == 0 && v && parse_int(v, 1, 4096, &x) == 0) {
            d.steps = x;
            i++;
        } else if (strcmp(a, "--vocab") == 0 && v && parse_int(v, 64, MS_MAX_VOCAB, &x) == 0) {
            d.V = x;
            i++;
        } else if (strcmp(a, "--backend") == 0 && v &&
                   (strcmp(v, "cpu") == 0 || strcmp(v, "cpu-ref") == 0 || strcmp(v, "cuda") == 0)) {
            d.backend = strcmp(v, "cpu") == 0 ? MS_BACKEND_CPU : strcmp(v, "cpu-ref") == 0 ? MS_BACKEND_CPU_REF
                                                                                            : MS_BACKEND_CUDA;
            i++;
        } else {
            fprintf(stderr, "msample: demo: bad option '%s'%s (try msample demo --help)\n", a,
                    (strcmp(a, "--steps") == 0 || strcmp(a, "--vocab") == 0 || strcmp(a, "--backend") == 0)
                        ? " or value"
                        : "");
            return 2;
        }
    }
    if (demo_init(&d) < 0) {
        fprintf(stderr, "msample: demo: out of memory\n");
        demo_free(&d);
        return 1;
    }
    const char *bname = d.backend == MS_BACKEND_CPU ? "cpu" : d.backend == MS_BACKEND_CPU_REF ? "cpu-ref" : "cuda";
    fprintf(stderr, "msample demo: %d requests, %d decode steps, vocab %d, backend %s\n", DEMO_REQUESTS, d.steps,
            (int)d.V, bname);
    /* out1: the timed run; out2: the shuffled replay; out3: the baseline on the reference backend */
    int32_t *out1[DEMO_REQUESTS], *out2[DEMO_REQUESTS], *out3[DEMO_REQUESTS];
    int rc = 0;
    for (int i = 0; i < DEMO_REQUESTS; i++) {
        out1[i] = d.req[i].tokens;
        out2[i] = malloc(sizeof(int32_t) * (size_t)d.req[i].max_new);
        out3[i] = malloc(sizeof(int32_t) * (size_t)d.req[i].max_new);
        if (!out2[i] || !out3[i]) rc = 1;
    }
    const bool baseline = with_baseline && d.backend != MS_BACKEND_CPU_REF;
    int n1[DEMO_REQUESTS], n2[DEMO_REQUESTS], n3[DEMO_REQUESTS];
    run_stats st1, st2, st3;
    memset(&st1, 0, sizeof st1);
    memset(&st2, 0, sizeof st2);
    memset(&st3, 0, sizeof st3);
    /* the timed run on one thread; the baseline: the same on the reference backend; the replay:
     * another ingest order, one shuffled batch per step, all cores */
    if (!rc) rc = demo_run(&d, "run", 0, d.backend, 1, true, out1, n1, &st1);
    for (int i = 0; i < DEMO_REQUESTS; i++) d.req[i].n_tokens = n1[i];
    if (!rc && baseline) rc = demo_run(&d, "baseline cpu-ref", 0, MS_BACKEND_CPU_REF, 1, false, out3, n3, &st3);
    if (!rc) rc = demo_run(&d, "replay", 1, d.backend, 0, false, out2, n2, &st2);
    if (!rc) {
        printf("msample demo: %d requests joining and leaving over %d decode steps, vocab %d, backend %s\n\n",
               DEMO_REQUESTS, d.steps, (int)d.V, bname);
        double all_s = 0, all_ref = 0;
        int64_t all_rows = 0, all_tok = 0;
        for (int g = 0; g < DEMO_GROUPS; g++) {
            printf("%s\n", group_name[g]);
            printf("  %5s %6s %5s %6s %-9s %s\n", "rid", "joined", "left", "tokens", "ended", "first tokens");
            for (int i = 0; i < DEMO_REQUESTS; i++) {
                const demo_req *q = &d.req[i];
                if (q->group != g) continue;
                char left[16];
                if (q->left_step >= 0) snprintf(left, sizeof left, "%d", q->left_step);
                else snprintf(left, sizeof left, "%s", q->join_step < d.steps ? "-" : "never");
                printf("  %5" PRId64 " %6d %5s %6d %-9s", q->rid, q->join_step, left, q->n_tokens,
                       q->left_step >= 0 ? q->ended : q->join_step < d.steps ? "running" : "-");
                for (int k = 0; k < q->n_tokens && k < 6; k++) printf(" %d", (int)q->tokens[k]);
                printf("%s\n", q->n_tokens > 6 ? " ..." : "");
                all_tok += q->n_tokens;
            }
            printf("  %" PRId64 " rows sampled in %.3f s: %.1f us/row\n\n", st1.rows[g], st1.seconds[g],
                   per_row_us(st1.seconds[g], st1.rows[g]));
            all_s += st1.seconds[g];
            all_ref += st3.seconds[g];
            all_rows += st1.rows[g];
        }
        printf("time per row, one thread, each setting as its own batch%s\n",
               baseline ? "; baseline: the reference backend (cpu-ref) on the same rows" : "");
        printf("%-46s %6s %8s %10s", "setting", "rows", "tokens", "us/row");
        if (baseline) printf(" %12s %8s", "baseline", "speedup");
        printf("\n");
        for (int g = 0; g <= DEMO_GROUPS; g++) {
            int64_t tok = 0;
            for (int i = 0; i < DEMO_REQUESTS; i++)
                if (g == DEMO_GROUPS || d.req[i].group == g) tok += d.req[i].n_tokens;
            const int64_t rows = g < DEMO_GROUPS ? st1.rows[g] : all_rows;
            const double sec = g < DEMO_GROUPS ? st1.seconds[g] : all_s;
            const double ref = g < DEMO_GROUPS ? st3.seconds[g] : all_ref;
            printf("%-46s %6" PRId64 " %8" PRId64 " %10.1f", g < DEMO_GROUPS ? group_name[g] : "all", rows, tok,
                   per_row_us(sec, rows));
            if (baseline) printf(" %12.1f %7.1fx", per_row_us(ref, rows), sec > 0 ? ref / sec : 0.0);
            printf("\n");
        }
        printf("\n");
        /* determinism: every request's tokens must match the replay's (and the baseline's) */
        int64_t diff2 = 0, diff3 = 0;
        const int same2 = count_same(out1, n1, out2, n2, &diff2);
        const int same3 = baseline ? count_same(out1, n1, out3, n3, &diff3) : DEMO_REQUESTS;
        printf("determinism: replayed with requests ingested in reverse order, every step's rows in one\n"
               "shuffled batch and all cores: %d/%d requests identical (%" PRId64 " tokens, %" PRId64 " differ)\n",
               same2, DEMO_REQUESTS, all_tok, diff2);
        if (baseline)
            printf("the reference backend (cpu-ref): %d/%d requests identical (%" PRId64 " tokens, %" PRId64
                   " differ)\n", same3, DEMO_REQUESTS, all_tok, diff3);
        if (same2 != DEMO_REQUESTS || same3 != DEMO_REQUESTS) {
            printf("determinism: FAILED\n");
            rc = 1;
        }
    }
    for (int i = 0; i < DEMO_REQUESTS; i++) free(out3[i]);
    for (int i = 0; i < DEMO_REQUESTS; i++) free(out2[i]);
    demo_free(&d);
    return rc;
}
