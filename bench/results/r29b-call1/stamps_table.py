# Round 29B: the stamps' K2or lines of a call as a table (one line a variant, shape and B)
import re, sys
cur = None; rows = []
for line in open(sys.argv[1]):
    m = re.match(r'== stamps, full (\S+) V=\d+ \((\S+):', line)
    if m: var = m.group(2); continue
    m = re.match(r'stamps full (\S+) B=(\d+)', line)
    if m: cur = {'v': var, 'shape': m.group(1), 'B': int(m.group(2))}; rows.append(cur); continue
    if cur is None: continue
    m = re.match(r'\s+(K2 out|K2 scan|K2 first|K4 drawn)\s+([-\d.]+)\s+([-\d.]+)', line)
    if m: cur[m.group(1)] = (float(m.group(2)), float(m.group(3))); continue
    m = re.search(r"a row's exit spread ([\d.]+) us \(scan ends ([\d.]+)\); the latest chunk the same as the step before: (\d+)% of rows \(chance (\d+)%\)", line)
    if m: cur.update(rsp=m.group(1), rss=m.group(2), same=m.group(3) + '/' + m.group(4)); continue
    m = re.search(r"variance ([\d.]+) us\^2: between chunks g (\d+)%, between SMs \(per step\) (\d+)%; corr with staged tokens ([-\d.]+), with entry ([-\d.]+); entry-to-scan-end mean ([\d.]+)", line)
    if m: cur.update(var=m.group(1), pg=m.group(2), psm=m.group(3), crn=m.group(4), cin=m.group(5), dur=m.group(6)); continue
    m = re.search(r"between rows: the rows' mean exits spread ([\d.]+) us \(max - min, a step\), sd ([\d.]+); corr with the row's mean entry ([-\d.]+), with r ([-\d.]+); within rows: sd ([\d.]+)", line)
    if m: cur.update(brs=m.group(1), brsd=m.group(2), brin=m.group(3), brr=m.group(4), wsd=m.group(5)); continue
    m = re.search(r"by blocks on its SM: lateness \(blocks, latest of its row %\): 3:([-+\d.]+)\(\d+, \d+%\) 4:([-+\d.]+)", line)
    if m: cur.update(sm3=m.group(1), sm4=m.group(2)); continue
    m = re.search(r"by rank of entry on its SM: lateness: 0:([-+\d.]+) 1:([-+\d.]+) 2:([-+\d.]+) 3:([-+\d.]+)", line)
    if m: cur.update(rk0=m.group(1), rk3=m.group(4)); continue
    m = re.search(r"by chunk g: lateness \(latest of its row, % of rows\): (.*)", line)
    if m:
        it = re.findall(r'(\d+):([-+\d.]+)\((\d+)%\)', m.group(1))
        hi = max(it, key=lambda t: float(t[1])); lo = min(it, key=lambda t: float(t[1]))
        cur.update(gmax=f"g{hi[0]} {hi[1]} ({hi[2]}%)", gmin=f"g{lo[0]} {lo[1]}")
def f(c, k): return c.get(k, '-')
def se(c, k): return f"{c[k][0]:.2f}-{c[k][1]:.2f}" if k in c else '-'
print("| variant | shape | B | K2 first | K2 scan end | K2 out | K4 drawn (latest) | a row's exit spread (scan ends) | "
      "entry to scan end (mean) | lateness var (us^2): g / SM shares | corr staged | latest chunk again / chance (%) | "
      "3-block / 4-block SM | entry rank 0 / 3 | chunk latest, earliest | between rows: mean exits spread, sd |")
print("|" + "---|" * 16)
for c in rows:
    print(f"| {c['v']} | {c['shape']} | {c['B']} | {se(c,'K2 first')} | {se(c,'K2 scan')} | {se(c,'K2 out')} | "
          f"{c['K4 drawn'][1]:.2f} | {f(c,'rsp')} ({f(c,'rss')}) | {f(c,'dur')} | {f(c,'var')}: {f(c,'pg')}% / {f(c,'psm')}% | "
          f"{f(c,'crn')} | {f(c,'same')} | {f(c,'sm3')} / {f(c,'sm4')} | {f(c,'rk0')} / {f(c,'rk3')} | {f(c,'gmax')}, {f(c,'gmin')} | "
          f"{f(c,'brs')}, {f(c,'brsd')} |")
