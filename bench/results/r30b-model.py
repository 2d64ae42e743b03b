# Round 30B: a host model (numpy) of how many of the bench's tokens / groups / warps K2's lean pass could skip under
# -DMS_CU_K2_HQ0. Not the bench's generator (another RNG), its distributions: flat N(0,1); peaked PEAKS * (3 N(0,1)
# + 8 for ~0.3 % of tokens). V=151936, T=0.7; groups of 4 consecutive tokens, a warp 32 consecutive groups (as
# ms_cu_lean_groups lays them out); xq0 as the kernel computes it (fp32).
import numpy as np
V = 151936
T = np.float32(0.7)
for seed in (1, 7):
    rng = np.random.default_rng(seed)
    for s in (0, 1, 2, 3):  # 0: flat
        z = rng.standard_normal(V)
        x = (z if s == 0 else s * (3 * z + 8 * (rng.integers(0, 1000, V) < 3))).astype(np.float32)
        y = x / T
        m = y.max()
        ylim = np.float32(m - np.float32(32))
        v = np.float32(ylim * T)
        xq0 = np.float32(v - np.float32(abs(v) * np.float32(1e-5)))
        q0 = (y - m) < -27.8
        g = x.reshape(-1, 4).max(1) < xq0
        w = g[: len(g) // 32 * 32].reshape(-1, 32).all(1)
        print("seed %d %s: m %.1f, tokens with d < -27.8 %.3f, groups below xq0 %.4f, warps all below %.3f"
              % (seed, "flat" if s == 0 else "peaked PEAKS=%d" % s, m, q0.mean(), g.mean(), w.mean()))
