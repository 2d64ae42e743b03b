/*
 * ms_scenario.c: the scenario reader (see ms_scenario.h).
 *
 * cJSON keeps numbers only as doubles, which cannot hold every 64-bit seed (derive_seed's values
 * reach 2^63). So before cJSON sees the text, integer literals of 16 or more digits are quoted in a
 * copy of it; integer fields then accept a decimal string and parse it exactly with strtoll/strtoull.
 */
#include "ms_scenario.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

typedef struct scn_ctx {
    char *err;
    size_t err_size;
} scn_ctx;

static char *scn_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static int scn_fail(scn_ctx *c, const char *fmt, ...) {
    if (c->err && c->err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->err_size, fmt, ap);
        va_end(ap);
        /* the message quotes input text: keep it one printable line */
        for (char *p = c->err; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    }
    return -1;
}

/* Copies text, quoting integer literals (outside strings) of 16+ digits so they reach us exactly. */
static char *quote_big_ints(const char *text, size_t len) {
    if (len > SIZE_MAX / 3 - 1) return NULL;
    char *out = malloc(len * 3 + 1); /* each literal of >= 16 chars grows by 2 */
    if (!out) return NULL;
    size_t o = 0, i = 0;
    bool in_str = false;
    while (i < len) {
        char ch = text[i];
        if (in_str) {
            out[o++] = ch;
            i++;
            if (ch == '\\' && i < len) out[o++] = text[i++];
            else if (ch == '"') in_str = false;
            continue;
        }
        if (ch == '"') {
            in_str = true;
            out[o++] = ch;
            i++;
            continue;
        }
        if (ch == '-' || (ch >= '0' && ch <= '9')) {
            size_t j = i + (ch == '-');
            size_t digits = 0;
            while (j < len && text[j] >= '0' && text[j] <= '9') j++, digits++;
            bool is_int = !(j < len && (text[j] == '.' || text[j] == 'e' || text[j] == 'E'));
            if (is_int && digits >= 16) {
                out[o++] = '"';
                memcpy(out + o, text + i, j - i);
                o += j - i;
                out[o++] = '"';
                i = j;
                continue;
            }
            /* copy the whole literal (a fraction's digits are never quoted) */
            while (j < len && ((text[j] >= '0' && text[j] <= '9') || text[j] == '.' || text[j] == 'e' ||
                               text[j] == 'E' || text[j] == '+' || text[j] == '-'))
                j++;
            memcpy(out + o, text + i, j - i);
            o += j - i;
            i = j;
            continue;
        }
        out[o++] = ch;
        i++;
    }
    out[o] = '\0';
    return out;
}

/* Checks that obj (an object) has only the listed keys. */
static int only_keys(scn_ctx *c, const cJSON *obj, const char *where, const char *const *keys) {
    for (const cJSON *it = obj->child; it; it = it->next) {
        bool ok = false;
        for (const char *const *k = keys; *k; k++)
            if (it->string && strcmp(it->string, *k) == 0) ok = true;
        if (!ok) return scn_fail(c, "%s: unknown field '%s'", where, it->string ? it->string : "");
    }
    /* cJSON keeps duplicate keys; a duplicate would silently shadow, so refuse it */
    for (const cJSON *a = obj->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (a->string && b->string && strcmp(a->string, b->string) == 0)
                return scn_fail(c, "%s: field '%s' given twice", where, a->string);
    return 0;
}

static int get_i64(scn_ctx *c, const cJSON *v, const char *where, int64_t lo, int64_t hi, int64_t *out) {
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (!(d == floor(d)) || fabs(d) > 9007199254740992.0)
            return scn_fail(c, "%s: %.17g is not an exact integer", where, d);
        if (d < (double)lo || d > (double)hi)
            return scn_fail(c, "%s: %.17g is outside [%lld, %lld]", where, d, (long long)lo, (long long)hi);
        *out = (int64_t)d;
        return 0;
    }
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (!*s || *end || errno || (*s != '-' && (*s < '0' || *s > '9')))
            return scn_fail(c, "%s: \"%s\" is not a decimal integer", where, s);
        if (x < lo || x > hi) return scn_fail(c, "%s: %s is outside [%lld, %lld]", where, s, (long long)lo, (long long)hi);
        *out = x;
        return 0;
    }
    return scn_fail(c, "%s: expected an integer", where);
}

static int get_i32(scn_ctx *c, const cJSON *v, const char *where, int32_t *out) {
    int64_t x = 0;
    if (get_i64(c, v, where, INT32_MIN, INT32_MAX, &x) < 0) return -1;
    *out = (int32_t)x;
    return 0;
}

static int get_u64(scn_ctx *c, const cJSON *v, const char *where, uint64_t *out) {
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        char *end;
        errno = 0;
        unsigned long long x = strtoull(s, &end, 10);
        if (!*s || *end || errno || *s < '0' || *s > '9')
            return scn_fail(c, "%s: \"%s\" is not an integer in [0, 2^64)", where, s);
        *out = x;
        return 0;
    }
    int64_t x = 0;
    if (get_i64(c, v, where, 0, INT64_MAX, &x) < 0) return -1;
    *out = (uint64_t)x;
    return 0;
}

static int get_f32(scn_ctx *c, const cJSON *v, const char *where, float *out) {
    if (!cJSON_IsNumber(v)) return scn_fail(c, "%s: expected a number", where);
    *out = (float)v->valuedouble; /* the C config holds fp32 (docs/decisions.md, "top_p as fp32") */
    return 0;
}

static int get_bool(scn_ctx *c, const cJSON *v, const char *where, bool *out) {
    if (!cJSON_IsBool(v)) return scn_fail(c, "%s: expected true or false", where);
    *out = cJSON_IsTrue(v);
    return 0;
}

static int get_tokens(scn_ctx *c, const cJSON *v, const char *where, int32_t **out, int32_t *n) {
    *out = NULL;
    *n = 0;
    if (!cJSON_IsArray(v)) return scn_fail(c, "%s: expected a list of token ids", where);
    int count = cJSON_GetArraySize(v);
    *out = malloc(sizeof(int32_t) * (size_t)(count > 0 ? count : 1));
    if (!*out) return scn_fail(c, "%s: out of memory", where);
    int i = 0;
    char w[96];
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        snprintf(w, sizeof w, "%s[%d]", where, i);
        if (get_i32(c, it, w, &(*out)[i]) < 0) return -1;
    }
    *n = i;
    return 0;
}

static int parse_spec(scn_ctx *c, const cJSON *o, ms_scenario *s) {
    static const char *const keys[] = {"resource_key", "nodes", "vocab_size", "enable_repetion_penalty",
                                       "enable_repetition_penalty", "enable_min_p", "max_repetition_window",
                                       "min_tokens_stop_ids", "enable_top_p_first", NULL};
    if (!cJSON_IsObject(o)) return scn_fail(c, "spec: expected an object");
    if (only_keys(c, o, "spec", keys) < 0) return -1;
    s->spec = ms_spec_default();
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "resource_key")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v)) return scn_fail(c, "spec.resource_key: expected a string");
        if (!(s->resource_key = scn_strdup(v->valuestring))) return scn_fail(c, "out of memory");
        s->spec.resource_key = s->resource_key;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "nodes"))) {
        if (!cJSON_IsArray(v)) return scn_fail(c, "spec.nodes: expected a list of strings");
        int n = cJSON_GetArraySize(v);
        if (!(s->nodes = calloc((size_t)n + 1, sizeof(char *)) /* NULL-terminated */)) return scn_fail(c, "out of memory");
        int i = 0;
        for (const cJSON *it = v->child; it; it = it->next, i++) {
            if (!cJSON_IsString(it)) return scn_fail(c, "spec.nodes[%d]: expected a string", i);
            if (!(s->nodes[i] = scn_strdup(it->valuestring))) return scn_fail(c, "out of memory");
        }
        s->spec.nodes = (const char *const *)s->nodes;
        s->spec.n_nodes = (size_t)i;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "vocab_size")) && !cJSON_IsNull(v))
        if (get_i32(c, v, "spec.vocab_size", &s->spec.vocab_size) < 0) return -1;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "enable_repetion_penalty");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "enable_repetition_penalty");
    if (a && b) return scn_fail(c, "spec: both enable_repetion_penalty and its alias enable_repetition_penalty given");
    if ((v = a ? a : b))
        if (get_bool(c, v, a ? "spec.enable_repetion_penalty" : "spec.enable_repetition_penalty",
                     &s->spec.enable_repetition_penalty) < 0)
            return -1;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "enable_min_p")))
        if (get_bool(c, v, "spec.enable_min_p", &s->spec.enable_min_p) < 0) return -1;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "max_repetition_window")))
        if (get_i32(c, v, "spec.max_repetition_window", &s->spec.max_repetition_window) < 0) return -1;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "min_tokens_stop_ids"))) {
        int32_t n;
        if (get_tokens(c, v, "spec.min_tokens_stop_ids", &s->stop_ids, &n) < 0) return -1;
        s->spec.min_tokens_stop_ids = s->stop_ids;
        s->spec.n_min_tokens_stop_ids = (size_t)n;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "enable_top_p_first")))
        if (get_bool(c, v, "spec.enable_top_p_first", &s->spec.enable_top_p_first) < 0) return -1;
    return 0;
}

static int parse_config(scn_ctx *c, const cJSON *o, const char *where, ms_req_config *cfg) {
    static const char *const keys[] = {"temperature", "top_k", "top_p", "ignore_eos", "repetition_penalty",
                                       "min_p", "repetition_window", "min_tokens", "top_p_first",
                                       "top_p_min_keep", "penalize_prompt", "seed", NULL};
    *cfg = ms_req_config_default();
    if (!cJSON_IsObject(o)) return scn_fail(c, "%s: expected an object", where);
    if (only_keys(c, o, where, keys) < 0) return -1;
    char w[128];
    /* null means "the sampler's default", as in the Python mirror */
#define SCN_FIELD(name, getter)                                                   \
    do {                                                                          \
        const cJSON *v_ = cJSON_GetObjectItemCaseSensitive(o, #name);             \
        if (v_ && !cJSON_IsNull(v_)) {                                            \
            snprintf(w, sizeof w, "%s.%s", where, #name);                         \
            if (getter(c, v_, w, &cfg->name) < 0) return -1;                      \
        }                                                                         \
    } while (0)
    SCN_FIELD(temperature, get_f32);
    SCN_FIELD(top_k, get_i32);
    SCN_FIELD(top_p, get_f32);
    SCN_FIELD(ignore_eos, get_bool);
    SCN_FIELD(repetition_penalty, get_f32);
    SCN_FIELD(min_p, get_f32);
    SCN_FIELD(repetition_window, get_i32);
    SCN_FIELD(min_tokens, get_i32);
    SCN_FIELD(top_p_first, get_bool);
    SCN_FIELD(top_p_min_keep, get_i32);
    SCN_FIELD(penalize_prompt, get_bool);
    SCN_FIELD(seed, get_u64);
#undef SCN_FIELD
    return 0;
}

static int parse_requests(scn_ctx *c, const cJSON *arr, ms_scenario *s) {
    static const char *const keys[] = {"rid", "config", "prompt", "generated", NULL};
    if (!cJSON_IsArray(arr)) return scn_fail(c, "requests: expected a list");
    int n = cJSON_GetArraySize(arr);
    if (!(s->requests = calloc((size_t)(n > 0 ? n : 1), sizeof *s->requests))) return scn_fail(c, "out of memory");
    char w[96];
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        ms_scn_request *r = &s->requests[i];
        s->n_requests = i + 1; /* so that ms_scenario_free sees what was allocated */
        r->cfg = ms_req_config_default();
        snprintf(w, sizeof w, "requests[%d]", i);
        if (!cJSON_IsObject(o)) return scn_fail(c, "%s: expected an object", w);
        if (only_keys(c, o, w, keys) < 0) return -1;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "rid");
        if (!v) return scn_fail(c, "%s: missing 'rid'", w);
        snprintf(w, sizeof w, "requests[%d].rid", i);
        if (get_i64(c, v, w, INT64_MIN, INT64_MAX, &r->rid) < 0) return -1;
        for (int j = 0; j < i; j++)
            if (s->requests[j].rid == r->rid)
                return scn_fail(c, "requests[%d]: rid %lld repeats requests[%d]", i, (long long)r->rid, j);
        snprintf(w, sizeof w, "requests[%d].config", i);
        if ((v = cJSON_GetObjectItemCaseSensitive(o, "config")))
            if (parse_config(c, v, w, &r->cfg) < 0) return -1;
        snprintf(w, sizeof w, "requests[%d].prompt", i);
        if ((v = cJSON_GetObjectItemCaseSensitive(o, "prompt")))
            if (get_tokens(c, v, w, &r->prompt, &r->n_prompt) < 0) return -1;
        snprintf(w, sizeof w, "requests[%d].generated", i);
        if ((v = cJSON_GetObjectItemCaseSensitive(o, "generated")))
            if (get_tokens(c, v, w, &r->generated, &r->n_generated) < 0) return -1;
    }
    return 0;
}

static int parse_root(scn_ctx *c, const cJSON *root, ms_scenario *s) {
    static const char *const keys[] = {"spec", "requests", "step", "rows", "logits", "logits_dtype", NULL};
    if (!cJSON_IsObject(root)) return scn_fail(c, "the scenario is not a JSON object");
    if (only_keys(c, root, "scenario", keys) < 0) return -1;
    const cJSON *v;
    if (!(v = cJSON_GetObjectItemCaseSensitive(root, "spec"))) return scn_fail(c, "missing field 'spec'");
    if (parse_spec(c, v, s) < 0) return -1;
    if (!(v = cJSON_GetObjectItemCaseSensitive(root, "requests"))) return scn_fail(c, "missing field 'requests'");
    if (parse_requests(c, v, s) < 0) return -1;
    s->apply_penalty = true;
    s->apply_filters = true;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "step"))) {
        static const char *const step_keys[] = {"apply_penalty", "apply_filters", NULL};
        if (!cJSON_IsObject(v)) return scn_fail(c, "step: expected an object");
        if (only_keys(c, v, "step", step_keys) < 0) return -1;
        const cJSON *f;
        if ((f = cJSON_GetObjectItemCaseSensitive(v, "apply_penalty")))
            if (get_bool(c, f, "step.apply_penalty", &s->apply_penalty) < 0) return -1;
        if ((f = cJSON_GetObjectItemCaseSensitive(v, "apply_filters")))
            if (get_bool(c, f, "step.apply_filters", &s->apply_filters) < 0) return -1;
    }
    if (!(v = cJSON_GetObjectItemCaseSensitive(root, "rows"))) return scn_fail(c, "missing field 'rows'");
    if (!cJSON_IsArray(v)) return scn_fail(c, "rows: expected a list of request ids");
    int n = cJSON_GetArraySize(v);
    if (!(s->rows = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1)))) return scn_fail(c, "out of memory");
    int i = 0;
    char w[64];
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        snprintf(w, sizeof w, "rows[%d]", i);
        if (get_i64(c, it, w, INT64_MIN, INT64_MAX, &s->rows[i]) < 0) return -1;
        bool known = false;
        for (int j = 0; j < s->n_requests; j++) known = known || s->requests[j].rid == s->rows[i];
        if (!known) return scn_fail(c, "rows[%d]: request id %lld is not in 'requests'", i, (long long)s->rows[i]);
    }
    s->n_rows = i;
    if (!(v = cJSON_GetObjectItemCaseSensitive(root, "logits"))) return scn_fail(c, "missing field 'logits'");
    if (!cJSON_IsString(v) || !v->valuestring[0]) return scn_fail(c, "logits: expected the path of a .npy file");
    if (!(s->logits_path = scn_strdup(v->valuestring))) return scn_fail(c, "out of memory");
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "logits_dtype"))) {
        if (!cJSON_IsString(v)) return scn_fail(c, "logits_dtype: expected \"float32\", \"float16\" or \"bfloat16\"");
        if (strcmp(v->valuestring, "float32") == 0) s->logits_dtype = MS_DTYPE_F32;
        else if (strcmp(v->valuestring, "float16") == 0) s->logits_dtype = MS_DTYPE_F16;
        else if (strcmp(v->valuestring, "bfloat16") == 0) s->logits_dtype = MS_DTYPE_BF16;
        else return scn_fail(c, "logits_dtype: \"%s\" is not \"float32\", \"float16\" or \"bfloat16\"", v->valuestring);
        s->has_logits_dtype = true;
    }
    return 0;
}

void ms_scenario_free(ms_scenario *s) {
    if (!s) return;
    free(s->resource_key);
    if (s->nodes)
        for (size_t i = 0; s->nodes[i]; i++) free(s->nodes[i]);
    free(s->nodes);
    free(s->stop_ids);
    for (int32_t i = 0; i < s->n_requests; i++) {
        free(s->requests[i].prompt);
        free(s->requests[i].generated);
    }
    free(s->requests);
    free(s->rows);
    free(s->logits_path);
    memset(s, 0, sizeof *s);
}

int ms_scenario_parse(const char *text, size_t len, ms_scenario *out, char *err, size_t err_size) {
    scn_ctx c = {err, err_size};
    if (!out) return scn_fail(&c, "no output");
    memset(out, 0, sizeof *out);
    if (!text) return scn_fail(&c, "no input");
    if (memchr(text, '\0', len)) return scn_fail(&c, "malformed JSON: a NUL byte in the text");
    char *copy = quote_big_ints(text, len);
    if (!copy) return scn_fail(&c, "out of memory");
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(copy, &end, 1);
    if (!root) {
        /* report where, as a line and column of the original text (quoting moves columns only) */
        size_t off = end && end >= copy ? (size_t)(end - copy) : 0;
        int line = 1;
        for (size_t i = 0; i < off && copy[i]; i++) line += copy[i] == '\n';
        int rc = scn_fail(&c, "malformed or truncated JSON near line %d", line);
        free(copy);
        return rc;
    }
    int rc = parse_root(&c, root, out);
    cJSON_Delete(root);
    free(copy);
    if (rc < 0) ms_scenario_free(out);
    return rc;
}
