/* ms_cpu.c: CPU row scheduling: the row function of the backend and the resource's worker pool.
 *
 * The pool is made at ms_resource_create (params.n_threads threads in all, the caller's included,
 * so n_threads - 1 workers) and lives until ms_resource_free. A sample call publishes its rows and
 * wakes the workers; everybody, the caller too, takes rows from one atomic counter, each with its
 * own scratch (res->scratch[i]) and the default MXCSR. Rows are independent, so any schedule draws
 * the same tokens. A call of one row never wakes anybody (batch 1 is latency). Nothing is
 * allocated while sampling. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ms_cpu.h"

typedef struct ms_cpu_pool ms_cpu_pool;

typedef struct ms_cpu_worker {
    ms_cpu_pool *pool;
    int32_t index; /* scratch index; 0 is the caller's */
    pthread_t thread;
} ms_cpu_worker;

struct ms_cpu_pool {
    ms_resource *res;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    uint64_t generation;      /* bumped per published call */
    bool stop;
    const ms_cpu_rows *rows;  /* the call being served */
    atomic_int next_row;
    atomic_int rows_left;     /* rows not finished yet */
    int32_t busy;             /* workers inside the current call */
    int32_t n_workers;
    ms_cpu_worker *workers;
};

static void ms__cpu_row(ms_resource *res, const ms_cpu_rows *rows, int32_t i, ms_scratch *s) {
    ms_row_job job;
    ms_row_out out;
    ms__fill_job(res, res->row_slot[i], rows->step, &job);
    job.row_k = (uint32_t)res->row_k[i];
    job.V = rows->V;
    job.dtype = rows->batch->dtype;
    job.row = (const char *)rows->batch->logits + (size_t)i * (size_t)rows->stride * rows->elem_size;
    res->row_fn(&job, s, true, &out);
    rows->tokens[i] = out.token;
    if (rows->row_status) rows->row_status[i] = out.status;
}

/* Takes rows until none is left; returns how many this thread did. */
static int32_t ms__cpu_take_rows(ms_cpu_pool *pool, const ms_cpu_rows *rows, ms_scratch *s) {
    const int32_t n = rows->batch->n_rows;
    int32_t done = 0;
    for (;;) {
        int32_t i = atomic_fetch_add_explicit(&pool->next_row, 1, memory_order_relaxed);
        if (i >= n) break;
        ms__cpu_row(pool->res, rows, i, s);
        done++;
    }
    return done;
}

static void *ms__cpu_worker_main(void *arg) {
    ms_cpu_worker *wk = (ms_cpu_worker *)arg;
    ms_cpu_pool *pool = wk->pool;
    ms_scratch *s = &pool->res->scratch[wk->index];
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->mu);
    for (;;) {
        while (!pool->stop && pool->generation == seen) pthread_cond_wait(&pool->wake, &pool->mu);
        if (pool->stop) break;
        seen = pool->generation;
        const ms_cpu_rows *rows = pool->rows;
        if (!rows) continue; /* woke after that call had finished without us */
        pool->busy++;
        pthread_mutex_unlock(&pool->mu);
        unsigned env = ms__fpenv_enter();
        int32_t did = ms__cpu_take_rows(pool, rows, s);
        ms__fpenv_leave(env);
        pthread_mutex_lock(&pool->mu);
        pool->busy--;
        if (atomic_fetch_sub_explicit(&pool->rows_left, did, memory_order_acq_rel) == did || pool->busy == 0)
            pthread_cond_broadcast(&pool->done);
    }
    pthread_mutex_unlock(&pool->mu);
    return NULL;
}

int ms__cpu_init(ms_resource *res) {
    res->row_fn = res->params.backend == MS_BACKEND_CPU_REF ? ms__ref_row : ms__fast_row;
    (void)ms__cpu_fast_level(); /* settle the SIMD level now, not inside a timed call */
    if (res->params.backend == MS_BACKEND_CPU)
        for (int32_t i = 0; i < res->n_scratch; i++)
            if (ms__fast_scratch_init(&res->scratch[i], res->scratch_V) < 0)
                return ms__fail(res, MS_ENOMEM, "CPU workspace");
    const int32_t n_workers = res->n_scratch - 1;
    if (n_workers <= 0) return MS_OK;
    ms_cpu_pool *pool = (ms_cpu_pool *)calloc(1, sizeof *pool);
    if (!pool) return ms__fail(res, MS_ENOMEM, "thread pool");
    pool->workers = (ms_cpu_worker *)calloc((size_t)n_workers, sizeof *pool->workers);
    if (!pool->workers) {
        free(pool);
        return ms__fail(res, MS_ENOMEM, "thread pool");
    }
    pool->res = res;
    pthread_mutex_init(&pool->mu, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    res->backend_state = pool;
    for (int32_t i = 0; i < n_workers; i++) {
        ms_cpu_worker *wk = &pool->workers[i];
        wk->pool = pool;
        wk->index = i + 1;
        if (pthread_create(&wk->thread, NULL, ms__cpu_worker_main, wk) != 0)
            return ms__fail(res, MS_ENOMEM, "could not start CPU worker %d of %d", (int)i + 1, (int)n_workers);
        pool->n_workers++;
    }
    return MS_OK;
}

void ms__cpu_destroy(ms_resource *res) {
    if (res->params.backend == MS_BACKEND_CUDA) return;
    if (res->scratch)
        for (int32_t i = 0; i < res->n_scratch; i++) ms__fast_scratch_free(&res->scratch[i]);
    ms_cpu_pool *pool = (ms_cpu_pool *)res->backend_state;
    if (!pool) return;
    pthread_mutex_lock(&pool->mu);
    pool->stop = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
    for (int32_t i = 0; i < pool->n_workers; i++) pthread_join(pool->workers[i].thread, NULL);
    pthread_mutex_destroy(&pool->mu);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    free(pool->workers);
    free(pool);
    res->backend_state = NULL;
}

void ms__cpu_sample_rows(ms_resource *res, const ms_cpu_rows *rows) {
    ms_cpu_pool *pool = (ms_cpu_pool *)res->backend_state;
    const int32_t n = rows->batch->n_rows;
    if (!pool || n <= 1) {
        for (int32_t i = 0; i < n; i++) ms__cpu_row(res, rows, i, &res->scratch[0]);
        return;
    }
    pthread_mutex_lock(&pool->mu);
    pool->rows = rows;
    atomic_store_explicit(&pool->next_row, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->rows_left, n, memory_order_relaxed);
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);

    int32_t did = ms__cpu_take_rows(pool, rows, &res->scratch[0]); /* the caller's fpenv is set */

    pthread_mutex_lock(&pool->mu);
    atomic_fetch_sub_explicit(&pool->rows_left, did, memory_order_acq_rel);
    /* wait until every row is written and no worker still holds this call's rows */
    while (atomic_load_explicit(&pool->rows_left, memory_order_acquire) > 0 || pool->busy > 0)
        pthread_cond_wait(&pool->done, &pool->mu);
    pool->rows = NULL;
    pthread_mutex_unlock(&pool->mu);
}
