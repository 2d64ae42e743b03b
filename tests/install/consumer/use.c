/* Creates a resource, samples one row and prints the token: proves the installed header and
 * library link and run from outside the build tree. */
#include <msampler.h>
#include <stdio.h>

int main(void) {
    ms_spec spec = ms_spec_default();
    spec.vocab_size = 8;
    ms_resource_params rp = ms_resource_params_default();
    ms_resource *res;
    if (ms_resource_create(&res, &spec, &rp) < 0) {
        fprintf(stderr, "create: %s\n", ms_last_create_error());
        return 1;
    }
    ms_req_config cfg = ms_req_config_default();
    cfg.temperature = 0.0f; /* greedy: the token is known */
    if (ms_ingest(res, 1, &cfg) < 0) return 2;
    const float logits[8] = {0, 1, 2, 7, 3, 4, 5, 6};
    int64_t rids[1] = {1};
    ms_batch batch = {1, rids, logits, MS_DTYPE_F32, 8, 0};
    int32_t token = -1, status = -1;
    ms_step step = ms_step_default();
    if (ms_sample(res, &step, &batch, &token, &status) < 0) return 3;
    ms_resource_free(res);
    printf("token %d status %d\n", token, status);
    return token == 3 && status == 0 ? 0 : 4;
}
