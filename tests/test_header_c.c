/* test_header_c.c: only the public header, compiled as C11 with the default flags. */
#include <msampler.h>
#include <stdio.h>

int main(void) {
    ms_spec spec = ms_spec_default();
    spec.vocab_size = 8;
    ms_resource *res = NULL;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 2;
    if (ms_resource_create(&res, &spec, &p) != MS_OK) {
        fprintf(stderr, "create failed: %s\n", ms_last_create_error());
        return 1;
    }
    ms_req_config cfg = ms_req_config_default();
    int rc = ms_ingest(res, 1, &cfg);
    float logits[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t rid = 1;
    ms_batch b = {1, &rid, logits, MS_DTYPE_F32, 8, 0};
    int32_t tok = -1;
    rc = rc ? rc : ms_sample(res, NULL, &b, &tok, NULL);
    ms_resource_free(res);
    ms_resource_free(NULL);
    if (rc != MS_OK || tok < 0 || tok >= 8) {
        fprintf(stderr, "rc=%d tok=%d\n", rc, (int)tok);
        return 1;
    }
    printf("1 passed, 0 failed\n");
    return 0;
}
