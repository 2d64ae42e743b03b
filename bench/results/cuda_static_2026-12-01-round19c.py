#!/usr/bin/env python3
"""Round 19C's static count of an early branch's code in one kernel of an `nvdisasm -c -gi` listing.
usage: cuda_static_2026-12-01-round19c.py LISTING KERNEL CALLSITE_LINE[,INNER_CALL_LINE..] [DEPTH]
An instruction belongs to the branch when its inlining chain (innermost line first, as -gi prints it) passes through
the given call-site lines in that order (outermost first: the kernel's line that calls the early branch, then, if
given, calls inside it). Prints the kernel's instruction count; the branch's instructions, their distinct 128-byte
code lines and the address range holding most of them; and the branch's instructions grouped by the next line of
the chain below the given ones (a call or a statement of the innermost given function), with the address range of
each group, largest first."""
import re, sys, collections
lst, kern, path = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(',')]
ins, pend, prev_info, chain, inside = [], [], False, [], False
for l in open(lst):
    if re.match(r'\s*\.section\s+\.text\.', l):
        inside = ('.text.%s,' % kern) in l
        continue
    if not inside: continue
    if '//##' in l:
        if not prev_info: pend = []
        pend.append([int(x) for x in re.findall(r'line (\d+)', l)])
        prev_info = True
        continue
    m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);', l)
    if m:
        if prev_info:
            ch = []
            for e in pend:
                for x in e:
                    if not ch or ch[-1] != x: ch.append(x)
            chain = ch
        prev_info = False
        ins.append((int(m.group(1), 16), chain))
def sub(ch):
    rc = list(reversed(ch))
    if path[0] not in rc: return None
    i = rc.index(path[0])
    if rc[i:i + len(path)] != path: return None
    rest = rc[i + len(path):]
    return rest[0] if rest else 'self'
cnt, lo, hi, addrs = collections.Counter(), {}, {}, []
for a, ch in ins:
    k = sub(ch)
    if k is None: continue
    addrs.append(a)
    cnt[k] += 1; lo[k] = min(lo.get(k, a), a); hi[k] = max(hi.get(k, a), a)
print('kernel %s: %d instructions (%d bytes)' % (kern, len(ins), 16 * len(ins)))
if not addrs: sys.exit(0)
spans, cur = [], None
for a in sorted(addrs):
    if cur and a - cur[1] <= 256: cur[1] = a; cur[2] += 1
    else: cur = [a, a, 1]; spans.append(cur)
big = max(spans, key=lambda s: s[2])
print('branch %s: %d instructions, %d distinct 128-byte lines; %d of them in 0x%x..0x%x (%d bytes), the rest in %d other spans'
      % (sys.argv[3], len(addrs), len(set(a // 128 for a in addrs)), big[2], big[0], big[1] + 16, big[1] + 16 - big[0],
         len(spans) - 1))
for k, v in sorted(cnt.items(), key=lambda x: -x[1])[:int(sys.argv[4]) if len(sys.argv) > 4 else 12]:
    print('  line %s: %d instructions, 0x%x..0x%x' % (k, v, lo[k], hi[k] + 16))
