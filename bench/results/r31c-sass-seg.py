import re, sys
# per instruction: the ms_cuda.cu line it is attributed to (the 'inlined at' line when inlined, else its own line)
cur = None
ins = []
for l in open(sys.argv[1]):
    m = re.search(r'line (\d+)(?: inlined at "[^"]*", line (\d+))?', l)
    if '//##' in l and m:
        own = int(m.group(1)); at = m.group(2)
        cur = (own, int(at) if at else None, 'ms_math' in l)
        continue
    m = re.match(r'\s*/\*([0-9a-f]+)\*/\s+(.*?);', l)
    if m:
        ins.append((int(m.group(1), 16), m.group(2), cur))
def tag(c):
    if c is None: return None
    own, at, mm = c
    ls = [x for x in (own, at) if x is not None and not (mm and x == own)]
    return ls
groups = {k: [] for k in sys.argv[2:]}
for a, t, c in ins:
    for k in groups:
        lo, hi = map(int, k.split('-'))
        if any(lo <= x <= hi for x in (tag(c) or [])):
            groups[k].append(a)
for k, v in groups.items():
    if not v: print(k, 'none'); continue
    lo, hi = min(v), max(v)
    seg = [t for a, t, c in ins if lo <= a <= hi]
    cnt = lambda p: sum(1 for t in seg if re.search(p, t))
    print("%s: 0x%x-0x%x, %d instructions (%d attributed); LDG %d STL %d LDL %d ATOMS %d MUFU %d BRA %d CALL %d FCHK %d" % (k, lo, hi, len(seg), len(v),
          cnt(r'\bLDG'), cnt(r'\bSTL'), cnt(r'\bLDL'), cnt(r'\bATOMS'), cnt(r'\bMUFU'), cnt(r'\bBRA'), cnt(r'\bCALL'), cnt(r'FCHK')))
# coarse map of the region: runs of A (=2 loop: lines 3507-3526), B (default loop: 3528-3531, tok 3455-3463), O (other)
if len(sys.argv) > 2:
    lo = min(min(v) for v in groups.values() if v); hi = max(max(v) for v in groups.values() if v)
    def cat(c):
        ls = tag(c) or []
        if any(3507 <= x <= 3526 for x in ls): return 'A'
        if any(3528 <= x <= 3531 for x in ls) or any(3455 <= x <= 3463 for x in ls): return 'B'
        return 'O'
    runs = []
    for a, t, c in ins:
        if lo <= a <= hi:
            k = cat(c)
            if runs and runs[-1][0] == k: runs[-1][2] += 1; runs[-1][3].append(t)
            else: runs.append([k, a, 1, [t]])
    for k, a, n, ts in runs:
        if n >= 8 or any('LDG' in t or 'STL' in t or 'LDL' in t for t in ts):
            print("  %s 0x%x %4d  LDG %d ATOMS %d STL %d LDL %d" % (k, a, n, sum('LDG' in t for t in ts), sum('ATOMS' in t for t in ts), sum('STL' in t for t in ts), sum('LDL' in t for t in ts)))
