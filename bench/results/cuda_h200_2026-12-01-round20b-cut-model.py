# Round 20B: the untried row-level cut for K4<true>'s trim, counted on the CPU (no device): flat rows N(0,1) (the bench's
# flat shape), V=151936, k' = 50, G chunks (ms_cu_grid: 8 at B=64, 5 at B >= 128). Each chunk lists its top k' (what K2or
# lists on flat rows, where every chunk holds far more than k' tokens of C); the cut is the largest of the chunks' k'-th
# values; "after" counts the listed tokens at or above it. 200 rows per G; prints mean, least, largest of (before, after).
import numpy as np
rng = np.random.default_rng(1)
V, k = 151936, 50
for G in (8, 5):
    res = []
    for t in range(200):
        x = rng.standard_normal(V).astype(np.float32)
        ch = np.array_split(x, G)
        kth = [np.sort(c)[-k] for c in ch]
        cut = max(kth)
        before = sum(int((c >= kk).sum()) for c, kk in zip(ch, kth))
        after = sum(int((c >= max(kk, cut)).sum()) for c, kk in zip(ch, kth))
        res.append((before, after))
    r = np.array(res)
    print(G, r.mean(0), r.min(0), r.max(0))
# Output (python3, numpy), 2026-12-01:
# 8 [400.    324.605] [400 231] [400 376]
# 5 [250.    209.575] [250 166] [250 240]
