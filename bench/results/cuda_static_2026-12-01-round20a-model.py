#!/usr/bin/env python3
"""Round 20A: a host model of one flat one-read chunk (N(0,1), 18992 tokens, 8 warps x 2 groups of 4 a lane, T 0.7,
min-p 0.05, k 50) under ms_cu_k2_scan1's rules (round 19B's skip, the min-p cut from the block's bound, the top-k' scan
every 8th step of a warp, EARLY: also in steps 1..EARLY), the G=8 blocks of a row in lock-step; rowcut: each block
publishes the cut below ceil(k/G) of its counted tokens and takes the least of the G slots at its next step. Counts a
block's steps with the bookkeeping (need), skipped steps, warp-groups with a passing token (grp), staged tokens.
Warps in lock-step and instant visibility: optimistic. usage: EARLY=0 python3 this (edit EARLY below)."""
EARLY=2
import numpy as np, math
T=0.7; minp=0.05; kk=50; OB=128; SCAN=8; G=8; NW=8; NG=2
minp_cut=math.log(minp)-0.01
def orcut(mx):
    m=mx/T; v=(m+minp_cut)*T; v=v-(abs(v)+(abs(m)+abs(minp_cut))*T)*1e-5; return v
def tkcut(oh,k,ry,osc):
    c=np.cumsum(oh)
    if not (c>=k).any(): return -1e30
    b=int(np.argmax(c>=k))
    if b+2>=OB: return -1e30
    return ry-(b+2.5)/osc
def sim(seed, rowcut):
    rng=np.random.default_rng(seed); chunk=18992
    X=[rng.standard_normal(chunk).astype(np.float32) for _ in range(G)]
    step=NW*128; tv=chunk&~3; nsteps=math.ceil(tv/(NG*step))
    slots=[-1e30]*G
    B=[]
    for b in range(G):
        x=X[b]; ry=float(x[:NG*step].max())
        B.append(dict(x=x,smax=ry,stk=-1e30,oh=np.zeros(OB,int),ry=ry,osc=(OB-1)/-minp_cut/T,
            W=[dict(rm=-1e30,cut=-1e30,mcut=-1e30,tkk=-1e30,ns=0,ck=None,pub=-1e30,pend=None) for w in range(NW)]))
    st=dict(need=0,skip=0,grp=0,staged=0)
    for s in range(nsteps):
        for w in range(NW):
            for b in range(G):
                Bk=B[b]; S=Bk['W'][w]; x=Bk['x']
                gs=[]
                for u in range(NG):
                    idx=s*NG*step+u*step+w*128+np.arange(32)[:,None]*4+np.arange(4)[None,:]
                    ok=(idx<tv).all(1); gs.append(x[idx[ok]])
                gm=[g.max(1) if len(g) else np.array([]) for g in gs]
                if not any((g>=S['cut']).any() for g in gm) and s>0: st['skip']+=1; continue
                st['need']+=1
                for g in gm:
                    if len(g): S['rm']=max(S['rm'],float(g.max()))
                Bk['smax']=max(Bk['smax'],S['rm']); wk=Bk['smax']
                if wk!=S['ck']: S['ck']=wk; S['mcut']=orcut(wk)
                S['tkk']=max(S['tkk'],Bk['stk'])
                if rowcut and S['pend'] is not None:
                    S['tkk']=max(S['tkk'],S['pend']); Bk['stk']=max(Bk['stk'],S['pend']); S['pend']=None
                if S["ns"]>0 and (S["ns"]<=EARLY or ((S["ns"]+w)&(SCAN-1))==0):
                    xc=tkcut(Bk['oh'],kk,Bk['ry'],Bk['osc'])
                    if xc>S['tkk']: S['tkk']=xc; Bk['stk']=max(Bk['stk'],xc)
                    if rowcut:
                        xr=tkcut(Bk['oh'],math.ceil(kk/G),Bk['ry'],Bk['osc'])
                        slots[b]=max(slots[b],xr); S['pend']=min(slots)
                S['ns']+=1
                S['cut']=max(S['mcut'],S['tkk'])
                for g,m in zip(gs,gm):
                    if len(g) and (m>=S['cut']).any():
                        st['grp']+=1; sel=g[g>=S['cut']]; st['staged']+=len(sel)
                        for v in sel: Bk['oh'][min(OB-1,max(0,int((Bk['ry']-v)*Bk['osc'])))]+=1
    return {k:v/G for k,v in st.items()}
for rc in [False,True]:
    acc={}
    for seed in range(6):
        r=sim(seed,rc)
        for k in r: acc[k]=acc.get(k,0)+r[k]/6
    print('rowcut' if rc else 'D', {k:round(v,1) for k,v in acc.items()})
