/*
 * fuzz_sample: ms_sample and ms_explain on arbitrary bytes as logits: any dtype (including
 * invalid ones), any width and row stride (including too narrow or negative), any number of rows,
 * any request ids (including unknown ones), any settings, with NaN, infinities, subnormals and
 * padding columns wherever the bytes put them.
 *
 * The same calls go to a resource of the fast CPU backend and to one of the reference backend.
 * Properties: both return the same code and the same tokens and statuses (bit-identical backends);
 * tokens lie in [-1, V) and are -1 exactly for MS_ROW_EMPTY rows; a second ms_sample draws the same
 * tokens (sample changes no state); ms_explain agrees on each row's status and reports the drawn
 * token inside the support, with masses summing to total_mass; a too-small cap is MS_ENOSPC with the
 * length needed; ms_commit commits exactly the kept rows with a token.
 * The logits buffer is allocated to the exact size the shape needs, so a read past it is an ASan
 * report.
 */
#include "fuzz_common.h"

#define FUZZ_V_MAX 300
#define FUZZ_ROWS 8

static ms_resource *make(const ms_spec *spec, ms_backend b, int32_t threads) {
    ms_resource_params p = ms_resource_params_default();
    p.capacity = 4;
    p.max_rows = FUZZ_ROWS;
    p.max_vocab = FUZZ_V_MAX;
    p.backend = b;
    p.n_threads = threads;
    ms_resource *res = NULL;
    if (ms_resource_create(&res, spec, &p) != MS_OK) ms_fuzz_fail("create: %s", ms_last_create_error());
    return res;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ms_fdp d = {data, size};
    uint8_t sflags = ms_fdp_u8(&d);
    ms_spec spec = ms_spec_default();
    int32_t V = (sflags & 1) ? 0 : (int32_t)ms_fdp_range(&d, 1, FUZZ_V_MAX);
    spec.vocab_size = V;
    spec.enable_repetition_penalty = V > 0 && ((sflags >> 1) & 1);
    spec.enable_min_p = (sflags >> 2) & 1;
    spec.enable_top_p_first = (sflags >> 3) & 1;
    spec.max_repetition_window = V > 0 ? (int32_t)ms_fdp_range(&d, 0, 8) : 0;
    int32_t stops[4];
    spec.n_min_tokens_stop_ids = V > 0 ? (size_t)ms_fdp_range(&d, 0, 4) : 0;
    for (size_t i = 0; i < spec.n_min_tokens_stop_ids; i++) stops[i] = (int32_t)ms_fdp_range(&d, 0, V - 1);
    spec.min_tokens_stop_ids = stops;
    int32_t threads = (int32_t)ms_fdp_range(&d, 1, 2);
    ms_resource *fast = make(&spec, MS_BACKEND_CPU, threads), *ref = make(&spec, MS_BACKEND_CPU_REF, 1);

    /* up to three requests, each with some committed history */
    for (int64_t rid = 1; rid <= 3; rid++) {
        ms_req_config c = ms_fdp_config(&d);
        int rc = ms_ingest(fast, rid, &c);
        ms_fuzz_check(ms_ingest(ref, rid, &c) == rc);
        if (rc < 0) {
            ms_fuzz_check(!ms_contains(fast, rid) && ms_resource_last_error(fast)[0]);
            c = ms_req_config_default();
            c.seed = (uint64_t)rid;
            ms_fuzz_check(ms_ingest(fast, rid, &c) == MS_OK && ms_ingest(ref, rid, &c) == MS_OK);
        }
        int32_t hist[10];
        int32_t nh = (int32_t)ms_fdp_range(&d, 0, 10);
        int32_t hv = V > 0 ? V : 64;
        for (int32_t i = 0; i < nh; i++) hist[i] = (int32_t)ms_fdp_range(&d, 0, hv - 1);
        ms_fuzz_check(ms_accept(fast, rid, hist, nh) == MS_OK && ms_accept(ref, rid, hist, nh) == MS_OK);
    }

    ms_step step = ms_step_default();
    uint8_t stflags = ms_fdp_u8(&d);
    step.apply_penalty = stflags & 1;
    step.apply_filters = (stflags >> 1) & 1;

    /* the batch's shape */
    int32_t n_rows = (int32_t)ms_fdp_range(&d, -1, FUZZ_ROWS + 1);
    int64_t rids[FUZZ_ROWS + 2];
    for (int32_t i = 0; i < FUZZ_ROWS + 2; i++) {
        uint8_t r = ms_fdp_u8(&d);
        rids[i] = r < 250 ? 1 + r % 3 : (int64_t)r; /* now and then a request that is not resident */
    }
    int32_t dt = (int32_t)ms_fdp_range(&d, -1, 3);
    int32_t base = V > 0 ? V : (int32_t)ms_fdp_range(&d, 1, FUZZ_V_MAX);
    int32_t width = (int32_t)ms_fdp_range(&d, -1, 8) + base - 1; /* V-2 .. V+7 */
    if (V == 0 && (stflags & 0x80)) width = FUZZ_V_MAX + 1;      /* wider than max_vocab */
    int64_t stride;
    uint8_t sk = ms_fdp_u8(&d) % 6;
    stride = sk == 0 ? 0 : sk == 1 ? width : sk == 2 ? width + (int64_t)ms_fdp_range(&d, 1, 9) : sk == 3 ? width - 1 : sk == 4 ? -1 : (int64_t)(int32_t)ms_fdp_u32(&d) * 4096;
    size_t elem = dt == MS_DTYPE_F32 ? 4 : 2;
    int64_t eff_stride = stride ? stride : width;
    if (eff_stride > 4096 && n_rows > 1) n_rows = 1; /* a huge stride is valid; one row keeps it small */
    /* allocate exactly what a valid shape needs; an invalid shape must be refused before any read */
    size_t need = 0;
    bool valid_shape = n_rows > 0 && width >= 1 && eff_stride >= width;
    if (valid_shape) need = ((size_t)(n_rows - 1) * (size_t)eff_stride + (size_t)width) * elem;
    uint8_t *logits = (uint8_t *)malloc(need ? need : 1);
    for (size_t i = 0; i < need; i++) logits[i] = d.n ? data[size - d.n + i % d.n] : (uint8_t)i;

    ms_batch b = {n_rows, rids, logits, (ms_dtype)dt, width, stride};
    int32_t tok1[FUZZ_ROWS + 2], tok2[FUZZ_ROWS + 2], st1[FUZZ_ROWS + 2], st2[FUZZ_ROWS + 2];
    memset(tok1, 0x5a, sizeof tok1);
    int rc = ms_sample(fast, &step, &b, tok1, st1);
    int rc_ref = ms_sample(ref, &step, &b, tok2, st2);
    if (rc != rc_ref) ms_fuzz_fail("sample: fast %d, reference %d", rc, rc_ref);
    if (rc < 0) {
        ms_fuzz_check(ms_resource_last_error(fast)[0] != '\0');
        if (valid_shape && n_rows <= FUZZ_ROWS && (dt >= 0 && dt <= 2) && (V == 0 ? width <= FUZZ_V_MAX : width >= V)) {
            bool unknown = false;
            for (int32_t i = 0; i < n_rows; i++) unknown |= !ms_contains(fast, rids[i]);
            if (!unknown) ms_fuzz_fail("a valid batch was refused: %s", ms_resource_last_error(fast));
        }
        /* a refused sample leaves nothing to commit */
        ms_fuzz_check(ms_commit(fast, NULL) == MS_ESTATE);
    } else {
        ms_fuzz_check(rc == MS_OK);
        ms_fuzz_check(valid_shape || n_rows == 0);
        int32_t Vrow = V > 0 ? V : width;
        for (int32_t i = 0; i < n_rows; i++) {
            if (tok1[i] != tok2[i] || st1[i] != st2[i])
                ms_fuzz_fail("row %d: fast (%d, %d) reference (%d, %d)", i, tok1[i], st1[i], tok2[i], st2[i]);
            ms_fuzz_check(tok1[i] >= -1 && tok1[i] < Vrow);
            ms_fuzz_check(st1[i] == MS_ROW_OK || st1[i] == MS_ROW_EMPTY);
            ms_fuzz_check((tok1[i] == -1) == (st1[i] == MS_ROW_EMPTY));
        }
        /* sampling again (row_status NULL) draws the same */
        ms_fuzz_check(ms_sample(fast, &step, &b, tok2, NULL) == MS_OK);
        for (int32_t i = 0; i < n_rows; i++) ms_fuzz_check(tok2[i] == tok1[i]);
        /* explain each row of a resident request */
        int32_t *ids = (int32_t *)malloc((size_t)Vrow * sizeof(int32_t));
        int32_t *ids2 = (int32_t *)malloc((size_t)Vrow * sizeof(int32_t));
        double *probs = (double *)malloc((size_t)Vrow * sizeof(double));
        uint64_t *masses = (uint64_t *)malloc((size_t)Vrow * sizeof(uint64_t));
        uint64_t *masses2 = (uint64_t *)malloc((size_t)Vrow * sizeof(uint64_t));
        for (int32_t i = 0; i < n_rows; i++) {
            const void *row = logits + (size_t)i * (size_t)eff_stride * elem;
            ms_explanation info, info2;
            int erc = ms_explain(fast, &step, rids[i], row, (ms_dtype)dt, width, Vrow, ids, probs, masses, &info);
            int erc2 = ms_explain(ref, &step, rids[i], row, (ms_dtype)dt, width, Vrow, ids2, NULL, masses2, &info2);
            ms_fuzz_check(erc == MS_OK && erc2 == MS_OK);
            ms_fuzz_check(info.status == st1[i] && info2.status == st1[i]);
            ms_fuzz_check(info.n_kept == info2.n_kept && info.total_mass == info2.total_mass);
            if (info.status != MS_ROW_OK) continue;
            ms_fuzz_check(info.n_kept >= 1 && info.n_kept <= Vrow);
            bool found = false;
            uint64_t sum = 0;
            for (int32_t k = 0; k < info.n_kept; k++) {
                ms_fuzz_check(ids[k] == ids2[k] && masses[k] == masses2[k]);
                ms_fuzz_check(ids[k] >= 0 && ids[k] < Vrow && (k == 0 || ids[k] > ids[k - 1]));
                ms_fuzz_check(masses[k] > 0 && probs[k] > 0.0 && probs[k] <= 1.0);
                found |= ids[k] == tok1[i];
                sum += masses[k];
            }
            if (!found) ms_fuzz_fail("row %d: token %d outside explain's support", i, tok1[i]);
            if (info.greedy) ms_fuzz_check(info.n_kept == 1 && ids[0] == tok1[i]);
            else ms_fuzz_check(sum == info.total_mass);
            /* too small a cap: MS_ENOSPC with the length needed */
            int32_t small = info.n_kept - 1;
            int32_t need_k = info.n_kept;
            ms_fuzz_check(ms_explain(fast, &step, rids[i], row, (ms_dtype)dt, width, small, small ? ids : NULL, NULL,
                                     NULL, &info) == MS_ENOSPC);
            ms_fuzz_check(info.n_kept == need_k);
        }
        free(ids);
        free(ids2);
        free(probs);
        free(masses);
        free(masses2);
        /* commit with a fuzzed kept set: exactly the kept rows with a token are committed */
        int64_t kept[2] = {1 + ms_fdp_u8(&d) % 3, 1 + ms_fdp_u8(&d) % 4};
        int32_t n_kept = (int32_t)ms_fdp_range(&d, -1, 2);
        ms_step cs = ms_step_default();
        bool all = n_kept < 0;
        if (!all) {
            cs.kept_rids = kept;
            cs.n_kept_rids = n_kept;
        }
        int expect = 0;
        for (int32_t i = 0; i < n_rows; i++) {
            bool k = all;
            for (int32_t j = 0; !all && j < n_kept; j++) k |= kept[j] == rids[i];
            expect += k && tok1[i] >= 0;
        }
        int crc = ms_commit(fast, &cs), crc2 = ms_commit(ref, &cs);
        if (crc != expect || crc2 != expect) ms_fuzz_fail("commit %d / %d, expected %d", crc, crc2, expect);
        ms_fuzz_check(ms_commit(fast, &cs) == MS_ESTATE);
    }
    free(logits);
    ms_resource_free(fast);
    ms_resource_free(ref);
    return 0;
}
