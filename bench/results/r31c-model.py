# Round 31C: a host model (numpy) of -DMS_CU_K2_HQ0=3's choice: a warp takes round 30B's =2 loop when at least
# MIN (16) of its 32 lanes' first groups of 4 have a raw maximum below xq0. Tokens are iid in the bench's rows and in
# the tests' generators, so any 32 consecutive groups stand for a warp's first groups. Distributions: the bench's
# (flat N(0,1); peaked PEAKS * (3 N(0,1) + 8 for ~0.3 % of tokens), T 0.7) and cuda_identity_top_p_alone's
# gen_row_topp normal rows (scale 0.3 / 1 / 3 N(0,1), T 0.3 / 1 / 2; not its RNG). V=151936; xq0 as the kernel (fp32).
import numpy as np
V = 151936
MIN = 16
def row(x, T):
    T = np.float32(T)
    y = x / T
    m = y.max()
    v = np.float32(np.float32(m - np.float32(32)) * T)
    xq0 = np.float32(v - np.float32(abs(v) * np.float32(1e-5)))
    g = x.reshape(-1, 4).max(1) < xq0
    w = g[: len(g) // 32 * 32].reshape(-1, 32).sum(1)
    return m, g.mean(), (w >= MIN).mean(), (w == 32).mean()
rng = np.random.default_rng(1)
print("rows                         m     groups below xq0   warps taking =2 (>= %d of 32)   warps all below" % MIN)
for s in (0, 1, 2, 3):
    z = rng.standard_normal(V)
    x = (z if s == 0 else s * (3 * z + 8 * (rng.integers(0, 1000, V) < 3))).astype(np.float32)
    m, g, w, a = row(x, 0.7)
    print("bench %-20s %6.1f   %.4f             %.3f                          %.3f" % ("flat" if s == 0 else "peaked PEAKS=%d" % s, m, g, w, a))
for sc in (0.3, 1.0, 3.0):
    for T in (0.3, 1.0, 2.0):
        x = (sc * rng.standard_normal(V)).astype(np.float32)
        m, g, w, a = row(x, T)
        print("test scale %.1f T %.1f        %6.1f   %.4f             %.3f                          %.3f" % (sc, T, m, g, w, a))
