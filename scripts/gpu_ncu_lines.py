#!/usr/bin/env python3
"""scripts/gpu_ncu_lines.py: the hot source lines of one kernel from `ncu -i REP --page source --print-source
cuda,sass --csv` (round 5): warp-stall samples and executed instructions summed per CUDA source line,
the top N lines with their text. Usage: gpu_ncu_lines.py FILE.csv [N]"""
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
fname, hdr, line, text = "?", None, None, {}
stall, inst, cuda_stall, cuda_inst = collections.Counter(), collections.Counter(), {}, {}
total = 0
for r in rows:
    if len(r) == 2 and r[0] in ("File Path", "File Name"):
        fname = r[1].split("/")[-1]; continue
    if r and r[0] == "Line No":
        hdr = r; continue
    if not hdr or len(r) < 5: continue
    d = dict(zip(hdr[:2], r[:2]))
    rest = r[2:]
    h2 = hdr[2:]
    def get(name):
        for i, h in enumerate(h2):
            if h == name and i < len(rest):
                try: return float(rest[i] or 0)
                except ValueError: return 0.0
        return 0.0
    if r[0].strip():
        line = (fname, int(r[0])) if r[0].strip().isdigit() else line
        if line: text[line] = r[1].strip()[:110]
        v = get("Warp Stall Sampling (All Samples)")
        if line and v: cuda_stall[line] = cuda_stall.get(line, 0) + v; cuda_inst[line] = cuda_inst.get(line, 0) + get("Instructions Executed")
    elif line:
        v = get("Warp Stall Sampling (All Samples)")
        stall[line] += v; inst[line] += get("Instructions Executed")
src = cuda_stall if cuda_stall else stall
ins = cuda_inst if cuda_stall else inst
total = sum(src.values()) or 1
print(f"stall samples {total:.0f} ({'per CUDA line' if cuda_stall else 'SASS summed per line'}); top {top} lines:")
print(" share  samples  instr  file:line  source")
for ln, v in sorted(src.items(), key=lambda kv: -kv[1])[:top]:
    print(f"{100*v/total:5.1f}% {v:8.0f} {ins.get(ln,0):7.0f}  {ln[0]}:{ln[1]}  {text.get(ln,'')}")
