/* ms_bench.h: `msample bench`, the speed benchmarks (issue 5 for the CPU, the CUDA issue for the GPU).
 *
 * msample_bench_main() parses the options into an ms_bench_opts and runs the CPU benchmark itself;
 * `--backend cuda` is handed to msample_bench_cuda(), implemented in programs/ms_bench_cuda.c when
 * that file is compiled in (programs/CMakeLists.txt then defines MSAMPLE_HAVE_BENCH_CUDA); without
 * it, `--backend cuda` reports that this build has no CUDA benchmark.
 *
 * Output: a fixed-width table per configuration, or with --json one JSON line per configuration with
 * at least backend, vocab, batch, threads, shape, setting, us_per_row, floor_us_per_row,
 * baseline_us_per_row and tokens_match. Public API only (include/msampler.h). */
#ifndef MS_BENCH_H
#define MS_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#define MS_BENCH_MAX_LIST 8

typedef enum ms_bench_shape {
    MS_BENCH_FLAT = 0,  /* logits N(0,1): every token matters (the hard case for pruning) */
    MS_BENCH_PEAKED = 1 /* 3 N(0,1) with about 0.3% of tokens raised by 8 (closer to a model) */
} ms_bench_shape;

typedef enum ms_bench_setting {
    MS_BENCH_FULL = 0, /* presence penalty over 64 seen tokens, T 0.7, min-p 0.05, top-k 50, top-p 0.9 */
    MS_BENCH_TOP_P = 1 /* T 0.7, top-p 0.9 alone */
} ms_bench_setting;

typedef struct ms_bench_opts {
    const char *backend;                      /* "cpu" (default) or "cuda" */
    int32_t vocab[MS_BENCH_MAX_LIST];         /* --vocab V[,V...]   (default 151936) */
    int n_vocab;
    int32_t batch[MS_BENCH_MAX_LIST];         /* --batch B[,B...]   (default 1) */
    int n_batch;
    int32_t threads[MS_BENCH_MAX_LIST];       /* --threads N[,N...] (default 1); 0 = all cores */
    int n_threads;
    ms_bench_shape shapes[2];                 /* --shape flat|peaked|both (default both) */
    int n_shapes;
    ms_bench_setting settings[2];             /* --setting full|top-p|both (default both) */
    int n_settings;
    int reps;                                 /* --reps R: timed repetitions, median reported (default 15) */
    double min_buffer_mb;                     /* --buffer-mb: inputs rotate over at least this much (default 256) */
    bool json;                                /* --json: one JSON line per configuration */
    bool no_baseline;                         /* --no-baseline: skip MS_BACKEND_CPU_REF (it is slow) */
    uint64_t seed;                            /* --seed S (default 1) */
    int device;                               /* --device D (CUDA ordinal, default 0) */
    int dtype;                                /* ms_bench_cuda --dtype f32|bf16: MS_DTYPE_* of the logits (default f32) */
} ms_bench_opts;

/* Fills the defaults above. */
void msample_bench_default_opts(ms_bench_opts *o);

/* `msample bench [OPTIONS]`: argv[0] is "bench". Returns the process exit status. */
int msample_bench_main(int argc, char **argv);

/* The CUDA benchmark (programs/ms_bench_cuda.c, present only in CUDA-enabled trees). Returns the
 * process exit status; prints its own table or JSON lines per o->json. */
int msample_bench_cuda(const ms_bench_opts *o);

#endif /* MS_BENCH_H */
