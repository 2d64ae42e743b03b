/*
 * fuzz_scenario: the CLI's scenario JSON reader (programs/ms_scenario.c, issue 3) on arbitrary
 * bytes (not NUL-terminated: the copy has the input's exact size).
 *
 * Properties: it returns 0 or -1; on -1 the message is non-empty and terminated, and the struct is
 * empty (ms_scenario_free on it is harmless); on 0 every count matches its array, the spec it
 * builds passes or fails ms_spec_check without crashing, and each request's config can be
 * validated; ms_scenario_free releases everything (LeakSanitizer checks).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "ms_scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = (char *)malloc(size ? size : 1);
    if (size) memcpy(text, data, size);
    char err[160];
    memset(err, 'x', sizeof err);
    ms_scenario s;
    memset(&s, 0x5a, sizeof s); /* the reader must not rely on a zeroed struct */
    int rc = ms_scenario_parse(text, size, &s, err, sizeof err);
    ms_fuzz_check(rc == 0 || rc == -1);
    if (rc == -1) {
        ms_fuzz_check(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
    } else {
        ms_fuzz_check(s.n_requests >= 0 && (s.n_requests == 0 || s.requests));
        ms_fuzz_check(s.n_rows >= 0 && (s.n_rows == 0 || s.rows));
        char msg[128];
        int src = ms_spec_check(&s.spec, msg, sizeof msg);
        ms_fuzz_check(src == MS_OK || src == MS_ESPEC || src == MS_EINVAL);
        for (int32_t i = 0; i < s.n_requests; i++) {
            const ms_scn_request *r = &s.requests[i];
            ms_fuzz_check(r->n_prompt >= 0 && (r->n_prompt == 0 || r->prompt));
            ms_fuzz_check(r->n_generated >= 0 && (r->n_generated == 0 || r->generated));
            int vrc = ms_req_config_validate(&r->cfg, src == MS_OK ? &s.spec : NULL, msg, sizeof msg);
            ms_fuzz_check(vrc == MS_OK || vrc == MS_ECONFIG || vrc == MS_ECAPABILITY);
            unsigned acc = 0;
            for (int32_t k = 0; k < r->n_prompt; k++) acc += (unsigned)r->prompt[k];
            for (int32_t k = 0; k < r->n_generated; k++) acc += (unsigned)r->generated[k];
            (void)acc;
        }
        for (int32_t k = 0; k < s.n_rows; k++) (void)s.rows[k];
        if (s.logits_path) ms_fuzz_check(strlen(s.logits_path) < size + 1);
    }
    ms_scenario_free(&s);
    free(text);
    return 0;
}
