/*
 * fuzz_lifecycle: random sequences of ms_ingest / ms_remove / ms_plan / ms_sample / ms_commit /
 * ms_accept / ms_explain, with valid and invalid arguments, on a resource of the fast CPU backend
 * and, in lockstep, one of the reference backend.
 *
 * Properties: both resources answer every call with the same code and the same tokens and
 * explanations; the resident set follows a model (ingest adds exactly on success, remove removes
 * exactly on success, nothing else changes it); a failing call leaves the resident set unchanged;
 * ms_commit after a commit (or before any sample) is MS_ESTATE.
 */
#include "fuzz_common.h"

#define FZ_V 40
#define FZ_CAP 4
#define FZ_ROWS 6
#define FZ_RIDS 6 /* request ids 0..5: more ids than slots, so capacity errors happen */

static ms_resource *make(ms_backend b, int32_t threads) {
    static const int32_t stops[2] = {0, 7};
    ms_spec spec = ms_spec_default();
    spec.resource_key = "fuzz";
    spec.vocab_size = FZ_V;
    spec.enable_min_p = true;
    spec.enable_top_p_first = true;
    spec.max_repetition_window = 4;
    spec.min_tokens_stop_ids = stops;
    spec.n_min_tokens_stop_ids = 2;
    ms_resource_params p = ms_resource_params_default();
    p.capacity = FZ_CAP;
    p.max_rows = FZ_ROWS;
    p.backend = b;
    p.n_threads = threads;
    ms_resource *res = NULL;
    if (ms_resource_create(&res, &spec, &p) != MS_OK) ms_fuzz_fail("create: %s", ms_last_create_error());
    return res;
}

static int32_t fz_token(ms_fdp *d) {
    uint8_t b = ms_fdp_u8(d);
    return b < 240 ? (int32_t)(b % FZ_V) : (int32_t)(b - 240) * 7 - 20; /* sometimes outside [0, V) */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ms_fdp d = {data, size};
    ms_resource *fast = make(MS_BACKEND_CPU, 1 + (int32_t)ms_fdp_range(&d, 0, 1));
    ms_resource *ref = make(MS_BACKEND_CPU_REF, 1);
    bool resident[FZ_RIDS] = {0};
    int32_t n_resident = 0;
    bool pending = false;
    float logits[FZ_ROWS * (FZ_V + 3)];
    int ops = 0;

    while (d.n > 0 && ops++ < 200) {
        uint8_t op = ms_fdp_u8(&d) % 8;
        int64_t rid = (int64_t)ms_fdp_range(&d, 0, FZ_RIDS); /* FZ_RIDS itself is never resident-able... */
        bool known = rid < FZ_RIDS && resident[rid];
        int rc = 0, rc2 = 0;
        switch (op) {
        case 0: { /* ingest */
            ms_req_config c = ms_fdp_config(&d);
            rc = ms_ingest(fast, rid, &c);
            rc2 = ms_ingest(ref, rid, &c);
            if (rc == MS_OK) {
                ms_fuzz_check(!known && rid < FZ_RIDS + 1 && n_resident < FZ_CAP);
                if (rid < FZ_RIDS) resident[rid] = true;
                n_resident++;
            } else if (rc == MS_EEXIST) ms_fuzz_check(known);
            else if (rc == MS_EFULL) ms_fuzz_check(n_resident == FZ_CAP);
            else ms_fuzz_check(rc == MS_ECONFIG || rc == MS_ECAPABILITY);
            if (rc == MS_OK && rid == FZ_RIDS) { /* keep the model simple: take it out again */
                ms_fuzz_check(ms_remove(fast, rid) == MS_OK && ms_remove(ref, rid) == MS_OK);
                n_resident--;
            }
            break;
        }
        case 1: /* remove */
            rc = ms_remove(fast, rid);
            rc2 = ms_remove(ref, rid);
            ms_fuzz_check(rc == (known ? MS_OK : MS_ENOENT));
            if (rc == MS_OK) {
                resident[rid] = false;
                n_resident--;
            }
            break;
        case 2: { /* plan */
            int32_t toks[2][6];
            ms_prefill pf[2];
            int32_t n_pf = (int32_t)ms_fdp_range(&d, -1, 2);
            for (int32_t i = 0; i < 2; i++) {
                pf[i].rid = (int64_t)ms_fdp_range(&d, 0, FZ_RIDS);
                pf[i].n_tokens = (int32_t)ms_fdp_range(&d, -1, 6);
                for (int32_t j = 0; j < 6; j++) toks[i][j] = fz_token(&d);
                pf[i].tokens = ms_fdp_u8(&d) < 250 ? toks[i] : NULL;
            }
            ms_step st = ms_step_default();
            st.prefill = ms_fdp_u8(&d) < 250 ? pf : NULL;
            st.n_prefill = n_pf;
            rc = ms_plan(fast, &st);
            rc2 = ms_plan(ref, &st);
            break;
        }
        case 3: { /* sample */
            int32_t n_rows = (int32_t)ms_fdp_range(&d, 0, FZ_ROWS);
            int64_t rids[FZ_ROWS];
            for (int32_t i = 0; i < FZ_ROWS; i++) rids[i] = (int64_t)ms_fdp_range(&d, 0, FZ_RIDS - 1);
            int32_t width = FZ_V + (int32_t)ms_fdp_range(&d, -1, 3);
            for (int32_t i = 0; i < n_rows * width; i++) {
                uint8_t b = ms_fdp_u8(&d);
                logits[i] = b == 255 ? ms_fdp_raw_f32(&d) : ((float)b - 128.0f) / 16.0f;
            }
            ms_batch b = {n_rows, rids, logits, MS_DTYPE_F32, width, 0};
            ms_step st = ms_step_default();
            st.apply_penalty = ms_fdp_bool(&d);
            st.apply_filters = ms_fdp_bool(&d);
            int32_t t1[FZ_ROWS], t2[FZ_ROWS], s1[FZ_ROWS], s2[FZ_ROWS];
            rc = ms_sample(fast, &st, &b, t1, s1);
            rc2 = ms_sample(ref, &st, &b, t2, s2);
            if (rc == MS_OK) {
                pending = true;
                for (int32_t i = 0; i < n_rows; i++) {
                    if (t1[i] != t2[i] || s1[i] != s2[i]) ms_fuzz_fail("row %d: fast %d, reference %d", i, t1[i], t2[i]);
                    ms_fuzz_check(t1[i] >= -1 && t1[i] < FZ_V);
                }
            } else {
                bool all_known = true;
                for (int32_t i = 0; i < n_rows; i++) all_known &= resident[rids[i]];
                ms_fuzz_check(width < FZ_V || !all_known); /* only a narrow row or an unknown id is refused */
            }
            break;
        }
        case 4: { /* commit */
            int64_t kept[3];
            for (int i = 0; i < 3; i++) kept[i] = (int64_t)ms_fdp_range(&d, 0, FZ_RIDS);
            ms_step st = ms_step_default();
            int32_t nk = (int32_t)ms_fdp_range(&d, -2, 3);
            if (nk >= -1) {
                st.kept_rids = kept;
                st.n_kept_rids = nk;
            }
            rc = ms_commit(fast, &st);
            rc2 = ms_commit(ref, &st);
            if (!pending) ms_fuzz_check(rc == MS_ESTATE);
            if (rc >= 0) pending = false;
            break;
        }
        case 5: { /* accept */
            int32_t toks[5];
            int32_t n = (int32_t)ms_fdp_range(&d, -1, 5);
            for (int i = 0; i < 5; i++) toks[i] = fz_token(&d);
            rc = ms_accept(fast, rid, toks, n);
            rc2 = ms_accept(ref, rid, toks, n);
            if (!known) ms_fuzz_check(rc == MS_ENOENT);
            break;
        }
        case 6: { /* explain */
            float row[FZ_V + 2];
            for (int32_t i = 0; i < FZ_V + 2; i++) row[i] = ((float)ms_fdp_u8(&d) - 128.0f) / 8.0f;
            int32_t cap = (int32_t)ms_fdp_range(&d, 0, FZ_V);
            int32_t ids1[FZ_V], ids2[FZ_V];
            uint64_t m1[FZ_V], m2[FZ_V];
            ms_explanation i1, i2;
            ms_step st = ms_step_default();
            st.apply_penalty = ms_fdp_bool(&d);
            rc = ms_explain(fast, &st, rid, row, MS_DTYPE_F32, FZ_V, cap, ids1, NULL, m1, &i1);
            rc2 = ms_explain(ref, &st, rid, row, MS_DTYPE_F32, FZ_V, cap, ids2, NULL, m2, &i2);
            if (rc == MS_OK || rc == MS_ENOSPC) ms_fuzz_check(i1.n_kept == i2.n_kept && i1.total_mass == i2.total_mass);
            if (rc == MS_OK)
                for (int32_t k = 0; k < i1.n_kept; k++) ms_fuzz_check(ids1[k] == ids2[k] && m1[k] == m2[k]);
            break;
        }
        default: { /* NULL and out-of-range arguments: always refused */
            ms_req_config c = ms_req_config_default();
            uint8_t which = ms_fdp_u8(&d) % 4;
            if (which == 0) rc = ms_ingest(fast, rid, NULL), rc2 = ms_ingest(ref, rid, NULL);
            else if (which == 1) rc = ms_sample(fast, NULL, NULL, NULL, NULL), rc2 = ms_sample(ref, NULL, NULL, NULL, NULL);
            else if (which == 2) {
                c.temperature = -1.0f;
                rc = ms_ingest(fast, rid, &c), rc2 = ms_ingest(ref, rid, &c);
            } else rc = ms_accept(fast, rid, NULL, 1), rc2 = ms_accept(ref, rid, NULL, 1);
            ms_fuzz_check(rc < 0);
            break;
        }
        }
        if (rc != rc2) ms_fuzz_fail("op %d: fast %d, reference %d", op, rc, rc2);
        if (rc < 0) ms_fuzz_check(ms_resource_last_error(fast)[0] != '\0');
        ms_fuzz_check(ms_resident(fast) == n_resident && ms_resident(ref) == n_resident);
        for (int64_t r = 0; r < FZ_RIDS; r++) ms_fuzz_check(ms_contains(fast, r) == resident[r]);
    }
    ms_resource_free(fast);
    ms_resource_free(ref);
    return 0;
}
