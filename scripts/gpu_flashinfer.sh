#!/usr/bin/env bash
# scripts/gpu_flashinfer.sh: on a lent GPU, our CUDA sampler and FlashInfer timed side by side on the
# same rotated device buffers (issue 4's flashinfer_us column, measured live).
#
# Needs FlashInfer's headers in third_party/flashinfer/include: run scripts/get_flashinfer.sh on a
# machine with the wheel or PyPI, then carry that folder to the GPU machine, e.g. the device tool's
#   run(command="scripts/gpu_flashinfer.sh", carry=["third_party/flashinfer"])
# Builds build-gpu-fi (sm_90, ms_bench_cuda only: no cJSON, tests or programs needed there), runs the
# ANCHORS.md sizes (flat and peaked, B 1/16/64/256, V 151936 and 262144, both bench settings) with
# --json, and writes to $OUT (or ./gpu-out): machine.txt, build_fi.log, bench_fi.jsonl (one line per
# configuration, written as it goes, so a timeout keeps what finished), bench_fi.err, bench_fi.md
# (the table). Extra arguments go to ms_bench_cuda (e.g. --no-baseline to skip the CPU token check,
# --batch 64 --vocab 151936 for one size). BENCH_T (default 280; build + bench stay under the run limit of 600 s) bounds the bench in seconds.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
FI_INC=$PWD/third_party/flashinfer/include

if [ -z "${FI_BIN:-}" ] && [ ! -f "$FI_INC/flashinfer/sampling.cuh" ]; then
  echo "gpu_flashinfer: no $FI_INC/flashinfer/sampling.cuh: run scripts/get_flashinfer.sh first and carry" \
       "third_party/flashinfer (run(..., carry=[\"third_party/flashinfer\"]))" >&2
  exit 2
fi
head -1 "$FI_INC/../VERSION" 2>/dev/null | tee "$OUT/flashinfer_version.txt"

log "machine"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1
  nvcc --version | tail -1
  git rev-parse HEAD 2>/dev/null
  git status --short -- programs cmake scripts 2>/dev/null | head -20
  date -u
} | tee "$OUT/machine.txt"

log "build (build-gpu-fi)"
# Round 11: FI_BIN=path runs a FlashInfer-enabled ms_bench_cuda built elsewhere (carried) instead of building here
if [ -n "${FI_BIN:-}" ]; then
  mkdir -p build-gpu-fi && cp "$FI_BIN" build-gpu-fi/ms_bench_cuda && chmod +x build-gpu-fi/ms_bench_cuda
  echo "FlashInfer (carried binary $FI_BIN) timed in the CUDA bench" >"$OUT/build_fi.log"
  rc=0
else
timeout 100 cmake -S . -B build-gpu-fi -DCMAKE_BUILD_TYPE=Release -DMSAMPLER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMSAMPLER_PROGRAMS=OFF -DMSAMPLER_TESTS=OFF -DMSAMPLER_FLASHINFER_INCLUDE="$FI_INC" >"$OUT/build_fi.log" 2>&1 &&
  timeout 200 cmake --build build-gpu-fi -j"${JOBS:-$(nproc)}" --target ms_bench_cuda >>"$OUT/build_fi.log" 2>&1
rc=$?
fi
tail -3 "$OUT/build_fi.log"
if [ $rc -ne 0 ]; then
  echo "gpu_flashinfer: build failed (exit $rc; 124 = timed out); the errors:" >&2
  grep -iE "error|fatal" "$OUT/build_fi.log" | head -30 >&2
  exit 1
fi
if ! grep -q "FlashInfer .* timed in the CUDA bench" "$OUT/build_fi.log"; then
  echo "gpu_flashinfer: CMake did not configure FlashInfer in (see build_fi.log)" >&2
  exit 1
fi

log "bench (ours and FlashInfer on the same buffers)"
args=(--vocab 151936,262144 --batch 1,16,64,256 --shape both --setting both)
[ $# -gt 0 ] && args=("$@")
timeout "${BENCH_T:-280}" build-gpu-fi/ms_bench_cuda --json "${args[@]}" >"$OUT/bench_fi.jsonl" 2>"$OUT/bench_fi.err"
brc=$?
echo "   ms_bench_cuda exit $brc (124 = timed out: the lines written so far are kept)"
grep -v '^$' "$OUT/bench_fi.err" | head -20

log "table"
python3 - "$OUT/bench_fi.jsonl" >"$OUT/bench_fi.md" <<'EOF' || cp "$OUT/bench_fi.jsonl" "$OUT/bench_fi.md"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
fi0 = next((r["flashinfer"] for r in rows if r.get("flashinfer")), {}) or {}
print("FlashInfer %s (%s); copy bandwidth %s GB/s; times: medians in us per step, inputs rotated out of L2."
      % (fi0.get("version", "?"), fi0.get("how", "?"), rows[0]["copy_bw_gbs"] if rows else "?"))
print("full: ours = presence penalty, T 0.7, min-p 0.05, top-k 50, top-p 0.9; FlashInfer = softmax(T 0.7) + top-k 50/top-p 0.9.")
print("top-p: ours = T 0.7, top-p 0.9; FlashInfer = softmax(T 0.7) + top-p 0.9. Deterministic mode.\n")
print("| setting | shape | B | V | ours | floor | ours/floor | our tokens = CPU ref | FlashInfer | FI softmax alone | FI tokens ok | FI CTAs/row | FI / ours |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    f = r.get("flashinfer") or {}
    fu = f.get("us")
    print("| %s | %s | %d | %d | %.1f | %.1f | %.2f | %s (%d rows) | %s | %s | %s | %s | %s |" % (
        r["setting"], r["shape"], r["batch"], r["vocab"], r["us_per_step"], r["floor_us"], r["ratio"],
        "yes" if r["tokens_match"] else "NO", r["tokens_checked"],
        "%.1f" % fu if fu is not None else "-",
        "%.1f" % f["softmax_us"] if "softmax_us" in f else "-",
        "%d/%d" % (f["tokens_ok"], f["tokens_checked"]) if "tokens_ok" in f else "-",
        max(1, f["sampler_cluster"]) if "sampler_cluster" in f else "-",
        "%.1f" % (fu / r["us_per_step"]) if fu else "-"))
EOF
cat "$OUT/bench_fi.md"
log "done"
exit $brc
