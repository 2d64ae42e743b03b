/*
 * fuzz_derive_seed: ms_derive_seed on any seed and any stream bytes (embedded NULs, invalid
 * UTF-8, any length), plus ms_strerror / ms_err_name on any integer.
 *
 * Properties: the result is non-negative and a pure function of its input; the stream is read
 * exactly len bytes (the copy below has no terminator, so ASan reports a read past it); the
 * NUL-terminated path of ms_req_config_apply_conductor agrees with it.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ms_fdp d = {data, size};
    int64_t seed = (int64_t)ms_fdp_u64(&d);
    int err = (int)ms_fdp_u32(&d);
    const char *s1 = ms_strerror(err), *s2 = ms_err_name(err);
    ms_fuzz_check(s1 && s2 && s1[0] && s2[0]);

    size_t len = d.n;
    char *stream = (char *)malloc(len ? len : 1);
    if (len) memcpy(stream, d.p, len);
    int64_t a = ms_derive_seed(seed, len ? stream : NULL, len);
    int64_t b = ms_derive_seed(seed, len ? stream : NULL, len);
    ms_fuzz_check(a >= 0 && a == b);
    if (len == 0) ms_fuzz_check(ms_derive_seed(seed, "", 0) == a);
    if (len && !memchr(stream, '\0', len)) {
        char *z = (char *)malloc(len + 1);
        memcpy(z, stream, len);
        z[len] = '\0';
        ms_req_config c = ms_req_config_default();
        ms_fuzz_check(ms_req_config_apply_conductor(&c, seed, z) == MS_OK);
        ms_fuzz_check(c.seed == (uint64_t)a);
        free(z);
    }
    /* A prefix is a different stream: BLAKE2b has no trivial collisions, and a change here would
     * mean the length is ignored. */
    if (len > 0) ms_fuzz_check(ms_derive_seed(seed, stream, len - 1) != a || len == 0);
    free(stream);
    return 0;
}
