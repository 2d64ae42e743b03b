/*
 * test_alloc.c: "the library allocates only in ms_resource_create" and "never prints"
 * (include/msampler.h), checked by counting every heap allocation of the process, and catching
 * everything written to stdout and stderr, while a resource ingests, plans, samples, commits,
 * accepts, explains and removes, with good and bad inputs (issue 7).
 *
 * The runner replaces malloc and friends with counting wrappers around glibc's __libc_* entry
 * points. Interposed at the symbol level, they also see allocations made on the library's behalf
 * inside libc (qsort, for one, may take a buffer from malloc) and by its worker threads. glibc only;
 * not built with the sanitizers, which bring their own allocator (tests/alloc/CMakeLists.txt).
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ms_cpu.h" /* ms__cpu_team_helped */
#include "ms_test.h"
#include "msampler.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static atomic_int al_counting;
static atomic_long al_count;
static int64_t al_helped; /* chunks the last session's workers did inside rows (one row over the pool) */

static void al_note(void) {
    if (atomic_load(&al_counting)) atomic_fetch_add(&al_count, 1);
}
void *malloc(size_t n) {
    al_note();
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
    al_note();
    return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
    al_note();
    return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
void *aligned_alloc(size_t align, size_t n) {
    al_note();
    return __libc_memalign(align, n);
}
void *memalign(size_t align, size_t n) {
    al_note();
    return __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n) {
    al_note();
    void *p = __libc_memalign(align, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

static void al_fill(float *x, int32_t n, ms_trng *r) {
    for (int32_t i = 0; i < n; i++) x[i] = (float)(3.0 * ms_trng_normal(r));
}

/* Everything but create and free, counted; returns the number of allocations seen. */
static long al_session(ms_backend backend, int32_t threads, int32_t V, int32_t rows) {
    static const int32_t stops[2] = {3, 4};
    ms_spec s = ms_spec_default();
    s.vocab_size = V;
    s.enable_min_p = true;
    s.max_repetition_window = 16;
    s.min_tokens_stop_ids = stops;
    s.n_min_tokens_stop_ids = 2;
    s.enable_top_p_first = true;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 8;
    p.max_rows = rows;
    p.backend = backend;
    p.n_threads = threads;
    ms_resource *res = NULL;
    if (ms_resource_create(&res, &s, &p) != MS_OK) {
        MS_FAIL_AT("create: %s", ms_last_create_error());
        return -1;
    }
    /* inputs are made before counting starts */
    float *logits = (float *)__libc_malloc((size_t)rows * (size_t)V * sizeof(float));
    int32_t *ids = (int32_t *)__libc_malloc((size_t)V * sizeof(int32_t));
    double *probs = (double *)__libc_malloc((size_t)V * sizeof(double));
    int32_t tokens[64], status[64];
    int64_t rids[64];
    ms_trng r = {(uint64_t)V * 31u + (uint64_t)threads};
    al_fill(logits, rows * V, &r);
    ms_req_config cfgs[4];
    for (int i = 0; i < 4; i++) {
        cfgs[i] = ms_req_config_default();
        cfgs[i].seed = (uint64_t)i;
    }
    cfgs[0].top_k = 50, cfgs[0].top_p = 0.9f, cfgs[0].min_p = 0.01f, cfgs[0].repetition_penalty = 1.2f;
    cfgs[1].top_p = 0.95f, cfgs[1].top_p_first = true, cfgs[1].top_k = V / 2, cfgs[1].top_p_min_keep = 5;
    cfgs[2].repetition_window = 16, cfgs[2].repetition_penalty = 1.5f, cfgs[2].min_tokens = 3, cfgs[2].top_k = 1000;
    cfgs[3].temperature = 0.0f, cfgs[3].repetition_penalty = 0.9f;
    int32_t prompt[64];
    for (int i = 0; i < 64; i++) prompt[i] = (int32_t)ms_trng_below(&r, (uint32_t)V);
    ms_prefill pf = {0, prompt, 64};
    ms_step plan = ms_step_default();
    plan.prefill = &pf;
    plan.n_prefill = 1;
    int64_t kept[2] = {1, 2};
    ms_explanation info;

    /* stdout and stderr go to a file while the library works: it must stay empty */
    fflush(stdout);
    fflush(stderr);
    FILE *out = tmpfile();
    int saved_out = dup(1), saved_err = dup(2);
    const int failures_before = ms_test_failures;
    if (!out || saved_out < 0 || saved_err < 0 || dup2(fileno(out), 1) < 0 || dup2(fileno(out), 2) < 0) {
        MS_FAIL_AT("could not redirect stdout and stderr");
        return -1;
    }
    atomic_store(&al_count, 0);
    atomic_store(&al_counting, 1);
    for (int i = 0; i < 4; i++) CHECK_EQ_I64(ms_ingest(res, i, &cfgs[i]), MS_OK);
    CHECK_EQ_I64(ms_plan(res, &plan), MS_OK);
    for (int step = 0; step < 6; step++) {
        for (int i = 0; i < rows; i++) rids[i] = i % 4;
        ms_batch b = {rows, rids, logits, MS_DTYPE_F32, V, 0};
        ms_step st = ms_step_default();
        st.apply_filters = step != 3;
        CHECK_EQ_I64(ms_sample(res, &st, &b, tokens, status), MS_OK);
        ms_step cs = ms_step_default();
        if (step % 2) {
            cs.kept_rids = kept;
            cs.n_kept_rids = 2;
        }
        CHECK(ms_commit(res, &cs) >= 0);
        int32_t acc[3] = {1, 2, 1};
        CHECK_EQ_I64(ms_accept(res, 3, acc, 3), MS_OK);
        for (int i = 0; i < 4; i++)
            CHECK_EQ_I64(ms_explain(res, &st, i, logits, MS_DTYPE_F32, V, V, ids, probs, NULL, &info), MS_OK);
        /* failing calls too */
        CHECK(ms_ingest(res, 0, &cfgs[0]) == MS_EEXIST && ms_remove(res, 99) == MS_ENOENT);
    }
    CHECK_EQ_I64(ms_remove(res, 2), MS_OK);
    CHECK_EQ_I64(ms_ingest(res, 2, &cfgs[2]), MS_OK);
    ms_explain(res, NULL, 77, logits, MS_DTYPE_F32, V, V, ids, probs, NULL, &info); /* refused: unknown id */
    ms_sample(res, NULL, NULL, tokens, NULL);                                       /* refused: no batch */
    atomic_store(&al_counting, 0);
    long n = atomic_load(&al_count);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    struct stat st_out;
    CHECK(fstat(fileno(out), &st_out) == 0);
    const int failed_inside = ms_test_failures - failures_before;
    if (failed_inside) /* their messages went to the file too */
        fprintf(stderr, "  (%d checks failed while output was redirected)\n", failed_inside);
    else
        CHECK_MSG(st_out.st_size == 0, "%lld bytes written to stdout/stderr during the calls", (long long)st_out.st_size);
    fclose(out);

    __libc_free(logits);
    __libc_free(ids);
    __libc_free(probs);
    al_helped = backend == MS_BACKEND_CPU ? ms__cpu_team_helped(res) : 0;
    ms_resource_free(res);
    return n;
}

TEST(no_allocation_after_create_cpu) {
    static const int32_t vocabs[3] = {1000, 32000, 151936};
    for (int32_t threads = 1; threads <= 3; threads += 2)
        for (int v = 0; v < 3; v++) {
            const int32_t V = vocabs[v];
            long n = al_session(MS_BACKEND_CPU, threads, V, 12);
            CHECK_MSG(n == 0, "fast CPU backend, %d threads, V=%d: %ld allocations after create", threads, V, n);
        }
}

TEST(no_allocation_after_create_cpu_ref) {
    for (int32_t V = 1000; V <= 32000; V += 31000) {
        long n = al_session(MS_BACKEND_CPU_REF, 1, V, 6);
        CHECK_MSG(n == 0, "reference backend, V=%d: %ld allocations after create", V, n);
    }
}

/* Fewer rows than threads: the rows run on the caller and the workers help inside them (the
 * team of src/ms_cpu.c, whose per-chunk workspace is made at create). Rows 1 and 2 on 2 and 3
 * threads at V=151936; the no-filter step and the top-p-first row take the split passes, and the
 * workers must really have done chunks, or this would test nothing new. */
TEST(no_allocation_one_row_over_pool) {
    int64_t helped = 0;
    for (int32_t threads = 2; threads <= 3; threads++)
        for (int32_t rows = 1; rows < threads; rows++) {
            long n = al_session(MS_BACKEND_CPU, threads, 151936, rows);
            CHECK_MSG(n == 0, "fast CPU backend, %d threads, %d rows: %ld allocations after create", threads, rows, n);
            helped += al_helped;
        }
    CHECK_MSG(helped > 0, "no chunk was done by a worker: the split path did not run");
}

/* The counter itself works: an allocation while counting is seen. */
TEST(allocation_counter_counts) {
    atomic_store(&al_count, 0);
    atomic_store(&al_counting, 1);
    void *volatile p = malloc(100);
    uint64_t keys[300];
    for (int i = 0; i < 300; i++) keys[i] = (uint64_t)(300 - i);
    atomic_store(&al_counting, 0);
    free(p);
    (void)keys;
    CHECK(atomic_load(&al_count) >= 1);
}
