/*
 * fuzz_sample_wide: ms_sample and ms_explain on wide rows (V = 8192 .. 20000), where the fast CPU
 * backend leaves the plain pipeline for its sampled-threshold and band algorithms (src/ms_cpu_fast.c
 * switches at V >= 8192), compared with the reference backend.
 *
 * A row this wide cannot come byte for byte from the input, so the input chooses its shape (flat,
 * peaked, a few levels with many ties, constant, sorted ramps), a seed for its values, and up to 24
 * patched positions holding any bit pattern (NaN, infinities, huge or tiny values); settings come
 * from the input as in fuzz_sample. Properties: the two backends agree on codes, tokens, statuses,
 * supports and masses; tokens lie in [-1, V) and inside explain's support.
 */
#include <math.h>

#include "fuzz_common.h"

#define WIDE_ROWS 3

static uint64_t wide_mix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float wide_unit(uint64_t *s) { return (float)(wide_mix(s) >> 40) * (1.0f / 16777216.0f); }

static ms_resource *make(const ms_spec *spec, ms_backend b, int32_t threads) {
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 2;
    p.max_rows = WIDE_ROWS;
    p.backend = b;
    p.n_threads = threads;
    ms_resource *res = NULL;
    if (ms_resource_create(&res, spec, &p) != MS_OK) ms_fuzz_fail("create: %s", ms_last_create_error());
    return res;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ms_fdp d = {data, size};
    const int32_t V = (int32_t)ms_fdp_range(&d, 8192, 20000);
    static const int32_t stops[3] = {0, 1, 2};
    ms_spec spec = ms_spec_default();
    spec.vocab_size = V;
    spec.enable_min_p = true;
    spec.enable_top_p_first = true;
    spec.max_repetition_window = 4;
    spec.min_tokens_stop_ids = stops;
    spec.n_min_tokens_stop_ids = (size_t)ms_fdp_range(&d, 0, 3);
    ms_resource *fast = make(&spec, MS_BACKEND_CPU, (int32_t)ms_fdp_range(&d, 1, 2));
    ms_resource *ref = make(&spec, MS_BACKEND_CPU_REF, 1);
    for (int64_t rid = 0; rid < 2; rid++) {
        ms_req_config c = ms_fdp_config(&d);
        if (ms_req_config_validate(&c, &spec, NULL, 0) != MS_OK) {
            c = ms_req_config_default();
            c.top_k = 50;
            c.top_p = 0.9f;
        }
        ms_fuzz_check(ms_ingest(fast, rid, &c) == MS_OK && ms_ingest(ref, rid, &c) == MS_OK);
        int32_t hist[4];
        for (int i = 0; i < 4; i++) hist[i] = (int32_t)ms_fdp_range(&d, 0, 40);
        ms_fuzz_check(ms_accept(fast, rid, hist, 4) == MS_OK && ms_accept(ref, rid, hist, 4) == MS_OK);
    }
    ms_step st = ms_step_default();
    uint8_t sf = ms_fdp_u8(&d);
    st.apply_penalty = sf & 1;
    st.apply_filters = !((sf >> 1) & 1 && (sf >> 2) & 1); /* mostly on */
    const ms_dtype dt = (sf >> 3) & 1 ? MS_DTYPE_BF16 : MS_DTYPE_F32;
    const int32_t n_rows = (int32_t)ms_fdp_range(&d, 1, WIDE_ROWS);
    int64_t rids[WIDE_ROWS];
    for (int32_t i = 0; i < n_rows; i++) rids[i] = ms_fdp_u8(&d) & 1;

    float *x = (float *)malloc((size_t)n_rows * (size_t)V * sizeof(float));
    for (int32_t i = 0; i < n_rows; i++) {
        float *row = x + (size_t)i * (size_t)V;
        const uint8_t shape = ms_fdp_u8(&d) % 6;
        const float scale = (float)(1 + ms_fdp_u8(&d) % 16) / 2.0f;
        const int levels = 1 + ms_fdp_u8(&d) % 8;
        uint64_t seed = ms_fdp_u64(&d);
        for (int32_t t = 0; t < V; t++) {
            float u = wide_unit(&seed), v;
            switch (shape) {
            case 0: v = scale * (u + wide_unit(&seed) + wide_unit(&seed) - 1.5f); break; /* flat */
            case 1: v = 3.0f * (u - 0.5f) + (wide_mix(&seed) % 300 == 0 ? 8.0f : 0.0f); break; /* peaked */
            case 2: v = scale * (float)(int)(u * (float)levels); break;                     /* ties */
            case 3: v = scale; break;                                                       /* constant */
            case 4: v = -scale * (float)t / (float)V; break;                                /* ramp */
            default: v = u < 0.9f ? -INFINITY : scale * u; break;                            /* sparse */
            }
            row[t] = v;
        }
        const int patches = ms_fdp_u8(&d) % 25;
        for (int k = 0; k < patches; k++) {
            int32_t pos = (int32_t)(ms_fdp_u32(&d) % (uint32_t)V);
            row[pos] = ms_fdp_raw_f32(&d);
        }
    }
    const void *logits = x;
    uint16_t *h = NULL;
    if (dt == MS_DTYPE_BF16) {
        h = (uint16_t *)malloc((size_t)n_rows * (size_t)V * sizeof(uint16_t));
        for (size_t i = 0; i < (size_t)n_rows * (size_t)V; i++) {
            uint32_t u;
            memcpy(&u, &x[i], 4);
            h[i] = (uint16_t)(u >> 16);
        }
        logits = h;
    }
    ms_batch b = {n_rows, rids, logits, dt, V, 0};
    int32_t t1[WIDE_ROWS], t2[WIDE_ROWS], s1[WIDE_ROWS], s2[WIDE_ROWS];
    ms_fuzz_check(ms_sample(fast, &st, &b, t1, s1) == MS_OK && ms_sample(ref, &st, &b, t2, s2) == MS_OK);
    int32_t *ids1 = (int32_t *)malloc((size_t)V * sizeof(int32_t)), *ids2 = (int32_t *)malloc((size_t)V * sizeof(int32_t));
    uint64_t *m1 = (uint64_t *)malloc((size_t)V * sizeof(uint64_t)), *m2 = (uint64_t *)malloc((size_t)V * sizeof(uint64_t));
    for (int32_t i = 0; i < n_rows; i++) {
        if (t1[i] != t2[i] || s1[i] != s2[i])
            ms_fuzz_fail("row %d (V=%d): fast (%d, %d) reference (%d, %d)", i, V, t1[i], s1[i], t2[i], s2[i]);
        ms_fuzz_check(t1[i] >= -1 && t1[i] < V && (t1[i] == -1) == (s1[i] == MS_ROW_EMPTY));
        const size_t esz = dt == MS_DTYPE_BF16 ? 2 : 4;
        const void *row = (const char *)logits + (size_t)i * (size_t)V * esz;
        ms_explanation i1, i2;
        ms_fuzz_check(ms_explain(fast, &st, rids[i], row, dt, V, V, ids1, NULL, m1, &i1) == MS_OK);
        ms_fuzz_check(ms_explain(ref, &st, rids[i], row, dt, V, V, ids2, NULL, m2, &i2) == MS_OK);
        if (i1.n_kept != i2.n_kept || i1.total_mass != i2.total_mass || i1.status != i2.status)
            ms_fuzz_fail("row %d (V=%d): explain fast %d ids mass %llu, reference %d ids mass %llu", i, V, i1.n_kept,
                         (unsigned long long)i1.total_mass, i2.n_kept, (unsigned long long)i2.total_mass);
        bool found = i1.status != MS_ROW_OK;
        for (int32_t k = 0; k < i1.n_kept; k++) {
            if (ids1[k] != ids2[k] || m1[k] != m2[k]) ms_fuzz_fail("row %d: explain differs at %d", i, k);
            found |= ids1[k] == t1[i];
        }
        ms_fuzz_check(found);
    }
    free(ids1);
    free(ids2);
    free(m1);
    free(m2);
    free(h);
    free(x);
    ms_resource_free(fast);
    ms_resource_free(ref);
    return 0;
}
