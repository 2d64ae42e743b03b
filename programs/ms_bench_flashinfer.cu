/* ms_bench_flashinfer.cu: FlashInfer's sampling timed side by side with ours (issue 4's
 * flashinfer_us column). Built only when CMake gets -DMSAMPLER_FLASHINFER_INCLUDE=<dir> (the
 * headers scripts/get_flashinfer.sh extracts from the flashinfer-python wheel).
 *
 * What is timed, per step: FlashInfer's online softmax with temperature (OnlineSoftmax, fp32
 * logits -> fp32 probabilities) followed by TopKTopPSamplingFromProb (or TopPSamplingFromProb for
 * the top-p-alone setting) in deterministic mode, with scalar settings, as flashinfer.softmax +
 * flashinfer.sampling.top_k_top_p_sampling_from_probs do from Python. The timing copies
 * ms_bench_cuda.c's: one CUDA graph per rotated input set, each replay bracketed by CUDA events,
 * the median over the replays. Graph capture of FlashInfer's launches is tried with PDL (Python's
 * default on sm_90), then without, then plain launches; r->how says which ran.
 *
 * This file calls FlashInfer's host entry points only; it does not copy its code. It is a
 * benchmark baseline: compiled the way FlashInfer's JIT compiles its sampling module (-O3,
 * -use_fast_math, C++17), not under the library's --fmad=false rule. */
#include "ms_bench_flashinfer.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <flashinfer/sampling.cuh>

#ifndef MS_FLASHINFER_VERSION
#define MS_FLASHINFER_VERSION "?"
#endif

namespace {

#define FI_CHECK(call)                                                                           \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "bench flashinfer: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), \
                    __LINE__);                                                                   \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)

struct FiBufs {
    float *probs = nullptr;
    int32_t *out = nullptr;
    bool *valid = nullptr;
    void *ws = nullptr;
    size_t ws_bytes = 0;
    cudaStream_t st = nullptr;
    std::vector<cudaGraphExec_t> step, soft;
    std::vector<cudaEvent_t> ev;
    ~FiBufs() {
        for (cudaGraphExec_t g : step) cudaGraphExecDestroy(g);
        for (cudaGraphExec_t g : soft) cudaGraphExecDestroy(g);
        for (cudaEvent_t e : ev) cudaEventDestroy(e);
        if (st) cudaStreamDestroy(st);
        cudaFree(probs);
        cudaFree(out);
        cudaFree(valid);
        cudaFree(ws);
    }
};

struct FiArgs {
    const float *sets;
    int32_t B, V;
    float temperature, top_p;
    int32_t top_k;
};

/* One step on input set i: softmax, then (when sample) the sampler. The Philox offset differs per
 * input set so that the replays do not all repeat one draw (FlashInfer's rejection loop runs a
 * data- and draw-dependent number of rounds). */
cudaError_t fi_enqueue(const FiArgs &a, FiBufs &b, size_t i, bool pdl, bool sample) {
    float *logits = const_cast<float *>(a.sets) + i * (size_t)a.B * (size_t)a.V;
    cudaError_t e = flashinfer::sampling::OnlineSoftmax<float>(logits, b.probs, (uint32_t)a.B, (uint32_t)a.V, nullptr,
                                                               a.temperature, b.ws, b.ws_bytes, pdl, b.st);
    if (e != cudaSuccess || !sample) return e;
    const uint64_t seed = 1234, offset = (uint64_t)i * 4096;
    if (a.top_k > 0)
        return flashinfer::sampling::TopKTopPSamplingFromProb<float, int32_t>(
            b.probs, nullptr, nullptr, b.out, b.valid, nullptr, (uint32_t)a.B, a.top_k, a.top_p, (uint32_t)a.V,
            /*deterministic=*/true, nullptr, seed, nullptr, offset, b.st);
    return flashinfer::sampling::TopPSamplingFromProb<float, int32_t>(b.probs, b.out, b.valid, nullptr, nullptr,
                                                                       (uint32_t)a.B, a.top_p, (uint32_t)a.V,
                                                                       /*deterministic=*/true, nullptr, seed, nullptr,
                                                                       offset, b.st);
}

/* Capture one graph per input set. Returns cudaSuccess, or the first failure (capture ended and
 * the error state cleared, so that the caller can try the next way). */
cudaError_t fi_capture(const FiArgs &a, FiBufs &b, size_t nsets, bool pdl, bool sample,
                       std::vector<cudaGraphExec_t> &out) {
    for (size_t i = 0; i < nsets; i++) {
        cudaGraph_t g = nullptr;
        cudaError_t e = cudaStreamBeginCapture(b.st, cudaStreamCaptureModeThreadLocal);
        if (e != cudaSuccess) return e;
        cudaError_t e1 = fi_enqueue(a, b, i, pdl, sample);
        cudaError_t e2 = cudaStreamEndCapture(b.st, &g);
        if (e1 == cudaSuccess) e1 = e2;
        cudaGraphExec_t x = nullptr;
        if (e1 == cudaSuccess) e1 = cudaGraphInstantiate(&x, g, 0);
        if (g) cudaGraphDestroy(g);
        if (e1 != cudaSuccess) {
            (void)cudaGetLastError();
            for (cudaGraphExec_t y : out) cudaGraphExecDestroy(y);
            out.clear();
            return e1;
        }
        out.push_back(x);
    }
    return cudaSuccess;
}

/* Median of `steps` timed steps (after 20 untimed), each bracketed by events, like
 * ms_bench_cuda.c. graphs empty: plain launches of fi_enqueue. */
int fi_time(const FiArgs &a, FiBufs &b, size_t nsets, const std::vector<cudaGraphExec_t> &graphs, bool pdl,
            bool sample, int steps, double *us) {
    auto one = [&](int k) -> cudaError_t {
        size_t i = (size_t)k % nsets;
        return graphs.empty() ? fi_enqueue(a, b, i, pdl, sample) : cudaGraphLaunch(graphs[i], b.st);
    };
    for (int k = 0; k < 20; k++) FI_CHECK(one(k));
    FI_CHECK(cudaEventRecord(b.ev[0], b.st));
    for (int k = 0; k < steps; k++) {
        FI_CHECK(one(k));
        FI_CHECK(cudaEventRecord(b.ev[(size_t)k + 1], b.st));
    }
    FI_CHECK(cudaStreamSynchronize(b.st));
    FI_CHECK(cudaGetLastError());
    std::vector<float> t((size_t)steps);
    for (int k = 0; k < steps; k++) FI_CHECK(cudaEventElapsedTime(&t[(size_t)k], b.ev[(size_t)k], b.ev[(size_t)k + 1]));
    std::sort(t.begin(), t.end());
    *us = t[(size_t)steps / 2] * 1e3;
    return 0;
}

/* Is `tok` a token the setting can return from this row? Its rank (tokens with a strictly larger
 * logit) must be below top_k, and the probability mass of those larger tokens (softmax at the
 * temperature, in double) below top_p, with slack for FlashInfer's float arithmetic. */
bool fi_token_ok(const float *row, int32_t V, int32_t tok, float temperature, int32_t top_k, float top_p) {
    if (tok < 0 || tok >= V) return false;
    double mx = row[0];
    for (int32_t j = 1; j < V; j++) mx = std::max(mx, (double)row[j]);
    double sum = 0, above = 0;
    int32_t rank = 0;
    const double x = row[tok];
    for (int32_t j = 0; j < V; j++) {
        double p = std::exp(((double)row[j] - mx) / temperature);
        sum += p;
        if ((double)row[j] > x) {
            above += p;
            rank++;
        }
    }
    if (top_k > 0 && rank >= top_k) return false;
    return above / sum < (double)top_p + 1e-3;
}

}  // namespace

extern "C" int ms_bench_flashinfer(const float *d_sets, size_t nsets, int32_t B, int32_t V, float temperature,
                                   int32_t top_k, float top_p, int steps, ms_bench_fi_result *r) {
    if (!d_sets || !r || nsets < 1 || B < 1 || V < 1 || steps < 1 || !(temperature > 0)) return -1;
    memset(r, 0, sizeof *r);
    snprintf(r->version, sizeof r->version, "%s", MS_FLASHINFER_VERSION);
    /* which sampler FlashInfer picks here: on sm_90 small batches split a row over a cluster */
    using flashinfer::sampling::SplitRowSamplingMode;
    r->cluster = (int)(top_k > 0
                           ? flashinfer::sampling::GetSplitRowSamplingClusterSize<SplitRowSamplingMode::kTopKTopP>(
                                 (uint32_t)B, (uint32_t)V)
                           : flashinfer::sampling::GetSplitRowSamplingClusterSize<SplitRowSamplingMode::kTopP>(
                                 (uint32_t)B, (uint32_t)V));
    const FiArgs a{d_sets, B, V, temperature, top_p, top_k};
    FiBufs b;
    /* scratch before any timing: the probabilities (also the softmax's split-row partials), the
     * tokens, the valid flags, and the workspace OnlineSoftmax takes (unused by this version's
     * kernels; 1 MiB like a small torch workspace) */
    FI_CHECK(cudaMalloc((void **)&b.probs, (size_t)B * (size_t)V * sizeof(float)));
    FI_CHECK(cudaMalloc((void **)&b.out, (size_t)B * sizeof(int32_t)));
    FI_CHECK(cudaMalloc((void **)&b.valid, (size_t)B * sizeof(bool)));
    b.ws_bytes = (size_t)1 << 20;
    FI_CHECK(cudaMalloc(&b.ws, b.ws_bytes));
    FI_CHECK(cudaMemset(b.out, 0xff, (size_t)B * sizeof(int32_t))); /* -1: a row the sampler never wrote fails */
    FI_CHECK(cudaMemset(b.valid, 0, (size_t)B * sizeof(bool)));
    FI_CHECK(cudaStreamCreateWithFlags(&b.st, cudaStreamNonBlocking));
    b.ev.resize((size_t)steps + 1);
    for (cudaEvent_t &e : b.ev) FI_CHECK(cudaEventCreate(&e));

    /* capture: with PDL, without, else plain launches */
    bool pdl = true;
    cudaError_t ce = fi_capture(a, b, nsets, pdl, true, b.step);
    if (ce != cudaSuccess) {
        fprintf(stderr, "bench flashinfer: graph capture with PDL failed (%s); trying without\n", cudaGetErrorString(ce));
        pdl = false;
        ce = fi_capture(a, b, nsets, pdl, true, b.step);
    }
    if (ce == cudaSuccess) ce = fi_capture(a, b, nsets, pdl, false, b.soft);
    if (ce != cudaSuccess) {
        fprintf(stderr, "bench flashinfer: graph capture failed (%s); timing plain launches\n", cudaGetErrorString(ce));
        for (cudaGraphExec_t g : b.step) cudaGraphExecDestroy(g);
        b.step.clear();
        b.soft.clear();
        FI_CHECK(cudaStreamSynchronize(b.st));
    }
    snprintf(r->how, sizeof r->how, "%s%s", b.step.empty() ? "plain launches" : "graph replays",
             pdl ? ", PDL" : ", no PDL");

    if (fi_time(a, b, nsets, b.step, pdl, true, steps, &r->us) != 0) return -1;
    if (fi_time(a, b, nsets, b.soft, pdl, false, steps, &r->softmax_us) != 0) return -1;

    /* it ran and its tokens make sense: one more step on input set 0, its first rows checked on the
     * host (all sets hold the same rows in the bench, but set 0 is the one read here) */
    if (b.step.empty()) {
        FI_CHECK(fi_enqueue(a, b, 0, pdl, true));
    } else {
        FI_CHECK(cudaGraphLaunch(b.step[0], b.st));
    }
    FI_CHECK(cudaStreamSynchronize(b.st));
    FI_CHECK(cudaGetLastError());
    const int32_t nb = B < 16 ? B : 16;
    std::vector<int32_t> tok((size_t)B);
    std::vector<unsigned char> valid((size_t)B);
    std::vector<float> rows((size_t)nb * (size_t)V);
    FI_CHECK(cudaMemcpy(tok.data(), b.out, (size_t)B * sizeof(int32_t), cudaMemcpyDeviceToHost));
    FI_CHECK(cudaMemcpy(valid.data(), b.valid, (size_t)B * sizeof(bool), cudaMemcpyDeviceToHost));
    FI_CHECK(cudaMemcpy(rows.data(), d_sets, rows.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int32_t i = 0; i < B; i++) {
        const bool in_range = tok[(size_t)i] >= 0 && tok[(size_t)i] < V && valid[(size_t)i];
        if (i < nb) {
            r->checked++;
            r->ok += in_range && fi_token_ok(&rows[(size_t)i * (size_t)V], V, tok[(size_t)i], temperature, top_k, top_p);
        } else if (!in_range) {
            /* rows past the checked ones: a token out of range is still a failure */
            r->checked++;
        }
    }
    return 0;
}

extern "C" double ms_bench_flashinfer_cell(const float *d_sets, size_t nsets, int32_t B, int32_t V, int32_t top_k,
                                           int steps, int json_mode, char *json, size_t json_len) {
    static bool told = false;
    ms_bench_fi_result r;
    if (json && json_len) snprintf(json, json_len, "null");
    if (ms_bench_flashinfer(d_sets, nsets, B, V, 0.7f, top_k, 0.9f, steps, &r) != 0) {
        fprintf(stderr, "bench flashinfer: B=%d V=%d top_k=%d: failed (see above)\n", B, V, top_k);
        return -1;
    }
    if (json && json_len)
        snprintf(json, json_len,
                 "{\"us\":%.2f,\"softmax_us\":%.2f,\"tokens_checked\":%d,\"tokens_ok\":%d,\"how\":\"%s\","
                 "\"version\":\"%s\",\"sampler_cluster\":%d,\"source\":\"live\"}",
                 r.us, r.softmax_us, r.checked, r.ok, r.how, r.version, r.cluster);
    if (!json_mode && !told) {
        printf("# flashinfer %s: %s (softmax alone: see --json)\n", r.version, r.how);
        told = true;
    }
    if (r.ok != r.checked) {
        fprintf(stderr, "bench flashinfer: B=%d V=%d top_k=%d: %d of %d tokens failed the check\n", B, V, top_k,
                r.checked - r.ok, r.checked);
        return -1;
    }
    return r.us;
}
