/* ms_cuda_stub.c: the public CUDA functions in a build without the CUDA backend: each says so. */
#include "ms_internal.h"

int ms_cuda_device_count(void) { return MS_EBACKEND; }

int ms_cuda_set_stream(ms_resource *res, void *stream) {
    (void)stream;
    return res ? ms__fail(res, MS_EBACKEND, "this build of msampler has no CUDA backend") : MS_EINVAL;
}

int ms_cuda_slot_of(const ms_resource *res, int64_t rid) {
    (void)rid;
    return res ? MS_EBACKEND : MS_EINVAL;
}

int ms_cuda_workspace_size(const ms_resource *res, int32_t n_rows, size_t *bytes) {
    (void)n_rows;
    if (bytes) *bytes = 0;
    return res ? MS_EBACKEND : MS_EINVAL;
}

int ms_cuda_sample_rows(ms_resource *res, const ms_cuda_rows *rows, void *workspace, size_t workspace_bytes) {
    (void)rows, (void)workspace, (void)workspace_bytes;
    return res ? ms__fail(res, MS_EBACKEND, "this build of msampler has no CUDA backend") : MS_EINVAL;
}

int ms_cuda_commit_rows(ms_resource *res, int32_t n_rows, const int32_t *row_slot, const uint8_t *row_kept,
                        const int32_t *tokens) {
    (void)n_rows, (void)row_slot, (void)row_kept, (void)tokens;
    return res ? ms__fail(res, MS_EBACKEND, "this build of msampler has no CUDA backend") : MS_EINVAL;
}
