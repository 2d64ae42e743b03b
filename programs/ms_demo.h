/* ms_demo.h: `msample demo`, the simulated serving loop (issue 3), and the sampling helper that
 * moves rows to the backend's memory (device memory for MS_BACKEND_CUDA). */
#ifndef MS_DEMO_H
#define MS_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "msampler.h"

/* `msample demo [OPTIONS]`: argv[0] is "demo". Returns the process exit status. */
int ms_demo_main(int argc, char **argv);

/* ms_sample on host arrays whatever the backend: for MS_BACKEND_CUDA the logits, tokens and
 * statuses travel through device memory. Returns the library's code (< 0 on failure, with the
 * message in err). */
int ms_demo_sample(ms_resource *res, const ms_step *step, const int64_t *rids, int32_t n_rows, const void *logits,
                   ms_dtype dtype, int32_t width, int32_t *tokens, int32_t *status, char *err, size_t err_size);

#endif /* MS_DEMO_H */
