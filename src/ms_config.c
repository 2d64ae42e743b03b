/* ms_config.c: the declarations of SPEC section 1: defaults, validation, seeds, errors. */
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ms_blake2b.h"
#include "msampler.h"

int ms_version_number(void) { return MS_VERSION_NUMBER; }
const char *ms_version_string(void) { return MS_VERSION_STRING; }

const char *ms_strerror(int err) {
    switch (err) {
    case MS_OK: return "success";
#define MS__ERR_STR(name, num, msg) case MS_##name: return msg;
        MS_ERRNO_MAP(MS__ERR_STR)
#undef MS__ERR_STR
    default: return "unknown error";
    }
}

const char *ms_err_name(int err) {
    switch (err) {
    case MS_OK: return "OK";
#define MS__ERR_NAME(name, num, msg) case MS_##name: return #name;
        MS_ERRNO_MAP(MS__ERR_NAME)
#undef MS__ERR_NAME
    default: return "UNKNOWN";
    }
}

ms_spec ms_spec_default(void) {
    ms_spec s;
    memset(&s, 0, sizeof s);
    s.enable_repetition_penalty = true;
    return s;
}

ms_req_config ms_req_config_default(void) {
    ms_req_config c;
    memset(&c, 0, sizeof c);
    c.temperature = 0.6f;
    c.top_k = 0;
    c.top_p = 1.0f;
    c.ignore_eos = false;
    c.repetition_penalty = 1.0f;
    c.min_p = 0.0f;
    c.repetition_window = 0;
    c.min_tokens = 0;
    c.top_p_first = false;
    c.top_p_min_keep = 1;
    c.penalize_prompt = true;
    c.seed = 0;
    return c;
}

ms_step ms_step_default(void) {
    ms_step s;
    memset(&s, 0, sizeof s);
    s.apply_penalty = true;
    s.apply_filters = true;
    return s;
}

static int ms__msg(char *msg, size_t size, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int ms__msg(char *msg, size_t size, int code, const char *fmt, ...) {
    if (msg && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, size, fmt, ap);
        va_end(ap);
    }
    return code;
}

static const char *ms__pybool(bool b) { return b ? "True" : "False"; }

int ms_spec_check(const ms_spec *spec, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!spec) return ms__msg(msg, msg_size, MS_EINVAL, "spec is NULL");
    if (spec->vocab_size < 0 || spec->vocab_size > MS_MAX_VOCAB)
        return ms__msg(msg, msg_size, MS_ESPEC, "vocab_size=%" PRId32 ": must be None (0) or in [1, %d]",
                       spec->vocab_size, MS_MAX_VOCAB);
    if (spec->max_repetition_window < 0 || spec->max_repetition_window > (1 << 20))
        return ms__msg(msg, msg_size, MS_ESPEC, "max_repetition_window=%" PRId32 ": must be in [0, %d]",
                       spec->max_repetition_window, 1 << 20);
    if (spec->n_nodes && !spec->nodes)
        return ms__msg(msg, msg_size, MS_EINVAL, "nodes is NULL with n_nodes=%zu", spec->n_nodes);
    for (size_t i = 0; i < spec->n_nodes; i++)
        if (!spec->nodes[i]) return ms__msg(msg, msg_size, MS_EINVAL, "nodes[%zu] is NULL", i);
    if (spec->n_min_tokens_stop_ids && !spec->min_tokens_stop_ids)
        return ms__msg(msg, msg_size, MS_EINVAL, "min_tokens_stop_ids is NULL with n_min_tokens_stop_ids=%zu",
                       spec->n_min_tokens_stop_ids);
    if (spec->vocab_size == 0) {
        if (spec->enable_repetition_penalty)
            return ms__msg(msg, msg_size, MS_ESPEC,
                           "vocab_size=None: vocab_size is required when enable_repetition_penalty=True");
        if (spec->max_repetition_window > 0)
            return ms__msg(msg, msg_size, MS_ESPEC,
                           "vocab_size=None: vocab_size is required when max_repetition_window=%" PRId32,
                           spec->max_repetition_window);
        if (spec->n_min_tokens_stop_ids > 0)
            return ms__msg(msg, msg_size, MS_ESPEC,
                           "vocab_size=None: vocab_size is required when min_tokens_stop_ids is not empty");
    }
    for (size_t i = 0; i < spec->n_min_tokens_stop_ids; i++) {
        int32_t t = spec->min_tokens_stop_ids[i];
        if (t < 0 || t >= spec->vocab_size)
            return ms__msg(msg, msg_size, MS_ESPEC,
                           "min_tokens_stop_ids[%zu]=%" PRId32 ": must be in [0, vocab_size=%" PRId32 ")", i, t,
                           spec->vocab_size);
    }
    return MS_OK;
}

int ms_req_config_validate(const ms_req_config *c, const ms_spec *spec, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!c) return ms__msg(msg, msg_size, MS_EINVAL, "config is NULL");
    /* Absolute rules. `!(a >= b)` also catches NaN. */
    if (!(isfinite(c->temperature) && c->temperature >= 0.0f))
        return ms__msg(msg, msg_size, MS_ECONFIG, "temperature=%g: must be finite and >= 0", (double)c->temperature);
    if (!(isfinite(c->top_p) && c->top_p > 0.0f && c->top_p <= 1.0f))
        return ms__msg(msg, msg_size, MS_ECONFIG, "top_p=%g: must be finite and in (0, 1]", (double)c->top_p);
    if (!(isfinite(c->min_p) && c->min_p >= 0.0f && c->min_p <= 1.0f))
        return ms__msg(msg, msg_size, MS_ECONFIG, "min_p=%g: must be finite and in [0, 1]", (double)c->min_p);
    if (!(isfinite(c->repetition_penalty) && c->repetition_penalty > 0.0f))
        return ms__msg(msg, msg_size, MS_ECONFIG, "repetition_penalty=%g: must be finite and > 0",
                       (double)c->repetition_penalty);
    if (c->top_k < 0)
        return ms__msg(msg, msg_size, MS_ECONFIG, "top_k=%" PRId32 ": must be an integer >= 0", c->top_k);
    if (c->repetition_window < 0)
        return ms__msg(msg, msg_size, MS_ECONFIG, "repetition_window=%" PRId32 ": must be >= 0", c->repetition_window);
    if (c->min_tokens < 0)
        return ms__msg(msg, msg_size, MS_ECONFIG, "min_tokens=%" PRId32 ": must be >= 0", c->min_tokens);
    if (c->top_p_min_keep < 1)
        return ms__msg(msg, msg_size, MS_ECONFIG, "top_p_min_keep=%" PRId32 ": must be >= 1", c->top_p_min_keep);
    if (!spec) return MS_OK;
    /* Against the spec's capabilities. */
    if (c->min_p > 0.0f && !spec->enable_min_p)
        return ms__msg(msg, msg_size, MS_ECAPABILITY, "min_p=%g needs enable_min_p (enable_min_p=%s)",
                       (double)c->min_p, ms__pybool(spec->enable_min_p));
    if (c->repetition_penalty != 1.0f && c->repetition_window == 0 && !spec->enable_repetition_penalty)
        return ms__msg(msg, msg_size, MS_ECAPABILITY,
                       "repetition_penalty=%g with repetition_window=0 needs enable_repetion_penalty "
                       "(enable_repetion_penalty=%s)",
                       (double)c->repetition_penalty, ms__pybool(spec->enable_repetition_penalty));
    if (c->repetition_window > 0 && c->repetition_window > spec->max_repetition_window)
        return ms__msg(msg, msg_size, MS_ECAPABILITY,
                       "repetition_window=%" PRId32 " exceeds max_repetition_window=%" PRId32, c->repetition_window,
                       spec->max_repetition_window);
    if (c->min_tokens > 0 && spec->n_min_tokens_stop_ids == 0)
        return ms__msg(msg, msg_size, MS_ECAPABILITY,
                       "min_tokens=%" PRId32 " needs min_tokens_stop_ids (min_tokens_stop_ids=())", c->min_tokens);
    if (c->top_p_first && !spec->enable_top_p_first)
        return ms__msg(msg, msg_size, MS_ECAPABILITY, "top_p_first=True needs enable_top_p_first (enable_top_p_first=%s)",
                       ms__pybool(spec->enable_top_p_first));
    if (c->top_p_min_keep != 1 && !spec->enable_top_p_first)
        return ms__msg(msg, msg_size, MS_ECAPABILITY,
                       "top_p_min_keep=%" PRId32 " needs enable_top_p_first (enable_top_p_first=%s)", c->top_p_min_keep,
                       ms__pybool(spec->enable_top_p_first));
    return MS_OK;
}

int64_t ms_derive_seed(int64_t seed, const char *stream, size_t len) {
    char head[32];
    int hl = snprintf(head, sizeof head, "%" PRId64 ":", seed);
    uint8_t digest[8];
    ms__blake2b2(digest, 8, head, (size_t)hl, stream ? stream : "", stream ? len : 0);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | digest[i];
    return (int64_t)(v & 0x7fffffffffffffffull);
}

int ms_req_config_apply_conductor(ms_req_config *cfg, int64_t seed, const char *resource_key) {
    if (!cfg) return MS_EINVAL;
    cfg->seed = resource_key ? (uint64_t)ms_derive_seed(seed, resource_key, strlen(resource_key)) : (uint64_t)seed;
    return MS_OK;
}
