/*
 * ms_cpu_fast_simd.c: the elementwise passes of the fast CPU row (issue 5), written once with GCC
 * vector extensions and compiled once per SIMD level.
 *
 * Compiled on its own it is the portable level (16-byte vectors: SSE2 on x86-64, NEON on arm64).
 * ms_cpu_fast_avx2.c and ms_cpu_fast_avx512.c define MS_FAST_W and MS_FAST_NAME and include this
 * file under per-file ISA flags (cmake/sources-cpu.cmake); ms_cpu_fast_w16.c builds the 64-byte
 * variant without ISA flags so that the AVX-512 code shape is tested on machines without AVX-512.
 *
 * Bit-identity: every lane performs exactly the IEEE fp32 operations of ms_math.h, in the same
 * order (ms__exp, ms__mass, ms__sanitize, x / T), and the file is compiled with -ffp-contract=off,
 * so a lane's result equals the scalar one. Integer masses are summed exactly (order-free).
 */
#if !defined(MS_FAST_W)
#  define MS_FAST_W 4
#  define MS_FAST_NAME generic
#  define MS_FAST_LABEL "generic"
#endif

#include <string.h>
#if defined(__SSE2__)
#  include <immintrin.h>
#endif

#include "ms_cpu.h"
#include "ms_math.h"

#define MS__CAT2(a, b) a##b
#define MS__CAT(a, b) MS__CAT2(a, b)
#define MS__FN(name) MS__CAT(MS__CAT(ms__fast_, MS_FAST_NAME), MS__CAT(_, name))

#define W MS_FAST_W
typedef float vf __attribute__((vector_size(4 * W)));
typedef int32_t vi __attribute__((vector_size(4 * W)));
typedef uint32_t vu __attribute__((vector_size(4 * W)));
typedef uint16_t vh __attribute__((vector_size(2 * W)));
/* the same vectors in memory at any element alignment (unaligned loads and stores) */
typedef float vf_mem __attribute__((vector_size(4 * W), aligned(4), may_alias));
typedef uint16_t vh_mem __attribute__((vector_size(2 * W), aligned(2), may_alias));

static inline vf ms__vld(const float *p) { return *(const vf_mem *)p; }
static inline void ms__vst(float *p, vf v) { *(vf_mem *)p = v; }
static inline vf ms__vsplat(float f) {
    vf v;
    for (int i = 0; i < W; i++) v[i] = f;
    return v;
}
static inline vu ms__vsplatu(uint32_t u) {
    vu v;
    for (int i = 0; i < W; i++) v[i] = u;
    return v;
}
static inline vf ms__vsel(vi mask, vf a, vf b) { /* mask ? a : b, bitwise */
#if W == 16 && defined(__AVX512DQ__)
    /* the mask's lanes are all-ones or zero (comparisons): one blend on a k-register, where GCC
     * emitted two masked xors for the bitwise form */
    return (vf)_mm512_mask_blend_ps(_mm512_movepi32_mask((__m512i)mask), (__m512)b, (__m512)a);
#else
    return (vf)(((vi)a & mask) | ((vi)b & ~mask));
#endif
}
/* Lane i of a comparison mask as bit i (one movemask instruction where the ISA has one). */
static inline uint32_t ms__vbits(vi mask) {
#if W == 16 && defined(__AVX512F__)
    return (uint32_t)_mm512_cmplt_epi32_mask((__m512i)mask, _mm512_setzero_si512());
#elif W == 8 && defined(__AVX2__)
    return (uint32_t)_mm256_movemask_ps((__m256)mask);
#elif W == 4 && defined(__SSE2__)
    return (uint32_t)_mm_movemask_ps((__m128)mask);
#else
    uint32_t b = 0;
    for (int i = 0; i < W; i++) b |= (uint32_t)(mask[i] & 1) << i;
    return b;
#endif
}
static inline int ms__vany(vi mask) { return ms__vbits(mask) != 0; }

#if W == 16 && defined(__AVX512F__)
/* AVX-512 (round 6): the lanes set in k packed to the front by vpcompressd and stored as one whole
 * vector at p, which must have room for 16 entries (the lists' "room for n + 16" / n <= t rules).
 * The register form and a plain store: the compress-to-memory form is known to be slow on some
 * cores (many uops on AMD Zen 4, more than this pair on Intel; not measured here).
 * It replaces the loops over the mask's bits that the 16-lane code had (no permute table: 2^16
 * entries), whose unpredictable trip count cost a branch miss per vector in band_hist. */
static inline void ms__zpack(int32_t *p, __mmask16 k, __m512i v) {
    _mm512_storeu_si512((void *)p, _mm512_maskz_compress_epi32(k, v));
}
/* t, t + 1, ..., t + 15 */
static inline __m512i ms__ziota(int32_t t) {
    return _mm512_add_epi32(_mm512_set1_epi32(t),
                            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}
#endif

/* Appends t + i for every lane i set in bits to ids[n..] and returns the new count. AVX-512: one
 * packed whole-vector store, so ids needs room for n + 16 (every caller's n <= t, t + 16 <= its end);
 * elsewhere a loop over the bits. */
static inline int32_t ms__vlist(int32_t *ids, int32_t n, uint32_t bits, int32_t t) {
#if W == 16 && defined(__AVX512F__)
    ms__zpack(ids + n, (__mmask16)bits, ms__ziota(t));
    return n + __builtin_popcount(bits);
#else
    for (; bits; bits &= bits - 1) ids[n++] = t + __builtin_ctz(bits);
    return n;
#endif
}

static inline vf ms__vmax(vf a, vf b);
/* ms__sanitize: NaN -> -inf. x > -inf ? x : -inf is x for every x but NaN (-inf stays -inf, -0 stays
 * -0) and -inf for NaN, and ms__vmax(-inf, x) is that test in one instruction where ms__vmax is one
 * (round 9's direct exp pass; before, everywhere a compare x != x and a blend). */
static inline vf ms__vsanitize(vf x) { return ms__vmax(ms__vsplat(ms__neg_inf()), x); }

/* ms__f16_to_f32 without the normalising loop: a subnormal half is man * 2^-24, and both the
 * integer-to-float conversion (man < 2^10) and the power-of-two product are exact. */
static inline vf ms__vf16(vh h16) {
    vu h = __builtin_convertvector(h16, vu);
    vu sign = (h & 0x8000u) << 16;
    vu ex = (h >> 10) & 0x1fu;
    vu man = h & 0x3ffu;
    vu normal = sign | ((ex + 112u) << 23) | (man << 13);
    vu special = sign | 0x7f800000u | (man << 13);
    vf sub = __builtin_convertvector((vi)man, vf) * ms__vsplat(5.9604644775390625e-8f); /* 2^-24 */
    vu subu = (vu)sub | sign;
    vi is_special = (vi)(ex == 0x1fu), is_sub = (vi)(ex == 0u);
    vu r = (normal & (vu)~(is_special | is_sub)) | (special & (vu)is_special) | (subu & (vu)is_sub);
    return (vf)r;
}

static inline vf ms__vload(const void *row, ms_dtype dtype, int32_t t) {
    if (dtype == MS_DTYPE_F32) return ms__vld((const float *)row + t);
    vh h = *(const vh_mem *)((const uint16_t *)row + t);
    if (dtype == MS_DTYPE_BF16) return (vf)(__builtin_convertvector(h, vu) << 16);
    return ms__vf16(h);
}

static inline float ms__sload(const void *row, ms_dtype dtype, int32_t t) {
    switch (dtype) {
    case MS_DTYPE_F16: return ms__f16_to_f32(((const uint16_t *)row)[t]);
    case MS_DTYPE_BF16: return ms__bf16_to_f32(((const uint16_t *)row)[t]);
    default: return ((const float *)row)[t];
    }
}

/* b > a ? b : a, lane by lane (a NaN b never wins). maxps(b, a) is exactly that rule (it returns
 * its second operand unless the first is greater): one instruction instead of compare and blend. */
static inline vf ms__vmax(vf a, vf b) {
#if W == 16 && defined(__AVX512F__)
    return (vf)_mm512_max_ps((__m512)b, (__m512)a);
#elif W == 8 && defined(__AVX__)
    return (vf)_mm256_max_ps((__m256)b, (__m256)a);
#elif W == 4 && defined(__SSE2__)
    return (vf)_mm_max_ps((__m128)b, (__m128)a);
#else
    return ms__vsel((vi)(b > a), b, a);
#endif
}
static inline float ms__hmax(vf v) {
    float m = v[0];
    for (int i = 1; i < W; i++)
        if (v[i] > m) m = v[i];
    return m;
}

/* ms__exp, lane by lane: the same operations in the same order. Lanes below MS_EXP_MIN (and
 * -inf) compute on 0 and are zeroed afterwards, so no lane converts an out-of-range float. */
static inline vf ms__vexp(vf d) {
    vi ok = (vi)(d >= ms__vsplat(MS_EXP_MIN));
    d = (vf)((vi)d & ok);
    vf x = d * MS_LOG2E;
    vf n = (x + MS_EXP_MAGIC) - MS_EXP_MAGIC;
    vf r = d - n * MS_LN2_HI;
    r = r - n * MS_LN2_LO;
    vf p = ms__vsplat(MS_EXP_C6);
    p = MS_EXP_C5 + r * p;
    p = MS_EXP_C4 + r * p;
    p = MS_EXP_C3 + r * p;
    p = MS_EXP_C2 + r * p;
    p = r + (r * r) * p;
    p = 1.0f + p;
    vi ni = __builtin_convertvector(n, vi);
    vf scale = (vf)((ni + 127) << 23);
    return (vf)((vi)(p * scale) & ok);
}

/* MS__U vectors at once, statement by statement: the dependency chains (division, exp's
 * polynomial) interleave, so the core overlaps their latencies instead of waiting on one chain
 * (four: measured 2x on Zen 3 against one; eight, round 4: top-p alone at V=151936 another
 * 375-388 -> 348-358 us/row flat, 313-333 -> 283-288 peaked, though the vectors spill with AVX2;
 * six was no better than four). Each lane still does exactly ms__exp's operations. */
#ifndef MS_FAST_U16 /* the depth at 16 lanes (round 6: a build may set it to compare, e.g. 4) */
#define MS_FAST_U16 8
#endif
#define MS__U (W == 16 ? MS_FAST_U16 : 8)
static inline void ms__vexp4(vf d[MS__U], vf out[MS__U]) {
    vi ok[MS__U];
    vf n[MS__U], r[MS__U], p[MS__U];
    for (int j = 0; j < MS__U; j++) {
        ok[j] = (vi)(d[j] >= ms__vsplat(MS_EXP_MIN));
        d[j] = (vf)((vi)d[j] & ok[j]);
    }
    for (int j = 0; j < MS__U; j++) n[j] = ((d[j] * MS_LOG2E) + MS_EXP_MAGIC) - MS_EXP_MAGIC;
    for (int j = 0; j < MS__U; j++) r[j] = d[j] - n[j] * MS_LN2_HI;
    for (int j = 0; j < MS__U; j++) r[j] = r[j] - n[j] * MS_LN2_LO;
    for (int j = 0; j < MS__U; j++) p[j] = MS_EXP_C5 + r[j] * MS_EXP_C6;
    for (int j = 0; j < MS__U; j++) p[j] = MS_EXP_C4 + r[j] * p[j];
    for (int j = 0; j < MS__U; j++) p[j] = MS_EXP_C3 + r[j] * p[j];
    for (int j = 0; j < MS__U; j++) p[j] = MS_EXP_C2 + r[j] * p[j];
    for (int j = 0; j < MS__U; j++) p[j] = r[j] + (r[j] * r[j]) * p[j];
    for (int j = 0; j < MS__U; j++) p[j] = 1.0f + p[j];
    for (int j = 0; j < MS__U; j++) {
        vi ni = __builtin_convertvector(n[j], vi);
        vf scale = (vf)((ni + 127) << 23);
        out[j] = (vf)((vi)(p[j] * scale) & ok[j]);
    }
}

/* q = floor(w 2^40) as hi 2^20 + lo with hi <= 2^20, lo < 2^20, every step exact (w in [0, 1], 0 or
 * normal): f = w 2^20 (a power of two), hi = trunc(f), f - hi is exact (hi = 0, or hi <= f < hi + 1
 * <= 2 hi: Sterbenz), and lo = trunc((f - hi) 2^20); so hi 2^20 + lo = floor(f 2^20). Six vector
 * operations (round 5: the previous form scaled by 2^40, then 2^-20, then 2^20 again: seven). */
static inline void ms__vmass(vf w, vu *hi, vu *lo) {
    const vf f = w * 1048576.0f;
    const vi h = __builtin_convertvector(f, vi); /* truncates */
    *hi = (vu)h;
    *lo = (vu)__builtin_convertvector((f - __builtin_convertvector(h, vf)) * 1048576.0f, vi);
}
static inline uint64_t ms__hsum_mass(vu hi, vu lo) {
    uint64_t sh = 0, sl = 0;
    for (int i = 0; i < W; i++) {
        sh += hi[i];
        sl += lo[i];
    }
    return (sh << 20) + sl;
}

/* Pass 1 (the one read of the row from memory): y = sanitize(load(x)), presence-penalised where
 * `seen` has a bit (r != 1), stored to y; returns max y. Blocks of 64 tokens follow the bitset's
 * words, so a block without a seen token never leaves the vector path. With ids, the same pass lists
 * the tokens with y >= tau (a sampled top-k threshold: few), sparing a second pass. */
/* Lists the lanes of v that reach tau (rare: the lanes go through memory only then); with
 * sparse, also stores v at y + t then (the only stores of the vector path). */
static inline int32_t ms__vcollect(vf v, vf vt, int32_t t, int32_t *ids, int32_t n, float *y, int sparse) {
    vi ge = (vi)(v >= vt);
    if (ms__vany(ge)) {
        if (sparse) ms__vst(y + t, v);
        n = ms__vlist(ids, n, ms__vbits(ge), t); /* room: n <= t, t + 16 <= the row's end (load_max) */
    }
    return n;
}

#if W == 8 && defined(__AVX2__)
static const uint64_t ms__compress_lut[256]; /* below: lane numbers packed by mask */
#endif
/* ms__vlist without a branch on the mask (round 8: pass 1's blocks that list a token, where the
 * loop over the bits and the per-vector test each cost about one branch miss per block): AVX2
 * packs the ids by one permute from the table and stores all eight (ids needs room for n + 8, as
 * the AVX-512 form's n + 16); the AVX-512 form has no branch already; elsewhere ms__vlist. */
static inline int32_t ms__vlist_nb(int32_t *ids, int32_t n, uint32_t bits, int32_t t) {
#if W == 8 && defined(__AVX2__)
    const __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)ms__compress_lut[bits]));
    const __m256i id = _mm256_add_epi32(_mm256_set1_epi32(t), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_storeu_si256((__m256i *)(ids + n), _mm256_permutevar8x32_epi32(id, idx));
    return n + __builtin_popcount(bits);
#else
    return ms__vlist(ids, n, bits, t);
#endif
}
/* 1 << i in lane i (bit i of a 64-bit word shifted to the vector's first token) */
static inline vu ms__vlanebit(void) {
    vu v;
    for (int i = 0; i < W; i++) v[i] = 1u << i;
    return v;
}

/* The body of load_max for one dtype: always inlined with a constant dtype, so the loops carry no
 * dtype test per vector (the compiler did not unswitch them). */
static inline __attribute__((always_inline)) float ms__load_max_t(const void *row, const ms_dtype dtype, int32_t V,
                                                                 const uint64_t *seen, float r, float *y, float tau,
                                                                 int32_t *ids, int32_t *n_ids, int sparse) {
    /* two running maxima: one chain of compare + select per vector bounded this pass, not memory */
    vf vm = ms__vsplat(ms__neg_inf()), vm2 = vm;
    const vf vt = ms__vsplat(tau);
    float sm = ms__neg_inf();
    int32_t n = 0, t = 0;
    for (; t + 64 <= V; t += 64) {
        uint64_t word = seen ? seen[t >> 6] : 0;
        if (!word) {
            if (ids && sparse) {
                /* no copy of the row: y gets only the vectors holding a listed token. The block's
                 * 64 tokens are tested with one branch, on the raw loads: NaN neither wins the
                 * max (ms__vmax) nor reaches tau (> -inf: the caller lists only then), as the
                 * sanitised -inf would not; so the sanitise runs only for a block with a listed
                 * token (about one block in five of a flat row at V=151936). */
                enum { NV = 64 / W };
                vf v[NV];
                for (int j = 0; j < NV; j++) v[j] = ms__vload(row, dtype, t + j * W);
                /* round 8: the block's own maximum (two chains from -inf, so a NaN load never
                 * enters: ms__vmax keeps its first operand unless the second is greater) feeds
                 * the running maximum and says whether a lane reaches tau: one compare per block
                 * instead of one per vector and their ors (-8 % of pass 1's instructions) */
                vf b1 = ms__vsplat(ms__neg_inf()), b2 = b1;
                for (int j = 0; j < NV; j += 2) {
                    b1 = ms__vmax(b1, v[j]);
                    b2 = ms__vmax(b2, v[j + 1]);
                }
                const vf bm = ms__vmax(b1, b2);
                vm = ms__vmax(vm, bm);
                if (ms__vany((vi)(bm >= vt)))
                    for (int j = 0; j < NV; j++) {
                        /* round 8: the block's vectors all stored and listed without a branch
                         * per vector (a branch miss or two per listed block before) */
                        const vf sv = ms__vsanitize(v[j]);
                        ms__vst(y + t + j * W, sv);
                        n = ms__vlist_nb(ids, n, ms__vbits((vi)(sv >= vt)), t + j * W);
                    }
            } else if (ids) {
                for (int32_t j = 0; j < 64; j += 2 * W) {
                    vf v = ms__vsanitize(ms__vload(row, dtype, t + j));
                    vf v2 = ms__vsanitize(ms__vload(row, dtype, t + j + W));
                    ms__vst(y + t + j, v);
                    ms__vst(y + t + j + W, v2);
                    vm = ms__vmax(vm, v);
                    vm2 = ms__vmax(vm2, v2);
                    n = ms__vcollect(v, vt, t + j, ids, n, y, 0);
                    n = ms__vcollect(v2, vt, t + j + W, ids, n, y, 0);
                }
            } else {
                for (int32_t j = 0; j < 64; j += 2 * W) {
                    vf v = ms__vsanitize(ms__vload(row, dtype, t + j));
                    vf v2 = ms__vsanitize(ms__vload(row, dtype, t + j + W));
                    ms__vst(y + t + j, v);
                    ms__vst(y + t + j + W, v2);
                    vm = ms__vmax(vm, v);
                    vm2 = ms__vmax(vm2, v2);
                }
            }
        } else {
            /* A block with a seen token stays in vectors (round 8; the scalar loop it replaces
             * took a compare and a branch per token, a few us over the bench's 64 such blocks,
             * and most of the whole row's mispredicts after the listing's): each lane
             * whose bit is set takes ms__penalize's own operations (the division or the
             * product, then NaN -> -inf), the others keep the load; the block is stored whole,
             * its maximum and listing as the vector path's. */
            const vf vr = ms__vsplat(r), zero = ms__vsplat(0.0f);
            for (int32_t j = 0; j < 64; j += W) {
                vf v = ms__vsanitize(ms__vload(row, dtype, t + j));
                const vi hit = (vi)((ms__vsplatu((uint32_t)(word >> j)) & ms__vlanebit()) != 0);
                const vf pen = ms__vsanitize(ms__vsel((vi)(v > zero), v / vr, v * vr));
                v = ms__vsel(hit, pen, v);
                ms__vst(y + t + j, v);
                vm = ms__vmax(vm, v);
                if (ids) n = ms__vcollect(v, vt, t + j, ids, n, y, 0);
            }
        }
    }
    for (; t < V; t++) {
        float v = ms__sanitize(ms__sload(row, dtype, t));
        if (seen && ms__bit_get(seen, t)) v = ms__penalize(v, r);
        y[t] = v;
        if (v > sm) sm = v;
        if (ids && v >= tau) ids[n++] = t;
    }
    if (n_ids) *n_ids = n;
    float m = ms__hmax(ms__vmax(vm, vm2));
    return sm > m ? sm : m;
}

float MS__FN(load_max)(const void *row, ms_dtype dtype, int32_t V, const uint64_t *seen, float r, float *y,
                       float tau, int32_t *ids, int32_t *n_ids, int sparse) {
    switch (dtype) {
    case MS_DTYPE_F32: return ms__load_max_t(row, MS_DTYPE_F32, V, seen, r, y, tau, ids, n_ids, sparse);
    case MS_DTYPE_BF16: return ms__load_max_t(row, MS_DTYPE_BF16, V, seen, r, y, tau, ids, n_ids, sparse);
    default: return ms__load_max_t(row, MS_DTYPE_F16, V, seen, r, y, tau, ids, n_ids, sparse);
    }
}

/* max of y[0, V) */
float MS__FN(max)(const float *y, int32_t V) {
    vf vm = ms__vsplat(ms__neg_inf());
    int32_t t = 0;
    for (; t + W <= V; t += W) vm = ms__vmax(vm, ms__vld(y + t));
    float m = ms__hmax(vm);
    for (; t < V; t++)
        if (y[t] > m) m = y[t];
    return m;
}

/* y = y / T in place, w = exp(y - m) stored, and the exact mass of every block of MS_FAST_BLOCK
 * tokens in bsum; returns the row's total mass. m is finite. With top (a constant: the body is
 * inlined twice), also the exact mass and count of the tokens whose y reaches ytop (round 7: the
 * mass above a top-p band chosen before this pass, so that the band's own pass reads y only; six
 * vector operations more per vector, where band_hist spent ~25 on that sum and the buckets).
 * With src (a constant; round 9), y = sanitize(x) / T from the caller's fp32 row x instead: pass 1
 * then only took the max and stored no copy (the same values: load_max's y is sanitize(x) when
 * nothing is penalised, and NaN -> -inf is one compare and a blend more per vector here). */
static inline __attribute__((always_inline)) uint64_t ms__exp_mass_t(const float *x, float *y, float *w, int32_t V,
                                                                    float T, float m, uint64_t *bsum, const int src,
                                                                    const int top, float ytop, uint64_t *mtop,
                                                                    int64_t *ctop) {
    const vf vT = ms__vsplat(T), vmx = ms__vsplat(m), vz = ms__vsplat(MS_FAST_ZERO_D), vtop = ms__vsplat(ytop);
    const uint32_t all = W == 32 ? ~0u : (1u << W) - 1u;
    uint64_t total = 0, ttop = 0;
    int64_t ntop = 0;
    for (int32_t b = 0; b * MS_FAST_BLOCK < V; b++) {
        const int32_t lo = b * MS_FAST_BLOCK, hi = lo + MS_FAST_BLOCK < V ? lo + MS_FAST_BLOCK : V;
        vu sh = ms__vsplatu(0), sl = ms__vsplatu(0), th = sh, tl = sh;
        vi tc = (vi)sh;
        int32_t t = lo;
        for (; t + MS__U * W <= hi; t += MS__U * W) {
            vf yy[MS__U], d[MS__U], ww[MS__U];
            for (int j = 0; j < MS__U; j++)
                yy[j] = (src ? ms__vsanitize(ms__vld(x + t + j * W)) : ms__vld(y + t + j * W)) / vT;
            vi far = (vi)ms__vsplatu(~0u);
            for (int j = 0; j < MS__U; j++) {
                ms__vst(y + t + j * W, yy[j]);
                d[j] = yy[j] - vmx;
                far &= (vi)(d[j] < vz);
            }
            if (ms__vbits(far) == all) {
                /* every lane's mass is 0 (MS_FAST_ZERO_D): no exp, nothing to add (but the count) */
                for (int j = 0; j < MS__U; j++) ms__vst(w + t + j * W, ms__vsplat(0.0f));
                if (top)
                    for (int j = 0; j < MS__U; j++) tc -= (vi)(ms__vld(y + t + j * W) >= vtop);
                continue;
            }
            ms__vexp4(d, ww);
            for (int j = 0; j < MS__U; j++) {
                ms__vst(w + t + j * W, ww[j]);
                vu qh, ql;
                ms__vmass(ww[j], &qh, &ql);
                sh += qh;
                sl += ql;
                if (top) {
                    /* y reloaded from the store above: yy kept live through the exp spilled */
                    const vi ge = (vi)(ms__vld(y + t + j * W) >= vtop);
                    th += qh & (vu)ge;
                    tl += ql & (vu)ge;
                    tc -= ge;
                }
            }
        }
        for (; t + W <= hi; t += W) {
            vf yy = (src ? ms__vsanitize(ms__vld(x + t)) : ms__vld(y + t)) / vT;
            ms__vst(y + t, yy);
            vf ww = ms__vexp(yy - vmx);
            ms__vst(w + t, ww);
            vu qh, ql;
            ms__vmass(ww, &qh, &ql);
            sh += qh;
            sl += ql;
            if (top) {
                const vi ge = (vi)(yy >= vtop);
                th += qh & (vu)ge;
                tl += ql & (vu)ge;
                tc -= ge;
            }
        }
        uint64_t s = ms__hsum_mass(sh, sl);
        if (top) {
            ttop += ms__hsum_mass(th, tl);
            for (int i = 0; i < W; i++) ntop += tc[i];
        }
        for (; t < hi; t++) {
            y[t] = (src ? ms__sanitize(x[t]) : y[t]) / T;
            w[t] = ms__exp(y[t] - m);
            const uint64_t q = ms__mass(w[t]);
            s += q;
            if (top && y[t] >= ytop) {
                ttop += q;
                ntop++;
            }
        }
        bsum[b] = s;
        total += s;
    }
    if (top) {
        *mtop = ttop;
        *ctop = ntop;
    }
    return total;
}

uint64_t MS__FN(exp_mass)(const float *x, float *y, float *w, int32_t V, float T, float m, uint64_t *bsum) {
    if (x == y) return ms__exp_mass_t(y, y, w, V, T, m, bsum, 0, 0, 0.0f, NULL, NULL);
    return ms__exp_mass_t(x, y, w, V, T, m, bsum, 1, 0, 0.0f, NULL, NULL);
}

uint64_t MS__FN(exp_mass_top)(const float *x, float *y, float *w, int32_t V, float T, float m, uint64_t *bsum,
                              float ytop, uint64_t *mass_top, int64_t *cnt_top) {
    if (x == y) return ms__exp_mass_t(y, y, w, V, T, m, bsum, 0, 1, ytop, mass_top, cnt_top);
    return ms__exp_mass_t(x, y, w, V, T, m, bsum, 1, 1, ytop, mass_top, cnt_top);
}

/* The ids t (ascending) with y[t] >= tau; returns their count. */
int32_t MS__FN(select_ge)(const float *y, int32_t V, float tau, int32_t *ids) {
    const vf vt = ms__vsplat(tau);
    int32_t n = 0, t = 0;
    /* four vectors per branch (round 4): the lists are sparse (a threshold guessed for ~2k of a
     * row's tokens, the min-p candidates); a group with a listed token goes vector by vector */
    for (; t + 4 * W <= V; t += 4 * W) {
        vi any = (vi)(ms__vld(y + t) >= vt) | (vi)(ms__vld(y + t + W) >= vt) | (vi)(ms__vld(y + t + 2 * W) >= vt) |
                 (vi)(ms__vld(y + t + 3 * W) >= vt);
        if (!ms__vany(any)) continue;
        for (int j = 0; j < 4 * W; j += W) {
            vi ge = (vi)(ms__vld(y + t + j) >= vt);
            n = ms__vlist_nb(ids, n, ms__vbits(ge), t + j); /* n <= t + j: the store stays below V */
        }
    }
    for (; t + W <= V; t += W) {
        vi ge = (vi)(ms__vld(y + t) >= vt);
        if (!ms__vany(ge)) continue;
        n = ms__vlist(ids, n, ms__vbits(ge), t);
    }
    for (; t < V; t++)
        if (y[t] >= tau) ids[n++] = t;
    return n;
}

/* The first t with y[t] >= v, or V (greedy: v = max y, so the first index holding the maximum).
 * Four vectors per step, one branch: the scalar scan was ~1 cycle per token. */
int32_t MS__FN(first_ge)(const float *y, int32_t V, float v) {
    const vf vv = ms__vsplat(v);
    int32_t t = 0;
    for (; t + 4 * W <= V; t += 4 * W) {
        vi ge = (vi)(ms__vld(y + t) >= vv) | (vi)(ms__vld(y + t + W) >= vv) | (vi)(ms__vld(y + t + 2 * W) >= vv) |
                (vi)(ms__vld(y + t + 3 * W) >= vv);
        if (ms__vany(ge)) break;
    }
    for (; t < V; t++)
        if (y[t] >= v) return t;
    return V;
}

/* Packing the lanes set in a mask (band_hist's listing). With AVX2, one permute of the lanes by a
 * table instead of a loop over the bits: that loop's unpredictable trip count cost
 * a branch miss per vector when a third of the lanes are listed (top-p's band in a flat row). */
#if W == 8 && defined(__AVX2__)
static const uint64_t ms__compress_lut[256] = {
    0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000001ull, 0x0000000000000100ull,
    0x0000000000000002ull, 0x0000000000000200ull, 0x0000000000000201ull, 0x0000000000020100ull,
    0x0000000000000003ull, 0x0000000000000300ull, 0x0000000000000301ull, 0x0000000000030100ull,
    0x0000000000000302ull, 0x0000000000030200ull, 0x0000000000030201ull, 0x0000000003020100ull,
    0x0000000000000004ull, 0x0000000000000400ull, 0x0000000000000401ull, 0x0000000000040100ull,
    0x0000000000000402ull, 0x0000000000040200ull, 0x0000000000040201ull, 0x0000000004020100ull,
    0x0000000000000403ull, 0x0000000000040300ull, 0x0000000000040301ull, 0x0000000004030100ull,
    0x0000000000040302ull, 0x0000000004030200ull, 0x0000000004030201ull, 0x0000000403020100ull,
    0x0000000000000005ull, 0x0000000000000500ull, 0x0000000000000501ull, 0x0000000000050100ull,
    0x0000000000000502ull, 0x0000000000050200ull, 0x0000000000050201ull, 0x0000000005020100ull,
    0x0000000000000503ull, 0x0000000000050300ull, 0x0000000000050301ull, 0x0000000005030100ull,
    0x0000000000050302ull, 0x0000000005030200ull, 0x0000000005030201ull, 0x0000000503020100ull,
    0x0000000000000504ull, 0x0000000000050400ull, 0x0000000000050401ull, 0x0000000005040100ull,
    0x0000000000050402ull, 0x0000000005040200ull, 0x0000000005040201ull, 0x0000000504020100ull,
    0x0000000000050403ull, 0x0000000005040300ull, 0x0000000005040301ull, 0x0000000504030100ull,
    0x0000000005040302ull, 0x0000000504030200ull, 0x0000000504030201ull, 0x0000050403020100ull,
    0x0000000000000006ull, 0x0000000000000600ull, 0x0000000000000601ull, 0x0000000000060100ull,
    0x0000000000000602ull, 0x0000000000060200ull, 0x0000000000060201ull, 0x0000000006020100ull,
    0x0000000000000603ull, 0x0000000000060300ull, 0x0000000000060301ull, 0x0000000006030100ull,
    0x0000000000060302ull, 0x0000000006030200ull, 0x0000000006030201ull, 0x0000000603020100ull,
    0x0000000000000604ull, 0x0000000000060400ull, 0x0000000000060401ull, 0x0000000006040100ull,
    0x0000000000060402ull, 0x0000000006040200ull, 0x0000000006040201ull, 0x0000000604020100ull,
    0x0000000000060403ull, 0x0000000006040300ull, 0x0000000006040301ull, 0x0000000604030100ull,
    0x0000000006040302ull, 0x0000000604030200ull, 0x0000000604030201ull, 0x0000060403020100ull,
    0x0000000000000605ull, 0x0000000000060500ull, 0x0000000000060501ull, 0x0000000006050100ull,
    0x0000000000060502ull, 0x0000000006050200ull, 0x0000000006050201ull, 0x0000000605020100ull,
    0x0000000000060503ull, 0x0000000006050300ull, 0x0000000006050301ull, 0x0000000605030100ull,
    0x0000000006050302ull, 0x0000000605030200ull, 0x0000000605030201ull, 0x0000060503020100ull,
    0x0000000000060504ull, 0x0000000006050400ull, 0x0000000006050401ull, 0x0000000605040100ull,
    0x0000000006050402ull, 0x0000000605040200ull, 0x0000000605040201ull, 0x0000060504020100ull,
    0x0000000006050403ull, 0x0000000605040300ull, 0x0000000605040301ull, 0x0000060504030100ull,
    0x0000000605040302ull, 0x0000060504030200ull, 0x0000060504030201ull, 0x0006050403020100ull,
    0x0000000000000007ull, 0x0000000000000700ull, 0x0000000000000701ull, 0x0000000000070100ull,
    0x0000000000000702ull, 0x0000000000070200ull, 0x0000000000070201ull, 0x0000000007020100ull,
    0x0000000000000703ull, 0x0000000000070300ull, 0x0000000000070301ull, 0x0000000007030100ull,
    0x0000000000070302ull, 0x0000000007030200ull, 0x0000000007030201ull, 0x0000000703020100ull,
    0x0000000000000704ull, 0x0000000000070400ull, 0x0000000000070401ull, 0x0000000007040100ull,
    0x0000000000070402ull, 0x0000000007040200ull, 0x0000000007040201ull, 0x0000000704020100ull,
    0x0000000000070403ull, 0x0000000007040300ull, 0x0000000007040301ull, 0x0000000704030100ull,
    0x0000000007040302ull, 0x0000000704030200ull, 0x0000000704030201ull, 0x0000070403020100ull,
    0x0000000000000705ull, 0x0000000000070500ull, 0x0000000000070501ull, 0x0000000007050100ull,
    0x0000000000070502ull, 0x0000000007050200ull, 0x0000000007050201ull, 0x0000000705020100ull,
    0x0000000000070503ull, 0x0000000007050300ull, 0x0000000007050301ull, 0x0000000705030100ull,
    0x0000000007050302ull, 0x0000000705030200ull, 0x0000000705030201ull, 0x0000070503020100ull,
    0x0000000000070504ull, 0x0000000007050400ull, 0x0000000007050401ull, 0x0000000705040100ull,
    0x0000000007050402ull, 0x0000000705040200ull, 0x0000000705040201ull, 0x0000070504020100ull,
    0x0000000007050403ull, 0x0000000705040300ull, 0x0000000705040301ull, 0x0000070504030100ull,
    0x0000000705040302ull, 0x0000070504030200ull, 0x0000070504030201ull, 0x0007050403020100ull,
    0x0000000000000706ull, 0x0000000000070600ull, 0x0000000000070601ull, 0x0000000007060100ull,
    0x0000000000070602ull, 0x0000000007060200ull, 0x0000000007060201ull, 0x0000000706020100ull,
    0x0000000000070603ull, 0x0000000007060300ull, 0x0000000007060301ull, 0x0000000706030100ull,
    0x0000000007060302ull, 0x0000000706030200ull, 0x0000000706030201ull, 0x0000070603020100ull,
    0x0000000000070604ull, 0x0000000007060400ull, 0x0000000007060401ull, 0x0000000706040100ull,
    0x0000000007060402ull, 0x0000000706040200ull, 0x0000000706040201ull, 0x0000070604020100ull,
    0x0000000007060403ull, 0x0000000706040300ull, 0x0000000706040301ull, 0x0000070604030100ull,
    0x0000000706040302ull, 0x0000070604030200ull, 0x0000070604030201ull, 0x0007060403020100ull,
    0x0000000000070605ull, 0x0000000007060500ull, 0x0000000007060501ull, 0x0000000706050100ull,
    0x0000000007060502ull, 0x0000000706050200ull, 0x0000000706050201ull, 0x0000070605020100ull,
    0x0000000007060503ull, 0x0000000706050300ull, 0x0000000706050301ull, 0x0000070605030100ull,
    0x0000000706050302ull, 0x0000070605030200ull, 0x0000070605030201ull, 0x0007060503020100ull,
    0x0000000007060504ull, 0x0000000706050400ull, 0x0000000706050401ull, 0x0000070605040100ull,
    0x0000000706050402ull, 0x0000070605040200ull, 0x0000070605040201ull, 0x0007060504020100ull,
    0x0000000706050403ull, 0x0000070605040300ull, 0x0000070605040301ull, 0x0007060504030100ull,
    0x0000070605040302ull, 0x0007060504030200ull, 0x0007060504030201ull, 0x0706050403020100ull,
};
#endif
/* The ids t + i of the lanes i set in bits, and those lanes' bucket and mass halves packed the same
 * way (so the scalar loop that adds them does no float work); returns their count. May write up to
 * W entries past it. */
static inline int32_t ms__vcompress_band(int32_t t, uint32_t bits, vi bk, vu qh, vu ql, int32_t *ids, uint32_t *obk,
                                         uint32_t *oqh, uint32_t *oql) {
#if W == 8 && defined(__AVX2__)
    const __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)ms__compress_lut[bits]));
    const __m256i id = _mm256_add_epi32(_mm256_set1_epi32(t), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_storeu_si256((__m256i *)ids, _mm256_permutevar8x32_epi32(id, idx));
    _mm256_storeu_si256((__m256i *)obk, _mm256_permutevar8x32_epi32((__m256i)bk, idx));
    _mm256_storeu_si256((__m256i *)oqh, _mm256_permutevar8x32_epi32((__m256i)qh, idx));
    _mm256_storeu_si256((__m256i *)oql, _mm256_permutevar8x32_epi32((__m256i)ql, idx));
    return __builtin_popcount(bits);
#elif W == 16 && defined(__AVX512F__)
    /* one vpcompressd of the lane numbers, then one permute per output: a compress is two uops on
     * the shuffle port, a permute one (four compresses measured slower on the AVX-512 host) */
    const __m512i idx = _mm512_maskz_compress_epi32((__mmask16)bits, ms__ziota(0));
    _mm512_storeu_si512((void *)ids, _mm512_add_epi32(idx, _mm512_set1_epi32(t)));
    _mm512_storeu_si512((void *)obk, _mm512_permutexvar_epi32(idx, (__m512i)bk));
    _mm512_storeu_si512((void *)oqh, _mm512_permutexvar_epi32(idx, (__m512i)qh));
    _mm512_storeu_si512((void *)oql, _mm512_permutexvar_epi32(idx, (__m512i)ql));
    return __builtin_popcount(bits);
#else
    int32_t n = 0;
    for (; bits; bits &= bits - 1) {
        const int i = __builtin_ctz(bits);
        ids[n] = t + i;
        obk[n] = (uint32_t)bk[i];
        oqh[n] = qh[i];
        oql[n++] = ql[i];
    }
    return n;
#endif
}

/* ms__vcompress_band without the masses: the ids and buckets of the lanes set in bits. */
static inline int32_t ms__vcompress_ids(int32_t t, uint32_t bits, vi bk, int32_t *ids, uint32_t *obk) {
#if W == 8 && defined(__AVX2__)
    const __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)ms__compress_lut[bits]));
    const __m256i id = _mm256_add_epi32(_mm256_set1_epi32(t), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_storeu_si256((__m256i *)ids, _mm256_permutevar8x32_epi32(id, idx));
    _mm256_storeu_si256((__m256i *)obk, _mm256_permutevar8x32_epi32((__m256i)bk, idx));
    return __builtin_popcount(bits);
#elif W == 16 && defined(__AVX512F__)
    const __m512i idx = _mm512_maskz_compress_epi32((__mmask16)bits, ms__ziota(0)); /* as above */
    _mm512_storeu_si512((void *)ids, _mm512_add_epi32(idx, _mm512_set1_epi32(t)));
    _mm512_storeu_si512((void *)obk, _mm512_permutexvar_epi32(idx, (__m512i)bk));
    return __builtin_popcount(bits);
#else
    int32_t n = 0;
    for (; bits; bits &= bits - 1) {
        const int i = __builtin_ctz(bits);
        ids[n] = t + i;
        obk[n++] = (uint32_t)bk[i];
    }
    return n;
#endif
}

/* Bucket of y below the max: min(MS_FAST_NB - 1, trunc((m - y) * scale)). Every step is monotone,
 * so a greater y never lands in a later bucket and equal values share one. */
static inline vi ms__vbucket(vf y, vf vm, vf vscale) {
    vf d = (vm - y) * vscale;
    vf top = ms__vsplat((float)(MS_FAST_NB - 1));
#if W == 16 && defined(__AVX512F__)
    d = (vf)_mm512_min_ps((__m512)d, (__m512)top); /* minps(a, b) is exactly a < b ? a : b */
#else
    d = ms__vsel((vi)(d < top), d, top);
#endif
    return __builtin_convertvector(d, vi);
}

/* Over y, w (after exp_mass): the exact mass and count of the tokens in buckets below b_lo
 * (*mass_top, *cnt_top), and of each bucket in [b_lo, b_hi] (hist, hcnt: entries b_lo..b_hi, zeroed
 * here); later buckets are ignored. Tokens in the band are added one by one (their bucket decides
 * where), the rest in vector lanes. */
void MS__FN(band_hist)(const float *y, const float *w, int32_t V, float m, float scale, int32_t b_lo,
                       int32_t b_hi, uint64_t *hist, uint32_t *hcnt, uint64_t *mass_top, int64_t *cnt_top,
                       int32_t *list, uint32_t *list_bk, int32_t *n_list, uint32_t *work) {
    uint32_t *wqh = work + MS_FAST_BLOCK + 16, *wql = work + 2 * (MS_FAST_BLOCK + 16);
    memset(hist + b_lo, 0, (size_t)(b_hi - b_lo + 1) * sizeof *hist);
    memset(hcnt + b_lo, 0, (size_t)(b_hi - b_lo + 1) * sizeof *hcnt);
    const vf vmx = ms__vsplat(m), vsc = ms__vsplat(scale);
    const vi vlo = (vi)ms__vsplatu((uint32_t)b_lo), vhi = (vi)ms__vsplatu((uint32_t)b_hi);
    uint64_t top = 0;
    int64_t ntop = 0;
    int32_t t = 0, n = 0; /* the band's tokens, listed (ascending) as the blocks go */
    while (t < V) {
        const int32_t end = t + MS_FAST_BLOCK < V ? t + MS_FAST_BLOCK : V;
        vu sh = ms__vsplatu(0), sl = ms__vsplatu(0);
        vi cnt = (vi)ms__vsplatu(0);
        const int32_t n0 = n; /* the block's band tokens are listed first, then added (no branch per lane) */
        if (b_lo == 0) {
            /* nothing lies above the band (a peaked row's count rule: the top ~8192 tokens): the
             * vector loop reads y only and takes no mass; the listed tokens' masses are taken
             * one by one below (round 4) */
            for (; t + W <= end; t += W) {
                vi bk = ms__vbucket(ms__vld(y + t), vmx, vsc);
#if W == 16 && defined(__AVX512F__)
                const uint32_t in = _mm512_cmple_epi32_mask((__m512i)bk, (__m512i)vhi);
#else
                const uint32_t in = ms__vbits((vi)(bk <= vhi));
#endif
                n += ms__vcompress_ids(t, in, bk, list + n, list_bk + n);
            }
            for (int32_t i = n0; i < n; i++) {
                hist[list_bk[i]] += ms__mass(w[list[i]]);
                hcnt[list_bk[i]]++;
            }
        } else {
#if W == 16 && defined(__AVX512F__)
            /* the same sums with the masks in k-registers (GCC built the vector masks with a blend,
             * a zeroing move and a third compare): masked adds, and the band's mask straight into
             * the compress */
            const __m512i one = _mm512_set1_epi32(1);
            for (; t + W <= end; t += W) {
                const vi bk = ms__vbucket(ms__vld(y + t), vmx, vsc);
                const __mmask16 above = _mm512_cmplt_epi32_mask((__m512i)bk, (__m512i)vlo);
                const __mmask16 in = _mm512_mask_cmple_epi32_mask((__mmask16)~above, (__m512i)bk, (__m512i)vhi);
                vu qh, ql;
                ms__vmass(ms__vld(w + t), &qh, &ql);
                sh = (vu)_mm512_mask_add_epi32((__m512i)sh, above, (__m512i)sh, (__m512i)qh);
                sl = (vu)_mm512_mask_add_epi32((__m512i)sl, above, (__m512i)sl, (__m512i)ql);
                cnt = (vi)_mm512_mask_add_epi32((__m512i)cnt, above, (__m512i)cnt, one);
                n += ms__vcompress_band(t, (uint32_t)in, bk, qh, ql, list + n, list_bk + n, wqh + (n - n0),
                                        wql + (n - n0));
            }
#endif
            for (; t + W <= end; t += W) {
                vf yy = ms__vld(y + t);
                vi bk = ms__vbucket(yy, vmx, vsc);
                vi above = (vi)(bk < vlo);
                vi in = (vi)(bk <= vhi) & ~above;
                vu qh, ql;
                ms__vmass(ms__vld(w + t), &qh, &ql);
                sh += qh & (vu)above;
                sl += ql & (vu)above;
                cnt -= above;
                /* no branch: whether a lane is in is unpredictable */
                n += ms__vcompress_band(t, ms__vbits(in), bk, qh, ql, list + n, list_bk + n, wqh + (n - n0),
                                        wql + (n - n0));
            }
            /* the listed buckets stay (list_bk): the threshold's bucket is later picked from them */
            const uint32_t *wbk = list_bk + n0;
            for (int32_t i = 0; i < n - n0; i++) {
                hist[wbk[i]] += ((uint64_t)wqh[i] << 20) + wql[i];
                hcnt[wbk[i]]++;
            }
        }
        top += ms__hsum_mass(sh, sl);
        for (int i = 0; i < W; i++) ntop += cnt[i];
        for (; t < end; t++) {
            float d = (m - y[t]) * scale;
            int32_t bk = d < (float)(MS_FAST_NB - 1) ? (int32_t)d : MS_FAST_NB - 1;
            if (bk < b_lo) {
                top += ms__mass(w[t]);
                ntop++;
            } else if (bk <= b_hi) {
                hist[bk] += ms__mass(w[t]);
                hcnt[bk]++;
                list_bk[n] = (uint32_t)bk;
                list[n++] = t;
            }
        }
    }
    *mass_top = top;
    *cnt_top = ntop;
    *n_list = n;
}

/* (round 7) The band's pass when the mass above it is known (exp_mass_top): the tokens with
 * ylo <= y < yhi listed ascending by two compares on y alone (no bucket, no mass in the vector
 * loop: band_hist's ~35 vector operations per vector become ~8), then, per listed token, its unit
 * min(u_top, trunc((m - y) uscale)) - u_lo into list_bk and its exact mass and count into hist,
 * hcnt (u_top - u_lo + 1 entries, zeroed here; the callers' cuts put every listed token's unit
 * there). uscale may be a power-of-two multiple of band_hist's scale: finer units of the same
 * buckets. list: room for V (n <= t), list_bk: V + 16. */
void MS__FN(band_list)(const float *y, const float *w, int32_t V, float m, float uscale, float ylo, float yhi,
                       int32_t u_lo, int32_t u_top, uint64_t *hist, uint32_t *hcnt, int32_t *list, uint32_t *list_bk,
                       int32_t *n_list) {
    memset(hist, 0, (size_t)(u_top - u_lo + 1) * sizeof *hist);
    memset(hcnt, 0, (size_t)(u_top - u_lo + 1) * sizeof *hcnt);
    int32_t n = 0, t = 0;
#if W == 16 && defined(__AVX512F__)
    const __m512 vlo = _mm512_set1_ps(ylo), vhi = _mm512_set1_ps(yhi);
#else
    const vf vlo = ms__vsplat(ylo), vhi = ms__vsplat(yhi);
#endif
    while (t < V) {
        /* a block at a time, so that its listed tokens' y and w are read back while in L1 */
        const int32_t end = t + MS_FAST_BLOCK < V ? t + MS_FAST_BLOCK : V, n0 = n;
#if W == 16 && defined(__AVX512F__)
        for (; t + W <= end; t += W) {
            const __m512 yy = _mm512_loadu_ps(y + t);
            const __mmask16 in = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(yy, vlo, _CMP_GE_OQ), yy, vhi, _CMP_LT_OQ);
            ms__zpack(list + n, in, ms__ziota(t)); /* room: n <= t, t + 16 <= V */
            n += __builtin_popcount((uint32_t)in);
        }
#else
#if W == 8 && defined(__AVX2__)
        /* no branch: whether a vector holds band tokens is unpredictable (~7-10 % of a flat row's
         * tokens are listed, so about half the vectors hold one); two vectors per step and the ids
         * in a register stepped by 8 (the loop's instructions per vector 19 -> ~14) */
        __m256i id = _mm256_add_epi32(_mm256_set1_epi32(t), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const __m256i v8 = _mm256_set1_epi32(8);
        for (; t + 2 * W <= end; t += 2 * W) {
            const vf y0 = ms__vld(y + t), y1 = ms__vld(y + t + W);
            const uint32_t b0 = ms__vbits((vi)(y0 >= vlo) & (vi)(y0 < vhi));
            const uint32_t b1 = ms__vbits((vi)(y1 >= vlo) & (vi)(y1 < vhi));
            const __m256i i0 = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)ms__compress_lut[b0]));
            const __m256i i1 = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)ms__compress_lut[b1]));
            const __m256i id1 = _mm256_add_epi32(id, v8);
            _mm256_storeu_si256((__m256i *)(list + n), _mm256_permutevar8x32_epi32(id, i0));
            n += __builtin_popcount(b0);
            _mm256_storeu_si256((__m256i *)(list + n), _mm256_permutevar8x32_epi32(id1, i1));
            n += __builtin_popcount(b1);
            id = _mm256_add_epi32(id1, v8);
        }
#endif
        for (; t + W <= end; t += W) {
            const vf yy = ms__vld(y + t);
            const uint32_t bits = ms__vbits((vi)(yy >= vlo) & (vi)(yy < vhi));
            n = ms__vlist(list, n, bits, t);
        }
#endif
        for (; t < end; t++) {
            list[n] = t;
            n += y[t] >= ylo && y[t] < yhi;
        }
        for (int32_t i = n0; i < n; i++) {
            const int32_t u = list[i];
            const float d = (m - y[u]) * uscale; /* band_hist's bucket at uscale, scalar */
            const int32_t bk = (d < (float)u_top ? (int32_t)d : u_top) - u_lo;
            list_bk[i] = (uint32_t)bk;
            hist[bk] += ms__mass(w[u]);
            hcnt[bk]++;
        }
    }
    *n_list = n;
}

/* The ids (ascending) of the tokens in bucket `which`. */
int32_t MS__FN(bucket_ids)(const float *y, int32_t V, float m, float scale, int32_t which, int32_t *ids) {
    const vf vmx = ms__vsplat(m), vsc = ms__vsplat(scale);
    const vi vw = (vi)ms__vsplatu((uint32_t)which);
    int32_t n = 0, t = 0;
    for (; t + W <= V; t += W) {
        vi eq = (vi)(ms__vbucket(ms__vld(y + t), vmx, vsc) == vw);
        if (!ms__vany(eq)) continue;
        n = ms__vlist(ids, n, ms__vbits(eq), t); /* ids: room for V (n <= t) */
    }
    for (; t < V; t++) {
        float d = (m - y[t]) * scale;
        int32_t bk = d < (float)(MS_FAST_NB - 1) ? (int32_t)d : MS_FAST_NB - 1;
        if (bk == which) ids[n++] = t;
    }
    return n;
}

/* The entries list[i] with bk[i] == which, in order (band_hist's list, ascending ids); returns
 * their count. ids has room for n + W. Branch-free: whether an entry matches is unpredictable. */
int32_t MS__FN(band_pick)(const int32_t *list, const uint32_t *bk, int32_t n, uint32_t which, int32_t *ids) {
    int32_t c = 0, i = 0;
#if W == 8 && defined(__AVX2__)
    const __m256i vw = _mm256_set1_epi32((int)which);
    for (; i + 8 <= n; i += 8) {
        const __m256i eq = _mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)(bk + i)), vw);
        const uint32_t bits = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(eq));
        const __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)ms__compress_lut[bits]));
        _mm256_storeu_si256((__m256i *)(ids + c),
                            _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(list + i)), idx));
        c += __builtin_popcount(bits);
    }
#elif W == 16 && defined(__AVX512F__)
    const __m512i vw = _mm512_set1_epi32((int)which);
    for (; i + 16 <= n; i += 16) {
        const __mmask16 k = _mm512_cmpeq_epi32_mask(_mm512_loadu_si512((const void *)(bk + i)), vw);
        ms__zpack(ids + c, k, _mm512_loadu_si512((const void *)(list + i)));
        c += __builtin_popcount((uint32_t)k);
    }
#endif
    for (; i < n; i++) {
        ids[c] = list[i];
        c += bk[i] == which;
    }
    return c;
}

/* Exact mass of {t in [lo, hi) : y[t] >= tau}. Lanes sum at most MS_FAST_BLOCK / W values below
 * 2^20 + 1 before being folded into 64 bits, so they never overflow. */
uint64_t MS__FN(mass_ge)(const float *y, const float *w, int32_t lo, int32_t hi, float tau) {
    const vf vt = ms__vsplat(tau);
    uint64_t s = 0;
    int32_t t = lo;
    while (t < hi) {
        const int32_t end = t + MS_FAST_BLOCK < hi ? t + MS_FAST_BLOCK : hi;
        vu sh = ms__vsplatu(0), sl = ms__vsplatu(0);
        for (; t + W <= end; t += W) {
            vi ge = (vi)(ms__vld(y + t) >= vt);
            vu qh, ql;
            ms__vmass(ms__vld(w + t), &qh, &ql);
            sh += qh & (vu)ge;
            sl += ql & (vu)ge;
        }
        s += ms__hsum_mass(sh, sl);
        for (; t < end; t++)
            if (y[t] >= tau) s += ms__mass(w[t]);
    }
    return s;
}

const ms_fast_kernels MS__FN(kernels) = {
    MS_FAST_LABEL,
    MS__FN(load_max), MS__FN(max), MS__FN(exp_mass), MS__FN(band_hist), MS__FN(select_ge), MS__FN(bucket_ids),
    MS__FN(mass_ge), MS__FN(first_ge), MS__FN(band_pick), MS__FN(exp_mass_top), MS__FN(band_list),
};
