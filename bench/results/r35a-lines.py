#!/usr/bin/env python3
"""Round 35A: K2or's executed warp instructions per source line, D against a variant, from ncu's source exports
(--page source --print-source cuda,sass --csv); the variant's ms_cuda.cu lines mapped to D's by difflib (N-only: a line D lacks).
Usage: r35a-lines.py D.csv.gz N.csv.gz D_ms_cuda.cu N_ms_cuda.cu [rows]"""
import csv, gzip, sys, collections, difflib
def load(fn):
    out = collections.Counter(); fname=None; hdr=None; cur=None
    for r in csv.reader(gzip.open(fn,'rt',errors='replace')):
        if len(r)==2 and r[0]=='File Path': fname=r[1].split('/')[-1]; continue
        if r and r[0]=='Line No': hdr=r; ie=hdr.index('Instructions Executed'); continue
        if not hdr or len(r)<10: continue
        if r[0].strip():
            cur=(fname, int(r[0])); continue
        if r[2].startswith('0x'):
            try: out[cur]+=float(r[ie])
            except: pass
    return out
def mapping(src, nsrc):
    mp={}
    for tag,i1,i2,j1,j2 in difflib.SequenceMatcher(None,src,nsrc,autojunk=False).get_opcodes():
        if tag=='equal':
            for k in range(j2-j1): mp[j1+k+1]=i1+k+1
    return mp
fa,fb,sa,sb=sys.argv[1:5]; n=int(sys.argv[5]) if len(sys.argv)>5 else 40
SA=open(sa).read().split('\n'); SB=open(sb).read().split('\n')
mp=mapping(SA,SB)
A=load(fa); B0=load(fb)
B=collections.Counter()
for (f,l),v in B0.items():
    if f=='ms_cuda.cu': B[(f, mp.get(l, -l))]+=v
    else: B[(f,l)]+=v
keys=set(A)|set(B)
print('total', sum(A.values())/1e6, sum(B.values())/1e6)
for k in sorted(keys,key=lambda k: -abs(B[k]-A[k]))[:n]:
    f,l=k
    txt = (SA[l-1].strip() if l>0 else 'N-only: '+SB[-l-1].strip()) if f=='ms_cuda.cu' else ''
    print(f'{A[k]/1e3:9.1f} {B[k]/1e3:9.1f} {(B[k]-A[k])/1e3:+9.1f} {f[:10]}:{l} {txt[:100]}')
