/*
 * fuzz_common.h: a byte consumer for the libFuzzer targets (in the manner of LLVM's
 * FuzzedDataProvider): settings are taken from the front of the input, so that a short input
 * still means something and libFuzzer's mutations of one byte change one setting.
 *
 * Every target checks properties the library promises (return codes from the documented set,
 * repeatable draws, tokens inside the support, no state change on error); a broken promise calls
 * ms_fuzz_fail(), which aborts so that libFuzzer records the input as a crash.
 */
#ifndef MS_FUZZ_COMMON_H
#define MS_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msampler.h"

typedef struct ms_fdp {
    const uint8_t *p;
    size_t n;
} ms_fdp;

static inline uint64_t ms_fdp_bits(ms_fdp *d, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        uint8_t b = 0;
        if (d->n) {
            b = *d->p++;
            d->n--;
        }
        v |= (uint64_t)b << (8 * i);
    }
    return v;
}
static inline uint8_t ms_fdp_u8(ms_fdp *d) { return (uint8_t)ms_fdp_bits(d, 1); }
static inline uint32_t ms_fdp_u32(ms_fdp *d) { return (uint32_t)ms_fdp_bits(d, 4); }
static inline uint64_t ms_fdp_u64(ms_fdp *d) { return ms_fdp_bits(d, 8); }
static inline int ms_fdp_bool(ms_fdp *d) { return ms_fdp_u8(d) & 1; }
/* An integer in [lo, hi] (hi - lo < 2^32). */
static inline int64_t ms_fdp_range(ms_fdp *d, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    uint64_t v = span <= 256 ? ms_fdp_u8(d) : ms_fdp_u32(d);
    return lo + (int64_t)(v % span);
}
static inline float ms_fdp_raw_f32(ms_fdp *d) {
    uint32_t u = ms_fdp_u32(d);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
/* A float that is usually a meaningful setting and sometimes any bit pattern (NaN, inf, subnormal). */
static inline float ms_fdp_setting(ms_fdp *d, const float *usual, int n_usual) {
    uint8_t sel = ms_fdp_u8(d);
    if (sel < 200) return usual[sel % n_usual];
    if (sel < 230) return (float)(ms_fdp_u8(d)) / 64.0f;
    return ms_fdp_raw_f32(d);
}

/* A request config from the input: mostly plausible values, sometimes garbage. */
static inline ms_req_config ms_fdp_config(ms_fdp *d) {
    static const float temps[] = {0.6f, 0.0f, 1.0f, 0.7f, 1e-6f, 2.0f, 0.05f};
    static const float top_ps[] = {1.0f, 0.9f, 0.5f, 0.01f, 0.999f};
    static const float min_ps[] = {0.0f, 0.05f, 0.5f, 1.0f};
    static const float pens[] = {1.0f, 1.2f, 0.8f, 2.0f, 0.5f};
    ms_req_config c = ms_req_config_default();
    c.temperature = ms_fdp_setting(d, temps, 7);
    c.top_k = (int32_t)(ms_fdp_bool(d) ? ms_fdp_range(d, -2, 70) : (int32_t)ms_fdp_u32(d));
    c.top_p = ms_fdp_setting(d, top_ps, 5);
    c.min_p = ms_fdp_setting(d, min_ps, 4);
    c.repetition_penalty = ms_fdp_setting(d, pens, 5);
    c.repetition_window = (int32_t)ms_fdp_range(d, -1, 9);
    c.min_tokens = (int32_t)ms_fdp_range(d, -1, 6);
    uint8_t flags = ms_fdp_u8(d);
    c.ignore_eos = flags & 1;
    c.top_p_first = (flags >> 1) & 1;
    c.penalize_prompt = (flags >> 2) & 1;
    c.top_p_min_keep = (int32_t)ms_fdp_range(d, 0, 5);
    c.seed = ms_fdp_u64(d);
    return c;
}

#define ms_fuzz_fail(...)                                                  \
    do {                                                                   \
        fprintf(stderr, "fuzz property broken at %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                      \
        fprintf(stderr, "\n");                                             \
        abort();                                                           \
    } while (0)

#define ms_fuzz_check(cond)                                                \
    do {                                                                   \
        if (!(cond)) ms_fuzz_fail("%s", #cond);                            \
    } while (0)

/* The message buffers the library fills must always hold a terminated string. */
static inline void ms_fuzz_check_msg(const char *msg, size_t size) {
    if (size == 0) return;
    if (!memchr(msg, '\0', size)) ms_fuzz_fail("message not NUL-terminated within %zu bytes", size);
}

#endif /* MS_FUZZ_COMMON_H */
