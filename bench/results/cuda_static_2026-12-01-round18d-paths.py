#!/usr/bin/env python3
"""Static path counts in one kernel of an `nvdisasm -g -c` listing (round 18D).
usage: paths.py LISTING KERNEL OPCODE_REGEX LINE[,LINE..]|any
Prints: the fewest instructions from the kernel's entry to the first instruction whose opcode matches and whose
source line (from -g) is one of LINE (instructions before it, the target not counted); and the fewest instructions
on a cycle through that target (one iteration of its loop, the target counted once). Edges: a predicated BRA has
two successors, an unpredicated one its target; BRA.DIV is taken as not taken (a converged warp); CALL counts as
one instruction (the callee, a division's slow path here, not followed); EXIT/RET end a path."""
import re, sys, heapq
lst, kern, opre, lines = sys.argv[1], sys.argv[2], re.compile(sys.argv[3]), sys.argv[4]
want = None if lines == 'any' else set(int(x) for x in lines.split(','))
ins, labels, cur_line, inside = [], {}, None, False
pend = []
for l in open(lst):
    if l.startswith('.text.'):
        inside = l.strip() == '.text.%s:' % kern
        continue
    if not inside: continue
    if l.lstrip().startswith('.section'): break
    m = re.match(r'\s*//## File ".*", line (\d+)', l)
    if m: cur_line = int(m.group(1)); continue
    m = re.match(r'^(\.L_x_\d+):', l)
    if m: pend.append(m.group(1)); continue
    m = re.match(r'\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;', l)
    if m:
        txt = m.group(2)
        for p in pend: labels[p] = len(ins)
        pend = []
        pm = re.match(r'(@!?U?P[0-6T])\s+(.*)', txt)
        pred, body = (pm.group(1), pm.group(2)) if pm else (None, txt)
        op = body.split()[0]
        tgt = re.search(r'`\((\.L_x_\d+)\)', body)
        ins.append(dict(addr=int(m.group(1), 16), pred=pred, op=op, body=body, line=cur_line, tgt=tgt.group(1) if tgt else None))
n = len(ins)
def succ(i):
    d = ins[i]; op = d['op']; p = d['pred']
    never = p in ('@!PT', '@!UPT'); always = p in (None, '@PT', '@UPT')
    if never: return [i + 1]
    if op.startswith('BRA.DIV'): return [i + 1]
    if op.startswith('BRA'):
        t = labels[d['tgt']]
        return [t] if always else [t, i + 1]
    if op.startswith('EXIT') or op.startswith('RET'):
        return [] if always else [i + 1]
    if op.startswith('BRX') or op.startswith('JMX'): raise SystemExit('indirect branch at %x' % d['addr'])
    return [i + 1]
def dij(srcs):
    dist = {s: 1 for s in srcs}; prev = {s: None for s in srcs}; h = [(1, s) for s in srcs]
    while h:
        c, i = heapq.heappop(h)
        if c > dist.get(i, 1 << 60): continue
        for j in succ(i):
            if j >= n: continue
            if c + 1 < dist.get(j, 1 << 60):
                dist[j] = c + 1; prev[j] = i; heapq.heappush(h, (c + 1, j))
    return dist, prev
tg = [i for i, d in enumerate(ins) if opre.search(d['op']) and (want is None or d['line'] in want)]
if not tg: raise SystemExit('no target')
dist, prev = dij([0])
reach = [i for i in tg if i in dist]
t = min(reach, key=lambda i: dist[i])
path = []; i = t
while i is not None: path.append(i); i = prev[i]
path.reverse()
from collections import Counter
print('%s: %d instructions in the kernel; targets %d; nearest target %s at /*%04x*/ (line %s): %d instructions before it on the shortest path (%d of them BAR, %d BSSY/BSYNC, %d predicated)' % (
    kern, n, len(tg), ins[t]['op'], ins[t]['addr'], ins[t]['line'], dist[t] - 1,
    sum(ins[k]['op'].startswith('BAR') for k in path[:-1]), sum(ins[k]['op'].startswith(('BSSY', 'BSYNC')) for k in path[:-1]),
    sum(ins[k]['pred'] not in (None,) for k in path[:-1])))
lc = Counter(ins[k]['line'] for k in path[:-1])
print('  lines on that path (line: instructions), most first:', ', '.join('%s:%d' % kv for kv in lc.most_common(12)))
d2, p2 = dij(succ(t))
if t in d2:
    cyc = []; i = t
    # walk back from t along p2 until a source (successor of t)
    i = p2[t]; cyc = [t]
    while i is not None: cyc.append(i); i = p2[i]
    lo, hi = min(cyc), max(cyc)
    print('  shortest cycle through it: %d instructions (loop span /*%04x*/../*%04x*/, %d instructions laid out in that span)' % (
        d2[t], ins[lo]['addr'], ins[hi]['addr'], hi - lo + 1))
else:
    print('  no cycle through it')
