/* ms_bench.c: `msample bench` (issue 5): the CPU backend's time per row against one streaming pass
 * over the same logits (the floor) and against the reference backend (the baseline), measured in
 * the same run on the same inputs. Public API only.
 *
 * Inputs rotate over a pool of rows larger than the caches (--buffer-mb, default 256 MiB), so both
 * the sampler and the floor read the logits from memory, as an engine would right after the model.
 * Every configuration also checks that the fast backend's tokens equal the reference's. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ms_bench.h"
#include "msampler.h"

static const char *const ms__bench_usage =
    "usage: msample bench [OPTIONS]\n"
    "  --backend cpu|cuda       which backend to time (default cpu)\n"
    "  --vocab V[,V...]         vocabulary sizes (default 151936)\n"
    "  --batch B[,B...]         rows per call (default 1)\n"
    "  --threads N[,N...]       CPU threads of the resource, 0 = all cores (default 1)\n"
    "  --shape flat|peaked|both logits N(0,1), or 3 N(0,1) with 0.3% raised by 8 (default both)\n"
    "  --setting full|top-p|both  full: presence penalty over 64 seen tokens, T 0.7, min-p 0.05,\n"
    "                           top-k 50, top-p 0.9; top-p: T 0.7, top-p 0.9 alone (default both)\n"
    "  --reps R                 timed calls per configuration, median reported (default 15)\n"
    "  --buffer-mb MB           the logits rotate over at least this much memory (default 256)\n"
    "  --no-baseline            skip the reference backend (slow: it sorts the vocabulary)\n"
    "  --seed S                 input seed (default 1)\n"
    "  --device D               CUDA device (default 0)\n"
    "  --json                   one JSON line per configuration instead of the table\n";

void msample_bench_default_opts(ms_bench_opts *o) {
    memset(o, 0, sizeof *o);
    o->backend = "cpu";
    o->vocab[0] = 151936;
    o->n_vocab = 1;
    o->batch[0] = 1;
    o->n_batch = 1;
    o->threads[0] = 1;
    o->n_threads = 1;
    o->shapes[0] = MS_BENCH_FLAT;
    o->shapes[1] = MS_BENCH_PEAKED;
    o->n_shapes = 2;
    o->settings[0] = MS_BENCH_FULL;
    o->settings[1] = MS_BENCH_TOP_P;
    o->n_settings = 2;
    o->reps = 15;
    o->min_buffer_mb = 256;
    o->seed = 1;
}

static int ms__bench_list(const char *arg, int32_t *out, int *n, int32_t lo, int32_t hi, const char *name) {
    *n = 0;
    const char *p = arg;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < lo || v > hi || (*end && *end != ',') || *n >= MS_BENCH_MAX_LIST) {
            fprintf(stderr, "msample bench: %s=%s: expected up to %d integers in [%ld, %ld], comma-separated\n", name,
                    arg, MS_BENCH_MAX_LIST, (long)lo, (long)hi);
            return -1;
        }
        out[(*n)++] = (int32_t)v;
        p = *end ? end + 1 : end;
    }
    return *n ? 0 : -1;
}

static int ms__bench_parse(int argc, char **argv, ms_bench_opts *o) {
    msample_bench_default_opts(o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(ms__bench_usage, stdout);
            return 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--no-baseline") == 0) {
            o->no_baseline = true;
        } else if (!v) {
            fprintf(stderr, "msample bench: %s needs a value (or unknown option)\n%s", a, ms__bench_usage);
            return -1;
        } else {
            i++;
            if (strcmp(a, "--backend") == 0) {
                if (strcmp(v, "cpu") && strcmp(v, "cuda")) {
                    fprintf(stderr, "msample bench: --backend %s: expected cpu or cuda\n", v);
                    return -1;
                }
                o->backend = v;
            } else if (strcmp(a, "--vocab") == 0) {
                if (ms__bench_list(v, o->vocab, &o->n_vocab, 1, MS_MAX_VOCAB, "--vocab")) return -1;
            } else if (strcmp(a, "--batch") == 0) {
                if (ms__bench_list(v, o->batch, &o->n_batch, 1, 4096, "--batch")) return -1;
            } else if (strcmp(a, "--threads") == 0) {
                if (ms__bench_list(v, o->threads, &o->n_threads, 0, 1024, "--threads")) return -1;
            } else if (strcmp(a, "--shape") == 0) {
                if (!strcmp(v, "flat")) { o->shapes[0] = MS_BENCH_FLAT; o->n_shapes = 1; }
                else if (!strcmp(v, "peaked")) { o->shapes[0] = MS_BENCH_PEAKED; o->n_shapes = 1; }
                else if (!strcmp(v, "both")) { o->shapes[0] = MS_BENCH_FLAT; o->shapes[1] = MS_BENCH_PEAKED; o->n_shapes = 2; }
                else { fprintf(stderr, "msample bench: --shape %s: expected flat, peaked or both\n", v); return -1; }
            } else if (strcmp(a, "--setting") == 0) {
                if (!strcmp(v, "full")) { o->settings[0] = MS_BENCH_FULL; o->n_settings = 1; }
                else if (!strcmp(v, "top-p")) { o->settings[0] = MS_BENCH_TOP_P; o->n_settings = 1; }
                else if (!strcmp(v, "both")) { o->settings[0] = MS_BENCH_FULL; o->settings[1] = MS_BENCH_TOP_P; o->n_settings = 2; }
                else { fprintf(stderr, "msample bench: --setting %s: expected full, top-p or both\n", v); return -1; }
            } else if (strcmp(a, "--reps") == 0) {
                int32_t r[MS_BENCH_MAX_LIST];
                int n;
                if (ms__bench_list(v, r, &n, 1, 100000, "--reps") || n != 1) return -1;
                o->reps = r[0];
            } else if (strcmp(a, "--buffer-mb") == 0) {
                char *end;
                double mb = strtod(v, &end);
                if (*end || !(mb >= 0 && mb <= 65536)) {
                    fprintf(stderr, "msample bench: --buffer-mb %s: expected a number in [0, 65536]\n", v);
                    return -1;
                }
                o->min_buffer_mb = mb;
            } else if (strcmp(a, "--seed") == 0) {
                o->seed = strtoull(v, NULL, 10);
            } else if (strcmp(a, "--device") == 0) {
                o->device = atoi(v);
            } else {
                fprintf(stderr, "msample bench: unknown option %s\n%s", a, ms__bench_usage);
                return -1;
            }
        }
    }
    return 0;
}

/* ---- inputs ------------------------------------------------------------------------------------ */

static uint64_t ms__bench_rng(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Rows drawn from a table of 65536 standard normals (Box-Muller), indexed by random bits: fast
 * enough to fill hundreds of MiB, and the shape the issue names. */
static void ms__bench_fill(float *x, size_t n, ms_bench_shape shape, uint64_t seed) {
    static float table[65536];
    static int ready = 0;
    if (!ready) {
        uint64_t s = 12345;
        for (int i = 0; i < 65536; i += 2) {
            double u1 = ((double)(ms__bench_rng(&s) >> 11) + 1.0) / 9007199254740993.0;
            double u2 = (double)(ms__bench_rng(&s) >> 11) / 9007199254740992.0;
            double rad = sqrt(-2.0 * log(u1));
            table[i] = (float)(rad * cos(6.283185307179586 * u2));
            table[i + 1] = (float)(rad * sin(6.283185307179586 * u2));
        }
        ready = 1;
    }
    uint64_t s = seed;
    for (size_t i = 0; i < n; i += 4) {
        uint64_t r = ms__bench_rng(&s);
        for (size_t j = 0; j < 4 && i + j < n; j++) {
            float z = table[(r >> (16 * j)) & 0xffffu];
            x[i + j] = shape == MS_BENCH_FLAT ? z : 3.0f * z;
        }
        if (shape == MS_BENCH_PEAKED && (ms__bench_rng(&s) % 1000) < 12) /* 3 per 1000 of 4-token groups' tokens */
            x[i + (r >> 62)] += 8.0f;
    }
}

static double ms__bench_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int ms__bench_cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double ms__bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, ms__bench_cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The floor: one streaming pass (sum and max) over B rows, in 16-byte vectors (SSE2, every x86-64)
 * with four independent lanes each, so that memory, not the add latency, bounds it. The result is
 * kept so that the pass cannot be dropped. */
typedef float ms__bench_v4 __attribute__((vector_size(16)));
typedef int32_t ms__bench_i4 __attribute__((vector_size(16)));
typedef float ms__bench_v4u __attribute__((vector_size(16), aligned(4), may_alias)); /* unaligned loads */
static volatile float ms__bench_sink;
static void ms__bench_stream(const float *x, size_t n) {
    const ms__bench_v4 ninf = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    ms__bench_v4 s[4] = {{0}}, m[4] = {ninf, ninf, ninf, ninf};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 4; k++) {
            ms__bench_v4 a = *(const ms__bench_v4u *)(x + i + 4 * k);
            ms__bench_i4 gt = a > m[k];
            s[k] += a;
            m[k] = (ms__bench_v4)(((ms__bench_i4)a & gt) | ((ms__bench_i4)m[k] & ~gt));
        }
    float sum = 0, mx = -INFINITY;
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 4; j++) {
            sum += s[k][j];
            mx = m[k][j] > mx ? m[k][j] : mx;
        }
    for (; i < n; i++) {
        sum += x[i];
        mx = x[i] > mx ? x[i] : mx;
    }
    ms__bench_sink = sum + mx;
}

/* ---- one configuration ------------------------------------------------------------------------- */

typedef struct ms__bench_res {
    double us_per_row, floor_us_per_row, baseline_us_per_row;
    bool tokens_match;
    int err;
} ms__bench_res;

static ms_resource *ms__bench_resource(const ms_bench_opts *o, ms_backend backend, int32_t V, int32_t B,
                                       int32_t threads, ms_bench_setting setting, uint64_t seed) {
    ms_spec spec = ms_spec_default();
    spec.resource_key = "BENCH";
    spec.vocab_size = V;
    spec.enable_min_p = true;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = B;
    p.max_rows = B;
    p.backend = backend;
    p.n_threads = threads;
    ms_resource *res = NULL;
    if (ms_resource_create(&res, &spec, &p) < 0) {
        fprintf(stderr, "msample bench: %s\n", ms_last_create_error());
        return NULL;
    }
    ms_req_config c = ms_req_config_default();
    c.temperature = 0.7f;
    c.top_p = 0.9f;
    if (setting == MS_BENCH_FULL) {
        c.repetition_penalty = 1.2f;
        c.min_p = 0.05f;
        c.top_k = 50;
    }
    int32_t seen[64];
    for (int32_t r = 0; r < B; r++) {
        c.seed = seed + (uint64_t)r;
        if (ms_ingest(res, r, &c) < 0) {
            fprintf(stderr, "msample bench: %s\n", ms_resource_last_error(res));
            ms_resource_free(res);
            return NULL;
        }
        uint64_t s = seed * 31u + (uint64_t)r;
        for (int j = 0; j < 64; j++) seen[j] = (int32_t)(ms__bench_rng(&s) % (uint64_t)V);
        ms_prefill pf = {r, seen, 64};
        ms_step st = ms_step_default();
        st.prefill = &pf;
        st.n_prefill = 1;
        ms_plan(res, &st);
    }
    return res;
}

/* Median time per row of ms_sample over `reps` calls, batches rotating through the pool. */
static double ms__bench_time(ms_resource *res, const float *pool, int64_t pool_rows, int32_t V, int32_t B,
                             const int64_t *rids, int32_t *tokens, int reps, int warmup, int64_t *cursor) {
    double *t = (double *)malloc((size_t)reps * sizeof(double));
    if (!t) return -1;
    for (int i = -warmup; i < reps; i++) {
        if (*cursor + B > pool_rows) *cursor = 0;
        ms_batch b = {B, rids, pool + (size_t)*cursor * (size_t)V, MS_DTYPE_F32, V, 0};
        *cursor += B;
        double t0 = ms__bench_now_us();
        int rc = ms_sample(res, NULL, &b, tokens, NULL);
        double t1 = ms__bench_now_us();
        if (rc < 0) {
            free(t);
            return -1;
        }
        if (i >= 0) t[i] = (t1 - t0) / B;
    }
    double med = ms__bench_median(t, reps);
    free(t);
    return med;
}

static double ms__bench_floor(const float *pool, int64_t pool_rows, int32_t V, int32_t B, int reps, int64_t *cursor) {
    double *t = (double *)malloc((size_t)reps * sizeof(double));
    if (!t) return -1;
    for (int i = -2; i < reps; i++) {
        if (*cursor + B > pool_rows) *cursor = 0;
        const float *x = pool + (size_t)*cursor * (size_t)V;
        *cursor += B;
        double t0 = ms__bench_now_us();
        ms__bench_stream(x, (size_t)B * (size_t)V);
        double t1 = ms__bench_now_us();
        if (i >= 0) t[i] = (t1 - t0) / B;
    }
    double med = ms__bench_median(t, reps);
    free(t);
    return med;
}

static ms__bench_res ms__bench_one(const ms_bench_opts *o, const float *pool, int64_t pool_rows, int32_t V,
                                   int32_t B, int32_t threads, ms_bench_setting setting) {
    ms__bench_res r;
    memset(&r, 0, sizeof r);
    r.baseline_us_per_row = -1;
    int64_t *rids = (int64_t *)malloc((size_t)B * sizeof(int64_t));
    int32_t *tok = (int32_t *)malloc((size_t)B * sizeof(int32_t));
    int32_t *tok_ref = (int32_t *)malloc((size_t)B * sizeof(int32_t));
    ms_resource *fast = ms__bench_resource(o, MS_BACKEND_CPU, V, B, threads, setting, o->seed);
    ms_resource *ref = o->no_baseline ? NULL : ms__bench_resource(o, MS_BACKEND_CPU_REF, V, B, threads, setting, o->seed);
    if (!rids || !tok || !tok_ref || !fast || (!o->no_baseline && !ref)) {
        r.err = 1;
        goto done;
    }
    for (int32_t i = 0; i < B; i++) rids[i] = i;
    int64_t cursor = 0;
    r.us_per_row = ms__bench_time(fast, pool, pool_rows, V, B, rids, tok, o->reps, 2, &cursor);
    cursor = 0;
    r.floor_us_per_row = ms__bench_floor(pool, pool_rows, V, B, o->reps, &cursor);
    r.tokens_match = true;
    if (ref) {
        int reps = o->reps < 3 ? o->reps : 3; /* the reference sorts the vocabulary: ms per row */
        cursor = 0;
        r.baseline_us_per_row = ms__bench_time(ref, pool, pool_rows, V, B, rids, tok_ref, reps, 1, &cursor);
        /* the same batch through both: identical tokens (SPEC section 3) */
        for (int k = 0; k < 1; k++) {
            ms_batch b = {B, rids, pool + (size_t)k * (size_t)B * (size_t)V, MS_DTYPE_F32, V, 0};
            if ((int64_t)(k + 1) * B > pool_rows) break;
            if (ms_sample(fast, NULL, &b, tok, NULL) < 0 || ms_sample(ref, NULL, &b, tok_ref, NULL) < 0) {
                r.err = 1;
                break;
            }
            for (int32_t i = 0; i < B; i++) r.tokens_match = r.tokens_match && tok[i] == tok_ref[i];
        }
    }
    if (r.us_per_row < 0 || r.floor_us_per_row < 0) r.err = 1;
done:
    ms_resource_free(fast);
    ms_resource_free(ref);
    free(rids);
    free(tok);
    free(tok_ref);
    return r;
}

int msample_bench_main(int argc, char **argv) {
    ms_bench_opts o;
    int rc = ms__bench_parse(argc, argv, &o);
    if (rc) return rc > 0 ? 0 : 2;
    if (strcmp(o.backend, "cuda") == 0) {
#ifdef MSAMPLE_HAVE_BENCH_CUDA
        return msample_bench_cuda(&o);
#else
        fprintf(stderr, "msample bench: --backend cuda: this build has no CUDA backend (configure with "
                        "-DMSAMPLER_CUDA=ON where nvcc is available)\n");
        return 2;
#endif
    }
    static const char *const shape_names[2] = {"flat", "peaked"};
    static const char *const setting_names[2] = {"full", "top-p"};
    if (!o.json) {
        printf("# msample bench --backend cpu: medians of %d calls (baseline: %d), logits rotating over >= %.0f MiB\n",
               o.reps, o.reps < 3 ? o.reps : 3, o.min_buffer_mb);
        printf("# floor = one streaming pass (sum, max) over the same rows on one thread; baseline = MS_BACKEND_CPU_REF\n");
        printf("%-7s %-6s %7s %5s %7s %10s %10s %12s %8s %9s %6s\n", "shape", "set", "vocab", "batch", "threads",
               "us/row", "floor", "baseline", "x floor", "speedup", "same");
    }
    int status = 0;
    for (int vi = 0; vi < o.n_vocab; vi++) {
        const int32_t V = o.vocab[vi];
        int32_t maxB = 1;
        for (int bi = 0; bi < o.n_batch; bi++) maxB = o.batch[bi] > maxB ? o.batch[bi] : maxB;
        int64_t pool_rows = (int64_t)(o.min_buffer_mb * 1048576.0 / (4.0 * V)) + 1;
        if (pool_rows < 2 * maxB) pool_rows = 2 * maxB;
        float *pool = (float *)malloc((size_t)pool_rows * (size_t)V * sizeof(float));
        if (!pool) {
            fprintf(stderr, "msample bench: cannot allocate %lld rows of %d logits\n", (long long)pool_rows, (int)V);
            return 1;
        }
        for (int si = 0; si < o.n_shapes; si++) {
            ms__bench_fill(pool, (size_t)pool_rows * (size_t)V, o.shapes[si], o.seed * 1000003u + (uint64_t)V);
            for (int gi = 0; gi < o.n_settings; gi++)
                for (int bi = 0; bi < o.n_batch; bi++)
                    for (int ti = 0; ti < o.n_threads; ti++) {
                        const int32_t B = o.batch[bi], N = o.threads[ti];
                        ms__bench_res r = ms__bench_one(&o, pool, pool_rows, V, B, N, o.settings[gi]);
                        if (r.err) {
                            status = 1;
                            continue;
                        }
                        if (!r.tokens_match) status = 1;
                        const double ratio = r.us_per_row / r.floor_us_per_row;
                        const double speedup = r.baseline_us_per_row > 0 ? r.baseline_us_per_row / r.us_per_row : 0;
                        if (o.json) {
                            printf("{\"backend\":\"cpu\",\"vocab\":%d,\"batch\":%d,\"threads\":%d,\"shape\":\"%s\","
                                   "\"setting\":\"%s\",\"us_per_row\":%.2f,\"floor_us_per_row\":%.2f,"
                                   "\"baseline_us_per_row\":%.1f,\"ratio_to_floor\":%.3f,\"speedup_vs_baseline\":%.1f,"
                                   "\"tokens_match\":%s}\n",
                                   (int)V, (int)B, (int)N, shape_names[o.shapes[si]], setting_names[o.settings[gi]],
                                   r.us_per_row, r.floor_us_per_row, r.baseline_us_per_row, ratio, speedup,
                                   o.no_baseline ? "null" : (r.tokens_match ? "true" : "false"));
                        } else {
                            printf("%-7s %-6s %7d %5d %7d %10.2f %10.2f %12.1f %8.2f %9.1f %6s\n",
                                   shape_names[o.shapes[si]], setting_names[o.settings[gi]], (int)V, (int)B, (int)N,
                                   r.us_per_row, r.floor_us_per_row, r.baseline_us_per_row, ratio, speedup,
                                   o.no_baseline ? "-" : (r.tokens_match ? "yes" : "NO"));
                        }
                        fflush(stdout);
                    }
        }
        free(pool);
    }
    return status;
}
