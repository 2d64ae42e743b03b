/* ms_bench_flashinfer.h: FlashInfer's softmax + sampling timed on the bench's own device logits
 * (programs/ms_bench_flashinfer.cu; compiled only with -DMSAMPLER_FLASHINFER_INCLUDE=<dir>, which
 * defines MSAMPLER_HAVE_FLASHINFER for the bench). C-callable. */
#ifndef MS_BENCH_FLASHINFER_H
#define MS_BENCH_FLASHINFER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double us;         /* median per step: softmax + sampling */
    double softmax_us; /* median per step: the softmax alone */
    int checked;       /* rows whose token was checked against the row on the host */
    int ok;            /* of those: in range, valid, inside the top-k / top-p set */
    char how[96];      /* how it was timed: "graph replays, PDL" etc. */
    char version[32];  /* FlashInfer's version the headers came from, if known */
    int cluster;       /* CTAs per row of its split-row sampler on this device (0 or 1: one CTA per row) */
} ms_bench_fi_result;

/* d_sets: nsets copies of fp32 logits [B, V] back to back in device memory (the rotated buffers
 * the bench times us on). top_k <= 0: FlashInfer's TopPSamplingFromProb alone; else
 * TopKTopPSamplingFromProb. Deterministic mode. Scratch is allocated before timing and freed
 * after. Returns 0, or -1 after a message on stderr (the bench then shows "-"). */
int ms_bench_flashinfer(const float *d_sets, size_t nsets, int32_t B, int32_t V, float temperature, int32_t top_k,
                        float top_p, int steps, ms_bench_fi_result *r);

/* The bench's flashinfer_us cell (temperature 0.7, top-p 0.9, top_k 50 or 0 like the bench's
 * settings): the median us per step, or -1 when FlashInfer failed (message on stderr) or a token
 * failed the check. json (json_len bytes) gets the line's "flashinfer" value: an object, or null.
 * In text mode the first call prints one "# flashinfer ..." comment saying how it was timed. */
double ms_bench_flashinfer_cell(const float *d_sets, size_t nsets, int32_t B, int32_t V, int32_t top_k, int steps,
                                int json_mode, char *json, size_t json_len);

#ifdef __cplusplus
}
#endif

#endif
