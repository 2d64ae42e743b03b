/* ms_cpu.c: CPU row scheduling: the row function of the backend and the resource's worker pool.
 *
 * The pool is made at ms_resource_create (params.n_threads threads in all, the caller's included,
 * so n_threads - 1 workers) and lives until ms_resource_free. A sample call publishes its rows and
 * wakes the workers; everybody, the caller too, takes rows from one atomic counter, each with its
 * own scratch (res->scratch[i]) and the default MXCSR. Rows are independent, so any schedule draws
 * the same tokens. Nothing is allocated while sampling.
 *
 * A call with fewer rows than threads (batch 1: latency) runs its rows on the caller, and the
 * workers join the caller's scratch's team (round 5): inside a row, ms__cpu_team_for hands out
 * chunks of its heavy passes. A worker still waking up costs the caller nothing (chunks are
 * claimed, not assigned); after a call a worker spins a few tens of microseconds before it sleeps,
 * so back-to-back calls find it awake (a condvar wake takes 10-50 us on the development VM). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#if defined(__SSE2__)
#  include <immintrin.h>
#endif

#include "ms_cpu.h"

typedef struct ms_cpu_pool ms_cpu_pool;

struct ms_cpu_team {
    /* seq << 32 | back << 16 | front: the chunks in [front, back) are left; the caller takes them
     * from the front, workers from the back, so that in successive passes over a row each thread
     * mostly gets the range it had (its cache holds it). A claim names its task, so a late worker
     * cannot take a chunk of a newer task with an older task's function. */
    _Atomic uint64_t claim;
    atomic_int done;     /* chunks finished in the current task */
    atomic_bool on;      /* the workers serve this team (set by the caller for one call) */
    atomic_int sleepers; /* threads blocked on cv (workers waiting for a task, the caller for done) */
    atomic_llong helped; /* chunks done by workers (tests check that splitting really happens) */
    uint32_t seq;
    bool slow; /* the caller had to block for a worker in this call: the rest of the call goes alone */
    ms_cpu_chunk_fn fn; /* written before claim is published; stable until done reaches n */
    void *ctx;
    /* Spinning first, then blocking: on a machine whose cores are busy with other work, a spinning
     * thread takes the core that the thread it waits for needs (a preempted worker holding a chunk
     * stalled the caller a whole time slice, ~4 ms a row, with a compiler running beside it);
     * blocking lets the scheduler move the preempted one onto the idle core. */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* How long a thread spins before it blocks: a worker waiting for the next call, or in a call for the
 * next task (the serial steps between a row's passes take ~10-30 us); the caller waiting for a
 * worker's chunk (a chunk is ~5 us of work: 20x that means the worker was preempted, which on a
 * loaded machine lasts a time slice, milliseconds). After such a call the next MS_CPU_TEAM_SKIP
 * calls go without the team: with 32 a moderately loaded machine lost most of the split's gain
 * (one event, 32 calls alone), with none a machine whose other core ran a compiler paid a stall
 * nearly every call (2 threads at B=1 slower than 1). */
#ifndef MS_CPU_SPIN_NS
#define MS_CPU_SPIN_NS 50000L
#endif
#ifndef MS_CPU_TEAM_SKIP
#define MS_CPU_TEAM_SKIP 8
#endif
#ifndef MS_CPU_CHUNK_WAIT_NS
#define MS_CPU_CHUNK_WAIT_NS 100000L
#endif

static inline void ms__cpu_pause(void) {
#if defined(__SSE2__)
    _mm_pause();
#endif
}

static int64_t ms__cpu_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Tests only (ms__cpu_team_test_stalls): force the rare waits. */
static atomic_int ms__team_stalls;

void ms__cpu_team_test_stalls(int mode) { atomic_store(&ms__team_stalls, mode); }

static void ms__cpu_sleep_us(long us) {
    struct timespec t = {0, us * 1000L};
    nanosleep(&t, NULL);
}

bool ms__cpu_team_active(const ms_cpu_team *team) {
    return team && atomic_load_explicit(&team->on, memory_order_relaxed);
}

/* A chunk of the current task (the first left, or with from_back the last), or -1 when none is left. */
static int32_t ms__cpu_team_claim(ms_cpu_team *team, bool from_back) {
    uint64_t c = atomic_load_explicit(&team->claim, memory_order_acquire);
    for (;;) {
        const uint32_t front = (uint32_t)(c & 0xffffu), back = (uint32_t)((c >> 16) & 0xffffu);
        if (front >= back) return -1;
        const uint64_t next = from_back ? c - (1u << 16) : c + 1;
        if (atomic_compare_exchange_weak_explicit(&team->claim, &c, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            return (int32_t)(from_back ? back - 1 : front);
    }
}

static bool ms__cpu_team_has_chunk(ms_cpu_team *team) {
    const uint64_t c = atomic_load(&team->claim);
    return (c & 0xffffu) < ((c >> 16) & 0xffffu);
}

/* Wakes the blocked threads of the team (after a seq_cst store they must see). */
static void ms__cpu_team_wake(ms_cpu_team *team) {
    if (atomic_load(&team->sleepers) > 0) {
        pthread_mutex_lock(&team->mu);
        pthread_cond_broadcast(&team->cv);
        pthread_mutex_unlock(&team->mu);
    }
}

void ms__cpu_team_for(ms_cpu_team *team, int32_t n, ms_cpu_chunk_fn fn, void *ctx) {
    if (!ms__cpu_team_active(team) || team->slow || n <= 1 || n > 0xffff) {
        for (int32_t c = 0; c < n; c++) fn(ctx, c, 0);
        return;
    }
    team->fn = fn;
    team->ctx = ctx;
    team->seq++;
    atomic_store_explicit(&team->done, 0, memory_order_relaxed);
    atomic_store(&team->claim, (uint64_t)team->seq << 32 | (uint64_t)n << 16);
    ms__cpu_team_wake(team);
    int32_t mine = 0;
    for (int32_t c; (c = ms__cpu_team_claim(team, false)) >= 0; mine++) fn(ctx, c, 0);
    atomic_fetch_add_explicit(&team->done, mine, memory_order_acq_rel);
    /* the chunks a worker claimed: spin a while, then block until the last one is done */
    if (atomic_load_explicit(&team->done, memory_order_acquire) >= n) return;
    const int64_t t0 = ms__cpu_now_ns();
    for (int i = 1; atomic_load_explicit(&team->done, memory_order_acquire) < n; i++) {
        ms__cpu_pause();
        if ((i & 63) == 0 && ms__cpu_now_ns() - t0 > MS_CPU_CHUNK_WAIT_NS) {
            /* the worker was preempted (the cores are busy with other work): block, and do the
             * rest of this call alone (a scheduling choice: the values do not depend on it) */
            team->slow = true;
            pthread_mutex_lock(&team->mu);
            atomic_fetch_add(&team->sleepers, 1);
            while (atomic_load(&team->done) < n) pthread_cond_wait(&team->cv, &team->mu);
            atomic_fetch_sub(&team->sleepers, 1);
            pthread_mutex_unlock(&team->mu);
            break;
        }
    }
    if (atomic_load_explicit(&ms__team_stalls, memory_order_relaxed) & 2) ms__cpu_sleep_us(200);
}

/* A worker's part in one call's team: chunks until the caller switches the team off. */
static void ms__cpu_team_serve(ms_cpu_team *team, int32_t slot) {
    int64_t idle_since = -1;
    for (int i = 0; atomic_load_explicit(&team->on, memory_order_acquire); i++) {
        const int32_t c = ms__cpu_team_claim(team, true);
        if (c >= 0) {
            if (atomic_load_explicit(&ms__team_stalls, memory_order_relaxed) & 1) ms__cpu_sleep_us(300);
            team->fn(team->ctx, c, slot);
            atomic_fetch_add_explicit(&team->helped, 1, memory_order_relaxed);
            atomic_fetch_add(&team->done, 1);
            ms__cpu_team_wake(team); /* the caller, if it blocked waiting for this chunk */
            idle_since = -1;
            continue;
        }
        ms__cpu_pause();
        if ((i & 63) != 0) continue;
        const int64_t now = ms__cpu_now_ns();
        if (idle_since < 0) {
            idle_since = now;
        } else if (now - idle_since > MS_CPU_SPIN_NS) {
            /* no task for a while: block until one comes or the call ends */
            pthread_mutex_lock(&team->mu);
            atomic_fetch_add(&team->sleepers, 1);
            while (atomic_load(&team->on) && !ms__cpu_team_has_chunk(team)) pthread_cond_wait(&team->cv, &team->mu);
            atomic_fetch_sub(&team->sleepers, 1);
            pthread_mutex_unlock(&team->mu);
            idle_since = -1;
        }
    }
}

typedef struct ms_cpu_worker {
    ms_cpu_pool *pool;
    int32_t index; /* scratch index; 0 is the caller's */
    pthread_t thread;
} ms_cpu_worker;

struct ms_cpu_pool {
    ms_resource *res;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    _Atomic uint64_t generation; /* bumped per published call (under mu; read without it to spin) */
    bool stop;
    const ms_cpu_rows *rows;  /* the call being served */
    atomic_int next_row;
    atomic_int rows_left;     /* rows not finished yet */
    int32_t busy;             /* workers inside the current call */
    bool team_call;           /* the current call runs its rows on the caller, helped by team */
    int32_t team_skip;        /* calls left to run without the team after one where it was slow */
    ms_cpu_team team;
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
        if (!pool->stop && pool->generation == seen) {
            /* a short spin before sleeping: the next call of a decode loop often comes soon */
            pthread_mutex_unlock(&pool->mu);
            const int64_t t0 = ms__cpu_now_ns();
            for (int i = 1; atomic_load_explicit(&pool->generation, memory_order_relaxed) == seen; i++) {
                ms__cpu_pause();
                if ((i & 63) == 0 && ms__cpu_now_ns() - t0 > MS_CPU_SPIN_NS) break;
            }
            pthread_mutex_lock(&pool->mu);
        }
        while (!pool->stop && pool->generation == seen) pthread_cond_wait(&pool->wake, &pool->mu);
        if (pool->stop) break;
        seen = pool->generation;
        const ms_cpu_rows *rows = pool->rows;
        if (!rows) continue; /* woke after that call had finished without us */
        if (pool->team_call) {
            pthread_mutex_unlock(&pool->mu);
            unsigned env = ms__fpenv_enter();
            ms__cpu_team_serve(&pool->team, wk->index);
            ms__fpenv_leave(env);
            pthread_mutex_lock(&pool->mu);
            continue;
        }
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
    pthread_mutex_init(&pool->team.mu, NULL);
    pthread_cond_init(&pool->team.cv, NULL);
    res->backend_state = pool;
    if (res->params.backend == MS_BACKEND_CPU && ms__fast_scratch_team(&res->scratch[0], &pool->team, n_workers + 1) < 0)
        return ms__fail(res, MS_ENOMEM, "CPU workspace");
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

int64_t ms__cpu_team_helped(const ms_resource *res) {
    const ms_cpu_pool *pool = res->params.backend == MS_BACKEND_CUDA ? NULL : (const ms_cpu_pool *)res->backend_state;
    return pool ? (int64_t)atomic_load_explicit(&pool->team.helped, memory_order_relaxed) : 0;
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
    pthread_mutex_destroy(&pool->team.mu);
    pthread_cond_destroy(&pool->team.cv);
    free(pool->workers);
    free(pool);
    res->backend_state = NULL;
}

/* Whether a row of the call would split its passes over the team (the settings decide: see
 * ms__fast_row_splits); otherwise the call keeps the plain schedule (no wake-up for batch 1). */
static bool ms__cpu_rows_split(ms_resource *res, const ms_cpu_rows *rows) {
    for (int32_t i = 0; i < rows->batch->n_rows; i++) {
        ms_row_job job;
        ms__fill_job(res, res->row_slot[i], rows->step, &job);
        job.V = rows->V;
        if (ms__fast_row_splits(&job)) return true;
    }
    return false;
}

void ms__cpu_sample_rows(ms_resource *res, const ms_cpu_rows *rows) {
    ms_cpu_pool *pool = (ms_cpu_pool *)res->backend_state;
    const int32_t n = rows->batch->n_rows;
    if (!pool || n <= 0) {
        for (int32_t i = 0; i < n; i++) ms__cpu_row(res, rows, i, &res->scratch[0]);
        return;
    }
    const bool small = n <= pool->n_workers; /* fewer rows than threads */
    if (small && pool->team_skip > 0) {
        pool->team_skip--;
    } else if (small && res->params.backend == MS_BACKEND_CPU && rows->V >= MS_FAST_TEAM_MIN_V &&
               ms__cpu_rows_split(res, rows)) {
        /* fewer rows than threads: the rows on the caller, the workers inside them (the team) */
        pthread_mutex_lock(&pool->mu);
        pool->rows = rows;
        pool->team_call = true;
        pool->team.slow = false;
        atomic_store_explicit(&pool->team.on, true, memory_order_relaxed);
        pool->generation++;
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->mu);
        for (int32_t i = 0; i < n; i++) ms__cpu_row(res, rows, i, &res->scratch[0]);
        pthread_mutex_lock(&pool->mu);
        pool->rows = NULL;
        pool->team_call = false;
        /* a worker was preempted in this call (other work holds the cores): the next calls go
         * without the team, then try again (scheduling only: the values do not depend on it) */
        if (pool->team.slow) pool->team_skip = MS_CPU_TEAM_SKIP;
        atomic_store(&pool->team.on, false);
        pthread_mutex_unlock(&pool->mu);
        ms__cpu_team_wake(&pool->team);
        /* No wait for the workers to leave the team loop: every chunk is done (each team_for
         * waited for its own), so all they touch now is the team's flags, and they leave at their
         * next check; one still inside when the next call starts simply serves it. (Waiting cost a
         * worker's wake-up, 10-50 us, at the end of every call whose worker had gone to sleep.) */
        return;
    }
    if (n == 1) { /* one row without the team: the caller alone, no wake-up (batch 1 is latency) */
        ms__cpu_row(res, rows, 0, &res->scratch[0]);
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
