/* ms_blake2b.h: BLAKE2b (RFC 7693), unkeyed, one-shot; only what derive_seed needs. */
#ifndef MS_BLAKE2B_H
#define MS_BLAKE2B_H
#include <stddef.h>
#include <stdint.h>

/* Writes the outlen-byte (1..64) BLAKE2b digest of in[0..inlen) to out. */
void ms__blake2b(uint8_t *out, size_t outlen, const void *in, size_t inlen);

/* The same over the concatenation a || b. */
void ms__blake2b2(uint8_t *out, size_t outlen, const void *a, size_t alen, const void *b, size_t blen);

#endif
