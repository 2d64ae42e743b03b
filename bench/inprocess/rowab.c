/* round 9 (bench/inprocess/build.sh builds it): 27d4fe9's fast row (A_*) against the tree's (ms__fast_row), the same cold rows,
 * alternating batches of 64, one thread, both at the process's level (MSAMPLER_CPU_LEVEL). */
#include "inproc.h"
void A_fast_row(const ms_row_job *job, ms_scratch *s, bool draw, ms_row_out *out);
int A_scratch_init(ms_scratch *s, int32_t V);
static ms_scratch mk(int V) { ms_scratch s = {malloc(V * 4), malloc(V * 4), malloc(V * 8), malloc(V), malloc(V * 8), calloc(V, 4), NULL}; return s; }
int main(int argc, char **argv) {
    const int V = argc > 1 ? atoi(argv[1]) : 151936, shape = argc > 2 ? atoi(argv[2]) : 0, it = argc > 3 ? atoi(argv[3]) : 20;
    const int setting = argc > 4 ? atoi(argv[4]) : 0; /* 0 top-p alone, 1 full */
    const int B = 64;
    const size_t pool = (size_t)(200u << 20) / ((size_t)V * 4);
    float *x = malloc(pool * V * 4);
    ms_trng r = {7};
    for (size_t i = 0; i < pool * V; i++) {
        double z = ms_trng_normal(&r);
        x[i] = shape == 1 ? (float)(3.0 * z + (ms_trng_below(&r, 1000) < 3 ? 8.0 : 0.0)) : (float)z;
    }
    ms_scratch sa = mk(V), sb = mk(V);
    A_scratch_init(&sa, V);
    ms__fast_scratch_init(&sb, V);
    uint64_t *seen = calloc((V + 63) / 64, 8);
    for (int j = 0; j < 64; j++) ms__bit_set(seen, (int32_t)ms_trng_below(&r, (uint32_t)V));
    ms_req_config cfg = ms_req_config_default();
    cfg.temperature = 0.7f;
    cfg.top_p = 0.9f;
    if (setting == 1) { cfg.repetition_penalty = 1.3f; cfg.min_p = 0.05f; cfg.top_k = 50; }
    ms_row_job job;
    memset(&job, 0, sizeof job);
    job.cfg = &cfg; job.apply_penalty = job.apply_filters = true; job.V = V; job.dtype = MS_DTYPE_F32;
    job.seen = setting == 1 ? seen : NULL;
    double *ta = malloc(it * 8), *tb = malloc(it * 8);
    int bad = 0; size_t next = 0; volatile double sink = 0;
    for (int i = 0; i < it; i++) {
        int tok[2][64];
        const size_t base = next; next = (next + B) % (pool - B);
        for (int k = 0; k < 2; k++) {
            const int v = (i & 1) ? !k : k; /* 0: A (old), 1: B (tree) */
            double a = now();
            for (int b = 0; b < B; b++) {
                ms_row_out o;
                job.row = x + (base + b) * V; job.n = (uint64_t)i;
                cfg.seed = 99 + b;
                if (v) ms__fast_row(&job, &sb, true, &o); else A_fast_row(&job, &sa, true, &o);
                tok[v][b] = o.token;
            }
            (v ? tb : ta)[i] = (now() - a) / B;
            const size_t ev = (base + pool / 2) % (pool - B);
            double acc = 0;
            for (int b = 0; b < B; b++) { const float *p = x + (ev + b) * V; for (int t = 0; t < V; t += 16) acc += p[t]; }
            sink += acc;
        }
        for (int b = 0; b < B; b++) bad += tok[0][b] != tok[1][b];
    }
    double ma = med(ta, it), mb = med(tb, it);
    printf("V=%d %s %s: 27d4fe9 %.1f us/row (min %.1f), tree %.1f (min %.1f), tree/old %.3f, token diffs %d\n", V,
           shape == 1 ? "peaked" : "flat", setting ? "full" : "top-p", ma, ta[0], mb, tb[0], mb / ma, bad);
    return bad != 0;
}
