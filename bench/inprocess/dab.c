/* round 9 (bench/inprocess/build.sh builds it): in-process A/B of the direct exp pass (ms__fast_set_direct 1 / 0), same rows,
 * alternating batches of 64 rows from a large pool (cold rows), next to a streaming sum of them. */
#include "inproc.h"
int main(int argc, char **argv) {
    const int V = argc > 1 ? atoi(argv[1]) : 151936, shape = argc > 2 ? atoi(argv[2]) : 0, it = argc > 3 ? atoi(argv[3]) : 20;
    const int setting = argc > 4 ? atoi(argv[4]) : 0; /* 0 top-p alone, 1 no filter */
    const int B = argc > 5 ? atoi(argv[5]) : 64;
    const size_t pool = (size_t)(200u << 20) / ((size_t)V * 4);
    float *x = malloc(pool * V * 4);
    ms_trng r = {7};
    for (size_t i = 0; i < pool * V; i++) {
        double z = ms_trng_normal(&r);
        x[i] = shape == 1 ? (float)(3.0 * z + (ms_trng_below(&r, 1000) < 3 ? 8.0 : 0.0)) : (float)z;
    }
    if (shape == 2) /* flat rows whose bracket sample catches their max (token 0 is always sampled) */
        for (size_t i = 0; i < pool; i++) x[i * V] = 5.5f;
    ms_scratch s = {malloc(V * 4), malloc(V * 4), malloc(V * 8), malloc(V), malloc(V * 8), calloc(V, 4), NULL};
    ms__fast_scratch_init(&s, V);
    ms_req_config cfg = ms_req_config_default();
    cfg.temperature = 0.7f;
    if (setting == 0) cfg.top_p = 0.9f;
    ms_row_job job;
    memset(&job, 0, sizeof job);
    job.cfg = &cfg; job.apply_penalty = job.apply_filters = true; job.V = V; job.dtype = MS_DTYPE_F32;
    double *t0 = malloc(it * 8), *t1 = malloc(it * 8), *tf = malloc(it * 8);
    int bad = 0; size_t next = 0; volatile float sink = 0;
    for (int i = 0; i < it; i++) {
        int tok[2][64];
        const size_t base = next; next = (next + B) % (pool - B);
        for (int k = 0; k < 2; k++) {
            const int on = (i & 1) ? !k : k; /* alternate which goes first */
            ms__fast_set_direct(on);
            double a = now();
            for (int b = 0; b < B; b++) {
                ms_row_out o;
                job.row = x + (base + b) * V; job.n = (uint64_t)i;
                cfg.seed = 99 + b;
                ms__fast_row(&job, &s, true, &o);
                tok[on][b] = o.token;
            }
            (on ? t1 : t0)[i] = (now() - a) / B;
            /* evict: touch other rows so the next variant's rows are as cold */
            const size_t ev = (base + pool / 2) % (pool - B);
            double acc = 0; a = now();
            for (int b = 0; b < B; b++) { const float *p = x + (ev + b) * V; for (int t = 0; t < V; t += 16) acc += p[t]; }
            sink += (float)acc;
            if (k == 0) tf[i] = 0;
        }
        /* the floor: a streaming sum of B cold rows */
        const size_t fl = (base + pool / 3) % (pool - B);
        double a = now(); float acc[16] = {0};
        for (int b = 0; b < B; b++) { const float *p = x + (fl + b) * V; for (int t = 0; t + 16 <= V; t += 16) for (int j = 0; j < 16; j++) acc[j] += p[t + j]; }
        tf[i] = (now() - a) / B; sink += acc[3];
        for (int b = 0; b < B; b++) bad += tok[0][b] != tok[1][b];
    }
    double m0 = med(t0, it), m1 = med(t1, it), mf = med(tf, it);
    printf("V=%d shape=%s setting=%s B=%d it=%d: copy (old) %.1f us/row (min %.1f), direct (new) %.1f (min %.1f), new/old %.3f, floor %.1f, token diffs %d\n",
           V, shape == 1 ? "peaked" : shape == 2 ? "flat+sampled max" : "flat", setting ? "no-filter" : "top-p", B, it, m0, t0[0], m1, t1[0], m1 / m0, mf, bad);
    int64_t tc[5]; ms__fast_top_p_counts(tc);
    printf("  top-p paths: pre-sampled band %lld, edge failed %lld, widened %lld, split %lld, peaked band_list %lld\n",
           (long long)tc[0], (long long)tc[1], (long long)tc[2], (long long)tc[3], (long long)tc[4]);
    return bad != 0;
}
