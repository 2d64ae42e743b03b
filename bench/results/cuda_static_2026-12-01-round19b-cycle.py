#!/usr/bin/env python3
"""Round 19B: the instructions of one iteration of a loop in one kernel of an `nvdisasm -g -c` listing, along a
path the caller pins down. usage: cycle.py LISTING KERNEL START [VIA ...] [-q]
START and each VIA are instruction addresses (0x...) in the kernel. Prints the shortest path START -> VIA1 -> ...
-> VIAn -> START (fewest instructions; START counted once), its instructions by source line, and (without -q) the
instructions themselves. Edges as in cuda_static_2026-12-01-round18d-paths.py: a predicated BRA has two successors,
an unpredicated one its target; BRA.DIV is taken as not taken (a converged warp); CALL counts as one instruction;
EXIT/RET end a path. Pinning the path through each group's load and maximum keeps it to a feasible iteration (the
shortest cycle alone can skip a group's load yet use its value, which no warp does)."""
import re, sys, heapq
from collections import Counter
args = [a for a in sys.argv[1:] if a != '-q']
quiet = '-q' in sys.argv
lst, kern, pts = args[0], args[1], [int(a, 16) for a in args[2:]]
ins, labels, cur_line, inside, pend = [], {}, None, False, []
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
        tgt = re.search(r'`\((\.L_x_\d+)\)', body)
        ins.append(dict(addr=int(m.group(1), 16), pred=pred, op=body.split()[0], body=body, line=cur_line,
                        tgt=tgt.group(1) if tgt else None))
n = len(ins)
def succ(i):
    d = ins[i]; op = d['op']; p = d['pred']
    if p in ('@!PT', '@!UPT') or op.startswith('BRA.DIV'): return [i + 1]
    always = p in (None, '@PT', '@UPT')
    if op.startswith('BRA'):
        t = labels[d['tgt']]
        return [t] if always else [t, i + 1]
    if op.startswith('EXIT') or op.startswith('RET'): return [] if always else [i + 1]
    if op.startswith('BRX') or op.startswith('JMX'): raise SystemExit('indirect branch at %x' % d['addr'])
    return [i + 1]
def seg(a, b): # shortest path a -> b (a excluded, b included)
    dist, prev, h = {}, {}, []
    for s in succ(a): dist[s] = 1; prev[s] = None; h.append((1, s))
    heapq.heapify(h)
    while h:
        c, i = heapq.heappop(h)
        if i == b: break
        if c > dist.get(i, 1 << 60): continue
        for j in succ(i):
            if j < n and c + 1 < dist.get(j, 1 << 60): dist[j] = c + 1; prev[j] = i; heapq.heappush(h, (c + 1, j))
    if b not in dist: raise SystemExit('no path /*%04x*/ -> /*%04x*/' % (ins[a]['addr'], ins[b]['addr']))
    out, i = [], b
    while i is not None: out.append(i); i = prev[i]
    return out[::-1]
idx = {d['addr']: i for i, d in enumerate(ins)}
way = [idx[p] for p in pts] + [idx[pts[0]]]
cyc = []
for a, b in zip(way, way[1:]): cyc += seg(a, b)
print('%s: %d instructions an iteration through %s' % (kern, len(cyc), ' '.join('/*%04x*/' % p for p in pts)))
lc = Counter(ins[k]['line'] for k in cyc)
print('  by source line:', ', '.join('%s:%d' % kv for kv in sorted(lc.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))))
if not quiet:
    for k in cyc: print('   /*%05x*/ %-5s %-5s %s' % (ins[k]['addr'], ins[k]['line'], ins[k]['pred'] or '', ins[k]['body'][:90]))
