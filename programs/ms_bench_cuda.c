/* ms_bench_cuda.c: `msample bench --backend cuda` (issue 4), and the standalone program
 * ms_bench_cuda when built with MS_BENCH_CUDA_STANDALONE (cmake/cuda.cmake).
 *
 * Per (setting, shape, B, V): the median time of one step (ms_cuda_sample_rows captured in a CUDA
 * graph, timed with CUDA events, inputs rotated over at least --buffer-mb so that they do not sit in
 * the 60 MB L2), the floor (one read of the logits at the device-to-device copy bandwidth measured
 * in the same run, bytes read + written), their ratio, and whether the tokens equal the CPU
 * reference's (MS_BACKEND_CPU_REF) on the same rows. Public API only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ms_bench.h"
#include "msampler.h"
#ifdef MSAMPLER_HAVE_FLASHINFER /* FlashInfer timed live on the same buffers (cmake/flashinfer.cmake) */
#include "ms_bench_flashinfer.h"
#define BC_FI_NOTE "# flashinfer: LIVE, its softmax (T 0.7) + top-k 50/top-p 0.9 sampling (full) or top-p 0.9 sampling (top-p), timed like us\n"
#else
#define BC_FI_NOTE "# flashinfer: its softmax + top-k/top-p from ANCHORS.md (same card and shapes; top-p setting only)\n"
#endif

#if defined(MSAMPLE_HAVE_CUDA) || defined(MS_BENCH_CUDA_STANDALONE)
#include <cuda_runtime_api.h>

#define BCU(call)                                                                                \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "bench: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__); \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)

static uint64_t bc_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double bc_unit(uint64_t *s) { return (double)(bc_next(s) >> 11) * (1.0 / 9007199254740992.0); }

/* flat: N(0,1); peaked: 3 N(0,1) with about 0.3% of tokens raised by 8 (ANCHORS.md). MS_BENCH_PEAKS=s (round 30B)
 * multiplies the peaked values by s (s N(0,1) scaled: s = 3 gives 9 N(0,1), 0.3% raised by 24, whose bulk lies more
 * than 28 below the max after T = 0.7, as a sharp model's logits do); unset or 1: the ANCHORS.md rows. */
static void bc_fill(float *x, size_t n, int peaked, uint64_t seed) {
    uint64_t s = seed;
    const double ps = getenv("MS_BENCH_PEAKS") ? atof(getenv("MS_BENCH_PEAKS")) : 1.0;
    for (size_t i = 0; i < n; i += 2) {
        double u1 = bc_unit(&s), u2 = bc_unit(&s);
        if (u1 < 1e-300) u1 = 1e-300;
        double r = sqrt(-2.0 * log(u1));
        double z[2] = {r * cos(6.283185307179586 * u2), r * sin(6.283185307179586 * u2)};
        for (int k = 0; k < 2 && i + k < n; k++) {
            double v = z[k];
            if (peaked) v = ps * (3.0 * v + ((bc_next(&s) % 1000) < 3 ? 8.0 : 0.0));
            x[i + k] = (float)v;
        }
    }
}

/* --dtype bf16: a value rounded to bf16, to nearest even (the bench's values are finite) */
static uint16_t bc_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* --dtype f16 (twenty-first session): a value rounded to IEEE binary16, to nearest even (finite values; past 65504 to
 * infinity; below 2^-14 to a subnormal or zero), so that the one-read path's 2-byte launch rules can be measured on fp16 */
static uint16_t bc_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint16_t sg = (uint16_t)((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x477ff000u) return (uint16_t)(sg | 0x7c00u); /* >= 65520: rounds past the largest half */
    if (ax < 0x38800000u) { /* below 2^-14: a subnormal half, m * 2^-24 */
        if (ax < 0x33000000u) return sg; /* below 2^-25: zero */
        const uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, sh = 126u - e; /* value = m * 2^(e-150) */
        const uint32_t h = m >> sh, rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
        return (uint16_t)(sg | (h + (rem > half || (rem == half && (h & 1u)))));
    }
    const uint32_t r = ax + 0xfffu + ((ax >> 13) & 1u); /* round the 13 dropped bits to nearest even */
    return (uint16_t)(sg | ((r - 0x38000000u) >> 13));
}

static int bc_cmp_f(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Device-to-device copy bandwidth (bytes read + written per second), median of 10 copies of 1 GiB. */
static double bc_copy_bw(void) {
    size_t bytes = (size_t)1 << 30;
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 0;
    cudaMemset(a, 1, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float t[10];
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    for (int i = 0; i < 10; i++) {
        cudaEventRecord(e0, 0);
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&t[i], e0, e1);
    }
    qsort(t, 10, sizeof(float), bc_cmp_f);
    cudaFree(a);
    cudaFree(b);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * (double)bytes / (t[5] * 1e-3);
}

/* The least one graph step costs on this machine: a replay of a graph holding one 4-byte memset,
 * timed like the sampler (median of CUDA events around each replay). */
static double bc_empty_step_us(void) {
    void *d = NULL;
    cudaStream_t st;
    cudaGraph_t g;
    cudaGraphExec_t ex;
    cudaEvent_t ev[201];
    float t[200];
    if (cudaMalloc(&d, 4) != cudaSuccess || cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess) return 0;
    cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
    cudaMemsetAsync(d, 0, 4, st);
    cudaStreamEndCapture(st, &g);
    cudaGraphInstantiate(&ex, g, 0);
    for (int i = 0; i <= 200; i++) cudaEventCreate(&ev[i]);
    for (int i = 0; i < 20; i++) cudaGraphLaunch(ex, st);
    cudaEventRecord(ev[0], st);
    for (int i = 0; i < 200; i++) {
        cudaGraphLaunch(ex, st);
        cudaEventRecord(ev[i + 1], st);
    }
    cudaStreamSynchronize(st);
    for (int i = 0; i < 200; i++) cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]);
    qsort(t, 200, sizeof(float), bc_cmp_f);
    for (int i = 0; i <= 200; i++) cudaEventDestroy(ev[i]);
    cudaGraphExecDestroy(ex);
    cudaGraphDestroy(g);
    cudaStreamDestroy(st);
    cudaFree(d);
    return t[100] * 1e3;
}

static ms_req_config bc_cfg(int setting, uint64_t seed) {
    ms_req_config c = ms_req_config_default();
    c.temperature = 0.7f;
    c.top_p = 0.9f;
    if (setting == MS_BENCH_FULL) {
        c.top_k = 50;
        c.min_p = 0.05f;
        c.repetition_penalty = 1.2f;
    }
    c.seed = seed;
    return c;
}

/* FlashInfer's softmax + top-k/top-p from ANCHORS.md (H200, same shapes), when listed; else -1. */
static double bc_anchor(int peaked, int32_t B, int32_t V) {
    static const struct { int peaked; int32_t B, V; double us; } a[] = {
        {0, 1, 151936, 160}, {0, 16, 151936, 305}, {0, 64, 151936, 381}, {0, 256, 151936, 712}, {0, 256, 262144, 1329},
        {1, 1, 151936, 63},  {1, 16, 151936, 98},  {1, 64, 151936, 153}, {1, 256, 151936, 294}, {1, 256, 262144, 501}};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        if (a[i].peaked == peaked && a[i].B == B && a[i].V == V) return a[i].us;
    return -1;
}

/* One configuration. Returns 0, or -1 on a CUDA / library failure. */
#ifdef MS_BENCH_CUDA_STANDALONE
/* Round 7 diagnostics (the standalone bench only: msample keeps to the public API). With a library built
 * with -DMS_CU_STAMPS and MS_BENCH_STAMPS set, one replay of the step's graph at a time (after the
 * device is idle), 9 times: each event's earliest and latest %globaltimer over the blocks, in us after
 * the first K1 block started, the median of the 9. Events as in src/cuda/ms_cuda.cu (ms_cu_stamp). */
int ms__cuda_stamps(int op, unsigned long long lo[38], unsigned long long hi[38]);
int ms__cuda_stamps_q(int op, unsigned long long q[16]);
int ms__cuda_stamps_or(int op, unsigned long long q[12], unsigned long long smlo[256], unsigned long long smhi[256],
                       unsigned long long smn[256]);
/* Round 16B: --chain prints, after each configuration's line, what graphs of 1..5 near-empty kernels launched as
 * the step's K0..K4 (same grids, PDL) cost a replay (ms__cuda_chain), and the five without PDL;
 * MS_BENCH_MINCHUNK=c sets K1..K3's smallest chunk (ms__cuda_minchunk) before every configuration.
 * MS_BENCH_ORMIN=c (fourteenth session) lets the one-read path's chunk size c alone choose it (ms__cuda_oneread: no L2
 * rule), to find where the path starts to pay. */
int ms__cuda_chain(int32_t n, int32_t V, int nk, int pdl, float *us);
int32_t ms__cuda_minchunk(int32_t c);
int ms__cuda_oneread(int32_t minchunk, uint64_t out[5]);
/* MS_BENCH_ORFEW=chunk[,maxb[,warm]] (round 23A): the few-chunk one-read steps' chunk, largest B and K4's warm-up
 * there (ms__cuda_orfew; a no-op in builds without -DMS_CU_OR_FEW) */
int ms__cuda_orfew(int32_t chunk, int32_t maxb, int32_t warm);
/* MS_BENCH_ORWAVES=q (round 27A): the one-read steps' grid in blocks a multiprocessor (ms__cuda_orwaves; 4: the
 * default's); MS_BENCH_RING=m K2's ring (ms__cuda_ring: -1 the host's rule, 0 off, 1 on) */
int32_t ms__cuda_orwaves(int32_t q);
/* MS_BENCH_ORG=G[,w] (round 28B): the one-read steps' chunks a row set directly (ms__cuda_org; 0: the default's grid)
 * and its rule MS_CU_OR_ONEWAVE (w 0: off, 1: on) */
int32_t ms__cuda_org(int32_t G, int32_t onewave);
/* MS_BENCH_ORW=c,c16,load,ring16 (round 29A): the one-wave rule's chunk bounds for 4- and 2-byte logits, its load test and
 * K2's ring in 2-byte one-read steps (ms__cuda_orw; -1 the build's, -2 or left out: unchanged) */
int ms__cuda_orw(int32_t chunk, int32_t chunk16, int32_t load, int32_t ring16);
int ms__cuda_ring(int mode, uint64_t out[2]);
/* MS_BENCH_ORDYN=q (round 29B): round 28A's pieces, how many by rule (ms__cuda_ordyn; builds with -DMS_CU_OR_DYN_RT);
 * stamps builds: ms__cuda_stamps_blk, the K2 blocks' own times (bc_stamps' per-chunk and per-SM lines) */
int ms__cuda_ordyn(int q);
int ms__cuda_stamps_blk(int op, int n, unsigned long long *t, uint32_t *m, uint32_t *rn);
static int bc_chain_on;
static void bc_chain(int32_t B, int32_t V, double step_us) {
    float us[6] = {0}, nok0 = 0;
    int G = 0;
    for (int k = 1; k <= 5; k++) G = ms__cuda_chain(B, V, k, 1, &us[k]);
    if (ms__cuda_chain(B, V, 5, 0, &us[0]) < 0 || G < 0 || ms__cuda_chain(B, V, 5, 2, &nok0) < 0) {
        printf("chain B=%d V=%d: CUDA error\n", B, V);
        return;
    }
    printf("chain B=%d V=%d G=%d (us a graph replay; empty kernels launched as K0..K4): 1 %.2f  2 %.2f  3 %.2f  "
           "4 %.2f  5 %.2f  (5 without PDL %.2f; K1..K4 without K0, K1 plain %.2f); the step %.2f\n",
           B, V, G, us[1], us[2], us[3], us[4], us[5], us[0], nok0, step_us);
    fflush(stdout);
}
static int bc_cmp_d(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
/* Round 29B: the K2 blocks' own records of one step (ms__cuda_stamps_blk), summed into bb over the steps: where a row's
 * blocks end (exit, event 4's point) against their row's mean, by chunk g, by the blocks their multiprocessor ran in
 * K2's grid (one-read rows' blocks), by their rank on it (entry order), and against their staged tokens (work). */
enum { BB_N = 4096 };
typedef struct {
    int steps, rows, same, nb;
    double spread, spread_scan, late_g[64], n_g[64], lat_g[64], late_c[9], n_c[9], lat_c[9], late_k[8], n_k[8];
    double ss, ss_g, ss_sm, sxy_rn, sxx_rn, syy, sxy_in, sxx_in, dur_late, dur_all;
    double rm_spread, rm_var, rm_sxy_in, rm_sxx_in, rm_syy, rm_sxy_r, rm_sxx_r, rm_n; /* the rows' mean exits */
    int prev_g[BB_N];
} bc_blkacc;
static void bc_blk_step(bc_blkacc *A, unsigned long long t0ns) {
    static unsigned long long t[3 * BB_N];
    static uint32_t m[BB_N], rn[BB_N];
    static double L[BB_N], Li[BB_N];
    static int rowof[BB_N];
    if (ms__cuda_stamps_blk(0, BB_N, t, m, rn) != 1) return;
    int nr = 0;
    for (int i = 0; i < BB_N; i++) {
        rowof[i] = -1;
        if (m[i] == ~0u) continue;
        const int r = (int)(m[i] >> 16);
        if (r < BB_N) rowof[i] = r, nr = r + 1 > nr ? r + 1 : nr;
    }
    if (nr == 0) return;
    static double rs[BB_N], rsi[BB_N], rsn[BB_N], rmax[BB_N], rmin[BB_N], rsmax[BB_N], rsmin[BB_N], rcnt[BB_N];
    static int rarg[BB_N], smc[256];
    for (int r = 0; r < nr; r++) rs[r] = rsi[r] = rsn[r] = rcnt[r] = 0, rmax[r] = rsmax[r] = -1e30, rmin[r] = rsmin[r] = 1e30, rarg[r] = -1;
    for (int k = 0; k < 256; k++) smc[k] = 0;
    for (int i = 0; i < BB_N; i++) {
        const int r = rowof[i];
        if (r < 0) continue;
        const double ex = (double)(long long)(t[2 * BB_N + i] - t0ns) / 1e3, in = (double)(long long)(t[i] - t0ns) / 1e3,
                     sc = (double)(long long)(t[BB_N + i] - t0ns) / 1e3;
        rs[r] += ex, rsi[r] += in, rsn[r] += rn[i], rcnt[r] += 1;
        if (ex > rmax[r]) rmax[r] = ex, rarg[r] = (int)((m[i] >> 8) & 255u);
        if (ex < rmin[r]) rmin[r] = ex;
        if (sc > rsmax[r]) rsmax[r] = sc;
        if (sc < rsmin[r]) rsmin[r] = sc;
        smc[m[i] & 255u]++;
    }
    A->steps++;
    { /* round 29B: between rows: the spread of the rows' mean exits, their correlation with the rows' mean entries and r */
        double mlo = 1e30, mhi = -1e30, me = 0, mi = 0, mr = 0, k = 0;
        for (int r = 0; r < nr; r++)
            if (rcnt[r] > 0) {
                const double e = rs[r] / rcnt[r];
                mlo = e < mlo ? e : mlo, mhi = e > mhi ? e : mhi, me += e, mi += rsi[r] / rcnt[r], mr += r, k += 1;
            }
        me /= k, mi /= k, mr /= k;
        A->rm_spread += mhi - mlo;
        for (int r = 0; r < nr; r++)
            if (rcnt[r] > 0) {
                const double e = rs[r] / rcnt[r] - me, i = rsi[r] / rcnt[r] - mi, q = r - mr;
                A->rm_var += e * e, A->rm_syy += e * e, A->rm_sxy_in += e * i, A->rm_sxx_in += i * i, A->rm_sxy_r += e * q,
                    A->rm_sxx_r += q * q, A->rm_n += 1;
            }
    }
    for (int r = 0; r < nr; r++) {
        if (rcnt[r] == 0) continue;
        A->rows++;
        A->spread += rmax[r] - rmin[r], A->spread_scan += rsmax[r] - rsmin[r];
        if (rarg[r] >= 0 && rarg[r] < 64) A->late_g[rarg[r]] += 1;
        if (A->steps > 1 && A->prev_g[r] == rarg[r]) A->same++;
        A->prev_g[r] = rarg[r];
    }
    /* per multiprocessor: its blocks' lateness sum (for the between-SM share) and their rank by entry */
    static double smsum[256], smn[256];
    for (int k = 0; k < 256; k++) smsum[k] = smn[k] = 0;
    for (int i = 0; i < BB_N; i++) {
        const int r = rowof[i];
        if (r < 0) continue;
        const double ex = (double)(long long)(t[2 * BB_N + i] - t0ns) / 1e3, in = (double)(long long)(t[i] - t0ns) / 1e3;
        const double l = ex - rs[r] / rcnt[r], li = in - rsi[r] / rcnt[r], ln = (double)rn[i] - rsn[r] / rcnt[r];
        L[i] = l, Li[i] = in;
        const int g = (int)((m[i] >> 8) & 255u), sm = (int)(m[i] & 255u), c = smc[sm] > 8 ? 8 : smc[sm];
        if (g < 64) A->lat_g[g] += l, A->n_g[g] += 1;
        A->lat_c[c] += l, A->n_c[c] += 1;
        if (g == rarg[r]) A->late_c[c] += 1; /* the row's latest (its first on ties) */
        A->ss += l * l, A->syy += l * l, A->sxy_rn += l * ln, A->sxx_rn += ln * ln, A->sxy_in += l * li, A->sxx_in += li * li;
        smsum[sm] += l, smn[sm] += 1;
        A->nb++;
        const double dur = (double)(long long)(t[BB_N + i] - t[i]) / 1e3;
        A->dur_all += dur;
        if (g == rarg[r]) A->dur_late += dur;
    }
    for (int k = 0; k < 256; k++)
        if (smn[k] > 0) A->ss_sm += smsum[k] * smsum[k] / smn[k];
    for (int i = 0; i < BB_N; i++) { /* rank on its multiprocessor by entry time */
        if (rowof[i] < 0) continue;
        int rk = 0;
        for (int j = 0; j < BB_N; j++)
            if (j != i && rowof[j] >= 0 && (m[j] & 255u) == (m[i] & 255u) && (Li[j] < Li[i] || (Li[j] == Li[i] && j < i))) rk++;
        if (rk > 7) rk = 7;
        A->late_k[rk] += L[i], A->n_k[rk] += 1;
    }
}
static void bc_blk_print(const bc_blkacc *A) {
    if (A->rows == 0) return;
    double gs = 0;
    int G = 0;
    for (int g = 0; g < 64; g++)
        if (A->n_g[g] > 0) gs += A->lat_g[g] * A->lat_g[g] / A->n_g[g], G = g + 1;
    printf("  K2or per block (%d steps, %d rows, %d blocks): a row's exit spread %.2f us (scan ends %.2f); the latest chunk "
           "the same as the step before: %.0f%% of rows (chance %.0f%%)\n", A->steps, A->rows, A->nb,
           A->spread / A->rows, A->spread_scan / A->rows, 100.0 * A->same / (A->rows - A->rows / A->steps),
           100.0 / (G ? G : 1));
    printf("  K2or lateness (exit - row mean, us) variance %.2f us^2: between chunks g %.0f%%, between SMs (per step) "
           "%.0f%%; corr with staged tokens %.2f, with entry %.2f; entry-to-scan-end mean %.2f us, the row's latest %.2f\n",
           A->ss / A->nb, 100.0 * gs / A->ss, 100.0 * A->ss_sm / A->ss, A->sxy_rn / sqrt(A->sxx_rn * A->syy + 1e-30),
           A->sxy_in / sqrt(A->sxx_in * A->syy + 1e-30), A->dur_all / A->nb, A->dur_late / A->rows);
    printf("  K2or between rows: the rows' mean exits spread %.2f us (max - min, a step), sd %.2f; corr with the row's mean "
           "entry %.2f, with r %.2f; within rows: sd %.2f\n", A->rm_spread / A->steps, sqrt(A->rm_var / (A->rm_n + 1e-30)),
           A->rm_sxy_in / sqrt(A->rm_sxx_in * A->rm_syy + 1e-30), A->rm_sxy_r / sqrt(A->rm_sxx_r * A->rm_syy + 1e-30),
           sqrt(A->ss / A->nb));
    printf("  K2or by chunk g: lateness (latest of its row, %% of rows):");
    for (int g = 0; g < G; g++) printf(" %d:%+.2f(%.0f%%)", g, A->lat_g[g] / (A->n_g[g] + 1e-30), 100.0 * A->late_g[g] / A->rows);
    printf("\n  K2or by blocks on its SM: lateness (blocks, latest of its row %%):");
    for (int c = 1; c <= 8; c++)
        if (A->n_c[c] > 0) printf(" %d:%+.2f(%.0f, %.0f%%)", c, A->lat_c[c] / A->n_c[c], A->n_c[c] / A->steps, 100.0 * A->late_c[c] / A->rows);
    printf("\n  K2or by rank of entry on its SM: lateness:");
    for (int k = 0; k < 8; k++)
        if (A->n_k[k] > 0) printf(" %d:%+.2f", k, A->late_k[k] / A->n_k[k]);
    printf("\n");
}
static void bc_stamps(cudaGraphExec_t ex, cudaStream_t st, const char *sname, int peaked, int32_t B, int32_t V) {
    static const char *name[38] = {"K1 in", "K1 out", "K2 in", "K2 wait", "K2 out", "K3 in", "K3 wait", "K3 out",
                                   "K4 in", "K4 wait", "K4 loads", "K4 list", "K4 drawn", "K4w rank", "K4w filt",
                                   "K4w idord", "K2 scan", "K4 pre", "K4 list0", "K4 tminmax", "K4 tlevel1",
                                   "K4 tkth", "K4 trim", "K4 fmass", "K4 exit", "K0 in",
                                   "K2 first", "K2 half", "K1 k1n", "K2 k2n", "K2 drained", "K2 waited",
                                   "K3w mode", "K3w done", "K4 rthist", "K4 rtdone", "K4 warm0", "K4 warm1"};
    enum { R = 9, E = 38 };
    double lo[E][R], hi[E][R];
    unsigned long long l[38], h[38], q[16];
    static unsigned long long orq[12], smlo[256], smhi[256], smn[256];
    static bc_blkacc bacc;
    bc_blkacc *bA = &bacc;
    memset(bA, 0, sizeof *bA);
    const int qon = ms__cuda_stamps_q(1, q) == 1;
    for (int k = 0; k < R; k++) {
        if (ms__cuda_stamps(1, l, h) != 1) {
            printf("stamps: not built (configure with CMAKE_CUDA_FLAGS=-DMS_CU_STAMPS)\n");
            return;
        }
        if (k == R - 1) (void)ms__cuda_stamps_or(1, orq, smlo, smhi, smn); /* round 20A: the last step's counters */
        const int bon = ms__cuda_stamps_blk(1, 0, NULL, NULL, NULL) == 1; /* round 29B */
        if (cudaGraphLaunch(ex, st) != cudaSuccess || ms__cuda_stamps(0, l, h) != 1) {
            printf("stamps: CUDA error\n");
            return;
        }
        if (bon) bc_blk_step(bA, l[0]);
        for (int e = 0; e < E; e++) {
            lo[e][k] = l[e] == ~0ull ? -1e9 : (double)(long long)(l[e] - l[0]) / 1e3; /* K0 in: before K1 */
            hi[e][k] = l[e] == ~0ull ? -1e9 : (double)(long long)(h[e] - l[0]) / 1e3;
        }
    }
    printf("stamps %s %s B=%d V=%d (us after the first K1 block; earliest / latest block; median of %d single steps):\n",
           sname, peaked ? "peaked" : "flat", B, V, R);
    for (int e = 0; e < E; e++) {
        qsort(lo[e], R, sizeof(double), bc_cmp_d);
        qsort(hi[e], R, sizeof(double), bc_cmp_d);
        if (lo[e][R / 2] < -1e8) printf("  %-9s -\n", name[e]);
        else printf("  %-9s %7.2f %7.2f\n", name[e], lo[e][R / 2], hi[e][R / 2]);
    }
    /* round 17B: K4's lean rows over the R steps: mean (least..largest) */
    if (qon && ms__cuda_stamps_q(0, q) == 1 && q[15] > 0) {
        static const char *qn[5] = {"cand_n", "listed", "after trim", "trim levels", "one-read"};
        printf("  K4 lean rows %llu:", q[15]);
        for (int i = 0; i < 5; i++)
            printf(" %s %.1f (%llu..%llu)%s", qn[i], (double)q[i] / (double)q[15], i == 3 && q[5 + i] == ~0ull ? 0ull : q[5 + i],
                   q[10 + i], i < 4 ? ";" : "\n");
    }
    /* round 20A: the one-read pass's counters in the last step (ms__cuda_stamps_or; ms_cuda.cu says what each is) */
    if (ms__cuda_stamps_or(0, orq, smlo, smhi, smn) == 1 && orq[8] > 0) {
        const double nb = (double)orq[8], nw = nb * 8.0;
        printf("  K2or blocks %llu: a block staged %.1f, C %.1f, overflowed %llu; a warp: steps %.2f (bookkeeping %.2f, "
               "skipped %.2f), staging steps %.2f, groups/rounds %.2f, top-k' scans %.2f (raised %.2f), row cut raised %.2f, min-p recuts %.2f\n",
               orq[8], orq[9] / nb, orq[10] / nb, orq[11], (orq[0] + orq[1]) / nw, orq[0] / nw, orq[1] / nw, orq[2] / nw,
               orq[3] / nw, orq[4] / nw, orq[6] / nw, orq[7] / nw, orq[5] / nw);
        for (unsigned long long n = 1; n <= 8; n++) { /* multiprocessors by their blocks: scan ends, us after K1 in */
            double e = 0, la = 0, sp = 0, lmax = 0;
            int m = 0;
            for (int i = 0; i < 256; i++)
                if (smn[i] == n) {
                    const double a = (double)(long long)(smlo[i] - l[0]) / 1e3, b = (double)(long long)(smhi[i] - l[0]) / 1e3;
                    e += a, la += b, sp += b - a, m++;
                    if (b > lmax) lmax = b;
                }
            if (m)
                printf("  K2or SMs with %llu blocks: %d; scan ends: earliest %.2f, latest %.2f (mean), spread %.2f (mean), "
                       "latest %.2f (max)\n", n, m, e / m, la / m, sp / m, lmax);
        }
    }
    bc_blk_print(bA); /* round 29B */
    fflush(stdout);
}
#endif

static int bc_run(const ms_bench_opts *o, int setting, int peaked, int32_t B, int32_t V, double bw, double t0) {
    const int dt = o->dtype == MS_DTYPE_BF16 || o->dtype == MS_DTYPE_F16 ? o->dtype : MS_DTYPE_F32;
    const size_t row_bytes = (size_t)V * (dt == MS_DTYPE_F32 ? 4 : 2), set_bytes = (size_t)B * row_bytes;
    size_t nsets = (size_t)ceil(o->min_buffer_mb * 1048576.0 / (double)set_bytes);
    if (nsets < 2) nsets = 2;
    /* Round 19A, the logits' L2 state at a step's start (default: cold, rotated over nsets sets):
     * MS_BENCH_SETS=n replays n input sets (1: the same logits every step, warm in L2 where they fit, as the
     * previous step read them); MS_BENCH_REWRITE=1 starts each step's graph with a device-to-device copy of the
     * logits into its input set from a set of their own (a producer's writes just before the step; the copy's
     * time is in us/step). */
    if (getenv("MS_BENCH_SETS")) nsets = atoi(getenv("MS_BENCH_SETS")) > 0 ? (size_t)atoi(getenv("MS_BENCH_SETS")) : 1;
    const int rewrite = getenv("MS_BENCH_REWRITE") != NULL;
#ifdef MS_BENCH_CUDA_STANDALONE
    if (getenv("MS_BENCH_MINCHUNK")) ms__cuda_minchunk((int32_t)atoi(getenv("MS_BENCH_MINCHUNK")));
    if (getenv("MS_BENCH_ORMIN")) (void)ms__cuda_oneread((int32_t)atoi(getenv("MS_BENCH_ORMIN")), NULL);
    if (getenv("MS_BENCH_ORWAVES")) (void)ms__cuda_orwaves((int32_t)atoi(getenv("MS_BENCH_ORWAVES")));
    if (getenv("MS_BENCH_ORG")) {
        const char *e = getenv("MS_BENCH_ORG"), *cm = strchr(e, ',');
        (void)ms__cuda_org((int32_t)atoi(e), cm ? (int32_t)atoi(cm + 1) : -2);
    }
    if (getenv("MS_BENCH_ORW")) {
        int32_t w[4] = {-2, -2, -2, -2};
        const char *e = getenv("MS_BENCH_ORW");
        for (int i = 0; i < 4 && e && *e; i++) {
            w[i] = (int32_t)atoi(e);
            e = strchr(e, ',');
            if (e) e++;
        }
        (void)ms__cuda_orw(w[0], w[1], w[2], w[3]);
    }
    if (getenv("MS_BENCH_ORDYN")) (void)ms__cuda_ordyn(atoi(getenv("MS_BENCH_ORDYN")));
    if (getenv("MS_BENCH_RING")) (void)ms__cuda_ring((int)atoi(getenv("MS_BENCH_RING")), NULL);
    if (getenv("MS_BENCH_ORFEW")) {
        const char *e = getenv("MS_BENCH_ORFEW"), *cm = strchr(e, ','), *cw = cm ? strchr(cm + 1, ',') : NULL;
        (void)ms__cuda_orfew((int32_t)atoi(e), cm ? (int32_t)atoi(cm + 1) : -1, cw ? (int32_t)atoi(cw + 1) : -1);
    }
#endif
    ms_spec spec = ms_spec_default();
    spec.resource_key = "bench";
    spec.vocab_size = V;
    spec.enable_min_p = true;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = B;
    p.max_rows = B;
    p.backend = MS_BACKEND_CUDA;
    p.device = o->device;
    ms_resource *res = NULL, *ref = NULL;
    if (ms_resource_create(&res, &spec, &p) != MS_OK) {
        fprintf(stderr, "bench: %s\n", ms_last_create_error());
        return -1;
    }
    /* 64 seen tokens per request (the presence penalty of the full setting) */
    int32_t *seen = malloc(64 * sizeof(int32_t));
    int64_t *rids = malloc((size_t)B * sizeof(int64_t));
    int32_t *slots = malloc((size_t)B * 4), *ks = calloc((size_t)B, 4);
    int32_t *tok_g = malloc((size_t)B * 4), *tok_c = malloc((size_t)B * 4);
    float *host = malloc((size_t)B * (size_t)V * sizeof(float));
    if (!seen || !rids || !slots || !ks || !tok_g || !tok_c || !host) return -1;
    uint64_t s = o->seed * 1000003u + (uint64_t)B * 7 + (uint64_t)V;
    for (int32_t i = 0; i < B; i++) {
        rids[i] = i;
        ms_req_config c = bc_cfg(setting, bc_next(&s));
        ms_ingest(res, i, &c);
        slots[i] = ms_cuda_slot_of(res, i);
    }
    ms_step step = ms_step_default();
    ms_prefill *pf = malloc((size_t)B * sizeof(ms_prefill));
    for (int k = 0; k < 64; k++) seen[k] = (int32_t)(bc_next(&s) % (uint64_t)V);
    for (int32_t i = 0; i < B; i++) pf[i] = (ms_prefill){i, seen, 64};
    step.prefill = pf;
    step.n_prefill = B;
    if (setting == MS_BENCH_FULL) ms_plan(res, &step);
    bc_fill(host, (size_t)B * V, peaked, s);
    /* bf16 / fp16 steps: the same values rounded to bf16 / fp16, which both backends read as such */
    uint16_t *h16 = dt != MS_DTYPE_F32 ? malloc(set_bytes) : NULL;
    if (dt != MS_DTYPE_F32) {
        if (!h16) return -1;
        for (size_t i = 0; i < (size_t)B * V; i++) h16[i] = dt == MS_DTYPE_BF16 ? bc_bf16(host[i]) : bc_f16(host[i]);
    }
    const void *hin = h16 ? (const void *)h16 : (const void *)host;

    float *dx = NULL;
    int32_t *d_slot, *d_k, *d_tok;
    void *ws;
    size_t wsb = 0;
    ms_cuda_workspace_size(res, B, &wsb);
    BCU(cudaMalloc((void **)&dx, (nsets + (rewrite ? 1 : 0)) * set_bytes));
    BCU(cudaMalloc((void **)&d_slot, (size_t)B * 4));
    BCU(cudaMalloc((void **)&d_k, (size_t)B * 4));
    BCU(cudaMalloc((void **)&d_tok, (size_t)B * 4));
    BCU(cudaMalloc(&ws, wsb));
    /* Round 17C: the resource's own workspace (workspace NULL, what ms_sample and the simplest use of
     * ms_cuda_sample_rows take), where a build with MS_CU_K4_ZERO (the default since round 17C) runs no K0;
     * MS_BENCH_CALLERWS=1 samples with a caller's workspace instead (K0 in every step). The default since the
     * twelfth session (before it the caller's, and round 17C's MS_BENCH_OWNWS=1, now without effect, chose this). */
    void *ws_use = getenv("MS_BENCH_CALLERWS") ? ws : NULL;
    const size_t wsb_use = ws_use ? wsb : 0;
    BCU(cudaMemcpy(dx, hin, set_bytes, cudaMemcpyHostToDevice));
    for (size_t i = 1; i < nsets + (rewrite ? 1 : 0); i++)
        BCU(cudaMemcpy((char *)dx + i * set_bytes, dx, set_bytes, cudaMemcpyDeviceToDevice));
    BCU(cudaMemcpy(d_slot, slots, (size_t)B * 4, cudaMemcpyHostToDevice));
    BCU(cudaMemcpy(d_k, ks, (size_t)B * 4, cudaMemcpyHostToDevice));

    cudaStream_t st;
    BCU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    ms_cuda_set_stream(res, st);
    /* one graph per input set: a replay is one step, its launches back to back */
    cudaGraphExec_t *ex = malloc(nsets * sizeof(cudaGraphExec_t));
    for (size_t i = 0; i < nsets; i++) {
        ms_cuda_rows rows = {B, d_slot, d_k, (const char *)dx + i * set_bytes, dt, V, 0, true, true, d_tok, NULL};
        cudaGraph_t g;
        BCU(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        if (rewrite)
            BCU(cudaMemcpyAsync((char *)dx + i * set_bytes, (const char *)dx + nsets * set_bytes, set_bytes,
                                cudaMemcpyDeviceToDevice, st));
        int rc = ms_cuda_sample_rows(res, &rows, ws_use, wsb_use);
        BCU(cudaStreamEndCapture(st, &g));
        if (rc != MS_OK) {
            fprintf(stderr, "bench: %s\n", ms_resource_last_error(res));
            return -1;
        }
        BCU(cudaGraphInstantiate(&ex[i], g, 0));
        cudaGraphDestroy(g);
    }
    const int steps = o->reps * 20 < 100 ? 100 : o->reps * 20;
    cudaEvent_t *ev = malloc((size_t)(steps + 1) * sizeof(cudaEvent_t));
    for (int i = 0; i <= steps; i++) BCU(cudaEventCreate(&ev[i]));
    for (int i = 0; i < 20; i++) BCU(cudaGraphLaunch(ex[i % nsets], st)); /* warm-up */
    BCU(cudaEventRecord(ev[0], st));
    for (int i = 0; i < steps; i++) {
        BCU(cudaGraphLaunch(ex[(size_t)i % nsets], st));
        BCU(cudaEventRecord(ev[i + 1], st));
    }
    BCU(cudaStreamSynchronize(st));
    float *t = malloc((size_t)steps * sizeof(float));
    for (int i = 0; i < steps; i++) cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]);
    qsort(t, (size_t)steps, sizeof(float), bc_cmp_f);
    const double us = t[steps / 2] * 1e3;
    /* one read of the logits at the copy bandwidth, plus the cost of any graph step at all */
    const double read_us = (double)set_bytes / bw * 1e6, floor_us = read_us + t0;

    /* tokens against the CPU reference on input set 0 (the full setting: every row; top-p alone
     * sorts most of the vocabulary in the reference: the first 16 rows) */
    int checked = 0, agree = 0;
    if (!o->no_baseline) {
        ms_cuda_rows rows = {B, d_slot, d_k, dx, dt, V, 0, true, true, d_tok, NULL};
        BCU(ms_cuda_sample_rows(res, &rows, ws_use, wsb_use) == MS_OK ? cudaSuccess : cudaErrorUnknown);
        BCU(cudaStreamSynchronize(st));
        BCU(cudaMemcpy(tok_g, d_tok, (size_t)B * 4, cudaMemcpyDeviceToHost));
        int32_t nb = setting == MS_BENCH_FULL ? B : (B < 16 ? B : 16);
        p.backend = MS_BACKEND_CPU_REF;
        p.capacity = B;
        if (ms_resource_create(&ref, &spec, &p) == MS_OK) {
            uint64_t s2 = o->seed * 1000003u + (uint64_t)B * 7 + (uint64_t)V;
            for (int32_t i = 0; i < B; i++) {
                ms_req_config c = bc_cfg(setting, bc_next(&s2));
                ms_ingest(ref, i, &c);
            }
            if (setting == MS_BENCH_FULL) ms_plan(ref, &step);
            ms_batch b = {nb, rids, hin, dt, V, 0};
            if (ms_sample(ref, NULL, &b, tok_c, NULL) == MS_OK)
                for (int32_t i = 0; i < nb; i++) {
                    checked++;
                    agree += tok_c[i] == tok_g[i];
                }
            ms_resource_free(ref);
        }
    }
    /* the dtype's name (the JSON line's "dtype") and the table's setting column: "full", "full.bf16", "top-p.f16", ... */
    const char *dname = dt == MS_DTYPE_BF16 ? "bf16" : dt == MS_DTYPE_F16 ? "f16" : "f32";
    char sname[16];
    snprintf(sname, sizeof sname, "%s%s%s", setting == MS_BENCH_FULL ? "full" : "top-p", dt == MS_DTYPE_F32 ? "" : ".",
             dt == MS_DTYPE_F32 ? "" : dname);
    double anchor = setting == MS_BENCH_FULL ? -1 : bc_anchor(peaked, B, V);
    char fij[320] = "null"; /* the JSON line's "flashinfer" value */
#ifdef MSAMPLER_HAVE_FLASHINFER
    if (dt == MS_DTYPE_F32) /* FlashInfer's side reads fp32 */
        anchor = ms_bench_flashinfer_cell(dx, nsets, B, V, setting == MS_BENCH_FULL ? 50 : 0, steps, o->json, fij, sizeof fij);
#else
    if (anchor > 0) snprintf(fij, sizeof fij, "{\"us\":%.0f,\"source\":\"ANCHORS.md\"}", anchor);
#endif
    if (o->json) {
        printf("{\"backend\":\"cuda\",\"dtype\":\"%s\",\"setting\":\"%s\",\"shape\":\"%s\",\"batch\":%d,\"vocab\":%d,\"us_per_step\":%.2f,"
               "\"floor_us\":%.2f,\"read_us\":%.2f,\"empty_step_us\":%.2f,\"ratio\":%.2f,\"us_per_row\":%.3f,\"floor_us_per_row\":%.3f,\"threads\":0,"
               "\"baseline_us_per_row\":null,\"tokens_checked\":%d,\"tokens_match\":%s,\"copy_bw_gbs\":%.0f,"
               "\"input_sets\":%zu,\"flashinfer\":%s}\n",
               dname, setting == MS_BENCH_FULL ? "full" : "top-p", peaked ? "peaked" : "flat", B, V, us, floor_us, read_us, t0, us / floor_us,
               us / B, floor_us / B, checked,
               checked == agree ? "true" : "false", bw / 1e9, nsets, fij);
    } else {
        char anc[32] = "-";
        if (anchor > 0) snprintf(anc, sizeof anc, "%.0f", anchor);
        printf("%-6s %-7s %5d %7d %10.2f %9.2f %8.2f %7.2f %8d/%-5d %s\n", sname, peaked ? "peaked" : "flat", B, V, us,
               floor_us, read_us, us / floor_us, agree, checked, anc);
    }
    fflush(stdout);
#ifdef MS_BENCH_CUDA_STANDALONE
    if (getenv("MS_BENCH_STAMPS")) bc_stamps(ex[0], st, sname, peaked, B, V);
    if (bc_chain_on) bc_chain(B, V, us);
#endif
    for (size_t i = 0; i < nsets; i++) cudaGraphExecDestroy(ex[i]);
    for (int i = 0; i <= steps; i++) cudaEventDestroy(ev[i]);
    ms_resource_free(res); /* before its stream goes */
    res = NULL;
    cudaStreamDestroy(st);
    cudaFree(dx); cudaFree(d_slot); cudaFree(d_k); cudaFree(d_tok); cudaFree(ws);
    free(ex); free(ev); free(t); free(seen); free(rids); free(slots); free(ks); free(tok_g); free(tok_c); free(host); free(h16); free(pf);
    return 0;
}

int msample_bench_cuda(const ms_bench_opts *o) {
    int n = ms_cuda_device_count();
    if (n < 1) {
        fprintf(stderr, "bench --backend cuda: no CUDA device (or no CUDA backend in this build)\n");
        return 2;
    }
    if (cudaSetDevice(o->device) != cudaSuccess) return 2;
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, o->device);
    const double bw = bc_copy_bw();
    const double t0 = bc_empty_step_us();
    if (bw <= 0) return 1;
    if (!o->json) {
        printf("# msample bench --backend cuda: %s, %d SMs, L2 %d MB; copy bandwidth %.0f GB/s (read + write); "
               "empty graph step %.2f us\n",
               prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, bw / 1e9, t0);
        printf("# time: median of CUDA-event-timed graph replays of ms_cuda_sample_rows (fp32 logits), inputs rotated\n"
               "# over >= %.0f MB; floor = read_us (one read of the logits at the copy bandwidth) + the empty graph step;\n"
               "# ratio = us/step / floor; tokens: equal to MS_BACKEND_CPU_REF on the same rows;\n"
               BC_FI_NOTE,
               o->min_buffer_mb);
        printf("%-6s %-7s %5s %7s %10s %9s %8s %7s %14s %s\n", "set", "shape", "B", "V", "us/step", "floor_us", "read_us",
               "ratio", "tokens", "flashinfer_us");
    }
    int rc = 0;
    for (int a = 0; a < o->n_settings; a++)
        for (int b = 0; b < o->n_shapes; b++)
            for (int v = 0; v < o->n_vocab; v++)
                for (int c = 0; c < o->n_batch; c++)
                    if (bc_run(o, o->settings[a], o->shapes[b] == MS_BENCH_PEAKED, o->batch[c], o->vocab[v], bw, t0) < 0) rc = 1;
    return rc;
}

#else /* no CUDA in this build */

int msample_bench_cuda(const ms_bench_opts *o) {
    (void)o;
    fprintf(stderr, "bench --backend cuda: this build has no CUDA backend\n");
    return 2;
}

#endif

#ifdef MS_BENCH_CUDA_STANDALONE
/* Standalone: ms_bench_cuda [--vocab V,..] [--batch B,..] [--shape flat|peaked|both]
 *                           [--setting full|top-p|both] [--reps R] [--buffer-mb M] [--json] [--no-baseline]
 *                           [--dtype f32|bf16|f16] (bf16, f16: the same values rounded to bf16 / fp16, read as such by both backends) */
static int bc_list(const char *s, int32_t *out) {
    int n = 0;
    while (*s && n < MS_BENCH_MAX_LIST) {
        out[n++] = (int32_t)strtol(s, (char **)&s, 10);
        if (*s == ',') s++;
        else break;
    }
    return n;
}

int main(int argc, char **argv) {
    ms_bench_opts o;
    memset(&o, 0, sizeof o);
    o.backend = "cuda";
    o.vocab[0] = 151936, o.vocab[1] = 262144, o.n_vocab = 2;
    o.batch[0] = 1, o.batch[1] = 16, o.batch[2] = 64, o.batch[3] = 256, o.n_batch = 4;
    o.shapes[0] = MS_BENCH_FLAT, o.shapes[1] = MS_BENCH_PEAKED, o.n_shapes = 2;
    o.settings[0] = MS_BENCH_FULL, o.settings[1] = MS_BENCH_TOP_P, o.n_settings = 2;
    o.reps = 15;
    o.min_buffer_mb = 256;
    o.seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--vocab")) o.n_vocab = bc_list(v, o.vocab), i++;
        else if (!strcmp(a, "--batch")) o.n_batch = bc_list(v, o.batch), i++;
        else if (!strcmp(a, "--reps")) o.reps = atoi(v), i++;
        else if (!strcmp(a, "--buffer-mb")) o.min_buffer_mb = atof(v), i++;
        else if (!strcmp(a, "--json")) o.json = true;
        else if (!strcmp(a, "--no-baseline")) o.no_baseline = true;
        else if (!strcmp(a, "--chain")) bc_chain_on = 1;
        else if (!strcmp(a, "--dtype") && (!strcmp(v, "f32") || !strcmp(v, "bf16") || !strcmp(v, "f16")))
            o.dtype = !strcmp(v, "bf16") ? MS_DTYPE_BF16 : !strcmp(v, "f16") ? MS_DTYPE_F16 : MS_DTYPE_F32, i++;
        else if (!strcmp(a, "--shape")) {
            o.n_shapes = 0;
            if (strcmp(v, "peaked")) o.shapes[o.n_shapes++] = MS_BENCH_FLAT;
            if (strcmp(v, "flat")) o.shapes[o.n_shapes++] = MS_BENCH_PEAKED;
            i++;
        } else if (!strcmp(a, "--setting")) {
            o.n_settings = 0;
            if (strcmp(v, "top-p")) o.settings[o.n_settings++] = MS_BENCH_FULL;
            if (strcmp(v, "full")) o.settings[o.n_settings++] = MS_BENCH_TOP_P;
            i++;
        } else {
            fprintf(stderr, "usage: ms_bench_cuda [--vocab V,..] [--batch B,..] [--shape flat|peaked|both] "
                            "[--setting full|top-p|both] [--reps R] [--buffer-mb M] [--json] [--no-baseline] "
                            "[--dtype f32|bf16|f16] [--chain]\n");
            return 2;
        }
    }
    return msample_bench_cuda(&o);
}
#endif
