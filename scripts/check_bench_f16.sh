#!/usr/bin/env bash
# scripts/check_bench_f16.sh: checks ms_bench_cuda's --dtype f16 conversion (bc_f16 in programs/ms_bench_cuda.c, the
# bench's values rounded to IEEE binary16 to nearest even) against the C compiler's own float -> _Float16 conversion,
# on every STEP-th 32-bit pattern of a finite float (STEP default 7: ~611 million values, ~10 s). Needs a gcc or clang
# with _Float16 on x86-64 (gcc >= 12). Not part of CI: the bench is a measuring tool, and this is its check.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  printf '#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n'
  sed -n '/^static uint16_t bc_f16(float f) {/,/^}/p' programs/ms_bench_cuda.c
  cat <<'C'
int main(void) {
    unsigned long long bad = 0, n = 0;
    for (uint64_t u = 0; u < 0x100000000ull; u += STEP) {
        const uint32_t x = (uint32_t)u;
        if ((x & 0x7fffffffu) >= 0x7f800000u) continue; /* inf, NaN */
        float f;
        memcpy(&f, &x, 4);
        const _Float16 h = (_Float16)f;
        uint16_t r;
        memcpy(&r, &h, 2);
        n++;
        if (r != bc_f16(f) && bad++ < 5) printf("%08x: compiler %04x, bc_f16 %04x\n", x, r, bc_f16(f));
    }
    printf("bc_f16: %llu finite floats checked, %llu differ from _Float16\n", n, bad);
    return bad != 0;
}
C
} > "$tmp/f16.c"
${CC:-cc} -O2 -DSTEP=${STEP:-7} -o "$tmp/f16" "$tmp/f16.c"
"$tmp/f16"
