#!/usr/bin/env python3
"""mutation_check: shows that the oracle and the stats tests can fail (issue 2, "tests must be able
to fail"). Not part of CTest: it rebuilds the library once per mutation (a few minutes in all).

For each mutation below (one wrong rule in the C library), it patches a copy of the committed tree
(`git archive HEAD`, outside the working tree), rebuilds the shared library and the stats runner,
and runs the oracle (at MS_ORACLE_SCALE, default 0.3) or the stats runner. Every mutation must turn
them red; the script exits 1 when one survives and names it.

    python3 tests/oracle/mutation_check.py [name ...]
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

REF, MATH = "src/ms_cpu_ref.c", "src/ms_math.h"
# name, file, text, replacement, which tests ("oracle" or "stats")
MUTATIONS = [
    ("top_k_ties_dropped", REF, "if (group_start >= k) keep", "if (i >= k) keep", "oracle"),
    ("top_p_crossing_token_dropped", REF, "if (!(ms__top_p_keeps(above, total, p_q)",
     "if (!(ms__top_p_keeps(running, total, p_q)", "oracle"),
    ("top_p_min_keep_ignored", REF, "|| group_start < min_keep)", "|| group_start < 1)", "oracle"),
    ("min_p_strict", REF, "keep[t] = w[t] >= cfg->min_p;", "keep[t] = w[t] > cfg->min_p;", "oracle"),
    ("order_swapped", REF, "if (!cfg->top_p_first) {", "if (cfg->top_p_first) {", "oracle"),
    ("hf_k_without_min_keep", REF,
     "int32_t k2 = k > 0 ? (k > cfg->top_p_min_keep ? k : cfg->top_p_min_keep) : 0;", "int32_t k2 = k;", "oracle"),
    ("floor_without_fallback", REF, "if (free_mass > 0) {", "if (1) {", "oracle"),
    ("floor_off_by_one", REF, "job->n < (uint64_t)cfg->min_tokens;", "job->n <= (uint64_t)cfg->min_tokens;", "oracle"),
    ("presence_ignores_apply_penalty", REF, "} else if (job->apply_penalty && job->seen) {",
     "} else if (job->seen) {", "oracle"),
    ("window_ignores_its_length", REF,
     "int32_t w = cfg->repetition_window < job->hist_len ? cfg->repetition_window : job->hist_len;",
     "int32_t w = job->hist_len;", "oracle"),
    ("inf_row_mass_leaks", REF, "(ms__is_pos_inf(y[t]) ? 1.0f : 0.0f)", "(ms__is_pos_inf(y[t]) ? 1.0f : 0.5f)",
     "oracle"),
    ("greedy_tie_to_highest_id", REF, "if (best < 0 || y[t] > y[best]) best = t;",
     "if (best < 0 || y[t] >= y[best]) best = t;", "oracle"),
    ("temperature_as_reciprocal_product", REF, "y[t] = y[t] / T;", "y[t] = y[t] * (1.0f / T);", "oracle"),
    ("draw_target_off_by_one", REF, "if (running > target) {", "if (running >= target) {", "oracle"),
    ("penalty_direction_swapped", MATH, "return x > 0.0f ? x / f : x * f;", "return x > 0.0f ? x * f : x / f;",
     "oracle"),
    ("pow_one_too_many", MATH, "for (int32_t i = 0; i < n; i++) f = f * r;",
     "for (int32_t i = 0; i <= n; i++) f = f * r;", "oracle"),
    ("nan_not_minus_inf", MATH, "return ms__is_nan(x) ? ms__neg_inf() : x;", "return x;", "oracle"),
    ("exp_coefficient", MATH, "#define MS_EXP_C2 0.4999999403953552f", "#define MS_EXP_C2 0.4999f", "oracle"),
    ("greedy_threshold", MATH, "#define MS_GREEDY_TEMPERATURE 1e-5f", "#define MS_GREEDY_TEMPERATURE 1e-6f", "oracle"),
    ("philox_ignores_row_k", MATH, "ctr[2] = row_k;", "ctr[2] = 0;", "oracle"),
    ("stats_philox_ignores_row_k", MATH, "ctr[2] = row_k;", "ctr[2] = 0;", "stats"),
    ("stats_philox_one_round", MATH, "for (int i = 0; i < 10; i++) {", "for (int i = 0; i < 1; i++) {", "stats"),
    ("stats_draw_half_the_bits", REF, "ms__draw_bits(cfg->seed, job->n, job->row_k), total);",
     "ms__draw_bits(cfg->seed, job->n, job->row_k) >> 1, total);", "stats"),
    ("stats_draw_ignores_filters", REF, "        if (!keep[t]) continue;\n        running += q[t];",
     "        running += q[t];", "stats"),
]


def sh(cmd, cwd, env=None, timeout=900):
    return subprocess.run(cmd, cwd=cwd, env=env, shell=True, capture_output=True, text=True, timeout=timeout)


def main(wanted):
    tmp = tempfile.mkdtemp(prefix="ms_mutation_")
    try:
        sh(f"git -C {ROOT} archive HEAD | tar -x -C {tmp}", ROOT)
        r = sh("cmake -S . -B b -DMSAMPLER_CUDA=OFF -DMSAMPLER_PROGRAMS=OFF >/dev/null && "
               "cmake --build b -j2 --target msampler ms_stats_tests", tmp)
        if r.returncode:
            print(r.stdout[-2000:], r.stderr[-2000:])
            return 2
        originals = {f: open(os.path.join(tmp, f)).read() for f in (REF, MATH)}
        env = dict(os.environ, MSAMPLER_LIB=os.path.join(tmp, "b", "libmsampler.so"))
        env.setdefault("MS_ORACLE_SCALE", "0.3")
        survivors = []
        for name, path, old, new, kind in MUTATIONS:
            if wanted and name not in wanted:
                continue
            for f, text in originals.items():
                open(os.path.join(tmp, f), "w").write(text)
            if old not in originals[path]:
                print(f"{name:36s} SKIPPED: the code it mutates is gone (update the list)")
                continue
            open(os.path.join(tmp, path), "w").write(originals[path].replace(old, new, 1))
            r = sh("cmake --build b -j2 --target msampler ms_stats_tests", tmp)
            if r.returncode:
                print(f"{name:36s} BUILD FAILED")
                survivors.append(name)
                continue
            if kind == "oracle":
                r = sh(f"{sys.executable} -m pytest -x -q -p no:cacheprovider "
                       f"{os.path.join(HERE, 'test_oracle_explain.py')}", tmp, env)
            else:
                r = sh("./b/tests/stats/ms_stats_tests", tmp, env)
            out = r.stdout + r.stderr
            first = next((ln.strip() for ln in out.splitlines() if "scenario=" in ln or "FAIL " in ln), "")
            if r.returncode:
                print(f"{name:36s} red    {first[:150]}")
            else:
                print(f"{name:36s} GREEN: not detected")
                survivors.append(name)
        if survivors:
            print("mutations not detected: " + ", ".join(survivors))
            return 1
        print("every mutation was detected")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(set(sys.argv[1:])))
