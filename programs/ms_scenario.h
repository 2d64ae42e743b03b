/*
 * ms_scenario.h: the scenario JSON of `msample explain|draw` (issue 3), read with cJSON.
 *
 *   { "spec":     { SamplerSpec fields with the seed's names },
 *     "requests": [ { "rid", "config": { SamplingReqConfig fields }, "prompt": [..], "generated": [..] } ],
 *     "step":     { "apply_penalty", "apply_filters" },
 *     "rows":     [ rid of each logits row ],
 *     "logits":   "path/relative/to/the/json.npy",
 *     "logits_dtype": "float32" | "float16" | "bfloat16" }
 *
 * Unknown fields at any level are errors. Integers must be exact: a JSON number with a fraction or
 * beyond 2^53 is refused unless written as a decimal string (64-bit seeds and request ids may be
 * written either way; a bare integer literal of any size is read exactly). The reader is a pure
 * function from bytes to a struct or a one-line message, so that it can be fuzzed.
 */
#ifndef MS_SCENARIO_H
#define MS_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msampler.h"

typedef struct ms_scn_request {
    int64_t rid;
    ms_req_config cfg;
    int32_t *prompt;
    int32_t n_prompt;
    int32_t *generated;
    int32_t n_generated;
} ms_scn_request;

typedef struct ms_scenario {
    ms_spec spec;              /* its pointers point into the fields below */
    char *resource_key;
    char **nodes;
    int32_t *stop_ids;
    ms_scn_request *requests;
    int32_t n_requests;
    bool apply_penalty, apply_filters;
    int64_t *rows;
    int32_t n_rows;
    char *logits_path;
    bool has_logits_dtype;     /* "logits_dtype" was given */
    ms_dtype logits_dtype;
} ms_scenario;

/**
 * Parses a scenario from text[0, len) (need not be NUL-terminated). Returns 0 and fills *out (free
 * it with ms_scenario_free), or -1 with a one-line message in err; *out is then empty.
 */
int ms_scenario_parse(const char *text, size_t len, ms_scenario *out, char *err, size_t err_size);
void ms_scenario_free(ms_scenario *scn);

#endif /* MS_SCENARIO_H */
