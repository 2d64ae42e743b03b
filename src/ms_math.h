/*
 * ms_math.h: the one definition of every numeric rule that must agree bit for bit across
 * backends (SPEC section 3): the project's exp, Philox4x32-10, the fixed-point masses, the
 * 128-bit threshold arithmetic, the draw, the penalty and the exact dtype conversions.
 *
 * Included by the C backends and by the CUDA kernels (where MS_HD expands to __host__ __device__).
 * Everything here is static inline and uses only IEEE fp32 add/sub/mul/div/compare and integer
 * operations. Compile every includer with -ffp-contract=off (nvcc: --fmad=false): a contracted
 * multiply-add rounds once instead of twice and changes results (seen on 2026-11-29 with
 * -ffp-contract=fast on this project's CPU).
 */
#ifndef MS_MATH_H
#define MS_MATH_H

#include <float.h>
#include <stdint.h>

#if defined(__CUDACC__)
#  define MS_HD __host__ __device__ __forceinline__
#else
#  define MS_HD static inline
#endif

#if !defined(__CUDACC__) && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#  error "msampler needs fp32 arithmetic evaluated in fp32 (SSE2 on x86-32: -msse2 -mfpmath=sse)"
#endif

/* ---- bit casts --------------------------------------------------------------------------- */
MS_HD uint32_t ms__f2u(float f) {
    union { float f; uint32_t u; } v;
    v.f = f;
    return v.u;
}
MS_HD float ms__u2f(uint32_t u) {
    union { float f; uint32_t u; } v;
    v.u = u;
    return v.f;
}

#define MS_F32_INF_BITS 0x7f800000u
#define MS_F32_NEGINF_BITS 0xff800000u

MS_HD float ms__neg_inf(void) { return ms__u2f(MS_F32_NEGINF_BITS); }
MS_HD float ms__pos_inf(void) { return ms__u2f(MS_F32_INF_BITS); }
MS_HD int ms__is_nan(float f) { return (ms__f2u(f) & 0x7fffffffu) > MS_F32_INF_BITS; }
MS_HD int ms__is_pos_inf(float f) { return ms__f2u(f) == MS_F32_INF_BITS; }
MS_HD int ms__is_neg_inf(float f) { return ms__f2u(f) == MS_F32_NEGINF_BITS; }

/* ---- exact conversions to fp32 (integer operations only, so no FTZ/DAZ can touch them) ----- */
MS_HD float ms__bf16_to_f32(uint16_t h) { return ms__u2f((uint32_t)h << 16); }

MS_HD float ms__f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1fu) /* inf / nan */
        return ms__u2f(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0) return ms__u2f(sign);
        /* subnormal half: normalise into an fp32 normal (always representable) */
        uint32_t e = 113; /* 127 - 15 + 1 */
        while ((man & 0x400u) == 0) {
            man <<= 1;
            e--;
        }
        man &= 0x3ffu;
        return ms__u2f(sign | (e << 23) | (man << 13));
    }
    return ms__u2f(sign | ((exp + 112u) << 23) | (man << 13));
}

/* A logit as the pipeline sees it: NaN counts as -inf (SPEC section 4). */
MS_HD float ms__sanitize(float x) { return ms__is_nan(x) ? ms__neg_inf() : x; }

/* ---- exp ------------------------------------------------------------------------------------
 * exp(d) for d <= 0 (d = y - max y). Range reduction d = n ln2 + r with n = round(d log2 e),
 * r = d - n ln2_hi - n ln2_lo, |r| <= ~0.35; exp(r) = 1 + r + r^2 (c2 + r (c3 + r (c4 + r (c5 + r c6))))
 * with coefficients fitted for relative error on [-0.354, 0.354] (3.5e-9 before fp32 rounding);
 * then scaled by 2^n built from its exponent bits. Below -86 the result is flushed to 0 so that no
 * subnormal is ever produced (those tokens have weight < 2^-124, far below the 2^-40 mass grain).
 * Measured relative error against long double expl: see tests/test_math.c and docs/decisions.md.
 */
#define MS_EXP_MIN (-86.0f)
#define MS_EXP_MAGIC 12582912.0f /* 1.5 * 2^23: x + MAGIC - MAGIC rounds x to an integer */
#define MS_LOG2E 1.44269502162933349609375f
#define MS_LN2_HI 0.693145751953125f     /* 0x3f317200: few bits, so n * LN2_HI is exact */
#define MS_LN2_LO 1.428606765330187045e-06f
#define MS_EXP_C2 0.4999999403953552f
#define MS_EXP_C3 0.16666509211063385f
#define MS_EXP_C4 0.04166853055357933f
#define MS_EXP_C5 0.008370140567421913f
#define MS_EXP_C6 0.0013811654644086957f

MS_HD float ms__exp(float d) {
    if (!(d >= MS_EXP_MIN)) return 0.0f; /* also -inf (and NaN, which the pipeline never passes) */
    float x = d * MS_LOG2E;
    float n = (x + MS_EXP_MAGIC) - MS_EXP_MAGIC;
    float r = d - n * MS_LN2_HI;
    r = r - n * MS_LN2_LO;
    float p = MS_EXP_C6;
    p = MS_EXP_C5 + r * p;
    p = MS_EXP_C4 + r * p;
    p = MS_EXP_C3 + r * p;
    p = MS_EXP_C2 + r * p;
    p = r + (r * r) * p;
    p = 1.0f + p;
    int32_t ni = (int32_t)n; /* exact: n is an integer in [-125, 0] */
    float scale = ms__u2f((uint32_t)(ni + 127) << 23);
    return p * scale;
}

/* ---- fixed-point masses ---------------------------------------------------------------------
 * q = floor(w * 2^40) for w in [0, 1]: the product is exact (a power of two) and the conversion
 * truncates, so q is exact. Sums of up to 2^23 of them fit in 63 bits. */
#define MS_MASS_ONE (1ull << 40)
MS_HD uint64_t ms__mass(float w) { return (uint64_t)(w * 1099511627776.0f); }

/* 64 x 64 -> 128-bit product as (hi, lo), portable integer code. */
MS_HD void ms__mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = (mid << 32) | (p00 & 0xffffffffu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* p_q = max(1, round(p * 2^32)) for p in (0, 1]: p * 2^32 is exact in fp32, so round = floor(+0.5). */
MS_HD uint64_t ms__top_p_q(float p) {
    float s = p * 4294967296.0f; /* exact */
    uint64_t i = (uint64_t)s;    /* s is an integer already once p * 2^32 >= 2^23 */
    float frac = s - (float)i;   /* exact */
    if (frac >= 0.5f) i += 1;
    return i < 1 ? 1 : i;
}

/* Top-p keeps a token iff 2^32 * above < p_q * total (above, total < 2^63, p_q <= 2^32). */
MS_HD int ms__top_p_keeps(uint64_t above, uint64_t total, uint64_t p_q) {
    uint64_t lhs_hi = above >> 32, lhs_lo = above << 32;
    uint64_t rhs_hi, rhs_lo;
    ms__mul128(p_q, total, &rhs_hi, &rhs_lo);
    return lhs_hi < rhs_hi || (lhs_hi == rhs_hi && lhs_lo < rhs_lo);
}

/* target = floor(r * M / 2^64): the draw lands on the smallest id whose running sum exceeds it. */
MS_HD uint64_t ms__draw_target(uint64_t r, uint64_t total) {
    uint64_t hi, lo;
    ms__mul128(r, total, &hi, &lo);
    (void)lo;
    return hi;
}

/* ---- Philox4x32-10 (Salmon et al., SC 2011) ------------------------------------------------- */
#define MS_PHILOX_M0 0xD2511F53u
#define MS_PHILOX_M1 0xCD9E8D57u
#define MS_PHILOX_W0 0x9E3779B9u
#define MS_PHILOX_W1 0xBB67AE85u

MS_HD void ms__philox(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4]) {
    uint32_t c0 = ctr_in[0], c1 = ctr_in[1], c2 = ctr_in[2], c3 = ctr_in[3];
    uint32_t k0 = key_in[0], k1 = key_in[1];
    for (int i = 0; i < 10; i++) {
        uint64_t p0 = (uint64_t)MS_PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)MS_PHILOX_M1 * c2;
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        uint32_t n0 = hi1 ^ c1 ^ k0;
        uint32_t n1 = lo1;
        uint32_t n2 = hi0 ^ c3 ^ k1;
        uint32_t n3 = lo0;
        c0 = n0; c1 = n1; c2 = n2; c3 = n3;
        k0 += MS_PHILOX_W0;
        k1 += MS_PHILOX_W1;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

/* The 64 random bits of a request's draw: key = seed, counter = (n lo, n hi, row_k, 0). */
MS_HD uint64_t ms__draw_bits(uint64_t seed, uint64_t n, uint32_t row_k) {
    uint32_t ctr[4], key[2], out[4];
    ctr[0] = (uint32_t)n; ctr[1] = (uint32_t)(n >> 32); ctr[2] = row_k; ctr[3] = 0;
    key[0] = (uint32_t)seed; key[1] = (uint32_t)(seed >> 32);
    ms__philox(ctr, key, out);
    return (uint64_t)out[0] | ((uint64_t)out[1] << 32);
}

/* ---- penalties -------------------------------------------------------------------------------- */
/* A windowed factor f = r^n can overflow to +inf or underflow to 0, and then -inf * 0, 0 * inf and
 * inf / inf are NaN. A NaN counts as -inf wherever it appears (SPEC: "a NaN logit counts as -inf"),
 * as at load: otherwise the argmax and the masses would depend on where the NaN sits (found by
 * fuzz_sample: the reference took a NaN for the greedy token, the fast path did not). */
MS_HD float ms__penalize(float x, float f) { return ms__sanitize(x > 0.0f ? x / f : x * f); }

/* r^n as n successive fp32 multiplications starting from 1 (SPEC 2.1b). */
MS_HD float ms__pow_n(float r, int32_t n) {
    float f = 1.0f;
    for (int32_t i = 0; i < n; i++) f = f * r;
    return f;
}

/* Greedy below this temperature (SPEC 2.2). */
#define MS_GREEDY_TEMPERATURE 1e-5f

#endif /* MS_MATH_H */
