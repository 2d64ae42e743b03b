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

#include "ms_cpu.h"
#include "ms_math.h"

#define MS__CAT2(a, b) a##b
#define MS__CAT(a, b) MS__CAT2(a, b)
#define MS__FN(name) MS__CAT(MS__CAT(ms__fast_, MS_FAST_NAME), MS__CAT(_, name))

#define W MS_FAST_W
typedef float vf __attribute__((vector_size(4 * W), aligned(4)));
typedef int32_t vi __attribute__((vector_size(4 * W), aligned(4)));
typedef uint32_t vu __attribute__((vector_size(4 * W), aligned(4)));
typedef uint16_t vh __attribute__((vector_size(2 * W), aligned(2)));

static inline vf ms__vld(const float *p) {
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void ms__vst(float *p, vf v) { memcpy(p, &v, sizeof v); }
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
    return (vf)(((vi)a & mask) | ((vi)b & ~mask));
}
static inline int ms__vany(vi mask) {
    vi acc = mask;
    int any = 0;
    for (int i = 0; i < W; i++) any |= acc[i];
    return any != 0;
}
static inline uint32_t ms__vbits(vi mask) {
    uint32_t b = 0;
    for (int i = 0; i < W; i++) b |= (uint32_t)(mask[i] & 1) << i;
    return b;
}

/* ms__sanitize: NaN -> -inf */
static inline vf ms__vsanitize(vf x) {
    vu u = (vu)x & 0x7fffffffu;
    vi nan = (vi)(u > MS_F32_INF_BITS);
    return ms__vsel(nan, ms__vsplat(ms__neg_inf()), x);
}

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
    vh h;
    memcpy(&h, (const uint16_t *)row + t, sizeof h);
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

static inline vf ms__vmax(vf a, vf b) { return ms__vsel((vi)(b > a), b, a); }
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

/* q = floor(w 2^40) as hi 2^20 + lo with hi, lo < 2^20 + 1 (every step exact: see ms_cpu_fast.c). */
static inline void ms__vmass(vf w, vu *hi, vu *lo) {
    vf v = w * 1099511627776.0f;
    vi h = __builtin_convertvector(v * 9.5367431640625e-7f, vi); /* v 2^-20, truncated */
    vf rest = v - __builtin_convertvector(h, vf) * 1048576.0f;
    *hi = (vu)h;
    *lo = (vu)__builtin_convertvector(rest, vi);
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
 * words, so a block without a seen token never leaves the vector path. */
float MS__FN(load_max)(const void *row, ms_dtype dtype, int32_t V, const uint64_t *seen, float r, float *y) {
    vf vm = ms__vsplat(ms__neg_inf());
    float sm = ms__neg_inf();
    int32_t t = 0;
    for (; t + 64 <= V; t += 64) {
        uint64_t word = seen ? seen[t >> 6] : 0;
        if (!word) {
            for (int32_t j = 0; j < 64; j += W) {
                vf v = ms__vsanitize(ms__vload(row, dtype, t + j));
                ms__vst(y + t + j, v);
                vm = ms__vmax(vm, v);
            }
        } else {
            for (int32_t j = 0; j < 64; j += W) ms__vst(y + t + j, ms__vsanitize(ms__vload(row, dtype, t + j)));
            for (; word; word &= word - 1) {
                int32_t i = t + __builtin_ctzll(word);
                y[i] = ms__penalize(y[i], r);
            }
            for (int32_t j = 0; j < 64; j++)
                if (y[t + j] > sm) sm = y[t + j];
        }
    }
    for (; t < V; t++) {
        float v = ms__sanitize(ms__sload(row, dtype, t));
        if (seen && ms__bit_get(seen, t)) v = ms__penalize(v, r);
        y[t] = v;
        if (v > sm) sm = v;
    }
    float m = ms__hmax(vm);
    return sm > m ? sm : m;
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
 * tokens in bsum; returns the row's total mass. m is finite. */
uint64_t MS__FN(exp_mass)(float *y, float *w, int32_t V, float T, float m, uint64_t *bsum) {
    const vf vT = ms__vsplat(T), vmx = ms__vsplat(m);
    uint64_t total = 0;
    for (int32_t b = 0; b * MS_FAST_BLOCK < V; b++) {
        const int32_t lo = b * MS_FAST_BLOCK, hi = lo + MS_FAST_BLOCK < V ? lo + MS_FAST_BLOCK : V;
        vu sh = ms__vsplatu(0), sl = ms__vsplatu(0);
        int32_t t = lo;
        for (; t + W <= hi; t += W) {
            vf yy = ms__vld(y + t) / vT;
            ms__vst(y + t, yy);
            vf ww = ms__vexp(yy - vmx);
            ms__vst(w + t, ww);
            vu qh, ql;
            ms__vmass(ww, &qh, &ql);
            sh += qh;
            sl += ql;
        }
        uint64_t s = ms__hsum_mass(sh, sl);
        for (; t < hi; t++) {
            y[t] = y[t] / T;
            w[t] = ms__exp(y[t] - m);
            s += ms__mass(w[t]);
        }
        bsum[b] = s;
        total += s;
    }
    return total;
}

/* The ids t (ascending) with y[t] >= tau; returns their count. */
int32_t MS__FN(select_ge)(const float *y, int32_t V, float tau, int32_t *ids) {
    const vf vt = ms__vsplat(tau);
    int32_t n = 0, t = 0;
    for (; t + W <= V; t += W) {
        vi ge = (vi)(ms__vld(y + t) >= vt);
        if (!ms__vany(ge)) continue;
        for (uint32_t bits = ms__vbits(ge); bits; bits &= bits - 1) ids[n++] = t + __builtin_ctz(bits);
    }
    for (; t < V; t++)
        if (y[t] >= tau) ids[n++] = t;
    return n;
}

/* Exact mass and count of {t : y[t] >= hi_tau}, and the ids of the band lo_tau <= y < hi_tau. */
int32_t MS__FN(band)(const float *y, const float *w, int32_t V, float lo_tau, float hi_tau, int32_t *ids,
                     uint64_t *mass_hi, int32_t *n_hi) {
    const vf vlo = ms__vsplat(lo_tau), vhi = ms__vsplat(hi_tau);
    int32_t n = 0, nh = 0, t = 0;
    uint64_t total = 0;
    while (t < V) {
        const int32_t end = t + MS_FAST_BLOCK < V ? t + MS_FAST_BLOCK : V;
        vu sh = ms__vsplatu(0), sl = ms__vsplatu(0);
        vi cnt = (vi)ms__vsplatu(0);
        for (; t + W <= end; t += W) {
            vf yy = ms__vld(y + t);
            vi above = (vi)(yy >= vhi);
            vi in = (vi)(yy >= vlo) & ~above;
            vu qh, ql;
            ms__vmass(ms__vld(w + t), &qh, &ql);
            sh += qh & (vu)above;
            sl += ql & (vu)above;
            cnt -= above;
            if (ms__vany(in))
                for (uint32_t bits = ms__vbits(in); bits; bits &= bits - 1) ids[n++] = t + __builtin_ctz(bits);
        }
        total += ms__hsum_mass(sh, sl);
        for (int i = 0; i < W; i++) nh += cnt[i];
        for (; t < end; t++) {
            if (y[t] >= hi_tau) {
                total += ms__mass(w[t]);
                nh++;
            } else if (y[t] >= lo_tau) {
                ids[n++] = t;
            }
        }
    }
    *mass_hi = total;
    *n_hi = nh;
    return n;
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
    MS__FN(load_max), MS__FN(max), MS__FN(exp_mass), MS__FN(select_ge), MS__FN(band), MS__FN(mass_ge),
};
