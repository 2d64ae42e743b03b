/*
 * test_threads.c: the header's thread rules (issue 7), exercised by several threads at once.
 *
 *  - Distinct resources in distinct threads at the same time, each with its own worker pool
 *    (n_threads 1 to 3): every thread draws exactly the tokens the same workload draws alone.
 *  - The free functions (validation, derive_seed, strerror, exp, Philox) from many threads at once.
 *  - ms_last_create_error is per thread: each thread reads its own failure's message after all
 *    the others have failed with theirs.
 * Built normally these check results; built with ThreadSanitizer (-DMSAMPLER_TSAN=ON, CI's
 * build-tsan) any data race among the threads, or inside a resource's pool, fails the run.
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers under -std=c11 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "ms_test.h"
#include "msampler.h"

#define TH_N 4        /* concurrent threads (each with its own resource) */
#define TH_V 1000
#define TH_ROWS 12
#define TH_STEPS 30

typedef struct th_work {
    int index;
    int32_t pool_threads;   /* the resource's n_threads */
    ms_backend backend;
    uint64_t digest;        /* FNV-1a of every token drawn and every explain */
    int rc;                 /* first failure, 0 when none */
    pthread_barrier_t *barrier;
} th_work;

static uint64_t th_mix(uint64_t h, uint64_t v) {
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* One thread's workload: a resource of its own through ingest / plan / sample / commit with
 * kept_rids / accept / explain / remove. Deterministic in `index` alone. */
static void th_workload(th_work *w) {
    static const int32_t stops[2] = {1, 2};
    ms_spec s = ms_spec_default();
    s.resource_key = "threads";
    s.vocab_size = TH_V;
    s.enable_min_p = true;
    s.max_repetition_window = 8;
    s.min_tokens_stop_ids = stops;
    s.n_min_tokens_stop_ids = 2;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 8;
    p.max_rows = TH_ROWS;
    p.n_threads = w->pool_threads;
    p.backend = w->backend;
    ms_resource *res = NULL;
    w->digest = 0xcbf29ce484222325ull;
    w->rc = ms_resource_create(&res, &s, &p);
    if (w->rc) return;
    ms_trng r = {0x1000u + (uint64_t)w->index};
    for (int64_t rid = 0; rid < 6; rid++) {
        ms_req_config c = ms_req_config_default();
        c.temperature = 0.5f + 0.1f * (float)rid;
        c.top_k = rid % 2 ? 40 : 0;
        c.top_p = rid % 3 ? 0.9f : 1.0f;
        c.min_p = rid == 4 ? 0.05f : 0.0f;
        c.repetition_penalty = 1.3f;
        c.repetition_window = rid == 5 ? 8 : 0;
        c.min_tokens = rid == 3 ? 5 : 0;
        c.seed = (uint64_t)(w->index * 100 + rid);
        if ((w->rc = ms_ingest(res, rid, &c))) goto out;
    }
    int32_t prompt[16];
    for (int i = 0; i < 16; i++) prompt[i] = (int32_t)ms_trng_below(&r, TH_V);
    ms_prefill pf[2] = {{0, prompt, 16}, {2, prompt + 4, 8}};
    ms_step plan = ms_step_default();
    plan.prefill = pf;
    plan.n_prefill = 2;
    if ((w->rc = ms_plan(res, &plan))) goto out;

    static _Thread_local float logits[TH_ROWS * TH_V];
    for (int step = 0; step < TH_STEPS; step++) {
        int64_t rids[TH_ROWS];
        for (int i = 0; i < TH_ROWS; i++) rids[i] = (int64_t)ms_trng_below(&r, 6);
        for (int i = 0; i < TH_ROWS * TH_V; i++) logits[i] = (float)(2.0 * ms_trng_normal(&r));
        ms_batch b = {TH_ROWS, rids, logits, MS_DTYPE_F32, TH_V, 0};
        int32_t tokens[TH_ROWS], status[TH_ROWS];
        ms_step st = ms_step_default();
        if ((w->rc = ms_sample(res, &st, &b, tokens, status))) goto out;
        for (int i = 0; i < TH_ROWS; i++) w->digest = th_mix(w->digest, (uint64_t)(uint32_t)tokens[i]);
        int64_t kept[2] = {(int64_t)(step % 6), (int64_t)((step + 2) % 6)};
        ms_step cs = ms_step_default();
        if (step % 3) {
            cs.kept_rids = kept;
            cs.n_kept_rids = 2;
        }
        int n = ms_commit(res, &cs);
        if (n < 0) {
            w->rc = n;
            goto out;
        }
        w->digest = th_mix(w->digest, (uint64_t)n);
        if (step % 5 == 0) {
            int32_t acc[2] = {tokens[0] >= 0 ? tokens[0] : 0, 7};
            if ((w->rc = ms_accept(res, 1, acc, 2))) goto out;
            ms_explanation info;
            static _Thread_local int32_t ids[TH_V];
            if ((w->rc = ms_explain(res, &st, 4, logits, MS_DTYPE_F32, TH_V, TH_V, ids, NULL, NULL, &info))) goto out;
            w->digest = th_mix(w->digest, info.total_mass);
            w->digest = th_mix(w->digest, (uint64_t)info.n_kept);
        }
        if (step == TH_STEPS / 2) { /* a slot freed and taken again mid-run */
            ms_req_config c = ms_req_config_default();
            c.seed = 77;
            if ((w->rc = ms_remove(res, 5)) || (w->rc = ms_ingest(res, 5, &c))) goto out;
        }
    }
out:
    ms_resource_free(res);
}

static void *th_main(void *arg) {
    th_work *w = (th_work *)arg;
    pthread_barrier_wait(w->barrier); /* start together, so that the workloads overlap */
    th_workload(w);
    return NULL;
}

TEST(threads_parallel_resources) {
    th_work alone[TH_N], together[TH_N];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, TH_N);
    for (int i = 0; i < TH_N; i++) {
        /* pools of 1, 2 and 3 threads; one resource of the reference backend among them */
        th_work w = {i, 1 + i % 3, i == 3 ? MS_BACKEND_CPU_REF : MS_BACKEND_CPU, 0, 0, &barrier};
        alone[i] = together[i] = w;
        th_workload(&alone[i]); /* the same workload, one at a time */
        CHECK_MSG(alone[i].rc == 0, "workload %d alone: %s", i, ms_strerror(alone[i].rc));
    }
    pthread_t t[TH_N];
    for (int i = 0; i < TH_N; i++) REQUIRE(pthread_create(&t[i], NULL, th_main, &together[i]) == 0);
    for (int i = 0; i < TH_N; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < TH_N; i++) {
        CHECK_MSG(together[i].rc == 0, "workload %d in parallel: %s", i, ms_strerror(together[i].rc));
        CHECK_EQ_U64(together[i].digest, alone[i].digest);
    }
    /* the workloads differ from each other (the digest is not trivially constant) */
    CHECK(alone[0].digest != alone[1].digest);
}

/* ---- free functions and the thread-local create error -------------------------------------- */

typedef struct th_free {
    int index;
    pthread_barrier_t *barrier;
    int failures;
} th_free;

static void *th_free_main(void *arg) {
    th_free *f = (th_free *)arg;
    ms_spec spec = ms_spec_default();
    spec.vocab_size = 50;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = -(f->index + 1); /* each thread's own bad value, named in its message */
    ms_resource *res = NULL;
    if (ms_resource_create(&res, &spec, &p) != MS_EINVAL || res) f->failures++;
    char want[32];
    snprintf(want, sizeof want, "capacity=%d:", p.capacity);
    pthread_barrier_wait(f->barrier); /* every thread has failed with its own value by now */
    if (!strstr(ms_last_create_error(), want)) f->failures++;
    for (int i = 0; i < 2000; i++) {
        char msg[128];
        ms_req_config c = ms_req_config_default();
        c.top_p = (float)(i % 3) * 0.75f; /* 0: refused, 0.75 ok, 1.5 refused */
        int rc = ms_req_config_validate(&c, &spec, msg, sizeof msg);
        if (rc != ((i % 3) == 1 ? MS_OK : MS_ECONFIG)) f->failures++;
        if (ms_spec_check(&spec, msg, sizeof msg) != MS_OK) f->failures++;
        if (ms_derive_seed(42, "LLM_SAMPLER", 11) != 6373920217672001033LL) f->failures++;
        if (ms_req_config_apply_conductor(&c, 0, "talker") != MS_OK || c.seed != 1466087175172459492ULL) f->failures++;
        if (strcmp(ms_err_name(MS_ECONFIG), "ECONFIG") != 0 || !ms_strerror(i % 20 - 18)) f->failures++;
        uint32_t ctr[4] = {0, 0, 0, 0}, key[2] = {0, 0}, out[4];
        ms_philox4x32_10(ctr, key, out);
        if (out[0] != 0x6627e8d5u) f->failures++;
        if (ms_exp_f32(0.0f) != 1.0f) f->failures++;
    }
    if (!strstr(ms_last_create_error(), want)) f->failures++; /* still ours */
    return NULL;
}

TEST(threads_free_functions_and_create_error) {
    enum { N = 6 };
    th_free f[N];
    pthread_t t[N];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, N);
    for (int i = 0; i < N; i++) {
        f[i].index = i;
        f[i].barrier = &barrier;
        f[i].failures = 0;
        REQUIRE(pthread_create(&t[i], NULL, th_free_main, &f[i]) == 0);
    }
    for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < N; i++) CHECK_MSG(f[i].failures == 0, "thread %d: %d failures", i, f[i].failures);
}
