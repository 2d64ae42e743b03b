/*
 * msample: the command-line tool (issue 3). Public API only (include/msampler.h).
 *
 *   msample [demo]                    the simulated serving loop (ms_demo.c)
 *   msample explain|draw SCENARIO     replay one sampling step from a dump (ms_scenario.c, ms_npy.c)
 *   msample derive-seed [--] SEED STREAM
 *   msample bench ...                 the speed benchmarks (ms_bench.c, from the speed areas)
 *
 * Exit codes: 0 success; 1 a failure while running (the library failed on valid input, or the demo's
 * replay differed); 2 bad usage or bad input, with one line on stderr naming the file and the problem.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msampler.h"
#include "ms_demo.h"
#include "ms_npy.h"
#include "ms_scenario.h"
#ifdef MSAMPLE_HAVE_BENCH
#include "ms_bench.h"
#endif

static const char usage_text[] =
    "usage: msample [COMMAND] [OPTIONS]\n"
    "\n"
    "Commands:\n"
    "  demo [OPTIONS]                  the simulated serving loop (the default command):\n"
    "      --steps N                     decode steps (default 64)\n"
    "      --vocab V                     vocabulary size (default 151936)\n"
    "      --backend cpu|cpu-ref         backend (default cpu)\n"
    "  explain SCENARIO.json [OPTIONS] replay one step; one JSON line per row:\n"
    "                                  {\"row\", \"rid\", \"status\", \"ids\", \"probs\"}\n"
    "  draw SCENARIO.json [OPTIONS]    replay one step; one JSON line per row:\n"
    "                                  {\"row\", \"rid\", \"status\", \"token\"}\n"
    "      --backend cpu|cuda|cpu-ref    backend (default cpu)\n"
    "  derive-seed [--] SEED STREAM    print derive_seed(SEED, STREAM)\n"
    "  bench [OPTIONS]                 speed benchmarks (msample bench --help)\n"
    "  help, --help, -h                this text\n"
    "  --version                       the library version\n"
    "\n"
    "Exit status: 0 success, 1 failure while running, 2 bad usage or bad input.\n"
    "Manual: docs/msample.md\n";

/* One line on stderr: "msample: <what>: <problem>". */
static int fail2(const char *fmt, ...) {
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* file names and messages may hold control characters: keep the message one line */
    for (char *p = line; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    fprintf(stderr, "msample: %s\n", line);
    return 2;
}

/* Reads a whole file; NULL with a message in err on failure. */
static unsigned char *read_file(const char *path, size_t *len, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        unsigned char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (!buf) snprintf(err, err_size, "out of memory");
    else if (ferror(f)) {
        snprintf(err, err_size, "read error: %s", strerror(errno));
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int parse_backend(const char *s, ms_backend *out) {
    if (strcmp(s, "cpu") == 0) *out = MS_BACKEND_CPU;
    else if (strcmp(s, "cpu-ref") == 0) *out = MS_BACKEND_CPU_REF;
    else if (strcmp(s, "cuda") == 0) *out = MS_BACKEND_CUDA;
    else return -1;
    return 0;
}

static const char *dtype_name(ms_dtype d) {
    return d == MS_DTYPE_F32 ? "float32" : d == MS_DTYPE_F16 ? "float16" : "bfloat16";
}

/* ---- explain / draw ------------------------------------------------------------------------- */

typedef struct replay {
    const char *json_path;
    char *npy_path;
    ms_scenario scn;
    unsigned char *npy_buf;
    void *logits; /* an aligned copy of the .npy data */
    ms_dtype dtype;
    int32_t width;
    ms_resource *res;
    ms_prefill *prefill;
} replay;

static void replay_free(replay *r) {
    ms_resource_free(r->res);
    free(r->prefill);
    free(r->logits);
    free(r->npy_buf);
    free(r->npy_path);
    ms_scenario_free(&r->scn);
}

/* The logits path is relative to the JSON file's directory (absolute paths are used as they are). */
static char *sibling_path(const char *json_path, const char *rel) {
    const char *slash = strrchr(json_path, '/');
    size_t dir = rel[0] == '/' || !slash ? 0 : (size_t)(slash - json_path) + 1;
    char *p = malloc(dir + strlen(rel) + 1);
    if (!p) return NULL;
    memcpy(p, json_path, dir);
    strcpy(p + dir, rel);
    return p;
}

/* Loads the scenario and its logits and builds the resource state; returns 0 or an exit status. */
static int replay_load(replay *r, ms_backend backend) {
    char err[512];
    size_t len;
    unsigned char *text = read_file(r->json_path, &len, err, sizeof err);
    if (!text) return fail2("%s: %s", r->json_path, err);
    int rc = ms_scenario_parse((const char *)text, len, &r->scn, err, sizeof err);
    free(text);
    if (rc < 0) return fail2("%s: %s", r->json_path, err);
    ms_scenario *s = &r->scn;

    if (!(r->npy_path = sibling_path(r->json_path, s->logits_path))) return fail2("%s: out of memory", r->json_path);
    if (!(r->npy_buf = read_file(r->npy_path, &len, err, sizeof err))) return fail2("%s: %s", r->npy_path, err);
    ms_npy_array a;
    if (ms_npy_parse(r->npy_buf, len, &a, err, sizeof err) < 0) return fail2("%s: %s", r->npy_path, err);
    if (a.rows != s->n_rows)
        return fail2("%s: wrong shape: (%lld, %lld) has %lld rows but %s lists %d rows", r->npy_path,
                     (long long)a.rows, (long long)a.cols, (long long)a.rows, r->json_path, (int)s->n_rows);
    if (a.cols < 1 || a.cols > MS_MAX_VOCAB)
        return fail2("%s: wrong shape: width %lld is outside [1, %d]", r->npy_path, (long long)a.cols, MS_MAX_VOCAB);
    r->width = (int32_t)a.cols;
    /* the dtype: .npy's <f4/<f2 are float32/float16; <u2 holds bfloat16 only when the JSON says so */
    ms_dtype want = a.dtype == MS_NPY_F4 ? MS_DTYPE_F32 : a.dtype == MS_NPY_F2 ? MS_DTYPE_F16 : MS_DTYPE_BF16;
    if (a.dtype == MS_NPY_U2 && !(s->has_logits_dtype && s->logits_dtype == MS_DTYPE_BF16))
        return fail2("%s: wrong dtype: '<u2' logits need \"logits_dtype\": \"bfloat16\" in %s", r->npy_path,
                     r->json_path);
    if (s->has_logits_dtype && s->logits_dtype != want)
        return fail2("%s: wrong dtype: '%s' (%s) but %s says \"logits_dtype\": \"%s\"", r->npy_path,
                     ms_npy_dtype_name(a.dtype), dtype_name(want), r->json_path, dtype_name(s->logits_dtype));
    r->dtype = want;
    /* copy: the data inside the file buffer need not be aligned for float loads */
    if (!(r->logits = malloc(a.data_size ? a.data_size : 1))) return fail2("%s: out of memory", r->npy_path);
    if (a.data_size) memcpy(r->logits, a.data, a.data_size);

    if (s->spec.vocab_size > 0 && r->width < s->spec.vocab_size)
        return fail2("%s: wrong shape: width %d is narrower than spec.vocab_size %d", r->npy_path, (int)r->width,
                     (int)s->spec.vocab_size);

    ms_resource_params rp = ms_resource_params_default();
    rp.capacity = s->n_requests > 0 ? s->n_requests : 1;
    rp.max_rows = s->n_rows > 0 ? s->n_rows : 1;
    rp.max_vocab = r->width; /* used only when the spec's vocab_size is unset */
    rp.backend = backend;
    if (ms_resource_create(&r->res, &s->spec, &rp) < 0)
        return fail2("%s: cannot build the resource: %s", r->json_path, ms_last_create_error());

    for (int32_t i = 0; i < s->n_requests; i++) {
        const ms_scn_request *q = &s->requests[i];
        if (ms_ingest(r->res, q->rid, &q->cfg) < 0)
            return fail2("%s: requests[%d] (rid %" PRId64 ") refused: %s", r->json_path, (int)i, q->rid,
                         ms_resource_last_error(r->res));
    }
    /* the prompt is planned as prefill tracked tokens, in one step, before any generated token */
    if (!(r->prefill = calloc((size_t)(s->n_requests > 0 ? s->n_requests : 1), sizeof *r->prefill)))
        return fail2("%s: out of memory", r->json_path);
    int32_t np = 0;
    for (int32_t i = 0; i < s->n_requests; i++)
        if (s->requests[i].n_prompt > 0)
            r->prefill[np++] = (ms_prefill){s->requests[i].rid, s->requests[i].prompt, s->requests[i].n_prompt};
    ms_step step = ms_step_default();
    step.prefill = r->prefill;
    step.n_prefill = np;
    if (np > 0 && ms_plan(r->res, &step) < 0)
        return fail2("%s: a prompt is refused: %s", r->json_path, ms_resource_last_error(r->res));
    for (int32_t i = 0; i < s->n_requests; i++) {
        const ms_scn_request *q = &s->requests[i];
        if (q->n_generated > 0 && ms_accept(r->res, q->rid, q->generated, q->n_generated) < 0)
            return fail2("%s: requests[%d] (rid %" PRId64 ") generated tokens refused: %s", r->json_path, (int)i,
                         q->rid, ms_resource_last_error(r->res));
    }
    return 0;
}

static const char *status_name(int32_t st) { return st == MS_ROW_OK ? "ok" : "empty"; }

static int cmd_replay(int argc, char **argv, bool explain) {
    const char *cmd = argv[0];
    const char *path = NULL;
    ms_backend backend = MS_BACKEND_CPU;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: msample %s SCENARIO.json [--backend cpu|cuda|cpu-ref]\nManual: docs/msample.md\n", cmd);
            return 0;
        } else if (strcmp(argv[i], "--backend") == 0 || strncmp(argv[i], "--backend=", 10) == 0) {
            const char *v = argv[i][9] == '=' ? argv[i] + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || parse_backend(v, &backend) < 0)
                return fail2("%s: --backend needs cpu, cuda or cpu-ref", cmd);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return fail2("%s: unknown option '%s' (try msample %s --help)", cmd, argv[i], cmd);
        } else if (path) {
            return fail2("%s: one scenario file expected, got '%s' and '%s'", cmd, path, argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path) return fail2("%s: missing SCENARIO.json (try msample %s --help)", cmd, cmd);

    replay r;
    memset(&r, 0, sizeof r);
    r.json_path = path;
    int rc = replay_load(&r, backend);
    if (rc) {
        replay_free(&r);
        return rc;
    }
    const ms_scenario *s = &r.scn;
    ms_step step = ms_step_default();
    step.apply_penalty = s->apply_penalty;
    step.apply_filters = s->apply_filters;
    const size_t esz = r.dtype == MS_DTYPE_F32 ? 4 : 2;
    if (explain) {
        int32_t *ids = malloc(sizeof(int32_t) * (size_t)r.width);
        double *probs = malloc(sizeof(double) * (size_t)r.width);
        if (!ids || !probs) rc = fail2("%s: out of memory", path);
        for (int32_t i = 0; !rc && i < s->n_rows; i++) {
            ms_explanation info;
            const void *row = (const char *)r.logits + (size_t)i * (size_t)r.width * esz;
            if (ms_explain(r.res, &step, s->rows[i], row, r.dtype, r.width, r.width, ids, probs, NULL, &info) < 0) {
                rc = fail2("%s: row %d: %s", path, (int)i, ms_resource_last_error(r.res));
                break;
            }
            printf("{\"row\": %d, \"rid\": %" PRId64 ", \"status\": \"%s\", \"ids\": [", (int)i, s->rows[i],
                   status_name(info.status));
            for (int32_t k = 0; k < info.n_kept; k++) printf(k ? ", %d" : "%d", (int)ids[k]);
            fputs("], \"probs\": [", stdout);
            /* %.17g round-trips a double exactly */
            for (int32_t k = 0; k < info.n_kept; k++) printf(k ? ", %.17g" : "%.17g", probs[k]);
            fputs("]}\n", stdout);
        }
        free(ids);
        free(probs);
    } else {
        int32_t n = s->n_rows;
        int32_t *tokens = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
        int32_t *status = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
        if (!tokens || !status) rc = fail2("%s: out of memory", path);
        char err[512];
        if (!rc && ms_demo_sample(r.res, &step, s->rows, n, r.logits, r.dtype, r.width, tokens, status, err,
                                  sizeof err) < 0)
            rc = fail2("%s: %s", path, err);
        for (int32_t i = 0; !rc && i < n; i++)
            printf("{\"row\": %d, \"rid\": %" PRId64 ", \"status\": \"%s\", \"token\": %d}\n", (int)i, s->rows[i],
                   status_name(status[i]), (int)tokens[i]);
        free(tokens);
        free(status);
    }
    replay_free(&r);
    if (!rc && fflush(stdout) != 0) rc = fail2("%s: cannot write the output", cmd);
    return rc;
}

/* ---- derive-seed ---------------------------------------------------------------------------- */

static int cmd_derive_seed(int argc, char **argv) {
    int i = 1;
    if (i < argc && (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)) {
        printf("usage: msample derive-seed [--] SEED STREAM\n"
               "Prints derive_seed(SEED, STREAM): the low 63 bits of BLAKE2b-64 of \"SEED:STREAM\".\n"
               "SEED is a decimal int64 (use -- before a negative one).\n");
        return 0;
    }
    if (i < argc && strcmp(argv[i], "--") == 0) i++;
    if (argc - i != 2) return fail2("derive-seed: expected SEED and STREAM (try msample derive-seed --help)");
    const char *s = argv[i];
    char *end;
    errno = 0;
    long long seed = strtoll(s, &end, 10);
    if (!*s || *end || errno || !((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9')))
        return fail2("derive-seed: SEED '%s' is not a decimal integer in [-2^63, 2^63)", s);
    printf("%" PRId64 "\n", ms_derive_seed((int64_t)seed, argv[i + 1], strlen(argv[i + 1])));
    return 0;
}

/* ---- bench ---------------------------------------------------------------------------------- */

static int cmd_bench(int argc, char **argv) {
#ifdef MSAMPLE_HAVE_BENCH
    return msample_bench_main(argc, argv);
#else
    (void)argc;
    (void)argv;
    return fail2("bench: not built in this version (programs/ms_bench.c is missing)");
#endif
}

int main(int argc, char **argv) {
    if (argc < 2) return ms_demo_main(1, (char *[]){"demo", NULL});
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("msample %s\n", ms_version_string());
        return 0;
    }
    if (strcmp(cmd, "demo") == 0) return ms_demo_main(argc - 1, argv + 1);
    if (strcmp(cmd, "explain") == 0) return cmd_replay(argc - 1, argv + 1, true);
    if (strcmp(cmd, "draw") == 0) return cmd_replay(argc - 1, argv + 1, false);
    if (strcmp(cmd, "derive-seed") == 0) return cmd_derive_seed(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
    return fail2("unknown command '%s' (try msample --help)", cmd);
}
