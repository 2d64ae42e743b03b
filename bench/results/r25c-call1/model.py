import numpy as np
rng=np.random.default_rng(1)
V=151936;T=0.7
def key(y):
    b=y.astype(np.float32).view(np.uint32)
    return np.where(b>>31, ~b, b|0x80000000).astype(np.uint32)
for shape in ("flat","peaked"):
    x=rng.standard_normal(V).astype(np.float32)
    if shape=="peaked": x=(3*x+np.where(rng.integers(0,1000,V)<3,8,0)).astype(np.float32)
    y=(x/np.float32(T)).astype(np.float32); w=np.exp(y.astype(np.float64)-y.max())
    k=key(y); b=k>>21
    o=np.argsort(-y); cw=np.cumsum(w[o]); idx=np.searchsorted(cw,0.9*cw[-1]); bound=b[o[idx]]
    above=(b>bound).mean(); band=(b==bound).sum(); below=(b<bound).mean()
    # divergence: per warp group of 128 tokens, lane l holds 4l..4l+3; slot k: any lane with b>=bound?
    g=V//128; bb=b[:g*128].reshape(g,32,4)
    anyk=((bb>bound).any(axis=1)).mean()
    need=(bb>=bound).sum(axis=(1,2)); rounds=np.ceil(need/32).mean()
    print(shape,"bound",bound,"above %.3f band %d below %.3f slots-with-exp %.3f queued/group %.1f rounds %.2f (vs 4)"%(above,band,below,anyk,need.mean(),rounds), "n_cand", (b>=bound).sum())
