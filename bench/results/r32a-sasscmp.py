#!/usr/bin/env python3
"""Split two cuobjdump -sass listings by 'Function :' and compare bodies per function. For the new build, the
kernels ms_cu_k1 / ms_cu_k2 / ms_cu_k4 gained a last template argument (RC / RZ); their RC=false instantiation is
matched to the base's kernel of the same name without it. Usage: sasscmp.py base.sass new.sass"""
import sys, re, subprocess, hashlib
def split(path):
    funcs = {}; name = None; body = []
    for line in open(path):
        m = re.match(r'\s*Function : (\S+)', line)
        if m:
            if name: funcs[name] = body
            name = m.group(1); body = []
        elif name is not None:
            body.append(line.rstrip())
    if name: funcs[name] = body
    return funcs
def demangle(names):
    out = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True).stdout.split('\n')
    return dict(zip(names, out))
b = split(sys.argv[1]); n = split(sys.argv[2])
bd = demangle(list(b)); nd = demangle(list(n))
bymb = {bd[k]: k for k in b}
same = diff = 0; newonly = []
for k in n:
    d = nd[k]
    m = re.match(r'void (ms_cu_k[124])<(.*)>\(ms_cu_args\)', d)
    cand = d
    if m and d not in bymb:
        args = [x.strip() for x in m.group(2).split(',')]
        if args[-1] == 'false': cand = 'void %s<%s>(ms_cu_args)' % (m.group(1), ', '.join(args[:-1]))
        else: newonly.append(d); continue
    if cand not in bymb: newonly.append(d); continue
    bb = b[bymb[cand]]; nb = n[k]
    # names inside bodies (calls, relocations) may carry the mangled names: strip them
    strip = lambda L: [re.sub(r'_Z\w+', 'F', x) for x in L]
    if strip(bb) == strip(nb): same += 1; print('SAME  %-60s %d lines' % (cand, len(nb)))
    else:
        diff += 1
        nd_ = sum(1 for x, y in zip(strip(bb), strip(nb)) if x != y) + abs(len(bb) - len(nb))
        print('DIFF  %-60s base %d lines, new %d, %d differ' % (cand, len(bb), len(nb), nd_))
print('new only:', *newonly, sep='\n  ')
print('base only:', *[bd[k] for k in b if bd[k] not in [nd[x] for x in n] and not re.match(r'void ms_cu_k[124]<', bd[k])], sep='\n  ')
print('same %d, differ %d' % (same, diff))
