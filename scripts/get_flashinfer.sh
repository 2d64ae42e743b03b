#!/usr/bin/env bash
# scripts/get_flashinfer.sh: FlashInfer's CUDA sampling headers for the side-by-side column of
# `ms_bench_cuda` / `msample bench --backend cuda` (issue 4). Not used by the default build or CI.
#
# Takes the flashinfer-python wheel from PyPI (pure Python + its CUDA sources, no torch needed to
# unpack it) and extracts only flashinfer/sampling.cuh and the project headers it includes
# transitively ("..." includes, followed here) into third_party/flashinfer/include (git-ignored,
# well under 1 MB, so it can be carried to the GPU machine). System headers (CUDA, CUB, libcu++)
# come from the toolkit there.
#
# Usage: scripts/get_flashinfer.sh [WHEEL_FILE]
#   FLASHINFER_VERSION (default 0.7.4) picks the version pip downloads when no wheel is given;
#   a wheel already in .whl/ or /tmp/fiw/ of that version is used without the network.
set -euo pipefail
cd "$(dirname "$0")/.."
ver=${FLASHINFER_VERSION:-0.7.4}
dest=third_party/flashinfer/include

wheel=${1:-}
if [ -z "$wheel" ]; then
  for d in .whl /tmp/fiw; do
    if [ -f "$d/flashinfer_python-$ver-py3-none-any.whl" ]; then
      wheel="$d/flashinfer_python-$ver-py3-none-any.whl"
      break
    fi
  done
fi
if [ -z "$wheel" ]; then
  mkdir -p .whl
  echo "get_flashinfer: downloading flashinfer-python==$ver from PyPI into .whl/"
  if ! python3 -m pip download --no-deps --only-binary=:all: -d .whl "flashinfer-python==$ver" >&2; then
    echo "get_flashinfer: pip download failed (network? version?); pass a wheel file instead" >&2
    exit 1
  fi
  wheel=.whl/flashinfer_python-$ver-py3-none-any.whl
fi
[ -f "$wheel" ] || { echo "get_flashinfer: no wheel at $wheel" >&2; exit 1; }

rm -rf third_party/flashinfer
mkdir -p "$dest"
python3 - "$wheel" "$dest" <<'EOF'
import re, sys, zipfile, os
wheel, dest = sys.argv[1], sys.argv[2]
prefix = "flashinfer/data/include/"
z = zipfile.ZipFile(wheel)
names = set(z.namelist())
version = "?"
for n in names:
    if n.endswith(".dist-info/METADATA"):
        for line in z.read(n).decode("utf-8", "replace").splitlines():
            if line.startswith("Version:"):
                version = line.split(":", 1)[1].strip()
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
todo, done = ["flashinfer/sampling.cuh"], []
while todo:
    rel = todo.pop()
    if rel in done:
        continue
    if prefix + rel not in names:
        sys.exit("get_flashinfer: %s is not in the wheel" % (prefix + rel))
    done.append(rel)
    text = z.read(prefix + rel).decode("utf-8")
    base = os.path.dirname(rel)
    for q in inc.findall(text):
        # quoted includes resolve next to the including file first, then from the include root
        cand = os.path.normpath(os.path.join(base, q))
        todo.append(cand if prefix + cand in names else q)
total = 0
for rel in sorted(done):
    data = z.read(prefix + rel)
    os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
    with open(os.path.join(dest, rel), "wb") as f:
        f.write(data)
    total += len(data)
with open(os.path.join(dest, "..", "VERSION"), "w") as f:
    f.write("flashinfer-python %s (%s)\n%s\n" % (version, os.path.basename(wheel), "\n".join(sorted(done))))
print("get_flashinfer: flashinfer-python %s: %d headers, %.0f KB in %s" % (version, len(done), total / 1024, dest))
EOF
du -sh third_party/flashinfer
