/* ms_test.h: a tiny test harness (libuv style): TEST(name) bodies, checks that print both sides,
 * and a registry (test_list.h) the runner walks. A check records the failure and carries on. */
#ifndef MS_TEST_H
#define MS_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

extern int ms_test_failures; /* failures in the running test */

#define TEST(name) void ms_test_##name(void)

#define MS_FAIL_AT(...)                                                  \
    do {                                                                 \
        fprintf(stderr, "  FAIL %s:%d: ", __FILE__, __LINE__);           \
        fprintf(stderr, __VA_ARGS__);                                    \
        fprintf(stderr, "\n");                                           \
        ms_test_failures++;                                              \
    } while (0)

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) MS_FAIL_AT("%s", #cond);                            \
    } while (0)

#define CHECK_MSG(cond, ...)                                             \
    do {                                                                 \
        if (!(cond)) MS_FAIL_AT(__VA_ARGS__);                            \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                                  \
    do {                                                                                    \
        long long ms_a_ = (long long)(a), ms_b_ = (long long)(b);                           \
        if (ms_a_ != ms_b_) MS_FAIL_AT("%s == %s: %lld != %lld", #a, #b, ms_a_, ms_b_);      \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                          \
    do {                                                                                            \
        unsigned long long ms_a_ = (unsigned long long)(a), ms_b_ = (unsigned long long)(b);       \
        if (ms_a_ != ms_b_) MS_FAIL_AT("%s == %s: %llu (0x%llx) != %llu (0x%llx)", #a, #b, ms_a_, ms_a_, ms_b_, ms_b_); \
    } while (0)

#define CHECK_STR_HAS(hay, needle)                                                          \
    do {                                                                                    \
        const char *ms_h_ = (hay), *ms_n_ = (needle);                                       \
        if (!ms_h_ || !strstr(ms_h_, ms_n_)) MS_FAIL_AT("\"%s\" does not contain \"%s\"", ms_h_ ? ms_h_ : "(null)", ms_n_); \
    } while (0)

/* Stops the test when a precondition fails (no point checking further). */
#define REQUIRE(cond)                                                    \
    do {                                                                 \
        if (!(cond)) {                                                   \
            MS_FAIL_AT("required: %s", #cond);                           \
            return;                                                      \
        }                                                                \
    } while (0)

/* Deterministic test randomness (splitmix64), independent of the library's Philox. */
typedef struct { uint64_t s; } ms_trng;
static inline uint64_t ms_trng_next(ms_trng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline double ms_trng_unit(ms_trng *r) { return (double)(ms_trng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static inline uint32_t ms_trng_below(ms_trng *r, uint32_t n) { return (uint32_t)(ms_trng_unit(r) * n); }
/* Standard normal (Box-Muller), in double. */
double ms_trng_normal(ms_trng *r);

#endif
