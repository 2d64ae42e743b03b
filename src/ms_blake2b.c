/* ms_blake2b.c: BLAKE2b as specified by RFC 7693 (sections 2 and 3), written from the RFC. */
#include "ms_blake2b.h"

#include <string.h>

static const uint64_t ms__b2b_iv[8] = {
    0x6A09E667F3BCC908ull, 0xBB67AE8584CAA73Bull, 0x3C6EF372FE94F82Bull, 0xA54FF53A5F1D36F1ull,
    0x510E527FADE682D1ull, 0x9B05688C2B3E6C1Full, 0x1F83D9ABFB41BD6Bull, 0x5BE0CD19137E2179ull};

static const uint8_t ms__b2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static uint64_t ms__rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static uint64_t ms__load64le(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static void ms__b2b_compress(uint64_t h[8], const uint8_t block[128], uint64_t t, int last) {
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++) m[i] = ms__load64le(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = ms__b2b_iv[i];
    }
    v[12] ^= t; /* low word of the byte counter; inputs here are far below 2^64 bytes */
    if (last) v[14] = ~v[14];
#define MS__B2B_G(a, b, c, d, x, y)            \
    do {                                       \
        v[a] = v[a] + v[b] + (x);              \
        v[d] = ms__rotr64(v[d] ^ v[a], 32);    \
        v[c] = v[c] + v[d];                    \
        v[b] = ms__rotr64(v[b] ^ v[c], 24);    \
        v[a] = v[a] + v[b] + (y);              \
        v[d] = ms__rotr64(v[d] ^ v[a], 16);    \
        v[c] = v[c] + v[d];                    \
        v[b] = ms__rotr64(v[b] ^ v[c], 63);    \
    } while (0)
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = ms__b2b_sigma[r];
        MS__B2B_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        MS__B2B_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        MS__B2B_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        MS__B2B_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        MS__B2B_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        MS__B2B_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        MS__B2B_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        MS__B2B_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
#undef MS__B2B_G
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/* Hashes the concatenation a || b (derive_seed's "<seed>:" and stream) without copying it. */
void ms__blake2b2(uint8_t *out, size_t outlen, const void *a, size_t alen, const void *b, size_t blen) {
    uint64_t h[8];
    uint8_t block[128];
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    size_t total = alen + blen, fill = 0;
    uint64_t t = 0;
    if (outlen < 1) outlen = 1;
    if (outlen > 64) outlen = 64;
    for (int i = 0; i < 8; i++) h[i] = ms__b2b_iv[i];
    h[0] ^= 0x01010000ull ^ (uint64_t)outlen; /* no key, fanout = depth = 1 */
    for (size_t i = 0; i < total; i++) {
        if (fill == 128) { /* a full block with more input after it: not the final one */
            t += 128;
            ms__b2b_compress(h, block, t, 0);
            fill = 0;
        }
        block[fill++] = i < alen ? pa[i] : pb[i - alen];
    }
    t += fill;
    memset(block + fill, 0, 128 - fill);
    ms__b2b_compress(h, block, t, 1);
    for (size_t i = 0; i < outlen; i++) out[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
}

void ms__blake2b(uint8_t *out, size_t outlen, const void *in, size_t inlen) {
    ms__blake2b2(out, outlen, in, inlen, "", 0);
}
