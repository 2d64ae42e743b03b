/* ms_cpu.h: the CPU backends' row scheduling (the worker pool lives in ms_cpu.c). */
#ifndef MS_CPU_H
#define MS_CPU_H

#include "ms_internal.h"

/* One ms_sample call's rows, as the CPU backends see them (shapes already checked). */
typedef struct ms_cpu_rows {
    const ms_step *step;
    const ms_batch *batch;
    int32_t V;
    int64_t stride;     /* elements between rows */
    size_t elem_size;   /* bytes per logit */
    int32_t *tokens;
    int32_t *row_status; /* may be NULL */
} ms_cpu_rows;

/* One row over the pool (issue 5, round 5): while a call has fewer rows than threads, the caller
 * runs the rows and the idle workers help inside each row. ms__cpu_team_for runs fn(ctx, chunk,
 * slot) for every chunk in [0, n): each thread of the team (the caller, slot 0, and the workers
 * that are awake, slots 1..) claims chunks from one counter, so a worker still waking up costs
 * nothing (the caller takes its chunks). It returns when every chunk is done. Results must not
 * depend on which thread did a chunk (per-chunk outputs, merged in chunk order by the caller). */
typedef struct ms_cpu_team ms_cpu_team;
typedef void (*ms_cpu_chunk_fn)(void *ctx, int32_t chunk, int32_t slot);
/* Whether a team helps the current call (false: ms__cpu_team_for runs every chunk on the caller). */
bool ms__cpu_team_active(const ms_cpu_team *team);
void ms__cpu_team_for(ms_cpu_team *team, int32_t n, ms_cpu_chunk_fn fn, void *ctx);
/* Chunks the workers of res's pool have done inside rows so far (tests). */
int64_t ms__cpu_team_helped(const ms_resource *res);
/* Tests: force the team's rare waits in every pool of the process. Bit 1: a worker sleeps 300 us
 * before each chunk it claims (the caller blocks for it, then goes alone: the "slow" path); bit 2:
 * the caller sleeps 200 us after each ms__cpu_team_for (idle workers block and are woken). 0: off. */
void ms__cpu_team_test_stalls(int mode);

/* Sets up the CPU backend of res (row function, workers); 0 or a negative error in res->err. */
int ms__cpu_init(ms_resource *res);
void ms__cpu_destroy(ms_resource *res);
/* Runs res->row_fn over every row; rows are independent, so any schedule draws the same tokens. */
void ms__cpu_sample_rows(ms_resource *res, const ms_cpu_rows *rows);

/* ---- the fast row (issue 5): ms_cpu_fast.c over the SIMD passes of ms_cpu_fast_simd.c ---- */

/* Tokens per block of exact mass sums (vector lanes sum at most MS_FAST_BLOCK / W masses). */
#define MS_FAST_BLOCK 1024
/* Below this d = y - m, ms__exp(d) < 2^-40, so the token's fixed-point mass floor(w 2^40) is 0
 * (exp(-27.8) = 0.927 * 2^-40, far beyond the exp's 1e-7 error; tests/cpu checks every float d
 * in [-86, MS_FAST_ZERO_D]). exp_mass stores w = 0 for a group of such tokens without computing
 * the exp: every exact use of w goes through ms__mass (and min-p, which compares w itself, never
 * reads exp_mass's w). */
#ifndef MS_FAST_ZERO_D /* (a build may lower it to measure the check's cost) */
#define MS_FAST_ZERO_D (-27.8f)
#endif
/* Rows split over the pool's team (ms__cpu_team_for) are cut into chunks of this many tokens
 * (whole blocks and bitset words), and only rows at least this wide are split. */
#define MS_FAST_CHUNK 8192
#define MS_FAST_TEAM_MIN_V 16384
/* band_hist's workspace: a block's listed mass halves (with a vector's room past the end) */
#define MS_FAST_BAND_WORK (3 * (MS_FAST_BLOCK + 16))
/* Buckets of the top-p mass histogram: y by distance below the max, MS_FAST_NB / 32 per unit. */
#define MS_FAST_NB 512

/* The elementwise passes of one SIMD level; each lane does the scalar operations of ms_math.h. */
typedef struct ms_fast_kernels {
    const char *name;
    /* y = sanitize(load(row)), presence-penalised (factor r) where seen has a bit; returns max y.
     * With ids, also lists the t with y >= tau (ascending) and sets *n_ids; with ids and sparse,
     * y[t] is written only for the listed t (and some others), not the whole row; then tau must be
     * above -inf (the sparse loop compares the loads before turning NaN into -inf). ids needs room
     * for V entries (the avx512 level stores whole packed vectors: up to 16 entries past the count,
     * never past V). */
    float (*load_max)(const void *row, ms_dtype dtype, int32_t V, const uint64_t *seen, float r, float *y,
                      float tau, int32_t *ids, int32_t *n_ids, int sparse);
    float (*max)(const float *y, int32_t V);
    /* y /= T in place (x == y), or y = sanitize(x) / T from another fp32 array x (round 9: the caller's
     * row, no copy made by pass 1), w = exp(y - m), exact mass per MS_FAST_BLOCK block into bsum;
     * returns the total */
    uint64_t (*exp_mass)(const float *x, float *y, float *w, int32_t V, float T, float m, uint64_t *bsum);
    /* after exp_mass, buckets min(NB - 1, trunc((m - y) scale)): exact mass and count below bucket
     * b_lo, and per bucket in [b_lo, b_hi]; the ids in [b_lo, b_hi] listed ascending in list and their
     * buckets in list_bk (room for V + 16 each), counted in *n_list; work: MS_FAST_BAND_WORK entries */
    void (*band_hist)(const float *y, const float *w, int32_t V, float m, float scale, int32_t b_lo,
                      int32_t b_hi, uint64_t *hist, uint32_t *hcnt, uint64_t *mass_top, int64_t *cnt_top,
                      int32_t *list, uint32_t *list_bk, int32_t *n_list, uint32_t *work);
    /* ids with y >= tau, ascending; returns the count (ids: room for V entries, as load_max's) */
    int32_t (*select_ge)(const float *y, int32_t V, float tau, int32_t *ids);
    /* ids of the tokens in one bucket of exp_hist, ascending; returns the count (ids: room for V) */
    int32_t (*bucket_ids)(const float *y, int32_t V, float m, float scale, int32_t which, int32_t *ids);
    /* exact mass of {t in [lo, hi) : y >= tau} */
    uint64_t (*mass_ge)(const float *y, const float *w, int32_t lo, int32_t hi, float tau);
    /* the first t with y[t] >= v, or V */
    int32_t (*first_ge)(const float *y, int32_t V, float v);
    /* list[i] for the i < n with bk[i] == which, in order, into ids (room for n + 16); returns the count */
    int32_t (*band_pick)(const int32_t *list, const uint32_t *bk, int32_t n, uint32_t which, int32_t *ids);
    /* exp_mass, and the exact mass and count of the tokens whose y (after the division) is >= ytop */
    uint64_t (*exp_mass_top)(const float *x, float *y, float *w, int32_t V, float T, float m, uint64_t *bsum,
                             float ytop, uint64_t *mass_top, int64_t *cnt_top);
    /* after exp_mass: the ids with ylo <= y < yhi listed ascending (list: room for V), their units
     * min(u_top, trunc((m - y) uscale)) - u_lo (band_hist's buckets when uscale is its scale; the
     * caller's cuts put them in [0, u_top - u_lo]) in list_bk (room for V + 16), and the exact mass
     * and count per unit in hist, hcnt (u_top - u_lo + 1 entries, zeroed here) */
    void (*band_list)(const float *y, const float *w, int32_t V, float m, float uscale, float ylo, float yhi,
                      int32_t u_lo, int32_t u_top, uint64_t *hist, uint32_t *hcnt, int32_t *list, uint32_t *list_bk,
                      int32_t *n_list);
} ms_fast_kernels;

/* SIMD levels, best last. A level is usable when it was compiled in and the CPU has it. */
enum { MS_FAST_GENERIC = 0, MS_FAST_W16 = 1, MS_FAST_AVX2 = 2, MS_FAST_AVX512 = 3, MS_FAST_N_LEVELS = 4 };

/* The fast pipeline, bit-identical to ms__ref_row (same contract, same scratch, plus scratch->fast
 * made by ms__fast_scratch_init for rows up to V wide; without it the row goes to ms__ref_row). */
void ms__fast_row(const ms_row_job *job, ms_scratch *s, bool draw, ms_row_out *out);
int ms__fast_scratch_init(ms_scratch *s, int32_t V);
/* Gives the scratch of the pool's caller a team (NULL: none) of n_slots threads, with the per-chunk
 * and per-slot workspace that splitting a row needs (made now: nothing is allocated while sampling). */
int ms__fast_scratch_team(ms_scratch *s, ms_cpu_team *team, int32_t n_slots);
/* Whether ms__fast_row would split this row over a team (job: its settings and V; the row itself
 * is not read): every path but the two-part pass 1 of a top-k cut (the full pipeline, a ~60 us
 * row at V = 151936 that a worker's wake-up would eat). */
bool ms__fast_row_splits(const ms_row_job *job);
void ms__fast_scratch_free(ms_scratch *s);
/* (round 7, exposed for tests) The lowest y whose top-p bucket min(NB - 1, trunc((m - y) NB / 32))
 * is below b (1 <= b <= NB): y >= it iff the bucket is < b. */
float ms__fast_bucket_cut(float m, int32_t b);
/* (tests) How many top-p rows took the pre-sampled band (exp_mass_top + band_list), found its edge
 * wrong (the mass above it too large: band_hist instead), widened a band_list band afterwards, took
 * the pre-sampled band over the team (a split row), or listed a peaked row's count-rule band (from
 * the top) with band_list. */
void ms__fast_top_p_counts(int64_t out[5]);
/* (round 9, tests) Whether exp-path rows of fp32 without penalties skip pass 1's copy and run the
 * exp pass on the caller's row (on by default): sets it (on = 0 / 1) and returns the previous
 * setting, or returns it (on < 0); and how many rows took that path so far. */
int ms__fast_set_direct(int on);
int64_t ms__fast_direct_rows(void);
/* Whether a level is usable here; its name ("generic", "w16", "avx2", "avx512"). */
bool ms__cpu_fast_level_ok(int level);
const char *ms__cpu_fast_level_name(int level);
/* A usable level's passes (tests: each level's kernels against the generic ones), or NULL. */
const ms_fast_kernels *ms__cpu_fast_kernels(int level);
/* The level ms__fast_row uses: the best usable one unless forced (tests; env MSAMPLER_CPU_LEVEL
 * names one at first use). Returns the level now in use; a level that is not usable is refused (-1). */
int ms__cpu_fast_level(void);
int ms__cpu_fast_set_level(int level);

/* Default IEEE environment around computation (restores the caller's); see ms_resource.c. */
unsigned ms__fpenv_enter(void);
void ms__fpenv_leave(unsigned saved);

#endif
