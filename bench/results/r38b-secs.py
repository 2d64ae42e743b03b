#!/usr/bin/env python3
# Round 38B: compare two cubins kernel by kernel (each .text / .nv.info / .nv.constant0 section: size and md5 of its bytes;
# .nv.shared sections are NOBITS: their sizes alone count). Usage: r38b-secs.py A.cubin B.cubin (needs readelf).
import sys, subprocess, hashlib, re
def secs(f):
    out = subprocess.run(['readelf','-S','-W',f],capture_output=True,text=True).stdout
    d = {}
    data = open(f,'rb').read()
    for line in out.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)', line)
        if m:
            name, off, size = m.group(1), int(m.group(2),16), int(m.group(3),16)
            d[name] = (size, hashlib.md5(data[off:off+size]).hexdigest())
    return d
a, b = secs(sys.argv[1]), secs(sys.argv[2])
for n in sorted(set(a)|set(b)):
    if not n.startswith(('.text', '.nv.shared', '.nv.info.', '.nv.constant0')): continue
    if a.get(n) != b.get(n):
        print(f"{n[:110]:110s} {a.get(n, ('-',''))[0]} -> {b.get(n, ('-',''))[0]}")
