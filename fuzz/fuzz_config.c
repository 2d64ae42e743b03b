/*
 * fuzz_config: ms_spec_check, ms_req_config_validate, ms_req_config_apply_conductor and
 * ms_resource_create + ms_ingest on specs and configs built from arbitrary bytes.
 *
 * Properties: return codes come from the documented set; messages are terminated whatever the
 * buffer size; the absolute rules come before the capability rules (a config refused without a
 * spec is refused with one, with the same code); a config validated against a valid spec is then
 * accepted by ms_ingest, and a refused one leaves the resource empty; a failing create leaves
 * *out NULL and a message.
 */
#include "fuzz_common.h"

#define FUZZ_MAX_V 512 /* keeps ms_resource_create's allocations small */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ms_fdp d = {data, size};
    /* spec */
    ms_spec spec = ms_spec_default();
    uint8_t sflags = ms_fdp_u8(&d);
    spec.vocab_size = (sflags & 0x80) ? (int32_t)ms_fdp_u32(&d) : (int32_t)ms_fdp_range(&d, 0, 300);
    spec.enable_repetition_penalty = sflags & 1;
    spec.enable_min_p = (sflags >> 1) & 1;
    spec.enable_top_p_first = (sflags >> 2) & 1;
    spec.max_repetition_window = (sflags & 0x40) ? (int32_t)ms_fdp_u32(&d) : (int32_t)ms_fdp_range(&d, -1, 10);
    int32_t stops[8];
    size_t n_stops = (size_t)ms_fdp_range(&d, 0, 8);
    for (size_t i = 0; i < n_stops; i++) stops[i] = (sflags & 0x20) ? (int32_t)ms_fdp_u32(&d) : (int32_t)ms_fdp_range(&d, -2, 300);
    spec.min_tokens_stop_ids = (sflags & 0x10) && n_stops ? NULL : stops; /* NULL with a count: EINVAL */
    spec.n_min_tokens_stop_ids = n_stops;
    char key[24];
    size_t key_len = (size_t)ms_fdp_range(&d, 0, sizeof key - 1);
    for (size_t i = 0; i < key_len; i++) key[i] = (char)ms_fdp_u8(&d);
    key[key_len] = '\0';
    spec.resource_key = (sflags & 8) ? NULL : key;
    const char *nodes[2] = {"thinker", (sflags & 0x20) ? NULL : "talker"};
    spec.n_nodes = (size_t)ms_fdp_range(&d, 0, 2);
    spec.nodes = spec.n_nodes ? nodes : NULL;

    ms_req_config cfg = ms_fdp_config(&d);
    size_t msg_size = (size_t)ms_fdp_range(&d, 0, 300);
    char *msg = msg_size ? (char *)malloc(msg_size) : NULL; /* exact size: ASan sees any overflow */

    int src = ms_spec_check(&spec, msg, msg_size);
    ms_fuzz_check(src == MS_OK || src == MS_ESPEC || src == MS_EINVAL);
    ms_fuzz_check_msg(msg, msg_size);

    int rc_abs = ms_req_config_validate(&cfg, NULL, msg, msg_size);
    ms_fuzz_check(rc_abs == MS_OK || rc_abs == MS_ECONFIG);
    ms_fuzz_check_msg(msg, msg_size);
    int rc = ms_req_config_validate(&cfg, &spec, msg, msg_size);
    ms_fuzz_check(rc == MS_OK || rc == MS_ECONFIG || rc == MS_ECAPABILITY);
    ms_fuzz_check_msg(msg, msg_size);
    if (rc_abs != MS_OK && rc != rc_abs) ms_fuzz_fail("absolute rule %d but %d against the spec", rc_abs, rc);
    if (msg_size >= 2 && rc != MS_OK && msg[0] == '\0') ms_fuzz_fail("refused without a message");
    /* same answer twice (no hidden state) */
    ms_fuzz_check(ms_req_config_validate(&cfg, &spec, NULL, 0) == rc);

    ms_req_config c2 = cfg;
    int64_t s = (int64_t)ms_fdp_u64(&d);
    ms_fuzz_check(ms_req_config_apply_conductor(&c2, s, (sflags & 8) ? NULL : key) == MS_OK);
    if (sflags & 8) ms_fuzz_check(c2.seed == (uint64_t)s);
    else ms_fuzz_check(c2.seed == (uint64_t)ms_derive_seed(s, key, strlen(key)) && (int64_t)c2.seed >= 0);

    if (src == MS_OK && spec.vocab_size <= FUZZ_MAX_V) {
        ms_resource_params p = ms_resource_params_default();
        p.capacity = (int32_t)ms_fdp_range(&d, -1, 4);
        p.max_rows = (int32_t)ms_fdp_range(&d, -1, 8);
        p.max_vocab = (int32_t)ms_fdp_range(&d, 0, FUZZ_MAX_V);
        p.n_threads = (int32_t)ms_fdp_range(&d, -1, 2);
        p.backend = (ms_backend)ms_fdp_range(&d, 0, 3);
        ms_resource *res = (ms_resource *)&p; /* must become NULL on failure */
        int crc = ms_resource_create(&res, &spec, &p);
        if (crc < 0) {
            ms_fuzz_check(res == NULL);
            ms_fuzz_check(ms_last_create_error()[0] != '\0');
        } else {
            ms_fuzz_check(crc == MS_OK && res != NULL);
            ms_fuzz_check(ms_resource_vocab_size(res) == spec.vocab_size);
            int irc = ms_ingest(res, 1, &cfg);
            if (irc != rc) ms_fuzz_fail("ms_ingest %d but validate %d", irc, rc);
            ms_fuzz_check(ms_resident(res) == (rc == MS_OK ? 1 : 0));
            ms_fuzz_check(ms_contains(res, 1) == (rc == MS_OK));
            if (rc == MS_OK) ms_fuzz_check(ms_remove(res, 1) == MS_OK && ms_resident(res) == 0);
            ms_resource_free(res);
        }
    } else if (src != MS_OK) {
        ms_resource *res = (ms_resource *)&spec;
        ms_fuzz_check(ms_resource_create(&res, &spec, NULL) == src && res == NULL);
    }
    free(msg);
    return 0;
}
