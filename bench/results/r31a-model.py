#!/usr/bin/env python3
"""Round 31A: a model (not a measurement) of the bench's full-setting rows at V=151936 / 262144: per row, min-p's
survivors (S0), K1's warp maxima (256 threads a block, 8 warps; thread t's groups of 4 at t0 + 4 t + 1024 j), the
row cut L from 128 bins of a sixteenth of an octave (x in [0.5, 128)), the survivors at or above the raised cut
fl(0.999 L), and the candidates the chunks list (at most ~k' each: min(ns, k') as a lower bound) with and without the
cut. flat: N(0,1); peaked: 3 N(0,1), 0.3% raised by 8 (programs/ms_bench_cuda.c); T 0.7, min-p 0.05, top-k 50; the
presence penalty on 64 seen tokens is left out (it lowers 64 values). Grid as ms_cu_grid on 132 SMs, chunk floor 1024."""
import numpy as np, math
rng = np.random.default_rng(31)
K, T, MINP = 50, 0.7, 0.05
def grid(B, V):
    want = 132 * 4 // B; most = (V + 1023) // 1024
    G = max(min(want, most), (V + 32767) // 32768, 1)
    return G, ((V + G - 1) // G + 7) & ~7
def edge(b): # lower edge of bin b: key (0xbf000000 >> 19) + b, shifted back
    u = ((0xbf000000 >> 19) + b) << 19
    return np.frombuffer(np.uint32(u & 0x7fffffff).tobytes(), np.float32)[0]
def row(V, peaked):
    x = rng.standard_normal(V).astype(np.float32)
    if peaked: x = (3 * x + np.where(rng.integers(0, 1000, V) < 3, 8, 0)).astype(np.float32)
    return x
print("V B shape chunks chunk | S0 | cut L | S0 >= 0.999L | listed without / with the cut (sum min(ns, k') over chunks)")
for V in (151936, 262144):
    for B in (1, 8, 16, 24):
        G, ch = grid(B, V)
        for peaked in (0, 1):
            r = []
            for _ in range(4):
                x = row(V, peaked)
                m = x.max()
                xs = m + T * math.log(MINP)  # x of min-p's edge (y - m >= ln min_p)
                s0 = x >= xs
                wmax = []
                for g in range(G):
                    t0, t1 = g * ch, min(V, (g + 1) * ch)
                    for w in range(8):
                        idx = [t for j in range(t0 + 128 * w, t1, 1024) for t in range(j, min(j + 128, t1))]
                        if idx: wmax.append(x[idx].max())
                wmax = np.array(wmax)
                keys = (wmax[wmax >= 0.5].astype(np.float32).view(np.uint32) | np.uint32(0x80000000)) >> np.uint32(19)
                bins = np.minimum(keys.astype(np.int64) - (0xbf000000 >> 19), 127)
                h = np.bincount(bins, minlength=128) if len(bins) else np.zeros(128, int)
                suf = np.cumsum(h[::-1])[::-1]
                ok = np.nonzero(suf >= K)[0]
                L = edge(ok.max()) if len(ok) else None
                cut = L is not None and (L / T - m / T) >= math.log(MINP) + 0.01
                xc = np.float32(L) * np.float32(0.999) if cut else -np.inf
                s1 = s0 & (x >= xc)
                lw = sum(min(int(s0[g * ch:(g + 1) * ch].sum()), K) for g in range(G))
                lc = sum(min(int(s1[g * ch:(g + 1) * ch].sum()), K) for g in range(G))
                r.append((s0.sum(), L if cut else float('nan'), s1.sum(), lw, lc))
            a = np.array(r, float)
            print(V, B, 'peaked' if peaked else 'flat', G, ch, '|', int(a[:, 0].mean()), '|', np.round(a[:, 1], 3).tolist(),
                  '|', int(a[:, 2].mean()), '|', int(a[:, 3].mean()), '/', int(a[:, 4].mean()))
