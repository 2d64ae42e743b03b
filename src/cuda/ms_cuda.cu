/*
 * ms_cuda.cu: the CUDA backend (issue 4). SPEC section 2 under section 3 on the device, bit-identical
 * to the CPU reference (src/ms_cpu_ref.c): every number comes from src/ms_math.h, compiled here
 * with --fmad=false.
 *
 * Why the design (docs/cuda.md has the details and the measurements):
 *  - Every filter of SPEC 2.4 is, after min-p's element-wise mask S0, a lower bound on the key of y
 *    (the order-preserving 32-bit image of the fp32 value, -0 folded into +0): top-k keeps y >= the
 *    k-th largest survivor, top-p keeps y >= the lowest value whose mass strictly above is < p*M, and
 *    top_p_min_keep is a top-k. So a row's kept set is S0 and key >= one threshold, and a threshold is
 *    found exactly by a radix descent over histograms of counts and 2^40 fixed-point masses, which
 *    add exactly in any order: many blocks can share a row.
 *  - K1 (many blocks per row): the row's max y (and the greedy argmax) by atomicMax on keys.
 *    K2 (many blocks per row): for "lite" rows (min-p and a top-k <= 2048, the usual full setting)
 *    each block appends its chunk's top-k of the min-p survivors S0 to the row's candidates and adds
 *    S0's mass (ms_cu_lite_k says why that is exact); for other rows an 11-bit histogram of S0's keys,
 *    whose last block finds the coarse bucket that bounds every kept token, and K3 gathers the
 *    survivors at or above it (at most MS_CU_CAND). K4 (one block per row): trims the candidates to
 *    their top-k (radix select), sorts, applies every filter as a prefix of that order, the floor and
 *    the draw; one warp alone when at most 64 are left. Rows without top-k/top-p, and rows whose
 *    candidates do not fit, take exact radix descents over the whole row in K4 (slow, always right).
 *  - No host synchronisation and no allocation in sample/commit: graph-capturable.
 */
/* The warp reductions (__reduce_*_sync) and the rest of the kernels need sm_80 or newer; the build
 * targets sm_90 (CMakeLists.txt) unless CMAKE_CUDA_ARCHITECTURES says otherwise. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "msampler's CUDA kernels need sm_80 or newer: configure with -DCMAKE_CUDA_ARCHITECTURES=90"
#endif

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Round 14: the one-read path for lite rows (rounds 13-14; docs/cuda.md) is built by default and taken in steps
 * whose logits exceed L2 (ms_cu_launch); -DMS_CU_NO_ONEREAD builds without it (the kernels as before round 13). */
#if !defined(MS_CU_NO_ONEREAD) && !defined(MS_CU_ONEREAD)
#  define MS_CU_ONEREAD
#endif
/* Tenth session: the one-read pass's top-k' bins are bins of x, not of y = fl(x / T), so that counting a staged token
 * needs no division (ms_cu_or_tkcut; H200, full setting V=151936: flat B=96 / 128 / 256 2.3 / 3.5 / 5.5 us faster,
 * peaked level to 1.4, bf16 B=96 / 128 2.4 / 4.9 flat). -DMS_CU_OR_YBINS: round 14's bins of y. */
#if !defined(MS_CU_OR_YBINS) && !defined(MS_CU_OR_XBINS)
#  define MS_CU_OR_XBINS
#endif
/* Round 15B (docs/cuda.md): K3 stays a kernel of its own, and its blocks of rows it has no work for (lite, greedy,
 * unfiltered) return without waiting for K2 (MS_CU_K3_NOWAIT, the default: the full setting 0.1-2.9 us faster, top-p
 * alone level, H200). -DMS_CU_K3_WAIT_ALL: every K3 block waits, as before round 15B. -DMS_CU_K3_IN_K2: K3's gather
 * inside K2 (four launches, ms_cu_k2_k3; exact, but top-p alone 1.4-104 us slower: not kept). Internally
 * MS_CU_K3_KERNEL means K3 is launched. */
#if !defined(MS_CU_K3_IN_K2)
#  ifndef MS_CU_K3_KERNEL
#    define MS_CU_K3_KERNEL
#  endif
#  if !defined(MS_CU_K3_WAIT_ALL) && !defined(MS_CU_K3_NOWAIT)
#    define MS_CU_K3_NOWAIT
#  endif
#endif
/* Round 16B, on since the eleventh session's final call (docs/cuda.md, docs/decisions.md): K2's lean tail after the scan
 * (MS_CU_K2_TAIL: 2 barriers instead of 6 for chunks of at most k' survivors) and K4's warm-up pass before its PDL
 * wait in steps of at most two K1..K3 blocks a multiprocessor (MS_CU_K4_WARM). The full setting gained at every B
 * (B=1 flat 22.1 -> 19.6 us), top-p alone lost 1-2 % at B >= 16 (K2's spills). -DMS_CU_NO_K2_TAIL and
 * -DMS_CU_NO_K4_WARM build without them. */
#if !defined(MS_CU_NO_K2_TAIL) && !defined(MS_CU_K2_TAIL)
#  define MS_CU_K2_TAIL
#endif
#if !defined(MS_CU_NO_K4_WARM) && !defined(MS_CU_K4_WARM)
#  define MS_CU_K4_WARM
#endif
/* Round 21C's own warm-up kernel, on since round 23A (docs/cuda.md, docs/decisions.md): in the warm-up steps (a.k4warm:
 * B=1 at V=151936 on the H200) K4 is ms_cu_k4w, whose dry pass runs the list and the finish's phases in groups of warps
 * at once (MS_CU_K4_PWOWN, with round 21C's MS_CU_K4_PWARM code), and K3 is ms_cu_k3<true> (round 20C's B0LATE:
 * MS_CU_K3W_B0LATE); the other steps run the kernels as before. H200, full setting V=151936, B=1: fp32 flat -0.16 /
 * -0.23 us, peaked -0.83 / -0.35, bf16 flat -0.29 / -0.48, peaked -0.93 / -0.58 (two runs; the sixteenth session's final
 * call: -0.33 / -0.66 fp32); the same kernels as before at B >= 2. Racecheck clean since 4b390a3's mend (round 23A's
 * call). -DMS_CU_NO_K4_PWOWN and -DMS_CU_NO_K3W_B0LATE build without them. */
#if !defined(MS_CU_NO_K4_PWOWN) && !defined(MS_CU_K4_PWOWN) && defined(MS_CU_K4_WARM)
#  define MS_CU_K4_PWOWN
#endif
#if !defined(MS_CU_NO_K3W_B0LATE) && !defined(MS_CU_K3W_B0LATE) && defined(MS_CU_K4_WARM)
#  define MS_CU_K3W_B0LATE
#endif
/* Round 25A (MS_CU_K3W_K2, on: defined below MS_CU_K4_TWO, where its prerequisites are known): in the warm-up steps (those that launch ms_cu_k4w) no K3: K2's grid has n G more
 * blocks, which do K3's work for their row's chunk once K2's last block of the row published its mode (a flag, with a
 * time bound, as round 15B's gather in K2), so that K4w waits on K2's grid directly (ms_cu_k2_k3w). -DMS_CU_K3W_K2=2:
 * in every step of K2's plain instantiation (no one-read path, no ring). Needs the defaults named at its check (below
 * MS_CU_K4_TWO). With it, ms_cu_k3<true> (MS_CU_K3W_B0LATE) runs only in warm-up steps where the tests' hooks force the
 * ring or the one-read path (a.k3w 0), or with -DMS_CU_NO_K3W_K2. Round 26D, -DMS_CU_K3W_K2=3: =2's steps (every
 * plain-K2 step) and the one-read steps without the ring or K4L / K4R (K2or = ms_cu_k2<true, false, true, true> with the n G blocks; the
 * k3done check in ms_cu_k4<true>; B=28..66 at fp32 V=151936 on the H200). Off: exact (all 16 CUDA tests), top-p alone
 * B=64 2.3-7.0 us faster, but the full setting's peaked B=48 / 64 0.4-0.5 us slower (K2or's spills rise with the
 * inlined gather; bench/results/cuda_h200_2026-12-01-round26d.md). */
/* Round 17C, on since its call (docs/cuda.md, docs/decisions.md): with the resource's own workspace (ms_sample,
 * ms_cuda_sample_rows with workspace NULL) no K0; the stats start zero and each step's K4 leaves its rows' zero
 * (MS_CU_K4_ZERO; H200, full setting V=151936: 0.3-1.1 us a step faster at B=1..256; validated). A caller's
 * workspace keeps K0. -DMS_CU_NO_K4_ZERO: K0 in every step, as before. */
#if !defined(MS_CU_NO_K4_ZERO) && !defined(MS_CU_K4_ZERO)
#  define MS_CU_K4_ZERO
#endif
/* Twelfth session's final call (docs/cuda.md, docs/decisions.md): round 17A's histogram pass in two copies
 * (MS_CU_K2_HSPLIT: top-p alone 4-16 % faster at B >= 16, the full setting level to +1 us) and round 17B's K4 for
 * the lite steps (MS_CU_K4_R17_LITE with EARLYLD, LIST1, TSEL and a prefetch of 6: full setting flat B=1..16 1.3-2.2
 * us faster; the one-read steps' K4 unchanged). -DMS_CU_NO_K2_HSPLIT and -DMS_CU_NO_K4_R17 build without them. */
#if !defined(MS_CU_NO_K2_HSPLIT) && !defined(MS_CU_K2_HSPLIT)
#  define MS_CU_K2_HSPLIT
#endif
#ifndef MS_CU_NO_K4_R17
#  ifndef MS_CU_K4_R17_LITE
#    define MS_CU_K4_R17_LITE
#  endif
#  ifndef MS_CU_K4_EARLYLD
#    define MS_CU_K4_EARLYLD
#  endif
#  ifndef MS_CU_K4_LIST1
#    define MS_CU_K4_LIST1
#  endif
#  ifndef MS_CU_K4_TSEL
#    define MS_CU_K4_TSEL
#  endif
#  ifndef MS_CU_K4_PF
#    define MS_CU_K4_PF 6
#  endif
#endif
/* Thirteenth session (docs/cuda.md, docs/decisions.md): round 17E's early-ending select in the one-read steps' K4
 * too (MS_CU_K4_TSEL_OR; H200, full setting V=151936 flat B=52 / 64 / 128 / 256 1.4 / 1.7 / 1.5 / 2.6 us faster,
 * peaked level; validated: all 16 CUDA tests, memcheck, racecheck). -DMS_CU_NO_K4_TSEL_OR builds without it. */
#if !defined(MS_CU_NO_K4_TSEL_OR) && !defined(MS_CU_NO_K4_R17) && !defined(MS_CU_K4_TSEL_OR)
#  define MS_CU_K4_TSEL_OR
#endif
/* Round 25B (docs/cuda.md, docs/decisions.md), on: the one-read path from 1/4 of L2 (MS_CU_OR_L2Q 1, a host rule:
 * B >= 28 at V=151936 fp32; full setting B=28..48 0.9-3.5 us faster; all 16 CUDA tests on its binary).
 * -DMS_CU_NO_OR_QUARTER builds the rule of rounds 16A-24 (1/2 of L2); -DMS_CU_OR_L2Q=n sets any quarter. */
#if !defined(MS_CU_NO_OR_QUARTER) && !defined(MS_CU_OR_L2Q)
#  define MS_CU_OR_L2Q 1
#endif
/* Eighteenth session's final call (docs/cuda.md, docs/decisions.md), on: round 25B's chunk bound on the rule
 * (MS_CU_OR_GMAX 18: the one-read path only with at most 18 chunks a row, so V=262144 B=17..27, whose flat rows lost
 * on it with 22-31 chunks, keep the two-pass path as before round 25B; V=151936 keeps B >= 28). Host only.
 * -DMS_CU_NO_OR_GMAX builds without it. */
#if !defined(MS_CU_NO_OR_GMAX) && !defined(MS_CU_NO_OR_QUARTER) && !defined(MS_CU_OR_GMAX)
#  define MS_CU_OR_GMAX 18
#endif
/* Twenty-ninth session's final calls (docs/cuda.md, docs/decisions.md), on: round 37C's one-read path at the two-pass
 * steps of at most 24 chunks a row (B=22..27 at V=151936 and 262144 on 132 multiprocessors), in 18 chunks a row, only
 * while every resident request would be a lite one-read row (MS_CU_OR_SMALLB 24; host only; full setting peaked
 * B=22..27 1.1-1.9 us faster, top-p alone keeps its two-pass step; 22, B=23..27, in the session's first validation,
 * then 24 in its last call). -DMS_CU_NO_OR_SMALLB builds without it. */
#if !defined(MS_CU_NO_OR_SMALLB) && defined(MS_CU_OR_GMAX) && !defined(MS_CU_OR_SMALLB)
#  define MS_CU_OR_SMALLB 24
#endif
/* Eighteenth session's final call (docs/cuda.md, docs/decisions.md), on: round 25C's branch-free tokens in K3's lean
 * BAND segment loop (MS_CU_K3_BF; H200 top-p alone flat B=64 / 256 -1.5 / -17.8 us, the full setting level).
 * -DMS_CU_NO_K3_BF builds without it. */
#if !defined(MS_CU_NO_K3_BF) && !defined(MS_CU_K3_BF)
#  define MS_CU_K3_BF
#endif
/* Nineteenth session's final call (docs/cuda.md, docs/decisions.md), on: round 27C's FAST gather in K3 with BAND's
 * pre-filter on x (MS_CU_K3_FASTX) and, for rows without penalties, its lean loop with 4 groups in flight a thread, a
 * group skipped on its raw max (MS_CU_K3_FASTL; H200 top-p alone peaked B=64 / 256 -27.0 / -91.3 us, flat level).
 * -DMS_CU_NO_K3_FASTX builds without both, -DMS_CU_NO_K3_FASTL without the lean loop. */
#if !defined(MS_CU_NO_K3_FASTX) && !defined(MS_CU_K3_FASTX)
#  define MS_CU_K3_FASTX
#endif
#if defined(MS_CU_K3_FASTX) && !defined(MS_CU_NO_K3_FASTL) && !defined(MS_CU_K3_FASTL)
#  define MS_CU_K3_FASTL
#endif
/* Round 18A (docs/cuda.md, docs/decisions.md), on: the one-read K2 with its four changes (MS_CU_OR_EARLY, the
 * one-read rows' branch before K2's general set-up; MS_CU_OR_CNT1, the tests' flag loaded once; MS_CU_OR_F32, an fp32
 * copy of the pass; MS_CU_OR_TAIL, chunks of at most k' tokens of C listed without compaction). H200, full setting
 * V=151936 fp32, two runs each: B=64 flat 46.69 -> 44.78 us, peaked 36.50 -> 31.70; B=52..256 flat 1.9-4.7 us, peaked
 * 3.5-7.2 us faster; top-p alone level;
 * exact: all 16 CUDA tests and memcheck on round 18A's binary, and all 16, memcheck and racecheck on the thirteenth
 * session's final binary, which has them (bench/results/cuda_h200_2026-12-01-session13-final.md).
 * -DMS_CU_NO_OR_R18 builds without them. */
#ifndef MS_CU_NO_OR_R18
#  ifndef MS_CU_OR_EARLY
#    define MS_CU_OR_EARLY
#  endif
#  ifndef MS_CU_OR_CNT1
#    define MS_CU_OR_CNT1
#  endif
#  ifndef MS_CU_OR_F32
#    define MS_CU_OR_F32
#  endif
#  ifndef MS_CU_OR_TAIL
#    define MS_CU_OR_TAIL
#  endif
#endif
/* Round 18C (docs/cuda.md, docs/decisions.md), on since the thirteenth session's final call: MS_CU_LITE_EARLY, the lite
 * rows' branch before K2's general set-up in the lite steps' K2 (ms_cu_k2_lite_early), and MS_CU_K1_EARLY, the same
 * for K1's non-greedy rows (ms_cu_k1_early). The same code on the same values in other places. H200, full setting
 * V=151936 fp32: B=1..32 0.1-0.8 us faster, B >= 64 and top-p alone level; validated on the final binary (all 16 CUDA
 * tests, memcheck, racecheck). -DMS_CU_NO_LITE_EARLY / -DMS_CU_NO_K1_EARLY build without them. Round 18B's
 * -DMS_CU_ROWFLAGS (off) counts only on the general paths, so it builds without both. */
#if !defined(MS_CU_NO_LITE_EARLY) && !defined(MS_CU_ROWFLAGS) && !defined(MS_CU_LITE_EARLY)
#  define MS_CU_LITE_EARLY
#endif
#if !defined(MS_CU_NO_K1_EARLY) && !defined(MS_CU_ROWFLAGS) && !defined(MS_CU_K1_EARLY)
#  define MS_CU_K1_EARLY
#endif
/* Round 18B (off; docs/cuda.md): per-row counters instead of whole-grid waits on the lite rows' critical path, with
 * the resource's own workspace (a.k4zero). MS_CU_ROWFLAGS turns on both halves: MS_CU_RF12 (K2's lite blocks wait
 * for their row's K1 blocks, k1n, instead of K1's grid) and MS_CU_RF24 (K4's lean rows wait for their row's K2
 * blocks, k2n, instead of K3's grid); -DMS_CU_NO_RF12 / -DMS_CU_NO_RF24 leave one out. The argument is at
 * ms_cu_rf_wait. Exact (both: all CUDA tests; RF24 alone: tests, memcheck, racecheck) but slower (H200, full setting
 * V=151936: both +0.8..+2.1 us at B=1..16; RF24 alone -0.4..+1.4 us, slower at most B): off. */
#ifdef MS_CU_ROWFLAGS
#  ifndef MS_CU_K4_ZERO
#    error "-DMS_CU_ROWFLAGS needs MS_CU_K4_ZERO: the counters are zero at a step's start only in the own workspace"
#  endif
#  if !defined(MS_CU_NO_RF12) && !defined(MS_CU_RF12)
#    define MS_CU_RF12
#  endif
#  if !defined(MS_CU_NO_RF24) && !defined(MS_CU_RF24)
#    define MS_CU_RF24
#  endif
#endif
#if (defined(MS_CU_RF12) || defined(MS_CU_RF24)) && !defined(MS_CU_RF)
#  define MS_CU_RF
#endif
/* Round 18D (docs/cuda.md, docs/decisions.md), on since the fourteenth session: MS_CU_OR_K2OWN launches the one-read
 * steps' K2 as a kernel of its own, K2or = ms_cu_k2<true, RG, true> (ms_cu_k2or_row). H200, full setting V=151936 fp32:
 * B=52..256 flat 2.6-5.2 us, peaked 2.3-4.6 us faster (bench/results/cuda_h200_2026-12-01-session14-first.md).
 * It builds on round 18A's MS_CU_OR_EARLY; not with round 18B's counters (it is then left out). -DMS_CU_NO_OR_K2OWN
 * builds without it. */
#if !defined(MS_CU_NO_OR_K2OWN) && !defined(MS_CU_OR_K2OWN) && defined(MS_CU_ONEREAD) && defined(MS_CU_OR_EARLY) && \
    !defined(MS_CU_RF)
#  define MS_CU_OR_K2OWN
#endif
#ifdef MS_CU_OR_K2OWN
#  if !defined(MS_CU_ONEREAD) || !defined(MS_CU_OR_EARLY) || defined(MS_CU_RF)
#    error "-DMS_CU_OR_K2OWN needs MS_CU_ONEREAD and MS_CU_OR_EARLY (the defaults) and no MS_CU_ROWFLAGS"
#  endif
#  ifndef MS_CU_K2OR_MINB
#    define MS_CU_K2OR_MINB MS_CU_K2_MINB
#  endif
#endif
/* Round 28C (-DMS_CU_OR_RF, off; docs/cuda.md): round 18B's RF24 in the one-read steps. With the resource's own workspace
 * (a.k4zero) each K2or block of a one-read row counts itself in the row's c_above (a word only BAND rows use; zero at a
 * step's start) after its last write of the row, and ms_cu_k4<true>'s blocks of such rows wait for that count to reach
 * a.G (ms_cu_rf_wait) instead of K3's grid. The argument is at ms_cu_rf_wait. Needs MS_CU_OR_K2OWN and MS_CU_K4_ZERO
 * (the defaults), not MS_CU_ROWFLAGS. Exact (all 16 CUDA tests on its binary) but not faster enough: H200, full setting
 * V=151936 fp32, two calls: flat B=28..96 0.1-0.55 us faster, B=128 +0.2..+0.45 (both shapes), peaked B=32 +0.36..+0.50
 * (bench/results/cuda_h200_2026-12-01-round28c.md): off. -DMS_CU_OR_RF_SC: the count as round 18B's fence and atomicAdd
 * instead of a release reduction; -DMS_CU_RF_NS=0: the spin without back-off. */
/* Round 33C (-DMS_CU_OR_RFNR, off; docs/cuda.md): round 28C's count only in the one-read steps without K2's ring and
 * with ms_cu_k4<true> (a host flag, a.orf: the resource's own workspace, a.oneread, no ring, no K4L / K4R), and by
 * default without the back-off (MS_CU_RF_NS 0); every other step (the ring's: B=32 and B >= 106 at fp32 V=151936 on the
 * H200) keeps the grid chain, and its K2or blocks count nothing. Implies MS_CU_OR_RF. (At fp32 V=151936 the ring starts
 * only above B=132 since round 28B: the H200's B=28..132 are all such steps; bf16's one-read steps take the ring.)
 * Measured (bench/results/cuda_h200_2026-12-02-round33c.md, two calls, exact on 6 CUDA tests): flat B=28..96 0.18-0.65 us
 * faster, flat B=128 +0.2..+0.3, peaked B=28 / 32 +0.12..+0.37, peaked B=64 level: off. */
/* Round 33C (-DMS_CU_OR_RFST, with MS_CU_OR_RFNR; off): in those steps K4<true>'s thread 0, once its acquire saw the
 * row's count full, loads the stats' first 16 bytes (max key, ticket, cand_n, bound) itself and hands them to the block
 * in shared memory (ms_cu_rfst_sh) through the wait's own barrier; ms_cu_k4_lite then reads them there instead of
 * from L2 after the barrier (whose two dependent round trips, the max key then cand_n, came before the candidates').
 * Measured (round 33C, exact on 6 CUDA tests): peaked B=28..64 0.14-0.34 us slower than RFNR alone: off. */
#if defined(MS_CU_OR_RFST) && !defined(MS_CU_OR_RFNR)
#  error "-DMS_CU_OR_RFST needs -DMS_CU_OR_RFNR"
#endif
/* Round 33C (-DMS_CU_OR_RFK, off; implies MS_CU_OR_RFNR, excludes MS_CU_OR_RFST): RFNR's wait in a K4 kernel of its own,
 * ms_cu_k4rf (ms_cu_k4_row<true, false, true>), launched instead of ms_cu_k4<true> where a.orf, so that every other step
 * (the ring's: bf16; K4R) runs the default's ms_cu_k4<true>; a.orf at the end of ms_cu_args (RFNR alone, as measured in
 * the round's first call, had it before k3w, which moved the later fields' offsets in K4<false> and K4w). Measured
 * (round 33C, one call, exact on 6 CUDA tests): bf16 level, fp32 flat B=28..96 0.05-0.64 us faster, but flat B=128
 * +0.41 and peaked B=28..64 +0.21..+0.56: off. */
#ifdef MS_CU_OR_RFK
#  ifdef MS_CU_OR_RFST
#    error "-DMS_CU_OR_RFK is RFNR's wait alone"
#  endif
#  ifndef MS_CU_OR_RFNR
#    define MS_CU_OR_RFNR
#  endif
#endif
#ifdef MS_CU_OR_RFNR
#  ifndef MS_CU_OR_RF
#    define MS_CU_OR_RF
#  endif
#  ifndef MS_CU_RF_NS
#    define MS_CU_RF_NS 0
#  endif
#endif
#ifdef MS_CU_OR_RF
#  if !defined(MS_CU_OR_K2OWN) || !defined(MS_CU_K4_ZERO) || defined(MS_CU_RF)
#    error "-DMS_CU_OR_RF needs MS_CU_OR_K2OWN and MS_CU_K4_ZERO (the defaults) and no MS_CU_ROWFLAGS"
#  endif
#  if !defined(MS_CU_OR_RF_SC) && !defined(MS_CU_RF_REL)
#    define MS_CU_RF_REL /* the count as a release reduction (ms_cu_rf_done); -DMS_CU_OR_RF_SC: round 18B's fence */
#  endif
#endif
/* Round 19B (docs/cuda.md, docs/decisions.md), on (fourteenth session): MS_CU_OR_LEAN, the one-read pass
 * (ms_cu_k2_scan1) does a step's bookkeeping only when some lane's group passes the cut in force, and with the ring
 * its warps' whole steps load without per-group range tests. H200, full setting V=151936 fp32, two runs each: peaked
 * B=52 / 64 / 128 / 256 1.0 / 1.0 / 2.0 / 3.3 us faster, flat B=128 / 256 3.0 / 5.1, flat B=52 / 64 level (+0.15 /
 * +0.08); exact: all 16 CUDA tests on that binary (bench/results/cuda_h200_2026-12-01-round19b.md). -DMS_CU_NO_OR_LEAN
 * builds without it. */
#if !defined(MS_CU_NO_OR_LEAN) && !defined(MS_CU_OR_LEAN) && defined(MS_CU_ONEREAD)
#  define MS_CU_OR_LEAN
#endif
/* Round 34C (-DMS_CU_OR_LOOP2=1, =2 or =3, off; docs/cuda.md): the one-read pass's main loop (ms_cu_k2_scan1) in fewer
 * instructions a step. =1: the step between a thread's groups is the constant MS_CU_T123 x 4 tokens (K2 always runs
 * MS_CU_T123 threads a block: every launch and its __launch_bounds__) instead of blockDim.x x 4, so that a step's second
 * group's logits and seen word are immediate offsets of the first's address and its nibble shares the first's shift.
 * =2: also round 19B's whole-step loads (no per-group range tests, one nibble test for the step) without the ring, i.e.
 * in the one-wave K2or too. =3: also the whole steps' fp32 loads written as offsets of the first group's addresses and
 * one shift for the step's nibble test. The same values, maxima and tests as without it: see the comments in
 * ms_cu_k2_scan1. With any of them, MS_CU_ORRING=1 in the environment (a measurement knob, read at resource creation)
 * takes K2's ring in every step (as -DMS_CU_RING_MODE=1). */
#if defined(MS_CU_OR_PF1) && (!defined(MS_CU_OR_K2OWN) || !defined(MS_CU_ONEREAD) || defined(MS_CU_OR_DYN) || \
                              defined(MS_CU_OR_TAPER) || defined(MS_CU_OR_TRANSPOSE))
#  error "-DMS_CU_OR_PF1 (round 34C's prefetch of K2or's first steps) assumes the default K2or: its chunks as ms_cu_k2_one's"
#endif
/* Round 36C (-DMS_CU_OR_PEEL, off; docs/cuda.md): the ring-less fp32 K2or's first step of ms_cu_k2_scan1 loaded by
 * ms_cu_k2_one before its set-up (the shared zeroing, its barrier, the chunk's division, min-p's logf), once the row's
 * settings decided the path, into registers (ms_cu_orpre: the logits of groups t and t + step below the chunk's whole
 * groups' end tv, and their seen words), and the scan's loop peeled: its first iteration in a copy of its own (a phase
 * ph = 0 of an unrolled outer loop, as round 35A's =3) that takes those registers instead of loading, the loop from the
 * second iteration in its own copy, so the preload is dead after the first step. Round 35B's PRE1 (removed here; its
 * code in 954cb13) issued the same loads at the kernel's entry, before the slot's loads, which queued behind them, and
 * held them in registers across the whole loop (its first iteration a run-time flag): +1.3..+3.6 us. The same
 * addresses (t0, t1, tv, t and step as the scan computes them), and nothing in the step writes the logits or the seen
 * set: the same values, and the iterations run in the same order with the same state. */
/* Round 35B (-DMS_CU_OR_SPF, off; docs/cuda.md): the ring-less K2or's entry in the order the memory system serves it: the
 * row's slot index, then the whole slot's loads issued (the settings, not only its used word), then (fp32 steps) an L1
 * prefetch of the first step's logits (prefetch.global.L1, the groups ms_cu_k2_scan1's first iteration loads), then the
 * set-up from those slot values (ms_cu_k2or_row's qs) instead of a second dependent load after slot_ok's. Round 34C's
 * PF1 issued its prefetches before the slot's loads, which then queued behind them; PRE1 (round 35B; removed in round
 * 36C) held the first step in registers across the scan's loop (its liveness) and lost. The same slot values (nothing in the step writes the slots)
 * and cache hints only: exact by construction. =2: the slot's load order alone, without the prefetch (round 36C: full
 * setting level or better, but top-p alone fp32 B=64 +1.0 / +1.6 us: its rows take K2or's general body, where =2's
 * K2or has 28 / 13 more LDL / STL). =3 (round 36C): =2 with a compiler memory barrier at the general body's start in
 * the ring-less K2or, so that the body loads the slot again (ms_cu_row_setup) instead of keeping the entry's slot values
 * live into it: its K2or's SASS equals =2's, so not run (built, round 36C). */
/* -DMS_CU_OR_SPF_RT (with MS_CU_OR_SPF; a measurement build): SPF's order only where MS_CU_SPF in the environment at
 * resource creation is not 0 (default 1), so that one stamps binary times both orders. -DMS_CU_OR_ST35 (a stamps build):
 * K2or's thread 0 stamps events 36 (its row's settings arrived: after ms_cu_k2or_row's one-read decision) and 37 (past
 * ms_cu_k2_one's first barrier, before the scan's first step): events that only K4's warm-up (B <= 3) stamps otherwise. */
#ifdef MS_CU_OR_SPF_RT
#  define MS_CU_SPF_ON(a) ((a).spf != 0)
#else
#  define MS_CU_SPF_ON(a) true
#endif
#ifdef MS_CU_OR_SPF
#  if !defined(MS_CU_OR_K2OWN) || !defined(MS_CU_ONEREAD) || !defined(MS_CU_OR_EARLY) || defined(MS_CU_OR_DYN) || \
      defined(MS_CU_OR_TAPER) || defined(MS_CU_OR_TRANSPOSE) || defined(MS_CU_OR_PF1)
#    error "-DMS_CU_OR_SPF (round 35B) assumes the default K2or (its chunks as ms_cu_k2_one's), without PF1"
#  endif
#endif
#ifdef MS_CU_OR_PEEL
#  if !defined(MS_CU_OR_K2OWN) || !defined(MS_CU_ONEREAD) || !defined(MS_CU_OR_F32) || !defined(MS_CU_OR_EARLY) || \
      defined(MS_CU_OR_DYN) || defined(MS_CU_OR_TAPER) || defined(MS_CU_OR_TRANSPOSE) || defined(MS_CU_OR_LOOP2) || \
      defined(MS_CU_OR_ROWCUT) || defined(MS_CU_OR_RC2) || defined(MS_CU_OR_PF1) || !defined(MS_CU_OR_LEAN)
#    error "-DMS_CU_OR_PEEL (round 36C's peeled first step) assumes the default K2or: its chunks, loads and scan as ms_cu_k2_one's"
#  endif
#endif
#ifdef MS_CU_OR_LOOP2
#  if !defined(MS_CU_OR_LEAN) || !defined(MS_CU_ONEREAD)
#    error "-DMS_CU_OR_LOOP2 needs MS_CU_OR_LEAN and MS_CU_ONEREAD (the defaults)"
#  endif
#  if defined(MS_CU_OR_LEAN_NOWHOLE) && MS_CU_OR_LOOP2 >= 2
#    error "-DMS_CU_OR_LOOP2=2 is round 19B's whole-step loads without the ring: not with MS_CU_OR_LEAN_NOWHOLE"
#  endif
#endif
/* Round 23A (-DMS_CU_OR_FEW, off): the one-read path at B <= MS_CU_OR_FEWB (3), its rows in few large chunks. At small B
 * the grid's ~1024-token chunks keep the host's rule (a.oneread) off, so K2's lite scan waits for K1's row max (K1 ~2.4 us,
 * K2's PDL wait 1.3-1.9 us at B=1). With this switch those steps take the one-read path, and its rows (ms_cu_onread) use
 * only the first a.Go blocks of the row's a.G, each over a chunk of about MS_CU_OR_FEWCHUNK tokens (ms_cu_k2_one); the
 * row's other blocks return at once (after K2's PDL wait, as every block does), the grid and the other rows' chunks
 * stay a.G's. Exact for any a.Go (round 13: the path's argument does not depend on the chunk). ms__cuda_orfew sets the
 * chunk and the largest B at run time (measurements); the tests' ms__cuda_oneread threshold also bounds it. */
#ifdef MS_CU_OR_FEW
#  if !defined(MS_CU_ONEREAD) || !defined(MS_CU_OR_K2OWN)
#    error "-DMS_CU_OR_FEW needs MS_CU_ONEREAD and MS_CU_OR_K2OWN (the defaults)"
#  endif
#  ifndef MS_CU_OR_FEWCHUNK
#    define MS_CU_OR_FEWCHUNK 16384
#  endif
#  ifndef MS_CU_OR_FEWB
#    define MS_CU_OR_FEWB 3
#  endif
#  define MS_CU_ORG(a) ((a).Go) /* the one-read rows' chunks a row */
#else
#  define MS_CU_ORG(a) ((a).G)
#endif
/* Round 20A (docs/cuda.md, docs/decisions.md): MS_CU_OR_WSTAGE, on since the fifteenth session's final call
 * (-DMS_CU_NO_OR_WSTAGE builds without it): the one-read pass stages a step's passing tokens one a lane per round of a
 * warp loop (exact; full setting V=151936 fp32 flat B=52..256 0.3-3.4 us faster, peaked level, bf16 peaked B=128 +0.4;
 * its own binary ran 13 of the 16 CUDA tests, the merged default all 16 and the sanitizers); -DMS_CU_OR_ROWCUT (off), a
 * cut shared by a row's K2 blocks (exact, all 16 tests; 1.4-6 us slower than without it). */
#if !defined(MS_CU_NO_OR_WSTAGE) && !defined(MS_CU_OR_WSTAGE) && defined(MS_CU_ONEREAD)
#  define MS_CU_OR_WSTAGE
#endif
/* Round 31B (-DMS_CU_OR_DCUT, removed in the twenty-fourth session, its code in 30dd785): the one-read pass's drain
 * after the block's final cuts, for every block; round 32C's MS_CU_OR_DCUT2 (below) takes it only where it pays. */
/* Round 32C (docs/cuda.md, docs/decisions.md), on since the twenty-fourth session's final call: MS_CU_OR_DCUT2 and
 * MS_CU_OR_WSEL (below) together: full setting V=151936 fp32 flat B=28..128 0.7-1.3 us faster, peaked level to 0.4
 * faster (bench/results/cuda_h200_2026-12-02-round32c.md); -DMS_CU_NO_OR_DCUT2 / -DMS_CU_NO_OR_WSEL build without
 * them. */
#if !defined(MS_CU_NO_OR_DCUT2) && !defined(MS_CU_OR_DCUT2) && defined(MS_CU_ONEREAD)
#  define MS_CU_OR_DCUT2
#endif
#if !defined(MS_CU_NO_OR_WSEL) && !defined(MS_CU_OR_WSEL) && defined(MS_CU_ONEREAD)
#  define MS_CU_OR_WSEL
#endif
/* Round 32C (MS_CU_OR_DCUT2, on: above): round 31B's filter by the block's final cuts, only where it pays and without its
 * barrier. Taken block-uniformly when the stage holds more than MS_CU_OR_DCUT2_MIN tokens (peaked blocks stage few
 * and run the default's drain); each warp then filters its own batches of the stage (wq[w * 32 + j * nw * 32 + lane],
 * the batches the default's drain gives it) by x >= xlo (round 31B's xlo) and packs the survivors in place, in the
 * same slots in the same order, by a ballot and popc (no shared atomic, no barrier: only the warp reads and writes its
 * slots), then drains only those. Why exact: round 31B's argument (the drain and the list take a subset of the stage
 * that holds every staged token with x >= xlo, NaN kept); docs/cuda.md, round 32C. */
#if defined(MS_CU_OR_DCUT2) && !defined(MS_CU_OR_DCUT2_MIN)
#  define MS_CU_OR_DCUT2_MIN 256
#endif
/* Round 32C (MS_CU_OR_WSEL, on: above): the warp-looped staging's (round 20A) pick of the lane's j-th value of its 4 * NG
 * as a binary tree of selects on j's bits (4 * NG - 1 selects, log2(4 * NG) predicates) instead of 4 * NG compares and
 * selects. The same value: exact by construction. */
/* Round 28A (-DMS_CU_OR_DYN, off): the one-read rows' tokens balanced inside each row. At one wave (B=28..66 at
 * V=151936) the step ends with the row's slowest K2or block (4-block against 3-block SMs, blocks of one SM 2-4 us
 * apart), so a row's blocks no longer scan fixed chunks: the row's whole groups are cut into pieces of
 * MS_CU_OR_DYN_PM x NG x 128 tokens (one warp-step: NG groups of 4 a lane), each warp takes its first
 * MS_CU_OR_DYN_S pieces by rule (the first one whole: the first step's block barrier and bound stay), then the
 * next ones from a per-row cursor (lane 0's atomicAdd, issued one piece ahead, __shfl_sync), so a warp on a fast SM
 * takes more pieces. Each block keeps its state of today (stage, smax, cuts, top-k' bins, its list of its top k' of
 * its set C) and marks the pieces it took in a shared bitmap for its re-reads (the stage's overflow, the list past the
 * stage); the row's last 1-3 tokens (V not a multiple of 4) are its last block's. Only in the ring-less K2or (!RG),
 * on the resource's own workspace (a.k4zero: K4 leaves the row's stats zero, so the cursor is zero when K2or's pass,
 * before its PDL wait, reads it), rows aligned to groups of 4 and whose blocks' first pieces fit: the row's blocks
 * agree on the choice (every input is row-uniform). The cursor is the row's ticket (ms_cu_rowstat): one-read rows use
 * it for nothing else (K2's last-block counter serves the general rows only, K4 zeroes it). Why exact: docs/cuda.md,
 * round 28A (nothing in the one-read argument uses a chunk's contiguity). Functions: ms_cu_k2_scan1 (DY),
 * ms_cu_k2_one, ms_cu_or_for_pieces, ms_cu_or_reread. Measured (bench/results/cuda_h200_2026-12-01-round28a.md): the
 * row's blocks end together (K2 out's spread at B=64 5.6 -> 3.4 us peaked, 11.0 -> 6.8 flat) but later, the full
 * setting 0.3-1.6 us slower at B=28..64 (all 16 CUDA tests passed on its binary): off. */
#ifdef MS_CU_OR_DYN
#  if !defined(MS_CU_ONEREAD) || !defined(MS_CU_OR_F32) || !defined(MS_CU_K4_ZERO) || defined(MS_CU_OR_ROWCUT)
#    error "-DMS_CU_OR_DYN needs MS_CU_ONEREAD, MS_CU_OR_F32, MS_CU_K4_ZERO (the defaults) and no MS_CU_OR_ROWCUT"
#  endif
#  ifndef MS_CU_OR_DYN_PM
#    define MS_CU_OR_DYN_PM 1 /* warp-steps a piece (a tunable: 1 or 2) */
#  endif
#  ifndef MS_CU_OR_DYN_S
#    define MS_CU_OR_DYN_S 1 /* pieces a warp takes by rule before the cursor's (a tunable, >= 1) */
#  endif
#  ifndef MS_CU_OR_DYN_BW
#    define MS_CU_OR_DYN_BW 64 /* the bitmap's words: rows of at most 32 x 64 pieces (V <= 524288 at 256 a piece) */
#  endif
/* Round 29B (-DMS_CU_OR_DYN_RT, a measurement knob over round 28A's pieces; ms__cuda_ordyn, the bench's
 * MS_BENCH_ORDYN): q < 0 the static chunks (round 28A's machinery compiled, not taken); 0 MS_CU_OR_DYN_S pieces a
 * warp by rule (round 28A); 1..63 the first q / 64 of the row's pieces by rule (S = max(1, floor(P q / 64 / GW))
 * rounds of GW pieces), the rest from the cursor; >= 64 every piece by rule: a static interleave (warp w of block g
 * takes pieces 8g + w + k GW), no atomic at all. Read once a block (a global load before the scan). */
/* Round 29B (-DMS_CU_OR_DYN_ALWAYS, with MS_CU_OR_DYN): the ring-less K2or compiles round 28A's pieces alone (no static
 * scan, no static re-reads in that kernel: round 29B's call 1 measured round 28A's machinery compiled beside the static
 * path, not taken, 0.9-1.8 us slower than the default); the host launches the ring's K2or (static chunks, exact at any
 * grid) in the one-wave steps whose rows do not all qualify (ms_cu_or_dyok: the own workspace, aligned rows, every first
 * piece whole). q (as ms_cu_ordyn_q) comes in the kernel's arguments (a.dyq: no global load before the scan), from
 * MS_CU_OR_DYN_RTQ, ms__cuda_ordyn or MS_CU_ORDYN at resource creation; q < 0 launches the ring's K2or. */
#  if defined(MS_CU_OR_DYN_ALWAYS) && defined(MS_CU_OR_DYN_RT)
#    error "-DMS_CU_OR_DYN_ALWAYS takes its knob from the arguments: leave out -DMS_CU_OR_DYN_RT"
#  endif
#  if defined(MS_CU_OR_DYN_RT) || defined(MS_CU_OR_DYN_ALWAYS)
#    ifndef MS_CU_OR_DYN_RTQ
#      define MS_CU_OR_DYN_RTQ 0
#    endif
#    ifdef MS_CU_OR_DYN_ALWAYS
static int ms_cu_or_dyq = MS_CU_OR_DYN_RTQ; /* round 29B: the ring-less K2or's pieces (a.dyq; ms__cuda_ordyn, MS_CU_ORDYN) */
#    endif
extern "C" int ms__cuda_ordyn(int q); /* round 29B's knob (defined with the other knobs, below) */
#    define MS_CU_DYS dyn.S
#  else
#    define MS_CU_DYS MS_CU_OR_DYN_S
#  endif
#  ifdef MS_CU_OR_DYN_RT
__device__ int ms_cu_ordyn_q = MS_CU_OR_DYN_RTQ; /* q at start (the tests' binaries take it from MS_CU_OR_DYN_RTQ) */
#  endif
#endif
/* Round 32B (-DMS_CU_OR_TAPER=e, with -DMS_CU_OR_TRANSPOSE and without MS_CU_OR_DYN): the ring-less K2or's static chunks
 * unequal, their length falling with g (row-minor, a higher g is dispatched later): chunk g spans [t(g), t(g + 1)) with
 * t(g) = floor8(V F(g / G)), F(x) = x (1 + e / 64) - (e / 64) x^2 (density 1 + e / 64 at chunk 0 down to 1 - e / 64 at
 * chunk G - 1), t(G) = V. e in 0..63 (0: equal chunks), from MS_CU_OR_TAPER or MS_CU_ORTAPER at resource creation, in
 * the kernel's arguments (a.tpe). Exact: any partition of a row into its blocks' contiguous ranges is (each block's work
 * depends on its own range alone; the re-reads take the same range). */
#ifdef MS_CU_OR_TAPER
#  if defined(MS_CU_OR_DYN) || !defined(MS_CU_OR_TRANSPOSE)
#    error "-DMS_CU_OR_TAPER needs -DMS_CU_OR_TRANSPOSE and no MS_CU_OR_DYN (it shapes the static chunks)"
#  endif
#endif
/* Round 33B (docs/cuda.md, docs/decisions.md), on since the twenty-fifth session's final call: MS_CU_OR_TAIL2 (R = 1024,
 * below): full setting V=151936 flat fp32 B=48..128 1.2-2.1 us and bf16 flat B=64 2.6 us faster, peaked level
 * (bench/results/cuda_h200_2026-12-02-round33b.md, -session25-final.md); -DMS_CU_NO_OR_TAIL2 builds without it,
 * -DMS_CU_OR_TAIL2=R with another budget. */
#if !defined(MS_CU_NO_OR_TAIL2) && !defined(MS_CU_OR_TAIL2) && defined(MS_CU_ONEREAD) && defined(MS_CU_OR_TAIL)
#  define MS_CU_OR_TAIL2 1024
#endif
/* Round 34A (docs/cuda.md, docs/decisions.md), on since the twenty-sixth session's final call: MS_CU_WARM_CHUNK (c = 1536,
 * host only: ms_cu_launch) the warm-up steps of 4-byte logits in chunks of at least c tokens: full setting fp32
 * V=151936 B=1 flat 0.2-0.3 us, peaked 0.3-0.5 us faster, top-p alone B=1 0.6-1.3 us
 * (bench/results/cuda_h200_2026-12-02-round34a.md, -session26-final.md); -DMS_CU_NO_WARM_CHUNK builds without it,
 * -DMS_CU_WARM_CHUNK=c with another c. */
#if !defined(MS_CU_NO_WARM_CHUNK) && !defined(MS_CU_WARM_CHUNK)
#  define MS_CU_WARM_CHUNK 1536
#endif
/* Round 35C (docs/cuda.md, docs/decisions.md): the draw in warp 0 by id rank, on at =1 (ms_cu_k4w alone) since the
 * twenty-seventh session's final call (full setting V=151936 B=1 fp32 flat 0.3 us, peaked 0.25 us, bf16 0.3 us faster,
 * V=262144 B=1 0.3-0.5 us: bench/results/cuda_h200_2026-12-02-round35c.md, -session27-final.md) and at =2 (every K4)
 * since the twenty-eighth session's first call (all CUDA tests, memcheck, racecheck; peaked B=2..128 0.2-0.4 us faster,
 * flat level: -session27-x2.md, -session28-x2.md); -DMS_CU_NO_K4_IDSCAN builds without it, -DMS_CU_K4_IDSCAN=1,3,4 the
 * other forms. */
#if !defined(MS_CU_NO_K4_IDSCAN) && !defined(MS_CU_K4_IDSCAN)
#  define MS_CU_K4_IDSCAN 2
#endif
/* Round 36A (docs/cuda.md, docs/decisions.md), on since the twenty-eighth session's final call: MS_CU_K4_ORPRE=2 (above
 * ms_cu_k4_lite's loads), the one-read kernels' stats in one 16-byte load after the wait and their candidates only below
 * cand_n: two dependent round trips instead of three (full setting V=151936 fp32 B=28..128 0.15-0.5 us faster:
 * bench/results/cuda_h200_2026-12-02-round36a.md, -session28-final.md); -DMS_CU_NO_K4_ORPRE builds without it. */
#if !defined(MS_CU_NO_K4_ORPRE) && !defined(MS_CU_K4_ORPRE) /* (builds with round 29C / 30C's MS_CU_LD1 take its loads instead) */
#  define MS_CU_K4_ORPRE 2
#endif
/* Round 35A (docs/cuda.md, docs/decisions.md), on since the twenty-seventh session's final call: MS_CU_OR_TKGATE=4 (below),
 * =2's top-k' bookkeeping (stk by a plain load, the scan gated on the block's stage reaching k') in the ring-less K2or
 * only (the ring's, which 2-byte one-read steps take, is the previous code: =2 there gave it two more spills and bf16
 * flat B=64 0.3 us): fp32 peaked B=28..96 0.05-0.5 us faster, flat level (-session27-final.md). -DMS_CU_NO_OR_TKGATE
 * builds without it; not with the switches its #error below names (measurement builds). */
/* Round 37A (-DMS_CU_OR_LAZYBIN=1 or =2, off; docs/cuda.md): round 35A's =3 split of the one-read pass's loop (phase 0
 * without the top-k' cut's per-step code, left once the block's stage holds k' tokens) in the ring-less K2or only (the
 * ring's keeps =4's code, one copy), as MS_CU_OR_TKGATE=5. =1: phase 0 counts no bins either (a staged token is counted
 * only by a warp in phase 1), so a block whose stage never reaches k' (peaked rows: ~12-14 tokens a block) runs
 * round 34B's NB loop; phase 1 scans only once the stage holds 2 k' (the counts start at about k'). =2: phase 0 counts
 * the bins (=3's loop, ring-less only). Exact: the bins' counts are read only by the scan (ms_cu_or_tkcut), which needs
 * lower bounds ("counts are lower bounds": the tail loop stages without counting); a count skipped leaves every bin's
 * count from the top lower, so a scan finds the same or a lower cut, or none, each a valid cut of D's kind (round 14);
 * the gates only skip scans and reads of stk (round 35A's =2 / =3 argument). =3: =1 with the cut's state (ry, osc, tk,
 * ns) set at phase 1's entry, not at the first step: dead in phase 0, so phase 0 holds none of it in registers (NB's
 * loop); ry and osc from *sref as at the first step (not written after its barrier: the same bins), ns from 0 (any
 * schedule is exact). Measured (H200, full setting V=151936, bench/results/cuda_h200_2026-12-02-round37a.md): =1 fp32
 * flat B=28..128 +0.66..+1.60 us, peaked -0.42..+0.12; =2 flat +0.18..+0.86, peaked B=64 +0.48; =3 peaked -0.57..-0.95
 * (B=64 25.92 against D's 26.49; round 34B's NB -1.09 in the round's first call) but flat +0.23..+1.52, top-p alone B=64
 * +0.36 / +0.59: off (flat rows lose their cut's first counts; =3 shows the peaked lever is the cut's live state).
 * =4 (built after the round's calls, not run): =3, and a phase-0 warp whose step has >= MS_CU_OR_LZW passing tokens
 * (the default's counters at B=64: a flat block stages ~498 tokens in its pass, a peaked one ~14) leaves phase 0 before staging them:
 * phase 1 runs that step again (its loads and bound again: the bound's atomicMax and the cuts are idempotent, first is
 * already false, so no second barrier) and stages and counts its tokens, so flat rows count from their first step;
 * phase 1's scans from a stage of k'. Exact as =3: the step's tokens are staged once, by phase 1. */
#ifndef MS_CU_OR_LZW
#  define MS_CU_OR_LZW 4
#endif
/* Round 38A (-DMS_CU_OR_TKSH, off; docs/cuda.md "Round 38A"): the online top-k' cut's block-uniform state (ry, osc, tk)
 * out of the ring-less K2or loop's registers, no split: osc written to shared memory (sosc, zeroed by ms_cu_k2_one) by
 * thread 0 before the first step's barrier, ry read from *sref (never written after that barrier) where it is used
 * (the bins' count under the staging branch, the scan), tk replaced by kk > 0 for the count (bins counted where tk is
 * false are never read: the scan needs tk) and by tk from shared memory where a warp's scan gate opens; ns counted at
 * every bookkeeping step (where tk is false it is never read). Exact: the same bins (same ry, osc), the same counts
 * where tk, the same scan schedule and gate; the ring's instantiation (RG) is the default's code. With TKGATE=4 only.
 * Measured (H200, full setting V=151936, bench/results/cuda_h200_2026-12-02-round38a.md): fp32 flat B=28..128
 * +0.46..+0.88 us, peaked +0.09..+0.30 (B=64 -0.10, within the drift); K2or's REG / STACK / spills as the default's: off. */
#ifdef MS_CU_OR_LAZYBIN
#  if defined(MS_CU_OR_TKGATE) || defined(MS_CU_NO_OR_TKGATE) || (MS_CU_OR_LAZYBIN < 1 || MS_CU_OR_LAZYBIN > 4)
#    error "-DMS_CU_OR_LAZYBIN=1..4 sets MS_CU_OR_TKGATE (=5): not with another MS_CU_OR_TKGATE or MS_CU_NO_OR_TKGATE"
#  endif
#  define MS_CU_OR_TKGATE 5
#endif
#if !defined(MS_CU_NO_OR_TKGATE) && !defined(MS_CU_OR_TKGATE) && defined(MS_CU_OR_WSTAGE) && defined(MS_CU_OR_XBINS) && \
    !defined(MS_CU_OR_SB) && !defined(MS_CU_OR_ROWCUT) && !defined(MS_CU_OR_RC2) && !defined(MS_CU_OR_DYN)
#  define MS_CU_OR_TKGATE 4
#endif
#if defined(MS_CU_OR_TKSH) && (!defined(MS_CU_OR_TKGATE) || MS_CU_OR_TKGATE != 4 || !defined(MS_CU_OR_XBINS))
#  error "-DMS_CU_OR_TKSH (round 38A) builds on the default MS_CU_OR_TKGATE=4 and MS_CU_OR_XBINS"
#endif
#ifdef MS_CU_OR_TKSH
__shared__ float ms_cu_sosc; /* round 38A: the online top-k' cut's bin scale (osc), 0 until a block-wide first step */
#endif
/* Round 33B (MS_CU_OR_TAIL2=R, on: above): K2or's list without the bin cut where the block's staged C is small. Round
 * 18A's TAIL lists a chunk's ns <= k' staged tokens of C whole (one global atomic, one barrier); a chunk with more
 * takes ms_cu_k2_list's bin cut (its 256 bins zeroed, the entries' shared atomics, warp 0's scan) and compaction: seven
 * barriers and ~500 instructions a warp whatever ns is. On flat rows round 32C's filter (MS_CU_OR_DCUT2) leaves a
 * block's stage at about k'..2k' tokens of C, so nearly every flat block paid that fixed cost to drop a few dozen
 * entries. With R, a block lists its stage whole also when ns <= R / G (G: the row's chunks; ns <= MS_CU_STAGE_SH):
 * the row's list then holds at most about R entries from such blocks (R = 1024: K4's one-level trim, MS_CU_K4_RTRIM,
 * takes up to 2 MS_CU_T4 = 1024). R from -DMS_CU_OR_TAIL2=R, or MS_CU_ORTAIL2 in the environment at resource creation
 * (0: never, the default's path), in the kernel's arguments (a.tl2). Why exact: the stage ms_cu_k2_list receives holds
 * the chunk's top k' of C with ties (the premise of that path), and the list keeps a subset of the stage that holds
 * them; listing the whole stage lists a superset of those entries, every one a token of C with its own key, as the
 * TAIL does for ns <= k' (and as the bin cut does with its slack): K4 trims the row's list to its top k' and tests
 * min-p exactly, so extra entries below the row's top k' change nothing it keeps. The list's order is not read (K4
 * trims and draws by key and id). Its room: a row past MS_CU_CAND candidates goes to K4's whole-row path (exact, slow;
 * cand_n counts every entry tried); R is clamped to MS_CU_CAND (at resource creation: ms_cu_state's tl2), so TAIL2's
 * blocks (ns <= R / G) and the bin cut's (at most k' + k' / 8 + 8, within MS_CU_CAND / G by ms_cu_onread) keep a row
 * within it, as without the switch. MS_CU_OR_DCUT2_RT (with it, a measurement knob): round 32C's gate from MS_CU_ORDC2
 * in the environment (default MS_CU_OR_DCUT2_MIN) in a.dc2, so one binary sweeps it. */
#ifdef MS_CU_OR_TAIL2
#  if !defined(MS_CU_OR_TAIL) || !defined(MS_CU_ONEREAD)
#    error "-DMS_CU_OR_TAIL2 needs MS_CU_OR_TAIL and MS_CU_ONEREAD (the defaults)"
#  endif
#endif
#ifdef MS_CU_OR_DCUT2_RT
#  ifndef MS_CU_OR_DCUT2
#    error "-DMS_CU_OR_DCUT2_RT needs MS_CU_OR_DCUT2 (the default)"
#  endif
#endif
/* Round 34B (-DMS_CU_OR_SB, off): the warp-looped staging (round 20A's MS_CU_OR_WSTAGE, round 32C's select) with one
 * shared atomic a warp-step instead of one a round of the warp's loop, and the top-k' bins' index without a branch.
 * nvcc already aggregates the stage's atomicAdd over a round's lanes (VOTEU, FLO, POPC, one ATOMS, SHFL, LTMASK and a
 * POPC: ~13 instructions and an atomic's latency before the store, every round); here the warp adds its step's count
 * (__reduce_add_sync of the lanes' popc(M)) once, and a lane's slot in round q is the base plus the warp's passing
 * tokens of rounds before q plus the lanes before it in round q (the round's ballot, which replaces the loop's vote).
 * The stage is a set: its order is read by nothing (the drain, DCUT2's filter and the overflow take its entries in any
 * order; the drain's own atomics already order sbuf at random), and every passing token still gets one slot of
 * [old, old + n), the same slots' union as before, so the overflow test (*rn > MS_CU_HB) sees the same count. The bins'
 * index: ms_cu_obin's value as fminf(fmaxf(v, 0), 127) then truncation (v >= 127: 127; v in (0, 127): (uint32_t)v; v <= 0,
 * -0 or NaN: 0, fmaxf returning 0 for a NaN operand): the same function, so the same counts and cuts. Why the bins stay
 * counted: round 14's running top-k' scan (ms_cu_or_tkcut, every MS_CU_OR_SCAN-th step of a warp) reads them during the
 * pass and raises the staging cut and the block's stk (DCUT2's xlo, the overflow's tkc); ms_cu_k2_list's bin cut has
 * its own bins (h, from the stage's keys), and K4 reads no bins of these rows. Measured (H200, full setting V=151936,
 * bench/results/cuda_h200_2026-12-02-round34b.md): slower at every cell (fp32 flat B=28..128 +0.35..+1.56 us, peaked
 * +0.38..+0.53, bf16 B=64 +0.77 / +1.07): a step's reservation prologue (~24 instructions) costs more than the ~12 a
 * round it saves at 1.43 rounds a flat step. -DMS_CU_OR_SB_NOTK (a measurement build, below): flat rows 1.8-249 us
 * slower (the stage of C overflows), peaked 0.50-0.93 us faster. */
#if defined(MS_CU_OR_SB) && (!defined(MS_CU_OR_WSTAGE) || !defined(MS_CU_OR_WSEL) || !defined(MS_CU_OR_XBINS))
#  error "-DMS_CU_OR_SB needs MS_CU_OR_WSTAGE, MS_CU_OR_WSEL and MS_CU_OR_XBINS (the defaults)"
#endif
/* Round 35A (-DMS_CU_OR_TKGATE, off; docs/cuda.md): the one-read pass's online top-k' cut (round 14: the stk round trip
 * each bookkeeping step, the scan every MS_CU_OR_SCAN-th) only once it can give a cut. A scan finds one only when some
 * bin's count from the top reaches k', so only when the block's counted (staged) tokens number >= k'; before that it
 * returns none, and stk holds 0 or a cut some other warp found, which needed the same. A warp opens its gate (tg,
 * warp-uniform, never closed again) when one of its own stagings returns a stage count >= k' (ms_cu_stage4's return: the slot
 * after the lane's token, from the stage's own atomic, so no extra shared load); until then it skips the stk atomicMax,
 * its shuffle and the scan. The bins are still counted for every staged token (a later scan needs them), and the scan
 * schedule (ns) is D's. Exact: skipping only leaves a warp's cut lower (min-p's, or the top-k' cut it last held), and
 * every cut it applies is one of D's valid cuts (rounds 14 and 19B); stk only holds valid cuts, fewer of them. Needs
 * MS_CU_OR_WSTAGE and MS_CU_OR_XBINS (the defaults), not MS_CU_OR_SB, MS_CU_OR_ROWCUT or MS_CU_OR_RC2. Measured (H200, full
 * setting V=151936, bench/results/cuda_h200_2026-12-02-round35a.md): fp32 flat B=28..128 +0.5..+1.0 us, bf16 flat B=64
 * +1.5 (the gate's vote after each staging loop and its per-token compare cost more than the round trip), peaked level. */
#if defined(MS_CU_OR_TKGATE) && (!defined(MS_CU_OR_WSTAGE) || !defined(MS_CU_OR_XBINS) || defined(MS_CU_OR_SB) || \
                                 defined(MS_CU_OR_ROWCUT) || defined(MS_CU_OR_RC2))
#  error "-DMS_CU_OR_TKGATE needs MS_CU_OR_WSTAGE and MS_CU_OR_XBINS (the defaults), not MS_CU_OR_SB, _ROWCUT or _RC2"
#endif
/* Round 35A, =2 (-DMS_CU_OR_TKGATE=2): no gate in the staging (=1's vote and per-token compare cost flat rows more than
 * the gate saved); instead (a) a warp reads the block's cut stk with a plain (volatile) shared load by every lane, not
 * lane 0's atomicMax(stk, tkk) and a shuffle: every rise of a warp's tkk other than one read from stk is published to stk
 * by its scan's atomicMax at once, so stk >= tkk always and that atomicMax only ever read stk; a load reads the same word
 * (a stale or, in principle, lane-dependent value is an older, lower one: every value stk held is a valid cut); and
 * (b) the scan (ms_cu_or_tkcut) runs at its steps only once the block's stage count *rn (read by a volatile load, every
 * lane, made warp-uniform by __any_sync; sticky in tg) is >= kk: below that no bin's count from the top can reach kk.
 * Measured (round 35A's call 2): fp32 flat B=28..128 -0.16..+0.09 us, peaked -0.01..-0.51 (B=64 -0.05), bf16 B=64 level. */
/* Round 35A, =3 (-DMS_CU_OR_TKGATE=3, built after the round's calls, not run): =2 with the pass's loop in two copies, the
 * first (phase 0) without the cut's per-step work at compile time (no stk load, no adoption, no scan: tkk stays 0 there;
 * the bins still counted, ns still counted), left for the second (D's loop with =2's load) at the first bookkeeping step
 * after which the block's stage count *rn is >= kk (warp-uniform: __any_sync of every lane's volatile load). The aim:
 * round 34B's NB (tk a compile-time false) ran K2or's loop 0.22M and its bookkeeping 0.35M warp instructions shorter at
 * peaked B=64, which =2's run-time gate does not. Exact as =2: phase 0 only skips reads of stk and scans, which returns
 * none below kk anyway; the loop's state (t, tb, the ring's slot, first, the cuts) carries over unchanged. */
/* =4 (the default since the twenty-seventh session): =2 in the ring-less instantiation (RG false) only; the ring's K2or
 * keeps the atomicMax round trip and the ungated scan (ms_cu_k2_scan1's TG2). */
#if defined(MS_CU_OR_TKGATE) && (MS_CU_OR_TKGATE == 2 || MS_CU_OR_TKGATE == 3 || MS_CU_OR_TKGATE == 4 || \
                                 MS_CU_OR_TKGATE == 5)
#  define MS_CU_TKG2
#  if MS_CU_OR_TKGATE == 3 || MS_CU_OR_TKGATE == 5
#    define MS_CU_TKG3
#  endif
#  if MS_CU_OR_TKGATE == 5
#    define MS_CU_TKG5 /* round 37A: =3's split in the ring-less instantiation only (MS_CU_OR_LAZYBIN) */
#  endif
#  ifdef MS_CU_OR_DYN
#    error "-DMS_CU_OR_TKGATE=2, 3 or 4 is not built with MS_CU_OR_DYN"
#  endif
#elif defined(MS_CU_OR_TKGATE)
#  define MS_CU_TKG1
#endif

/* Round 19C (docs/cuda.md, docs/decisions.md), on since its call: the lite steps' early branches of K1 and K2 (round
 * 18C) with less code on their path. MS_CU_EARLY_NOWIN: c.win = false written after their set-up, the value it already
 * has there (they return before it for rows with a window penalty), so the window penalty's code (ms_cu_pen's window
 * count, in every unrolled token of the scans) leaves them. MS_CU_EARLY_F32 (with it): their fp32 rows run a copy of
 * the pass with c.dtype the constant MS_DTYPE_F32 (the value it has on those rows), without the fp16 / bf16
 * conversions between its instructions: K1's chunk max, K2's scan (a first version copied K2's whole lite path: its
 * list and re-reads grew by ~22000 instructions and K2's spills by 28 / 76 bytes, so only the scan). H200, full setting
 * V=151936 fp32, both together: flat B=1 / 4 / 16 / 32 17.91 -> 16.75, 19.80 -> 18.38, 27.56 -> 26.03, 32.52 -> 30.04
 * us; peaked 16.84 -> 16.16, 18.27 -> 16.93, 20.50 -> 19.17, 24.41 -> 22.30; B=64 (other kernels, the same SASS) and
 * top-p alone level; all 16 CUDA tests on that binary (bench/results/cuda_h200_2026-12-01-round19c.md).
 * -DMS_CU_NO_EARLY_NOWIN builds without both, -DMS_CU_NO_EARLY_F32 without the second. */
#if !defined(MS_CU_NO_EARLY_NOWIN) && !defined(MS_CU_EARLY_NOWIN)
#  define MS_CU_EARLY_NOWIN
#endif
#if !defined(MS_CU_NO_EARLY_F32) && !defined(MS_CU_NO_EARLY_NOWIN) && !defined(MS_CU_EARLY_F32)
#  define MS_CU_EARLY_F32
#endif
#if defined(MS_CU_EARLY_F32) && !defined(MS_CU_EARLY_NOWIN)
#  error "-DMS_CU_EARLY_F32 is built with MS_CU_EARLY_NOWIN"
#endif
/* Round 20B (MS_CU_K4_TWO; docs/decisions.md): in one-read steps with more rows than multiprocessors, where ms_cu_k4<true> (512
 * threads, ~128 registers, 160 KB of shared memory: one block a multiprocessor) ran in two waves, K4 is two kernels:
 * K4L (ms_cu_k4l: the lean path alone, 64 registers, MS_CU_K4L_CAP candidates in shared memory: two blocks a
 * multiprocessor, one wave up to 2 x SMs rows) serves the lean rows it can and marks them (k3done); K4R (ms_cu_k4r:
 * ms_cu_k4<true>'s row code, one block a row, one a multiprocessor) serves the rest and zeroes the stats.
 * Needs MS_CU_ONEREAD, MS_CU_K4_ZERO and K3's own kernel (the defaults), not MS_CU_ROWFLAGS. H200, full setting
 * V=151936 (bench/results/cuda_h200_2026-12-01-round20b.md): flat B=200 / 256 3.1-4.0 us, peaked 1.9-2.5 us faster,
 * B <= 128 level, top-p alone at B=256 +0.5..+1.0 (one run); all 16 CUDA tests on its first form, 12 of 16 (the rest
 * unrun) on this one; on since the fifteenth session's final call, which ran all 16 and the sanitizers on the merged
 * default (-DMS_CU_NO_K4_TWO builds without it; it needs the defaults named below and is left out without them). */
#if !defined(MS_CU_NO_K4_TWO) && !defined(MS_CU_K4_TWO) && defined(MS_CU_ONEREAD) && defined(MS_CU_K4_ZERO) && \
    !defined(MS_CU_RF) && !defined(MS_CU_K3_IN_K2)
#  define MS_CU_K4_TWO
#endif
#if defined(MS_CU_K4_TWO) && (!defined(MS_CU_ONEREAD) || !defined(MS_CU_K4_ZERO) || defined(MS_CU_RF) || defined(MS_CU_K3_IN_K2))
#  error "-DMS_CU_K4_TWO needs MS_CU_ONEREAD, MS_CU_K4_ZERO and K3's own kernel (the defaults) and no MS_CU_ROWFLAGS"
#endif
/* Round 25A (docs/cuda.md, docs/decisions.md), on: MS_CU_K3W_K2 (1: the warm-up steps; described above). H200, full
 * setting V=151936 fp32, B=1: flat -0.77 / -0.57 us, peaked -0.79 / -0.82 (two calls), bf16 flat -0.36 / peaked -0.79;
 * B >= 2 the kernels as before; top-p alone B=1 flat -0.08 / -0.32, peaked +0.34 / +0.29. Exact: all 16 CUDA tests
 * (bench/results/cuda_h200_2026-12-01-round25a.md). Defined where its prerequisites are; -DMS_CU_NO_K3W_K2 builds
 * without it. */
#if !defined(MS_CU_NO_K3W_K2) && !defined(MS_CU_K3W_K2) && defined(MS_CU_K3_KERNEL) && defined(MS_CU_K3_NOWAIT) && \
    defined(MS_CU_K4_PWOWN) && defined(MS_CU_K4_ZERO) && defined(MS_CU_OR_K2OWN)
/* Eighteenth session's final call: 2, every step of K2's plain instantiation (B <= 27 at V=151936 since round 25B's
 * rule; rounds 25A / 26D: all 16 CUDA tests on its binaries, full setting B=2 -0.8..-1.1 us, B=4 -0.2..-0.5, flat B=16 /
 * 24 -0.4..-0.8, peaked B=16 / 24 level; its one loss, peaked B=32 +0.5, was a step the one-read path serves since round
 * 25B). -DMS_CU_K3W_K2=1 builds the warm-up steps' form alone. */
#  define MS_CU_K3W_K2 2
#endif
#ifdef MS_CU_K3W_K2 /* round 25A (above) */
#  if !defined(MS_CU_K3_KERNEL) || !defined(MS_CU_K3_NOWAIT) || !defined(MS_CU_K4_PWOWN) || !defined(MS_CU_K4_ZERO) || \
      !defined(MS_CU_OR_K2OWN)
#    error "-DMS_CU_K3W_K2 needs K3's kernel with MS_CU_K3_NOWAIT, MS_CU_K4_PWOWN, MS_CU_K4_ZERO and MS_CU_OR_K2OWN (the defaults)"
#  endif
#endif
#ifndef MS_CU_K4L_CAP
#  define MS_CU_K4L_CAP 2048 /* K4L's candidates in shared memory (a row with more goes to K4R) */
#endif
/* Round 21B (MS_CU_K4_RTRIM; docs/cuda.md, docs/decisions.md), on since its round: the one-read steps' K4 (ms_cu_k4<true>,
 * K4L, K4R) trims a flat row's ~250-400 listed candidates in one level of the candidate bins to at most 64 entries that
 * hold the top k' (ms_cu_k4_rtrim; the finish applies top-k by counts), instead of the exact radix select: 2 barriers
 * instead of 12. H200, full setting V=151936 fp32, means of two runs: flat B=52 / 64 / 128 / 200 / 256 1.62 / 1.52 / 1.34 /
 * 0.85 / 0.69 us faster, peaked -0.24..+0.24 (level), bf16 flat B=64 -1.50, top-p alone level; all 16 CUDA tests on that binary
 * (bench/results/cuda_h200_2026-12-01-round21b.md). -DMS_CU_NO_K4_RTRIM builds without it. */
#if !defined(MS_CU_NO_K4_RTRIM) && !defined(MS_CU_K4_RTRIM)
#  define MS_CU_K4_RTRIM
#endif
/* Round 22D (MS_CU_CARVE_OW, on since the sixteenth session's final call): the shared-memory carveout preference 100 as a
 * launch attribute on K1 and K2 of the one-wave one-read steps alone (B = 52..66 at fp32 V=151936), so K2's blocks
 * join K1's at once; a hint, the kernels unchanged. Full setting B=52/64 0.6-1.3 us, top-p alone 2.1-3.3 us faster,
 * B >= 67 launched as before (bench/results/cuda_h200_2026-12-01-round22d.md). -DMS_CU_NO_CARVE_OW builds without it. */
#if !defined(MS_CU_NO_CARVE_OW) && !defined(MS_CU_CARVE_OW)
#  define MS_CU_CARVE_OW 100
#endif
/* Round 23C (MS_CU_SEGW; docs/cuda.md, docs/decisions.md), on since its round: K3 stores a BAND row's (top-p alone on flat
 * rows) mass above the bound's bucket per 512-token segment of its chunk, and K4 walks the one segment holding the target
 * instead of the whole chunk (~19k tokens at B=64): ncu K4 46 -> 30 us at B=64, 104 -> 55 at B=256 (K3 +4 / +18). H200,
 * V=151936 fp32, two calls of two runs: top-p flat B=1 / 16 / 64 / 256 0.6-0.7 / 2.5-2.7 / 10.3-10.5 / 29.7-30.5 us
 * faster, peaked and the full setting level; all 16 CUDA tests on that binary
 * (bench/results/cuda_h200_2026-12-01-round23c.md). Not with -DMS_CU_PB (chunk pairs). -DMS_CU_NO_SEGW builds without it. */
#if !defined(MS_CU_NO_SEGW) && !defined(MS_CU_SEGW) && !defined(MS_CU_PB)
#  define MS_CU_SEGW
#endif
/* Round 24D (docs/cuda.md, docs/decisions.md), on since the seventeenth session's final call: the rows that need only
 * each token's key and mass (top-p alone: no min-p, no penalty, no +inf row; K3: no floor either) take lean copies of
 * K2's histogram pass (MS_CU_K2_HLEAN: ~96 -> ~68 SASS instructions a token, no spills) and of K3's segment loop
 * (MS_CU_K3_SLEAN: the exp only above the bucket, a segment's sum as two 32-bit shared atomics): the same operations a
 * token otherwise, so the same integer counts and masses. H200, V=151936 fp32, both on, two runs: top-p flat B=1 / 16 /
 * 64 / 256 1.3 / 6.0 / 30.7 / 91.8 us faster, peaked 0.8 / 3.1 / 16.1 / 47.0; the full setting -0.40..+0.09 but flat
 * B=256 +0.35 (K2's other instantiations re-laid out) (bench/results/cuda_h200_2026-12-01-round24d.md).
 * -DMS_CU_NO_K2_HLEAN and -DMS_CU_NO_K3_SLEAN build without them. */
#if !defined(MS_CU_NO_K2_HLEAN) && !defined(MS_CU_K2_HLEAN)
#  define MS_CU_K2_HLEAN
#endif
#if !defined(MS_CU_NO_K3_SLEAN) && !defined(MS_CU_K3_SLEAN) && defined(MS_CU_SEGW)
#  define MS_CU_K3_SLEAN
#endif

extern "C" {
#include "ms_internal.h"
}
#include "cuda/ms_cuda.h"
#include "ms_math.h"

#define MS_CU_HBITS 11                     /* K2's coarse histogram: the top 11 bits of the key */
#define MS_CU_HB (1 << MS_CU_HBITS)
#define MS_CU_CAND 8192                    /* candidates one K4 block holds in shared memory */
#define MS_CU_T123 256                     /* threads of K1..K3 */
#ifndef MS_CU_T4
#  define MS_CU_T4 512                     /* threads of K4 */
#endif
#define MS_CU_STAGE_SH 2048               /* K2's per-block staging of min-p survivors */
#ifndef MS_CU_K2_NG
#  define MS_CU_K2_NG 2                    /* K2's groups of 4 loads in flight per thread (registers) */
#endif
#ifndef MS_CU_K2_MINB
#  define MS_CU_K2_MINB 4                  /* K2 blocks per multiprocessor the registers must allow */
#endif
#define MS_CU_STAGE 65536                  /* staging tokens for plan / accept */
/* K4's dynamic shared memory: candidates, their exclusive mass sums, their run starts */
#define MS_CU_K4_DYN (MS_CU_CAND * 8 + (MS_CU_CAND + 1) * 8 + MS_CU_CAND * 4)

/* How K4 finds a row's candidates: S0 = all min-p survivors gathered by K2 (K4 keeps those at or
 * above the bound), FAST = gathered by K3, FULL = none (K4 walks the whole row), BAND (round 4) = K3
 * gathered only the S0 tokens of the bound's bucket and wrote each chunk's mass above that bucket
 * (K4 finds the threshold inside the bucket and draws chunk by chunk; see ms_cu_k4_band). */
enum { MS_CU_MODE_NONE = 0, MS_CU_MODE_S0 = 1, MS_CU_MODE_FAST = 2, MS_CU_MODE_FULL = 3, MS_CU_MODE_BAND = 4 };

/* A slot's device state: its config and the committed state (SPEC section 4). */
typedef struct ms_cu_slot {
    float temperature, top_p, min_p, rep;
    int32_t top_k, window, min_tokens, min_keep;
    int32_t top_p_first, used, hist_len, hist_head;
    uint64_t seed, n;
} ms_cu_slot;

/* Round 20A (-DMS_CU_OR_ROWCUT): the one-read rows' cut shared by the row's K2 blocks (ms_cu_k2_scan1), in rows of at
 * most MS_CU_ORRC blocks. */
#define MS_CU_ORRC 16
/* Round 30A (-DMS_CU_OR_RC2, off): round 20A's row cut in a leaner form: the slots in their own array (ms_cu_args' orc,
 * MS_CU_ORRC words a row, the resource's own workspace only: ms_cu_state's d_orc, zeroed at creation and by each step's
 * K4 for its rows), so ms_cu_rowstat keeps its size; both of a scan's cuts from one read of the bins
 * (ms_cu_or_tkcut2); the slots' load without a compiler memory barrier; a block publishes only when its cut rose. */
#if defined(MS_CU_OR_RC2) && defined(MS_CU_OR_ROWCUT)
#  error "-DMS_CU_OR_RC2 replaces -DMS_CU_OR_ROWCUT: take one"
#endif
#if defined(MS_CU_OR_RC2) && defined(MS_CU_OR_DYN)
#  error "-DMS_CU_OR_RC2 needs the static chunks: no MS_CU_OR_DYN"
#endif
#if defined(MS_CU_OR_RC2) && !defined(MS_CU_K4_ZERO)
#  error "-DMS_CU_OR_RC2 needs MS_CU_K4_ZERO (the default): the slots are zero at a step's start only in the own workspace"
#endif
/* Round 31A (-DMS_CU_K1_ROWCUT, off): a row-wide top-k' cut for the plain (two-pass) lite steps from K1's warp maxima.
 * Each K1 warp's maximum is the penalised logit x of one token, and different warps hold different tokens, so K1 (its
 * early branch, lite rows of the default order) counts the row's warp maxima in MS_CU_RCB bins of x by their order key
 * (key >> MS_CU_RCB_SH: a sixteenth of an octave, x in [0.5, 128); higher x count in the top bin, lower x nowhere), in
 * the row's stats (ms_cu_rowstat::rch: zero between steps as the rest of them: K4 with the resource's own workspace,
 * K0 with a caller's). K2 (ms_cu_k2_rowcut) finds the highest bin b whose count from the top reaches k' and raises
 * its pre-filter cut on x to just below that bin's lower edge; ms_cu_k2_rowcut says why that is exact. */
#ifdef MS_CU_K1_ROWCUT
#  define MS_CU_RCB 128
#  define MS_CU_RCB_SH 19
#  define MS_CU_RCB_BASE (0xbf000000u >> MS_CU_RCB_SH) /* ms_cu_key(0.5f) >> MS_CU_RCB_SH: bin 0's lower edge */
#  ifndef MS_CU_RC_MINCHUNK /* the cut only in steps whose chunks hold at least this many tokens (B >= 8 at V=151936) */
#    define MS_CU_RC_MINCHUNK 2048
#  endif
/* The twenty-third session (-DMS_CU_K1_RC_OWN with -DMS_CU_K1_ROWCUT, off): the bins in their own array (ms_cu_state's
 * d_rch, MS_CU_RCB words a row, the resource's own workspace only), so ms_cu_rowstat keeps its 80 bytes; K4 zeroes its
 * row's bins in steps that counted them (ms_cu_k4_zero), the dirty-workspace memsets all of them. Measured in the
 * session's final call: B=1..2 still 0.3-0.6 us slower, where the cut is never taken, so the stats' size (round 31A's
 * inference) is not that cost's cause; docs/cuda.md, "Twenty-third session's final call". */
#  if defined(MS_CU_K1_RC_OWN) && !defined(MS_CU_K4_ZERO)
#    error "MS_CU_K1_RC_OWN needs MS_CU_K4_ZERO (K4 zeroes the bins)"
#  endif
#  ifdef MS_CU_RC_INST /* round 32A: a row's bins, then its ticket (ms_cu_k2_rczero), 16-byte rows */
#    define MS_CU_RCW (MS_CU_RCB + 4)
#  else
#    define MS_CU_RCW MS_CU_RCB
#  endif
#  ifdef MS_CU_K1_RC_OWN
#    define MS_CU_RCH(a, r) ((a).rch + (size_t)(r) * MS_CU_RCW)
#  else
#    define MS_CU_RCH(a, r) ((a).stats[r].rch)
#  endif
#  if defined(MS_CU_OR_RC2)
#    error "-DMS_CU_K1_ROWCUT and -DMS_CU_OR_RC2: K4's zeroing of the stats and of RC2's slots would overlap; take one"
#  endif
#endif
/* Round 32A (-DMS_CU_RC_INST, with -DMS_CU_K1_ROWCUT -DMS_CU_K1_RC_OWN; off): round 31A's cut in instantiations of its
 * own, RC true (K1, K2), launched only in the steps the host rule gives the cut (ms_cu_launch: a.rcut != 0, which now
 * also asks for a plain lite step, K4<false>, and a resident request with top-k and min-p in the default order); every
 * other step launches the RC false instantiations, whose code is the default's (the cut's code compiles out of them:
 * `RC &&` before every test of a.rcut). K4 is the default's in every step: the row's last K2 block zeroes the bins
 * (ms_cu_k2_rczero), not K4. In the RC kernels K1's count runs after its atomicMax, and K2 first asks whether any bin
 * at all can pass min-p (ms_cu_k2_rowcut's pre-test: a.rcut bit 2, on by default; MS_CU_RC_BITS=3 leaves it out, a
 * measurement knob) before its scan. docs/cuda.md, "Round 32A". */
#ifdef MS_CU_RC_INST
#  if !defined(MS_CU_K1_ROWCUT) || !defined(MS_CU_K1_RC_OWN) || !defined(MS_CU_K1_EARLY) || !defined(MS_CU_LITE_EARLY) || \
      !defined(MS_CU_OR_K2OWN) || !defined(MS_CU_K3W_K2) || !defined(MS_CU_K4_ZERO) || !defined(MS_CU_EARLY_F32)
#    error "-DMS_CU_RC_INST needs -DMS_CU_K1_ROWCUT -DMS_CU_K1_RC_OWN and the defaults' K1_EARLY, LITE_EARLY, OR_K2OWN, K3W_K2, K4_ZERO, EARLY_F32"
#  endif
#  define MS_CU_RCON(bit) (RC && (a.rcut & (bit))) /* the cut's tests: compiled out of the RC false instantiations */
#endif
/* Round 33A (-DMS_CU_RC_LEAN, with -DMS_CU_RC_INST; off): round 32A's cut made cheaper where it cannot bind (peaked
 * rows). (1) K1 counts a warp maximum only if its bin's lower edge passes K2's min-p test (ms_cu_k2_rowcut's (2))
 * against a lower bound of the row max: the block's own max (a.rcut bit 3, 8, on by default), or with bit 4 (16) the
 * row's running max, max(the atomicMax's old value, the block's own) (an ATOM's round trip instead of a RED);
 * MS_CU_RC_BITS=7 gives round 32A's count (measurement knobs); ms_cu_k1_rccount says why it is exact and why it
 * gives the same cut. (2) Bit 5 (32, off by default): the row's ticket (ms_cu_k2_lite) an acq_rel atomic and no
 * __threadfence on the last block's tail (ms_cu_k2_rczero). (3) -DMS_CU_RC_ONEBODY (off; call 1's N): RC K2 holds one
 * lite body, the ticket by a run-time flag, not round 32A's two inlined copies (measured slower: the RC true body
 * without a ticket is slower than the RC false copy). docs/cuda.md, "Round 33A". */
#ifdef MS_CU_RC_LEAN
#  ifndef MS_CU_RC_INST
#    error "-DMS_CU_RC_LEAN needs -DMS_CU_RC_INST (and so -DMS_CU_K1_ROWCUT -DMS_CU_K1_RC_OWN)"
#  endif
#endif
#if defined(MS_CU_K1_ROWCUT) && !defined(MS_CU_RC_INST)
#  define MS_CU_RCON(bit) (a.rcut & (bit))
#endif
/* Per-row results of K1/K2, zeroed by a memset at the start of every call. */
typedef struct ms_cu_rowstat {
    uint32_t maxkey;   /* atomicMax of key(y): the row max m */
    uint32_t ticket;   /* K2's last-block counter */
    uint32_t cand_n;   /* K3's gather counter */
    uint32_t bound;    /* coarse bucket (ascending) at and above which candidates lie */
    uint32_t mode;     /* MS_CU_MODE_* decided by K2's last block */
    uint32_t c_above;  /* BAND: S0 tokens in buckets above the bound (K2's last block) */
    uint32_t k3go;     /* round 15B: bit 0 set (release) once K2's last block wrote the mode; bit 1 once a block gave up its gather */
    uint32_t k3done;   /* round 15B: K2 blocks that gather their chunk for K4 (K4: FAST / BAND rows below G are FULL);
                        * round 20B (-DMS_CU_K4_TWO, built with K3's kernel, where this word is otherwise unused): 1 once K4L served the row */
    unsigned long long gbest, gfree; /* greedy: packed (key(x) << 32 | ~id) maxima */
    unsigned long long m0;           /* mass of S0 (K2) */
    unsigned long long m_above;      /* BAND: their mass */
#ifdef MS_CU_OR_ROWCUT
    uint32_t orcut[MS_CU_ORRC]; /* round 20A: block g's published row cut (a key of x; 0: none), one-read rows */
#endif
#ifdef MS_CU_RF
    uint32_t k1n;      /* round 18B: K1 blocks of a lite row that are done with its stats (ms_cu_rf_wait) */
    uint32_t k2n;      /* round 18B: K2 blocks of a lite or one-read row that are done with its stats */
    uint32_t rf_pad[2]; /* 80 bytes: each row's stats 16-byte aligned (K4's 16-byte loads of their first words) */
#endif
#if defined(MS_CU_K1_ROWCUT) && !defined(MS_CU_K1_RC_OWN)
    uint32_t rch[MS_CU_RCB]; /* round 31A: K1's warp maxima of a lite row of the default order, by bin of x (K2's 16-byte loads) */
#endif
} ms_cu_rowstat;
#if defined(MS_CU_K1_ROWCUT) && !defined(MS_CU_K1_RC_OWN)
#  include <stddef.h>
static_assert(offsetof(ms_cu_rowstat, rch) % 16 == 0 && sizeof(ms_cu_rowstat) % 16 == 0,
              "round 31A: K2 loads the bins 16 bytes a lane; each row's stats stay 16-byte aligned");
#endif

typedef struct ms_cu_state {
    int device;
    int sm_count;
    int l2_bytes;       /* the one-read path only for batches larger than 1/4 of L2 (ms_cu_launch, MS_CU_OR_L2Q) */
    bool pdl;           /* programmatic dependent launch of K2..K4 (sm_90 and newer) */
    cudaStream_t stream;
    ms_cu_slot *d_slots;
    uint64_t *d_seen;   /* capacity * words, or NULL */
    int32_t *d_hist;    /* capacity * max_repetition_window, or NULL */
    uint64_t *d_stop;   /* words, or NULL */
    int32_t *d_row_slot, *d_row_k, *d_pend_tok;
    uint8_t *d_kept;
    int32_t *d_stage;
    void *d_ws;
    size_t ws_bytes;
#ifdef MS_CU_OR_RC2
    uint32_t *d_orc;    /* round 30A: the one-read rows' cut slots, max_rows * MS_CU_ORRC, zero between steps */
    int rcmax;          /* round 30A: ms_cu_args' rcmax */
#endif
#ifdef MS_CU_OR_TAIL2
    int32_t tl2;        /* round 33B: ms_cu_args' tl2, TAIL2's row budget R at most MS_CU_CAND (MS_CU_ORTAIL2: a knob) */
#endif
#ifdef MS_CU_K1_ROWCUT
    int rcmin;          /* round 31A: the row cut in steps whose chunks hold at least this many tokens (ms_cu_args' rcut) */
    int rcbits;         /* round 31A: which halves run where rcmin allows (MS_CU_RC_BITS: 1 K1's count, 2 K2's cut; 3) */
#  ifdef MS_CU_K1_RC_OWN
    uint32_t *d_rch;    /* the bins of round 31A's row cut, max_rows * MS_CU_RCB, zero between steps */
#  endif
#endif
#ifdef MS_CU_OR_TAPER
    int tpe;            /* round 32B: the taper e (MS_CU_OR_TAPER, or MS_CU_ORTAPER at creation: a measurement knob) */
#endif
#ifdef MS_CU_OR_DCUT2_RT
    int dc2;            /* round 33B: round 32C's gate (MS_CU_OR_DCUT2_MIN, or MS_CU_ORDC2 at creation: a knob) */
#endif
#ifdef MS_CU_OR_SPF_RT
    bool spf;           /* round 35B: SPF's order (MS_CU_SPF at creation, default 1; a measurement build) */
#endif
#ifdef MS_CU_OR_LOOP2
    bool ringk;         /* round 34C: K2's ring in every step (MS_CU_ORRING=1 at creation: a measurement knob) */
#endif
#ifdef MS_CU_WARM_CHUNK
    int32_t wchunk;     /* round 34A: the warm-up steps' smallest chunk (MS_CU_WARM_CHUNK, or MS_CU_WARMCHUNK; 0: off) */
#endif
#ifdef MS_CU_K4_ZERO
    bool ws_dirty;      /* round 17C: d_ws's stats may be nonzero (a step failed half-way): the next step zeroes them */
#endif
    uint8_t *h_kept;    /* host staging of commit flags (max_rows) */
#ifdef MS_CU_RC_INST
    uint8_t *h_rcq;     /* round 32A: per slot (capacity), 1 when its request can take the row cut (ms__cuda_ingest) */
    int32_t rc_slots;   /* round 32A: how many slots hold 1 there */
#endif
#if defined(MS_CU_OR_SMALLB) && defined(MS_CU_OR_GMAX)
    uint8_t *h_orx;     /* round 37C: per slot (capacity), 1 when its request would not be a lite one-read row (ms_cu_or_nolite) */
    int32_t orx_slots;  /* round 37C: how many slots hold 1 there (ms__cuda_ingest / ms__cuda_remove) */
#endif
    int32_t *h_stage;   /* pageable host copy of plan / accept tokens (MS_CU_STAGE): see ms_cu_stage_tokens */
} ms_cu_state;

/* ---- small device helpers ------------------------------------------------------------------ */

template <int M> struct ms_cu_hmode { static constexpr int v = M; }; /* round 17A: K2's histogram pass's copy, chosen at compile time */
#ifndef MS_CU_K3_FASTL_NG /* round 27C: groups of 4 loads in flight a thread in -DMS_CU_K3_FASTL's loop */
#  define MS_CU_K3_FASTL_NG 4
#endif
#ifndef MS_CU_K2_HLEAN_NG /* round 24D: groups of 4 loads in flight a thread in -DMS_CU_K2_HLEAN's copy */
#  define MS_CU_K2_HLEAN_NG MS_CU_K2_NG
#endif
#ifndef MS_CU_K2_HQ0RT_MIN /* round 31C: lanes of 32 whose first group lies below xq0 for a warp to take =2's loop */
#  define MS_CU_K2_HQ0RT_MIN 16
#endif
#ifndef MS_CU_K2_HSPLIT_MPNG /* round 17A: groups in flight a thread in the min-p rows' copy of K2's histogram pass */
#  define MS_CU_K2_HSPLIT_MPNG MS_CU_K2_NG
#endif

/* Programmatic dependent launch (round 5): K2, K3 and K4 are launched with the programmatic stream
 * serialization attribute, so each one's blocks are scheduled, and run their prologue (slot, settings,
 * window filter: all written before K1 started), while the previous kernel still runs. ms_cu_pdl_wait
 * (griddepcontrol.wait) then waits until the previous grid has completed and its memory is visible,
 * and every read of what K1..K3 wrote comes after it. A kernel launched without the attribute (eager
 * calls on older devices, -DMS_CU_NO_PDL) passes the wait at once. ms_cu_pdl_go lets the next kernel's
 * blocks be scheduled early; it orders nothing (the wait is for the whole grid). */
__device__ __forceinline__ void ms_cu_pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void ms_cu_pdl_go() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

#if defined(MS_CU_RF) || defined(MS_CU_OR_RF)
/* Round 18B (-DMS_CU_ROWFLAGS, off): a row's own counter instead of the previous grid's completion. For a lite row
 * (ms_cu_lite_k) in a step on the resource's own workspace (a.k4zero: its stats, the counters too, are zero at every
 * step's start; a caller's workspace is zeroed by K0, which a spinner could outrun, so it keeps the grid waits):
 *  - each K1 block of the row, after its histogram clears (the block's barrier) and its atomicMax (thread 0), counts
 *    itself in k1n (thread 0: a fence, then atomicAdd: a release, as ms_cu_rf_done), and each K2 block of the
 *    row waits until k1n reaches a.G (ms_cu_rf_wait, thread 0's acquire loads, then a barrier) instead of
 *    griddepcontrol.wait: it needs only its row's max and cleared bins (RF12);
 *  - each K2 block of a lite or one-read row counts itself in k2n after its last write of the row's candidates,
 *    bins, m0 and cand_n (on every path, an empty row's too), and K4's lean path waits until k2n reaches a.G
 *    instead of K3's grid, which it waited for only because K3's block 0 waits for K2's (RF24).
 * The rest rides on these: K2's lite blocks saw K1's writes (acquire of k1n) before their own, so K4's acquire of
 * k2n sees both (causality is transitive). Every kernel still runs griddepcontrol.wait before it exits, after the
 * row's work (K2 at its end, K4 in ms_cu_k4's zeroing), so K2's completion still covers K1's and K4 zeroes the stats
 * only after K1..K3 are done with them, as in round 17C. Rows of every other kind (greedy, one-read rows in K2,
 * histogram rows, empty slots) count nothing and wait as before; K1, K2 and K4 decide a row's kind from its slot
 * alone (ms_cu_filters reads no max), so the counting and the waiting sides agree; a K1 block covers one row.
 * Why no deadlock: a PDL secondary's blocks are scheduled only once every block of the primary has run
 * griddepcontrol.launch_dependents (K1, K2 and K3 run it at their entry) or exited, so every block a spinner waits
 * for has started and needs nothing from the spinner's grid (K4's row: K2's blocks started before K3's, which
 * started before K4's). Without PDL (older devices, -DMS_CU_NO_PDL) the previous grid has completed and the count is
 * full. And should a count never fill (a path missed here, foreign kernels holding the multiprocessors), thread 0
 * gives up after MS_CU_RF_SPIN_US and takes griddepcontrol.wait, which covers everything the count stood for:
 * correctness never depends on the counters, only the latency.
 * Round 28C (-DMS_CU_OR_RF, off): the same for the one-read steps (K2or, MS_CU_OR_K2OWN, which MS_CU_RF leaves out), RF24
 * alone. Each K2or block of a row of ms_cu_onread, once ms_cu_k2or_row returned (every path of ms_cu_k2_one, the empty
 * chunk's and round 23A's idle blocks' too) and after its grid wait (already passed on the usual path, so K1 is covered
 * as by K2's grid), counts itself in the row's c_above (ms_cu_rf_done: a barrier after the block's last write of the
 * row's candidates, cand_n and maxkey, then thread 0's fence and atomicAdd, a release). c_above is written only by K2's
 * last block of a histogram row and read only by K4's BAND path: never for a one-read row (a lite row), and zero at a
 * step's start (K4 zeroes the row's stats, after its grid wait, when every count is in). ms_cu_k4<true>'s block of such
 * a row waits until it reaches a.G (thread 0's acquire loads, then the barrier) instead of griddepcontrol.wait: all
 * the lean path reads of the row after it (maxkey, cand_n, the candidates; the bins it also loads are unused for
 * one-read rows; K3 writes nothing for lite rows) were written by those G blocks before their release, so each thread
 * reads them after the acquire and the barrier. K4 decides the row's kind from the slot and the step's arguments
 * (ms_cu_k4_lean, ms_cu_onread) as K2or does, so the counting and the waiting sides agree. Every other row, and a
 * caller's workspace, wait as before; K4 still waits for its grid before it zeroes the stats (ms_cu_k4_zero), and K2or
 * before its blocks exit. No deadlock: K4's blocks are scheduled only once every K3 block started, K3's once every
 * K2or block started, so all the blocks counted have started and need nothing from K4 (the give-up covers the rest).
 * K4L / K4R (more rows than multiprocessors) wait as before: K4R's rows that reach ms_cu_k4_row<true> find the count
 * full (K4L's completion covers K2's). */
#ifndef MS_CU_RF_SPIN_US
#  define MS_CU_RF_SPIN_US 2000
#endif
#ifndef MS_CU_RF_NS
#  define MS_CU_RF_NS 32 /* the spin's first back-off (ns, doubling to 128); round 28C: 0, none */
#endif
__device__ __forceinline__ uint32_t ms_cu_rf_ld(const uint32_t *p) {
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
/* By one thread: returns once the count at p reached need, or after MS_CU_RF_SPIN_US once the previous grid completed. */
__device__ __forceinline__ void ms_cu_rf_spin(const uint32_t *p, uint32_t need) {
    if (ms_cu_rf_ld(p) >= need) return;
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    unsigned ns = MS_CU_RF_NS;
    while (ms_cu_rf_ld(p) < need) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > (unsigned long long)MS_CU_RF_SPIN_US * 1000ull) {
            ms_cu_pdl_wait();
            break;
        }
        if (MS_CU_RF_NS > 0) { /* round 28C: -DMS_CU_RF_NS=0 polls without the backoff */
            __nanosleep(ns);
            ns = ns < 128 ? 2 * ns : ns;
        }
    }
}
/* By the whole block (block-uniform): returns once the count at p reached need (or the previous grid completed). */
__device__ __forceinline__ void ms_cu_rf_wait(const uint32_t *p, uint32_t need) {
    if (threadIdx.x == 0) ms_cu_rf_spin(p, need);
    __syncthreads();
}
#ifdef MS_CU_OR_RFST
/* Round 33C (-DMS_CU_OR_RFST): ms_cu_rf_wait, and thread 0 then loads the row's first 16 bytes of stats (plain loads,
 * after its acquire in program order: they see every counted block's writes, as every thread's reads after the barrier
 * do in ms_cu_rf_wait's use) and stores them in ms_cu_rfst_sh before the barrier, which orders the store before every
 * thread's read of it. The words are the ones ms_cu_k4_lite would load itself after the barrier, and nothing writes
 * them between (the row's K2or blocks are done with them, K3 writes nothing for lite rows, K4 zeroes them only at its
 * end): the same values. */
__shared__ uint4 ms_cu_rfst_sh;
__device__ __forceinline__ void ms_cu_rf_wait_st(const uint32_t *p, uint32_t need, const ms_cu_rowstat *st) {
    if (threadIdx.x == 0) {
        ms_cu_rf_spin(p, need);
        ms_cu_rfst_sh = *(const uint4 *)st; /* maxkey, ticket, cand_n, bound: 16-byte aligned (the stats' first words) */
    }
    __syncthreads();
}
#endif
/* By the whole block (block-uniform), after its last write to the row's stats, candidates and bins. Round 28C
 * (MS_CU_RF_REL, with -DMS_CU_OR_RF unless -DMS_CU_OR_RF_SC): a release reduction (red.release.gpu: MEMBAR.ALL.GPU and
 * REDG on sm_90) instead of __threadfence's MEMBAR.SC.GPU and an atomicAdd; a release is cumulative, so the other
 * threads' writes ordered before it by the barrier are covered as with the fence. */
__device__ __forceinline__ void ms_cu_rf_done(uint32_t *p) {
    __syncthreads();
    if (threadIdx.x == 0) {
#ifdef MS_CU_RF_REL
        asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
#else
        __threadfence();
        atomicAdd(p, 1u);
#endif
    }
}
#endif

/* Round 7, a diagnostic for the graph step's chain (no nsys on the lent machine), built only with
 * -DMS_CU_STAMPS: thread 0 of every block records %globaltimer (ns) at fixed points of K1..K4 as the
 * earliest and latest over the blocks (ms_cu_st_lo/hi[event]) while ms_cu_st_on is set; ms__cuda_stamps
 * arms and reads them, ms_bench_cuda prints them for one step (MS_BENCH_STAMPS=1). Events: 0 K1 entry,
 * 1 K1 exit, 2 K2 entry, 3 K2 after its wait, 4 K2 exit (lite rows), 5 K3 entry, 6 K3 after its wait, 7 K3
 * exit (rows it skips), 8 K4 entry, 9 K4 after its wait, 10 K4 lean: after the stats' and bins' loads,
 * 11 K4 lean: the list built (after its barrier), 12 K4 lean: the row drawn (warp 0, after ms_cu_k4_warp2)
 * or the block finish done; inside the one-warp finish (ms_cu_k4_warp2): 13 the counts and masses above,
 * 14 filtered (top-k / top-p), 15 the kept set's total (before the draw's test); round 15A: 16 K2's scan
 * done (lite and one-read rows: after the barrier that follows ms_cu_k2_scan / ms_cu_k2_scan1, before the
 * drain and the list). Round 17B, inside K4's lean path (thread 0 of the block): 17 its preloaded candidates
 * arrived, 18 its part of the list done (before the list's barrier), 19 the trim's smallest and largest key
 * known (ms_cu_kth_key), 20 the trim's first radix level done, 21 the trim's k'-th key found, 22 the trim done
 * (the list compacted), 23 the block finish's entries (keys, ids, masses) written (after its first barrier).
 * Round 17B's row counters (ms_cu_stq, read by ms__cuda_stamps_q): 0 the row's candidates (cand_n), 1 those
 * listed, 2 those left after the trim (the listed ones when none), 3 the trim's radix levels (0 when none), 4 a
 * one-read row (0/1); the sum, the least and the largest over the lean rows, and the rows counted.
 * Round 17C: 24 K4's exit (MS_CU_K4_ZERO builds: after the stats' zeroing, if any), 25 K0 entry (17 and 18 in
 * round 17C's own build). Round 18A (one-read K2, ms_cu_k2_scan1, thread 0 of the block): 26 the first step's barrier
 * passed, 27 the scan loop past half the chunk's whole groups.
 * Round 18B (-DMS_CU_ROWFLAGS): 28 K1's count in k1n (thread 0, after the atomicAdd), 29 K2's
 * count in k2n (lite and one-read rows, after the atomicAdd); 3 and 9 are then after the row's counter wait.
 * Fourteenth session (one-read K2, ms_cu_k2_one, thread 0 of the block): 30 the staged tokens drained (after the
 * barrier that follows the drain or the overflow's re-read), 31 past its PDL wait (then the list; 4 is the exit).
 * Round 25A (-DMS_CU_K3W_K2, ms_cu_k2_k3w, thread 0 of K3's blocks in K2's grid, FAST / BAND rows): 32 its row's mode
 * seen (or given up), 33 its gather done. Fifteenth session: 32-33 helper A's, 34-35 helper B's (round 21B, -DMS_CU_K4_RTRIM, ms_cu_k4_rtrim, thread 0 of the block: 34
 * its histogram done (after its first barrier), 35 its list written (after its second barrier)); round 20C (K4's warm-up pass, MS_CU_K4_WARM, thread 0 of the
 * block): 36 the warm-up pass begins (after the lean set-up, before its barrier), 37 it ended (its finish done). */
#define MS_CU_NSTAMP 38
#define MS_CU_NSTQ 5
#ifdef MS_CU_STAMPS
__device__ unsigned long long ms_cu_st_lo[MS_CU_NSTAMP], ms_cu_st_hi[MS_CU_NSTAMP];
__device__ int ms_cu_st_on;
__device__ unsigned long long ms_cu_st_q[3 * MS_CU_NSTQ + 1]; /* sums, least, largest, rows */
/* Round 29B: per K2 block (blockIdx.x % MS_CU_NBLK): 0 its entry (event 2), 1 its scan's end (ms_cu_orq_blk, a one-read
 * row's block: event 16's point), 2 its exit (event 4); its row, chunk and multiprocessor (r << 16 | g << 8 | %smid,
 * ~0 for blocks of no one-read row) and its staged tokens (rn). Read per step by ms__cuda_stamps_blk. */
#  define MS_CU_NBLK 4096
__device__ unsigned long long ms_cu_blk_t[3][MS_CU_NBLK];
__device__ uint32_t ms_cu_blk_m[MS_CU_NBLK], ms_cu_blk_n[MS_CU_NBLK];
__device__ __forceinline__ void ms_cu_stamp(int e) {
    if (threadIdx.x == 0 && ms_cu_st_on) {
        unsigned long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        atomicMin(&ms_cu_st_lo[e], t);
        atomicMax(&ms_cu_st_hi[e], t);
        if (e == 2 || e == 4) ms_cu_blk_t[e == 2 ? 0 : 2][blockIdx.x % MS_CU_NBLK] = t; /* round 29B */
    }
}
__device__ __forceinline__ void ms_cu_stq(int q, unsigned long long v) { /* by one thread a row */
    if (ms_cu_st_on) {
        atomicAdd(&ms_cu_st_q[q], v);
        atomicMin(&ms_cu_st_q[MS_CU_NSTQ + q], v);
        atomicMax(&ms_cu_st_q[2 * MS_CU_NSTQ + q], v);
        if (q == 0) atomicAdd(&ms_cu_st_q[3 * MS_CU_NSTQ], 1ull);
    }
}
/* Round 20A: the one-read pass's counters (ms__cuda_stamps_or), summed over its blocks while the stamps are armed:
 * per warp (lane 0 at the scan's end, ms_cu_orq_flush) 0 steps with the bookkeeping, 1 steps skipped (round 19B),
 * 2 steps with a token past the cut, 3 groups with one (-DMS_CU_OR_WSTAGE: the staging loop's rounds), 4 top-k' scans,
 * 5 min-p cuts recomputed (the bound rose), 6 scans that raised the cut, 7 row cuts that raised it (-DMS_CU_OR_ROWCUT);
 * per block (thread 0) 8 blocks, 9 tokens
 * staged (rn), 10 tokens of C (sn), 11 blocks whose stage overflowed. Per multiprocessor (%smid) the blocks and their
 * scan's end (after the barrier that follows it: event 16's point), earliest and latest. */
#  define MS_CU_NORQ 12
#  define MS_CU_NSM 256
__device__ unsigned long long ms_cu_orq[32][MS_CU_NORQ]; /* 32 copies (blockIdx.x % 32): the same-address atomics of
                                                        * one copy cost 14 us at flat B=64 (call 1's DC) */
__device__ unsigned long long ms_cu_sm_lo[MS_CU_NSM], ms_cu_sm_hi[MS_CU_NSM], ms_cu_sm_n[MS_CU_NSM];
/* the warp's counters 0..7 packed in 8 bits each (one 64-bit register: few spills in the stamps build; a chunk of at
 * most 32768 tokens has at most 128 steps a warp) */
#  define MS_CU_ORQ_ADD(i, v) (orq += (unsigned long long)(v) << (8 * (i)))
__device__ __forceinline__ void ms_cu_orq_flush(unsigned long long orq) {
    if ((threadIdx.x & 31u) == 0 && ms_cu_st_on)
#  pragma unroll
        for (int i = 0; i < 8; i++)
            if ((orq >> (8 * i)) & 255u) atomicAdd(&ms_cu_orq[blockIdx.x & 31u][i], (orq >> (8 * i)) & 255u);
}
/* Round 29B: thread 0: this block's scan ended (ms_cu_k2_one): its record (ms_cu_blk_t) */
__device__ __forceinline__ void ms_cu_orq_blk(int32_t r, int32_t g, uint32_t rn) {
    if (threadIdx.x == 0 && ms_cu_st_on) {
        unsigned long long t;
        uint32_t sm;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        const uint32_t b = blockIdx.x % MS_CU_NBLK;
        ms_cu_blk_t[1][b] = t;
        ms_cu_blk_m[b] = ((uint32_t)r << 16) | (((uint32_t)g & 255u) << 8) | (sm & 255u);
        ms_cu_blk_n[b] = rn;
    }
}
__device__ __forceinline__ void ms_cu_orq_block(int i, unsigned long long v) { /* thread 0 */
    if (threadIdx.x == 0 && ms_cu_st_on) atomicAdd(&ms_cu_orq[blockIdx.x & 31u][i], v);
}
__device__ __forceinline__ void ms_cu_orq_sm() { /* thread 0: this block's scan ended */
    if (threadIdx.x == 0 && ms_cu_st_on) {
        unsigned long long t;
        uint32_t sm;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        if (sm < MS_CU_NSM) {
            atomicMin(&ms_cu_sm_lo[sm], t);
            atomicMax(&ms_cu_sm_hi[sm], t);
            atomicAdd(&ms_cu_sm_n[sm], 1ull);
        }
    }
}
#else
#  define ms_cu_stamp(e) ((void)0)
#  define ms_cu_stq(q, v) ((void)0)
#  define MS_CU_ORQ_ADD(i, v) ((void)0)
#endif

__device__ __forceinline__ uint32_t ms_cu_key(float y) {
    uint32_t u = ms__f2u(y == 0.0f ? 0.0f : y);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float ms_cu_unkey(uint32_t k) {
    return ms__u2f((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}
#define MS_CU_KEY_NEGINF 0x007fffffu

/* Everything a block needs about its row. */
struct ms_cu_row {
    const void *row;
    int dtype;
    int32_t V;
    ms_cu_slot sl;
    bool greedy, pres, win, filters, floor, inf_row, minp_on;
    float m;
    float minp_cut; /* d = y - m below this: w < min_p for certain (see ms_cu_set_max) */
    float xcut;     /* penalised x below this: the same, before dividing by T */
    const uint64_t *seen;
    const int32_t *hist;
    int32_t hist_cap, w_eff;
    const uint64_t *stop;
    uint32_t *wfilt; /* shared 8192-bit filter of the window's tokens */
};

__device__ __forceinline__ float ms_cu_load(const void *row, int dtype, int32_t t) {
    if (dtype == MS_DTYPE_F32) return ((const float *)row)[t];
    uint16_t h = ((const uint16_t *)row)[t];
    return dtype == MS_DTYPE_BF16 ? ms__bf16_to_f32(h) : ms__f16_to_f32(h);
}

__device__ __forceinline__ int ms_cu_bit(const uint64_t *bits, int32_t t) { return (int)((bits[t >> 6] >> (t & 63)) & 1u); }

/* The penalised logit (SPEC 2.1), exactly as ms_cpu_ref.c's ms__penalties, from the raw value. */
__device__ __forceinline__ float ms_cu_pen(const ms_cu_row &c, float raw, int32_t t) {
    float x = ms__sanitize(raw);
    if (c.win) {
        if ((c.wfilt[(t >> 5) & 255] >> (t & 31)) & 1u) {
            int32_t cnt = 0;
            for (int32_t i = 0; i < c.w_eff; i++) {
                int32_t pos = (c.sl.hist_head - 1 - i + 2 * c.hist_cap) % c.hist_cap;
                cnt += c.hist[pos] == t;
            }
            if (cnt > 0) x = ms__penalize(x, ms__pow_n(c.sl.rep, cnt));
        }
    } else if (c.pres) {
        if (ms_cu_bit(c.seen, t)) x = ms__penalize(x, c.sl.rep);
    }
    return x;
}
__device__ __forceinline__ float ms_cu_x(const ms_cu_row &c, int32_t t) { return ms_cu_pen(c, ms_cu_load(c.row, c.dtype, t), t); }

/* Calls f(t, raw value) for every t in [t0, t1), spread over the block. Where the chunk is aligned,
 * each thread loads 4 consecutive values at once (16 bytes of fp32, 8 of fp16/bf16) and two such
 * groups before using either: enough bytes in flight to approach the memory bandwidth. */
__device__ __forceinline__ void ms_cu_load4(const ms_cu_row &c, int32_t t, float v[4]) {
    if (c.dtype == MS_DTYPE_F32) {
        float4 q = *(const float4 *)((const float *)c.row + t);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
        uint2 q = *(const uint2 *)((const uint16_t *)c.row + t);
        uint16_t h[4] = {(uint16_t)q.x, (uint16_t)(q.x >> 16), (uint16_t)q.y, (uint16_t)(q.y >> 16)};
        for (int k = 0; k < 4; k++) v[k] = c.dtype == MS_DTYPE_BF16 ? ms__bf16_to_f32(h[k]) : ms__f16_to_f32(h[k]);
    }
}
/* Whether a chunk from t0 takes ms_cu_load4's groups: the row's address at t0 aligned to a group of 4 values (16 bytes
 * of fp32, 8 of fp16 / bf16) and t0 a multiple of 4. */
__device__ __forceinline__ bool ms_cu_vec4(const ms_cu_row &c, int32_t t0) {
    const size_t es = c.dtype == MS_DTYPE_F32 ? 4 : 2;
    return (((uintptr_t)c.row + (size_t)t0 * es) & (4 * es - 1)) == 0 && (t0 & 3) == 0;
}
/* Loads NG groups of 4 values (t, t + step, ...; those at or past tv are left alone) and, for the
 * presence penalty, the 32-bit half of the seen set's word that holds each group (a group of 4, t a
 * multiple of 4, lies in one word): all issued before any is used, so each iteration waits for one
 * memory latency, not two in a row. Shared by every pass over a chunk. */
template <int NG, bool W = false> /* W: every group is below tv (round 19B's whole steps): no test */
__device__ __forceinline__ void ms_cu_load_groups(const ms_cu_row &c, int32_t t, int32_t step, int32_t tv,
                                                  float (&v)[NG][4], uint32_t (&words)[NG]) {
#pragma unroll
    for (int u = 0; u < NG; u++) {
        words[u] = 0;
        if (W || t + u * step < tv) {
            ms_cu_load4(c, t + u * step, v[u]);
            if (c.pres) words[u] = ((const uint32_t *)c.seen)[(t + u * step) >> 5];
        }
    }
}
/* The lean loops' walk (round 24D's histogram copy, round 27C's FAST gather; rows without penalties): NG groups of 4
 * values a thread from t0, all loaded (ms_cu_load_groups) before any is used, grp(t, v) for each group; returns where
 * the whole groups end, from which the caller takes the last t1 - tv tokens one by one. */
template <int NG, class G>
__device__ __forceinline__ int32_t ms_cu_lean_groups(const ms_cu_row &c, int32_t t0, int32_t t1, G grp) {
    const int32_t step = (int32_t)blockDim.x * 4;
    const int32_t tv = t0 + ((t1 - t0) & ~3);
    for (int32_t t = t0 + (int32_t)threadIdx.x * 4; t < tv; t += NG * step) {
        float v[NG][4];
        uint32_t words[NG]; /* not read: the lean loops' rows have no presence penalty */
        ms_cu_load_groups<NG>(c, t, step, tv, v, words);
#pragma unroll
        for (int u = 0; u < NG; u++)
            if (t + u * step < tv) grp(t + u * step, v[u]);
    }
    return tv;
}
#if defined(MS_CU_K2_HQ0) && MS_CU_K2_HQ0 == 4
/* Round 31C (-DMS_CU_K2_HQ0=4, off): ms_cu_lean_groups with a choice made once a warp from the loads of its first step:
 * each lane's first NG groups are loaded as the loop would load them, the warp counts the lanes whose first group
 * satisfies pick (__ballot_sync: the caller's every lane is here), and with at least MS_CU_K2_HQ0RT_MIN of 32 the warp
 * walks its groups with g2, else with g1, each a loop of its own (its first step's values already in registers), so
 * the choice costs no load of its own. The same groups in the same per-thread order as ms_cu_lean_groups. */
template <int NG, class P, class G1, class G2>
__device__ __forceinline__ int32_t ms_cu_lean_groups_rt(const ms_cu_row &c, int32_t t0, int32_t t1, P pick, G1 g1, G2 g2) {
    const int32_t step = (int32_t)blockDim.x * 4;
    const int32_t tv = t0 + ((t1 - t0) & ~3);
    const int32_t tf = t0 + (int32_t)threadIdx.x * 4;
    float v[NG][4];
    uint32_t words[NG]; /* not read: the lean loops' rows have no presence penalty */
    ms_cu_load_groups<NG>(c, tf, step, tv, v, words);
    const bool p = tf < tv && pick(v[0]);
    auto walk = [&](auto grp) {
#pragma unroll
        for (int u = 0; u < NG; u++)
            if (tf + u * step < tv) grp(v[u]);
        for (int32_t t = tf + NG * step; t < tv; t += NG * step) {
            float w[NG][4];
            ms_cu_load_groups<NG>(c, t, step, tv, w, words);
#pragma unroll
            for (int u = 0; u < NG; u++)
                if (t + u * step < tv) grp(w[u]);
        }
    };
    if (__popc(__ballot_sync(0xffffffffu, p)) >= MS_CU_K2_HQ0RT_MIN) walk(g2);
    else walk(g1);
    return tv;
}
#endif
/* Round 15A: K2's scans (ms_cu_k2_scan, ms_cu_k2_scan1) keep MS_CU_RING groups of 4 values per thread in flight
 * through a per-thread cp.async ring in shared memory instead of NG groups in registers: K2 is capped at 64
 * registers (4 blocks/SM), so NG = 2 (32 B a thread) was all it could hold, and each iteration waited a whole
 * memory latency before the next one's loads issued (the one-read pass over DRAM ran at 1.1-2 TB/s, bound by
 * bytes in flight). Each thread copies its own next groups (16 B of fp32 or 8 B of fp16 / bf16, and the seen
 * set's 32-bit word of the group when the presence penalty is on) into its own slots MS_CU_RING groups ahead,
 * one commit group per group (an empty one past the chunk, so the counts stay fixed), and waits with
 * cp.async.wait_group for the ones it reads next. A thread reads only the slots it filled itself, so no barrier
 * is needed; a slot is refilled only after its values were read into registers and used (the group max). The
 * values and the per-thread order of the tests are the same as the register loads': exactness is untouched.
 * The slots alias sbuf (MS_CU_STAGE_SH x 8 B: MS_CU_RING x 16 B a thread) and the first 1024 words of the
 * scnt array (the words), both unused until the scan has ended: the scans end with cp.async.wait_all and
 * their callers' next barrier comes before the drain's, the overflow's or the list's first write there.
 * -DMS_CU_NO_RING: the register loads (ms_cu_load_groups), as before round 15A. */
struct ms_cu_ring {
    unsigned char *d; /* MS_CU_RING x blockDim.x slots of 16 B: thread i's slot s at d + (s blockDim.x + i) 16 */
    uint32_t *w;      /* the seen words: thread i's slot s at w[s blockDim.x + i] */
};
#ifndef MS_CU_RING
#  define MS_CU_RING 4 /* groups in flight per thread (a multiple of MS_CU_K2_NG) */
#endif
static_assert(MS_CU_RING * MS_CU_T123 * 16 <= MS_CU_STAGE_SH * 8, "the ring's slots fit in sbuf");
static_assert(MS_CU_RING * MS_CU_T123 <= 1024, "the ring's words lie before the one-read bins (h + 1024)");
__device__ __forceinline__ void ms_cu_cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void ms_cu_cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
__device__ __forceinline__ void ms_cu_cp_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
/* Copies group t (t < tv) of thread threadIdx.x into ring slot s, then commits a group (empty for t >= tv). */
__device__ __forceinline__ void ms_cu_ring_put(const ms_cu_row &c, const ms_cu_ring &rg, int s, int32_t t, int32_t tv) {
    if (t < tv) {
        const uint32_t i = (uint32_t)s * blockDim.x + threadIdx.x;
        const uint32_t d = (uint32_t)__cvta_generic_to_shared(rg.d + (size_t)i * 16);
        if (c.dtype == MS_DTYPE_F32)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"((const float *)c.row + t) : "memory");
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(d), "l"((const uint16_t *)c.row + t) : "memory");
        if (c.pres) {
            const uint32_t dw = (uint32_t)__cvta_generic_to_shared(rg.w + i);
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dw), "l"((const uint32_t *)c.seen + (t >> 5))
                         : "memory");
        }
    }
    ms_cu_cp_commit();
}
/* Fills slots 0..MS_CU_RING-1 with this thread's first groups (t, t + step, ...). */
__device__ __forceinline__ void ms_cu_ring_start(const ms_cu_row &c, const ms_cu_ring &rg, int32_t t, int32_t step,
                                                 int32_t tv) {
#pragma unroll
    for (int s = 0; s < MS_CU_RING; s++) ms_cu_ring_put(c, rg, s, t + s * step, tv);
}
/* ms_cu_load_groups from the ring: waits until this thread's groups in slots s0..s0+NG-1 have landed (all but
 * the MS_CU_RING - NG groups committed after them), then reads them (values converted as ms_cu_load4). */
template <int NG, bool W = false> /* W: as ms_cu_load_groups */
__device__ __forceinline__ void ms_cu_ring_get(const ms_cu_row &c, const ms_cu_ring &rg, int s0, int32_t t,
                                               int32_t step, int32_t tv, float (&v)[NG][4], uint32_t (&words)[NG]) {
    static_assert(MS_CU_RING % NG == 0 && MS_CU_RING >= NG, "the ring holds whole steps");
    ms_cu_cp_wait<MS_CU_RING - NG>();
#pragma unroll
    for (int u = 0; u < NG; u++) {
        words[u] = 0;
        if (W || t + u * step < tv) {
            const uint32_t i = (uint32_t)(s0 + u) * blockDim.x + threadIdx.x;
            if (c.dtype == MS_DTYPE_F32) {
                const float4 q = *(const float4 *)(rg.d + (size_t)i * 16);
                v[u][0] = q.x, v[u][1] = q.y, v[u][2] = q.z, v[u][3] = q.w;
            } else {
                const uint2 q = *(const uint2 *)(rg.d + (size_t)i * 16);
                const uint16_t h[4] = {(uint16_t)q.x, (uint16_t)(q.x >> 16), (uint16_t)q.y, (uint16_t)(q.y >> 16)};
                for (int k = 0; k < 4; k++) v[u][k] = c.dtype == MS_DTYPE_BF16 ? ms__bf16_to_f32(h[k]) : ms__f16_to_f32(h[k]);
            }
            if (c.pres) words[u] = rg.w[i];
        }
    }
}
/* Refills slots s0..s0+NG-1 with the groups MS_CU_RING groups after t's (call after their values were used). */
template <int NG>
__device__ __forceinline__ void ms_cu_ring_next(const ms_cu_row &c, const ms_cu_ring &rg, int s0, int32_t t,
                                                int32_t step, int32_t tv) {
#pragma unroll
    for (int u = 0; u < NG; u++) ms_cu_ring_put(c, rg, s0 + u, t + (MS_CU_RING + u) * step, tv);
}

/* Calls f(t, x) with x the penalised logit of t, for every t in [t0, t1), spread over the block. */
/* f(t, x) for a group of 4 loaded values v at tg with the penalised x of each (word: the seen set's 32 bits that hold
 * it): the window penalty's per-token path, or sanitise and the presence penalty's bit */
template <class F>
__device__ __forceinline__ void ms_cu_group_x(const ms_cu_row &c, const float (&v)[4], uint32_t word, int32_t tg, F &f) {
#pragma unroll
    for (int k = 0; k < 4; k++) {
        float x;
        if (c.win) {
            x = ms_cu_pen(c, v[k], tg + k);
        } else {
            x = ms__sanitize(v[k]);
            if ((word >> ((tg + k) & 31)) & 1u) x = ms__penalize(x, c.sl.rep);
        }
        f(tg + k, x);
    }
}
template <int NG = 4, class F>
__device__ __forceinline__ void ms_cu_for_chunk(const ms_cu_row &c, int32_t t0, int32_t t1, F f) {
    const bool vec = ms_cu_vec4(c, t0);
    int32_t ts = t0;
    if (vec) {
        /* NG groups of 4 values per thread in flight before the first is used */
        const int32_t step = (int32_t)blockDim.x * 4;
        const int32_t tv = t0 + ((t1 - t0) & ~3); /* end of the whole groups */
        for (int32_t t = t0 + (int32_t)threadIdx.x * 4; t < tv; t += NG * step) {
            float v[NG][4];
            uint32_t words[NG]; /* the 32-bit half of the seen set's word that holds the group */
            ms_cu_load_groups<NG>(c, t, step, tv, v, words);
#pragma unroll
            for (int u = 0; u < NG; u++) {
                const int32_t tg = t + u * step;
                if (tg < tv) ms_cu_group_x(c, v[u], words[u], tg, f);
            }
        }
        ts = tv;
    }
    for (int32_t t = ts + (int32_t)threadIdx.x; t < t1; t += blockDim.x) f(t, ms_cu_x(c, t));
}

/* As ms_cu_for_chunk, but each warp runs its loops as long as any of its lanes has a token, and calls
 * f(t, x, ok) with every lane (ok false where the lane has none), so that f may use warp-wide
 * operations (K4's passes over the row; rounds 1-11 K2's lite path queued its rare tokens with it);
 * after() follows each group of at most 4 calls. Groups of 4 tokens whose raw values are all below
 * skip_below and that no penalty touches are skipped when the whole warp's are. */
template <int NG, class F, class H, class G4 = int>
__device__ __forceinline__ void ms_cu_for_chunk_w(const ms_cu_row &c, int32_t t0, int32_t t1, float skip_below, F f,
                                                  H after, G4 g4 = G4()) {
    const bool vec = ms_cu_vec4(c, t0);
    const int32_t wl = (int32_t)(threadIdx.x & ~31u); /* the warp's first thread */
    int32_t ts = t0;
    if (vec) {
        const int32_t step = (int32_t)blockDim.x * 4;
        const int32_t tv = t0 + ((t1 - t0) & ~3);
        for (int32_t t = t0 + (int32_t)threadIdx.x * 4, tb = t0 + wl * 4; tb < tv; t += NG * step, tb += NG * step) {
            float v[NG][4];
            uint32_t words[NG];
            ms_cu_load_groups<NG>(c, t, step, tv, v, words);
#pragma unroll
            for (int u = 0; u < NG; u++) {
                const int32_t tg = t + u * step;
                const bool ok = tg < tv;
                const uint32_t word = words[u];
                {
                    /* a warp whose groups are all below skip_below, unpenalised, skips them whole
                     * (fmaxf ignores NaN; four NaN give NaN, which is not skipped) */
                    const float gm = fmaxf(fmaxf(v[u][0], v[u][1]), fmaxf(v[u][2], v[u][3]));
                    const bool hot = ok && (c.win || ((word >> (tg & 31)) & 15u) != 0 || !(gm < skip_below));
                    if (!__any_sync(0xffffffffu, hot)) continue;
                }
                {
#pragma unroll
                    for (int k = 0; k < 4; k++) {
                        float x = 0.0f;
                        if (ok) {
                            if (c.win) {
                                x = ms_cu_pen(c, v[u][k], tg + k);
                            } else {
                                x = ms__sanitize(v[u][k]);
                                if ((word >> ((tg + k) & 31)) & 1u) x = ms__penalize(x, c.sl.rep);
                            }
                        }
                        f(tg + k, x, ok);
                    }
                }
                after();
            }
        }
        ts = tv;
    }
    for (int32_t t = ts + (int32_t)threadIdx.x, tb = ts + wl; tb < t1; t += blockDim.x, tb += blockDim.x) {
        const bool ok = t < t1;
        f(t, ok ? ms_cu_x(c, t) : 0.0f, ok);
        after();
    }
}

struct ms_cu_elem {
    uint32_t key;
    int32_t id;
    uint64_t q;
    bool s0;
};

/* w = exp(y - m) (or the +inf rule), its mass and min-p's verdict, from y. */
__device__ __forceinline__ ms_cu_elem ms_cu_from_y(const ms_cu_row &c, float y, int32_t t) {
    ms_cu_elem e;
    e.key = ms_cu_key(y);
    e.id = t;
    float w = c.inf_row ? (ms__is_pos_inf(y) ? 1.0f : 0.0f) : ms__exp(y - c.m);
    e.q = ms__mass(w);
    e.s0 = !c.minp_on || w >= c.sl.min_p;
    return e;
}

__device__ __forceinline__ ms_cu_elem ms_cu_elem_at(const ms_cu_row &c, int32_t t) {
    float y = ms_cu_x(c, t) / c.sl.temperature;
    return ms_cu_from_y(c, y, t);
}

/* As ms_cu_from_y for the passes over the whole row, skipping exp where min-p drops the token for
 * certain (then only s0 = false is meaningful). */
__device__ __forceinline__ ms_cu_elem ms_cu_from_y_pre(const ms_cu_row &c, float y, int32_t t) {
    if (c.minp_on && !c.inf_row && y - c.m < c.minp_cut) {
        ms_cu_elem e;
        e.key = 0;
        e.id = t;
        e.q = 0;
        e.s0 = false;
        return e;
    }
    return ms_cu_from_y(c, y, t);
}

/* Sets up c for row r (slot already checked in use). Builds the window filter; syncs the block. */
__device__ void ms_cu_row_setup(ms_cu_row &c, const ms_cu_slot *slots, int32_t slot, const void *row, int dtype,
                                int32_t V, bool apply_penalty, bool apply_filters, const uint64_t *seen,
                                int32_t seen_words, const int32_t *hist, int32_t hist_cap, const uint64_t *stop,
                                uint32_t *wfilt) {
    c.row = row;
    c.dtype = dtype;
    c.V = V;
    c.sl = slots[slot];
    c.greedy = c.sl.temperature < MS_GREEDY_TEMPERATURE;
    const bool pen = c.sl.rep != 1.0f;
    c.win = pen && c.sl.window > 0 && hist != NULL;
    c.pres = pen && !c.win && c.sl.window == 0 && apply_penalty && seen != NULL;
    c.seen = seen ? seen + (size_t)slot * (size_t)seen_words : NULL;
    c.hist_cap = hist_cap;
    c.hist = hist ? hist + (size_t)slot * (size_t)hist_cap : NULL;
    c.w_eff = c.win ? (c.sl.window < c.sl.hist_len ? c.sl.window : c.sl.hist_len) : 0;
    c.filters = apply_filters;
    c.minp_on = apply_filters && c.sl.min_p > 0.0f;
    c.stop = stop;
    c.floor = stop != NULL && c.sl.n < (uint64_t)c.sl.min_tokens;
    c.wfilt = wfilt;
    c.m = 0.0f;
    c.inf_row = false;
    c.minp_cut = -INFINITY;
    c.xcut = -INFINITY;
    if (c.win) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x) wfilt[i] = 0;
        __syncthreads();
        for (int32_t i = threadIdx.x; i < c.w_eff; i += blockDim.x) {
            int32_t pos = (c.sl.hist_head - 1 - i + 2 * hist_cap) % hist_cap;
            int32_t t = c.hist[pos];
            atomicOr(&wfilt[(t >> 5) & 255], 1u << (t & 31));
        }
    }
    __syncthreads();
}

/* Filter switches of the row (SPEC 2.4 as ms_cpu_ref.c reads them). */
struct ms_cu_filt {
    int32_t k;   /* top-k of the default order (0 off) */
    int32_t k2;  /* top-k after top-p in the HF order (0 off) */
    bool p_on;
    uint64_t pq;
    bool sel;    /* any threshold to find */
    bool k2run;  /* K2 runs: thresholds to bound, or min-p survivors to gather */
};
__device__ __forceinline__ ms_cu_filt ms_cu_filters(const ms_cu_row &c) {
    ms_cu_filt f;
    f.k = c.sl.top_k < c.V ? c.sl.top_k : 0;
    f.p_on = c.sl.top_p < 1.0f;
    f.pq = ms__top_p_q(c.sl.top_p);
    f.k2 = 0;
    if (c.sl.top_p_first) {
        int32_t k2 = f.k > 0 ? (f.k > c.sl.min_keep ? f.k : c.sl.min_keep) : 0;
        f.k2 = (k2 > 0 && k2 < c.V) ? k2 : 0;
        f.k = 0;
    }
    f.sel = c.filters && (f.k > 0 || f.k2 > 0 || f.p_on);
    f.k2run = f.sel || c.minp_on;
    return f;
}

/* A "lite" row (min-p on, a top-k of at most MS_CU_STAGE_SH): K2 gathers, per block, only the chunk's
 * top-k (with ties) among its min-p survivors S0, and no histogram. Why that is exact: a token that
 * top-k keeps has fewer than k tokens of S0 strictly above it in the whole row, hence fewer than k in
 * its own chunk; the union of the chunks' lists therefore holds the row's top-k of S0 (whose members
 * are also the k largest of the union), so the union's own top-k, to which K4 trims it, is exactly
 * that set, and it holds every token of S0 above any of its members (the prefix masses are exact).
 * In the HF order top-k runs after top-p, whose kept set is closed upward within S0, so the same holds
 * with k' = max(k, min_keep). Top-p in the HF order needs S0's whole mass: K2 sums it (integers). */
__device__ __forceinline__ int32_t ms_cu_lite_k(const ms_cu_row &c, const ms_cu_filt &f) {
    const int32_t kk = f.k > 0 ? f.k : f.k2;
    return (c.minp_on && kk > 0 && kk <= MS_CU_STAGE_SH) ? kk : 0;
}

/* Round 5: the lite rows' candidate histogram. K2 counts the candidates it lists (a chunk's top-k' of
 * S0) in 256 bins by their distance below the row max, d = m - y, in the row's hcnt space (unused by
 * lite rows otherwise; K1 clears its first 256 words): each in its own bin when the chunk listed all its
 * survivors, all in the bin of the chunk's k'-th key when it cut there (one atomic), none from the
 * re-reading path; so the count of bins 0..b is never above the true number of candidates in them. K4
 * finds the first bin b* where that count reaches k' and loads only the candidates in bins <= b*: about
 * k' instead of every chunk's list (at B=1 each 1024-token chunk has fewer than k' survivors, so K2 lists
 * all ~1600 of a flat row). Exact: the bin is a non-increasing function of y (a correctly rounded
 * subtraction, a product with a positive scale, a clamp, a truncation: each monotone), computed by the
 * same code from the same m in K2 and K4, so bins <= b* are an upper set of the candidates in y holding
 * at least k' of them (ties share a bin): a superset of their top k', to which K4 trims as before. The scale spreads min-p's range (d up to
 * 0.01 - ln min_p) over the bins; +inf rows (m = +inf) do not use it. */
#define MS_CU_LBINS 256
__device__ __forceinline__ float ms_cu_lbin_scale(const ms_cu_row &c) {
    return (float)(MS_CU_LBINS - 1) / (0.01f - logf(c.sl.min_p));
}
__device__ __forceinline__ uint32_t ms_cu_lbin(const ms_cu_row &c, float scale, uint32_t key) {
    const float v = (c.m - ms_cu_unkey(key)) * scale;
    return v < (float)(MS_CU_LBINS - 1) ? (uint32_t)v : (uint32_t)(MS_CU_LBINS - 1); /* v >= 0: y <= m */
}


/* The key v of the kk-th largest of a set (ties counted: fewer than kk keys above v, at least kk at or
 * above it), by an 8-bit radix descent over block-wide shared histograms. The set has more than kk
 * elements; each(f) calls f(key) for every element this thread owns. h: 256 shared words; res: 2. */
/* Round 17B (MS_CU_K4_TSEL, on with MS_CU_K4_R17_LITE since the twelfth session's final call): K4's trim (ms_cu_k4_trim) ends the descent early. After a level, when the
 * digit holding the kk-th key counts at most 32 keys, those keys (the ones whose top bits equal the new
 * prefix) are gathered into h[0..31] and warp 0 takes the need-th largest among them (ties counted: fewer
 * than need above it, at least need at or above it): with the kk - need keys of the higher digits that is
 * the kk-th key of the whole set, the value the remaining levels would have found. res: 4 words (2 without). */
#ifdef MS_CU_K4_TSEL
#  define MS_CU_KTH_EARLY true
#else
#  define MS_CU_KTH_EARLY false
#endif
/* Round 17B (-DMS_CU_K4_R17_LITE): round 17B's K4 switches (EARLYLD, LIST1, TSEL, and MS_CU_K4_PF) act in
 * ms_cu_k4<false> only, the kernel of the lite steps (B < 52 at fp32 V=151936); ms_cu_k4<true>, the one-read
 * steps' kernel, keeps the default's code (measured: they made the one-read steps 0.4-3.5 us slower). Validated
 * and measured (bench/results/cuda_h200_2026-11-30-round17b.md): EARLYLD + LIST1 + TSEL + MS_CU_K4_PF=6 (G6), all
 * tests and both sanitizers, full setting flat B=1 / 4 / 16 -1.3 / -1.7 / -2.2 us, one-read steps slower; with this
 * switch K4<false>'s PTX is G6's and K4<true>'s the code before. On (with the four) since the twelfth session's final
 * call, which ran this code for the first time: all CUDA tests, memcheck, racecheck (session12-final.md). */
#ifdef MS_CU_K4_R17_LITE
#  define MS_CU_R17(OR) (!(OR))
#else
#  define MS_CU_R17(OR) true
#endif
template <class EACH, int ST = 0, bool EARLY = false> /* ST: round 17B's stamps inside K4's trim (19..21, thread 0), 0: none */
__device__ uint32_t ms_cu_kth_key(const EACH &each, uint32_t kk, uint32_t *h, uint32_t *res) {
    /* The keys of a row's survivors share their top bits (sign, most of the exponent): find the
     * common prefix of the smallest and largest key first and descend from the first digit where they
     * differ, instead of piling every key onto one histogram bin. */
    if (threadIdx.x == 0) {
        res[0] = 0xffffffffu;
        res[1] = 0;
    }
    __syncthreads();
    uint32_t lo = 0xffffffffu, hi = 0;
    each([&](uint32_t key) {
        lo = key < lo ? key : lo;
        hi = key > hi ? key : hi;
    });
    lo = __reduce_min_sync(0xffffffffu, lo);
    hi = __reduce_max_sync(0xffffffffu, hi);
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&res[0], lo);
        atomicMax(&res[1], hi);
    }
    __syncthreads();
    lo = res[0];
    hi = res[1];
    __syncthreads();
    if (ST) ms_cu_stamp(19);
    if (lo == hi) return lo; /* all equal */
    const int level0 = __clz(lo ^ hi) >> 3; /* whole leading bytes shared by every key */
    if (ST && threadIdx.x == 0) ms_cu_stq(3, (unsigned long long)(4 - level0));
    uint32_t prefix = level0 > 0 ? lo >> (32 - 8 * level0) : 0, need = kk;
    for (int level = level0; level < 4; level++) {
        const int sh = 24 - 8 * level;
        for (int i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
        __syncthreads();
        each([&](uint32_t key) {
            /* one shared atomic per distinct digit in the warp (survivors crowd into few bins) */
            const uint32_t d = (level > 0 && (key >> (sh + 8)) != prefix) ? 256u : (key >> sh) & 255u;
            const unsigned grp = __match_any_sync(__activemask(), d);
            if (d < 256u && (int)(threadIdx.x & 31) == __ffs(grp) - 1) atomicAdd(&h[d], (uint32_t)__popc(grp));
        });
        __syncthreads();
        if (threadIdx.x < 32) {
            const int lane = threadIdx.x;
            uint32_t lc = 0;
            for (int i = 0; i < 8; i++) lc += h[255 - (lane * 8 + i)];
            uint32_t inc = lc;
            for (int o = 1; o < 32; o <<= 1) {
                uint32_t n = __shfl_up_sync(0xffffffffu, inc, o);
                if (lane >= o) inc += n;
            }
            uint32_t cc = inc - lc;
            for (int i = 0; i < 8; i++) {
                const int d = 255 - (lane * 8 + i);
                const uint32_t n = h[d];
                if (n && cc < need && cc + n >= need) { /* exactly one digit of one lane */
                    res[0] = (prefix << 8) | (uint32_t)d;
                    res[1] = need - cc;
                    if (EARLY) res[2] = n;
                }
                cc += n;
            }
            if (EARLY && lane == 0) res[3] = 0;
        }
        __syncthreads();
        prefix = res[0];
        need = res[1];
        if (EARLY && level < 3 && res[2] <= 32u) { /* the same verdict in every thread (res[2] read after the barrier) */
            each([&](uint32_t key) { /* h is free: warp 0 read it before the barrier */
                if ((key >> sh) == prefix) h[atomicAdd(&res[3], 1u)] = key;
            });
            __syncthreads();
            if (threadIdx.x < 32) {
                const int lane = threadIdx.x;
                const uint32_t cnt = res[2];
                const uint32_t k = (uint32_t)lane < cnt ? h[lane] : 0u;
                uint32_t gt = 0, ge = 0;
                for (uint32_t j = 0; j < cnt; j++) {
                    const uint32_t kj = h[j];
                    gt += kj > k;
                    ge += kj >= k;
                }
                const unsigned bal = __ballot_sync(0xffffffffu, (uint32_t)lane < cnt && gt < need && ge >= need);
                if (lane == __ffs(bal) - 1) res[0] = k; /* bal != 0: the bin holds the need-th */
            }
            __syncthreads();
            prefix = res[0];
            __syncthreads(); /* every thread has read res before a later use of it */
            if (ST) ms_cu_stamp(20);
            break;
        }
        __syncthreads();
        if (ST && level == level0) ms_cu_stamp(20);
    }
    if (ST) ms_cu_stamp(21);
    return prefix;
}

/* The keys of (key << 32 | id) entries in shared memory, spread over the block. */
struct ms_cu_keys_sh {
    const unsigned long long *v;
    uint32_t n;
    template <class F> __device__ __forceinline__ void operator()(F f) const {
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) f((uint32_t)(v[i] >> 32));
    }
};

/* Warp / block reductions and scans. */
__device__ __forceinline__ uint64_t ms_cu_warp_incl_u64(uint64_t v) {
    for (int o = 1; o < 32; o <<= 1) {
        uint64_t n = __shfl_up_sync(0xffffffffu, v, o);
        if ((int)(threadIdx.x & 31) >= o) v += n;
    }
    return v;
}
/* Exclusive scan over the block (blockDim multiple of 32, <= 1024); total to *tot. sh: 33 words. */
__device__ uint64_t ms_cu_block_excl_u64(uint64_t v, uint64_t *tot, unsigned long long *sh) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    uint64_t inc = ms_cu_warp_incl_u64(v);
    if (lane == 31) sh[wid] = inc;
    __syncthreads();
    if (wid == 0) {
        uint64_t s = lane < nw ? sh[lane] : 0;
        uint64_t si = ms_cu_warp_incl_u64(s);
        if (lane < nw) sh[lane] = si - s;
        if (lane == 31) sh[32] = si;
    }
    __syncthreads();
    uint64_t r = sh[wid] + inc - v;
    *tot = sh[32];
    __syncthreads();
    return r;
}

/* Block sum of a per-thread count. */
__device__ uint64_t ms_cu_block_sum(uint64_t v, unsigned long long *sh) {
    uint64_t tot;
    ms_cu_block_excl_u64(v, &tot, sh);
    return tot;
}

/* ---- K1: row max (atomicMax of keys) and the greedy argmax; zeroes K2's histogram ------------ */

struct ms_cu_args {
    const ms_cu_slot *slots;
    const int32_t *row_slot, *row_k;
    int32_t capacity;
    const char *logits;
    int dtype;
    size_t elem;
    int64_t stride;
    int32_t V;
    int32_t G; /* blocks per row in K1..K3 */
    bool apply_penalty, apply_filters;
    const uint64_t *seen;
    int32_t seen_words;
    const int32_t *hist;
    int32_t hist_cap;
    const uint64_t *stop;
    int32_t *tokens, *status, *pend;
    ms_cu_rowstat *stats;
    uint32_t *hcnt;                 /* rows * MS_CU_HB */
    unsigned long long *hmass;      /* rows * MS_CU_HB */
    unsigned long long *cand;       /* rows * MS_CU_CAND */
    unsigned long long *pb;         /* round 11 (off; -DMS_CU_PB on): rows * G * MS_CU_HB, each K2 block's
                                     * bucket masses of its chunk; NULL when off for this step (ms_cu_launch) */
    int32_t drawv;                  /* round 11 (on; -DMS_CU_NO_DRAWV off): K4's BAND walk with 16-byte loads this step */
#ifdef MS_CU_ONEREAD
    int32_t oneread;                /* round 13 (on unless -DMS_CU_NO_ONEREAD): the one-read path for lite rows this step (ms_cu_launch) */
#endif
#ifdef MS_CU_K4_WARM
    int32_t k4warm;                 /* round 16B: K4's warm-up pass in this step (ms_cu_launch) */
#endif
#ifdef MS_CU_OR_FEW
    int32_t Go;                     /* round 23A: the one-read rows' chunks a row (a.G but in the few-chunk steps) */
#endif
#ifdef MS_CU_K4_ZERO
    int32_t k4zero;                 /* round 17C: K4 leaves its row's stats zero (the resource's own workspace, no K0) */
#endif
#if defined(MS_CU_OR_RFNR) && !defined(MS_CU_OR_RFK)
    int32_t orf;                    /* round 33C: K2or counts its blocks in the row's c_above, K4<true> waits on it (ms_cu_launch) */
#endif
#ifdef MS_CU_K3W_K2
    int32_t k3w;                    /* round 25A: K2's grid does K3's work this step (ms_cu_k2_k3w; K4w checks k3done) */
#endif
#ifdef MS_CU_OR_RC2
    uint32_t *orc;                  /* round 30A: the row cut's slots (MS_CU_ORRC a row), with k4zero; else NULL */
    int32_t rcmax;                  /* round 30A: the row cut only in rows of at most this many chunks (MS_CU_ORRC; a
                                     * measurement knob: MS_CU_RC2_G in the environment at resource creation, 0: never) */
#endif
#ifdef MS_CU_K1_ROWCUT
    int32_t rcut;                   /* round 31A: bit 0: K1 counts its warp maxima, bit 1: K2 takes the row cut, this step
                                     * (chunks of at least st->rcmin tokens: MS_CU_RC_MINCHUNK, or MS_CU_RC_MIN in the
                                     * environment; both bits unless MS_CU_RC_BITS says otherwise, a measurement knob) */
#  ifdef MS_CU_K1_RC_OWN
    uint32_t *rch;                  /* ms_cu_state's d_rch (the resource's own workspace; rcut is 0 with a caller's) */
#  endif
#endif
#if defined(MS_CU_OR_DYN) && defined(MS_CU_OR_DYN_ALWAYS)
    int32_t dyq;                    /* round 29B: round 28A's pieces, how many by rule (ms_cu_ordyn_q says what q means) */
#endif
#ifdef MS_CU_OR_TAPER
    int32_t tpe;                    /* round 32B: the ring-less K2or's chunk taper e (0: equal chunks) */
#endif
#ifdef MS_CU_OR_TAIL2
    int32_t tl2;                    /* round 33B: a row's budget R for K2or's whole-stage lists (a block: ns <= R / G) */
#endif
#ifdef MS_CU_OR_DCUT2_RT
    int32_t dc2;                    /* round 33B: round 32C's gate (a measurement knob) */
#endif
#ifdef MS_CU_OR_RFK
    int32_t orf;                    /* round 33C: K2or counts its blocks in the row's c_above, ms_cu_k4rf waits on it (ms_cu_launch) */
#endif
#ifdef MS_CU_OR_SPF_RT
    int32_t spf;                    /* round 35B: SPF's order this step (MS_CU_SPF at creation; a measurement build) */
#endif
};

__device__ __forceinline__ int32_t ms_cu_slot_ok(const ms_cu_args &a, int32_t r) {
    int32_t s = a.row_slot[r];
    if (s < 0 || s >= a.capacity || !a.slots[s].used) return -1;
    return s;
}

/* The fields of a row that ms_cu_filters and ms_cu_lite_k read, from its slot and the step's arguments alone (no logits,
 * no max), as ms_cu_row_setup sets them: K2's lite branch, K2or's row, K3's idle blocks and K3's blocks in K2's grid
 * decide a row's kind with it, so every kernel decides it alike. */
__device__ __forceinline__ void ms_cu_slot_row(ms_cu_row &q, const ms_cu_args &a, int32_t slot) {
    q.sl = a.slots[slot];
    q.V = a.V;
    q.filters = a.apply_filters;
    q.minp_on = a.apply_filters && q.sl.min_p > 0.0f;
}

#ifdef MS_CU_ONEREAD
/* Round 13 (on since round 14 unless -DMS_CU_NO_ONEREAD; exact on the H200): a lite row (ms_cu_lite_k) of the default
 * order, not greedy, without a window penalty, in a step whose chunks the host found large enough (a.oneread),
 * and whose chunks' lists (at most k' + k'/8 + 8 each, ms_cu_k2_bincut's slack) fit K4's MS_CU_CAND. Then K1
 * skips the row, each K2 block finds its own chunk's max and its candidates in one pass over the chunk (the
 * superset C of min-p's survivors from the chunk max, ms_cu_k2_one), and K4 applies min-p's exact test with
 * the true max. The HF order is left out: its top-p needs S0's whole mass m0, which needs the row max in K2.
 * Computed from the slot's fields and the step's arguments only (K4's lean path has no window filter), so K1,
 * K2 and K4 agree: the window test is on the settings (rep != 1 and a window), a superset of the rows with
 * c.win. Rows whose start is not aligned to a group of 4 values stay on round 12's path (chunks start at
 * multiples of 8 tokens, so the row's alignment decides every chunk's): the one-read pass would test their
 * tokens one by one against a cut it cannot raise (ms_cu_k2_scan1's tail), stage them all and re-read. */
__device__ __forceinline__ bool ms_cu_onread(const ms_cu_args &a, const void *row, const ms_cu_row &c,
                                             const ms_cu_filt &f) {
    const int32_t kk = ms_cu_lite_k(c, f);
    const uintptr_t rb = (uintptr_t)row; /* the row's start, a.logits + r stride elem */
    return a.oneread && kk > 0 && !c.sl.top_p_first && !(c.sl.temperature < MS_GREEDY_TEMPERATURE) &&
           !(c.sl.rep != 1.0f && c.sl.window > 0) && (int64_t)MS_CU_ORG(a) * (int64_t)(kk + kk / 8 + 8) <= (int64_t)MS_CU_CAND &&
           (rb & (4 * a.elem - 1)) == 0;
}
#endif

__device__ __forceinline__ unsigned long long ms_cu_warp_max_u64(unsigned long long v) {
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long n = __shfl_xor_sync(0xffffffffu, v, o);
        v = n > v ? n : v;
    }
    return v;
}

/* The penalty on a group of 4 tokens whose seen-set bits are nib (nib != 0), in place: NaN as -inf, then the
 * repetition penalty on the seen ones (the one-read pass's two step paths, ms_cu_k2_scan1). */
__device__ __forceinline__ void ms_cu_pen_group(const ms_cu_row &c, float (&v)[4], uint32_t nib) {
#pragma unroll
    for (int k = 0; k < 4; k++) {
        float x = ms__sanitize(v[k]);
        if ((nib >> k) & 1u) x = ms__penalize(x, c.sl.rep);
        v[k] = x;
    }
}
/* m raised by a group of 4 tokens whose seen-set bits are nib (ms_cu_chunk_max). */
__device__ __forceinline__ float ms_cu_group_max(const ms_cu_row &c, const float (&v)[4], uint32_t nib, float m) {
    if (nib == 0) return fmaxf(m, fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3])));
#pragma unroll
    for (int k = 0; k < 4; k++) {
        float x = ms__sanitize(v[k]);
        if ((nib >> k) & 1u) x = ms__penalize(x, c.sl.rep);
        m = fmaxf(m, x);
    }
    return m;
}
/* The largest penalised logit of [t0, t1) (rows without a window penalty), -inf when there is none.
 * K1 is a pure read of the row, and its per-token work (NaN test, seen bit, order key, compare: ~12
 * instructions) kept the multiprocessors ~46% busy (ncu, B=64): here a group of 4 tokens none of
 * which is in the seen set costs three fmaxf, which ignore NaN as the pipeline's NaN = -inf rule
 * does; the max as a float gives the same key (the key folds -0 into +0). */
__device__ __forceinline__ float ms_cu_chunk_max(const ms_cu_row &c, int32_t t0, int32_t t1) {
    float m = ms__neg_inf();
    const bool vec = ms_cu_vec4(c, t0);
    int32_t ts = t0;
    if (vec) {
        const int32_t step = (int32_t)blockDim.x * 4;
        const int32_t tv = t0 + ((t1 - t0) & ~3);
        constexpr int NG = 4;
        for (int32_t t = t0 + (int32_t)threadIdx.x * 4; t < tv; t += NG * step) {
            float v[NG][4];
            uint32_t words[NG];
            ms_cu_load_groups<NG>(c, t, step, tv, v, words);
#pragma unroll
            for (int u = 0; u < NG; u++) {
                const int32_t tg = t + u * step;
                if (tg >= tv) continue;
                m = ms_cu_group_max(c, v[u], (words[u] >> (tg & 31)) & 15u, m);
            }
        }
        ts = tv;
    }
    for (int32_t t = ts + (int32_t)threadIdx.x; t < t1; t += blockDim.x) m = fmaxf(m, ms_cu_x(c, t));
    return m;
}

/* K0 (on since the ninth session: 0.2-1.9 us a step faster than the memset node it replaced, H200, full
 * setting, B=1..256, both shapes): zeroes the step's row stats, which K1's atomics accumulate into. A memset
 * node ends before K1's first block starts; K0 lets K1 launch at once (PDL) and K1 reads its whole chunk
 * before it waits for K0, just ahead of its atomics. The stats are n rows of 8-byte words (the workspace is
 * 256-byte aligned); one block. */
__global__ void __launch_bounds__(256) ms_cu_k0(ms_cu_rowstat *stats, int32_t n) {
    ms_cu_stamp(25);
    ms_cu_pdl_go();
    unsigned long long *w = (unsigned long long *)stats;
    const size_t nw = (size_t)n * sizeof(ms_cu_rowstat) / sizeof(unsigned long long);
    for (size_t i = threadIdx.x; i < nw; i += blockDim.x) w[i] = 0;
}

/* K1: K2's histogram must start at zero: this row's blocks clear it between them (the coarse histogram of the
 * rows K2 bins, or the candidate histogram of lite rows, ms_cu_lbin). */
__device__ __forceinline__ void ms_cu_k1_clear(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c) {
    const ms_cu_filt f = ms_cu_filters(c);
    if (f.k2run && ms_cu_lite_k(c, f) == 0)
        for (int32_t i = g * blockDim.x + threadIdx.x; i < MS_CU_HB; i += a.G * blockDim.x) {
            a.hcnt[(size_t)r * MS_CU_HB + i] = 0;
            a.hmass[(size_t)r * MS_CU_HB + i] = 0;
        }
    else if (ms_cu_lite_k(c, f) > 0)
        for (int32_t i = g * blockDim.x + threadIdx.x; i < MS_CU_LBINS; i += a.G * blockDim.x)
            a.hcnt[(size_t)r * MS_CU_HB + i] = 0;
}

#ifdef MS_CU_K1_EARLY
#ifdef MS_CU_K1_ROWCUT
/* Round 31A: K1's count of its warp maxima (ms_cu_k1_early, warp 0: lane w < nw holds warp w's maximum wk, the key of one
 * token's x) in the row's bins, for the rows K2 may cut (lite, default order: the HF order's f.k is 0), after the wait
 * for K0's zeroed stats (a caller's workspace; with the own one K1 is a plain launch and the wait returns at once).
 * One atomic a bin a block (a flat row's maxima share few bins: fewer same-address atomics in L2). Round 31A runs it
 * before the row max's reduction, round 32A's RC instantiation after its atomicMax. */
#ifdef MS_CU_RC_LEAN
/* Round 33A (a.rcut bit 3): mrun is the key of a lower bound on the row max m of y = x / T (the key K1's atomicMax took,
 * or with bit 4 the larger of it and the old value it returned: the row's maxkey only grows, and K2's c.m is
 * ms_cu_unkey of its final value), 0 where the block had none.
 * A warp maximum is counted only if its bin's lower edge L passes K2's test against mrun's value mr: fl(fl(L / T) - mr)
 * >= minp_cut + 0.02 (minp_cut = logf(min_p) - 0.01f as ms_cu_set_m; lite_k > 0 implies min-p on). Why exact: the cut's
 * argument (ms_cu_k2_rowcut (1)) needs only that at least kk distinct tokens have x >= L for the bin it takes; the
 * counted values are a subset of the warp maxima, so every bin's count from the top is at most the true one and the
 * argument holds as before (any subset is exact). Why the same cut: fl(fL - m) is non-increasing in m and mr <= m, so a
 * maximum left out lies in a bin that fails K2's test against the final m; the bins that fail form a lower set (the
 * test is monotone in L), so the counts from the top of every bin that passes are unchanged; the scan's bin b, when it
 * binds, passes, and its count from the top is the same; when it does not, the new scan's bin is <= b (counts only
 * drop), below min-p's range too, or missing. NaN or +inf mr: the test fails, nothing counted (+inf rows take no cut). */
__device__ __forceinline__ void ms_cu_k1_rccount(const ms_cu_args &a, int32_t r, const ms_cu_row &c, uint32_t wk, int lane,
                                                 uint32_t mrun) {
#else
__device__ __forceinline__ void ms_cu_k1_rccount(const ms_cu_args &a, int32_t r, const ms_cu_row &c, uint32_t wk, int lane) {
#endif
    const ms_cu_filt f = ms_cu_filters(c);
    if ((a.rcut & 1) && f.k > 0 && ms_cu_lite_k(c, f) > 0) {
        uint32_t b = ~0u; /* none: x < 0.5, or no warp */
        if (wk >= (MS_CU_RCB_BASE << MS_CU_RCB_SH)) {
            b = (wk >> MS_CU_RCB_SH) - MS_CU_RCB_BASE;
            b = b < MS_CU_RCB ? b : MS_CU_RCB - 1;
        }
#ifdef MS_CU_RC_LEAN
        if ((a.rcut & 8) && b != ~0u) {
            const float L = ms_cu_unkey((MS_CU_RCB_BASE + b) << MS_CU_RCB_SH);
            const float mr = mrun ? ms_cu_unkey(mrun) : INFINITY; /* none known: count nothing */
            if (!(L / c.sl.temperature - mr >= (logf(c.sl.min_p) - 0.01f) + 0.02f)) b = ~0u;
        }
#endif
        const unsigned peers = __match_any_sync(0xffffffffu, b);
        ms_cu_pdl_wait();
        if (b != ~0u && lane == __ffs(peers) - 1) atomicAdd(&MS_CU_RCH(a, r)[b], (uint32_t)__popc(peers));
    }
}
#endif
/* Round 18C (MS_CU_K1_EARLY, on since the thirteenth session's final call): as MS_CU_LITE_EARLY for K1 of the lite steps (ms_cu_k1<false>): a row that is
 * not greedy and has no window penalty (returned before the set-up, whose window filter has barriers) branches off
 * before the kernel's general set-up and runs its own copy of the same code on the same values: the set-up,
 * ms_cu_chunk_max, the clearing of the row's bins, the block's max (v1 is 0 on such rows: only v0 is reduced), the
 * wait and the atomicMax. Exactness is untouched. Greedy rows return false and take the kernel's own path. */
#ifdef MS_CU_RC_INST
template <bool RC> /* round 32A: the cut's count only in the RC instantiation, after the atomicMax */
#endif
__device__ __forceinline__ bool ms_cu_k1_early(const ms_cu_args &a, int32_t r, int32_t g, int32_t slot, uint32_t *wfilt,
                                               unsigned long long *red) {
    {
        const float rep = a.slots[slot].rep;
        if (rep != 1.0f && a.slots[slot].window > 0) return false; /* the general set-up's window filter */
    }
    ms_cu_row c;
    ms_cu_row_setup(c, a.slots, slot, a.logits + (size_t)r * (size_t)a.stride * a.elem, a.dtype, a.V, a.apply_penalty,
                    a.apply_filters, a.seen, a.seen_words, a.hist, a.hist_cap, a.stop, wfilt);
#ifdef MS_CU_EARLY_NOWIN
    c.win = false; /* round 19C: the value ms_cu_row_setup gave it (not rep != 1 with a window, tested above) */
    c.w_eff = 0;
#endif
    if (c.greedy) return false;
    const int32_t chunk = ((a.V + a.G - 1) / a.G + 7) & ~7;
    const int32_t t0 = g * chunk, t1 = min(a.V, t0 + chunk);
#ifdef MS_CU_EARLY_F32
    float cmx;
    if (c.dtype == MS_DTYPE_F32) { /* round 19C: as in ms_cu_k2_lite_early */
        ms_cu_row cf = c;
        cf.dtype = MS_DTYPE_F32;
        cmx = ms_cu_chunk_max(cf, t0, t1);
    } else {
        cmx = ms_cu_chunk_max(c, t0, t1);
    }
    unsigned long long v0 = ms_cu_key(cmx);
#else
    unsigned long long v0 = ms_cu_key(ms_cu_chunk_max(c, t0, t1));
#endif
    ms_cu_k1_clear(a, r, g, c);
    v0 = ms_cu_warp_max_u64(v0);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) red[wid] = v0;
    __syncthreads();
    if (wid == 0) {
        const int nw = blockDim.x >> 5;
        v0 = lane < nw ? red[lane] : 0;
#if defined(MS_CU_K1_ROWCUT) && !defined(MS_CU_RC_INST)
        ms_cu_k1_rccount(a, r, c, (uint32_t)v0, lane); /* round 31A: before the row max's reduction */
#endif
#ifdef MS_CU_RC_INST
        const uint32_t wk = (uint32_t)v0; /* round 32A: lane w's warp maximum, counted after the atomicMax */
#endif
        v0 = ms_cu_warp_max_u64(v0);
#ifdef MS_CU_RC_LEAN
        uint32_t mrun = 0u; /* round 33A, bit 4: the row's running max (a key of y) after this block's atomicMax, lane 0 */
        if (lane == 0) {
            ms_cu_pdl_wait(); /* K0's zeroed stats (K1 is launched with PDL after it: its pass ran meanwhile) */
            if (v0) {
                const uint32_t mk = ms_cu_key(ms_cu_unkey((uint32_t)v0) / c.sl.temperature);
                if (RC && (a.rcut & 16)) {
                    const uint32_t o = atomicMax(&a.stats[r].maxkey, mk);
                    mrun = o > mk ? o : mk;
                } else {
                    atomicMax(&a.stats[r].maxkey, mk);
                }
            }
        }
        if (RC) { /* round 33A: the count filtered against the running max (bit 4) or the block's own max (every lane has v0) */
            uint32_t mr = __shfl_sync(0xffffffffu, mrun, 0);
            if (!(a.rcut & 16)) mr = v0 ? ms_cu_key(ms_cu_unkey((uint32_t)v0) / c.sl.temperature) : 0u;
            ms_cu_k1_rccount(a, r, c, wk, lane, mr);
        }
#else
        if (lane == 0) {
            ms_cu_pdl_wait(); /* K0's zeroed stats (K1 is launched with PDL after it: its pass ran meanwhile) */
            if (v0) atomicMax(&a.stats[r].maxkey, ms_cu_key(ms_cu_unkey((uint32_t)v0) / c.sl.temperature));
        }
#endif
#if defined(MS_CU_RC_INST) && !defined(MS_CU_RC_LEAN)
        /* Round 32A: round 31A's count (ms_cu_k1_rccount, as above but for its place) after the row max's atomicMax, which K2's
         * blocks need first: K2 reads both only after K1's grid completed (its PDL wait), so the order inside K1 does not
         * change what K2 reads; only the RC instantiation (the steps the host rule gives the cut) has the code. */
        if (RC) ms_cu_k1_rccount(a, r, c, wk, lane);
#endif
    }
    return true;
}
#endif

/* OR (round 14): the instantiation launched in steps whose chunks take the one-read path (a.oneread, set on
 * the host from B and V); the other one compiles as the default without the path, so that small batches pay
 * nothing for its code (round 13's build with it in every kernel was 0.4-1.2 us slower at B=1 and 16). */
#if defined(MS_CU_K1_OREXIT) && defined(MS_CU_ONEREAD)
/* Round 25B (-DMS_CU_K1_OREXIT, off: exact by construction, not validated; full setting 0.2-0.7 us faster at B >= 64,
 * top-p alone 0.3-1.6 us slower, docs/cuda.md): K1<true>'s one-read rows leave before ms_cu_row_setup. The verdict is
 * ms_cu_onread on the fields it reads (c.sl, c.V, c.filters, c.minp_on), set as ms_cu_row_setup sets them: the decision
 * K2or's ms_cu_k2or_row and K4 take from the slot alone (as K3's idle blocks since round 15B). ms_cu_onread holds
 * !greedy (T >= MS_GREEDY_TEMPERATURE), so K1's test below (!c.greedy && ms_cu_onread) is the same predicate. Such a
 * block touches no shared memory, so it skips ms_cu_row_setup's barrier; nothing of K1's is read for the row (round 13).
 * Out of line and from values: inlined (round 25B's first build) K1<true>'s general body took 16 bytes of stack, not 8,
 * and top-p alone was 1.2-1.4 us slower at B=64; out of line with the arguments by reference the kernel copied its
 * parameters to the stack (248 bytes). b holds the three fields of the step's arguments that ms_cu_onread reads. */
__device__ __noinline__ bool ms_cu_k1_orrow(const ms_cu_slot *slots, int32_t slot, const void *row, int32_t V,
                                             bool apply_filters, int32_t oneread, int32_t G, int32_t elem) {
    ms_cu_args b;
    b.oneread = oneread;
    b.G = G;
#ifdef MS_CU_OR_FEW
    b.Go = G;
#endif
    b.elem = elem;
    ms_cu_row c;
    c.sl = slots[slot];
    c.V = V;
    c.filters = apply_filters;
    c.minp_on = apply_filters && c.sl.min_p > 0.0f;
    return ms_cu_onread(b, row, c, ms_cu_filters(c));
}
#endif

#ifdef MS_CU_RC_INST
template <bool OR, bool RC = false> /* RC: round 32A's cut instantiation (ms_cu_launch: a.rcut) */
#else
template <bool OR>
#endif
__global__ void __launch_bounds__(MS_CU_T123, 4) ms_cu_k1(ms_cu_args a) {
    __shared__ uint32_t wfilt[256];
    __shared__ unsigned long long red[2][32];
    ms_cu_stamp(0);
    ms_cu_pdl_go();
    const int32_t r = blockIdx.x / a.G, g = blockIdx.x % a.G;
    const int32_t slot = ms_cu_slot_ok(a, r);
    if (slot < 0) return;
#if defined(MS_CU_K1_OREXIT) && defined(MS_CU_ONEREAD)
    if (OR && ms_cu_k1_orrow(a.slots, slot, a.logits + (size_t)r * (size_t)a.stride * a.elem, a.V, a.apply_filters,
                             a.oneread, MS_CU_ORG(a), a.elem)) { /* round 25B */
        ms_cu_pdl_wait(); /* as the one-read return below: K2 publishes after its wait for K1, which covers K0 */
        ms_cu_stamp(1);
        return;
    }
#endif
#ifdef MS_CU_K1_EARLY
#  ifdef MS_CU_RC_INST
    if (!OR && ms_cu_k1_early<RC>(a, r, g, slot, wfilt, red[0])) { /* round 18C; round 32A's RC */
#  else
    if (!OR && ms_cu_k1_early(a, r, g, slot, wfilt, red[0])) { /* round 18C */
#  endif
        ms_cu_stamp(1);
        return;
    }
#endif
    ms_cu_row c;
    ms_cu_row_setup(c, a.slots, slot, a.logits + (size_t)r * (size_t)a.stride * a.elem, a.dtype, a.V, a.apply_penalty,
                    a.apply_filters, a.seen, a.seen_words, a.hist, a.hist_cap, a.stop, wfilt);
#ifdef MS_CU_ONEREAD
    /* round 13: K2 finds this row's max itself; nothing of K1's is read for it (no bins are cleared: K2 and
     * K4 use none for it). The verdict is the row's, so the whole block returns (no barrier follows). */
    if (OR && !c.greedy && ms_cu_onread(a, c.row, c, ms_cu_filters(c))) {
        /* K2 publishes this row's stats after its wait for K1, which must then cover K0's zeroing: with every
         * row on this path no other K1 block would wait for K0 (the wait is no implicit part of a grid's end) */
        ms_cu_pdl_wait();
        return;
    }
#endif
    const int32_t chunk = ((a.V + a.G - 1) / a.G + 7) & ~7;
    const int32_t t0 = g * chunk, t1 = min(a.V, t0 + chunk);
    unsigned long long v0 = 0, v1 = 0;
#ifdef MS_CU_RF12
    /* round 18B: this block counts itself in its row's k1n after its clears and its atomicMax (ms_cu_rf_wait) */
    const bool rf = a.k4zero && !c.greedy && ms_cu_lite_k(c, ms_cu_filters(c)) > 0;
#endif
    if (c.greedy) {
        ms_cu_for_chunk(c, t0, t1, [&](int32_t t, float x) {
            if (ms__is_neg_inf(x)) return;
            unsigned long long p = ((unsigned long long)ms_cu_key(x) << 32) | (uint32_t)(0xffffffffu - (uint32_t)t);
            v0 = p > v0 ? p : v0;
            if (c.floor && !ms_cu_bit(c.stop, t)) v1 = p > v1 ? p : v1;
        });
    } else {
        /* the max of x, divided once: fl(x / T) is monotone in x for T > 0, so this is max y */
        if (!c.win) {
            v0 = ms_cu_key(ms_cu_chunk_max(c, t0, t1));
        } else
        {
            uint32_t mk = 0;
            ms_cu_for_chunk(c, t0, t1, [&](int32_t t, float x) {
                uint32_t k = ms_cu_key(x);
                mk = k > mk ? k : mk;
            });
            v0 = mk;
        }
        ms_cu_k1_clear(a, r, g, c);
    }
    v0 = ms_cu_warp_max_u64(v0);
    v1 = ms_cu_warp_max_u64(v1);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) {
        red[0][wid] = v0;
        red[1][wid] = v1;
    }
    __syncthreads();
    if (wid == 0) {
        const int nw = blockDim.x >> 5;
        v0 = lane < nw ? red[0][lane] : 0;
        v1 = lane < nw ? red[1][lane] : 0;
        v0 = ms_cu_warp_max_u64(v0);
        v1 = ms_cu_warp_max_u64(v1);
        if (lane == 0) {
            ms_cu_rowstat *st = &a.stats[r];
            ms_cu_pdl_wait(); /* K0's zeroed stats (K1 is launched with PDL after it: its pass ran meanwhile) */
            if (c.greedy) {
                if (v0) atomicMax(&st->gbest, v0);
                if (v1) atomicMax(&st->gfree, v1);
            } else if (v0) {
                atomicMax(&st->maxkey, ms_cu_key(ms_cu_unkey((uint32_t)v0) / c.sl.temperature));
            }
#ifdef MS_CU_RF12
            if (rf) { /* the block's clears came before the barrier above, the max before this fence */
                __threadfence();
                atomicAdd(&st->k1n, 1u);
                ms_cu_stamp(28);
            }
#endif
        }
    }
    ms_cu_stamp(1);
}

/* Sets m and the +inf rule from K1's maximum; false when the row is empty. */
__device__ __forceinline__ void ms_cu_set_m(ms_cu_row &c, uint32_t mk);
__device__ __forceinline__ bool ms_cu_set_max(ms_cu_row &c, const ms_cu_rowstat *st) {
    uint32_t mk = st->maxkey;
    if (mk <= MS_CU_KEY_NEGINF) return false;
    ms_cu_set_m(c, mk);
    return true;
}
/* c.m, the +inf rule and min-p's pre-filters from the max's key mk (> MS_CU_KEY_NEGINF). */
__device__ __forceinline__ void ms_cu_set_m(ms_cu_row &c, uint32_t mk) {
    c.m = ms_cu_unkey(mk);
    c.inf_row = ms__is_pos_inf(c.m);
    /* A pre-filter only: ms__exp is within 1e-7 (relative) of exp, so d < ln(min_p) - 0.01 means
     * ms__exp(d) < min_p; the decision itself is always the exact comparison w >= min_p. */
    c.minp_cut = c.minp_on ? logf(c.sl.min_p) - 0.01f : -INFINITY;
    /* The same test on x, so that most tokens skip the division: fl(fl(x / T) - m) is monotone in
     * x, and below (m + cut) T, less a margin far above every rounding error involved, it is
     * below cut. Disabled (-inf) when the bound is not finite. */
    c.xcut = -INFINITY;
    if (c.minp_on && !c.inf_row) {
        const float T = c.sl.temperature;
        float v = (c.m + c.minp_cut) * T;
        v = v - (fabsf(v) + (fabsf(c.m) + fabsf(c.minp_cut)) * T) * 1e-5f;
        if (isfinite(v)) c.xcut = v;
    }
}

/* K2 for a lite row (see ms_cu_lite_k): the chunk's min-p survivors S0, staged in shared memory; their
 * mass added to the row's m0; the chunk's top-kk of S0 (ties kept) appended to the row's candidates.
 * A chunk with more survivors than the stage holds finds its kk-th key by re-reading the chunk (from
 * L2) instead. Candidates past MS_CU_CAND make K4 take the exact whole-row path. */
struct ms_cu_keys_chunk {
    const ms_cu_row *c;
    int32_t t0, t1;
    template <class F> __device__ __forceinline__ void operator()(F f) const {
        const ms_cu_row &cr = *c;
        ms_cu_for_chunk<2>(cr, t0, t1, [&](int32_t t, float x) {
            if (x < cr.xcut) return;
            ms_cu_elem e = ms_cu_from_y_pre(cr, x / cr.sl.temperature, t);
            if (e.s0) f(e.key);
        });
    }
};

#define MS_CU_LITE_PER (MS_CU_STAGE_SH / MS_CU_T123) /* staged entries per thread */

/* The lite path's slow part for the queued tokens q[0..cnt) of one warp (cnt <= 32): y, w, min-p's
 * verdict; the survivors staged in sbuf. Returns this lane's mass of survivors. Called once per group of 4 tokens,
 * not per token: at B=1 (about one block per SM, a cold instruction cache) code size costs time. */
__device__ __forceinline__ uint64_t ms_cu_k2_drain(const ms_cu_row &c, unsigned long long *q, int cnt, uint32_t *sn,
                                                unsigned long long *sbuf) {
    const int lane = threadIdx.x & 31;
    __syncwarp();
    bool in = false;
    unsigned long long v = 0;
    uint64_t m = 0;
    if (lane < cnt) {
        const unsigned long long e = q[lane];
        const int32_t t = (int32_t)(uint32_t)e;
        const ms_cu_elem el = ms_cu_from_y_pre(c, ms__u2f((uint32_t)(e >> 32)) / c.sl.temperature, t);
        if (el.s0) {
            in = true;
            m = el.q;
            v = ((unsigned long long)el.key << 32) | (uint32_t)t;
        }
    }
    const unsigned bal = __ballot_sync(0xffffffffu, in);
    uint32_t base = 0;
    if (lane == 0 && bal) base = atomicAdd(sn, (uint32_t)__popc(bal));
    base = __shfl_sync(0xffffffffu, base, 0);
    const uint32_t i = base + (uint32_t)__popc(bal & ((1u << lane) - 1));
    if (in && i < MS_CU_STAGE_SH) sbuf[i] = v;
    __syncwarp();
    return m;
}

/* Set by the first ms__cuda_mode_rows or ms__cuda_k2_rows call (tests only): the kernels then count their
 * common paths too (ms_cu_mode_rows below K2; ms_cu_k2_rows). */
__device__ int ms_cu_count_all;
/* Round 12 (ms__cuda_k2_rows; counted once a test has asked): K2 lite blocks that ran the block-wide stage
 * [0] and those whose stage overflowed, so that they re-read their chunk [1]; chunks cut by the candidate
 * bins [2] and those whose bins were too crowded, cut by the radix select [3]. */
#ifdef MS_CU_RC_INST
__device__ unsigned long long ms_cu_k2_rows[6]; /* round 32A: [4..5] round 31A's counters (MS_CU_RC_ROWS) */
#else
__device__ unsigned long long ms_cu_k2_rows[4];
#endif
/* Round 15A (ms__cuda_ring; counted once a test has asked): K2 blocks whose scan ran through the ring, lite
 * [0] and one-read [1]. */
__device__ unsigned long long ms_cu_ring_rows[2];

/* Round 12: K2's lite scan without warp votes. K2 at B=64 was instruction-bound
 * (~39 thread-instructions a token: per group of 4 two __any_sync, per token a ballot, a popc and the
 * queue's bookkeeping, because ~1% of a flat row's tokens pass the cheap test and a warp skips a group
 * only when none of its 128 tokens does). Here each thread tests its own group of 4 and calls
 * pass(t, x, pm) for the rare groups with a token not below c.xcut: x[k] is token t + k's penalised logit
 * (as ms_cu_pen), bit k of pm says it passed (the caller appends those to a block-wide stage with one
 * shared atomic a group). A group that no penalty touches is tested on its raw values: x >= cut is false
 * for NaN (which sanitize makes -inf, never a survivor of a lite row, min_p > 0) and otherwise the same
 * test; a group whose raw maximum is below the cut costs three fmaxf and a compare (fmaxf ignores NaN;
 * four NaN give NaN, not below the cut: tested per token, where each fails). */
template <int NG, bool RG, class P> /* RG: round 15A's ring (ms_cu_ring_get), else ms_cu_load_groups */
__device__ __forceinline__ void ms_cu_k2_scan(const ms_cu_row &c, int32_t t0, int32_t t1, const ms_cu_ring &rg, P pass) {
    const bool vec = ms_cu_vec4(c, t0);
    const float cut = c.xcut;
    int32_t ts = t0;
    (void)rg;
    if (vec) {
        const int32_t step = (int32_t)blockDim.x * 4;
        const int32_t tv = t0 + ((t1 - t0) & ~3);
        int s0 = 0; /* round 15A: the ring's slot of this iteration's first group */
        if (RG) ms_cu_ring_start(c, rg, t0 + (int32_t)threadIdx.x * 4, step, tv);
        for (int32_t t = t0 + (int32_t)threadIdx.x * 4; t < tv; t += NG * step) {
            float v[NG][4];
            uint32_t words[NG];
            float gm[NG];
            if (RG) ms_cu_ring_get<NG>(c, rg, s0, t, step, tv, v, words);
            else ms_cu_load_groups<NG>(c, t, step, tv, v, words);
#pragma unroll
            for (int u = 0; u < NG; u++) gm[u] = t + u * step < tv ? fmaxf(fmaxf(v[u][0], v[u][1]), fmaxf(v[u][2], v[u][3])) : 0.0f;
            if (RG) { /* the slots' values are in registers and used (gm) */
                ms_cu_ring_next<NG>(c, rg, s0, t, step, tv);
                s0 = (s0 + NG) % MS_CU_RING;
            }
#pragma unroll
            for (int u = 0; u < NG; u++) {
                const int32_t tg = t + u * step;
                if (tg >= tv) continue;
                const uint32_t nib = (words[u] >> (tg & 31)) & 15u;
                if (!c.win && nib == 0 && gm[u] < cut) continue;
                uint32_t pm = 0;
                if (!c.win && nib == 0) {
#pragma unroll
                    for (int k = 0; k < 4; k++) pm |= (v[u][k] >= cut ? 1u : 0u) << k;
                } else {
#pragma unroll
                    for (int k = 0; k < 4; k++) {
                        float x;
                        if (c.win) {
                            x = ms_cu_pen(c, v[u][k], tg + k);
                        } else {
                            x = ms__sanitize(v[u][k]);
                            if ((nib >> k) & 1u) x = ms__penalize(x, c.sl.rep);
                        }
                        v[u][k] = x;
                        pm |= (!(x < cut) ? 1u : 0u) << k;
                    }
                }
                if (pm) pass(tg, v[u], pm);
            }
        }
        if (RG) ms_cu_cp_wait_all(); /* only empty groups are left; none outlives the scan (the ring aliases sbuf) */
        ts = tv;
    }
    for (int32_t t = ts + (int32_t)threadIdx.x; t < t1; t += blockDim.x) {
        float x[4];
        x[0] = ms_cu_x(c, t);
        if (!(x[0] < cut)) pass(t, x, 1u);
    }
}

#ifndef MS_CU_K2_BINSLACK /* most entries a bin cut may list beyond k' before the radix select is used */
#  define MS_CU_K2_BINSLACK(kk) ((kk) / 8u + 8u)
#endif
/* Round 12: a lite chunk with more than kk survivors lists those in the candidate bins
 * (ms_cu_lbin, from the row max m, as K4 computes them) up to the first bin b where the count from the top
 * reaches kk, instead of finding its kk-th key by a radix select (three barriers instead of ~16). Exact: the
 * bin is non-increasing in y, so bins <= b are an upper set of the chunk's survivors in y with at least kk
 * of them, hence they hold the chunk's top kk with ties, which is all ms_cu_lite_k needs; and every entry
 * listed lies in bins <= b, so counting them all at b keeps K4's running counts at most the true ones.
 * Returns MS_CU_LBINS (the caller takes the radix select) when bins <= b hold more than kk +
 * MS_CU_K2_BINSLACK(kk) entries (survivors crowded into few bins: ties, a narrow row), so a row lists at most
 * G (9 kk / 8 + 8) candidates where the select listed G kk (a constant slack of 64 could have sent a B=1 row's
 * 149 chunks past K4's 8192). h: 256 shared words; res: 1. Every thread gets the same answer. */
__device__ __forceinline__ uint32_t ms_cu_k2_bincut(const ms_cu_row &c, float lscale, const unsigned long long *sbuf, uint32_t ns,
                                    uint32_t kk, uint32_t *h, uint32_t *res) {
    for (int i = threadIdx.x; i < MS_CU_LBINS; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < ns; i += blockDim.x)
        atomicAdd(&h[ms_cu_lbin(c, lscale, (uint32_t)(sbuf[i] >> 32))], 1u);
    __syncthreads();
    if (threadIdx.x < 32) {
        const int lane = threadIdx.x;
        uint32_t sum = 0; /* the bins read twice from shared memory: fewer registers live */
        for (int j = 0; j < 8; j++) sum += h[8 * lane + j];
        uint32_t inc = sum;
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t t = __shfl_up_sync(0xffffffffu, inc, o);
            if (lane >= o) inc += t;
        }
        uint32_t run = inc - sum;
        for (int j = 0; j < 8; j++) {
            const uint32_t nx = run + h[8 * lane + j];
            if (nx >= kk && run < kk) res[0] = nx <= kk + MS_CU_K2_BINSLACK(kk) ? (uint32_t)(8 * lane + j) : (uint32_t)MS_CU_LBINS;
            run = nx;
        }
    }
    __syncthreads();
    const uint32_t b = res[0];
    if (threadIdx.x == 0 && ms_cu_count_all) atomicAdd(&ms_cu_k2_rows[b < MS_CU_LBINS ? 2 : 3], 1ull);
    __syncthreads(); /* res is written again by the radix select */
    return b;
}

/* The end of K2's lite path, shared by round 13's one-read path: the chunk's top kk of its staged survivors
 * sbuf[0..ns) (ties kept; the bin cut or the radix select) appended to the row's candidates with one global
 * atomic; with BINS, the candidate histogram counts what was listed (the one-read path has no m to bin
 * with). More survivors than the stage holds (ns > MS_CU_STAGE_SH >= kk): the k'-th key by re-reading the
 * chunk [t0, t1). keepn, sbase: shared words of the caller. */
template <bool BINS>
__device__ __forceinline__ void ms_cu_k2_list(const ms_cu_args &a, int32_t r, const ms_cu_row &c, ms_cu_rowstat *st,
                                              uint32_t kk, const unsigned long long *sbuf, uint32_t ns, uint32_t *h,
                                              uint32_t *res, uint32_t &keepn, uint32_t &sbase, int32_t t0, int32_t t1) {
    unsigned long long *cand = a.cand + (size_t)r * MS_CU_CAND;
    if (ns <= MS_CU_STAGE_SH) {
        uint32_t kth = 0, bcut = MS_CU_LBINS; /* bcut < MS_CU_LBINS: the chunk cut at that candidate bin */
        const float lscale = c.inf_row ? 0.0f : ms_cu_lbin_scale(c); /* +inf rows use no bins */
        if (ns > kk) {
            if (!c.inf_row) bcut = ms_cu_k2_bincut(c, lscale, sbuf, ns, kk, h, res);
            if (bcut == MS_CU_LBINS) { /* +inf rows, crowded bins: the radix select */
                ms_cu_keys_sh ks;
                ks.v = sbuf;
                ks.n = ns;
                kth = ms_cu_kth_key(ks, kk, h, res);
            }
        }
        /* compact the kept entries; one global atomic per block */
        if (threadIdx.x == 0) keepn = 0;
        __syncthreads();
        uint32_t pos[MS_CU_LITE_PER];
#pragma unroll
        for (int j = 0; j < MS_CU_LITE_PER; j++) {
            const uint32_t i = threadIdx.x + j * MS_CU_T123;
            bool keep = i < ns && (uint32_t)(sbuf[i] >> 32) >= kth;
            if (bcut < MS_CU_LBINS) keep = keep && ms_cu_lbin(c, lscale, (uint32_t)(sbuf[i] >> 32)) <= bcut;
            pos[j] = keep ? atomicAdd(&keepn, 1u) : ~0u;
        }
        __syncthreads();
        if (threadIdx.x == 0) sbase = keepn ? atomicAdd(&st->cand_n, keepn) : 0;
        __syncthreads();
        /* The candidate histogram (ms_cu_lbin): a block that listed all its survivors counts each in
         * its bin (few: at B=1 a chunk has ~11); a block that cut at its k'-th key counts all it listed
         * in kth's bin, one atomic (they all lie in that bin or above it, so every bin's running count
         * from the top stays at most the true one, which is all that K4's bound needs). */
        const bool lb = BINS && !c.inf_row && keepn > 0;
        uint32_t *gh = a.hcnt + (size_t)r * MS_CU_HB;
        if (lb && ns > kk && threadIdx.x == 0) atomicAdd(&gh[bcut < MS_CU_LBINS ? bcut : ms_cu_lbin(c, lscale, kth)], keepn);
#pragma unroll
        for (int j = 0; j < MS_CU_LITE_PER; j++) {
            const uint32_t i = threadIdx.x + j * MS_CU_T123;
            if (pos[j] != ~0u && sbase + pos[j] < MS_CU_CAND) {
                const unsigned long long v = sbuf[i];
                cand[sbase + pos[j]] = v;
                if (lb && ns <= kk) atomicAdd(&gh[ms_cu_lbin(c, lscale, (uint32_t)(v >> 32))], 1u);
            }
        }
        return;
    }
    /* more survivors than the stage holds (ns > MS_CU_STAGE_SH >= kk): re-read the chunk */
    ms_cu_keys_chunk kc;
    kc.c = &c;
    kc.t0 = t0;
    kc.t1 = t1;
    const uint32_t kth = ms_cu_kth_key(kc, kk, h, res);
    ms_cu_for_chunk<2>(c, t0, t1, [&](int32_t t, float x) {
        if (x < c.xcut) return;
        ms_cu_elem e = ms_cu_from_y_pre(c, x / c.sl.temperature, t);
        if (!e.s0 || e.key < kth) return;
        uint32_t i = atomicAdd(&st->cand_n, 1u);
        if (i < MS_CU_CAND) cand[i] = ((unsigned long long)e.key << 32) | (uint32_t)t;
        /* not counted in the candidate histogram: K4's bound only needs counts never above the true ones */
    });
}

/* A group's passing tokens (bits of pm, the group's 4 values x from token t) appended to a block's stage: one shared
 * atomic on its count rn for the group, then each entry (x's bits, t) in wq while within MS_CU_HB (a count past it is
 * the overflow the callers test). Returns the stage's count just after this call's tokens (its slots' end: round 35A's
 * =1 gate reads it; the others ignore it). The stage of K2's lite pass and of the one-read pass (their lambdas) and of
 * round 34B's ms_cu_or_stage_sb. */
__device__ __forceinline__ uint32_t ms_cu_stage4(uint32_t *rn, unsigned long long *wq, int32_t t, const float *x,
                                                 uint32_t pm) {
    uint32_t i = atomicAdd(rn, (uint32_t)__popc(pm));
#pragma unroll
    for (int k = 0; k < 4; k++)
        if ((pm >> k) & 1u) {
            if (i < (uint32_t)MS_CU_HB) wq[i] = ((unsigned long long)ms__f2u(x[k]) << 32) | (uint32_t)(t + k);
            i++;
        }
    return i;
}

#ifdef MS_CU_K2W_BCUT
/* Round 38B (-DMS_CU_K2W_BCUT, off; docs/cuda.md, round 38B): BC, the warm-up steps' K2 (ms_cu_k2's K3W instantiation)
 * drops staged survivors below the row's candidate bins' bound as read so far (ms_cu_k2_lite's tail, below). Exact (10
 * CUDA tests), but slower: H200 fp32 V=151936 flat B=1 +0.40 us, peaked +0.19; =2 (the warp-0 tail without the cut, a
 * measurement build) level at B=1. Off, not recommended. */
#  if !defined(MS_CU_EARLY_F32) || defined(MS_CU_RC_INST) || !defined(MS_CU_K2_TAIL) || !defined(MS_CU_LITE_EARLY) || \
      !defined(MS_CU_K3W_K2)
#    error "-DMS_CU_K2W_BCUT is written for the default's K2 (EARLY_F32, K2_TAIL, LITE_EARLY, K3W_K2; no RC_INST)"
#  endif
__device__ __forceinline__ uint32_t ms_cu_lbin_bmax(const uint32_t (&hb)[8], int32_t kk); /* defined with K4 */
template <int NG, bool RG, bool F32S = false, bool BC = false>
#elif defined(MS_CU_EARLY_F32) && defined(MS_CU_RC_INST)
template <int NG, bool RG, bool F32S = false, bool RC = false> /* RC: round 32A's ticket (rtk), from the early branch */
#elif defined(MS_CU_EARLY_F32)
template <int NG, bool RG, bool F32S = false> /* F32S: round 19C's fp32 copy of the scan, from the early branch */
#else
template <int NG, bool RG>
#endif
#ifdef MS_CU_RC_LEAN
__device__ void ms_cu_k2_lite(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c, ms_cu_rowstat *st,
                              uint32_t kk, unsigned long long *sbuf, uint32_t *h, unsigned long long *sh,
                              uint32_t *sn, unsigned long long *wq, uint32_t *rtk = NULL, bool tk = true) {
#elif defined(MS_CU_RC_INST)
__device__ void ms_cu_k2_lite(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c, ms_cu_rowstat *st,
                              uint32_t kk, unsigned long long *sbuf, uint32_t *h, unsigned long long *sh,
                              uint32_t *sn, unsigned long long *wq, uint32_t *rtk = NULL) {
#else
__device__ void ms_cu_k2_lite(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c, ms_cu_rowstat *st,
                              uint32_t kk, unsigned long long *sbuf, uint32_t *h, unsigned long long *sh,
                              uint32_t *sn, unsigned long long *wq) {
#endif
    __shared__ uint32_t res[2], keepn, sbase;
    uint32_t *rn = res; /* the stage's count (res is free until the bin cut or the k'-th key's select) */
    if (threadIdx.x == 0) *rn = 0;
    if (threadIdx.x == 0) *sn = 0;
    __syncthreads();
#ifdef MS_CU_RC_INST
    /* Round 32A: past this barrier every thread of the block has used its bins (ms_cu_k2_rowcut, before the call): thread 0
     * takes the row's ticket now, and reads it only at the block's end (ms_cu_k2_rczero), so the atomic's latency hides */
#  ifdef MS_CU_RC_LEAN
    /* Round 33A, a.rcut bit 5: acq_rel (gpu scope): its release orders the block's reads of the bins (done before the
     * barrier above) before the increment, its acquire the last block's zeroing (ms_cu_k2_rczero) after the G - 1
     * others; no fence on the last block's tail. Otherwise round 32A's relaxed atomicAdd and fence. tk is false where K1
     * did not count the row (-DMS_CU_RC_ONEBODY's one body); rtk points at the caller's local. */
    if (RC && tk && threadIdx.x == 0) {
        if (a.rcut & 32) {
            uint32_t o;
            asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], 1;" : "=r"(o) : "l"(MS_CU_RCH(a, r) + MS_CU_RCB) : "memory");
            *rtk = o + 1u;
        } else {
            *rtk = atomicAdd(MS_CU_RCH(a, r) + MS_CU_RCB, 1u) + 1u;
        }
    }
#  else
    if (RC && rtk && threadIdx.x == 0) *rtk = atomicAdd(MS_CU_RCH(a, r) + MS_CU_RCB, 1u) + 1u;
#  endif
#endif
    const int32_t chunk = ((a.V + a.G - 1) / a.G + 7) & ~7;
    const int32_t t0 = g * chunk, t1 = min(a.V, t0 + chunk);
    uint64_t mym = 0;
    /* The few tokens that pass the cheap test on x (about 1-2% of a flat row) need a division, exp and
     * staging: done inline, each one stalled its whole warp (K2 took twice K1's time); rounds 1-11 queued
     * them per warp with a ballot a token (K2 instruction-bound at B=64).
 Round 12: the tokens that pass the cheap test go to one block-wide stage (wq: MS_CU_HB entries of
     * (x bits, t)) by a shared atomic each; after one barrier the warps run the slow path (division, exp,
     * min-p's verdict, mass, staging of S0 in sbuf) over it 32 entries at a time, every lane busy. A
     * chunk with more passing tokens than the stage holds (tied or very flat) drops the stage and re-reads
     * itself with the slow path inline (from L2): the same survivors and masses, only slower; out of the
     * scan's loop, which the stage's append alone keeps small. */
#ifdef MS_CU_K2_TAIL /* round 16B: the tests' flag loaded here, used after the scan (no stall before it) */
    const int cnt_all = ms_cu_count_all;
#else
    if (threadIdx.x == 0 && ms_cu_count_all) atomicAdd(&ms_cu_k2_rows[0], 1ull);
    if (RG && threadIdx.x == 0 && ms_cu_count_all) atomicAdd(&ms_cu_ring_rows[0], 1ull);
#endif
    const ms_cu_ring rg = {(unsigned char *)sbuf, h}; /* round 15A: sbuf and h are unused until the scan ends */
    auto stage = [&](int32_t t, const float *x, uint32_t pm) { ms_cu_stage4(rn, wq, t, x, pm); };
#ifdef MS_CU_EARLY_F32
    if (F32S && c.dtype == MS_DTYPE_F32) { /* round 19C (MS_CU_EARLY_F32): the same row, its dtype a constant */
        ms_cu_row cf = c;
        cf.dtype = MS_DTYPE_F32;
        ms_cu_k2_scan<NG, RG>(cf, t0, t1, rg, stage);
    } else
#endif
    {
        ms_cu_k2_scan<NG, RG>(c, t0, t1, rg, stage);
    }
    __syncthreads();
    ms_cu_stamp(16);
#ifdef MS_CU_K2_TAIL
    if (threadIdx.x == 0 && cnt_all) atomicAdd(&ms_cu_k2_rows[0], 1ull);
    if (RG && threadIdx.x == 0 && cnt_all) atomicAdd(&ms_cu_ring_rows[0], 1ull);
#endif
#ifdef MS_CU_K2W_BCUT
    /* Round 38B: warp 1 (idle in the drain below while the stage holds <= 32 entries) loads the row's 256 candidate
     * bins (8 a lane) as the row's other blocks have counted them so far: ld.volatile (L2, never a stale L1 line),
     * issued before the drain, used after it. */
    __shared__ uint32_t bcut;
    uint32_t bhb[8] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u};
#  if MS_CU_K2W_BCUT != 2 /* =2: a measurement build, the warp-0 tail below without the cut (bcut = 255) */
    if (BC && (threadIdx.x >> 5) == 1 && !c.inf_row) {
        const uint32_t *gb = a.hcnt + (size_t)r * MS_CU_HB + 8 * (threadIdx.x & 31);
        asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(bhb[0]), "=r"(bhb[1]), "=r"(bhb[2]), "=r"(bhb[3]) : "l"(gb));
        asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(bhb[4]), "=r"(bhb[5]), "=r"(bhb[6]), "=r"(bhb[7]) : "l"(gb + 4));
    }
#  endif
#endif
    if (*rn <= (uint32_t)MS_CU_HB) {
        const int32_t nr = (int32_t)*rn, nw = (int32_t)(blockDim.x >> 5);
        for (int32_t b = (int32_t)(threadIdx.x >> 5) * 32; b < nr; b += nw * 32) /* warp-uniform */
            mym += ms_cu_k2_drain(c, wq + b, nr - b < 32 ? nr - b : 32, sn, sbuf);
    } else {
        if (threadIdx.x == 0 && ms_cu_count_all) atomicAdd(&ms_cu_k2_rows[1], 1ull);
        ms_cu_for_chunk<2>(c, t0, t1, [&](int32_t t, float x) {
            if (x < c.xcut) return;
            const ms_cu_elem el = ms_cu_from_y_pre(c, x / c.sl.temperature, t);
            if (!el.s0) return;
            mym += el.q;
            const uint32_t j = atomicAdd(sn, 1u);
            if (j < MS_CU_STAGE_SH) sbuf[j] = ((unsigned long long)el.key << 32) | (uint32_t)t;
        });
    }
#ifdef MS_CU_K2_TAIL
    /* Round 16B (-DMS_CU_K2_TAIL): the tail after the scan with fewer barriers and less code, for B=1's chain
     * (its in-graph timeline: ~3 us from a block's scan to its exit). One barrier orders the staging (sn,
     * sbuf). A chunk with at most kk survivors (every chunk at B=1, V=151936) keeps them all: ms_cu_k2_list
     * would compact them with shared atomics into the same set of ns entries (kth = 0 is below every key, no
     * bin cut); here entry i goes to sbase + i (one barrier, no compaction) and is counted in its bin as
     * there, and each warp adds its survivors' mass to m0 itself (a warp scan, one global atomic a warp with
     * mass: integers, so any order gives the same sum) instead of the block scan (three barriers). The row's
     * candidate list holds the same entries, in another order, which nothing depends on (K4 ranks by (key,
     * id)). Other chunks (more than kk survivors: B >= 16 at V=151936) take the block scan and ms_cu_k2_list
     * as before, one barrier later. Measured (H200, with the next two switches, docs/cuda.md round 16B): all CUDA
     * tests and both sanitizers pass; full setting 0.4-2.5 us faster at B=1..64, but top-p alone 0.9-3.8 us slower
     * at B=16 / 64 (K2's spills grew 80 / 144 -> 116 / 240 bytes). On since the eleventh session's final call
     * (docs/decisions.md): the full setting is the issue's measure. -DMS_CU_NO_K2_TAIL: the tail before. */
#ifdef MS_CU_K2W_BCUT
    if (BC && (threadIdx.x >> 5) == 1) { /* round 38B: the bound, bmax of the bins read (warp-uniform: the row's c.inf_row) */
        uint32_t bm = MS_CU_LBINS - 1;
#  if MS_CU_K2W_BCUT != 2
        if (!c.inf_row) bm = ms_cu_lbin_bmax(bhb, (int32_t)kk);
#  endif
        (void)bhb;
        if ((threadIdx.x & 31) == 0) bcut = bm;
    }
#endif
    __syncthreads(); /* the staging (sn, sbuf) */
    const uint32_t ns = *sn;
    if (ns <= kk) {
        {
            const uint64_t inc = ms_cu_warp_incl_u64(mym);
            if ((threadIdx.x & 31) == 31 && inc) atomicAdd(&st->m0, (unsigned long long)inc);
        }
#ifdef MS_CU_K2W_BCUT
        /* Round 38B (-DMS_CU_K2W_BCUT): a stage of at most 32 survivors is listed by warp 0 alone (one ballot, one
         * atomic on cand_n, no barrier), without those whose candidate bin is above bcut: the first bin where the
         * running count of the row's candidate bins, as warp 1 read them (the row's earlier blocks' lists), reached
         * kk. Why exact: the counts only grow during the step (K1 zeroed them before K2's PDL wait; each increment is
         * one listed candidate, ms_cu_k2_list's cut chunks counting theirs in their k'-th key's bin), so the running
         * count this block read is at most the final one at every bin, and bcut >= b*, the first bin where the final
         * count reaches kk (MS_CU_LBINS - 1 where it never does: nothing dropped). A drop is thus in a bin above b*,
         * so bins <= b* keep every candidate and count they would have had: the final histogram equals the default's
         * (no drop) on bins <= b* (b* <= every block's bcut), both reach kk first at b*, and K4's lean list (the
         * candidates in bins <= b*; all of them when cand_n <= kk, which then all lie in bins <= b*) is the same set
         * as without the cut, so the same kept set, masses and draw (K4 ranks by (key, id), never by list order).
         * The survivors' mass still goes to m0 above (all of S0, as before). Also the bin's order argument: a dropped
         * candidate's y is below every candidate's in bins <= b* (the bin is non-increasing in y), at least kk of
         * them, so top-k drops it in any case. +inf rows use no bins (bcut 255, bin 0). Where cand_n exceeds
         * MS_CU_CAND, entries past it are neither stored nor counted, as before (K4 then takes the whole-row path). */
        if (BC && ns <= 32u) {
            if (threadIdx.x < 32) {
                const unsigned FULL = 0xffffffffu;
                const int lane = (int)threadIdx.x;
                const bool lb = !c.inf_row;
                const float lscale = c.inf_row ? 0.0f : ms_cu_lbin_scale(c);
                const uint32_t bm = bcut;
                unsigned long long v = 0ull;
                uint32_t bin = 0u;
                bool keep = false;
                if ((uint32_t)lane < ns) {
                    v = sbuf[lane];
                    if (lb) bin = ms_cu_lbin(c, lscale, (uint32_t)(v >> 32));
                    keep = bin <= bm;
                }
                const unsigned bal = __ballot_sync(FULL, keep);
                const uint32_t nk = (uint32_t)__popc(bal);
                uint32_t base = 0u;
                if (lane == 0 && nk) base = atomicAdd(&st->cand_n, nk);
                base = __shfl_sync(FULL, base, 0);
                const uint32_t pos = base + (uint32_t)__popc(bal & ((1u << lane) - 1u));
                if (keep && pos < MS_CU_CAND) {
                    a.cand[(size_t)r * MS_CU_CAND + pos] = v;
                    if (lb) atomicAdd(&a.hcnt[(size_t)r * MS_CU_HB + bin], 1u);
                }
            }
            return;
        }
#endif
        if (threadIdx.x == 0) sbase = ns ? atomicAdd(&st->cand_n, ns) : 0;
        __syncthreads();
        const uint32_t base = sbase;
        unsigned long long *cand = a.cand + (size_t)r * MS_CU_CAND;
        uint32_t *gh = a.hcnt + (size_t)r * MS_CU_HB;
        const bool lb = !c.inf_row;
        const float lscale = c.inf_row ? 0.0f : ms_cu_lbin_scale(c);
        for (uint32_t i = threadIdx.x; i < ns; i += blockDim.x)
            if (base + i < MS_CU_CAND) {
                const unsigned long long v = sbuf[i];
                cand[base + i] = v;
                if (lb) atomicAdd(&gh[ms_cu_lbin(c, lscale, (uint32_t)(v >> 32))], 1u);
            }
        return;
    }
    {
        uint64_t m0;
        ms_cu_block_excl_u64(mym, &m0, sh);
        if (threadIdx.x == 0 && m0) atomicAdd(&st->m0, (unsigned long long)m0);
    }
#else
    uint64_t m0;
    ms_cu_block_excl_u64(mym, &m0, sh); /* the block's sum; also the barrier after the staging */
    if (threadIdx.x == 0 && m0) atomicAdd(&st->m0, (unsigned long long)m0);
    const uint32_t ns = *sn;
#endif
    ms_cu_k2_list<true>(a, r, c, st, kk, sbuf, ns, h, res, keepn, sbase, t0, t1);
}

#ifdef MS_CU_K1_ROWCUT
/* Round 31A (ms__cuda_rowcut_rows returns them; counted once a test has asked): K2 lite blocks that read K1's bins (rows of
 * the default order) [0], and those that raised their cut from them [1]. */
#  ifdef MS_CU_RC_INST
/* round 32A: in ms_cu_k2_rows[4..5], not a global of their own: a new global took a slot in the kernels' table of global
 * addresses (c[0x4]) and moved the slots of every kernel that reads one (the default's kernels' SASS changed) */
#    define MS_CU_RC_ROWS (ms_cu_k2_rows + 4)
#  else
__device__ unsigned long long ms_cu_rc_rows[2];
#    define MS_CU_RC_ROWS ms_cu_rc_rows
#  endif
/* Round 31A: the row-wide top-k' cut from K1's bins h (this lane's four: bins 4 lane .. 4 lane + 3; ms_cu_rowstat::rch)
 * for a lite row of the default order (k' = kk = top_k); raises c.xcut and returns true when it binds. Warp-uniform:
 * every warp reads the same bins (K1 is complete: the PDL wait) and computes the same cut, no barrier.
 * Why exact. Let b be the highest bin whose count from the top reaches kk and L (> 0) its lower edge (ms_cu_unkey of
 * its first key). (1) The counted values are maxima of different K1 warps, which cover disjoint tokens, each the
 * penalised x of one token (fmaxf returns one of its arguments; K2 computes the same x): at least kk distinct tokens
 * have x >= L (the top bin's edge is below every value clamped into it). (2) Each has y = fl(x / T) >= fL = fl(L / T)
 * (division by T > 0 is monotone) and fl(y - m) >= fl(fL - m) (monotone); the test below asks fl(fL - m) >= minp_cut +
 * 0.02, that is >= ln(min_p) + 0.01 less roundings, so ms__exp of it (within 1e-7 of exp, as the pre-filter's own
 * margin assumes) is >= min_p: all kk are in S0. (3) The cut raised to xc = fl(L 0.999): a token with x < xc has
 * x / T < 0.999 (1 + 2^-24) L / T, below fl(L / T)'s predecessor (fL >= L / T (1 - 2^-24), fL is normal: L >= 0.5 and
 * fL <= m, finite on a row that is not +inf), so y < fL: kk tokens of S0 are strictly above it and top-k drops it.
 * (4) So the tokens the raised cut drops are outside top-k's kept set K; the rest of S0 is an upper set of S0 in y
 * (y' > y implies x' > x, so x >= xc and y' > y give x' >= xc), it contains K, and ms_cu_lite_k's argument holds for it
 * as for S0: the union of the chunks' lists holds K and every token of S0 above a member of K. In the default order
 * top-p runs over K's renormalised mass, which K4 sums from the candidates, and nothing reads m0 (the HF order, whose
 * top-p needs S0's whole mass m0, has f.k == 0 and never comes here). The candidate histogram counts only what was
 * listed, as before. +inf rows take no cut (their m is +inf). */
#ifdef MS_CU_RC_INST
/* Round 32A's pre-test (pre: a.rcut bit 2): before the scan, each lane tests its top bin's lower edge Lt (bin 4 lane + 3)
 * with the scan's own min-p test, and the warp sums (one redux) the four counts of the lanes whose top bin passes. When
 * that sum is below kk the scan's cut cannot bind, and it returns false at once (a peaked row: its warp maxima's bins
 * lie below min-p's sure range). Why that is the scan's answer: the test t(L) = fl(fl(L / T) - m) >= minp_cut + 0.02 is
 * monotone non-decreasing in L (the division by T > 0 and the subtraction round monotonically), and the bins' edges
 * rise with the bin. If the scan binds, its bin b passes t and the count of bins >= b reaches kk; b's lane l holds a
 * top bin >= b, which passes t too, as does the top bin of every lane above l; so the pre-test's sum holds every bin
 * >= 4 l, at least the count of bins >= b, hence >= kk. So a sum below kk means the scan returns false; the pre-test
 * never changes the cut, only skips work (NaN, an +inf m: t is false for every lane, the sum 0, as the scan's own
 * answer false). */
__device__ __forceinline__ bool ms_cu_k2_rowcut(ms_cu_row &c, const uint4 h, uint32_t kk, bool pre) {
    const int lane = threadIdx.x & 31;
    if (pre) {
        const float Lt = ms_cu_unkey((MS_CU_RCB_BASE + 4u * (uint32_t)lane + 3u) << MS_CU_RCB_SH);
        const bool ok = Lt / c.sl.temperature - c.m >= c.minp_cut + 0.02f;
        if (__reduce_add_sync(0xffffffffu, ok ? h.x + h.y + h.z + h.w : 0u) < kk) return false;
    }
#else
__device__ __forceinline__ bool ms_cu_k2_rowcut(ms_cu_row &c, const uint4 h, uint32_t kk) {
    const int lane = threadIdx.x & 31;
#endif
    uint32_t suf = h.x + h.y + h.z + h.w; /* becomes the count of bins >= 4 lane */
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const uint32_t t = __shfl_down_sync(0xffffffffu, suf, o);
        if (lane + o < 32) suf += t;
    }
    const unsigned bal = __ballot_sync(0xffffffffu, suf >= kk); /* lanes 0 .. hl */
    if (bal == 0u || c.inf_row) return false;
    const int hl = 31 - __clz(bal);
    const uint32_t s3 = suf - h.x - h.y - h.z, s2 = s3 + h.z, s1 = s2 + h.y;
    uint32_t j = s3 >= kk ? 3u : s2 >= kk ? 2u : s1 >= kk ? 1u : 0u;
    j = __shfl_sync(0xffffffffu, j, hl);
    const float L = ms_cu_unkey((MS_CU_RCB_BASE + 4u * (uint32_t)hl + j) << MS_CU_RCB_SH);
    const float fL = L / c.sl.temperature;
    if (!(fL - c.m >= c.minp_cut + 0.02f)) return false; /* (2): below min-p's sure range, or NaN */
    const float xc = L * 0.999f;
    if (!(xc > c.xcut)) return false;
    c.xcut = xc;
    return true;
}
#endif

#ifdef MS_CU_RC_INST
/* Round 32A: the bins of a row that K1 counted are zeroed by the row's last K2 block (K4 keeps the default's code). Every
 * one of the row's G blocks takes the row's ticket (the word after its bins) once, in ms_cu_k2_lite after its first
 * barrier: by then each of its threads has used the bins it loaded (ms_cu_k2_rowcut's shuffles or redux consume them
 * before the call), so the reads are done. The block that draws G (rtk, read here, at its end) is the row's last: every
 * other block's reads are done, and it zeroes the 128 bins and the ticket (thread 0, 16 bytes a store). Which rows:
 * K1 counts a row iff it runs its early branch (no window penalty, not greedy: the tests of K2's early branch too),
 * a.rcut & 1, f.k > 0 and ms_cu_lite_k > 0 (K2's early branch holds it: decided from the slot, as K1's from the row
 * set-up, the same fields); K2 takes the ticket on the same test, and all G blocks of such a row reach ms_cu_k2_lite:
 * the early branch's returns before it are row-uniform, and ms_cu_set_max cannot fail where K1 counted (a counted
 * warp maximum is x >= 0.5, so the row's maxkey is above -inf's). The next counting step's K1 is a plain launch (the
 * resource's own workspace: no K0, so no PDL for K1), which starts after this step's kernels completed; within the
 * step nothing reads the bins after K2. The dirty-workspace memsets zero bins and tickets. */
__device__ __forceinline__ void ms_cu_k2_rczero(const ms_cu_args &a, int32_t r, uint32_t rtk) {
    if (threadIdx.x == 0 && rtk == (uint32_t)a.G) {
#ifdef MS_CU_RC_LEAN /* round 33A, a.rcut bit 5: the ticket's own acq_rel orders it */
        if (!(a.rcut & 32))
#endif
        __threadfence(); /* the ticket's G - 1 other increments, each after its block's reads, before the stores */
        uint4 *b = reinterpret_cast<uint4 *>(MS_CU_RCH(a, r));
#pragma unroll 4
        for (int i = 0; i < MS_CU_RCW / 4; i++) b[i] = make_uint4(0u, 0u, 0u, 0u);
    }
}
#endif

#ifdef MS_CU_LITE_EARLY
/* Round 18C (MS_CU_LITE_EARLY, on since the thirteenth session's final call): as round 18A's MS_CU_OR_EARLY for the lite rows of the lite steps' K2
 * (ms_cu_k2<false, ...>, B < 52 at fp32 V=151936): such a row branches off before the kernel's general set-up,
 * whose predicate packing for the general paths (c.pres and the like, kept live in bits across the whole
 * kernel) it no longer runs. Its own copy of the set-up is the same code (ms_cu_row_setup, ms_cu_filters,
 * ms_cu_lite_k, the PDL wait, ms_cu_set_max, ms_cu_k2_lite) on the same values in another place: exactness is
 * untouched. ms_cu_set_m does not change what ms_cu_filters and ms_cu_lite_k read (c.sl, c.V, c.filters,
 * c.minp_on), so deciding before the wait is the same decision. The decision is taken from the slot before the
 * set-up (the fields ms_cu_filters and ms_cu_lite_k read, as K3's test): a row that is not lite, or has a window
 * penalty (the set-up's window filter has barriers and work), returns false before it and the kernel sets it up
 * once as before; a greedy lite row waits and returns, as the kernel's own path does. Returns true when the row is
 * done (it waited). */
#ifdef MS_CU_RC_INST
template <bool RG, bool RC> /* RC: round 32A's cut instantiation */
#elif defined(MS_CU_K2W_BCUT)
template <bool RG, bool BC = false> /* BC: round 38B's cut (ms_cu_k2's K3W instantiation: the warm-up steps) */
#else
template <bool RG>
#endif
__device__ __forceinline__ bool ms_cu_k2_lite_early(const ms_cu_args &a, int32_t r, int32_t g, int32_t slot,
                                                    uint32_t *wfilt, unsigned long long *sbuf, uint32_t *scnt,
                                                    unsigned long long *sh, uint32_t *sn, unsigned long long *smass) {
    {
        const float rep = a.slots[slot].rep;
        if (rep != 1.0f && a.slots[slot].window > 0) return false; /* the general set-up's window filter */
        ms_cu_row q; /* what ms_cu_filters and ms_cu_lite_k read, as ms_cu_row_setup sets it (K3's test does the same) */
        ms_cu_slot_row(q, a, slot);
        if (ms_cu_lite_k(q, ms_cu_filters(q)) <= 0) return false; /* not lite: the general set-up, run once */
    }
    ms_cu_row c;
    ms_cu_row_setup(c, a.slots, slot, a.logits + (size_t)r * (size_t)a.stride * a.elem, a.dtype, a.V, a.apply_penalty,
                    a.apply_filters, a.seen, a.seen_words, a.hist, a.hist_cap, a.stop, wfilt);
#ifdef MS_CU_EARLY_NOWIN
    c.win = false; /* round 19C: the value ms_cu_row_setup gave it (not rep != 1 with a window, tested above) */
    c.w_eff = 0;
#endif
#ifdef MS_CU_K1_ROWCUT
    const int rc_cnt = MS_CU_RCON(2) ? ms_cu_count_all : 0; /* round 31A: the tests' flag, loaded before the wait */
#endif
    ms_cu_pdl_wait(); /* K1's row max, histogram clearing; greedy rows: as the kernel's own path, K2 covers K1 */
    if (c.greedy) return true;
    const ms_cu_filt f = ms_cu_filters(c);
    const int32_t kk = ms_cu_lite_k(c, f); /* > 0 (as q's) implies c.minp_on, hence f.k2run */
    ms_cu_stamp(3);
    ms_cu_rowstat *st = &a.stats[r];
#ifdef MS_CU_K1_ROWCUT
    uint4 rch = make_uint4(0u, 0u, 0u, 0u); /* round 31A: K1's bins, loaded with the max */
    if (MS_CU_RCON(2) && f.k > 0) rch = reinterpret_cast<const uint4 *>(MS_CU_RCH(a, r))[threadIdx.x & 31];
#endif
    if (!ms_cu_set_max(c, st)) return true;
#ifdef MS_CU_K1_ROWCUT
    if (MS_CU_RCON(2) && f.k > 0) {
#  ifdef MS_CU_RC_INST
        const bool cut = ms_cu_k2_rowcut(c, rch, (uint32_t)kk, (a.rcut & 4) != 0);
#  else
        const bool cut = ms_cu_k2_rowcut(c, rch, (uint32_t)kk);
#  endif
        if (rc_cnt && threadIdx.x == 0) {
            atomicAdd(&MS_CU_RC_ROWS[0], 1ull);
            if (cut) atomicAdd(&MS_CU_RC_ROWS[1], 1ull);
        }
    }
#endif
#if defined(MS_CU_EARLY_F32) && defined(MS_CU_RC_LEAN) && defined(MS_CU_RC_ONEBODY)
    if (RC) { /* round 33A: one lite body; the ticket only where K1 counted the row (round 32A's test) */
        uint32_t rtk = 0;
        ms_cu_k2_lite<MS_CU_K2_NG, RG, true, true>(a, r, g, c, st, (uint32_t)kk, sbuf, scnt, sh, sn, smass, &rtk,
                                                   (a.rcut & 1) && f.k > 0);
        ms_cu_k2_rczero(a, r, rtk); /* rtk stays 0 (< G) where no ticket was taken */
    } else {
        ms_cu_k2_lite<MS_CU_K2_NG, RG, true>(a, r, g, c, st, (uint32_t)kk, sbuf, scnt, sh, sn, smass);
    }
#elif defined(MS_CU_EARLY_F32) && defined(MS_CU_RC_INST)
    if (RC && (a.rcut & 1) && f.k > 0) { /* round 32A: K1 counted this row (its test): take the ticket, zero if last */
        uint32_t rtk = 0;
        ms_cu_k2_lite<MS_CU_K2_NG, RG, true, true>(a, r, g, c, st, (uint32_t)kk, sbuf, scnt, sh, sn, smass, &rtk);
        ms_cu_k2_rczero(a, r, rtk);
    } else {
        ms_cu_k2_lite<MS_CU_K2_NG, RG, true>(a, r, g, c, st, (uint32_t)kk, sbuf, scnt, sh, sn, smass);
    }
#elif defined(MS_CU_EARLY_F32) && defined(MS_CU_K2W_BCUT)
    ms_cu_k2_lite<MS_CU_K2_NG, RG, true, BC>(a, r, g, c, st, (uint32_t)kk, sbuf, scnt, sh, sn, smass); /* round 38B */
#elif defined(MS_CU_EARLY_F32)
    ms_cu_k2_lite<MS_CU_K2_NG, RG, true>(a, r, g, c, st, (uint32_t)kk, sbuf, scnt, sh, sn, smass);
#else
    ms_cu_k2_lite<MS_CU_K2_NG, RG>(a, r, g, c, st, (uint32_t)kk, sbuf, scnt, sh, sn, smass);
#endif
    ms_cu_stamp(4);
    return true;
}
#endif


#ifdef MS_CU_ONEREAD
/* ---- round 13 (on since round 14 unless -DMS_CU_NO_ONEREAD): K2's one-read path -----------------------------
 * For a row of ms_cu_onread, K1 returns at once and each K2 block, before its PDL wait (it reads nothing K1
 * writes), finds its own chunk's max and its candidates in one pass over the chunk. Why exact (docs/cuda.md,
 * round 13): ms__exp is monotone non-decreasing over d <= 0 (tests/test_math.c exp_monotone_every_input), so
 * for the chunk's max cm <= the row's m, C = {y : ms__exp(fl(y - cm)) >= min_p} holds every token of the chunk
 * in S0 = {y : ms__exp(fl(y - m)) >= min_p} (fl(y - cm) >= fl(y - m): the rounding is monotone). The chunk's
 * top k' of C (ties kept) holds every token of the chunk that the row's top-k of S0 keeps: a token s of S0
 * with k' tokens of C strictly above it has k' tokens of S0 above it (S0 is an upper set in y), so top-k drops
 * it. K4 keeps the listed tokens of S0 (min-p's exact test from the true m): a subset of S0 holding the row's
 * top k' of S0, whose own top k' is that set, as the lite path's lists (ms_cu_lite_k). No m0: the default
 * order's top-p uses only the top-k set's masses (ms_cu_k4_filter, ms_cu_k4_cand with f.k > 0). */

/* Round 13's counters (ms__cuda_oneread; counted once a test has asked): K2 blocks that took the one-read path
 * [0], those whose pass stage overflowed (the chunk re-read from L2 with the cut from its max) [1], those with
 * more tokens of C than sbuf holds (the radix select over re-reads) [2]; rows K4's lean path served from them [3];
 * round 14: blocks whose online top-k' cut fired [4]. */
__device__ unsigned long long ms_cu_or_rows[5];

/* ms_cu_set_m's cut on x for a row max whose x is mx (the same formula from m = fl(mx / T), hence the same
 * premise: a token with x below it has fl(fl(x / T) - m) < minp_cut, so ms__exp of it < min_p); -inf when
 * the bound is not finite (every token is then tested). minp_cut = logf(min_p) - 0.01f (min-p on). A cut from
 * any lower bound mx of the chunk's max is valid for the chunk's max cm itself: fl(y - cm) <= fl(y - m_lb) and
 * ms__exp is monotone, so a token it drops has ms__exp(fl(y - cm)) < min_p too, outside C. */
__device__ __forceinline__ float ms_cu_or_cut(const ms_cu_row &c, float minp_cut, float mx) {
    const float T = c.sl.temperature;
    const float m = mx / T;
    if (ms__is_pos_inf(m)) return -INFINITY;
    float v = (m + minp_cut) * T;
    v = v - (fabsf(v) + (fabsf(m) + fabsf(minp_cut)) * T) * 1e-5f;
    return isfinite(v) ? v : -INFINITY;
}

/* Round 14: the one-read pass's online top-k' cut. A flat chunk's min-p superset C (from the chunk max) is
 * 1-5% of its tokens and overflowed round 13's 2048-entry stage; its top k' (k' = 50) is 0.07-0.6%. So the
 * staged tokens are also counted in MS_CU_OBINS shared bins of y = fl(x / T) (ms_cu_obin: non-increasing in y,
 * a fixed function for the whole pass, from the first step's block max ry), and a warp now and then finds the
 * first bin b where the count from the top reaches k' and raises the pass's cut on x to a value xc whose y
 * lies in a bin after b (checked on the device, below). Why exact (docs/cuda.md, round 14): a token s with x
 * below xc has fl(x / T) <= fl(xc / T) (the division's rounding is monotone, T > 0), so its bin is at least
 * bin(fl(xc / T)) > b: every counted token in bins <= b has a y strictly above s's (a bin is a function of y,
 * non-increasing), and there are at least k' of them, distinct tokens of this chunk (each staged, so counted,
 * once). If s is in C, so are they (C is an upper set in y), so s is not in C's top k' even with ties kept,
 * and ms_cu_k2_list needs only those. The counts are read by atomics while others still land: lower bounds,
 * which only lower b. Both cuts drop only tokens that the chunk's list may lack, so their max does too. Since the
 * tenth session (MS_CU_OR_XBINS, the default) the bins are of x, and the cut xc lies a bin lower and is checked
 * against the y of a point between it and the counted bins (ms_cu_or_tkcut): the same argument, without a
 * division per staged token. */
#define MS_CU_OBINS 128
#ifndef MS_CU_OR_SCAN /* a warp finds the cut every MS_CU_OR_SCAN-th step (a power of 2; a tunable). 8 since the
                       * ninth session: 0.2-1.2 us a step faster than 4 at B=128 and 256 (H200, both shapes) */
#  define MS_CU_OR_SCAN 8
#endif
#ifndef MS_CU_OR_SCAN0 /* round 20A: a warp also scans in each of its steps 1..MS_CU_OR_SCAN0 (a tunable; 0: as before) */
#  define MS_CU_OR_SCAN0 0
#endif
__device__ __forceinline__ uint32_t ms_cu_obin(float ry, float sc, float y) {
    /* y: the staged value, of y or of x (MS_CU_OR_XBINS) as ry; ry finite, y not NaN: -inf for y = +inf, +inf for -inf */
    const float v = (ry - y) * sc;
    return v >= (float)(MS_CU_OBINS - 1) ? (uint32_t)(MS_CU_OBINS - 1) : v > 0.0f ? (uint32_t)v : 0u;
}
#if defined(MS_CU_OR_SB) || defined(MS_CU_OR_SB_BIN)
/* Round 34B (-DMS_CU_OR_SB, above; -DMS_CU_OR_SB_BIN: this alone in the default's staging loop, built after the round's
 * call, not measured): ms_cu_obin's value without a branch (the same function: v >= 127 gives 127, v in (0, 127) its
 * truncation, v <= 0 or NaN 0), for the staging loop's count */
__device__ __forceinline__ uint32_t ms_cu_obin_sb(float ry, float sc, float y) {
    return (uint32_t)fminf(fmaxf((ry - y) * sc, 0.0f), (float)(MS_CU_OBINS - 1));
}
#endif
#ifdef MS_CU_OR_SB
/* Round 34B: K2or's pass stage (ms_cu_k2_one's) as an object: the call as its lambda was (one shared atomic for a
 * group's passing tokens), and for the warp-looped staging the reservation of a warp-step's slots and one entry's store */
struct ms_cu_or_stage_sb {
    uint32_t *rn;           /* shared: the stage's count */
    unsigned long long *wq; /* shared: MS_CU_HB entries of (x bits, t) */
    __device__ __forceinline__ void operator()(int32_t t, const float *x, uint32_t pm) const { ms_cu_stage4(rn, wq, t, x, pm); }
    __device__ __forceinline__ uint32_t res(uint32_t n) const { return atomicAdd(rn, n); }
    __device__ __forceinline__ void put(uint32_t i, int32_t t, float x) const {
        if (i < (uint32_t)MS_CU_HB) wq[i] = ((unsigned long long)ms__f2u(x) << 32) | (uint32_t)t;
    }
};
#endif
/* The one-read pass's top-k' bins oh as a warp reads them (by atomics: others' may still land, never a plain load):
 * lane's PER = MS_CU_OBINS / 32 counts in n, their sum, and the inclusive running sum over the lanes in inc */
__device__ __forceinline__ void ms_cu_or_bread(uint32_t *oh, int lane, uint32_t (&n)[MS_CU_OBINS / 32], uint32_t &sum,
                                               uint32_t &inc) {
    constexpr int PER = MS_CU_OBINS / 32;
    sum = 0;
#pragma unroll
    for (int j = 0; j < PER; j++) {
        n[j] = atomicAdd(&oh[PER * lane + j], 0u);
        sum += n[j];
    }
    inc = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const uint32_t t = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= o) inc += t;
    }
}
/* The key of a cut on x from the bins oh (read by atomics; the whole warp calls it): the first bin b whose
 * count from the top reaches kk, xc proposed in the middle of bin b + 1 and kept only if the device's own
 * ms_cu_obin(fl(xc / T)) lies after b; 0 when there is none or it does not beat the key have. */
__device__ __forceinline__ uint32_t ms_cu_or_tkcut(uint32_t *oh, uint32_t kk, float ry, float sc, float T,
                                                   uint32_t have, int lane) {
    constexpr int PER = MS_CU_OBINS / 32;
    uint32_t n[PER], sum, inc;
    ms_cu_or_bread(oh, lane, n, sum, inc);
    const unsigned bal = __ballot_sync(0xffffffffu, inc >= kk);
    if (!bal) return 0;
    const int L = __ffs(bal) - 1; /* the first lane whose running count reaches kk */
    uint32_t b = MS_CU_OBINS, run = inc - sum;
#pragma unroll
    for (int j = 0; j < PER; j++) { /* its first bin where it does */
        run += n[j];
        if (b == MS_CU_OBINS && run >= kk) b = (uint32_t)(PER * lane + j);
    }
    b = __shfl_sync(0xffffffffu, b, L);
#ifdef MS_CU_OR_XBINS
    /* Tenth session: bins of x (ry is then the reference x, sc the scale per unit of x), so that counting a staged
     * token needs no division. xe in the middle of bin b + 1 (checked: its bin lies after b, so every counted token
     * in bins <= b has x > xe, hence y >= fl(xe / T)); xc in the middle of bin b + 2, kept only if fl(xc / T) <
     * fl(xe / T): a token with x < xc then has y <= fl(xc / T) < every counted token's y, as round 14 needs. */
    if (b + 2 >= MS_CU_OBINS) return 0;
    const float xe = ry - ((float)b + 1.5f) / sc, xc = ry - ((float)b + 2.5f) / sc;
    if (!(xc > -INFINITY) || !(xe < INFINITY) || ms_cu_obin(ry, sc, xe) <= b || !(xc / T < xe / T)) return 0;
#else
    if (b + 1 >= MS_CU_OBINS) return 0;
    const float xc = (ry - ((float)b + 1.5f) / sc) * T;
    if (!(xc > -INFINITY) || !(xc < INFINITY) || ms_cu_obin(ry, sc, xc / T) <= b) return 0;
#endif
    const uint32_t k = ms_cu_key(xc);
    return k > have ? k : 0;
}
#ifdef MS_CU_OR_RC2
/* Round 30A: ms_cu_or_tkcut for kk, and in nr the same cut for kr counted tokens (round 20A's slot: kr = ceil(k' / G)),
 * from one read of the bins; nr 0 when there is none or it does not beat hr. Each is ms_cu_or_tkcut's b and check on
 * the same counts (lower bounds, read once), so each is as exact as ms_cu_or_tkcut's. */
__device__ __forceinline__ uint32_t ms_cu_or_tkcut_b(uint32_t b, float ry, float sc, float T) { /* as ms_cu_or_tkcut */
#  ifdef MS_CU_OR_XBINS
    if (b + 2 >= MS_CU_OBINS) return 0;
    const float xe = ry - ((float)b + 1.5f) / sc, xc = ry - ((float)b + 2.5f) / sc;
    if (!(xc > -INFINITY) || !(xe < INFINITY) || ms_cu_obin(ry, sc, xe) <= b || !(xc / T < xe / T)) return 0;
#  else
    if (b + 1 >= MS_CU_OBINS) return 0;
    const float xc = (ry - ((float)b + 1.5f) / sc) * T;
    if (!(xc > -INFINITY) || !(xc < INFINITY) || ms_cu_obin(ry, sc, xc / T) <= b) return 0;
#  endif
    return ms_cu_key(xc);
}
__device__ __forceinline__ uint32_t ms_cu_or_tkcut2(uint32_t *oh, uint32_t kk, float ry, float sc, float T, uint32_t have,
                                                    int lane, uint32_t kr, uint32_t hr, uint32_t &nr) {
    constexpr int PER = MS_CU_OBINS / 32;
    uint32_t n[PER], sum, inc;
    ms_cu_or_bread(oh, lane, n, sum, inc);
    const unsigned bk = __ballot_sync(0xffffffffu, inc >= kk), br = __ballot_sync(0xffffffffu, inc >= kr);
    nr = 0;
    if (!br) return 0; /* kr <= kk: no lane reaches kk either */
    uint32_t b = MS_CU_OBINS, b2 = MS_CU_OBINS, run = inc - sum;
#pragma unroll
    for (int j = 0; j < PER; j++) { /* the lane's first bins where the running count reaches kk, kr */
        run += n[j];
        if (b == MS_CU_OBINS && run >= kk) b = (uint32_t)(PER * lane + j);
        if (b2 == MS_CU_OBINS && run >= kr) b2 = (uint32_t)(PER * lane + j);
    }
    b2 = __shfl_sync(0xffffffffu, b2, __ffs(br) - 1);
    b = __shfl_sync(0xffffffffu, b, bk ? __ffs(bk) - 1 : 0);
    const uint32_t k2 = ms_cu_or_tkcut_b(b2, ry, sc, T);
    nr = k2 > hr ? k2 : 0;
    if (!bk) return 0;
    const uint32_t k = ms_cu_or_tkcut_b(b, ry, sc, T);
    return k > have ? k : 0;
}
#endif

/* ms_cu_k2_scan's pass with the cut from a lower bound of the chunk's max, raised as the pass goes: each thread
 * keeps the running max rm of its penalised x (fmaxf over raw values ignores NaN, which sanitize makes -inf,
 * as ms_cu_chunk_max; a penalised group's values are sanitised and penalised first), and after each step's
 * NG groups its warp's max goes to the block's *smax (one shared atomicMax a warp, whose old value brings
 * the other warps' maxima back): the cut is recomputed when that bound rises. Loops run by whole warps (the
 * warp's first thread's position decides, as ms_cu_for_chunk_w), so that the warp operations see every lane.
 * Returns the thread's max of x over all its tokens (the tail's too). An unaligned chunk would test its
 * tokens one by one against -inf (every token staged: slow, exact); ms_cu_onread leaves such rows out, so
 * only a chunk's last 1-3 tokens come here. Rows without a window penalty only.
 * Round 19B (MS_CU_OR_LEAN, on; -DMS_CU_NO_OR_LEAN without it): after a step's loads and group maxima gm, a warp does
 * the step's bookkeeping (its max into *smax, the cuts, the top-k' scan, ns) and its compares only when some lane has
 * a group with gm >= cut, the cut in force (possibly stale); otherwise it goes to its next step. The first step (its
 * barrier, block-uniform) always runs it. Why exact: (1) the list: a skipped step's values all lie below the warp's
 * cut (gm is its group's max; a NaN value is never >= the cut, and an all-NaN group, gm NaN, stages nothing today
 * either), and every cut a warp has held is valid for the whole chunk (rounds 13-14: min-p's from any lower bound of
 * the chunk's max, the top-k' one from k' counted distinct staged tokens, which stay counted), so those values are
 * outside the chunk's top k' of C, all that its list needs; a step that runs refreshes its cut before its compares, as
 * today. (2) The chunk's max: rm now takes only the groups of steps that run the bookkeeping; the token attaining the
 * chunk's max cm_x is in C (fl(cm - cm) = 0, ms__exp(0) = 1 >= min_p, min_p <= 1 by ms_config's check), so min-p's cut
 * in force never lies above it (round 13's premise: a value below it is outside C), and the top-k' cut lies below k'
 * >= 1 counted tokens with x > xe > xc, none above the max; so its group has gm = cm_x >= cut and its step runs the
 * bookkeeping: rm's max over the block is cm_x exactly (and -inf for a chunk without a value above -inf, as before;
 * the tail loop is unchanged). Every value in rm or *smax is still a token of the chunk, so *smax stays a lower bound
 * of its max. A skipped step's values are below the cut, itself below the block's bound, so they would not have raised
 * it: the bound rises as today. With the ring, the warp's whole steps (every lane has NG whole groups) also load and
 * take maxima without per-group range tests. */
#if defined(MS_CU_OR_SPF) || defined(MS_CU_OR_PEEL)
/* Rounds 35B / 36C: block g's first step of K2or's scan, as ms_cu_k2_one and ms_cu_k2_scan1 compute it: the chunk [t0, t1)
 * (round 23A's MS_CU_ORG chunks, rounded to 8), the end of its whole groups of 4 tv, the thread's first group t and the
 * step between its groups; the one place outside the scan (round 35B's SPF prefetch, round 36C's PEEL loads). */
struct ms_cu_or_first {
    int32_t t0, t1, tv, t, step;
};
__device__ __forceinline__ ms_cu_or_first ms_cu_or_first_step(const ms_cu_args &a, int32_t g) {
    ms_cu_or_first f;
    const int32_t chunk = ((a.V + MS_CU_ORG(a) - 1) / MS_CU_ORG(a) + 7) & ~7;
    f.t0 = g * chunk;
    f.t1 = min(a.V, f.t0 + chunk);
    f.tv = f.t0 + ((f.t1 - f.t0) & ~3);
    f.step = (int32_t)blockDim.x * 4;
    f.t = f.t0 + (int32_t)threadIdx.x * 4;
    return f;
}
#endif
#ifdef MS_CU_OR_F32
/* Round 18A (-DMS_CU_OR_F32): ms_cu_load_groups for fp32 rows, without the dtype's test a group (the one-read pass's
 * copy for fp32, below): the same loads and values. */
template <int NG, bool W = false> /* W: as ms_cu_load_groups */
__device__ __forceinline__ void ms_cu_load_groups_f32(const ms_cu_row &c, int32_t t, int32_t step, int32_t tv,
                                                      float (&v)[NG][4], uint32_t (&words)[NG]) {
#pragma unroll
    for (int u = 0; u < NG; u++) {
        words[u] = 0;
        if (W || t + u * step < tv) {
            const float4 q = *(const float4 *)((const float *)c.row + t + u * step);
            v[u][0] = q.x, v[u][1] = q.y, v[u][2] = q.z, v[u][3] = q.w;
            if (c.pres) words[u] = ((const uint32_t *)c.seen)[(t + u * step) >> 5];
        }
    }
}
#  ifdef MS_CU_OR_PEEL
#    ifdef MS_CU_TKG3
#      error "-DMS_CU_OR_PEEL (round 36C) peels the scan's loop as round 35A's =3 splits it: not with MS_CU_OR_TKGATE=3"
#    endif
/* Round 36C (-DMS_CU_OR_PEEL): a thread's first step of ms_cu_k2_scan1, loaded by ms_cu_k2_one before its set-up: v[u]
 * and w[u] hold what ms_cu_load_groups_f32<NG> gives for group t + u step (t = t0 + 4 threadIdx.x, step = 4 blockDim.x:
 * the 4 fp32 logits and, where c.pres, the seen set's word; the values of groups at or past tv left alone, their words
 * 0), on when the block took the loads (block-uniform: an fp32 row, its chunk aligned to groups of 4, the ring-less
 * K2or); its geometry from ms_cu_or_first_step. */
struct ms_cu_orpre {
    float v[MS_CU_K2_NG][4];
    uint32_t w[MS_CU_K2_NG];
    bool on;
};
/* Round 36C: pre as ms_cu_k2_scan1's first iteration would load it: its chunk [t0, t1) as ms_cu_k2_one computes it, on
 * only where the scan takes groups of 4 (ms_cu_vec4 at t0), t, step and tv as the scan's, ms_cu_load_groups_f32 itself */
__device__ __forceinline__ void ms_cu_orpre_load(const ms_cu_args &a, int32_t g, const ms_cu_row &c, ms_cu_orpre &pre) {
    const ms_cu_or_first f = ms_cu_or_first_step(a, g);
    pre.on = ms_cu_vec4(c, f.t0);
    if (!pre.on) return;
    ms_cu_load_groups_f32<MS_CU_K2_NG>(c, f.t, f.step, f.tv, pre.v, pre.w);
}
#  endif
#  ifdef MS_CU_OR_DYN
/* Round 28A: the state of a row's pieces for a block (ms_cu_k2_scan1 with DY; ms_cu_k2_one). Its values are the
 * kernel's parameters and constants (GW = MS_CU_T123 / 32 x a.G, the end by tv): the scan's loop holds only the warp's
 * next cursor value in a register more (the scan over pieces alone leaves K2or's spills at the default's 124 / 220
 * bytes; the re-reads' inputs live across the scan raised them to 260 / 636: see ms_cu_k2_one's sdy). */
struct ms_cu_ordyn {
    uint32_t *cur;   /* the row's cursor (its stats' ticket): dynamic pieces taken */
    uint32_t *pbm;   /* shared: the pieces this block took, a bit each */
    int32_t pw;      /* the block's first piece (g x warps a block); warp w's first is pw + w */
    int32_t GW;      /* pieces a round of the rule (the row's blocks x warps a block) */
#    if defined(MS_CU_OR_DYN_RT) || defined(MS_CU_OR_DYN_ALWAYS)
    int32_t S;       /* round 29B: rounds of the rule (MS_CU_OR_DYN_S without the knob) */
#    endif
};
template <int NG, bool RG, class P, int DT = -1, bool DY = false> /* DY: round 28A's pieces (MS_CU_OR_DYN) */
#  else
template <int NG, bool RG, class P, int DT = -1> /* RG: as ms_cu_k2_scan; DT 0: the row is fp32 (MS_CU_OR_F32) */
#  endif
#else
template <int NG, bool RG, class P> /* RG: as ms_cu_k2_scan */
#endif
__device__ __forceinline__ float ms_cu_k2_scan1(const ms_cu_row &c, int32_t t0, int32_t t1, float minp_cut,
                                                uint32_t kk, uint32_t *smax, uint32_t *sref, uint32_t *stk,
                                                uint32_t *oh, const ms_cu_ring &rg, P pass
#if defined(MS_CU_OR_ROWCUT) || defined(MS_CU_OR_RC2)
                                                , uint32_t *rcs, int rcg, int rcG
#endif
#ifdef MS_CU_TKG2
                                                , const uint32_t *rnp /* round 35A: the stage's count (*rn) */
#endif
#ifdef MS_CU_OR_DYN
                                                , const ms_cu_ordyn &dyn
#endif
#ifdef MS_CU_OR_PEEL
                                                , const ms_cu_orpre *pre = nullptr /* round 36C: the first step, loaded */
#endif
                                                ) {
    const unsigned FULL = 0xffffffffu;
    const bool vec = ms_cu_vec4(c, t0);
    const int32_t wl = (int32_t)(threadIdx.x & ~31u);
    const int lane = (int)(threadIdx.x & 31u);
    const float T = c.sl.temperature;
    float rm = ms__neg_inf(), cut = -INFINITY;
    float mcut = -INFINITY;  /* min-p's cut from the bound (round 13) */
    uint32_t tkk = 0;        /* round 14: the key of the best top-k' cut this warp knows (0: none) */
    bool tk = false;         /* round 14: the online top-k' cut runs (block-uniform, set at the first step) */
    float ry = 0.0f, osc = 0.0f; /* its reference and bin scale (ms_cu_obin): of x with MS_CU_OR_XBINS, else of y */
    uint32_t ns = 0;         /* this warp's steps */
#ifdef MS_CU_TKG2
#  if MS_CU_OR_TKGATE == 4 || MS_CU_OR_TKGATE == 5
    constexpr bool TG2 = !RG; /* round 35A's =4: =2's code in the ring-less instantiation only (round 37A's =5 too) */
#  else
    constexpr bool TG2 = true;
#  endif
#endif
#ifdef MS_CU_OR_TKSH
    /* round 38A: ry, osc, tk not held in the ring-less loop's registers: read from shared memory where used */
    constexpr bool SH = !RG;
    auto shry = [&]() { return ms_cu_unkey(*(volatile const uint32_t *)sref); };
    auto shosc = [&]() { return *(volatile const float *)&ms_cu_sosc; };
    auto shtk = [&]() { /* D's tk, from the shared values (sosc 0: no block-wide first step, tk false there as D's) */
        const float r = shry(), o = shosc();
        return kk > 0 && isfinite(r) && isfinite(o) && o > 0.0f;
    };
#endif
#if defined(MS_CU_TKG1) || defined(MS_CU_TKG2)
    bool tg = false; /* round 35A: this warp's gate (warp-uniform): a staging of its returned a stage count >= kk */
#endif
    uint32_t ck = 0; /* the bound's key the cut came from (0: none; every key, -inf's included, is above 0) */
    int32_t ts = t0;
#ifdef MS_CU_STAMPS
    unsigned long long orq = 0; /* round 20A's counters (warp-uniform values; ms_cu_orq_flush) */
#endif
#ifdef MS_CU_OR_ROWCUT
    /* Round 20A: the row's cut (rcs: the row's slots, NULL when off). rcn: tokens a block counts for its slot */
    const uint32_t rcn = rcs ? (kk + (uint32_t)rcG - 1u) / (uint32_t)rcG : 0u;
    uint32_t rcpub = 0, rcv = ~0u; /* the key this warp last published; this lane's slot as last read */
    bool rcp = false;               /* a read pending (warp-uniform) */
#endif
#ifdef MS_CU_OR_RC2
    /* Round 30A: as round 20A's (rcn, rcpub); rcv: lanes < G hold the slot read at this warp's last scan (0 until then:
     * no cut), the others ~0u, so the warp's least is the row cut as last read (warp-uniform after __reduce_min_sync) */
    const uint32_t rcn = rcs ? (kk + (uint32_t)rcG - 1u) / (uint32_t)rcG : 0u;
    uint32_t rcpub = 0, rcv = lane < rcG ? 0u : ~0u;
#endif
    if (vec) {
#ifdef MS_CU_OR_DYN
        /* round 28A: with DY a warp's groups u lie 128 tokens apart inside its piece (a warp-step: NG x 128 tokens) */
#  ifdef MS_CU_OR_LOOP2
        const int32_t step = DY ? 128 : MS_CU_T123 * 4; /* round 34C: blockDim.x is MS_CU_T123 (K2's launches) */
#  else
        const int32_t step = DY ? 128 : (int32_t)blockDim.x * 4;
#  endif
#elif defined(MS_CU_OR_LOOP2)
        const int32_t step = MS_CU_T123 * 4; /* round 34C: blockDim.x is MS_CU_T123 (K2's launches), so a constant */
#else
        const int32_t step = (int32_t)blockDim.x * 4;
#endif
        const int32_t tv = t0 + ((t1 - t0) & ~3);
        /* The first step's bound is the whole block's (one barrier) when every warp has a first step of whole
         * groups: block-uniform, and then every warp is in its first iteration at the barrier. Its own warp's
         * 256 tokens alone would set a low cut, staging more tokens (an unkept host model estimated about a
         * third more for flat N(0,1) chunks at B=64; the stage holds 2048). */
#ifdef MS_CU_OR_DYN
        bool first = DY || tv - t0 >= NG * step; /* DY: ms_cu_k2_one chose it only where every first piece is whole */
#else
        bool first = tv - t0 >= NG * step;
#endif
        int s0 = 0; /* round 15A: the ring's slot of this iteration's first group */
        if (RG) ms_cu_ring_start(c, rg, t0 + (int32_t)threadIdx.x * 4, step, tv);
#ifdef MS_CU_OR_PEEL
        /* round 36C: the first iteration's groups are loaded (pre): that iteration runs in phase 0 (below) alone */
        bool pf = DT == 0 && !RG && pre != nullptr && pre->on;
#endif
#ifdef MS_CU_STAMPS
        bool half = false; /* round 18A: event 27 once (thread 0) */
#endif
#ifdef MS_CU_OR_DYN
        /* Round 28A: with DY the warp's pieces: pw + w, pw + w + GW, ... (MS_CU_OR_DYN_S of them, by rule), then
         * p0 + the cursor's values. The warp's next cursor value is fetched (lane 0, q) as soon as it starts the
         * piece before, so that its latency hides behind that piece's loads; every piece is marked in pbm. tb and the
         * piece are warp-uniform (q by __shfl_sync), so the loop's test is too. */
        constexpr int32_t PW = NG * 128, PS = MS_CU_OR_DYN_PM * PW; /* a warp-step's tokens (DY), a piece's */
        int32_t tb = t0 + wl * 4;
        uint32_t q = 0; /* lane 0: the cursor's value for the warp's next piece */
        int sj = 0, si = 1; /* the warp-step inside the piece; the pieces taken by rule */
        auto take = [&](int32_t pn) { /* DY: the warp starts piece pn (or leaves: past the row's whole groups) */
            if (pn * PS < tv) {
                if (lane == 0) {
                    atomicOr(&dyn.pbm[pn >> 5], 1u << (pn & 31));
                    if (si >= MS_CU_DYS) q = atomicAdd(dyn.cur, 1u); /* the next piece, one ahead */
                }
                tb = pn * PS;
            } else {
                tb = tv;
            }
        };
        if (DY) take(dyn.pw + (wl >> 5));
        auto adv = [&]() {
            if (!DY) {
                tb += NG * step;
                return;
            }
            if (MS_CU_OR_DYN_PM > 1 && ++sj < MS_CU_OR_DYN_PM) {
                tb += PW;
                return;
            }
            sj = 0;
            const uint32_t qn = __shfl_sync(FULL, q, 0); /* every lane: the loop's increment, warp-converged */
            if (si < MS_CU_DYS) {
                const int32_t pn = dyn.pw + (wl >> 5) + si * dyn.GW;
                si++;
                take(pn);
            } else {
                take(MS_CU_DYS * dyn.GW + (int32_t)qn);
            }
        };
        for (int32_t t = tb + lane * 4; tb < tv; adv(), t = tb + lane * 4) {
#elif defined(MS_CU_TKG3)
        /* round 35A (=3): the loop in two copies (the outer loop unrolled: ph a constant in each), phase 0 left for phase 1
         * (t, tb advanced past the step) once the block's stage holds kk tokens */
        int32_t t = t0 + (int32_t)threadIdx.x * 4, tb = t0 + wl * 4;
#  ifdef MS_CU_TKG5
        /* round 37A (=5): the ring's instantiation runs phase 1 alone (one copy: =4's ring code) */
        constexpr bool LZ = MS_CU_OR_LAZYBIN != 2; /* phase 0 counts no bins; phase 1 scans from a stage of 2 kk */
        constexpr bool LZS = MS_CU_OR_LAZYBIN >= 3 && !RG; /* =3, =4: the cut's state set at phase 1's entry */
        constexpr bool LZH = MS_CU_OR_LAZYBIN == 4 && !RG; /* =4: a warp-step of many tokens enters phase 1 unstaged */
        const uint32_t kkg = LZ && !LZH && !RG ? 2u * kk : kk; /* the scan gate's stage count */
#pragma unroll
        for (int ph = RG ? 1 : 0; ph < 2; ph++)
#  else
#pragma unroll
        for (int ph = 0; ph < 2; ph++)
#  endif
        for (; tb < tv; t += NG * step, tb += NG * step) {
#elif defined(MS_CU_OR_PEEL)
        /* round 36C: the loop peeled: phase 0 (a copy of the body with ph = 0) runs the first iteration alone where pf, with
         * the loaded groups; phase 1 the loop from where phase 0 left t and tb (the first iteration where !pf). The same
         * iterations in the same order: a continue in phase 0 advances t and tb, and pf (false after it) ends phase 0. */
        int32_t t = t0 + (int32_t)threadIdx.x * 4, tb = t0 + wl * 4;
#pragma unroll
        for (int ph = 0; ph < 2; ph++)
        for (; tb < tv && (ph || pf); t += NG * step, tb += NG * step, pf = false) {
#else
        for (int32_t t = t0 + (int32_t)threadIdx.x * 4, tb = t0 + wl * 4; tb < tv; t += NG * step, tb += NG * step) {
#endif
            float v[NG][4];
            uint32_t words[NG];
#ifdef MS_CU_STAMPS
            if (!half && tb - t0 >= (tv - t0) / 2) {
                half = true;
                ms_cu_stamp(27);
            }
#endif
            float gm[NG];
            uint32_t nib[NG];
#ifdef MS_CU_OR_LEAN
            /* Round 19B: a step in which every lane of the warp holds NG whole groups (tb is the warp's first lane's
             * position, so warp-uniform; every step but the first and the chunk's last ones) loads them and takes
             * their maxima without the per-group range tests, and tests the penalty's nibbles of its groups at once:
             * the same values and maxima as the general code below. Only with the ring (RG: grids past one wave):
             * H200, full setting V=151936, it gained 2.5-4.3 us more at flat B=128 / 256 there, and lost 0.1-0.8 us
             * at B=52 / 64 without the ring (the first version, e03cf84, in both; cause not found). */
#  ifdef MS_CU_OR_LEAN_NOWHOLE /* a measurement switch: the general code in every step */
            if (false) {
#  elif defined(MS_CU_OR_LOOP2) && MS_CU_OR_LOOP2 >= 2
            /* Round 34C (-DMS_CU_OR_LOOP2=2): the whole steps without the ring too (the one-wave K2or): the same loads
             * of the same addresses (ms_cu_load_groups_f32 / ms_cu_load_groups with W, every group inside [t0, tv)
             * by the test), the same nibbles and maxima as the general code below */
            if (!first && tb + (NG - 1) * step + 128 <= tv) {
#  else
            if (RG && !first && tb + (NG - 1) * step + 128 <= tv) {
#  endif
                if (RG) ms_cu_ring_get<NG, true>(c, rg, s0, t, step, tv, v, words);
#  ifdef MS_CU_OR_F32
#    if defined(MS_CU_OR_LOOP2) && MS_CU_OR_LOOP2 >= 3
                else if (DT == 0) {
                    /* Round 34C (-DMS_CU_OR_LOOP2=3): ms_cu_load_groups_f32<NG, true>'s loads, their addresses as offsets of
                     * the first group's: step is a multiple of 32 tokens, so group u's seen word (t + u step) >> 5 is
                     * (t >> 5) + u (step >> 5) (floor division of an int by 32) */
                    const float *rp = (const float *)c.row + t;
#pragma unroll
                    for (int u = 0; u < NG; u++) {
                        const float4 q = *(const float4 *)(rp + u * step);
                        v[u][0] = q.x, v[u][1] = q.y, v[u][2] = q.z, v[u][3] = q.w;
                        words[u] = 0;
                    }
                    if (c.pres) {
                        const uint32_t *wp = (const uint32_t *)c.seen + (t >> 5);
#pragma unroll
                        for (int u = 0; u < NG; u++) words[u] = wp[u * (step >> 5)];
                    }
                }
#    else
                else if (DT == 0) ms_cu_load_groups_f32<NG, true>(c, t, step, tv, v, words);
#    endif
#  endif
                else ms_cu_load_groups<NG, true>(c, t, step, tv, v, words);
#  if defined(MS_CU_OR_LOOP2) && MS_CU_OR_LOOP2 >= 3
                /* round 34C: one shift for the step's nibbles (step a multiple of 32: every group's shift is t & 31); each
                 * group's own nibble only when some group has a seen token (the same nibbles as below) */
                uint32_t nb = 0;
#pragma unroll
                for (int u = 0; u < NG; u++) nb |= words[u];
                if ((nb >> (t & 31)) & 15u) {
#pragma unroll
                    for (int u = 0; u < NG; u++) {
                        nib[u] = (words[u] >> (t & 31)) & 15u;
                        if (nib[u]) ms_cu_pen_group(c, v[u], nib[u]);
                    }
                }
#  else
                uint32_t nb = 0;
#pragma unroll
                for (int u = 0; u < NG; u++) {
                    nib[u] = (words[u] >> ((t + u * step) & 31)) & 15u;
                    nb |= nib[u];
                }
                if (nb) { /* as below */
#pragma unroll
                    for (int u = 0; u < NG; u++)
                        if (nib[u]) ms_cu_pen_group(c, v[u], nib[u]);
                }
#  endif
#pragma unroll
                for (int u = 0; u < NG; u++) gm[u] = fmaxf(fmaxf(v[u][0], v[u][1]), fmaxf(v[u][2], v[u][3]));
            } else
#endif
            {
            if (RG) ms_cu_ring_get<NG>(c, rg, s0, t, step, tv, v, words);
#ifdef MS_CU_OR_PEEL
            else if (DT == 0 && !ph) {
                /* Round 36C: phase 0 (pf: the first iteration) takes ms_cu_load_groups_f32<NG>'s values from the loads
                 * ms_cu_k2_one issued before its set-up (ms_cu_orpre_load: the same t, step and tv, the same row and
                 * seen set) */
#pragma unroll
                for (int u = 0; u < NG; u++) {
                    words[u] = pre->w[u];
                    if (t + u * step < tv) {
                        v[u][0] = pre->v[u][0], v[u][1] = pre->v[u][1], v[u][2] = pre->v[u][2], v[u][3] = pre->v[u][3];
                    }
                }
            }
#endif
#ifdef MS_CU_OR_F32
            else if (DT == 0) ms_cu_load_groups_f32<NG>(c, t, step, tv, v, words);
#endif
            else ms_cu_load_groups<NG>(c, t, step, tv, v, words);
#pragma unroll
            for (int u = 0; u < NG; u++) {
                const int32_t tg = t + u * step;
                nib[u] = 0;
                gm[u] = ms__neg_inf();
                if (tg >= tv) continue;
                nib[u] = (words[u] >> (tg & 31)) & 15u;
                if (nib[u]) ms_cu_pen_group(c, v[u], nib[u]);
                gm[u] = fmaxf(fmaxf(v[u][0], v[u][1]), fmaxf(v[u][2], v[u][3]));
#ifndef MS_CU_OR_LEAN
                rm = fmaxf(rm, gm[u]);
#endif
            }
            }
            if (RG) { /* the slots' values are in registers and used (gm) */
                ms_cu_ring_next<NG>(c, rg, s0, t, step, tv);
                s0 = (s0 + NG) % MS_CU_RING;
            }
#ifdef MS_CU_OR_LEAN
            { /* round 19B: the step's bookkeeping only when some group of the warp passes the cut in force (above) */
                bool p = false;
#pragma unroll
                for (int u = 0; u < NG; u++) p |= gm[u] >= cut; /* NaN: false (an all-NaN group stages nothing) */
                if (!__any_sync(FULL, p) && !first) { /* warp-uniform; the first step (block-uniform) always */
                    MS_CU_ORQ_ADD(1, 1u);
                    continue;
                }
#pragma unroll
                for (int u = 0; u < NG; u++) rm = fmaxf(rm, gm[u]);
            }
#endif
            MS_CU_ORQ_ADD(0, 1u);
            /* the block's max so far: tokens of this chunk, so a lower bound of its max */
            uint32_t wk = __reduce_max_sync(FULL, ms_cu_key(rm));
            if (first) {
                if (lane == 0) {
                    atomicMax(smax, wk);
                    atomicMax(sref, wk); /* round 14: the first step's block max, never written after the barrier */
                }
#ifdef MS_CU_OR_TKSH
                if (SH && threadIdx.x == 0) ms_cu_sosc = (float)(MS_CU_OBINS - 1) / -minp_cut / T; /* round 38A: D's osc */
#endif
                __syncthreads(); /* every warp's first step in *smax (read below by an atomic, not a load) */
                first = false;
                ms_cu_stamp(26);
                /* Round 14: the top-k' cut's bins are a function of y alone, fixed for the pass: their
                 * reference is the first step's block max (block-uniform: *sref is not written after the
                 * barrier, so this plain load races with nothing). Off when it gives no finite y. */
#ifdef MS_CU_OR_XBINS /* tenth session: the bins on x (ms_cu_or_tkcut): the reference x and the scale per unit of x */
#  ifdef MS_CU_TKG5
                if (!LZS) { /* round 37A (=3): at phase 1's entry instead (below) */
#  elif defined(MS_CU_OR_TKSH)
                if (!SH) { /* round 38A: read from shared memory where used */
#  endif
                ry = ms_cu_unkey(*sref);
                osc = (float)(MS_CU_OBINS - 1) / -minp_cut / T;
                tk = kk > 0 && isfinite(ry) && isfinite(osc) && osc > 0.0f; /* no NaN in (ry - x) * osc */
#  if defined(MS_CU_TKG5) || defined(MS_CU_OR_TKSH)
                }
#  endif
#else
                ry = ms_cu_unkey(*sref) / T;
                tk = kk > 0 && isfinite(ry);
                osc = (float)(MS_CU_OBINS - 1) / -minp_cut; /* min-p's range over the bins (minp_cut < 0) */
#endif
#ifdef MS_CU_OR_SB_NOTK
                /* Round 34B (-DMS_CU_OR_SB_NOTK, a measurement build): no online top-k' cut, as in rows with kk = 0: no bin
                 * counted while staging, no scan, no stk (the block's cut stays min-p's; the list's bin cut does the rest) */
                tk = false;
#endif
            }
#ifdef MS_CU_TKG2
            /* round 35A (=2): the block's top-k' cut read by every lane with a plain load (stk >= tkk always: above), issued
             * before the bound's round trip so that the two overlap; stk is 0 in rows without the cut (tk false: unused) */
#  ifdef MS_CU_TKG3
            uint32_t tko = TG2 && ph ? *(volatile const uint32_t *)stk : 0u; /* round 35A (=3): none in phase 0 */
#  else
            uint32_t tko = TG2 ? *(volatile const uint32_t *)stk : 0u;
#  endif
#else
            uint32_t tko = 0;
#endif
            if (lane == 0) {
                const uint32_t o = atomicMax(smax, wk);
                wk = o > wk ? o : wk;
#ifdef MS_CU_TKG1
                if (tg) tko = atomicMax(stk, tkk); /* round 35A: only once the gate is open (tg implies tk) */
#elif defined(MS_CU_TKG2)
                /* round 35A (=2): stk read by every lane above (a plain load), not here; =4's ring: D's round trip */
                if (!TG2 && tk) tko = atomicMax(stk, tkk);
#else
                if (tk) tko = atomicMax(stk, tkk); /* round 14: the block's best top-k' cut so far */
#endif
            }
            wk = __shfl_sync(FULL, wk, 0);
            bool rc = false;
            if (wk != ck) { /* warp-uniform */
                ck = wk;
                mcut = ms_cu_or_cut(c, minp_cut, ms_cu_unkey(wk));
                rc = true;
                MS_CU_ORQ_ADD(5, 1u);
            }
#ifdef MS_CU_TKG1
            if (tg) { /* round 35A: warp-uniform; implies tk */
#elif defined(MS_CU_TKG3)
            if (ph && tk) { /* round 35A (=3): phase 1 only (ph a constant in each copy of the loop) */
#elif defined(MS_CU_OR_TKSH)
            if (SH || tk) { /* round 38A: every step where SH (stk stays 0 and the gate shut where tk is false) */
#else
            if (tk) { /* block-uniform */
#endif
#ifdef MS_CU_TKG2 /* round 35A (=2): tko is every lane's own load (above); =4's ring: lane 0's */
                if (!TG2) tko = __shfl_sync(FULL, tko, 0);
#else
                tko = __shfl_sync(FULL, tko, 0);
#endif
                if (tko > tkk) {
                    tkk = tko;
                    rc = true;
                }
#ifdef MS_CU_OR_ROWCUT
                /* Round 20A (-DMS_CU_OR_ROWCUT, off): each slot g holds a cut published by block g below rcn = ceil(k' / G)
                 * of its counted tokens (ms_cu_or_tkcut with rcn), so a token below the least of the G slots has rcn
                 * distinct tokens with a strictly greater y in each chunk, G rcn >= k' in the row: outside the row's
                 * top k' of S0 (an upper set), so no list needs it. That least is at most this block's own slot, below
                 * counted tokens of this chunk, so the cut stays below the chunk's max (round 19B's premise, the
                 * drain's C test from cm, the overflow's re-read with stk); a slot only rises (a stale read is lower)
                 * and an unpublished one is 0 (no cut). */
                if (rcp) { /* round 20A: the row's cut, from the slots read at this warp's last scan */
                    const uint32_t rk = __reduce_min_sync(FULL, rcv);
                    rcp = false;
                    MS_CU_ORQ_ADD(7, rk > tkk ? 1u : 0u);
                    if (rk > tkk) {
                        tkk = rk;
                        rc = true;
                        if (lane == 0) atomicMax(stk, rk);
                    }
                }
#endif
#ifdef MS_CU_OR_RC2
                if (rcs) { /* round 30A: the row's cut as read at this warp's last scan (a load issued a step or more ago) */
                    const uint32_t rk = __reduce_min_sync(FULL, rcv);
                    MS_CU_ORQ_ADD(7, rk > tkk ? 1u : 0u);
                    if (rk > tkk) {
                        tkk = rk;
                        rc = true;
                        if (lane == 0) atomicMax(stk, rk); /* the block's warps take it at their next step (tko) */
                    }
                }
#endif
                /* Round 14: every MS_CU_OR_SCAN-th step of a warp (staggered over the warps), the first bin b
                 * whose count from the top reaches k' (ms_cu_or_tkcut) raises the warp's and the block's cut */
#ifdef MS_CU_TKG2
                /* round 35A (=2): and only once the block's stage holds kk tokens (warp-uniform, sticky) */
#  ifdef MS_CU_TKG5
                if (ns > 0 && (ns <= MS_CU_OR_SCAN0 || ((ns + (threadIdx.x >> 5)) & (MS_CU_OR_SCAN - 1)) == 0) &&
                    (!TG2 || tg || (tg = __any_sync(FULL, *(volatile const uint32_t *)rnp >= kkg)))) {
#  elif defined(MS_CU_OR_TKSH)
                if (ns > 0 && (ns <= MS_CU_OR_SCAN0 || ((ns + (threadIdx.x >> 5)) & (MS_CU_OR_SCAN - 1)) == 0) &&
                    (!TG2 || tg || (tg = __any_sync(FULL, *(volatile const uint32_t *)rnp >= kk) && (!SH || shtk())))) {
#  else
                if (ns > 0 && (ns <= MS_CU_OR_SCAN0 || ((ns + (threadIdx.x >> 5)) & (MS_CU_OR_SCAN - 1)) == 0) &&
                    (!TG2 || tg || (tg = __any_sync(FULL, *(volatile const uint32_t *)rnp >= kk)))) {
#  endif
#else
                if (ns > 0 && (ns <= MS_CU_OR_SCAN0 || ((ns + (threadIdx.x >> 5)) & (MS_CU_OR_SCAN - 1)) == 0)) {
#endif
#ifdef MS_CU_OR_RC2
                    uint32_t nr = 0; /* round 30A: the block's slot cut below rcn counted tokens, from the same read */
                    const uint32_t nk = ms_cu_or_tkcut2(oh, kk, ry, osc, T, tkk, lane, rcn, rcpub, nr);
#elif defined(MS_CU_OR_TKSH)
                    const uint32_t nk = SH ? ms_cu_or_tkcut(oh, kk, shry(), shosc(), T, tkk, lane) /* round 38A */
                                           : ms_cu_or_tkcut(oh, kk, ry, osc, T, tkk, lane);
#else
                    const uint32_t nk = ms_cu_or_tkcut(oh, kk, ry, osc, T, tkk, lane);
#endif
                    MS_CU_ORQ_ADD(4, 1u);
                    MS_CU_ORQ_ADD(6, nk > tkk ? 1u : 0u);
                    if (nk > tkk) {
                        tkk = nk;
                        rc = true;
                        if (lane == 0) atomicMax(stk, nk);
                    }
#ifdef MS_CU_OR_ROWCUT
                    if (rcs) { /* round 20A: this block's slot raised, and the row's slots read for the next step */
                        const uint32_t nr = ms_cu_or_tkcut(oh, rcn, ry, osc, T, rcpub, lane);
                        /* the slots are zero at the step's start: rcs is set only on the resource's own workspace
                         * (a.k4zero), whose stats the last step's K4 zeroed before this step's K1 (a plain launch)
                         * started; a caller's workspace is zeroed by K0, which only a griddepcontrol.wait would
                         * order before this (call 1 waited here: 2.4-8 us slower, not kept) */
                        if (nr > rcpub) {
                            rcpub = nr;
                            if (lane == 0) atomicMax(&rcs[rcg], nr);
                        }
                        rcv = ~0u;
                        if (lane < rcG) asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(rcv) : "l"(rcs + lane) : "memory");
                        rcp = true;
                    }
#endif
#ifdef MS_CU_OR_RC2
                    if (rcs) { /* round 30A: publish only a rise; the slots read for the warp's next step (no memory clobber:
                                * nothing else is reloaded; the value is first used a step later) */
                        if (nr > rcpub) {
                            rcpub = nr;
                            if (lane == 0) atomicMax(&rcs[rcg], nr);
                        }
                        if (lane < rcG) asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(rcv) : "l"(rcs + lane));
                    }
#endif
                }
#ifndef MS_CU_TKG1
                ns++;
#endif
            }
#ifdef MS_CU_TKG5
            else if (!ph && !LZS) ns++; /* round 37A (=5): as =3's (phase 1's steps without tk need no count: the ring's as D's) */
#elif defined(MS_CU_TKG3)
            else ns++; /* round 35A (=3): phase 0 counts its steps too (D's scan schedule) */
#endif
#ifdef MS_CU_TKG1
            ns++; /* round 35A: D's scan schedule (ns counts every bookkeeping step; read only where tk) */
#endif
            if (rc) cut = tkk ? fmaxf(mcut, ms_cu_unkey(tkk)) : mcut; /* warp-uniform */
#ifdef MS_CU_OR_WSTAGE
            { /* round 20A: the step's passing tokens (the same set as below: v >= cut, NaN never) staged one token a
               * lane at a time, the warp looping as long as some lane has one left (usually once on flat rows) */
                uint32_t M = 0; /* bit 4u + k: v[u][k] passes */
#pragma unroll
                for (int u = 0; u < NG; u++) {
                    if (t + u * step >= tv) continue;
#pragma unroll
                    for (int k = 0; k < 4; k++) M |= (v[u][k] >= cut ? 1u : 0u) << (4 * u + k);
                }
#  ifdef MS_CU_TKG5
                /* round 37A (=4): a step of many passing tokens leaves phase 0 unstaged (t, tb not advanced: phase 1 redoes it) */
                if (LZH && !ph && kk > 0 && __reduce_add_sync(FULL, (uint32_t)__popc(M)) >= (uint32_t)MS_CU_OR_LZW) {
                    ry = ms_cu_unkey(*sref);
                    osc = (float)(MS_CU_OBINS - 1) / -minp_cut / T;
                    tk = tv - t0 >= NG * step && isfinite(ry) && isfinite(osc) && osc > 0.0f;
                    break;
                }
#  endif
#  ifdef MS_CU_OR_SB
                /* round 34B: the warp-step's slots reserved at once (lane 0, one shared atomic); a lane's slot in a round
                 * is sb + the lanes before it with a token left (the round's ballot); sb moves past the round's tokens */
                const uint32_t snw = __reduce_add_sync(FULL, (uint32_t)__popc(M));
                MS_CU_ORQ_ADD(2, snw ? 1u : 0u);
                uint32_t sb = 0;
                if (snw) { /* warp-uniform */
                    /* one lane's atomic: elect.sync's leader (sm_90), not lane == 0, because ptxas would wrap an atomic
                     * under lane == 0 in its own warp aggregation (~14 instructions); the leader's lane id is warp-uniform */
#    if __CUDA_ARCH__ >= 900
                    uint32_t el, ld;
                    asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, 0xffffffff;\n\tselp.u32 %1, 1, 0, p;\n\t}"
                                 : "=r"(ld), "=r"(el));
                    if (el) sb = pass.res(snw);
                    sb = __shfl_sync(FULL, sb, (int)ld);
#    else
                    if (lane == 0) sb = pass.res(snw);
                    sb = __shfl_sync(FULL, sb, 0);
#    endif
                }
                const unsigned slt = (1u << lane) - 1u;
                for (unsigned sbal; (sbal = __ballot_sync(FULL, M != 0)) != 0u; sb += (uint32_t)__popc(sbal)) { /* warp-uniform */
#  else
                MS_CU_ORQ_ADD(2, __any_sync(FULL, M != 0) ? 1u : 0u);
#    ifdef MS_CU_TKG1
                bool go = false; /* round 35A: a staging of this lane's returned a stage count >= kk */
#    endif
                while (__any_sync(FULL, M != 0)) { /* warp-uniform */
#  endif
                    MS_CU_ORQ_ADD(3, 1u);
                    if (M) {
                        const int j = __ffs((int)M) - 1;
                        M &= M - 1u;
#  ifdef MS_CU_OR_WSEL
                        /* round 32C: v's 4 * NG values (index 4u + k) halved by j's bits, the highest first */
                        static_assert((NG & (NG - 1)) == 0, "MS_CU_OR_WSEL: NG a power of two");
                        float w[4 * NG];
#pragma unroll
                        for (int u = 0; u < NG; u++)
#pragma unroll
                            for (int k = 0; k < 4; k++) w[4 * u + k] = v[u][k];
#pragma unroll
                        for (int h = 2 * NG; h >= 1; h >>= 1) {
                            const bool hi = (j & h) != 0;
#pragma unroll
                            for (int i = 0; i < h; i++) w[i] = hi ? w[i + h] : w[i];
                        }
                        float y = w[0];
#  else
                        float y = v[0][0];
#pragma unroll
                        for (int u = 0; u < NG; u++)
#pragma unroll
                            for (int k = 0; k < 4; k++) y = j == 4 * u + k ? v[u][k] : y;
#  endif
#  ifdef MS_CU_OR_SB
                        pass.put(sb + (uint32_t)__popc(sbal & slt), t + (j >> 2) * step + (j & 3), y);
                        if (tk) /* round 14's count, as below (bins of x: MS_CU_OR_XBINS) */
                            atomicAdd(&oh[ms_cu_obin_sb(ry, osc, y)], 1u);
#  else
#    ifdef MS_CU_TKG1
                        go |= pass(t + (j >> 2) * step + (j & 3), &y, 1u) >= kk; /* round 35A */
#    else
                        pass(t + (j >> 2) * step + (j & 3), &y, 1u);
#    endif
#    ifdef MS_CU_TKG5
                        if (tk && (!LZ || ph)) /* round 37A (=1): phase 1's stagings alone counted (lower bounds) */
#    elif defined(MS_CU_OR_TKSH)
                        /* round 38A: where kk > 0 (counts where tk is false are never read: the scan needs tk) */
                        if (SH ? kk > 0 : tk)
#    else
                        if (tk) /* round 14's count, as below */
#    endif
#    if defined(MS_CU_OR_XBINS) && defined(MS_CU_OR_SB_BIN)
                            atomicAdd(&oh[ms_cu_obin_sb(ry, osc, y)], 1u); /* round 34B: the same bin, no branch */
#    elif defined(MS_CU_OR_XBINS) && defined(MS_CU_OR_TKSH)
                            atomicAdd(&oh[SH ? ms_cu_obin(shry(), shosc(), y) : ms_cu_obin(ry, osc, y)], 1u);
#    elif defined(MS_CU_OR_XBINS)
                            atomicAdd(&oh[ms_cu_obin(ry, osc, y)], 1u);
#    else
                            atomicAdd(&oh[ms_cu_obin(ry, osc, y / T)], 1u);
#    endif
#  endif
                    }
                }
#  ifdef MS_CU_TKG1
                if (!tg && __any_sync(FULL, go)) tg = tk; /* round 35A: open once the stage holds kk tokens (warp-uniform) */
#  endif
            }
#else
#  ifdef MS_CU_STAMPS
            { /* round 20A's counters: the warp's staging steps and its groups with a passing token */
                uint32_t ng = 0;
#pragma unroll
                for (int u = 0; u < NG; u++) ng += __any_sync(FULL, t + u * step < tv && gm[u] >= cut) ? 1u : 0u;
                MS_CU_ORQ_ADD(2, ng ? 1u : 0u);
                MS_CU_ORQ_ADD(3, ng);
            }
#  endif
#pragma unroll
            for (int u = 0; u < NG; u++) {
                const int32_t tg = t + u * step;
                if (tg >= tv) continue;
                /* as ms_cu_k2_scan: raw values where no penalty touches the group (NaN >= cut is false; a
                 * group of four NaN has gm NaN, not below the cut, and fails token by token) */
                if (gm[u] < cut) continue;
                uint32_t pm = 0;
#pragma unroll
                for (int k = 0; k < 4; k++) pm |= (v[u][k] >= cut ? 1u : 0u) << k;
                if (pm) {
                    pass(tg, v[u], pm);
                    if (tk) /* round 14: the staged tokens counted in their bins, y as K2's drain computes it */
#pragma unroll
                        for (int k = 0; k < 4; k++)
#ifdef MS_CU_OR_XBINS
                            if ((pm >> k) & 1u) atomicAdd(&oh[ms_cu_obin(ry, osc, v[u][k])], 1u);
#else
                            if ((pm >> k) & 1u) atomicAdd(&oh[ms_cu_obin(ry, osc, v[u][k] / T)], 1u);
#endif
                }
            }
#endif /* MS_CU_OR_WSTAGE */
#ifdef MS_CU_TKG3
            /* round 35A (=3): phase 0 ends once the block's stage holds kk tokens (warp-uniform; tk block-uniform) */
#  ifdef MS_CU_TKG5
            if (!ph && (LZS ? kk > 0 : tk) && __any_sync(FULL, *(volatile const uint32_t *)rnp >= kk)) {
                tg = !LZ; /* round 37A: =1's gate opens at a stage of 2 kk (kkg), =2's at once (=3's) */
                if (LZS) { /* round 37A (=3): the cut's state, as the first step sets it (past its barrier) */
                    ry = ms_cu_unkey(*sref);
                    osc = (float)(MS_CU_OBINS - 1) / -minp_cut / T;
                    /* kk > 0 here; as D, tk only where the pass had its block-wide first step (first's initial value) */
                    tk = tv - t0 >= NG * step && isfinite(ry) && isfinite(osc) && osc > 0.0f;
                }
#  else
            if (!ph && tk && __any_sync(FULL, *(volatile const uint32_t *)rnp >= kk)) {
                tg = true;
#  endif
                t += NG * step;
                tb += NG * step;
                break;
            }
#endif
        }
        if (RG) ms_cu_cp_wait_all(); /* only empty groups are left; none outlives the scan (the ring aliases sbuf) */
        ts = tv;
    }
    for (int32_t t = ts + (int32_t)threadIdx.x; t < t1; t += blockDim.x) { /* not counted: counts are lower bounds */
        float x[4];
        x[0] = ms_cu_x(c, t);
        rm = fmaxf(rm, x[0]);
        if (!(x[0] < cut)) pass(t, x, 1u);
    }
#ifdef MS_CU_STAMPS
    ms_cu_orq_flush(orq);
#endif
    return rm;
}

#ifdef MS_CU_OR_DYN
/* Round 28A: ms_cu_for_chunk over the pieces of PS tokens a block took (pbm, after the barrier that ends the scan) and
 * its tokens [tv, t1) (the row's last 1-3, its last block's; else t1 = tv): f(t, x) with x as ms_cu_for_chunk gives
 * it, each token once. A warp walks the pieces w, w + warps, ... of the row, those of the block a group of 4 a lane
 * at a time. Only the re-reads use it (rare: the stage or C past 2048 tokens). */
template <int32_t PS, class F>
__device__ __forceinline__ void ms_cu_or_for_pieces(const ms_cu_row &c, const uint32_t *pbm, int32_t P, int32_t tv,
                                                    int32_t t1, F f) {
    const int32_t nw = (int32_t)(blockDim.x >> 5), lane = (int32_t)(threadIdx.x & 31u);
    for (int32_t p = (int32_t)(threadIdx.x >> 5); p < P; p += nw) { /* warp-uniform */
        if (!((pbm[p >> 5] >> (p & 31)) & 1u)) continue;
        const int32_t pe = min(tv, (p + 1) * PS);
        for (int32_t tg = p * PS + lane * 4; tg < pe; tg += 128) {
            float v[4];
            ms_cu_load4(c, tg, v);
            ms_cu_group_x(c, v, c.pres ? ((const uint32_t *)c.seen)[tg >> 5] : 0u, tg, f); /* as ms_cu_for_chunk */
        }
    }
    for (int32_t t = tv + (int32_t)threadIdx.x; t < t1; t += blockDim.x) f(t, ms_cu_x(c, t));
}
/* Round 28A: ms_cu_keys_chunk over a block's pieces (ms_cu_or_for_pieces) */
template <int32_t PS>
struct ms_cu_keys_pieces {
    const ms_cu_row *c;
    const uint32_t *pbm;
    int32_t P, tv, t1;
    template <class F> __device__ __forceinline__ void operator()(F f) const {
        const ms_cu_row &cr = *c;
        ms_cu_or_for_pieces<PS>(cr, pbm, P, tv, t1, [&](int32_t t, float x) {
            if (x < cr.xcut) return;
            ms_cu_elem e = ms_cu_from_y_pre(cr, x / cr.sl.temperature, t);
            if (e.s0) f(e.key);
        });
    }
};
/* Round 28A: a block's re-reads over its pieces (rare: the stage or C past 2048 tokens). list false: the pass stage's
 * overflow (C's tokens at or above tkc staged in sbuf, counted in *sn); true: ms_cu_k2_list's re-read (the k'-th key of
 * C, then the tokens at or above it appended to the row's candidates). Out of line (__noinline__, c by value) it made
 * K2or's spills 448 / 1760 bytes; inline, with its flag read back from shared memory and its bounds from t1 (so that
 * nothing of it lives across the scan), 168 / 384 (the build measured and tested in round 28A's call 2). */
template <int32_t PS>
__device__ __forceinline__ void ms_cu_or_reread(const ms_cu_row c, const uint32_t *pbm, int32_t P, int32_t tv, int32_t t1,
                                             bool list, float tkc, uint32_t *sn, unsigned long long *sbuf, uint32_t kk,
                                             uint32_t *h, uint32_t *res, uint32_t *cand_n, unsigned long long *cand) {
    if (!list) {
        ms_cu_or_for_pieces<PS>(c, pbm, P, tv, t1, [&](int32_t t, float x) { /* as ms_cu_k2_one's overflow */
            if (x < c.xcut || x < tkc) return;
            const ms_cu_elem el = ms_cu_from_y_pre(c, x / c.sl.temperature, t);
            if (!el.s0) return;
            const uint32_t j = atomicAdd(sn, 1u);
            if (j < MS_CU_STAGE_SH) sbuf[j] = ((unsigned long long)el.key << 32) | (uint32_t)t;
        });
        return;
    }
    const ms_cu_keys_pieces<PS> kp = {&c, pbm, P, tv, t1};
    const uint32_t kth = ms_cu_kth_key(kp, kk, h, res);
    ms_cu_or_for_pieces<PS>(c, pbm, P, tv, t1, [&](int32_t t, float x) { /* as ms_cu_k2_list's */
        if (x < c.xcut) return;
        ms_cu_elem e = ms_cu_from_y_pre(c, x / c.sl.temperature, t);
        if (!e.s0 || e.key < kth) return;
        uint32_t i = atomicAdd(cand_n, 1u);
        if (i < MS_CU_CAND) cand[i] = ((unsigned long long)e.key << 32) | (uint32_t)t;
    });
}
#endif

/* K2 for a row of ms_cu_onread, by the whole block, before its PDL wait (the caller waits after it returns,
 * on every path: K3 and K4 wait for K2 alone, and K2's wait covers K1's completion). Every branch below is
 * block-uniform: each reads shared values after a barrier (*rn, smax, *sn) or the row's settings. The
 * stats are zeroed by K0, which only K1 waits for, so this block waits before its first global
 * atomic (maxkey, cand_n). */
template <int NG, bool RG>
__device__ void ms_cu_k2_one(const ms_cu_args &a, int32_t r, int32_t g, ms_cu_row &c, ms_cu_rowstat *st,
                             uint32_t kk, unsigned long long *sbuf, uint32_t *h, uint32_t *sn,
                             unsigned long long *wq) {
    __shared__ uint32_t res[2], keepn, sbase, smax, sref, stk;
#ifdef MS_CU_OR_PEEL
    /* round 36C: the ring-less fp32 K2or's first step loaded before the set-up (its latency behind the zeroing, the
     * barrier and the chunk's arithmetic); the scan's peeled first iteration takes it */
    ms_cu_orpre pre;
    pre.on = false;
    if (!RG && c.dtype == MS_DTYPE_F32) ms_cu_orpre_load(a, g, c, pre);
#endif
    uint32_t *rn = res; /* the pass stage's count (res is free until the bin cut or the select) */
    uint32_t *oh = h + 1024; /* round 14: the top-k' cut's bins (h's first 256 words serve the list, after the pass) */
    if (threadIdx.x == 0) {
        *rn = 0;
        *sn = 0;
        smax = 0;
        sref = 0;
        stk = 0;
#ifdef MS_CU_OR_TKSH
        if (!RG) ms_cu_sosc = 0.0f; /* round 38A: read where the pass has no block-wide first step (tk false) */
#endif
    }
    for (int i = threadIdx.x; i < MS_CU_OBINS; i += blockDim.x) oh[i] = 0;
#ifdef MS_CU_OR_DYN
    /* Round 28A: the row's pieces (MS_CU_OR_DYN, above) when its blocks agree on them (every input row-uniform): the
     * ring-less kernel, the own workspace (the cursor zero at the step's start), a row aligned to groups of 4, every
     * warp's first piece whole, the pieces within the bitmap. The block's set is then its pieces and, for the last
     * block, the row's last V % 4 tokens: t0 = 0 and t1 = V or the whole groups' end, which the scan and the
     * re-reads take. */
    __shared__ uint32_t pbm[MS_CU_OR_DYN_BW];
    __shared__ bool sdy; /* dy for the re-reads, read back after the scan's barriers (not a register across the scan) */
#  ifdef MS_CU_OR_DYN_ALWAYS
#    define MS_CU_SDY (!RG) /* round 29B: a constant (the ring-less K2or: always) */
#  else
#    define MS_CU_SDY sdy
#  endif
    constexpr int32_t PS = MS_CU_OR_DYN_PM * NG * 128, nwb = MS_CU_T123 / 32; /* K2's blocks: MS_CU_T123 threads */
    const int32_t Gr = MS_CU_ORG(a), tvr = a.V & ~3, P = (tvr + PS - 1) / PS;
    /* round 28A: the row qualifies for the pieces (the host's ms_cu_or_dyok checks the same from the step's arguments) */
    const bool dyok = !RG && a.k4zero && blockDim.x == MS_CU_T123 && ms_cu_vec4(c, 0) &&
                      (long long)Gr * nwb * PS <= (long long)tvr && P <= 32 * MS_CU_OR_DYN_BW;
#  if defined(MS_CU_OR_DYN_ALWAYS) || defined(MS_CU_OR_DYN_RT)
#    ifdef MS_CU_OR_DYN_ALWAYS
    const int dq = a.dyq;
#    else
    const int dq = ms_cu_ordyn_q; /* round 29B's knob */
#    endif
    const int32_t dS = dq == 0 ? MS_CU_OR_DYN_S : dq >= 64 ? (P + Gr * nwb - 1) / (Gr * nwb) + 1
                                                           : max(1, (int32_t)((long long)P * dq / 64 / (Gr * nwb)));
#  endif
#  if defined(MS_CU_OR_DYN_ALWAYS)
    /* round 29B: the ring-less K2or takes the pieces in every row (a row that does not qualify here is a host error, and
     * traps) */
    constexpr bool dy = !RG;
    if (!RG && !dyok) __trap();
#  elif defined(MS_CU_OR_DYN_RT)
    const bool dy = dq >= 0 && dyok;
#  else
    const bool dy = dyok;
#  endif
    const ms_cu_ordyn dyn = {&st->ticket, pbm, g * nwb, Gr * nwb
#  if defined(MS_CU_OR_DYN_ALWAYS) || defined(MS_CU_OR_DYN_RT)
                             , dS
#  endif
    };
    for (int i = threadIdx.x; i < MS_CU_OR_DYN_BW; i += blockDim.x) pbm[i] = 0;
    if (threadIdx.x == 0) sdy = dy;
#endif
    __syncthreads();
#if defined(MS_CU_OR_ST35) && defined(MS_CU_STAMPS)
    ms_cu_stamp(37); /* round 35B: past the set-up's first barrier, before the scan's first step */
#endif
    const int32_t chunk = ((a.V + MS_CU_ORG(a) - 1) / MS_CU_ORG(a) + 7) & ~7; /* round 23A: a.Go chunks (a.G but at B <= 3) */
#ifdef MS_CU_OR_DYN
    const int32_t t0 = dy ? 0 : g * chunk, t1 = dy ? (g == Gr - 1 ? a.V : tvr) : min(a.V, t0 + chunk);
#elif defined(MS_CU_OR_TAPER)
    /* round 32B: the ring-less K2or's chunks tapered (st->tpe: ms_cu_args' tpe); the ring's stay equal */
    const int32_t Gt = MS_CU_ORG(a), et = RG ? 0 : a.tpe;
    auto tap = [&](int32_t gi) {
        const long long x = gi, GG = Gt;
        return (int32_t)(((long long)a.V * (x * GG * (64 + et) - et * x * x) / (64 * GG * GG)) & ~7LL);
    };
    const int32_t t0 = et > 0 ? tap(g) : g * chunk;
    const int32_t t1 = et > 0 ? (g == Gt - 1 ? a.V : tap(g + 1)) : min(a.V, t0 + chunk);
#else
    const int32_t t0 = g * chunk, t1 = min(a.V, t0 + chunk);
#endif
#ifdef MS_CU_OR_CNT1
    /* Round 18A (-DMS_CU_OR_CNT1): the tests' flag loaded before the pass and used after it (as round 16B's K2 tail):
     * thread 0 read it (a global load) before its first step and again after the pass's barrier, each time
     * stalling its warp, and with it the block's next barrier. Counters only: no value of the path depends on it. */
    const int cnt_all = ms_cu_count_all;
#else
    if (threadIdx.x == 0 && ms_cu_count_all) atomicAdd(&ms_cu_or_rows[0], 1ull);
    if (RG && threadIdx.x == 0 && ms_cu_count_all) atomicAdd(&ms_cu_ring_rows[1], 1ull);
#  define cnt_all ms_cu_count_all
#endif
    const float minp_cut = logf(c.sl.min_p) - 0.01f; /* as ms_cu_set_m */
    /* round 15A: sbuf and h's first 1024 words are unused until the scan ends (oh lies past them) */
    const ms_cu_ring rg = {(unsigned char *)sbuf, h};
#ifdef MS_CU_OR_SB
    const ms_cu_or_stage_sb stage = {rn, wq}; /* round 34B: the lambda below with the warp-step's reservation */
#else
#  ifdef MS_CU_TKG1
    auto stage = [&](int32_t t, const float *x, uint32_t pm) { return ms_cu_stage4(rn, wq, t, x, pm); }; /* round 35A */
#  else
    auto stage = [&](int32_t t, const float *x, uint32_t pm) { ms_cu_stage4(rn, wq, t, x, pm); };
#  endif
#endif
#ifdef MS_CU_OR_ROWCUT
    /* round 20A: the row's slots when its blocks fit them (ms_cu_k2_scan1) */
#  ifndef MS_CU_K4_ZERO
#    error "-DMS_CU_OR_ROWCUT needs MS_CU_K4_ZERO (the default): the slots are zero at a step's start only in the own workspace"
#  endif
#  define MS_CU_RC_ARGS , (a.k4zero && a.G <= MS_CU_ORRC ? st->orcut : (uint32_t *)NULL), (int)g, (int)a.G
#elif defined(MS_CU_OR_RC2)
    /* round 30A: the row's slots (own workspace: a.orc non-NULL) when its blocks fit them */
#  define MS_CU_RC_ARGS , (a.orc && MS_CU_ORG(a) <= a.rcmax ? a.orc + (size_t)r * MS_CU_ORRC : (uint32_t *)NULL), (int)g, (int)MS_CU_ORG(a)
#elif defined(MS_CU_TKG2)
#  define MS_CU_RC_ARGS , rn /* round 35A: the gate's stage count */
#else
#  define MS_CU_RC_ARGS
#endif
#if defined(MS_CU_OR_DYN)
    /* round 28A: DY only in the ring-less kernel (!RG: the ring's steps stay static) */
    const float rm =
        !RG && dy
            ? (c.dtype == MS_DTYPE_F32
                   ? ms_cu_k2_scan1<NG, RG, decltype(stage), 0, true>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage, dyn)
                   : ms_cu_k2_scan1<NG, RG, decltype(stage), -1, true>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage, dyn))
            : (c.dtype == MS_DTYPE_F32
                   ? ms_cu_k2_scan1<NG, RG, decltype(stage), 0>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage, dyn)
                   : ms_cu_k2_scan1<NG, RG>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage, dyn));
#elif defined(MS_CU_OR_F32) && defined(MS_CU_OR_PEEL)
    const float rm = c.dtype == MS_DTYPE_F32
                         ? ms_cu_k2_scan1<NG, RG, decltype(stage), 0>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage MS_CU_RC_ARGS, &pre)
                         : ms_cu_k2_scan1<NG, RG>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage MS_CU_RC_ARGS);
#elif defined(MS_CU_OR_F32)
    const float rm = c.dtype == MS_DTYPE_F32
                         ? ms_cu_k2_scan1<NG, RG, decltype(stage), 0>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage MS_CU_RC_ARGS)
                         : ms_cu_k2_scan1<NG, RG>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage MS_CU_RC_ARGS);
#else
    const float rm = ms_cu_k2_scan1<NG, RG>(c, t0, t1, minp_cut, kk, &smax, &sref, &stk, oh, rg, stage MS_CU_RC_ARGS);
#endif
#undef MS_CU_RC_ARGS
    { /* the chunk's max: every thread's, the tail's tokens included */
        const uint32_t wk = __reduce_max_sync(0xffffffffu, ms_cu_key(rm));
        if ((threadIdx.x & 31) == 0) atomicMax(&smax, wk);
    }
    __syncthreads();
    ms_cu_stamp(16);
    /* cm = fl(cm_x / T), K1's key of it for the row's maxkey. No finite y in the chunk (all -inf, or x / T
     * rounds to -inf): none of its tokens is in S0 (w = 0 when m > -inf; the row is empty when m = -inf),
     * and the row's maxkey needs nothing from it (K1's key(-inf) and the memset's 0 read the same). */
    const uint32_t cxk = smax;
    /* round 14: the block's top-k' cut (no atomic writes it after the barrier above), and whether it fired */
    const float tkc = stk ? ms_cu_unkey(stk) : -INFINITY;
#ifdef MS_CU_OR_CNT1
    if (threadIdx.x == 0 && cnt_all) {
        atomicAdd(&ms_cu_or_rows[0], 1ull);
        if (RG) atomicAdd(&ms_cu_ring_rows[1], 1ull);
    }
#endif
    if (threadIdx.x == 0 && cnt_all && stk) atomicAdd(&ms_cu_or_rows[4], 1ull);
#ifdef MS_CU_STAMPS
    ms_cu_orq_sm();
    ms_cu_orq_blk(r, g, *rn);
    ms_cu_orq_block(8, 1ull);
    ms_cu_orq_block(9, *rn);
    ms_cu_orq_block(11, *rn > (uint32_t)MS_CU_HB ? 1ull : 0ull);
#endif
    if (cxk <= MS_CU_KEY_NEGINF) return;
    const uint32_t mk = ms_cu_key(ms_cu_unkey(cxk) / c.sl.temperature);
    if (mk <= MS_CU_KEY_NEGINF) return;
    ms_cu_set_m(c, mk); /* m = cm (<= the row's), its +inf rule, min-p's pre-filters from it */
    if (*rn <= (uint32_t)MS_CU_HB) {
        const int32_t nr = (int32_t)*rn, nw = (int32_t)(blockDim.x >> 5);
#ifdef MS_CU_OR_DCUT2
#  ifdef MS_CU_OR_DCUT2_RT
        if (nr > a.dc2) { /* round 33B: round 32C's gate from the arguments (a measurement knob) */
#  else
        if (nr > MS_CU_OR_DCUT2_MIN) { /* round 32C: block-uniform (*rn after the pass's barrier) */
#  endif
            /* round 31B's xlo (block-uniform); the warp's batches of the stage, survivors packed in place into its
             * slots 0, 1, ... (virtual index p: wq[w * 32 + (p >> 5) * nw * 32 + (p & 31)]); a write goes to a slot at
             * or before the one it came from, read in this or an earlier round (the __syncwarp after the ballot orders
             * those reads before it; the drain's own __syncwarp orders the last writes before its reads) */
            const float xlo = fmaxf(ms_cu_or_cut(c, minp_cut, ms_cu_unkey(cxk)), tkc);
            const int lane = (int)(threadIdx.x & 31u);
            unsigned long long *ww = wq + (threadIdx.x >> 5) * 32;
            uint32_t pc = 0; /* warp-uniform: survivors so far */
            for (int32_t b = (int32_t)(threadIdx.x >> 5) * 32; b < nr; b += nw * 32) { /* warp-uniform */
                unsigned long long e = 0;
                bool in = false;
                if (b + lane < nr) {
                    e = wq[b + lane];
                    in = !(ms__u2f((uint32_t)(e >> 32)) < xlo);
                }
                const unsigned bal = __ballot_sync(0xffffffffu, in);
                __syncwarp(); /* the warp's reads of this and earlier rounds before any lane's write (memory order) */
                const uint32_t p = pc + (uint32_t)__popc(bal & ((1u << lane) - 1u));
                if (in) ww[(p >> 5) * (uint32_t)(nw * 32) + (p & 31u)] = e;
                pc += (uint32_t)__popc(bal);
            }
            for (uint32_t p = 0; p < pc; p += 32) /* warp-uniform; the drain begins with __syncwarp */
                (void)ms_cu_k2_drain(c, ww + (p >> 5) * (uint32_t)(nw * 32), pc - p < 32 ? (int)(pc - p) : 32, sn, sbuf);
        } else
#endif
        for (int32_t b = (int32_t)(threadIdx.x >> 5) * 32; b < nr; b += nw * 32) /* warp-uniform */
            (void)ms_cu_k2_drain(c, wq + b, nr - b < 32 ? nr - b : 32, sn, sbuf); /* C's test: s0 against cm */
    } else {
        /* the pass stage overflowed: the chunk again (from L2), cut from its max */
        if (threadIdx.x == 0 && cnt_all) atomicAdd(&ms_cu_or_rows[1], 1ull);
#ifdef MS_CU_OR_DYN
        if (MS_CU_SDY) /* round 28A: the block's own pieces (and tail); with dy, t1 & ~3 is the row's whole groups' end */
            ms_cu_or_reread<PS>(c, pbm, ((t1 & ~3) + PS - 1) / PS, t1 & ~3, t1, false, tkc, sn, sbuf, 0, NULL, NULL, NULL, NULL);
        else
#endif
        ms_cu_for_chunk<2>(c, t0, t1, [&](int32_t t, float x) {
            if (x < c.xcut || x < tkc) return; /* tkc: round 14's top-k' cut, valid for the whole chunk */
            const ms_cu_elem el = ms_cu_from_y_pre(c, x / c.sl.temperature, t);
            if (!el.s0) return;
            const uint32_t j = atomicAdd(sn, 1u);
            if (j < MS_CU_STAGE_SH) sbuf[j] = ((unsigned long long)el.key << 32) | (uint32_t)t;
        });
    }
    __syncthreads(); /* C's tokens staged (sn, sbuf) */
    ms_cu_stamp(30);
#ifdef MS_CU_STAMPS
    ms_cu_orq_block(10, *sn);
#endif
    ms_cu_pdl_wait(); /* K0's zeroed stats: K2's wait covers K1, which waited for K0 */
    ms_cu_stamp(31);
    if (threadIdx.x == 0) atomicMax(&st->maxkey, mk); /* the row's m, as K1 would have published it */
    const uint32_t ns = *sn;
    /* the chunk's top k' of C, ties kept (the bin cut from cm: bins non-increasing in y, an upper set of C with
     * at least k', as round 12's from m; or the radix select), listed; nothing counted in the candidate bins,
     * which K4 does not read for these rows */
    if (ns > MS_CU_STAGE_SH && threadIdx.x == 0 && cnt_all) atomicAdd(&ms_cu_or_rows[2], 1ull);
#ifdef MS_CU_OR_TAIL
    /* Round 18A (-DMS_CU_OR_TAIL): a chunk with at most k' tokens of C lists them all without compaction (as round
     * 16B's lite tail): ms_cu_k2_list keeps every entry then (no bin cut, kth 0, no candidate bins in this path),
     * only at other positions of the row's list, whose order nothing reads (K4 trims and draws by key and id).
     * One global atomic and one barrier instead of three barriers and a shared atomic an entry. */
#  ifdef MS_CU_OR_TAIL2
    /* round 33B: also a stage of at most a.tl2 / G tokens of C (above: a superset of what the list keeps) */
    if (ns <= kk || (ns <= (uint32_t)MS_CU_STAGE_SH && (int32_t)ns <= a.tl2 / MS_CU_ORG(a))) {
#  else
    if (ns <= kk) {
#  endif
        if (threadIdx.x == 0) sbase = ns ? atomicAdd(&st->cand_n, ns) : 0;
        __syncthreads();
        unsigned long long *cand = a.cand + (size_t)r * MS_CU_CAND;
        for (uint32_t i = threadIdx.x; i < ns; i += blockDim.x)
            if (sbase + i < MS_CU_CAND) cand[sbase + i] = sbuf[i];
        return;
    }
#endif
#ifdef MS_CU_OR_DYN
    if (ns > MS_CU_STAGE_SH && MS_CU_SDY) { /* round 28A: ms_cu_k2_list's re-read (its last part) over the block's pieces */
        ms_cu_or_reread<PS>(c, pbm, ((t1 & ~3) + PS - 1) / PS, t1 & ~3, t1, true, 0.0f, NULL, NULL, kk, h, res, &st->cand_n,
                            a.cand + (size_t)r * MS_CU_CAND);
        return;
    }
#endif
    ms_cu_k2_list<false>(a, r, c, st, kk, sbuf, ns, h, res, keepn, sbase, t0, t1);
#ifndef MS_CU_OR_CNT1
#  undef cnt_all
#endif
}
#ifdef MS_CU_OR_EARLY
/* Round 18A (-DMS_CU_OR_EARLY): K2's one-read rows branch off before the kernel's general set-up. ncu (B=64, fp32)
 * put ~650 instructions a warp before the pass's first load, ~300 of them one straight run that packs the general
 * paths' many predicates (c.pres and the like at every inlined use) into bits, all issued before any warp of the SM
 * reaches its first load. Round 18A set the row up there with ms_cu_row_setup (its own function until the fourteenth
 * session); since round 18D both K2<true> kernels use ms_cu_k2or_row below, which sets up the fields the path reads. A
 * row that does not take the path returns false and the kernel sets it up again as before. The one-read rows run the
 * same ms_cu_k2_one on the same values: exactness is untouched.
 *
 * Round 18D (on since the fourteenth session): the one-read steps' K2 as a kernel of its own, K2or =
 * ms_cu_k2<true, RG, true> (ms_cu_launch launches it instead of ms_cu_k2<true, RG> when a.oneread; the latter only in
 * -DMS_CU_NO_OR_K2OWN builds). Its one-read rows take this lean branch right after the slot test; every other row
 * runs K2's body. The decision is ms_cu_onread on the fields it
 * reads (c.sl, c.V, c.filters, c.minp_on, set as ms_cu_row_setup sets them): K1, K2 and K4 agree as before, and
 * !c.greedy is in it. The rest of the row is filled in as ms_cu_row_setup fills it, the values that the decision
 * fixes written as constants (not greedy; no window filter: not rep != 1 with a window; filters and min-p on:
 * ms_cu_lite_k > 0 needs c.minp_on, which needs apply_filters; the default order): the same values, so ms_cu_k2_one
 * runs as from round 18A's set-up and its exactness (rounds 13, 14, 18A) is untouched. ms_cu_row_setup's closing
 * barrier is left out: without a window filter it orders nothing (the block has touched no shared memory before
 * it), and ms_cu_k2_one begins with its own barrier after it zeroes its shared values. Returns true when the row
 * is done (the caller waits, on every path). Needs MS_CU_OR_EARLY (the default's). */
template <bool RG>
__device__ __forceinline__ bool ms_cu_k2or_row(const ms_cu_args &a, int32_t r, int32_t g, int32_t slot, uint32_t *wfilt,
                                               unsigned long long *sbuf, uint32_t *scnt, uint32_t *sn,
                                               unsigned long long *smass
#ifdef MS_CU_OR_SPF
                                               , const ms_cu_slot *qs = nullptr /* round 35B: a.slots[slot], loaded */
#endif
                                               ) {
    const void *row = a.logits + (size_t)r * (size_t)a.stride * a.elem;
    ms_cu_row c;
#ifdef MS_CU_OR_SPF
    if (qs) { /* round 35B: ms_cu_slot_row's fields from the slot as ms_cu_k2's entry loaded it (the same address) */
        c.sl = *qs;
        c.V = a.V;
        c.filters = a.apply_filters;
        c.minp_on = a.apply_filters && c.sl.min_p > 0.0f;
    } else
#endif
    ms_cu_slot_row(c, a, slot);
    if (!ms_cu_onread(a, row, c, ms_cu_filters(c))) return false; /* not one-read (greedy rows included) */
#if defined(MS_CU_OR_ST35) && defined(MS_CU_STAMPS)
    ms_cu_stamp(36); /* round 35B: the row's settings arrived (the decision above reads them) */
#endif
#ifdef MS_CU_OR_FEW
    if (g >= a.Go) return true; /* round 23A: no chunk for this block (the caller waits, as on every path) */
#endif
    c.row = row;
    c.dtype = a.dtype;
    c.greedy = false; /* ms_cu_onread: T >= MS_GREEDY_TEMPERATURE */
    c.win = false;    /* ms_cu_onread: not (rep != 1 and window > 0) */
    c.pres = c.sl.rep != 1.0f && c.sl.window == 0 && a.apply_penalty && a.seen != NULL; /* as ms_cu_row_setup (!c.win) */
    c.seen = a.seen ? a.seen + (size_t)slot * (size_t)a.seen_words : NULL;
    c.hist_cap = a.hist_cap;
    c.hist = a.hist ? a.hist + (size_t)slot * (size_t)a.hist_cap : NULL;
    c.w_eff = 0;
    c.filters = true; /* ms_cu_onread: ms_cu_lite_k > 0, so c.minp_on, so apply_filters */
    c.minp_on = true;
    c.sl.top_p_first = 0; /* ms_cu_onread: the default order (the slot's value) */
    c.stop = a.stop;
    c.floor = a.stop != NULL && c.sl.n < (uint64_t)c.sl.min_tokens;
    c.wfilt = wfilt;
    c.m = 0.0f;
    c.inf_row = false;
    c.minp_cut = -INFINITY;
    c.xcut = -INFINITY;
    ms_cu_k2_one<MS_CU_K2_NG, RG>(a, r, g, c, &a.stats[r], (uint32_t)ms_cu_lite_k(c, ms_cu_filters(c)), sbuf, scnt, sn,
                                  smass);
    return true;
}
#endif
#endif

/* ---- K2: coarse histogram of S0 and the candidate bound ------------------------------------- */

/* K3's gather of a FAST or BAND row's chunk (defined with K3 below; K2 runs it since round 15B). Inlined: out of
 * line (__noinline__) ptxas gave K2<false> a 544-byte frame and 566 / 1428 bytes of spill stores / loads (inlined:
 * 56, 84 / 216; before round 15B 80 / 144). */
__device__ __forceinline__ void ms_cu_k3_gather(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c,
                                                ms_cu_rowstat *st, uint32_t mode, uint32_t bound, unsigned long long *sh);

#if !defined(MS_CU_K3_KERNEL) || defined(MS_CU_K3W_K2)
/* Round 15B (tests only): ms_cu_k3_giveup 1 makes the odd K2 blocks of a row, but its last, give up their gather
 * without marking the row (the others gather: a partial list and partial chunk masses), 2 every block, marking it
 * (ms__cuda_k3); ms_cu_k3_rows counts, once ms_cu_count_all is set, [0] blocks that gathered in K2, [1]
 * FAST / BAND rows that K4 served by the whole-row path because a block gave up. */
__device__ int ms_cu_k3_giveup;
__device__ unsigned long long ms_cu_k3_rows[2];
#ifndef MS_CU_K3_SPIN_US /* how long a K2 block waits for its row's mode before it gives up its gather (a bound, not a tunable) */
#define MS_CU_K3_SPIN_US 1000
#endif
/* the bound in use (ms__cuda_k3 sets it: the tests raise it under compute-sanitizer, whose slowed blocks took longer
 * than 1 ms to reach their ticket, so that the rows fell back to FULL and the BAND tests' counters failed) */
__device__ unsigned long long ms_cu_k3_spin_ns = (unsigned long long)MS_CU_K3_SPIN_US * 1000ull;
__device__ __forceinline__ uint32_t ms_cu_ld_acquire(const uint32_t *p) {
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long ms_cu_gtimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
/* Rounds 15B / 25A, thread 0 of a block that gathers in K2's grid: unless the tests' hook (2) gives every block up, wait
 * at most ms_cu_k3_spin_ns for bit 0 (the row's mode published) or bit 1 (given up) of the row's k3go, with a short
 * __nanosleep backoff (the flag's latency is what the gather in K2's grid saves); in a FAST or BAND row count the block
 * in k3done (K4 reads it after K2's grid completed, when the block's gather is done), else, when mark, set bit 1 so that
 * the row's other blocks stop waiting and K4 takes the whole-row path. Returns the mode the block gathers (NONE: none). */
__device__ __forceinline__ uint32_t ms_cu_k3w_wait(ms_cu_rowstat *st, bool mark, int hook) {
    uint32_t m = MS_CU_MODE_NONE; /* given up: no gather */
    if (mark && hook != 2) {
        uint32_t v = ms_cu_ld_acquire(&st->k3go);
        if (!(v & 1u)) {
            const unsigned long long t0 = ms_cu_gtimer();
            unsigned ns = 32;
            while (!((v = ms_cu_ld_acquire(&st->k3go)) & 3u)) {
                if (ms_cu_gtimer() - t0 > ms_cu_k3_spin_ns) break;
                __nanosleep(ns);
                ns = ns < 256 ? 2 * ns : ns;
            }
        }
        if ((v & 3u) == 1u) m = __ldcg(&st->mode);
    }
    ms_cu_stamp(32);
    if (m == MS_CU_MODE_FAST || m == MS_CU_MODE_BAND) {
        atomicAdd(&st->k3done, 1u);
        if (ms_cu_count_all) atomicAdd(&ms_cu_k3_rows[0], 1ull);
    } else if (m == MS_CU_MODE_NONE && mark) {
        atomicOr(&st->k3go, 2u);
    }
    return m;
}
#endif
#ifndef MS_CU_K3_KERNEL

/* Round 15B: K3's work in K2, for a non-lite row after its ticket (every block; the row's last after it published
 * the mode). The last block writes the mode, bound and masses, resets cand_n, then sets bit 0 of k3go (fence, then
 * atomicOr: a release); each block waits for it (thread 0: ld.acquire, __nanosleep backoff), and in a FAST or BAND
 * row gathers its own chunk as K3 did (ms_cu_k3_gather) and counts itself in k3done. K4 waits for K2 alone and
 * takes such a row as FULL unless all G blocks counted themselves, so a block may give up without harm:
 * forward progress. A waiting block needs the row's other blocks to run; K2's grid is one wave unless the
 * 32768-token chunk limit raises G (B=256: 1280 blocks for 528 slots), and blocks are dispatched in index order with
 * a row's blocks contiguous, so a resident row completes whenever G blocks fit at once; under MPS, green contexts or
 * kernels of other streams holding SMs that may fail, so a block waits at most MS_CU_K3_SPIN_US (%globaltimer), then
 * sets bit 1 (the row is given up: its other blocks stop waiting and its last block does not gather) and returns.
 * Correctness then never depends on scheduling: K4's whole-row path recomputes from the logits and reads none of
 * what a gather writes (the list, cand_n, the chunks' mass pairs in hmass: its start from K2's buckets is only for
 * rows whose mode is FULL). The spin bound is far above a legitimate wait (a block of a row straddling the wave's
 * end waits for a slot and its row's later blocks' pass, ~100-300 us at top-p alone B=256 on the H200). */
__device__ __forceinline__ void ms_cu_k2_k3(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c,
                                            ms_cu_rowstat *st, bool mine, uint32_t *word, unsigned long long *sh) {
    if (threadIdx.x == 0) {
        const int hook = ms_cu_k3_giveup; /* tests: 1 odd blocks but the last give up unmarked, 2 every block */
        *word = ms_cu_k3w_wait(st, !(hook == 1 && !mine && (g & 1)), hook);
    }
    __syncthreads();
    const uint32_t mode = *word;
    if (mode != MS_CU_MODE_FAST && mode != MS_CU_MODE_BAND) return;
    ms_cu_k3_gather(a, r, g, c, st, mode, __ldcg(&st->bound), sh);
}
#endif

#ifdef MS_CU_K3W_K2
/* Round 25A (-DMS_CU_K3W_K2): K3's work in K2's grid in the warm-up steps (a.k3w: ms_cu_launch; there K2's grid is 2 n G
 * blocks, K3 is not launched, K4w waits on K2's grid). Block n G + b (b = r G + g) is K3's block b: it reads its row's
 * slot and, as K3 (MS_CU_K3_NOWAIT), returns at once for rows K2 never leaves FAST or BAND (greedy, unfiltered, lite:
 * the full setting), its first block after the PDL wait on every path (so that K2's grid still completes after K1's, as
 * K3's did after K2's). For other rows it waits for K1 (this step's zeroed stats and the row max), returns where the
 * row max is empty (K2's blocks return there too: no mode is published), and thread 0 waits for bit 0 of k3go, which K2's
 * last block of the row sets after the mode, bound, masses and cand_n (a fence, then atomicOr: a release; here an
 * acquire load). Then, in a FAST or BAND row, it counts itself in k3done and gathers its chunk as K3 does
 * (ms_cu_k3_gather, the same code). The main blocks (indices below n G) are dispatched first and never wait for these,
 * so the flag comes whenever the row's G main blocks run; but a block waits at most ms_cu_k3_spin_ns (round 15B's
 * bound, %globaltimer), then sets bit 1 (the row is given up: its other blocks stop waiting) and returns, and K4w
 * takes a FAST or BAND row whose k3done is below G by the whole-row path, which reads nothing a gather writes (round
 * 15B): correctness never rests on scheduling. The tests' hook (ms__cuda_k3) forces give-ups: 1 the odd blocks give
 * up without marking (a partial gather), 2 every block. Exact: the gather is K3's code on the same inputs, only the
 * block that runs it and the event that releases it change. */
__device__ __forceinline__ void ms_cu_k2_k3w(const ms_cu_args &a, uint32_t *wfilt, unsigned long long *sh, uint32_t *word) {
    const int32_t b = (int32_t)(blockIdx.x - gridDim.x / 2);
    const int32_t r = b / a.G, g = b % a.G;
    const int32_t slot = ms_cu_slot_ok(a, r);
    if (slot < 0) {
        if (b == 0) ms_cu_pdl_wait();
        return;
    }
    {
        ms_cu_row q;
        ms_cu_slot_row(q, a, slot);
        const ms_cu_filt qf = ms_cu_filters(q);
        if (q.sl.temperature < MS_GREEDY_TEMPERATURE || !qf.k2run || ms_cu_lite_k(q, qf) > 0) {
            if (b == 0) ms_cu_pdl_wait();
            return;
        }
    }
    ms_cu_row c;
    ms_cu_row_setup(c, a.slots, slot, a.logits + (size_t)r * (size_t)a.stride * a.elem, a.dtype, a.V, a.apply_penalty,
                    a.apply_filters, a.seen, a.seen_words, a.hist, a.hist_cap, a.stop, wfilt);
    ms_cu_pdl_wait(); /* K1's completion: the step's zeroed stats (K0 or the last step's K4) and the row max */
    ms_cu_rowstat *st = &a.stats[r];
    if (!ms_cu_set_max(c, st)) return; /* as K2's blocks, which then publish no mode */
    if (threadIdx.x == 0) {
        const int hook = ms_cu_k3_giveup; /* tests: 1 odd blocks give up unmarked, 2 every block */
        *word = ms_cu_k3w_wait(st, !(hook == 1 && (g & 1)), hook);
    }
    __syncthreads();
    const uint32_t mode = *word;
    if (mode != MS_CU_MODE_FAST && mode != MS_CU_MODE_BAND) return;
    ms_cu_k3_gather(a, r, g, c, st, mode, __ldcg(&st->bound), sh);
    ms_cu_stamp(33);
}
#endif

#ifdef MS_CU_OR_K2OWN
/* Round 18D (-DMS_CU_OR_K2OWN, off): OWN true is the one-read steps' K2, "K2or" (ms_cu_k2<true, RG, true>, with
 * ms_cu_k2or_row; its own __launch_bounds__, MS_CU_K2OR_MINB: a tunable, K2's 4 by default); OWN false is K2 as
 * without the switch. A third template parameter rather than K2's body as a function called by two kernels: that
 * build gave ms_cu_k2<false, ...> other code (ptxas: 184 / 344 B of spills instead of 172 / 304; the inlined body's
 * address arithmetic hoisted differently), this one leaves its PTX as the default's but for the names. */
#  if defined(MS_CU_K3W_K2) && defined(MS_CU_RC_INST)
template <bool OR, bool RG, bool OWN = false, bool K3W = false, bool RC = false> /* RC: round 32A's cut instantiation */
#  elif defined(MS_CU_K3W_K2)
template <bool OR, bool RG, bool OWN = false, bool K3W = false> /* K3W: round 25A's K2 of the warm-up steps (ms_cu_k2_k3w) */
#  else
template <bool OR, bool RG, bool OWN = false>
#  endif
__global__ void __launch_bounds__(MS_CU_T123, OWN ? MS_CU_K2OR_MINB : MS_CU_K2_MINB) ms_cu_k2(ms_cu_args a) {
#else
template <bool OR, bool RG> /* OR: as ms_cu_k1; RG: round 15A's ring in the scans (ms_cu_launch: grids past one wave) */
__global__ void __launch_bounds__(MS_CU_T123, MS_CU_K2_MINB) ms_cu_k2(ms_cu_args a) {
#endif
    __shared__ uint32_t wfilt[256];
    __shared__ uint32_t scnt[MS_CU_HB];
    __shared__ unsigned long long smass[MS_CU_HB];
    __shared__ unsigned long long sh[33];
    __shared__ uint32_t last;
    __shared__ int32_t found[4];
#ifndef MS_CU_K3_KERNEL
    __shared__ uint32_t k3mode; /* round 15B: the row's mode as this block's thread 0 saw it (ms_cu_k2_k3) */
#endif
    /* 16-byte aligned: round 15A's ring (ms_cu_ring_put / _get) copies and reads 16-byte slots in it. Without
     * __align__ the layout decides, and a build whose other shared variables moved (round 16A's -DMS_CU_OR_2P)
     * faulted in the ring's lite path (compute-sanitizer: misaligned 16-byte __shared__ write, ms_cu_ring_put) */
    __shared__ __align__(16) unsigned long long sbuf[MS_CU_STAGE_SH];
    __shared__ uint32_t sn, sbase;
    ms_cu_stamp(2);
    ms_cu_pdl_go();
#if defined(MS_CU_K3W_K2) && defined(MS_CU_OR_K2OWN)
    if (K3W && blockIdx.x >= gridDim.x / 2) { /* round 25A: K3's blocks */
        ms_cu_k2_k3w(a, wfilt, sh, &last);
        return;
    }
#endif
#if defined(MS_CU_OR_TRANSPOSE) && defined(MS_CU_OR_K2OWN)
    /* Round 29B (-DMS_CU_OR_TRANSPOSE; measured in round 32B, off): the ring-less K2or's blocks row-minor (block b:
     * row b % n, chunk b / n) instead of row-major. Round 29B's stamps: a row's G blocks are consecutive blocks,
     * dispatched together, so they share their entry rank on their multiprocessors, and the rows end in launch order
     * (the rows' mean exits 2.6-6.4 us apart a step, correlated 0.5-0.94 with r); row-minor, each row has blocks of
     * every rank, and with round 28A's pieces (-DMS_CU_OR_DYN) its blocks would share the row's work by their speed.
     * Any bijection of blocks and (row, chunk) is exact (every block's work depends on its (r, g) alone). */
    const int32_t nrw = (int32_t)(gridDim.x / (unsigned)a.G);
    const bool tpo = OR && OWN && !RG;
    const int32_t r = tpo ? (int32_t)blockIdx.x % nrw : blockIdx.x / a.G, g = tpo ? (int32_t)blockIdx.x / nrw : blockIdx.x % a.G;
#else
    const int32_t r = blockIdx.x / a.G, g = blockIdx.x % a.G;
#endif
#ifdef MS_CU_OR_PF1
    /* Round 34C (-DMS_CU_OR_PF1=S, off): the ring-less K2or's fp32 threads prefetch into L2, at entry, the logits their
     * first S steps of ms_cu_k2_scan1 load (groups t, t + 1024, ... of ms_cu_k2_one's chunk [t0, t1), whole groups only),
     * before the set-up's dependent loads (the slot, its settings) and its ~290 instructions a warp: the memory system is
     * otherwise idle there. Cache hints only: every value read is the same (exact by construction). Every block of the
     * grid is a row's chunk (r < n); a row that does not take the one-read path only wastes its prefetches. */
    if (OR && OWN && !RG && a.dtype == MS_DTYPE_F32) {
        const int32_t Gp = MS_CU_ORG(a), chp = ((a.V + Gp - 1) / Gp + 7) & ~7, tp0 = g * chp, tp1 = min(a.V, tp0 + chp);
        const float *rowp = (const float *)(a.logits + (size_t)r * (size_t)a.stride * a.elem);
#pragma unroll
        for (int u = 0; u < 2 * (MS_CU_OR_PF1); u++) {
            const int32_t tp = tp0 + (int32_t)threadIdx.x * 4 + u * MS_CU_T123 * 4;
            if (tp + 4 <= tp1) asm volatile("prefetch.global.L2 [%0];" ::"l"(rowp + tp));
        }
    }
#endif
#ifdef MS_CU_OR_SPF
    /* Round 35B (-DMS_CU_OR_SPF): the ring-less K2or's slot, then its settings' loads issued, then the first step's L1
     * prefetch; slot as ms_cu_slot_ok computes it (the same index and used word) */
    ms_cu_slot spq;
    int32_t slot;
    if (OR && OWN && !RG && MS_CU_SPF_ON(a)) {
        const int32_t sp = a.row_slot[r];
        const bool sv = sp >= 0 && sp < a.capacity;
        if (sv) spq = a.slots[sp];
        if (MS_CU_OR_SPF < 2) asm volatile("" ::: "memory"); /* the slot's loads are issued before the prefetches */
        if (MS_CU_OR_SPF < 2 && a.dtype == MS_DTYPE_F32) { /* =2, =3: no prefetch */
            const ms_cu_or_first f = ms_cu_or_first_step(a, g);
            const float *rowp = (const float *)(a.logits + (size_t)r * (size_t)a.stride * a.elem);
            if (f.t1 > f.t0 && (((uintptr_t)(rowp + f.t0)) & 15u) == 0 && (f.t0 & 3) == 0) {
#pragma unroll
                for (int u = 0; u < MS_CU_K2_NG; u++)
                    if (f.t + u * f.step < f.tv)
                        asm volatile("prefetch.global.L1 [%0];" ::"l"(rowp + f.t + u * f.step) : "memory");
            }
        }
        slot = sv && spq.used ? sp : -1;
    } else {
        slot = ms_cu_slot_ok(a, r);
    }
#else
    const int32_t slot = ms_cu_slot_ok(a, r);
#endif
    if (slot < 0) return;
#if defined(MS_CU_ONEREAD) && defined(MS_CU_OR_EARLY)
    /* rounds 18A and 18D: the one-read rows' lean branch; the others run the body */
#  ifdef MS_CU_OR_SPF
    if (OR && ms_cu_k2or_row<RG>(a, r, g, slot, wfilt, sbuf, scnt, &sn, smass, OWN && !RG && MS_CU_SPF_ON(a) ? &spq : nullptr)) {
#  else
    if (OR && ms_cu_k2or_row<RG>(a, r, g, slot, wfilt, sbuf, scnt, &sn, smass)) {
#  endif
        ms_cu_pdl_wait(); /* on every path: K3 and K4 wait for K2 alone, K2 covers K1 */
#if defined(MS_CU_OR_RFNR)
        if (!RG && a.orf) { /* round 33C: only in the steps whose K4<true> waits on it (a.orf, ms_cu_launch) */
            ms_cu_rf_done(&a.stats[r].c_above);
            ms_cu_stamp(29);
        }
#elif defined(MS_CU_OR_RF)
        if (a.k4zero) { /* round 28C: the row's count, after every path of ms_cu_k2or_row (ms_cu_rf_wait) */
            ms_cu_rf_done(&a.stats[r].c_above);
            ms_cu_stamp(29);
        }
#endif
        ms_cu_stamp(4);
        return;
    }
#endif
#if defined(MS_CU_OR_SPF) && MS_CU_OR_SPF >= 3
    /* round 36C (SPF=3): the general body reads the slot from memory again (ms_cu_row_setup), not spq's registers: the
     * same address's values (nothing in the step writes the slots) */
    if (OR && OWN && !RG) asm volatile("" ::: "memory");
#endif
#ifdef MS_CU_LITE_EARLY
#  ifdef MS_CU_RC_INST
    if (!OR && ms_cu_k2_lite_early<RG, RC>(a, r, g, slot, wfilt, sbuf, scnt, sh, &sn, smass)) return; /* round 18C; 32A's RC */
#  elif defined(MS_CU_K2W_BCUT)
    if (!OR && ms_cu_k2_lite_early<RG, K3W>(a, r, g, slot, wfilt, sbuf, scnt, sh, &sn, smass)) return; /* 18C; 38B's BC */
#  else
    if (!OR && ms_cu_k2_lite_early<RG>(a, r, g, slot, wfilt, sbuf, scnt, sh, &sn, smass)) return; /* round 18C */
#  endif
#endif
    ms_cu_row c;
    ms_cu_row_setup(c, a.slots, slot, a.logits + (size_t)r * (size_t)a.stride * a.elem, a.dtype, a.V, a.apply_penalty,
                    a.apply_filters, a.seen, a.seen_words, a.hist, a.hist_cap, a.stop, wfilt);
    if (c.greedy) {
        /* Not needed for this row's own work, but K3 and K4 wait for K2 alone: a K2 grid whose blocks all
         * returned without waiting (an all-greedy batch) could complete before K1 has, and K4 would read K1's
         * gbest early. Waiting here makes K2's completion cover K1's on every path. */
        ms_cu_pdl_wait();
        return;
    }
#if defined(MS_CU_ONEREAD) && !defined(MS_CU_OR_EARLY)
    if (OR) {
        const ms_cu_filt f1 = ms_cu_filters(c);
        if (ms_cu_onread(a, c.row, c, f1)) { /* round 13: the chunk's max and candidates in one pass, before the wait */
            ms_cu_k2_one<MS_CU_K2_NG, RG>(a, r, g, c, &a.stats[r], (uint32_t)ms_cu_lite_k(c, f1), sbuf, scnt, &sn, smass);
#ifdef MS_CU_RF24
            if (a.k4zero) { /* round 18B: after every path of ms_cu_k2_one (its returns are block-uniform) */
                ms_cu_rf_done(&a.stats[r].k2n);
                ms_cu_stamp(29);
            }
#endif
            ms_cu_pdl_wait(); /* on every path: K3 and K4 wait for K2 alone, K2 covers K1 */
            ms_cu_stamp(4);
            return;
        }
    }
#endif
#ifdef MS_CU_RF
    /* round 18B: a lite row (from the slot alone, as K1 and K4 decide it) waits for its own K1 blocks and counts
     * itself in k2n on every path below, an empty row's too (K4's lean path waits for the count before it reads
     * the max); its grid wait comes after (ms_cu_rf_wait). st before the wait here (the order of the build that ran
     * the tests), after it without the switch (the default's code unchanged) */
    ms_cu_rowstat *st = &a.stats[r];
    const bool rf = a.k4zero && ms_cu_lite_k(c, ms_cu_filters(c)) > 0;
    auto rf_end = [&]() {
        if (!rf) return;
#  ifdef MS_CU_RF24
        ms_cu_rf_done(&st->k2n);
        ms_cu_stamp(29);
#  endif
        ms_cu_pdl_wait(); /* K2's completion covers K1's, off the row's critical path */
    };
#  ifdef MS_CU_RF12
    if (rf) ms_cu_rf_wait(&st->k1n, (uint32_t)a.G); /* the row's max and cleared bins */
    else
#  endif
#endif
    ms_cu_pdl_wait(); /* K1's row max, histogram clearing */
    ms_cu_stamp(3);
#ifndef MS_CU_RF
    ms_cu_rowstat *st = &a.stats[r];
#endif
    if (!ms_cu_set_max(c, st)) {
#ifdef MS_CU_RF
        rf_end();
#endif
        return;
    }
    const ms_cu_filt f = ms_cu_filters(c);
    if (!f.k2run) return;
    if (ms_cu_lite_k(c, f) > 0) {
        /* In K2 rather than a kernel of its own: one launch fewer measured 2-12 us faster at every B
         * (H200, B=1..256) although K2's registers allow fewer loads in flight. The stage of tokens that
         * pass the cheap test lives in smass (MS_CU_HB entries). */
        ms_cu_k2_lite<MS_CU_K2_NG, RG>(a, r, g, c, st, (uint32_t)ms_cu_lite_k(c, f), sbuf, scnt, sh, &sn, smass);
        ms_cu_stamp(4);
#ifdef MS_CU_RF
        rf_end();
#endif
        return;
    }
    /* Masses as three 32-bit parts (bits 0-15, 16-31, 32-40) with native 32-bit shared atomics: a 64-bit
     * shared atomicAdd is a compare-and-swap loop, and on a flat row most lanes of a warp hit the same
     * few buckets. A chunk has at most 32768 tokens (2^15), so each part's sum fits 32 bits. The high
     * parts live in sbuf, free unless min-p stages its survivors there (those rows keep the 64-bit add:
     * min-p's pre-filter leaves them few tokens). (Also tried in round 4: grouping a warp's lanes by
     * bucket with __match_any_sync, one add per distinct bucket: K2 97 -> 310 us at B=64, top-p alone.) */
    const bool split = !c.minp_on;
    static_assert(MS_CU_STAGE_SH * 2 >= MS_CU_HB, "the masses' high parts fit in sbuf");
    uint32_t *slo = (uint32_t *)smass, *smid = slo + MS_CU_HB, *shi = (uint32_t *)sbuf;
    for (int i = threadIdx.x; i < MS_CU_HB; i += blockDim.x) {
        scnt[i] = 0;
        smass[i] = 0;
        if (split) shi[i] = 0;
    }
    if (threadIdx.x == 0) sn = 0;
    __syncthreads();
    const int32_t chunk = ((a.V + a.G - 1) / a.G + 7) & ~7;
    const int32_t t0 = g * chunk, t1 = min(a.V, t0 + chunk);
    /* min-p rows: S0 is usually small, so gather all of it now (K4 then needs no K3 pass) */
    unsigned long long *cand = a.cand + (size_t)r * MS_CU_CAND;
    /* Round 17A (MS_CU_K2_HSPLIT, on since the twelfth session's final call; -DMS_CU_NO_K2_HSPLIT: the one loop before
     * it): the pass in two copies, one for rows without min-p (split: top-p alone, the common case) and one for
     * min-p rows (64-bit masses, the staging), chosen once per block: each copy's loop keeps only its own values
     * live (ptxas sm_90: 5 / 7 local stores / loads in the top-p copy's loop against the one loop's 18 / 41). The
     * same operations per token as the one loop, which tests split and c.minp_on inside it (split == !c.minp_on).
     * Measured (H200, docs/cuda.md round 17A and the twelfth session's final call): top-p alone 2-16 % faster at
     * B >= 4, the full setting level to +0.6 us at B=256. hpass(ms_cu_hmode<M>): M 0 the one loop, 1 the min-p
     * rows' copy, 2 the others'. */
    auto hpass = [&](auto mode) {
        constexpr int M = decltype(mode)::v;
        constexpr int NG = M == 1 ? MS_CU_K2_HSPLIT_MPNG : MS_CU_K2_NG;
        ms_cu_for_chunk<NG>(c, t0, t1, [&](int32_t t, float x) {
            ms_cu_elem e;
            e.s0 = false;
            if (!(x < c.xcut)) e = ms_cu_from_y_pre(c, x / c.sl.temperature, t);
            if (e.s0) {
                uint32_t b = e.key >> (32 - MS_CU_HBITS);
                atomicAdd(&scnt[b], 1u);
                if (e.q && (M == 0 ? split : M == 2)) {
                    atomicAdd(&slo[b], (uint32_t)e.q & 0xffffu);
                    atomicAdd(&smid[b], (uint32_t)(e.q >> 16) & 0xffffu);
                    atomicAdd(&shi[b], (uint32_t)(e.q >> 32));
                } else if (e.q) {
                    atomicAdd(&smass[b], (unsigned long long)e.q);
                }
            }
            if ((M == 0 ? c.minp_on : M == 1) && e.s0) {
                /* staged in shared memory: atomics on the row's one global counter serialise */
                const unsigned long long v = ((unsigned long long)e.key << 32) | (uint32_t)t;
                uint32_t i = atomicAdd(&sn, 1u);
                if (i < MS_CU_STAGE_SH) {
                    sbuf[i] = v;
                } else {
                    i = atomicAdd(&st->cand_n, 1u);
                    if (i < MS_CU_CAND) cand[i] = v;
                }
            }
        });
    };
#ifdef MS_CU_K2_HSPLIT
#  ifdef MS_CU_K2_HLEAN
    /* Round 24D (MS_CU_K2_HLEAN, on since the seventeenth session's final call): a third copy for the rows that need
     * nothing but the key and the mass of each token (top-p alone): no min-p (split), no penalty (the x is the
     * sanitized raw value: no seen-set word or window test a token), no +inf row (w = ms__exp(y - m)). Per token the
     * same operations as hpass<2> with those flags false (ms_cu_from_y_pre -> ms_cu_from_y: key, ms__exp, ms__mass; s0
     * true; c.xcut is -inf without min-p), so the same counts and the same three 32-bit parts per bucket: exact by
     * construction. Chosen once a block. */
    if (split && !c.pres && !c.win && !c.inf_row) {
        const float T = c.sl.temperature, m = c.m;
        auto tok = [&](float x) {
            const float y = x / T;
            const uint32_t b = ms_cu_key(y) >> (32 - MS_CU_HBITS);
            atomicAdd(&scnt[b], 1u);
            const uint64_t q = ms__mass(ms__exp(y - m));
            if (q) {
                atomicAdd(&slo[b], (uint32_t)q & 0xffffu);
                atomicAdd(&smid[b], (uint32_t)(q >> 16) & 0xffffu);
                atomicAdd(&shi[b], (uint32_t)(q >> 32));
            }
        };
        const bool vec = ms_cu_vec4(c, t0);
        int32_t ts = t0;
#    ifdef MS_CU_K2_HQ0
        /* Round 30B (-DMS_CU_K2_HQ0=1 or =2, off: the bench's rows have no such group, +0.1..+4.8 us; rows with MS_BENCH_PEAKS=3
         * up to -30 us at B=256; docs/cuda.md): a group of 4 whose raw maximum lies below xq0 takes the key and the count
         * only: each of its tokens has q = 0, which tok adds to no part. xq0 = v - |v| 1e-5 with v = fl(fl(m - 32) T)
         * (round 4's xskip form): x < xq0 gives fl(x / T) < fl(m - 32) (the division is monotone; the 1e-5 margin is
         * far above the roundings, |fl(m - 32)| >= 1e-30 and T >= 1e-5 keep v normal), so with |m| <= 2^20
         * (fl(m - 32) within 0.07 of m - 32) d = fl(y - m) <= -31.9, below MS_FAST_ZERO_D = -27.8, under which
         * ms__exp(d) < 2^-40 (tests/cpu checks every float in [-86, -27.8]; below -86 it is 0): ms__mass gives 0.
         * fmaxf ignores a NaN, whose sanitized -inf is below xq0 too (q = 0: ms__exp(-inf) = 0); four NaNs give a NaN
         * maximum and the long path. Disabled (-inf) outside those bounds. The counts are kept: the mode's lowest
         * non-empty bucket, min_keep's and top-k's buckets and BAND's bucket size read every bucket's count. */
        float xq0 = -INFINITY;
        if (isfinite(m) && fabsf(m) <= 1048576.0f) {
            const float ylim = m - 32.0f;
            if (fabsf(ylim) >= 1e-30f) {
                float v = ylim * T;
                v = v - fabsf(v) * 1e-5f;
                if (isfinite(v)) xq0 = v;
            }
        }
#      if MS_CU_K2_HQ0 >= 2
        /* =2's group (rounds 30B and 31C): every token's key and count, then the exp, mass and parts only for a group
         * whose raw maximum is not below xq0 */
        auto q0grp = [&](const float (&v)[4]) {
            float y[4];
            uint32_t b[4];
#        pragma unroll
            for (int k = 0; k < 4; k++) {
                y[k] = ms__sanitize(v[k]) / T;
                b[k] = ms_cu_key(y[k]) >> (32 - MS_CU_HBITS);
                atomicAdd(&scnt[b[k]], 1u);
            }
            if (fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3])) < xq0) return;
#        pragma unroll
            for (int k = 0; k < 4; k++) {
                const uint64_t q = ms__mass(ms__exp(y[k] - m));
                if (q) {
                    atomicAdd(&slo[b[k]], (uint32_t)q & 0xffffu);
                    atomicAdd(&smid[b[k]], (uint32_t)(q >> 16) & 0xffffu);
                    atomicAdd(&shi[b[k]], (uint32_t)(q >> 32));
                }
            }
        };
#      endif
#      if MS_CU_K2_HQ0 == 3
        /* Round 31C (-DMS_CU_K2_HQ0=3, off): =2's loop or the default's, chosen once a warp at run time. Each lane loads
         * its first group (the one the loop loads first: same address, t < tv, the chunk's vec alignment) and the warp
         * counts the lanes whose group's raw maximum lies below xq0 (__ballot_sync: every lane of the block is here,
         * the lean copy is chosen once a block and the barrier above is behind us); with at least MS_CU_K2_HQ0RT_MIN
         * of 32 the warp runs =2's loop over its groups, else the default's loop, as separate code. Rows where xq0 is
         * -inf (no group can skip) load nothing and take the default's loop. Exact whatever the choice: both loops add
         * the same count under the same key for every token and the same three parts (=2's skipped tokens have q = 0,
         * round 30B's argument), and integer shared atomics sum in any order to the same words, so the buckets K2
         * leaves (and every token K3 / K4 draw from them) do not depend on which loop a warp ran. */
        if (vec) {
            const int32_t tf = t0 + (int32_t)threadIdx.x * 4, tvf = t0 + ((t1 - t0) & ~3);
            bool below = false;
            if (xq0 > -INFINITY && tf < tvf) {
                float v[4];
                ms_cu_load4(c, tf, v);
                below = fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3])) < xq0;
            }
            if (__popc(__ballot_sync(0xffffffffu, below)) >= MS_CU_K2_HQ0RT_MIN)
                ts = ms_cu_lean_groups<MS_CU_K2_HLEAN_NG>(c, t0, t1, [&](int32_t, const float (&v)[4]) { q0grp(v); });
            else
                ts = ms_cu_lean_groups<MS_CU_K2_HLEAN_NG>(c, t0, t1, [&](int32_t, const float (&v)[4]) {
#        pragma unroll
                    for (int k = 0; k < 4; k++) tok(ms__sanitize(v[k]));
                });
        }
#      elif MS_CU_K2_HQ0 == 4
        /* Round 31C's second form (-DMS_CU_K2_HQ0=4, off): =3's choice from the loop's own first loads
         * (ms_cu_lean_groups_rt: =3's probe load, a memory latency before each warp's loop, cost +0.3..+2.2 us on the
         * bench's rows), and only in the plain steps' K2 (OR false): the one-read steps' K2 keeps the default's loop
         * alone (=3's second loop there cost the full setting's control +0.3..+0.6 us). Exact as =3. */
        if (vec) {
            auto lean = [&](const float (&v)[4]) {
#        pragma unroll
                for (int k = 0; k < 4; k++) tok(ms__sanitize(v[k]));
            };
            if constexpr (OR) {
                ts = ms_cu_lean_groups<MS_CU_K2_HLEAN_NG>(c, t0, t1, [&](int32_t, const float (&v)[4]) { lean(v); });
            } else {
                ts = ms_cu_lean_groups_rt<MS_CU_K2_HLEAN_NG>(
                    c, t0, t1,
                    [&](const float (&v)[4]) { return fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3])) < xq0; }, lean,
                    q0grp);
            }
        }
#      elif MS_CU_K2_HQ0 == 2
        /* =2: every token's key and count first, then the exp, mass and parts only for a group not below xq0: a warp
         * whose lanes disagree runs the key and count once (=1 ran them in both of its branches). */
        if (vec)
            ts = ms_cu_lean_groups<MS_CU_K2_HLEAN_NG>(c, t0, t1, [&](int32_t, const float (&v)[4]) { q0grp(v); });
#      else
        if (vec)
            ts = ms_cu_lean_groups<MS_CU_K2_HLEAN_NG>(c, t0, t1, [&](int32_t, const float (&v)[4]) {
                if (fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3])) < xq0) {
#      pragma unroll
                    for (int k = 0; k < 4; k++)
                        atomicAdd(&scnt[ms_cu_key(ms__sanitize(v[k]) / T) >> (32 - MS_CU_HBITS)], 1u);
                    return;
                }
#      pragma unroll
                for (int k = 0; k < 4; k++) tok(ms__sanitize(v[k]));
            });
#      endif
#    else
        if (vec)
            ts = ms_cu_lean_groups<MS_CU_K2_HLEAN_NG>(c, t0, t1, [&](int32_t, const float (&v)[4]) {
#pragma unroll
                for (int k = 0; k < 4; k++) tok(ms__sanitize(v[k]));
            });
#    endif
        for (int32_t t = ts + (int32_t)threadIdx.x; t < t1; t += blockDim.x) tok(ms__sanitize(ms_cu_load(c.row, c.dtype, t)));
    } else
#  endif
    if (split) hpass(ms_cu_hmode<2>());
    else hpass(ms_cu_hmode<1>());
#else
    hpass(ms_cu_hmode<0>());
#endif
    __syncthreads();
    if (c.minp_on) { /* one global atomic per block for the staged survivors */
        const uint32_t ns = sn < MS_CU_STAGE_SH ? sn : MS_CU_STAGE_SH;
        if (threadIdx.x == 0) sbase = ns ? atomicAdd(&st->cand_n, ns) : 0;
        __syncthreads();
        for (uint32_t i = threadIdx.x; i < ns; i += blockDim.x)
            if (sbase + i < MS_CU_CAND) cand[sbase + i] = sbuf[i];
    }
    uint32_t *gc = a.hcnt + (size_t)r * MS_CU_HB;
    unsigned long long *gm = a.hmass + (size_t)r * MS_CU_HB;
#ifdef MS_CU_PB
    /* Round 11 (off by default: peaked rows pay the stores, 2-5 us at B=64 / 256): this block's bucket masses
     * also by themselves (plain coalesced stores), so that K3 takes the chunk's mass above the bound from them
     * instead of an exp per token (ms_cu_k3_pb) */
    unsigned long long *pb = a.pb ? a.pb + ((size_t)r * (size_t)a.G + (size_t)g) * MS_CU_HB : NULL;
#endif
    for (int i = threadIdx.x; i < MS_CU_HB; i += blockDim.x) {
        if (scnt[i]) atomicAdd(&gc[i], scnt[i]);
        const unsigned long long m =
            split ? (unsigned long long)slo[i] + ((unsigned long long)smid[i] << 16) + ((unsigned long long)shi[i] << 32)
                  : smass[i];
        if (m) atomicAdd(&gm[i], m);
#ifdef MS_CU_PB
        if (pb) pb[i] = m;
#endif
    }
    /* The last block of the row sees every block's histogram (threadfence-reduction pattern). */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&st->ticket, 1u) == (uint32_t)(a.G - 1);
    __syncthreads();
    if (!last) {
#ifndef MS_CU_K3_KERNEL
        ms_cu_k2_k3(a, r, g, c, st, false, &k3mode, sh);
#endif
        return;
    }
    __threadfence();
    for (int i = threadIdx.x; i < MS_CU_HB; i += blockDim.x) {
        scnt[i] = __ldcg(&gc[i]); /* through L2, past this SM's L1; independent loads in flight */
        smass[i] = __ldcg(&gm[i]);
    }
    if (threadIdx.x < 4) found[threadIdx.x] = -1;
    __syncthreads();
    /* Descending order j = 0 .. HB-1 is bucket HB-1-j. Each thread takes HB / blockDim consecutive j. */
    const int per = MS_CU_HB / MS_CU_T123;
    uint64_t lc = 0, lm = 0;
    for (int i = 0; i < per; i++) {
        int b = MS_CU_HB - 1 - (threadIdx.x * per + i);
        lc += scnt[b];
        lm += smass[b];
    }
    uint64_t tc, tm;
    uint64_t ec = ms_cu_block_excl_u64(lc, &tc, sh);
    uint64_t em = ms_cu_block_excl_u64(lm, &tm, sh);
    /* found[0]: bucket holding the k-th survivor (k of whichever top-k runs), found[1]: the
     * min_keep-th, found[2]: the lowest bucket whose top token top-p can keep (by M0). */
    const int32_t kk = f.k > 0 ? f.k : f.k2;
    const int32_t mk = c.sl.min_keep;
    uint64_t cc = ec, cm = em;
    for (int i = 0; i < per; i++) {
        int j = threadIdx.x * per + i, b = MS_CU_HB - 1 - j;
        uint32_t n = scnt[b];
        if (n) {
            if (kk > 0 && cc < (uint64_t)kk && cc + n >= (uint64_t)kk) found[0] = b;
            if (cc < (uint64_t)mk && cc + n >= (uint64_t)mk) found[1] = b;
            if (f.p_on && ms__top_p_keeps(cm, tm, f.pq)) atomicMax(&found[2], j);
        }
        cc += n;
        cm += smass[b];
    }
    /* found[3]: the lowest non-empty bucket, as the largest descending index */
    for (int i = 0; i < per; i++) {
        int j = threadIdx.x * per + i;
        if (scnt[MS_CU_HB - 1 - j]) atomicMax(&found[3], j);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        /* the lowest ascending bucket needed; buckets hold key >> 21, larger = larger y */
        const int32_t lowest = MS_CU_HB - 1 - found[3];
        const int32_t bk = (kk > 0 && found[0] >= 0) ? found[0] : lowest; /* fewer than k: all kept */
        int32_t bp = lowest;
        if (f.p_on) {
            int32_t b2 = MS_CU_HB - 1 - found[2];
            int32_t b1 = found[1] >= 0 ? found[1] : lowest;
            bp = b2 < b1 ? b2 : b1; /* top-p keeps the union with the min_keep rule */
        }
        int32_t bound;
        if (!c.sl.top_p_first)
            bound = f.k > 0 ? bk : bp; /* top-p after top-k keeps a subset of top-k's set */
        else
            bound = f.p_on ? (f.k2 > 0 ? (bp > bk ? bp : bk) : bp) : bk;
        found[0] = bound;
    }
    __syncthreads();
    const int32_t bound = found[0];
    uint64_t mine = 0, mine_m = 0;
    for (int i = 0; i < per; i++) {
        int b = MS_CU_HB - 1 - (threadIdx.x * per + i);
        if (b >= bound) mine += scnt[b];
        if (b > bound) mine_m += smass[b];
    }
    uint64_t n_cand, m_above;
    ms_cu_block_excl_u64(mine, &n_cand, sh);
    ms_cu_block_excl_u64(mine_m, &m_above, sh);
    if (threadIdx.x == 0) {
        st->bound = (uint32_t)bound;
        st->m0 = tm;
        /* all of S0 gathered (min-p): K4 takes the candidates from it; else K3 gathers them */
        const bool s0_all = c.minp_on && tc <= MS_CU_CAND;
        /* BAND (round 4): the final threshold lies in the bound's bucket (the bucket of every threshold
         * that applies: top-p's, min_keep's, top-k's; see ms_cu_k4_band), so K3 gathers only that
         * bucket's S0 tokens and each chunk's mass above it, and K4 needs no pass over the row. Not for
         * the default order with both top-k and top-p (top-p over top-k's set may end in a higher
         * bucket), nor when the bucket's tokens do not fit the list (tied rows: FULL), nor with more
         * chunks than hmass holds pairs (K3 writes each chunk's two masses there). */
        const bool band = !(f.k > 0 && f.p_on) && 2 * a.G <= MS_CU_HB && scnt[bound] <= MS_CU_CAND;
        const bool band_on = band;
        st->mode = s0_all ? MS_CU_MODE_S0 : n_cand <= MS_CU_CAND ? MS_CU_MODE_FAST : band_on ? MS_CU_MODE_BAND : MS_CU_MODE_FULL;
        st->c_above = (uint32_t)(n_cand - scnt[bound]);
        st->m_above = m_above;
        if (!s0_all) st->cand_n = 0;
        st->ticket = 0;
#ifndef MS_CU_K3_KERNEL
        __threadfence(); /* the fields above before the flag: a release, paired with ms_cu_k2_k3's acquire */
        atomicOr(&st->k3go, 1u);
#endif
#if defined(MS_CU_K3W_K2) && defined(MS_CU_OR_K2OWN)
        if (K3W) { /* round 25A: the same release for ms_cu_k2_k3w's blocks */
            __threadfence();
            atomicOr(&st->k3go, 1u);
        }
#endif
    }
#ifndef MS_CU_K3_KERNEL
    ms_cu_k2_k3(a, r, g, c, st, true, &k3mode, sh); /* the flag is set: no wait (unless a block gave the row up) */
#endif
}

/* ---- K3: gather the candidates ------------------------------------------------------------- */

/* Rows K4 served by mode since the process started (BAND and FULL only): the tests check that a path
 * was taken (ms__cuda_mode_rows). One atomic per such row. */
__device__ unsigned long long ms_cu_mode_rows[8];
/* Set by the first ms__cuda_mode_rows call (tests only): K4 then also counts, for lite rows, the
 * candidate-histogram cut [5] and rows it left with more than k' + 16 candidates [6], and (round 6)
 * rows served by the lean path ms_cu_k4_lite [7], and those of them that took the block's trim [0]
 * (common paths, so not counted otherwise); round 11: [1] BAND chunks K3 served from K2's per-block masses
 * (ms_cu_k3_pb), [2] BAND draws whose chunk walk took 16-byte loads (ms_cu_draw_range). ([1] and [2] counted
 * round 8's fused rows, removed in round 11.) ms_cu_count_all is defined before K2 (round 12's counters). */

/* Round 11 (off by default; -DMS_CU_PB: on): K3 for a BAND row without the floor, when K2 left its
 * per-block bucket masses. The chunk's mass of S0 above the bound's bucket is the sum of this block's K2 masses of the buckets above it
 * (the same tokens, the same integer masses: K2 summed exactly the S0 tokens of each bucket), so no token
 * needs its exp here, and only the bucket's own tokens are listed. Two pre-filters on x, before the
 * division, with margins far above the roundings involved (fl(x / T) is monotone in x; |y| >= 1e-30 and T
 * >= 1e-5 keep y T normal): below xlo = ylo T less 1e-5 relative, fl(x / T) < ylo, the bucket's lowest
 * value; at or above xhi = yhi T plus 1e-5 relative, fl(x / T) >= yhi, the next bucket's lowest value. A
 * token between them is decided on its key. Round 4's loop (below) did an exp for every token above the
 * bucket (~44% of a flat row), one lane at a time within a warp. */
#ifndef MS_CU_K3_NG
#define MS_CU_K3_NG 2 /* ms_cu_k3_pb's groups of 4 loads in flight a thread (a tunable; round 11 measured 4 beside it) */
#endif
__device__ void ms_cu_k3_pb(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c, ms_cu_rowstat *st,
                            uint32_t bound, int32_t t0, int32_t t1, float xlo, unsigned long long *sh) {
    const unsigned long long *pb = a.pb + ((size_t)r * (size_t)a.G + (size_t)g) * MS_CU_HB;
    unsigned long long *cand = a.cand + (size_t)r * MS_CU_CAND;
    uint64_t up = 0;
    for (uint32_t b = bound + 1 + threadIdx.x; b < (uint32_t)MS_CU_HB; b += blockDim.x) up += __ldcg(&pb[b]);
    float xhi = INFINITY;
    if (!c.inf_row && bound + 1 < (uint32_t)MS_CU_HB) {
        const float yhi = ms_cu_unkey((bound + 1) << (32 - MS_CU_HBITS));
        if (isfinite(yhi) && fabsf(yhi) >= 1e-30f) {
            float v = yhi * c.sl.temperature;
            v = v + fabsf(v) * 1e-5f;
            if (isfinite(v)) xhi = v;
        }
    }
    ms_cu_for_chunk<MS_CU_K3_NG>(c, t0, t1, [&](int32_t t, float x) {
        if (x < xlo || x >= xhi) return;
        const float y = x / c.sl.temperature;
        if ((ms_cu_key(y) >> (32 - MS_CU_HBITS)) != bound) return;
        const ms_cu_elem e = ms_cu_from_y_pre(c, y, t);
        if (!e.s0) return;
        const uint32_t i = atomicAdd(&st->cand_n, 1u);
        if (i < MS_CU_CAND) cand[i] = ((unsigned long long)e.key << 32) | (uint32_t)t;
    });
    up = ms_cu_block_sum(up, sh);
    if (threadIdx.x == 0) { /* this chunk's pair (no floor on this path: the stop ids' part is unused) */
        a.hmass[(size_t)r * MS_CU_HB + 2 * g] = up;
        a.hmass[(size_t)r * MS_CU_HB + 2 * g + 1] = 0;
        if (ms_cu_count_all) atomicAdd(&ms_cu_mode_rows[1], 1ull);
    }
}

#ifdef MS_CU_K3_KERNEL
/* B0L: round 20C's -DMS_CU_K3_B0LATE (below) in this instantiation. The step's K3 is ms_cu_k3<MS_CU_K3_B0>; with
 * MS_CU_K3W_B0LATE (after round 21C; on since round 23A, -DMS_CU_NO_K3W_B0LATE: off) the warm-up steps (a.k4warm: B <= 3 at V=151936), where K3's
 * completion gates K4's wait once round 21C's grouped pass is on, run ms_cu_k3<true> and the other steps the default's
 * (round 21C measured B0LATE in every step: B=1 0.1-0.3 us faster with the grouped pass, B=4 ~0.1 and peaked B=16 / 32
 * up to 0.3 slower). */
#ifdef MS_CU_K3_B0LATE
#  define MS_CU_K3_B0 true
#else
#  define MS_CU_K3_B0 false
#endif
template <bool B0L>
__global__ void __launch_bounds__(MS_CU_T123, 4) ms_cu_k3(ms_cu_args a) {
    __shared__ uint32_t wfilt[256];
    __shared__ unsigned long long sh[33];
    ms_cu_stamp(5);
    ms_cu_pdl_go();
    const int32_t r = blockIdx.x / a.G, g = blockIdx.x % a.G;
    const int32_t slot = ms_cu_slot_ok(a, r);
#ifdef MS_CU_K3_NOWAIT
    /* Round 15B (L): K3's blocks of rows it has no work for (greedy, no filter, lite: K2 never makes them FAST or BAND;
     * the same tests on the slot's settings as K2's, which the host wrote before K1) return without waiting for K2, so
     * that K3's grid is done as soon as its busy rows are; block 0 always waits, so K3's completion still covers K2's
     * (K4 waits for K3 alone). */
    /* B0L, round 20C (-DMS_CU_K3_B0LATE): block 0 reads its row's slot and decides before its wait (the other blocks'
     * test on the same inputs, written before K1), and waits only then, on every path before it returns: K3's
     * completion still covers K2's. Before, block 0 waited first and then loaded row_slot and the slot (two
     * dependent L2 reads) between K2's completion and its own, on the lite steps' K2 -> K4 hand-off. Exact (all 16
     * CUDA tests with -DMS_CU_CARVE=100), level on the H200 (-0.4..+0.2 us, full setting B=1..64): off. */
    if (B0L) {
        if (slot < 0) {
            if (blockIdx.x == 0) ms_cu_pdl_wait();
            return;
        }
    } else {
        if (blockIdx.x == 0) ms_cu_pdl_wait();
        if (slot < 0) return;
    }
    {
        ms_cu_row q;
        ms_cu_slot_row(q, a, slot);
        const ms_cu_filt qf = ms_cu_filters(q);
        if (q.sl.temperature < MS_GREEDY_TEMPERATURE || !qf.k2run || ms_cu_lite_k(q, qf) > 0) {
            if (B0L && blockIdx.x == 0) ms_cu_pdl_wait(); /* round 20C's B0LATE */
            ms_cu_stamp(7);
            return;
        }
    }
#else
    if (slot < 0) return;
#endif
    ms_cu_pdl_wait(); /* K2's mode */
    ms_cu_stamp(6);
    ms_cu_rowstat *st = &a.stats[r];
    const uint32_t mode = st->mode;
    if (mode != MS_CU_MODE_FAST && mode != MS_CU_MODE_BAND) {
        ms_cu_stamp(7);
        return;
    }
    ms_cu_row c;
    ms_cu_row_setup(c, a.slots, slot, a.logits + (size_t)r * (size_t)a.stride * a.elem, a.dtype, a.V, a.apply_penalty,
                    a.apply_filters, a.seen, a.seen_words, a.hist, a.hist_cap, a.stop, wfilt);
    ms_cu_set_max(c, st);
    ms_cu_k3_gather(a, r, g, c, st, mode, st->bound, sh);
}
#endif

#ifdef MS_CU_SEGW
/* Round 23C (MS_CU_SEGW, on; -DMS_CU_NO_SEGW off): K3 stores a BAND row's mass above the bucket per segment of MS_CU_SEGW_T tokens of its
 * chunk (segment j of chunk g: tokens g chunk + j T .. + T, cut at the chunk's end), not per chunk, and K4 scans the
 * segments and walks one of them (ms_cu_k4_band) instead of a whole chunk (at B=64 ~19k tokens walked by one block).
 * The pairs (all, stop ids) of segment g nsc + j lie at hmass[2 (g nsc + j)], as the chunks' pairs did: free after
 * K2, cleared by the next step's K1. Where the row's segments exceed MS_CU_HB / 2 (K4's shared scan holds 1024),
 * both kernels keep the chunk pairs (ms_cu_segw_n 0; the same test on a.V and a.G on both sides). Exact: a
 * segment's mass is the integer sum of the same tokens' masses the chunk's was; the walk in id order over the
 * segment holding the target finds the same token (round 4's argument, on finer units). K3 sums a warp's group of
 * 128 consecutive tokens (one segment: T is a multiple of 128 and the groups start at t0 + 128 i) by two 32-bit
 * warp reductions (20-bit halves of masses <= 2^42 a lane), and one lane adds them to the segment's shared word;
 * the scalar tail and misaligned rows add per token. */
#ifndef MS_CU_SEGW_T
#define MS_CU_SEGW_T 512
#endif
static_assert(MS_CU_SEGW_T >= 128 && MS_CU_SEGW_T % 128 == 0, "a warp's group of 128 tokens lies in one segment");
/* Round 28B (-DMS_CU_SEGW_CHUNK=65536: run in the lead's call L1 with the rule, all 16 tests; the default since the final call): the largest chunk whose segments K3 and K4 keep (32768: ms_cu_grid's
 * bound); longer chunks fall back to the chunk pairs (ms_cu_segw_n), as round 28B's one-wave grid (MS_CU_OR_ONEWAVE, chunks
 * of 38-51k tokens at V=151936) did: top-p alone on flat rows 23-102 us slower. 65536 covers MS_CU_OR_CHUNKMAX (K3's two
 * shared arrays of MS_CU_SEGW_MAX words: 1040 -> 2064 bytes). */
#ifndef MS_CU_SEGW_CHUNK /* 65536 since the twentieth session's final call (round 28B's one-wave rule's chunks; 32768 before) */
#define MS_CU_SEGW_CHUNK 65536
#endif
#define MS_CU_SEGW_MAX ((MS_CU_SEGW_CHUNK + 8 + MS_CU_SEGW_T - 1) / MS_CU_SEGW_T) /* segments a chunk (chunks <= MS_CU_SEGW_CHUNK tokens) */
#ifdef MS_CU_PB
#error "-DMS_CU_PB writes chunk pairs: not combined with -DMS_CU_SEGW"
#endif
/* The segments a chunk of the row (0: chunk pairs), from the step's V and G (K3 and K4 agree). */
__device__ __forceinline__ int32_t ms_cu_segw_n(int32_t G, int32_t chunk) {
    const int32_t nsc = (chunk + MS_CU_SEGW_T - 1) / MS_CU_SEGW_T;
    return nsc <= MS_CU_SEGW_MAX && G * nsc <= MS_CU_HB / 2 ? nsc : 0;
}
/* K3's BAND loop with the masses above the bucket per segment (as ms_cu_k3_gather's, with ms_cu_for_chunk<2>'s loads
 * and x; the loop bound warp-uniform, so that the warp reductions see every lane). */
__device__ __forceinline__ void ms_cu_k3_band_seg(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c,
                                                  ms_cu_rowstat *st, uint32_t bound, int32_t t0, int32_t t1,
                                                  float xskip, int32_t nsc, unsigned long long *cand) {
    __shared__ unsigned long long sa[MS_CU_SEGW_MAX], sb[MS_CU_SEGW_MAX];
    for (int32_t i = threadIdx.x; i < nsc; i += blockDim.x) sa[i] = 0, sb[i] = 0;
    __syncthreads();
    auto tok = [&](int32_t t, float x, uint64_t &up, uint64_t &ups) {
        if (x < xskip) return;
        const float y = x / c.sl.temperature;
        const uint32_t b = ms_cu_key(y) >> (32 - MS_CU_HBITS);
        if (b < bound) return;
        const ms_cu_elem e = ms_cu_from_y_pre(c, y, t);
        if (!e.s0) return;
        if (b > bound) {
            up += e.q;
            if (c.floor && ms_cu_bit(c.stop, t)) ups += e.q;
            return;
        }
        uint32_t i = atomicAdd(&st->cand_n, 1u);
        if (i < MS_CU_CAND) cand[i] = ((unsigned long long)e.key << 32) | (uint32_t)t;
    };
    const unsigned FULLM = 0xffffffffu;
    const bool vec = ms_cu_vec4(c, t0);
#ifdef MS_CU_K3_SLEAN
    /* Round 24D (MS_CU_K3_SLEAN, on since the seventeenth session's final call): rows that need only each token's key
     * and mass (top-p alone: no penalty, no min-p, no +inf row, no floor) take a copy of the loop below without the
     * per-token tests of those (the same operations otherwise: ms_cu_from_y_pre -> ms_cu_from_y gives key, ms__exp(y -
     * m), ms__mass and s0 true; ups stays 0, so sb stays 0), and the exp only for tokens above the bucket. A segment's
     * sum goes to shared memory as two native 32-bit atomics (its 20-bit low and 22-bit high halves' warp sums, sa's
     * words 2j and 2j + 1) instead of a 64-bit add (a compare-and-swap loop, four warps on one segment a block step).
     * Bounds: a lane's up <= 4 2^40, so a group's low sum < 2^25 and high sum <= 2^27; a segment has T / 128 groups
     * (and at most 3 tail tokens, each < 2^20 / <= 2^20): < 2^32 for T <= 4096. lo + (hi << 20) is the segment's
     * integer sum. */
    static_assert(MS_CU_SEGW_T <= 4096, "K3_SLEAN: a segment's 32-bit halves do not overflow");
    if (vec && !c.pres && !c.win && !c.minp_on && !c.inf_row && !c.floor) {
        const float T = c.sl.temperature, m = c.m;
        uint32_t *s32 = (uint32_t *)sa; /* zeroed above: nsc pairs of 32-bit words */
        auto ltok = [&](int32_t t, float x, uint64_t &up) {
            if (x < xskip) return;
            const float y = x / T;
            const uint32_t key = ms_cu_key(y);
            const uint32_t b = key >> (32 - MS_CU_HBITS);
            if (b < bound) return;
            if (b > bound) {
                up += ms__mass(ms__exp(y - m));
                return;
            }
            uint32_t i = atomicAdd(&st->cand_n, 1u);
            if (i < MS_CU_CAND) cand[i] = ((unsigned long long)key << 32) | (uint32_t)t;
        };
        const int32_t step = (int32_t)blockDim.x * 4;
        const int32_t tv = t0 + ((t1 - t0) & ~3);
        const int32_t wl = (int32_t)(threadIdx.x & ~31u);
        for (int32_t t = t0 + (int32_t)threadIdx.x * 4, tb = t0 + wl * 4; tb < tv; t += 2 * step, tb += 2 * step) {
            float v[2][4];
#pragma unroll
            for (int u = 0; u < 2; u++)
                if (t + u * step < tv) ms_cu_load4(c, t + u * step, v[u]);
#pragma unroll
            for (int u = 0; u < 2; u++) {
                const int32_t tg = t + u * step, tgb = tb + u * step;
                if (tgb >= tv) break; /* warp-uniform */
                uint64_t up = 0;
                if (tg < tv) {
#  ifdef MS_CU_K3_BF
                    /* Round 25C (MS_CU_K3_BF, on since the eighteenth session's final call, which validated it; docs/cuda.md round
                     * 25C): the 4 tokens' division, key, exp and mass without a branch each, the mass added by a select
                     * (b > bound and past the x test, as ltok), so that the 4 chains (8 a loop step) can overlap; only
                     * the bucket's own tokens (~1 % of a flat row) branch to the list. The loop in the #else branch runs
                     * the exp for every slot anyway on a flat row (some lane of the warp needs it: every slot in a CPU
                     * model of the bench's rows), behind a branch a token. Exact: ms__exp and ms__mass are pure, a token
                     * ltok drops adds 0 here, the list gets the same tokens. H200, top-p flat B=64 / 256 -1.5 / -17.8 us
                     * (ncu K3 44 -> 42.4 at B=64), peaked +0.1..+0.3, the full setting level. (-DMS_CU_K3_WQ, the
                     * passing tokens queued by ballots first and run 32 at a time, was exact but 23 / 103 us slower:
                     * K3 is bound by its chains' latency, not by its exps' count; its code is in eb85e54.) */
                    float xs[4], ys[4];
                    uint32_t ks[4];
                    uint64_t qs[4];
#pragma unroll
                    for (int k = 0; k < 4; k++) {
                        xs[k] = ms__sanitize(v[u][k]);
                        ys[k] = xs[k] / T;
                        ks[k] = ms_cu_key(ys[k]);
                        qs[k] = ms__mass(ms__exp(ys[k] - m));
                    }
#pragma unroll
                    for (int k = 0; k < 4; k++) {
                        const bool pass = !(xs[k] < xskip);
                        const uint32_t b = ks[k] >> (32 - MS_CU_HBITS);
                        up += pass && b > bound ? qs[k] : 0;
                        if (pass && b == bound) {
                            const uint32_t i = atomicAdd(&st->cand_n, 1u);
                            if (i < MS_CU_CAND) cand[i] = ((unsigned long long)ks[k] << 32) | (uint32_t)(tg + k);
                        }
                    }
#  else
#pragma unroll
                    for (int k = 0; k < 4; k++) ltok(tg + k, ms__sanitize(v[u][k]), up);
#  endif
                }
                const uint32_t lo = __reduce_add_sync(FULLM, (uint32_t)up & 0xfffffu);
                const uint32_t hi = __reduce_add_sync(FULLM, (uint32_t)(up >> 20));
                const int32_t j = (tgb - t0) / MS_CU_SEGW_T;
                if ((threadIdx.x & 31) == 0 && (lo | hi)) {
                    atomicAdd(&s32[2 * j], lo);
                    atomicAdd(&s32[2 * j + 1], hi);
                }
            }
        }
        for (int32_t t = tv + (int32_t)threadIdx.x; t < t1; t += blockDim.x) {
            uint64_t up = 0;
            ltok(t, ms__sanitize(ms_cu_load(c.row, c.dtype, t)), up);
            const int32_t j = (t - t0) / MS_CU_SEGW_T;
            if (up) {
                atomicAdd(&s32[2 * j], (uint32_t)up & 0xfffffu);
                atomicAdd(&s32[2 * j + 1], (uint32_t)(up >> 20));
            }
        }
        __syncthreads();
        unsigned long long *hm = a.hmass + (size_t)r * MS_CU_HB + 2 * (size_t)g * (size_t)nsc;
        for (int32_t i = threadIdx.x; i < nsc; i += blockDim.x) {
            hm[2 * i] = (unsigned long long)s32[2 * i] + ((unsigned long long)s32[2 * i + 1] << 20);
            hm[2 * i + 1] = 0;
        }
        return;
    }
#endif
    int32_t ts = t0;
    if (vec) {
        const int32_t step = (int32_t)blockDim.x * 4;
        const int32_t tv = t0 + ((t1 - t0) & ~3);
        const int32_t wl = (int32_t)(threadIdx.x & ~31u);
        for (int32_t t = t0 + (int32_t)threadIdx.x * 4, tb = t0 + wl * 4; tb < tv; t += 2 * step, tb += 2 * step) {
            float v[2][4];
            uint32_t words[2];
            ms_cu_load_groups<2>(c, t, step, tv, v, words);
#pragma unroll
            for (int u = 0; u < 2; u++) {
                const int32_t tg = t + u * step, tgb = tb + u * step;
                if (tgb >= tv) break; /* warp-uniform */
                uint64_t up = 0, ups = 0;
                if (tg < tv) {
                    const uint32_t word = words[u];
#pragma unroll
                    for (int k = 0; k < 4; k++) {
                        float x;
                        if (c.win) {
                            x = ms_cu_pen(c, v[u][k], tg + k);
                        } else {
                            x = ms__sanitize(v[u][k]);
                            if ((word >> ((tg + k) & 31)) & 1u) x = ms__penalize(x, c.sl.rep);
                        }
                        tok(tg + k, x, up, ups);
                    }
                }
                /* up <= 4 2^40: halves of 20 and 22 bits, whose 32-lane sums fit 32 bits */
                const uint32_t lo = __reduce_add_sync(FULLM, (uint32_t)up & 0xfffffu);
                const uint32_t hi = __reduce_add_sync(FULLM, (uint32_t)(up >> 20));
                const int32_t j = (tgb - t0) / MS_CU_SEGW_T;
                if ((threadIdx.x & 31) == 0 && (lo | hi)) atomicAdd(&sa[j], (unsigned long long)lo + ((unsigned long long)hi << 20));
                if (c.floor) {
                    const uint32_t slo = __reduce_add_sync(FULLM, (uint32_t)ups & 0xfffffu);
                    const uint32_t shi = __reduce_add_sync(FULLM, (uint32_t)(ups >> 20));
                    if ((threadIdx.x & 31) == 0 && (slo | shi))
                        atomicAdd(&sb[j], (unsigned long long)slo + ((unsigned long long)shi << 20));
                }
            }
        }
        ts = tv;
    }
    for (int32_t t = ts + (int32_t)threadIdx.x; t < t1; t += blockDim.x) {
        uint64_t up = 0, ups = 0;
        tok(t, ms_cu_x(c, t), up, ups);
        const int32_t j = (t - t0) / MS_CU_SEGW_T;
        if (up) atomicAdd(&sa[j], (unsigned long long)up);
        if (ups) atomicAdd(&sb[j], (unsigned long long)ups);
    }
    __syncthreads();
    unsigned long long *hm = a.hmass + (size_t)r * MS_CU_HB + 2 * (size_t)g * (size_t)nsc;
    for (int32_t i = threadIdx.x; i < nsc; i += blockDim.x) {
        hm[2 * i] = sa[i];
        hm[2 * i + 1] = sb[i];
    }
}
#endif

/* A FAST row's candidates (S0 at or above the bound's bucket) or a BAND row's bucket and mass pair, of chunk g. */
__device__ __forceinline__ void ms_cu_k3_gather(const ms_cu_args &a, int32_t r, int32_t g, const ms_cu_row &c,
                                                ms_cu_rowstat *st, uint32_t mode, uint32_t bound, unsigned long long *sh) {
    unsigned long long *cand = a.cand + (size_t)r * MS_CU_CAND;
    const int32_t chunk = ((a.V + a.G - 1) / a.G + 7) & ~7;
    const int32_t t0 = g * chunk, t1 = min(a.V, t0 + chunk);
#ifndef MS_CU_K3_FASTX
    if (mode == MS_CU_MODE_FAST) {
        ms_cu_for_chunk<2>(c, t0, t1, [&](int32_t t, float x) {
            if (x < c.xcut) return;
            ms_cu_elem e = ms_cu_from_y_pre(c, x / c.sl.temperature, t);
            if (!e.s0 || (e.key >> (32 - MS_CU_HBITS)) < bound) return;
            uint32_t i = atomicAdd(&st->cand_n, 1u);
            if (i < MS_CU_CAND) cand[i] = ((unsigned long long)e.key << 32) | (uint32_t)t;
        });
        return;
    }
#endif
    /* BAND: the S0 tokens of the bound's bucket go to the list (K2 counted at most MS_CU_CAND); those
     * above it only add their mass to this chunk's (and the stop ids' part, for the floor), which
     * K4's draw needs to find the chunk holding its target. No exp below the bucket. */
    uint64_t up = 0, up_stop = 0;
    /* Most tokens lie below the bucket: rejected on x, before the division. fl(x / T) is monotone in
     * x, and x < ylo T less a 1e-5 relative margin (far above the roundings involved; |ylo| >= 1e-30
     * and T >= 1e-5 keep ylo T normal) gives fl(x / T) < ylo, the bucket's lowest value. A pre-filter
     * only: every other token is decided on its key. */
    float xlo = -INFINITY;
    if (!c.inf_row && bound > 0) {
        const float ylo = ms_cu_unkey(bound << (32 - MS_CU_HBITS));
        if (isfinite(ylo) && fabsf(ylo) >= 1e-30f) {
            float v = ylo * c.sl.temperature;
            v = v - fabsf(v) * 1e-5f;
            if (isfinite(v)) xlo = v;
        }
    }
    const float xskip = xlo > c.xcut ? xlo : c.xcut;
#ifdef MS_CU_K3_FASTX
    /* Round 27C (-DMS_CU_K3_FASTX): FAST rows (K3 gathers every S0 token at or above the bound's bucket) take BAND's
     * pre-filter on x too: a token with x < xskip has fl(x / T) below the bucket's lowest value (or is below min-p's
     * cut on x), so the loop before it dropped it on its key anyway, after its division and ms_cu_from_y_pre (an exp).
     * Every other token runs the same code as before: the same list. On a peaked row (top-p keeps a few tokens near
     * the max) almost every token ends at the compare. */
    if (mode == MS_CU_MODE_FAST) {
        auto tok = [&](int32_t t, float x) {
            if (x < xskip) return;
            ms_cu_elem e = ms_cu_from_y_pre(c, x / c.sl.temperature, t);
            if (!e.s0 || (e.key >> (32 - MS_CU_HBITS)) < bound) return;
            uint32_t i = atomicAdd(&st->cand_n, 1u);
            if (i < MS_CU_CAND) cand[i] = ((unsigned long long)e.key << 32) | (uint32_t)t;
        };
#  ifdef MS_CU_K3_FASTL
        /* Round 27C (-DMS_CU_K3_FASTL): rows without a penalty (their x is the sanitized raw value, as
         * ms_cu_for_chunk gives it when !c.pres && !c.win) load MS_CU_K3_FASTL_NG groups of 4 a thread before using
         * any, and skip a group whose raw maximum is below xskip: fmaxf ignores a NaN, so every value of such a
         * group is below xskip or NaN (sanitized to -inf, below xskip too, since xskip > -inf there); a group of
         * four NaNs has a NaN maximum and goes token by token. The tokens that are not skipped run tok as above. */
        if (!c.pres && !c.win && ms_cu_vec4(c, t0)) {
            const int32_t tv = ms_cu_lean_groups<MS_CU_K3_FASTL_NG>(c, t0, t1, [&](int32_t t, const float (&v)[4]) {
                if (fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3])) < xskip) return;
#    pragma unroll
                for (int k = 0; k < 4; k++) tok(t + k, ms__sanitize(v[k]));
            });
            for (int32_t t = tv + (int32_t)threadIdx.x; t < t1; t += blockDim.x) tok(t, ms_cu_x(c, t));
            return;
        }
#  endif
        ms_cu_for_chunk<2>(c, t0, t1, tok);
        return;
    }
#endif
#ifdef MS_CU_SEGW
    if (const int32_t nsc = ms_cu_segw_n(a.G, chunk)) { /* round 23C: the masses above per segment */
        ms_cu_k3_band_seg(a, r, g, c, st, bound, t0, t1, xskip, nsc, cand);
        return;
    }
#endif
#ifdef MS_CU_PB
    if (a.pb && !c.floor) { /* round 11: the masses above from K2's per-block masses, no exp */
        ms_cu_k3_pb(a, r, g, c, st, bound, t0, t1, xskip, sh);
        return;
    }
#endif
    /* (Tried in round 4: one atomic per group of converged lanes, by ballot, for the bucket's ~1300
     * tokens: K3 50 -> 72 us at B=64, top-p alone; and K2 lite's per-warp queue for the tokens at or above
     * the bucket, so that no warp runs exp for a few lanes: 50 -> 49 us, whole step 175 -> 177 us. The
     * plain loop stays; K3's time is not in its exp.) */
    ms_cu_for_chunk<2>(c, t0, t1, [&](int32_t t, float x) {
        if (x < xskip) return;
        const float y = x / c.sl.temperature;
        const uint32_t b = ms_cu_key(y) >> (32 - MS_CU_HBITS);
        if (b < bound) return;
        const ms_cu_elem e = ms_cu_from_y_pre(c, y, t);
        if (!e.s0) return;
        if (b > bound) {
            up += e.q;
            if (c.floor && ms_cu_bit(c.stop, t)) up_stop += e.q;
            return;
        }
        uint32_t i = atomicAdd(&st->cand_n, 1u);
        if (i < MS_CU_CAND) cand[i] = ((unsigned long long)e.key << 32) | (uint32_t)t;
    });
    up = ms_cu_block_sum(up, sh);
    up_stop = ms_cu_block_sum(up_stop, sh);
    if (threadIdx.x == 0) { /* this chunk's pair; K2's histogram of the row is not read again this step */
        a.hmass[(size_t)r * MS_CU_HB + 2 * g] = up;
        a.hmass[(size_t)r * MS_CU_HB + 2 * g + 1] = up_stop;
    }
}

/* ---- K4: exact thresholds, floor and draw, one block per row -------------------------------- */

struct ms_cu_k4sh {
    uint32_t cnt[256];
    unsigned long long mass[256];
    unsigned long long sh[33];
    uint32_t wfilt[256];
    int32_t dig;
    uint32_t gn; /* ms_cu_find_g: the count of the bucket found */
    int32_t done;
    unsigned long long before_c, before_m, tot_c, tot_m;
    int32_t token;
};

/* The elements of a row: the whole row (recomputed from the logits) or the candidates. */
struct ms_cu_src {
    const ms_cu_row *c;
    const unsigned long long *cand; /* shared; NULL: whole row */
    int32_t n;
    unsigned long long *scr;        /* whole row: shared scratch for the per-warp histograms */
    /* whole row: K2's histogram of S0 by key >> 21 (counts, masses) in global memory, NULL where K2
     * did not build one (lite rows, rows without filters) */
    const uint32_t *gc;
    const unsigned long long *gm;
    template <class F> __device__ __forceinline__ void each(F f) const {
        if (cand) {
            for (int32_t i = threadIdx.x; i < n; i += blockDim.x) {
                unsigned long long v = cand[i];
                ms_cu_elem e = ms_cu_from_y(*c, ms_cu_unkey((uint32_t)(v >> 32)), (int32_t)(uint32_t)v);
                e.s0 = true; /* only survivors of min-p were gathered */
                f(e);
            }
        } else {
            for (int32_t t = threadIdx.x; t < c->V; t += blockDim.x) f(ms_cu_elem_at(*c, t));
        }
    }
};

/* Histogram of the digit (key >> sh) & (2^w - 1), w <= 8, of S0 elements with key >= lb and
 * key >> psh == prefix (psh = sh + w; psh = 32: no prefix). */
__device__ void ms_cu_hist_row(const ms_cu_src &s, ms_cu_k4sh &S, uint32_t lb, int sh, int w, int psh, uint32_t prefix);
__device__ void ms_cu_hist(const ms_cu_src &s, ms_cu_k4sh &S, uint32_t lb, int sh, int w, int psh, uint32_t prefix) {
    if (!s.cand) {
        ms_cu_hist_row(s, S, lb, sh, w, psh, prefix);
        return;
    }
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        S.cnt[i] = 0;
        S.mass[i] = 0;
    }
    __syncthreads();
    s.each([&](const ms_cu_elem &e) {
        if (!e.s0 || e.key < lb) return;
        if (psh < 32 && (e.key >> psh) != prefix) return;
        uint32_t d = (e.key >> sh) & ((1u << w) - 1u);
        atomicAdd(&S.cnt[d], 1u);
        if (e.q) atomicAdd(&S.mass[d], (unsigned long long)e.q);
    });
    __syncthreads();
}

/* ms_cu_hist over the whole row. On a flat row nearly every key shares its top bits, so the first
 * levels put most of a warp's 32 tokens onto two or three bins: block-wide shared atomics (the 64-bit
 * mass add is a compare-and-swap loop) serialised every token of the row onto a few addresses. Here
 * each warp owns a sub-histogram in shared scratch; the lanes of a warp that share a digit are found
 * with __match_any_sync and their count and mass summed with __reduce_add_sync (a mass is at most
 * 2^40: two 20-bit halves, whose sums over 32 lanes fit 32 bits), and one lane per distinct digit adds
 * them with a plain store (no other warp writes there). The division, key and prefix test come first:
 * exp and the mass only for tokens of the digit's prefix. Loads: ms_cu_for_chunk_w (16-byte loads, two
 * groups in flight, warp-uniform calls). Integer sums: the same histogram in any order. */
__device__ void ms_cu_hist_row(const ms_cu_src &s, ms_cu_k4sh &S, uint32_t lb, int sh, int w, int psh, uint32_t prefix) {
    const ms_cu_row &c = *s.c;
    const int nw = (int)(blockDim.x >> 5), wid = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    unsigned long long *wm = s.scr;            /* nw x 256 masses */
    uint32_t *wc = (uint32_t *)(s.scr + nw * 256); /* nw x 256 counts */
    for (int i = threadIdx.x; i < nw * 256; i += blockDim.x) {
        wm[i] = 0;
        wc[i] = 0;
    }
    __syncthreads();
    unsigned long long *mm = wm + wid * 256;
    uint32_t *mc = wc + wid * 256;
    const uint32_t dmask = (1u << w) - 1u;
    ms_cu_for_chunk_w<2>(
        c, 0, c.V, -INFINITY,
        [&](int32_t t, float x, bool ok) {
            const float y = x / c.sl.temperature;
            const uint32_t key = ms_cu_key(y);
            bool in = ok && key >= lb && (psh >= 32 || (key >> psh) == prefix);
            if (!__any_sync(0xffffffffu, in)) return;
            uint64_t q = 0;
            if (in) {
                const ms_cu_elem e = ms_cu_from_y(c, y, t);
                in = e.s0;
                q = in ? e.q : 0;
            }
            const uint32_t d = in ? (key >> sh) & dmask : 0xffffffffu;
            const unsigned grp = __match_any_sync(0xffffffffu, d);
            const uint32_t lo = __reduce_add_sync(grp, (uint32_t)q & 0xfffffu);
            const uint32_t hi = __reduce_add_sync(grp, (uint32_t)(q >> 20));
            if (in && lane == __ffs(grp) - 1) {
                mc[d] += (uint32_t)__popc(grp);
                mm[d] += (unsigned long long)lo + ((unsigned long long)hi << 20);
            }
            __syncwarp();
        },
        [] {});
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        uint32_t n = 0;
        unsigned long long m = 0;
        for (int j = 0; j < nw; j++) {
            n += wc[j * 256 + i];
            m += wm[j * 256 + i];
        }
        S.cnt[i] = n;
        S.mass[i] = m;
    }
    __syncthreads();
}

/* Warp 0 walks the 256 digits from the top. mode 0: the digit holding the need-th element (counts
 * before it plus base < need <= ... + its count). mode 1: the lowest non-empty digit whose top
 * element top-p keeps: 2^32 (base_m + mass before) < pq * M. Writes S.dig, S.before_c/_m, S.tot_*. */
__device__ void ms_cu_find(ms_cu_k4sh &S, int mode, uint64_t need, uint64_t base_c, uint64_t base_m, uint64_t M,
                           uint64_t pq) {
    if (threadIdx.x < 32) {
        const int lane = threadIdx.x;
        uint64_t lc = 0, lm = 0;
        for (int i = 0; i < 8; i++) {
            int d = 255 - (lane * 8 + i);
            lc += S.cnt[d];
            lm += S.mass[d];
        }
        uint64_t ic = ms_cu_warp_incl_u64(lc), im = ms_cu_warp_incl_u64(lm);
        uint64_t cc = ic - lc, cm = im - lm;
        int best = -1;
        uint64_t bc = 0, bm = 0;
        for (int i = 0; i < 8; i++) {
            int d = 255 - (lane * 8 + i);
            uint32_t n = S.cnt[d];
            if (n) {
                if (mode == 0) {
                    if (base_c + cc < need && base_c + cc + n >= need) { best = d; bc = cc; bm = cm; }
                } else if (ms__top_p_keeps(base_m + cm, M, pq)) {
                    best = d; /* lower digits come later in this loop: keep the last */
                    bc = cc;
                    bm = cm;
                }
            }
            cc += n;
            cm += S.mass[d];
        }
        /* the lowest digit found by any lane (mode 0 has exactly one) */
        int bd = best;
        for (int o = 16; o > 0; o >>= 1) {
            int od = __shfl_xor_sync(0xffffffffu, bd, o);
            if (od >= 0 && (bd < 0 || od < bd)) bd = od;
        }
        if (best >= 0 && best == bd) {
            S.dig = bd;
            S.before_c = bc;
            S.before_m = bm;
        }
        if (lane == 31) {
            S.tot_c = ic;
            S.tot_m = im;
        }
    }
    __syncthreads();
}

/* ms_cu_find over K2's histogram of the whole of S0 by key >> 21 (2048 buckets, global memory; the
 * row's K2 finished before K4 started): the first digit of a descent from lb = 0 without a pass over
 * the row. Each thread takes MS_CU_HB / MS_CU_T4 consecutive buckets in descending order. Same
 * outputs as ms_cu_find (S.dig a bucket; before_* relative to the whole of S0). */
__device__ void ms_cu_find_g(const ms_cu_src &s, ms_cu_k4sh &S, int mode, uint64_t need, uint64_t M, uint64_t pq) {
    constexpr int per = MS_CU_HB / MS_CU_T4;
    static_assert(per >= 1 && per * MS_CU_T4 == MS_CU_HB, "K4's threads split K2's buckets evenly");
    __shared__ int32_t bestj;
    uint32_t n[per];
    uint64_t ms[per], lc = 0, lm = 0;
#pragma unroll
    for (int i = 0; i < per; i++) {
        const int b = MS_CU_HB - 1 - ((int)threadIdx.x * per + i);
        n[i] = __ldcg(&s.gc[b]); /* written by K2's atomics: read through L2 */
        ms[i] = __ldcg(&s.gm[b]);
        lc += n[i];
        lm += ms[i];
    }
    if (threadIdx.x == 0) bestj = -1;
    uint64_t tc, tm;
    uint64_t cc = ms_cu_block_excl_u64(lc, &tc, S.sh);
    uint64_t cm = ms_cu_block_excl_u64(lm, &tm, S.sh);
    if (mode == 1 && M == 0) M = tm;
    int32_t found = -1;
    uint64_t fc = 0, fm = 0;
    uint32_t fn = 0;
#pragma unroll
    for (int i = 0; i < per; i++) {
        if (n[i]) {
            const bool hit = mode == 0 ? (cc < need && cc + n[i] >= need) : ms__top_p_keeps(cm, M, pq);
            if (hit) { /* mode 1: lower buckets come later: keep the last */
                found = (int32_t)threadIdx.x * per + i;
                fc = cc;
                fm = cm;
                fn = n[i];
            }
        }
        cc += n[i];
        cm += ms[i];
    }
    if (found >= 0) atomicMax(&bestj, found); /* the lowest bucket any thread found */
    __syncthreads();
    if (found >= 0 && found == bestj) {
        S.dig = MS_CU_HB - 1 - found;
        S.before_c = fc;
        S.before_m = fm;
        S.gn = fn;
    }
    if (threadIdx.x == 0) {
        S.tot_c = tc;
        S.tot_m = tm;
    }
    __syncthreads();
}

/* The digits of a descent: from K2's 11-bit buckets (g), then 8 + 8 + 5 bits; or four 8-bit digits. */
__device__ __forceinline__ int ms_cu_dig_sh(bool g, int level) {
    static_assert(MS_CU_HBITS == 11, "the digits after K2's buckets");
    return g ? (level == 0 ? 21 : level == 1 ? 13 : level == 2 ? 5 : 0) : 24 - 8 * level;
}
__device__ __forceinline__ int ms_cu_dig_w(bool g, int level) { return g ? (level == 0 ? 11 : level == 3 ? 5 : 8) : 8; }

/* top-k: the key of the need-th largest S0 element with key >= lb, or lb when there are fewer
 * than need + 1 such elements (everything is kept). */
__device__ uint32_t ms_cu_select_count(const ms_cu_src &s, ms_cu_k4sh &S, uint32_t lb, uint64_t need) {
    const bool g = s.gc && lb == 0;
    ms_cu_src L = s; /* the bucket's tokens, once gathered (use_l) */
    bool use_l = false;
    uint32_t prefix = 0;
    uint64_t above = 0;
    for (int level = 0; level < 4; level++) {
        const int sh = ms_cu_dig_sh(g, level), w = ms_cu_dig_w(g, level), psh = level == 0 ? 32 : sh + w;
        if (level == 0 && g) {
            ms_cu_find_g(s, S, 0, need, 0, 0);
        } else {
            if (use_l) ms_cu_hist(L, S, lb, sh, w, psh, prefix);
            else ms_cu_hist(s, S, lb, sh, w, psh, prefix);
            ms_cu_find(S, 0, need, above, 0, 0, 0);
        }
        if (level == 0 && S.tot_c <= need) return lb;
        above += S.before_c;
        prefix = (prefix << w) | (uint32_t)S.dig;
        __syncthreads();
    }
    return prefix;
}

/* top-p: the key of the lowest S0 value (key >= lb) whose mass strictly above is < p * M. M is the
 * mass of that set; pass 0 to have it summed here. */
__device__ uint32_t ms_cu_select_mass(const ms_cu_src &s, ms_cu_k4sh &S, uint32_t lb, uint64_t M, uint64_t pq) {
    const bool g = s.gc && lb == 0;
    ms_cu_src L = s; /* the bucket's tokens, once gathered (use_l) */
    bool use_l = false;
    uint32_t prefix = 0;
    uint64_t above = 0;
    for (int level = 0; level < 4; level++) {
        const int sh = ms_cu_dig_sh(g, level), w = ms_cu_dig_w(g, level), psh = level == 0 ? 32 : sh + w;
        if (level == 0 && g) {
            ms_cu_find_g(s, S, 1, 0, M, pq);
            if (M == 0) M = S.tot_m;
        } else {
            if (use_l) ms_cu_hist(L, S, lb, sh, w, psh, prefix);
            else ms_cu_hist(s, S, lb, sh, w, psh, prefix);
            if (level == 0 && M == 0) {
                ms_cu_find(S, 0, ~0ull, 0, 0, 0, 0); /* only for the totals */
                M = S.tot_m;
                __syncthreads(); /* everyone has read the totals before the next walk rewrites them */
            }
            ms_cu_find(S, 1, 0, 0, above, M, pq);
        }
        above += S.before_m;
        prefix = (prefix << w) | (uint32_t)S.dig;
        __syncthreads();
    }
    return prefix;
}

__device__ uint32_t ms_cu_top_p(const ms_cu_src &s, ms_cu_k4sh &S, const ms_cu_row &c, const ms_cu_filt &f,
                                uint32_t lb, uint64_t M) {
    uint32_t v = ms_cu_select_mass(s, S, lb, M, f.pq);
    if (c.sl.min_keep > 1) {
        uint32_t vk = ms_cu_select_count(s, S, lb, (uint64_t)c.sl.min_keep);
        v = vk < v ? vk : v;
    }
    return v > lb ? v : lb;
}

__device__ __forceinline__ void ms_cu_out(const ms_cu_args &a, int32_t r, int32_t tok, int32_t status) {
    a.tokens[r] = tok;
    if (a.status) a.status[r] = status;
    if (a.pend) a.pend[r] = tok;
}

/* Ascending bitonic sort of a[0..N) (N a power of two) by the whole block. */
__device__ void ms_cu_bitonic(unsigned long long *a, int32_t N) {
    for (int32_t k = 2; k <= N; k <<= 1)
        for (int32_t j = k >> 1; j > 0; j >>= 1) {
            for (int32_t i = threadIdx.x; i < N; i += blockDim.x) {
                int32_t ixj = i ^ j;
                if (ixj > i) {
                    unsigned long long x = a[i], y = a[ixj];
                    if ((x > y) == ((i & k) == 0)) {
                        a[i] = y;
                        a[ixj] = x;
                    }
                }
            }
            __syncthreads();
        }
}


/* The draw (SPEC 2.6) over len positions in id order; q_at(i, &id, &stop) gives position i's kept
 * mass. Per-thread contiguous pieces, scanned across the block; writes the row's outputs. */
template <class Q>
__device__ void ms_cu_draw(const ms_cu_args &a, int32_t r, const ms_cu_row &c, ms_cu_k4sh &S, int32_t len, Q q_at) {
    const int32_t per = (len + (int32_t)blockDim.x - 1) / (int32_t)blockDim.x;
    const int32_t p0 = threadIdx.x * per, p1 = min(len, p0 + per);
    uint64_t my = 0, my_stop = 0, total, stop_m;
    for (int32_t i = p0; i < p1; i++) {
        int32_t id;
        bool sp;
        uint64_t q = q_at(i, &id, &sp);
        my += q;
        if (sp) my_stop += q;
    }
    uint64_t excl_all = ms_cu_block_excl_u64(my, &total, S.sh);
    uint64_t excl_stop = ms_cu_block_excl_u64(my_stop, &stop_m, S.sh);
    /* 5. the floor: stop ids lose their mass unless nothing would be left */
    const bool floor_on = c.floor && total - stop_m > 0;
    if (floor_on) total -= stop_m;
    if (total == 0) {
        if (threadIdx.x == 0) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        return;
    }
    const uint64_t target = ms__draw_target(ms__draw_bits(c.sl.seed, c.sl.n, (uint32_t)a.row_k[r]), total);
    const uint64_t base = floor_on ? excl_all - excl_stop : excl_all;
    const uint64_t mine = floor_on ? my - my_stop : my;
    if (threadIdx.x == 0) S.token = -1;
    __syncthreads();
    if (mine > 0 && base <= target && target < base + mine) {
        uint64_t run = base;
        for (int32_t i = p0; i < p1; i++) {
            int32_t id;
            bool sp;
            uint64_t q = q_at(i, &id, &sp);
            if (floor_on && sp) continue;
            run += q;
            if (run > target) {
                S.token = id;
                break;
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) ms_cu_out(a, r, S.token, S.token >= 0 ? MS_ROW_OK : MS_ROW_EMPTY);
}

/* The draws' search for the step holding the target: each thread owns steps [p0, p1) of U, whose masses sum to
 * mine and start at the running sum base; the one thread whose range holds the target finds the step, in the
 * caller's shared step (-1: none) and sbase (the mass before it). S.token is reset. Barriers before and after. */
__device__ __forceinline__ void ms_cu_draw_search(const unsigned long long *U, int32_t p0, int32_t p1, uint64_t base,
                                                  uint64_t mine, uint64_t target, ms_cu_k4sh &S, int32_t &step,
                                                  unsigned long long &sbase) {
    if (threadIdx.x == 0) {
        S.token = -1;
        step = -1;
    }
    __syncthreads();
    if (mine > 0 && base <= target && target < base + mine) {
        uint64_t run = base;
        for (int32_t i = p0; i < p1; i++) {
            if (run + U[i] > target) {
                step = i;
                sbase = run;
                break;
            }
            run += U[i];
        }
    }
    __syncthreads();
}

/* The draw over the whole row (the FULL path): a token's kept mass is its q when it is in S0 with key
 * >= lb. ms_cu_draw's per-thread contiguous pieces read the row uncoalesced (each lane its own lines,
 * which K4's small L1 does not hold) with one load in flight. Here each warp takes steps of 32
 * consecutive tokens (coalesced, four steps' loads in flight) and stores each step's mass (and, when
 * the floor may apply, its mass without stop ids) in shared scratch (2 x ceil(V/32) words); the block
 * scans the steps, and one warp recomputes the step holding the target and finds the first token whose
 * running sum exceeds it: the same token as ms_cu_draw's walk in id order (integer sums). */
__device__ void ms_cu_draw_row(const ms_cu_args &a, int32_t r, const ms_cu_row &c, ms_cu_k4sh &S, uint32_t lb,
                               unsigned long long *scr) {
    const unsigned FULLM = 0xffffffffu;
    const int32_t ns = (c.V + 31) >> 5;
    const int32_t nw = (int32_t)(blockDim.x >> 5), wid = (int32_t)(threadIdx.x >> 5), lane = (int32_t)(threadIdx.x & 31);
    unsigned long long *SA = scr, *SB = scr + ns;
    auto q_of = [&](int32_t t, float x) -> uint64_t {
        const float y = x / c.sl.temperature;
        if (ms_cu_key(y) < lb) return 0;
        const ms_cu_elem e = ms_cu_from_y(c, y, t);
        return e.s0 ? e.q : 0;
    };
    auto wsum = [&](uint64_t q) -> unsigned long long { /* q <= 2^40: two halves, each sum < 2^32 */
        const uint32_t lo = __reduce_add_sync(FULLM, (uint32_t)q & 0xfffffu);
        const uint32_t hi = __reduce_add_sync(FULLM, (uint32_t)(q >> 20));
        return (unsigned long long)lo + ((unsigned long long)hi << 20);
    };
    for (int32_t s0 = wid; s0 < ns; s0 += 4 * nw) { /* s0, nw: warp-uniform */
        float raw[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int32_t t = (s0 + u * nw) * 32 + lane;
            raw[u] = t < c.V ? ms_cu_load(c.row, c.dtype, t) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int32_t st = s0 + u * nw;
            if (st >= ns) break;
            const int32_t t = st * 32 + lane;
            uint64_t q = 0;
            bool sp = false;
            if (t < c.V) {
                q = q_of(t, ms_cu_pen(c, raw[u], t));
                sp = c.floor && ms_cu_bit(c.stop, t);
            }
            const unsigned long long qa = wsum(q);
            if (lane == 0) SA[st] = qa;
            if (c.floor) {
                const unsigned long long qb = wsum(sp ? 0 : q);
                if (lane == 0) SB[st] = qb;
            }
        }
    }
    __syncthreads();
    const int32_t per = (ns + (int32_t)blockDim.x - 1) / (int32_t)blockDim.x;
    const int32_t p0 = min(ns, (int32_t)threadIdx.x * per), p1 = min(ns, p0 + per);
    uint64_t my = 0, my_b = 0;
    for (int32_t i = p0; i < p1; i++) {
        my += SA[i];
        if (c.floor) my_b += SB[i];
    }
    uint64_t total, nonstop = 0, excl_b = 0;
    const uint64_t excl_all = ms_cu_block_excl_u64(my, &total, S.sh);
    if (c.floor) excl_b = ms_cu_block_excl_u64(my_b, &nonstop, S.sh);
    /* 5. the floor: stop ids lose their mass unless nothing would be left */
    const bool floor_on = c.floor && nonstop > 0;
    const uint64_t tot = floor_on ? nonstop : total;
    if (tot == 0) {
        if (threadIdx.x == 0) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        return;
    }
    const uint64_t target = ms__draw_target(ms__draw_bits(c.sl.seed, c.sl.n, (uint32_t)a.row_k[r]), tot);
    const unsigned long long *U = floor_on ? SB : SA;
    const uint64_t base = floor_on ? excl_b : excl_all, mine = floor_on ? my_b : my;
    __shared__ int32_t dstep;
    __shared__ unsigned long long dbase;
    ms_cu_draw_search(U, p0, p1, base, mine, target, S, dstep, dbase);
    if (wid == 0 && dstep >= 0) {
        const int32_t t = dstep * 32 + lane;
        uint64_t q = 0;
        if (t < c.V) {
            q = q_of(t, ms_cu_x(c, t));
            if (floor_on && ms_cu_bit(c.stop, t)) q = 0;
        }
        const uint64_t inc = dbase + ms_cu_warp_incl_u64(q);
        const unsigned hit = __ballot_sync(FULLM, inc > target);
        if (lane == 0) S.token = hit ? dstep * 32 + __ffs(hit) - 1 : -1;
    }
    __syncthreads();
    if (threadIdx.x == 0) ms_cu_out(a, r, S.token, S.token >= 0 ? MS_ROW_OK : MS_ROW_EMPTY);
}

/* A row whose candidates (an upper set of S0 in key order holding every token the filters can keep)
 * are in shared memory: sort them by y descending, and every filter of SPEC 2.4 becomes a prefix of
 * that order found with prefix sums of counts and masses (as the reference does after its sort). */
__device__ void ms_cu_k4_cand(const ms_cu_args &a, int32_t r, const ms_cu_row &c, const ms_cu_filt &f,
                              ms_cu_k4sh &S, unsigned long long *cand, int32_t n, uint64_t m0) {
    unsigned long long *P = cand + MS_CU_CAND;           /* MS_CU_CAND + 1 exclusive mass sums */
    int32_t *gs = (int32_t *)(P + MS_CU_CAND + 1);        /* first position of each key's run */
    int32_t N = 1;
    while (N < n) N <<= 1;
    /* ascending (~key, id) = y descending */
    for (int32_t i = threadIdx.x; i < N; i += blockDim.x) {
        unsigned long long v = i < n ? cand[i] : ~0ull;
        if (i < n) v = ((unsigned long long)(~(uint32_t)(v >> 32)) << 32) | (uint32_t)v;
        cand[i] = v;
    }
    __syncthreads();
    ms_cu_bitonic(cand, N);
    const int32_t per = (n + (int32_t)blockDim.x - 1) / (int32_t)blockDim.x;
    const int32_t p0 = threadIdx.x * per, p1 = min(n, p0 + per);
    auto key_at = [&](int32_t i) -> uint32_t { return ~(uint32_t)(cand[i] >> 32); };
    /* masses and their exclusive prefix sums; run starts (a max-scan of start positions) */
    uint64_t my = 0;
    int32_t last = -1;
    for (int32_t i = p0; i < p1; i++) {
        ms_cu_elem e = ms_cu_from_y(c, ms_cu_unkey(key_at(i)), (int32_t)(uint32_t)cand[i]);
        P[i] = e.q; /* for now */
        my += e.q;
        if (i == 0 || key_at(i) != key_at(i - 1)) last = i;
        gs[i] = last;
    }
    uint64_t tot;
    uint64_t run = ms_cu_block_excl_u64(my, &tot, S.sh);
    /* the max-scan: the last run start before this thread's piece is the largest start of any
     * earlier piece (an exclusive max-scan over the block; a serial walk back cost ~500 steps when
     * few threads hold candidates) */
    __shared__ int32_t lastv[32];
    int32_t carry;
    {
        const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
        int32_t inc = (p0 < p1) ? last : -1;
        for (int o = 1; o < 32; o <<= 1) {
            int32_t v = __shfl_up_sync(0xffffffffu, inc, o);
            if (lane >= o) inc = v > inc ? v : inc;
        }
        int32_t excl = __shfl_up_sync(0xffffffffu, inc, 1);
        if (lane == 0) excl = -1;
        if (lane == 31) lastv[wid] = inc;
        __syncthreads();
        if (wid == 0) {
            int32_t w = lane < nw ? lastv[lane] : -1;
            for (int o = 1; o < 32; o <<= 1) {
                int32_t v = __shfl_up_sync(0xffffffffu, w, o);
                if (lane >= o) w = v > w ? v : w;
            }
            if (lane < nw) lastv[lane] = w; /* inclusive over warps */
        }
        __syncthreads();
        carry = wid > 0 && lastv[wid - 1] > excl ? lastv[wid - 1] : excl;
    }
    for (int32_t i = p0; i < p1; i++) {
        uint64_t q = P[i];
        P[i] = run;
        run += q;
        if (gs[i] < 0) gs[i] = carry;
    }
    if (threadIdx.x == 0) P[n] = 0;
    __syncthreads();
    if (p1 == n && p0 < p1) P[n] = run;
    __syncthreads();
    /* 4. filters: each keeps a prefix [0, L) of the sorted order */
    auto count_if = [&](int32_t lim, int kind, uint64_t M) -> int32_t {
        uint64_t cnt = 0;
        for (int32_t i = p0; i < min(p1, lim); i++) {
            int32_t g = gs[i];
            bool keep = kind == 0 ? (uint64_t)g < M /* top-k: fewer than M above */
                                  : (ms__top_p_keeps(P[g], M, f.pq) || g < c.sl.min_keep);
            cnt += keep;
        }
        return (int32_t)ms_cu_block_sum(cnt, S.sh);
    };
    int32_t L = n;
    if (f.sel) {
        if (!c.sl.top_p_first) {
            if (f.k > 0) L = count_if(n, 0, (uint64_t)f.k);
            if (f.p_on) L = count_if(L, 1, f.k > 0 ? P[L] : m0);
        } else {
            if (f.p_on) L = count_if(n, 1, m0);
            if (f.k2 > 0) L = count_if(L, 0, (uint64_t)f.k2);
        }
    }
    /* the kept prefix in id order: (id << 32 | sorted position), sorted */
    int32_t NL = 1;
    while (NL < L) NL <<= 1;
    __syncthreads();
    for (int32_t i = threadIdx.x; i < NL; i += blockDim.x)
        cand[i] = i < L ? (((unsigned long long)(uint32_t)cand[i] << 32) | (uint32_t)i) : ~0ull;
    __syncthreads();
    ms_cu_bitonic(cand, NL);
    ms_cu_draw(a, r, c, S, L, [&](int32_t i, int32_t *id, bool *stop) -> uint64_t {
        unsigned long long v = cand[i];
        uint32_t pos = (uint32_t)v;
        *id = (int32_t)(v >> 32);
        *stop = c.floor && ms_cu_bit(c.stop, *id);
        return P[pos + 1] - P[pos];
    });
}

/* The draws' step search (ms_cu_draw_range and its 16-byte form), after a barrier once every step's kept mass
 * is in scr[0, ns): a block scan over per-thread ranges of steps finds the step whose running sum from base0
 * holds the target, in the caller's shared rstep (-1: none) and rbase (the mass before it); S.token is reset.
 * Ends with a barrier. */
__device__ __forceinline__ void ms_cu_draw_find_step(const unsigned long long *scr, int32_t ns, uint64_t base0,
                                                     uint64_t target, ms_cu_k4sh &S, int32_t &rstep,
                                                     unsigned long long &rbase) {
    const int32_t per = (ns + (int32_t)blockDim.x - 1) / (int32_t)blockDim.x;
    const int32_t p0 = min(ns, (int32_t)threadIdx.x * per), p1 = min(ns, p0 + per);
    uint64_t my = 0, total;
    for (int32_t i = p0; i < p1; i++) my += scr[i];
    const uint64_t base = base0 + ms_cu_block_excl_u64(my, &total, S.sh);
    ms_cu_draw_search(scr, p0, p1, base, my, target, S, rstep, rbase);
}

/* The draw over [t0, t1) (at most 32768 + 7 tokens) given the kept mass before t0 (base0) and the target:
 * a token is kept when it is in S0 with key >= lb (and, floor_on, not a stop id). As ms_cu_draw_row:
 * warps take coalesced steps of 32 tokens, each step's mass goes to scr, a block scan finds the step
 * holding the target, one warp re-reads it. Writes the row's outputs. */
#ifndef MS_CU_NO_DRAWV
/* Round 11 (on by default; -DMS_CU_NO_DRAWV: off): ms_cu_draw_range with 16-byte loads (8 for fp16 / bf16),
 * for a chunk whose start is aligned. A step is 128 tokens, lane l holding tokens 4l .. 4l + 3 of it, four steps in flight a warp (64
 * bytes a thread, against round 4's four 4-byte loads: at B=64 the one block walking a 19k-token chunk was
 * waiting on its loads, ncu's top line). The walk finds the same token: the steps' masses are exact integer
 * sums, lanes hold their tokens in id order, and in the step holding the target the lane whose tokens
 * straddle it takes the first of them whose running sum exceeds it. */
__device__ void ms_cu_draw_range_v(const ms_cu_args &a, int32_t r, const ms_cu_row &c, ms_cu_k4sh &S, uint32_t lb,
                                   int32_t t0, int32_t t1, uint64_t base0, uint64_t target, bool floor_on,
                                   unsigned long long *scr) {
    const unsigned FULLM = 0xffffffffu;
    const int32_t ns = (t1 - t0 + 127) >> 7;
    const int32_t nw = (int32_t)(blockDim.x >> 5), wid = (int32_t)(threadIdx.x >> 5), lane = (int32_t)(threadIdx.x & 31);
    auto q_of = [&](int32_t t, float raw) -> uint64_t {
        const float y = ms_cu_pen(c, raw, t) / c.sl.temperature;
        if (ms_cu_key(y) < lb) return 0;
        const ms_cu_elem e = ms_cu_from_y(c, y, t);
        if (!e.s0 || (floor_on && ms_cu_bit(c.stop, t))) return 0;
        return e.q;
    };
    auto load4 = [&](int32_t t, float v[4]) { /* the 4 tokens from t (beyond t1: 0, never read) */
        if (t + 4 <= t1) {
            ms_cu_load4(c, t, v);
        } else {
#pragma unroll
            for (int k = 0; k < 4; k++) v[k] = t + k < t1 ? ms_cu_load(c.row, c.dtype, t + k) : 0.0f;
        }
    };
    for (int32_t s0 = wid; s0 < ns; s0 += 4 * nw) { /* s0, nw: warp-uniform */
        float v[4][4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int32_t t = t0 + (s0 + u * nw) * 128 + 4 * lane;
            if (s0 + u * nw < ns && t < t1) load4(t, v[u]);
        }
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int32_t st = s0 + u * nw;
            if (st >= ns) break;
            const int32_t t = t0 + st * 128 + 4 * lane;
            uint32_t lo = 0, hi = 0; /* q <= 2^40: 20-bit halves; 128 of them sum below 2^32 */
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const uint64_t q = t + k < t1 ? q_of(t + k, v[u][k]) : 0;
                lo += (uint32_t)q & 0xfffffu;
                hi += (uint32_t)(q >> 20);
            }
            lo = __reduce_add_sync(FULLM, lo);
            hi = __reduce_add_sync(FULLM, hi);
            if (lane == 0) scr[st] = (unsigned long long)lo + ((unsigned long long)hi << 20);
        }
    }
    __syncthreads();
    __shared__ int32_t rstep;
    __shared__ unsigned long long rbase;
    ms_cu_draw_find_step(scr, ns, base0, target, S, rstep, rbase);
    if (wid == 0 && rstep >= 0) {
        const int32_t t = t0 + rstep * 128 + 4 * lane;
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (t < t1) load4(t, v);
        uint64_t q[4], mine = 0;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            q[k] = t + k < t1 ? q_of(t + k, v[k]) : 0;
            mine += q[k];
        }
        uint64_t run = rbase + ms_cu_warp_incl_u64(mine) - mine; /* the mass before this lane's tokens */
        int32_t hit = -1;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            run += q[k];
            if (hit < 0 && run > target) hit = k;
        }
        const unsigned any = __ballot_sync(FULLM, hit >= 0);
        if (lane == (any ? __ffs(any) - 1 : 0)) S.token = any ? t + hit : -1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (ms_cu_count_all) atomicAdd(&ms_cu_mode_rows[2], 1ull);
        ms_cu_out(a, r, S.token, S.token >= 0 ? MS_ROW_OK : MS_ROW_EMPTY);
    }
}
#endif

__device__ void ms_cu_draw_range(const ms_cu_args &a, int32_t r, const ms_cu_row &c, ms_cu_k4sh &S, uint32_t lb,
                                 int32_t t0, int32_t t1, uint64_t base0, uint64_t target, bool floor_on,
                                 unsigned long long *scr) {
#ifndef MS_CU_NO_DRAWV
    if (a.drawv) {
        if (ms_cu_vec4(c, t0)) {
            ms_cu_draw_range_v(a, r, c, S, lb, t0, t1, base0, target, floor_on, scr);
            return;
        }
    }
#endif
    const unsigned FULLM = 0xffffffffu;
    const int32_t ns = (t1 - t0 + 31) >> 5;
    const int32_t nw = (int32_t)(blockDim.x >> 5), wid = (int32_t)(threadIdx.x >> 5), lane = (int32_t)(threadIdx.x & 31);
    auto q_of = [&](int32_t t, float x) -> uint64_t {
        const float y = x / c.sl.temperature;
        if (ms_cu_key(y) < lb) return 0;
        const ms_cu_elem e = ms_cu_from_y(c, y, t);
        if (!e.s0 || (floor_on && ms_cu_bit(c.stop, t))) return 0;
        return e.q;
    };
    for (int32_t s0 = wid; s0 < ns; s0 += 4 * nw) { /* s0, nw: warp-uniform */
        float raw[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int32_t t = t0 + (s0 + u * nw) * 32 + lane;
            raw[u] = t < t1 ? ms_cu_load(c.row, c.dtype, t) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int32_t st = s0 + u * nw;
            if (st >= ns) break;
            const int32_t t = t0 + st * 32 + lane;
            const uint64_t q = t < t1 ? q_of(t, ms_cu_pen(c, raw[u], t)) : 0;
            /* q <= 2^40: two halves, each sum over 32 lanes < 2^32 */
            const uint32_t lo = __reduce_add_sync(FULLM, (uint32_t)q & 0xfffffu);
            const uint32_t hi = __reduce_add_sync(FULLM, (uint32_t)(q >> 20));
            if (lane == 0) scr[st] = (unsigned long long)lo + ((unsigned long long)hi << 20);
        }
    }
    __syncthreads();
    __shared__ int32_t rstep;
    __shared__ unsigned long long rbase;
    ms_cu_draw_find_step(scr, ns, base0, target, S, rstep, rbase);
    if (wid == 0 && rstep >= 0) {
        const int32_t t = t0 + rstep * 32 + lane;
        const uint64_t q = t < t1 ? q_of(t, ms_cu_x(c, t)) : 0;
        const uint64_t inc = rbase + ms_cu_warp_incl_u64(q);
        const unsigned hit = __ballot_sync(FULLM, inc > target);
        if (lane == 0) S.token = hit ? t0 + rstep * 32 + __ffs(hit) - 1 : -1;
    }
    __syncthreads();
    if (threadIdx.x == 0) ms_cu_out(a, r, S.token, S.token >= 0 ? MS_ROW_OK : MS_ROW_EMPTY);
}

/* The key of the need-th largest S0 token (ties counted, as ms_cu_select_count), for BAND: c_above S0
 * tokens lie above the bucket `bound`, the list L holds the bucket's n. MS_CU_ABOVE: the threshold is
 * above the bucket (no list token reaches it); 0: below it (every list token does). Else a radix
 * descent over the list's remaining 21 key bits (8 + 8 + 5) with shared histograms. */
#define MS_CU_ABOVE 0xffffffffu
__device__ __forceinline__ int ms_cu_band_sh(int level) { return level == 0 ? 13 : level == 1 ? 5 : 0; }
__device__ __forceinline__ int ms_cu_band_w(int level) { return level == 2 ? 5 : 8; }
__device__ uint32_t ms_cu_band_count(const ms_cu_src &L, ms_cu_k4sh &S, uint32_t bound, uint64_t c_above, uint64_t need) {
    static_assert(MS_CU_HBITS == 11, "BAND's digits below K2's buckets");
    if (c_above >= need) return MS_CU_ABOVE;
    if (c_above + (uint64_t)L.n < need) return 0;
    uint32_t prefix = bound;
    uint64_t above = c_above;
    for (int level = 0; level < 3; level++) {
        const int sh = ms_cu_band_sh(level), w = ms_cu_band_w(level);
        ms_cu_hist(L, S, 0, sh, w, sh + w, prefix);
        ms_cu_find(S, 0, need, above, 0, 0, 0);
        above += S.before_c;
        prefix = (prefix << w) | (uint32_t)S.dig;
        __syncthreads();
    }
    return prefix;
}
/* Top-p's threshold for BAND: the lowest list key whose mass strictly above (m_above from the buckets
 * above, the rest from the list) is < p M, as ms_cu_select_mass; MS_CU_ABOVE when even the list's top
 * is not kept. */
__device__ uint32_t ms_cu_band_mass(const ms_cu_src &L, ms_cu_k4sh &S, uint32_t bound, uint64_t m_above, uint64_t M,
                                    uint64_t pq) {
    if (!ms__top_p_keeps(m_above, M, pq) || L.n == 0) return MS_CU_ABOVE;
    uint32_t prefix = bound;
    uint64_t above = m_above;
    for (int level = 0; level < 3; level++) {
        const int sh = ms_cu_band_sh(level), w = ms_cu_band_w(level);
        ms_cu_hist(L, S, 0, sh, w, sh + w, prefix);
        ms_cu_find(S, 1, 0, 0, above, M, pq);
        above += S.before_m;
        prefix = (prefix << w) | (uint32_t)S.dig;
        __syncthreads();
    }
    return prefix;
}

/* K4 for a BAND row (round 4). list: the S0 tokens of K2's bucket `bound` (unsorted, n <= MS_CU_CAND,
 * in shared memory); st: the count and mass of S0 above that bucket and S0's mass. Every threshold of
 * SPEC 2.4 that applies is found by a descent inside the list with the counts/masses above as bases
 * (a threshold outside the bucket is MS_CU_ABOVE or 0), combined as the whole-row path does; the kept
 * set is S0 with key >= theta. A chunk's kept mass is K3's mass above the bucket (in hmass: pairs of
 * all, stop ids) plus its kept list tokens; a block scan over the chunks finds the one holding the
 * target floor(r M / 2^64) and ms_cu_draw_range walks that chunk in id order: the same token as the
 * walk over the row (integer sums). The floor: the stop ids' part of each chunk is known too.
 * Round 23C (MS_CU_SEGW, on): the units are K3's 512-token segments of the chunks (ms_cu_segw_n), not the chunks.
 * scr: 2 MS_CU_HB words of shared scratch; the list's space is reused by the walk. */
__device__ void ms_cu_k4_band(const ms_cu_args &a, int32_t r, const ms_cu_row &c, const ms_cu_filt &f,
                              ms_cu_k4sh &S, unsigned long long *list, int32_t n, const ms_cu_rowstat *st,
                              unsigned long long *scr) {
    const uint32_t bound = st->bound;
    const uint64_t c_above = st->c_above, m_above = st->m_above, m0 = st->m0;
    ms_cu_src L;
    L.c = &c;
    L.cand = list;
    L.n = n;
    L.scr = NULL;
    L.gc = NULL;
    L.gm = NULL;
    uint32_t theta = 0;
    if (f.sel) {
        auto top_p = [&]() -> uint32_t { /* top-p, or the min_keep-th token when lower (ms_cu_top_p) */
            uint32_t v = ms_cu_band_mass(L, S, bound, m_above, m0, f.pq);
            if (c.sl.min_keep > 1) {
                const uint32_t vk = ms_cu_band_count(L, S, bound, c_above, (uint64_t)c.sl.min_keep);
                v = vk < v ? vk : v;
            }
            return v;
        };
        if (!c.sl.top_p_first) {
            theta = f.k > 0 ? ms_cu_band_count(L, S, bound, c_above, (uint64_t)f.k) : top_p(); /* not both: K2 */
        } else {
            theta = f.p_on ? top_p() : 0;
            if (f.k2 > 0) {
                const uint32_t vk = ms_cu_band_count(L, S, bound, c_above, (uint64_t)f.k2);
                theta = vk > theta ? vk : theta;
            }
        }
    }
    /* theta in the bucket, as K2 found; MS_CU_ABOVE only if not (then just the tokens above it) */
    if (theta == MS_CU_ABOVE)
        theta = bound + 1 < (uint32_t)MS_CU_HB ? (bound + 1) << (32 - MS_CU_HBITS) : MS_CU_ABOVE;
    const int32_t chunk = ((a.V + a.G - 1) / a.G + 7) & ~7;
#ifdef MS_CU_SEGW
    /* round 23C: K3's pairs are per segment of MS_CU_SEGW_T tokens (nsc a chunk) where ms_cu_segw_n allows */
    const int32_t nsc = ms_cu_segw_n(a.G, chunk);
    const int32_t G = nsc ? a.G * nsc : a.G; /* the units scanned: segments, else chunks */
    auto unit_of = [&](int32_t id) -> int32_t {
        const int32_t g = id / chunk;
        return nsc ? g * nsc + (id - g * chunk) / MS_CU_SEGW_T : g;
    };
#else
    const int32_t G = a.G;
    auto unit_of = [&](int32_t id) -> int32_t { return id / chunk; };
#endif
    unsigned long long *CA = scr, *CB = scr + MS_CU_HB / 2; /* per chunk: kept mass, its stop ids' part */
    for (int32_t i = threadIdx.x; i < G; i += blockDim.x) {
        CA[i] = 0;
        CB[i] = 0;
    }
    __syncthreads();
    for (int32_t i = threadIdx.x; i < n; i += blockDim.x) {
        const unsigned long long v = list[i];
        const uint32_t key = (uint32_t)(v >> 32);
        if (key < theta) continue;
        const int32_t id = (int32_t)(uint32_t)v;
        const unsigned long long q = ms_cu_from_y(c, ms_cu_unkey(key), id).q;
        if (!q) continue;
        atomicAdd(&CA[unit_of(id)], q);
        if (c.floor && ms_cu_bit(c.stop, id)) atomicAdd(&CB[unit_of(id)], q);
    }
    __syncthreads();
    const unsigned long long *hm = a.hmass + (size_t)r * MS_CU_HB;
    const int32_t per = (G + (int32_t)blockDim.x - 1) / (int32_t)blockDim.x;
    const int32_t g0 = min(G, (int32_t)threadIdx.x * per), g1 = min(G, g0 + per);
    uint64_t my = 0, my_b = 0;
    for (int32_t i = g0; i < g1; i++) {
        const uint64_t ca = CA[i] + __ldcg(&hm[2 * i]), cs = CB[i] + __ldcg(&hm[2 * i + 1]);
        CA[i] = ca;
        CB[i] = ca - cs; /* without the stop ids */
        my += ca;
        my_b += ca - cs;
    }
    uint64_t total, nonstop = 0, excl_b = 0;
    const uint64_t excl_a = ms_cu_block_excl_u64(my, &total, S.sh);
    if (c.floor) excl_b = ms_cu_block_excl_u64(my_b, &nonstop, S.sh);
    /* 5. the floor: stop ids lose their mass unless nothing would be left */
    const bool floor_on = c.floor && nonstop > 0;
    const uint64_t tot = floor_on ? nonstop : total;
    if (tot == 0) {
        if (threadIdx.x == 0) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        return;
    }
    const uint64_t target = ms__draw_target(ms__draw_bits(c.sl.seed, c.sl.n, (uint32_t)a.row_k[r]), tot);
    const unsigned long long *U = floor_on ? CB : CA;
    const uint64_t base = floor_on ? excl_b : excl_a, mine = floor_on ? my_b : my;
    __shared__ int32_t bchunk;
    __shared__ unsigned long long bbase;
    ms_cu_draw_search(U, g0, g1, base, mine, target, S, bchunk, bbase); /* its S.token = -1 is redone by the walk */
    if (bchunk < 0) { /* cannot happen (the sums are exact); kept defensive */
        if (threadIdx.x == 0) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        return;
    }
#ifdef MS_CU_SEGW
    int32_t t0, t1;
    if (nsc) { /* segment j of chunk g */
        const int32_t g = bchunk / nsc, c0 = g * chunk;
        t0 = c0 + (bchunk - g * nsc) * MS_CU_SEGW_T;
        t1 = min(min(a.V, c0 + chunk), t0 + MS_CU_SEGW_T);
    } else {
        t0 = bchunk * chunk;
        t1 = min(a.V, t0 + chunk);
    }
#else
    const int32_t t0 = bchunk * chunk, t1 = min(a.V, t0 + chunk);
#endif
    ms_cu_draw_range(a, r, c, S, theta, t0, t1, bbase, target, floor_on, list); /* the list is no longer needed */
}

#define MS_CU_WARP_N 64

/* The finish for n <= MS_CU_WARP_N candidates (round 9; round 2's block-wide ms_cu_k4_cand pays ~90 barriers,
 * ~20 us a row whatever n is). Round 2..8's one-warp finish (ms_cu_k4_warp: a rank sort of the list, then
 * prefix sums by 64-bit shuffle scans) took the same decisions; it was removed in round 11 (git history:
 * -DMS_CU_K4W_SORT before commit "CUDA prune"); this form was 0.4-2.5 us faster (round 9's fourth call).
 * ms_cu_k4_warp2 makes them without sorts. Each candidate's count and mass of strictly greater keys come from one pass
 * over the list (every lane reads every entry from shared memory, a broadcast), so each filter is a test per
 * candidate, exactly the prefix the sorted finish took in its order: top-k keeps count < k (count = the
 * start of the key's run), top-p keeps top_p_keeps(mass above, M) or count < min_keep, with M the kept mass
 * of top-k's set (the default order) or m0 (the HF order, top-k k2 after it). A second pass gives each kept
 * candidate the kept mass of the smaller ids, so the drawn token is the one whose [prefix, prefix + q)
 * holds the target: the smallest id whose running sum exceeds it, as there (ids are distinct). No 64-bit
 * shuffle scans, no run-start scan, no rank loops. The list's entries are distinct tokens. */
struct __align__(16) ms_cu_pe {
    uint32_t key;
    int32_t id;
    unsigned long long q;
};

/* Warp sum of values below 2^42 (two masses of at most 2^40 a lane): two 32-bit reductions of 20-bit parts. */
__device__ __forceinline__ uint64_t ms_cu_warp_sum_m(uint64_t v) {
    const uint32_t lo = __reduce_add_sync(0xffffffffu, (uint32_t)(v & 0xfffffu));
    const uint32_t hi = __reduce_add_sync(0xffffffffu, (uint32_t)(v >> 20));
    return ((uint64_t)hi << 20) + lo;
}
/* The one-warp finish's filters (ms_cu_k4_warp2 and the block finish ms_cu_k4_fin_blk share them): each
 * lane's two candidates h, with their masses q, counts cn and masses Ab of strictly greater keys, keep kp[h]
 * (set by the caller to "is a candidate") only if every filter keeps them: each a test per candidate, the
 * prefix the sorted order would take. M is top-k's kept mass (the default order) or m0 (S0's, the HF order). */
__device__ __forceinline__ void ms_cu_k4_filter(const ms_cu_row &c, const ms_cu_filt &f, uint64_t m0, const uint64_t q[2],
                                                const int32_t cn[2], const uint64_t Ab[2], bool kp[2]) {
    if (f.sel) {
        if (!c.sl.top_p_first) {
            if (f.k > 0)
                for (int h = 0; h < 2; h++) kp[h] = kp[h] && cn[h] < f.k;
            if (f.p_on) {
                const uint64_t M = f.k > 0 ? ms_cu_warp_sum_m((kp[0] ? q[0] : 0) + (kp[1] ? q[1] : 0)) : m0;
                for (int h = 0; h < 2; h++)
                    kp[h] = kp[h] && (ms__top_p_keeps(Ab[h], M, f.pq) || cn[h] < c.sl.min_keep);
            }
        } else {
            if (f.p_on)
                for (int h = 0; h < 2; h++)
                    kp[h] = kp[h] && (ms__top_p_keeps(Ab[h], m0, f.pq) || cn[h] < c.sl.min_keep);
            if (f.k2 > 0)
                for (int h = 0; h < 2; h++) kp[h] = kp[h] && cn[h] < f.k2;
        }
    }
}
/* 5. the floor, after ms_cu_k4_filter: stop ids lose their mass unless nothing would be left. sp[h]: candidate h
 * is a kept stop id; returns the kept total (without the stop ids when floor_on). */
__device__ __forceinline__ uint64_t ms_cu_k4_floor(const ms_cu_row &c, const int32_t id[2], const uint64_t q[2],
                                                   const bool kp[2], bool sp[2], bool &floor_on) {
    for (int h = 0; h < 2; h++) sp[h] = kp[h] && c.floor && ms_cu_bit(c.stop, id[h]);
    uint64_t total = ms_cu_warp_sum_m((kp[0] ? q[0] : 0) + (kp[1] ? q[1] : 0));
    const uint64_t stop_m = c.floor ? ms_cu_warp_sum_m((sp[0] ? q[0] : 0) + (sp[1] ? q[1] : 0)) : 0;
    floor_on = c.floor && total - stop_m > 0;
    if (floor_on) total -= stop_m;
    return total;
}

__device__ void ms_cu_k4_warp2(const ms_cu_args &a, int32_t r, const ms_cu_row &c, const ms_cu_filt &f,
                               const unsigned long long *cand, int32_t n, uint64_t m0, unsigned long long *sh) {
    const unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    ms_cu_pe *T = (ms_cu_pe *)sh; /* 64 entries of 16 bytes: inside the warp's 4 * 64 + 1 words */
    uint32_t k[2];
    int32_t id[2];
    uint64_t q[2];
    bool v[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int i = lane + 32 * h;
        v[h] = i < n;
        const unsigned long long e = v[h] ? cand[i] : 0;
        k[h] = (uint32_t)(e >> 32);
        id[h] = (int32_t)(uint32_t)e;
        q[h] = v[h] ? ms_cu_from_y(c, ms_cu_unkey(k[h]), id[h]).q : 0;
        if (v[h]) {
            ms_cu_pe t;
            t.key = k[h];
            t.id = id[h];
            t.q = q[h];
            T[i] = t;
        }
    }
    __syncwarp();
    /* pass 1: how many, and how much mass, strictly above each */
    int32_t cnt[2] = {0, 0};
    uint64_t A[2] = {0, 0};
#pragma unroll 4
    for (int32_t j = 0; j < n; j++) {
        const ms_cu_pe t = T[j];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const bool gt = t.key > k[h];
            cnt[h] += gt;
            A[h] += gt ? t.q : 0;
        }
    }
    ms_cu_stamp(13);
    /* the filters, each a test per candidate (the sorted finish's prefixes) */
    bool kp[2] = {v[0], v[1]};
    ms_cu_k4_filter(c, f, m0, q, cnt, A, kp);
    ms_cu_stamp(14);
    /* 5. the floor: stop ids lose their mass unless nothing would be left */
    bool sp[2], floor_on;
    const uint64_t total = ms_cu_k4_floor(c, id, q, kp, sp, floor_on);
    uint64_t eq[2];
    for (int h = 0; h < 2; h++) eq[h] = (kp[h] && !(floor_on && sp[h])) ? q[h] : 0;
    __syncwarp(); /* every lane has read T in pass 1 */
    for (int h = 0; h < 2; h++)
        if (v[h]) T[lane + 32 * h].q = eq[h];
    __syncwarp();
    ms_cu_stamp(15);
    if (total == 0) {
        if (lane == 0) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        return;
    }
    const uint64_t target = ms__draw_target(ms__draw_bits(c.sl.seed, c.sl.n, (uint32_t)a.row_k[r]), total);
    /* pass 2: the drawn mass of the smaller ids */
    uint64_t P[2] = {0, 0};
#pragma unroll 4
    for (int32_t j = 0; j < n; j++) {
        const ms_cu_pe t = T[j];
#pragma unroll
        for (int h = 0; h < 2; h++) P[h] += t.id < id[h] ? t.q : 0;
    }
    const bool hit0 = eq[0] > 0 && P[0] <= target && target - P[0] < eq[0];
    const bool hit1 = eq[1] > 0 && P[1] <= target && target - P[1] < eq[1];
    const unsigned bal = __ballot_sync(FULL, hit0 || hit1);
    if (lane == __ffs(bal) - 1) ms_cu_out(a, r, hit0 ? id[0] : id[1], MS_ROW_OK);
}

/* Round 10 (the default since its first call; round 9's one-warp finish alone was -DMS_CU_NO_K4_SPREAD before
 * round 11's prune): ms_cu_k4_warp2's decisions by the whole block. Round 9's stamps put ~2.5 us
 * of B=1's flat step in the one-warp finish's first pass (each lane two masses' exp, then ~55 dependent
 * broadcast reads) while the block's other 15 warps waited. Here one thread a candidate computes its mass,
 * and each pass over the list is split over 8 threads a candidate (entries s, s + 8, ...; 64 x 8 = 512
 * threads), their counts and masses summed by three xor shuffles inside the group of 8: integer sums, so
 * the same counts, masses above and masses of smaller ids as ms_cu_k4_warp2's, in any order. Warp 0 then
 * applies the filters and the floor exactly as there (the same tests on the same numbers); the draw's
 * Philox bits (dbits) were computed before K4's PDL wait, from the slot and row_k alone. The drawn token is
 * the one kept candidate whose [P, P + q) holds the target: exactly one, as there. sh: the warp scratch of
 * ms_cu_k4_warp2 (4 * 64 + 1 words): the entries (128 words), the masses above (64), the counts (32). */
/* -DMS_CU_STAMPS_LIST (with -DMS_CU_STAMPS, a diagnostic): events 13-15 mark the list's steps in ms_cu_k4_lite
 * instead of the finish's (15: thread 0 has its four preloaded candidates, 13: the bins' scan done, 14: thread
 * 0's part of the list done, before the barrier that ends at event 11). */
#ifdef MS_CU_STAMPS_LIST
#  define ms_cu_stamp_f(e) ((void)0)
#  define ms_cu_stamp_l(e) ms_cu_stamp(e)
#else
#  define ms_cu_stamp_f(e) ms_cu_stamp(e)
#  define ms_cu_stamp_l(e) ((void)0)
#endif
static_assert(MS_CU_T4 == 8 * MS_CU_WARP_N, "8 threads a candidate");
/* Round 21C (-DMS_CU_K4_PWARM, with MS_CU_K4_WARM; off): round 16B's warm-up pass in ms_cu_k4<false> (the lite steps'
 * K4) by groups of warps at once instead of the whole block through every phase in turn. At B=1 the dry pass took
 * 4.2 us (round 20C's stamps: its loads' L2 round trip, the list, then the finish's four phases between three block
 * barriers) and ended ~1.9 us after K3's last block, so it set the step. Here, in the dry pass only, warps 0-3 run
 * the list (ms_cu_k4_lite's front, on the fake row, as before) and, at the same time, warps 4-5 the finish's masses
 * (phase A), warps 6-13 its first pass (B), warp 14 its filters, floor and target (C), warp 15 its second pass (D),
 * each over its own copy of a fake 64-entry list in the dynamic shared memory past the finish's scratch (filled
 * before, one barrier), with no block barrier between the phases. So each phase's instructions are fetched
 * concurrently and the dry pass lasts about its longest group instead of the sum. The real pass (dry false: pw
 * false) runs the same instructions as before with every barrier; a block barrier after the dry pass (ms_cu_k4)
 * orders all of the dry groups' shared-memory writes before the real pass, which reads nothing the dry one wrote
 * without writing it first. The one-read kernels (ms_cu_k4<true>, K4L, K4R) instantiate WP false: their code is the
 * default's. */
/* MS_CU_K4_PWOWN (after round 21C's calls; on since round 23A, -DMS_CU_NO_K4_PWOWN: off): the grouped pass only in a kernel of its own, ms_cu_k4w
 * (ms_cu_k4_row<false, true>), launched instead of ms_cu_k4<false> in the warm-up steps (a.k4warm: B <= 3 at V=151936),
 * so that ms_cu_k4<false>, which the other lite steps (B=4..51) run, keeps the default's code: measured with the pass in
 * ms_cu_k4<false> itself (-DMS_CU_K4_PWARM), B=4 was 0.1-0.4 us slower in every run, where only that code differs. */
#if defined(MS_CU_K4_PWOWN) && !defined(MS_CU_K4_PWARM)
#  define MS_CU_K4_PWARM
#endif
#if defined(MS_CU_K4_PWARM) && defined(MS_CU_K4_WARM)
#  ifdef MS_CU_K4_PWOWN
#    define MS_CU_PW(OR, CAP) false /* only ms_cu_k4w (its template argument PW) */
#  else
#    define MS_CU_PW(OR, CAP) (!(OR) && (CAP) == MS_CU_CAND)
#  endif
#  define MS_CU_PW_AREA 512 /* words of a dry group's copy: the finish's scratch (4 x 64 + 1 words) then the list (64) */
#  define MS_CU_PW_LIST 264
static_assert(MS_CU_T4 == 512 && MS_CU_WARP_N == 64, "round 21C's groups: 16 warps, a 64-entry fake list");
static_assert(MS_CU_CAND + 5 * MS_CU_PW_AREA <= MS_CU_K4_DYN / 8, "the dry groups' copies inside K4's shared memory");
#else
#  define MS_CU_PW(OR, CAP) false
#endif
/* Round 29C (-DMS_CU_K4_FUSE, off): in ms_cu_k4<true>, K4L and K4R (the one-read steps' kernels: FU below) the finish
 * takes fewer dependent steps. (1) ft: the list (a one-read row's: ms_cu_k4_list has each candidate's mass from the
 * min-p test's ms_cu_from_y) or round 21B's trim (ms_cu_k4_rtrim) already wrote the finish's entries T (key, id, mass:
 * the same ms_cu_from_y on the same key, id and c as the entries phase below), before the barrier that ends it, for
 * every listed position below MS_CU_WARP_N; so no entries phase and no barrier (when the radix trim ran, ft is false: it
 * moved the list through the same scratch). (2) After pass 1's barrier every warp (not warp 0 alone) applies the
 * filters and the floor to the 64 entries (two a lane) and computes the kept total and the target itself: the same
 * functions on the same shared values in every warp (warp-level integer sums), so the same verdicts; each warp's two
 * ballots give every thread the kept set as a 64-bit mask, so pass 2 adds T[j].q where bit j is set instead of the
 * masses warp 0 wrote back (0 for the dropped: the same sums), with no barrier between. Peaked B=64: the entries and
 * the kept total's two barriers and their shared round trips leave the chain after the list. Measured (round 29C,
 * docs/cuda.md): exact (6 CUDA tests, bench tokens), but 0.3-2.1 us a step slower at B=32..128 (each half alone too:
 * -DMS_CU_K4_FUSE_NOLD, -DMS_CU_K4_FUSE_NOFIN), level at B=256 (the loads alone 0.8-1.0 faster there): off. */
/* The finish's two entries of a lane (lane, lane + 32) after the counts-above pass: id, mass, count and mass above, kept
 * (the default's one-warp finish and round 29C's every-warp finish) */
__device__ __forceinline__ void ms_cu_k4_fin_ld(const ms_cu_pe *T, const int32_t *Csh, const unsigned long long *Ash,
                                                int32_t n, int lane, bool v[2], int32_t id[2], uint64_t q[2],
                                                int32_t cn[2], uint64_t Ab[2], bool kp[2]) {
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int x = lane + 32 * h;
        v[h] = x < n;
        id[h] = v[h] ? T[x].id : 0;
        q[h] = v[h] ? T[x].q : 0;
        cn[h] = v[h] ? Csh[x] : 0;
        Ab[h] = v[h] ? Ash[x] : 0;
        kp[h] = v[h];
    }
}
#if defined(MS_CU_K4_FUSE) && !defined(MS_CU_K4_FUSE_NOFIN) /* -DMS_CU_K4_FUSE_NOFIN: round 29C's loads alone (below) */
#  define MS_CU_FU(OR) (OR)
#else
#  define MS_CU_FU(OR) false
#endif
/* Round 30C (-DMS_CU_K4_LDTWO, off): round 29C's one-round-trip loads (ms_cu_k4_lite, below: the stats' first 16 bytes,
 * m0 and npre candidate rounds at once, no bins) in round 20B's K4L only (ms_cu_k4_lite's template argument LD). Exact (7
 * CUDA tests); full B=200 / 256 0.5-1.1 us faster, B=133..176 level, but ms_cu_k4<true>'s and K4R's SASS still move with
 * the switch (their source paths unchanged; cause not found) and B=64 is 0.3 us slower: off (docs/cuda.md, round 30C).
 * K4R runs ms_cu_k4<true>'s row code (the lean rows K4L gives up): with an instantiation of its own (LD in
 * ms_cu_k4_row) ms_cu_k4<true>'s SASS changed even in the default build (an 8-byte stack frame). MS_CU_LD1(OR, LD): the
 * instantiation takes the loads for its one-read rows. */
#if defined(MS_CU_K4_FUSE) && !defined(MS_CU_K4_FUSE_NOLD)
#  define MS_CU_LD1(OR, LD) (OR) /* round 29C: every one-read kernel */
#elif defined(MS_CU_K4_LDTWO) && defined(MS_CU_K4_TWO)
#  define MS_CU_LD1(OR, LD) ((OR) && (LD)) /* round 30C: K4L */
#endif
/* MS_CU_NP(OR, LD): ms_cu_k4_list's instantiation loads past npre (<= PF) speculative rounds, not PF. Round 30C's
 * first form passed npre to every instantiation (npre = PF but in K4L / K4R) and ms_cu_k4<false>'s SASS changed too:
 * the kernels that do not take the loads compile the default's statements (if constexpr: the others are not
 * instantiated); ms_cu_k4<false> is then the default's, ms_cu_k4<true> and K4R are not (above). */
#ifdef MS_CU_K4_FUSE
#  define MS_CU_NP(OR, LD) true /* round 29C as measured */
#elif defined(MS_CU_LD1)
#  define MS_CU_NP(OR, LD) MS_CU_LD1(OR, LD)
#endif
#ifdef MS_CU_NP
#  define MS_CU_K4_NPRE /* ms_cu_k4_list: template argument NP, argument npre */
#endif
/* Round 35C (-DMS_CU_K4_IDSCAN, off; =1: ms_cu_k4w alone (the WP instantiation, B=1's warm-up steps), =2: every K4):
 * the finish's draw without its second block pass. Pass 1 also counts, for candidate i, the entries with a smaller id
 * (its rank in id order, packed above the count of greater keys in the same 32-bit word: both < 2^16 for n <= 64, so
 * the same three xor shuffles). Warp 0 then applies the filters and the floor as before, writes each entry's drawn mass
 * (0 for the dropped) and id to slot rank (a permutation of 0..n-1: the ids are distinct), and after __syncwarp reads
 * slots 2 lane, 2 lane + 1: one warp inclusive scan of the pairs gives every slot the drawn mass of the smaller ids, P,
 * and the total (the last lane's sum: the kept total of ms_cu_k4_floor, which is the sum of the same drawn masses), so
 * the target and the draw stay in warp 0: no third block barrier, no shared target, no pass 2 over the list. Exact: P
 * and the total are the same integer sums as pass 2's and the floor's (over the same entries, another order); the hit
 * test is pass 2's; the kept intervals [P, P + q) partition [0, total) and target < total, so exactly one slot hits,
 * as there. The floor's reductions run only when c.floor (floor_on needs them; the total is the scan's). */
/* -DMS_CU_K4_IDSCAN=3 (ms_cu_k4w alone) / =4 (every K4): also no entries phase, so one block barrier after the list's
 * instead of three. Pass 1 reads the list itself (key, id: 8 bytes an entry) and counts for candidate i the entries with a
 * greater key (cnt), those with its key and a smaller id (tie) and those with a smaller id (rank), three 8-bit fields of
 * one word (each < 64); the group's first thread computes i's mass (ms_cu_from_y, as the entries phase) beside it. After
 * the barrier warp 0 writes each mass to slot cnt + tie (its position in the order key descending, id ascending: a
 * permutation, the ids being distinct), scans the slots once, and the mass strictly above candidate i is the exclusive
 * sum at slot cnt_i (the slots before it hold exactly the greater keys): the same integer sum as pass 1's A. Then the
 * filters, the floor and the draw as =1 / =2.
 * Measured (round 35C, docs/cuda.md; H200, full setting V=151936, two calls): =2 fp32 B=1 flat -0.26 / -0.21 us, peaked
 * -0.36 / -0.34, bf16 B=1 -0.28 / -0.29, B=2..16 -0.03..-0.26, but flat B=32 +0.17 (one call); =4 no better at B=1 and
 * +0.44..+0.56 at flat B=32..128. Exact (10 CUDA tests on =2 and on =4). Off; =1 recommended on (only ms_cu_k4w's SASS
 * changes, and it is =2's). */
#ifdef MS_CU_K4_IDSCAN
#  define MS_CU_IDS(WP) ((MS_CU_K4_IDSCAN) == 2 || ((MS_CU_K4_IDSCAN) == 1 && (WP)))
#  define MS_CU_IDS3(WP) ((MS_CU_K4_IDSCAN) == 4 || ((MS_CU_K4_IDSCAN) == 3 && (WP)))
#  define MS_CU_IDS_E 336 /* words past sh: the drawn masses by id rank (64), then the ids (32 words); past round 21C's */
#  define MS_CU_IDS_I 400 /* dry list (MS_CU_PW_LIST + 64 = 328) and inside a dry group's area (512 words) */
static_assert(MS_CU_IDS_I + MS_CU_WARP_N / 2 <= 512 && MS_CU_IDS_I + MS_CU_WARP_N / 2 <= MS_CU_K4L_CAP, "round 35C's slots");
#else
#  define MS_CU_IDS(WP) false
#  define MS_CU_IDS3(WP) false
#endif
/* Round 35C: warp 0's end of the finish (=1..=4): the filters and the floor on the lane's two entries (v, id, q, cn, Ab,
 * kp as ms_cu_k4_fin_ld gives them; rk: their id ranks), the drawn masses by id rank, one scan, the draw (above). */
#ifdef MS_CU_K4_IDSCAN
__device__ __forceinline__ void ms_cu_k4_ids_draw(const ms_cu_args &a, int32_t r, const ms_cu_row &c, const ms_cu_filt &f,
                                                  int32_t n, uint64_t m0, unsigned long long *sh, uint64_t dbits, bool dry,
                                                  int lane, const bool v[2], const int32_t id[2], const uint64_t q[2],
                                                  const int32_t cn[2], const uint64_t Ab[2], bool kp[2], const int32_t rk[2]) {
    const unsigned FULL = 0xffffffffu;
    ms_cu_k4_filter(c, f, m0, q, cn, Ab, kp);
    if (!dry) ms_cu_stamp_f(14);
    bool floor_on = false, sp[2] = {false, false};
    if (c.floor) (void)ms_cu_k4_floor(c, id, q, kp, sp, floor_on); /* floor_on; the total is the scan's */
    unsigned long long *Esh = sh + MS_CU_IDS_E;
    int32_t *Ish = (int32_t *)(sh + MS_CU_IDS_I);
#pragma unroll
    for (int h = 0; h < 2; h++)
        if (v[h]) {
            Esh[rk[h]] = (kp[h] && !(floor_on && sp[h])) ? q[h] : 0;
            Ish[rk[h]] = id[h];
        }
    __syncwarp();
    const int x0 = 2 * lane;
    const uint64_t e0 = x0 < n ? Esh[x0] : 0, e1 = x0 + 1 < n ? Esh[x0 + 1] : 0;
    const int32_t i0 = x0 < n ? Ish[x0] : 0, i1 = x0 + 1 < n ? Ish[x0 + 1] : 0;
    const uint64_t sm = e0 + e1;
    uint64_t inc = sm;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const uint64_t u = __shfl_up_sync(FULL, inc, o);
        if (lane >= o) inc += u;
    }
    const uint64_t total = __shfl_sync(FULL, inc, 31);
    if (!dry) ms_cu_stamp_f(15);
    if (total == 0) {
        if (lane == 0 && !dry) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        return;
    }
    const uint64_t target = ms__draw_target(dbits, total);
    const uint64_t P0 = inc - sm, P1 = P0 + e0;
    const bool hit0 = e0 > 0 && P0 <= target && target - P0 < e0;
    const bool hit1 = e1 > 0 && P1 <= target && target - P1 < e1;
    const unsigned bal = __ballot_sync(FULL, hit0 || hit1);
    if (!dry && bal != 0u && lane == __ffs(bal) - 1) ms_cu_out(a, r, hit0 ? i0 : i1, MS_ROW_OK);
}
#endif
#ifdef MS_CU_K4_FUSE
template <bool WP = false, bool FU = false> /* WP: round 21C's grouped warm-up may run in this instantiation (MS_CU_PW); FU: round 29C */
#else
template <bool WP = false> /* WP: round 21C's grouped warm-up may run in this instantiation (MS_CU_PW) */
#endif
__device__ void ms_cu_k4_fin_blk(const ms_cu_args &a, int32_t r, const ms_cu_row &c, const ms_cu_filt &f,
                                 const unsigned long long *cand, int32_t n, uint64_t m0, unsigned long long *sh,
                                 uint64_t dbits, bool dry = false /* dry: round 16B's warm-up, no output */
#ifdef MS_CU_K4_FUSE
                                 , bool ft = false /* round 29C: T already written (above) */
#endif
#ifdef MS_CU_K4W_FT
                                 , bool wt = false /* round 36B: T already written by ms_cu_k4w's list (WP only) */
#endif
                                 ) {
    const unsigned FULL = 0xffffffffu;
#if defined(MS_CU_K4_PWARM) && defined(MS_CU_K4_WARM)
    /* round 21C: pw, this warp runs only its phase rg (0..3: A..D, warps 4-5, 6-13, 14, 15), on its own copy, with
     * t counted from its group's first thread; never a block barrier */
    const bool pw = WP && dry;
    const int pwarp = (int)(threadIdx.x >> 5);
    const int rg = pwarp < 6 ? 0 : pwarp < 14 ? 1 : pwarp < 15 ? 2 : 3;
    const int t = (int)threadIdx.x - (pw ? (rg == 0 ? 128 : rg == 1 ? 192 : rg == 2 ? 448 : 480) : 0), lane = t & 31;
    if (pw) {
        sh += MS_CU_PW_AREA * (rg + 1);
        cand = sh + MS_CU_PW_LIST;
    }
#else
    constexpr bool pw = false;
    constexpr int rg = 0;
    const int t = threadIdx.x, lane = t & 31;
#endif
    ms_cu_pe *T = (ms_cu_pe *)sh;
    unsigned long long *Ash = sh + 2 * MS_CU_WARP_N;
    int32_t *Csh = (int32_t *)(sh + 3 * MS_CU_WARP_N);
    __shared__ unsigned long long fin_tgt;
    __shared__ int fin_go;
#ifdef MS_CU_K4_IDSCAN
    if constexpr (MS_CU_IDS3(WP)) { /* round 35C's =3 / =4 (above MS_CU_IDS3): one block barrier */
        unsigned long long *Qsh = sh + 2 * MS_CU_WARP_N; /* Ash's words: each entry's mass */
        unsigned long long *Ksh = sh, *Psh = sh + MS_CU_WARP_N; /* T's words: masses by key position, the masses above */
        const int i = t >> 3, s = t & 7;
        if (!pw || rg == 1) {
            const unsigned long long ei = i < n ? cand[i] : 0;
            const uint32_t ki = (uint32_t)(ei >> 32);
            const int32_t ii = (int32_t)(uint32_t)ei;
            uint32_t w = 0;
#pragma unroll 4
            for (int32_t j = s; j < n; j += 8) {
                const unsigned long long e = cand[j];
                const uint32_t kj = (uint32_t)(e >> 32);
                const bool lt = (int32_t)(uint32_t)e < ii;
                w += (uint32_t)(kj > ki) + ((uint32_t)(kj == ki && lt) << 8) + ((uint32_t)lt << 16);
            }
            uint64_t qi = 0;
            if (s == 0 && i < n) qi = ms_cu_from_y(c, ms_cu_unkey(ki), ii).q;
#pragma unroll
            for (int o = 1; o < 8; o <<= 1) w += __shfl_xor_sync(FULL, w, o);
            if (s == 0 && i < n) {
                Csh[i] = (int32_t)w;
                Qsh[i] = qi;
            }
        }
        if (!pw) __syncthreads();
        if (!dry) ms_cu_stamp_f(13);
        if ((!pw || rg == 2) && t < 32) {
            int32_t id[2], cn[2], rk[2], pk[2];
            uint64_t q[2], Ab[2];
            bool v[2], kp[2];
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int x = lane + 32 * h;
                v[h] = x < n;
                id[h] = v[h] ? (int32_t)(uint32_t)cand[x] : 0;
                const uint32_t wv = v[h] ? (uint32_t)Csh[x] : 0u;
                cn[h] = (int32_t)(wv & 0xffu);
                pk[h] = cn[h] + (int32_t)((wv >> 8) & 0xffu);
                rk[h] = (int32_t)(wv >> 16);
                q[h] = v[h] ? Qsh[x] : 0;
                kp[h] = v[h];
                if (v[h]) Ksh[pk[h]] = q[h];
            }
            __syncwarp();
            const int x0 = 2 * lane;
            const uint64_t k0 = x0 < n ? Ksh[x0] : 0, k1 = x0 + 1 < n ? Ksh[x0 + 1] : 0;
            uint64_t inc = k0 + k1;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const uint64_t u = __shfl_up_sync(FULL, inc, o);
                if (lane >= o) inc += u;
            }
            const uint64_t ex = inc - (k0 + k1);
            Psh[x0] = ex;
            Psh[x0 + 1] = ex + k0;
            __syncwarp();
#pragma unroll
            for (int h = 0; h < 2; h++) Ab[h] = v[h] ? Psh[cn[h]] : 0;
            ms_cu_k4_ids_draw(a, r, c, f, n, m0, sh, dbits, dry, lane, v, id, q, cn, Ab, kp, rk);
        }
        return;
    }
#endif
#ifdef MS_CU_K4_FUSE
    if (!(FU && ft)) { /* round 29C: else T is written (the list's or the trim's barrier ordered it) */
#endif
#ifdef MS_CU_K4W_FT
    if (!(WP && wt)) { /* round 36B: else ms_cu_k4w's list wrote T[0..n) before the list's barrier */
#endif
    if ((!pw || rg == 0) && t < n) {
        const unsigned long long e = cand[t];
        ms_cu_pe p;
        p.key = (uint32_t)(e >> 32);
        p.id = (int32_t)(uint32_t)e;
        p.q = ms_cu_from_y(c, ms_cu_unkey(p.key), p.id).q;
        T[t] = p;
    }
    if (!pw) __syncthreads();
#ifdef MS_CU_K4W_FT
    }
#endif
#ifdef MS_CU_K4_FUSE
    }
#endif
    if (!dry) ms_cu_stamp(23);
    /* pass 1: candidate i = t / 8 counts entries s, s + 8, ... with a strictly greater key */
    const int i = t >> 3, s = t & 7;
#ifdef MS_CU_K4W_P1T
    /* Round 37B (-DMS_CU_K4W_P1T, off; ms_cu_k4w alone: WP with round 35C's id rank): pass 1 transposed. Thread t takes
     * candidate ti = t % 64 and entries ts, ts + 8, ... (ts = t / 64: the same in a whole warp, so every lane of a warp
     * reads the same entry T[j], one broadcast address, where the default's warp reads 8 entries of 16 bytes in each
     * LDS.128); its partial count and mass go to P[ts][ti] (the dynamic shared memory past the finish's scratch: round
     * 21C's dry copies' room, unused in the real pass) and warp 0 adds the 8 partials of its two candidates after the
     * barrier (ms_cu_k4w's finish, below). Exact: the same integer terms, summed in another grouping (counts below 2^16
     * a field, masses mod 2^64 as the default's). The dry pass's phase-B group (256 threads: ts 0..3) writes ts 0's
     * partial to its own copy's Csh / Ash, as the default's group does. Exact (10 CUDA tests); measured slower: fp32
     * V=151936 B=1 flat +0.14 us, peaked +0.08, V=262144 +0.17 / +0.13, bf16 +0.26 / +0.13: off. docs/cuda.md, "Round 37B". */
    static_assert(MS_CU_CAND + MS_CU_WARP_N * 4 + 1 <= MS_CU_CAND + 512 && MS_CU_CAND + 1280 <= MS_CU_K4_DYN / 8,
                  "round 37B's partials past the finish's scratch, inside K4's shared memory");
    if constexpr (WP && MS_CU_IDS(WP)) {
      if (!pw || rg == 1) {
        const int ti = t & (MS_CU_WARP_N - 1), ts = t >> 6;
        const uint32_t ki = ti < n ? T[ti].key : 0;
        const int32_t ii = ti < n ? T[ti].id : 0;
        int32_t cnt = 0;
        unsigned long long A = 0;
#pragma unroll 4
        for (int32_t j = ts; j < n; j += 8) {
            const ms_cu_pe e = T[j];
            const bool gt = e.key > ki;
            cnt += (int32_t)gt + ((int32_t)(e.id < ii) << 16);
            A += gt ? e.q : 0;
        }
        if (ti < n) {
            if (!pw) {
                (sh + 512)[ts * MS_CU_WARP_N + ti] = A;
                ((int32_t *)(sh + 1024))[ts * MS_CU_WARP_N + ti] = cnt;
            } else if (ts == 0) {
                Csh[ti] = cnt;
                Ash[ti] = A;
            }
        }
      }
    } else
#endif
    if (!pw || rg == 1) {
    const uint32_t ki = i < n ? T[i].key : 0;
    int32_t cnt = 0;
    unsigned long long A = 0;
    const int32_t ii = MS_CU_IDS(WP) && i < n ? T[i].id : 0; /* round 35C: for the id rank (bits 16..) */
#pragma unroll 4
    for (int32_t j = s; j < n; j += 8) {
        const ms_cu_pe e = T[j];
        const bool gt = e.key > ki;
        if constexpr (MS_CU_IDS(WP))
            cnt += (int32_t)gt + ((int32_t)(e.id < ii) << 16);
        else
            cnt += gt;
        A += gt ? e.q : 0;
    }
#pragma unroll
    for (int o = 1; o < 8; o <<= 1) {
        cnt += __shfl_xor_sync(FULL, cnt, o);
        A += __shfl_xor_sync(FULL, A, o);
    }
    if (s == 0 && i < n) {
        Csh[i] = cnt;
        Ash[i] = A;
    }
    } /* round 21C: phase B */
    if (!pw) __syncthreads();
    if (!dry) ms_cu_stamp_f(13);
#ifdef MS_CU_K4_FUSE
    if (FU) { /* round 29C: every warp decides (above); never with round 21C's pass (WP false where FU) */
        static_assert(!(FU && WP), "round 29C's finish is not the grouped warm-up's");
        int32_t id[2], cn[2];
        uint64_t q[2], Ab[2];
        bool v[2], kp[2], sp[2];
        ms_cu_k4_fin_ld(T, Csh, Ash, n, lane, v, id, q, cn, Ab, kp);
        ms_cu_k4_filter(c, f, m0, q, cn, Ab, kp);
        if (!dry) ms_cu_stamp_f(14);
        bool floor_on;
        const uint64_t total = ms_cu_k4_floor(c, id, q, kp, sp, floor_on);
        /* the kept set (eq > 0 or a kept zero mass: the same sums), entries 0..31 and 32..63 */
        const unsigned long long kmask =
            (unsigned long long)__ballot_sync(FULL, kp[0] && !(floor_on && sp[0])) |
            ((unsigned long long)__ballot_sync(FULL, kp[1] && !(floor_on && sp[1])) << 32);
        if (!dry) ms_cu_stamp_f(15);
        if (total == 0) {
            if (t == 0 && !dry) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
            return;
        }
        const uint64_t target = ms__draw_target(dbits, total);
        const int32_t idi = i < n ? T[i].id : 0;
        unsigned long long P = 0;
#pragma unroll 4
        for (int32_t j = s; j < n; j += 8) {
            const ms_cu_pe e = T[j];
            P += (e.id < idi && ((kmask >> j) & 1ull)) ? e.q : 0;
        }
#pragma unroll
        for (int o = 1; o < 8; o <<= 1) P += __shfl_xor_sync(FULL, P, o);
        if (s == 0 && i < n) {
            const uint64_t qi = ((kmask >> i) & 1ull) ? T[i].q : 0;
            if (qi > 0 && P <= target && target - P < qi && !dry) ms_cu_out(a, r, idi, MS_ROW_OK);
        }
        return;
    }
#endif
#ifdef MS_CU_K4_IDSCAN
    if constexpr (MS_CU_IDS(WP)) { /* round 35C (above): warp 0 decides and draws; the other warps are done */
        if ((!pw || rg == 2) && t < 32) {
            int32_t id[2], cn[2], rk[2];
            uint64_t q[2], Ab[2];
            bool v[2], kp[2];
            ms_cu_k4_fin_ld(T, Csh, Ash, n, lane, v, id, q, cn, Ab, kp);
#ifdef MS_CU_K4W_P1T
            if constexpr (WP) { /* round 37B: the 8 partials of candidates lane and lane + 32 (above) */
                if (!pw) {
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const int x = lane + 32 * h;
                        int32_t cs = 0;
                        unsigned long long as = 0;
                        if (v[h]) {
#pragma unroll
                            for (int u = 0; u < 8; u++) {
                                cs += ((const int32_t *)(sh + 1024))[u * MS_CU_WARP_N + x];
                                as += (sh + 512)[u * MS_CU_WARP_N + x];
                            }
                        }
                        cn[h] = cs;
                        Ab[h] = as;
                    }
                }
            }
#endif
#pragma unroll
            for (int h = 0; h < 2; h++) {
                rk[h] = cn[h] >> 16;
                cn[h] &= 0xffff;
            }
            ms_cu_k4_ids_draw(a, r, c, f, n, m0, sh, dbits, dry, lane, v, id, q, cn, Ab, kp, rk);
        }
        return;
    }
#endif
    if ((!pw || rg == 2) && t < 32) { /* the filters and the floor, as ms_cu_k4_warp2 */
        int32_t id[2], cn[2];
        uint64_t q[2], Ab[2];
        bool v[2], kp[2], sp[2];
        ms_cu_k4_fin_ld(T, Csh, Ash, n, lane, v, id, q, cn, Ab, kp);
        ms_cu_k4_filter(c, f, m0, q, cn, Ab, kp);
        if (!dry) ms_cu_stamp_f(14);
        /* 5. the floor: stop ids lose their mass unless nothing would be left */
        bool floor_on;
        const uint64_t total = ms_cu_k4_floor(c, id, q, kp, sp, floor_on);
        for (int h = 0; h < 2; h++)
            if (v[h]) T[lane + 32 * h].q = (kp[h] && !(floor_on && sp[h])) ? q[h] : 0;
        /* round 21C's dry groups leave the two shared words alone: phase D's group reads them with no barrier between
         * the groups (racecheck: 32 hazards in the sixteenth session's final call, MK); pw is false outside that pass */
        if (lane == 0 && !pw) {
            fin_go = total != 0;
            if (total != 0) fin_tgt = ms__draw_target(dbits, total);
            else if (!dry) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        }
    }
    if (!pw) __syncthreads();
    if (!dry) ms_cu_stamp_f(15);
    if (pw && rg != 3) return; /* round 21C: phase D's group only; it reads neither word below (phase C's are its own) */
    if (!pw && !fin_go) return;
    const uint64_t target = pw ? 0ull : fin_tgt;
    /* pass 2: the drawn mass of the smaller ids, 8 threads a candidate */
    const int32_t idi = i < n ? T[i].id : 0;
    unsigned long long P = 0;
#pragma unroll 4
    for (int32_t j = s; j < n; j += 8) {
        const ms_cu_pe e = T[j];
        P += e.id < idi ? e.q : 0;
    }
#pragma unroll
    for (int o = 1; o < 8; o <<= 1) P += __shfl_xor_sync(FULL, P, o);
    if (s == 0 && i < n) {
        const uint64_t qi = T[i].q;
        if (qi > 0 && P <= target && target - P < qi && !dry) ms_cu_out(a, r, idi, MS_ROW_OK);
    }
}



/* K4's candidate list in shared memory (round 7: one copy for the lean path and the block path): the
 * row's n_all candidates at or above the coarse bucket `bound` and, when bmax < MS_CU_LBINS - 1, in the
 * candidate histogram's bins up to bmax (ms_cu_lbin); pre[] holds each thread's first PF loads, issued
 * by the caller before whatever it had to wait for. Whole warps: one shared atomic each. */
#ifdef MS_CU_K4_NPRE
template <int PF, bool OR = false, bool L1 = true, bool NP = false /* NP: MS_CU_NP (above ms_cu_k4_fin_blk) */
#else
template <int PF, bool OR = false, bool L1 = true /* OR: the row's candidates come from K2's one-read path (ms_cu_onread); L1: -DMS_CU_K4_LIST1 acts */
#endif
#ifdef MS_CU_K4W_FT
          , bool WT = false /* round 36B: ms_cu_k4w's list writes the finish's entries (wT) */
#endif
          >
__device__ __forceinline__ void ms_cu_k4_list(const unsigned long long *g, int32_t n_all, uint32_t bound, uint32_t bmax,
                                              const ms_cu_row &c, float lscale, const unsigned long long (&pre)[PF],
                                              unsigned long long *cand_sh, int32_t *n_sh, bool orow = false
#ifdef MS_CU_K4_NPRE
                                              , int32_t npre = PF
#endif
#ifdef MS_CU_K4_FUSE
                                              , ms_cu_pe *fT = nullptr
#endif
#ifdef MS_CU_K4W_FT
                                              , ms_cu_pe *wT = nullptr
#endif
                                              ) {
    const int lane = threadIdx.x & 31;
#ifdef MS_CU_K4W_FT
    /* Round 36B (-DMS_CU_K4W_FT, ms_cu_k4w alone: WT): a listed candidate at position pos < MS_CU_WARP_N also writes the
     * finish's entry T[pos] (key, id, mass), as ms_cu_k4_fin_blk's entries phase makes it from cand[pos]: the same
     * ms_cu_from_y of the same key and id with the same c (c.m final before the list). Exact (10 CUDA tests, round 36B's
     * N3); measured slower: fp32 B=1 flat +0.31 us, peaked +0.18, V=262144 +0.19 / +0.20, bf16 flat +0.28: off.
     * docs/cuda.md, "Round 36B". */
    const auto wput = [&](int32_t pos, unsigned long long v) {
        if constexpr (WT) {
            if (pos < MS_CU_WARP_N) {
                ms_cu_pe p;
                p.key = (uint32_t)(v >> 32);
                p.id = (int32_t)(uint32_t)v;
                p.q = ms_cu_from_y(c, ms_cu_unkey(p.key), p.id).q;
                wT[pos] = p;
            }
        }
    };
#endif
#ifdef MS_CU_K4_LIST1
    /* Round 17B (MS_CU_K4_LIST1, on with MS_CU_K4_R17_LITE since the twelfth session's final call): the PF preloaded rounds at once: every flag first (the bins' tests and,
     * one-read, min-p's, independent of each other), then one shared atomic a warp for all of them, then the
     * stores; the rounds past PF as before. The same entries, in another order (nothing after depends on it). */
    if (L1) {
        bool inu[PF];
        unsigned balu[PF];
        int32_t tot = 0;
#pragma unroll
        for (int u = 0; u < PF; u++) {
            const int32_t i = u * (int32_t)blockDim.x + (int32_t)threadIdx.x;
            const unsigned long long v = pre[u];
            bool in = i < n_all && (uint32_t)(v >> (32 + 32 - MS_CU_HBITS)) >= bound &&
                      (bmax == MS_CU_LBINS - 1 || ms_cu_lbin(c, lscale, (uint32_t)(v >> 32)) <= bmax);
#ifdef MS_CU_ONEREAD
            if (OR && orow && in) in = ms_cu_from_y(c, ms_cu_unkey((uint32_t)(v >> 32)), (int32_t)(uint32_t)v).s0;
#endif
            inu[u] = in;
            balu[u] = __ballot_sync(0xffffffffu, in);
            tot += __popc(balu[u]);
        }
        int32_t base = 0;
        if (lane == 0 && tot) base = atomicAdd(n_sh, tot);
        base = __shfl_sync(0xffffffffu, base, 0);
#pragma unroll
        for (int u = 0; u < PF; u++) {
#ifdef MS_CU_K4W_FT
            if (inu[u]) {
                const int32_t pos = base + __popc(balu[u] & ((1u << lane) - 1));
                cand_sh[pos] = pre[u];
                wput(pos, pre[u]);
            }
#else
            if (inu[u]) cand_sh[base + __popc(balu[u] & ((1u << lane) - 1))] = pre[u];
#endif
            base += __popc(balu[u]);
        }
    }
    for (int32_t i0 = L1 ? PF * (int32_t)blockDim.x : 0, j = L1 ? PF : 0; i0 < n_all; i0 += blockDim.x, j++) {
#else
    for (int32_t i0 = 0, j = 0; i0 < n_all; i0 += blockDim.x, j++) {
#endif
        const int32_t i = i0 + threadIdx.x;
        unsigned long long v = 0;
#pragma unroll
        for (int u = 0; u < PF; u++)
            if (j == u) v = pre[u];
#ifdef MS_CU_K4_NPRE
        if constexpr (NP) {
            if (j >= npre && i < n_all) v = g[i]; /* round 29C / 30C: npre (<= PF) speculative loads were issued */
        } else {
            if (j >= PF && i < n_all) v = g[i];
        }
#else
        if (j >= PF && i < n_all) v = g[i];
#endif
#ifdef MS_CU_K4_FUSE
        uint64_t fq = 0;
#endif
        bool in = i < n_all && (uint32_t)(v >> (32 + 32 - MS_CU_HBITS)) >= bound &&
                  (bmax == MS_CU_LBINS - 1 || ms_cu_lbin(c, lscale, (uint32_t)(v >> 32)) <= bmax);
#ifdef MS_CU_ONEREAD
        /* round 13: K2 listed its chunk's top k' of C (min-p from the chunk's max): min-p's exact test from
         * the true m keeps those of S0 (ms_cu_from_y, as every other path decides it) */
#  ifdef MS_CU_K4_FUSE
        if (OR && orow && in) { /* round 29C: the same call; its mass kept for the finish's entry */
            const ms_cu_elem e = ms_cu_from_y(c, ms_cu_unkey((uint32_t)(v >> 32)), (int32_t)(uint32_t)v);
            in = e.s0;
            fq = e.q;
        }
#  else
        if (OR && orow && in) in = ms_cu_from_y(c, ms_cu_unkey((uint32_t)(v >> 32)), (int32_t)(uint32_t)v).s0;
#  endif
#endif
        const unsigned bal = __ballot_sync(0xffffffffu, in);
        int32_t base = 0;
        if (lane == 0 && bal) base = atomicAdd(n_sh, __popc(bal));
        base = __shfl_sync(0xffffffffu, base, 0);
#ifdef MS_CU_K4_FUSE
        if (in) {
            const int32_t pos = base + __popc(bal & ((1u << lane) - 1));
            cand_sh[pos] = v;
            if (OR && orow && fT != nullptr && pos < MS_CU_WARP_N) { /* round 29C: the finish's entry, as ms_cu_k4_fin_blk makes it */
                ms_cu_pe p;
                p.key = (uint32_t)(v >> 32);
                p.id = (int32_t)(uint32_t)v;
                p.q = fq;
                fT[pos] = p;
            }
        }
#elif defined(MS_CU_K4W_FT)
        if (in) {
            const int32_t pos = base + __popc(bal & ((1u << lane) - 1));
            cand_sh[pos] = v;
            wput(pos, v);
        }
#else
        if (in) cand_sh[base + __popc(bal & ((1u << lane) - 1))] = v;
#endif
    }
}

/* Round 17E (MS_CU_K4_TSEL_OR, on since the thirteenth session): round 17B's early-ending select (MS_CU_K4_TSEL) acts in ms_cu_k4<true>, the
 * one-read steps' kernel, too (MS_CU_K4_R17_LITE keeps it, with 17B's other switches, to ms_cu_k4<false>).
 * Round 17E (-DMS_CU_K4_RANKTRIM, off): in ms_cu_k4<true> a list of n <= blockDim.x entries is trimmed by counting
 * (ms_cu_k4_trim), without the radix descent. */
#if defined(MS_CU_K4_TSEL_OR) && defined(MS_CU_K4_TSEL)
#  define MS_CU_TSEL(OR) (MS_CU_R17(OR) || (OR))
#else
#  define MS_CU_TSEL(OR) MS_CU_R17(OR)
#endif
#ifdef MS_CU_K4_RANKTRIM
#  define MS_CU_RANK(OR) (OR)
#else
#  define MS_CU_RANK(OR) false
#endif

/* The block's trim of the n listed candidates to their top kk (ties kept: key >= the kk-th key), in
 * place; the scratch after the list (k4_cand's, free until then). Returns the new count. */
template <int ST = 0, bool EARLY = MS_CU_KTH_EARLY, bool RANK = false, int CAP = MS_CU_CAND> /* ST: round 17B's stamps (19..22); EARLY: -DMS_CU_K4_TSEL acts; RANK: -DMS_CU_K4_RANKTRIM acts; CAP: the list's room (round 20B's K4L: its scratch follows it) */
__device__ __forceinline__ int32_t ms_cu_k4_trim(unsigned long long *cand_sh, int32_t n, int32_t kk, ms_cu_k4sh &S) {
    __shared__ uint32_t res[EARLY ? 4 : 2];
    __shared__ int32_t n2;
    if (RANK && n <= (int32_t)blockDim.x) {
        /* Round 17E: thread t takes entry t and counts the entries whose key is strictly greater than its own;
         * it keeps its entry iff that count is below kk. That is exactly the radix path's set {key >= kth}, kth
         * the kk-th largest key (ties counted: fewer than kk keys above kth, at least kk at or above it):
         * if key_t >= kth, every key above key_t is above kth, so fewer than kk of them: kept; if key_t < kth,
         * every key >= kth (at least kk of them) is above key_t: dropped. The count loop reads the same shared
         * word in every lane at once (a broadcast: no bank conflicts), two entries a 16-byte load; warps past
         * the list skip it. The kept entries are then written back in place (after a barrier: every thread
         * holds its entry in registers), one shared atomic a warp; their order does not matter to what follows
         * (the radix path's compaction orders them by its atomics too). Nothing after the trim uses the
         * k'-th key. */
        const int lane = threadIdx.x & 31;
        const int32_t t = (int32_t)threadIdx.x;
        const unsigned long long v = t < n ? cand_sh[t] : 0ull;
        const uint32_t key = (uint32_t)(v >> 32);
        uint32_t gt = 0;
        if (threadIdx.x == 0) n2 = 0;
        if ((t & ~31) < n) { /* warp-uniform */
            int32_t j0 = 0;
            if (reinterpret_cast<uintptr_t>(cand_sh) & 15) { /* 16-byte loads from a 16-byte boundary */
                gt += (uint32_t)(cand_sh[0] >> 32) > key;
                j0 = 1;
            }
            const ulonglong2 *p = reinterpret_cast<const ulonglong2 *>(cand_sh + j0);
            const int32_t np = (n - j0) >> 1;
#pragma unroll 8
            for (int32_t q = 0; q < np; q++) {
                const ulonglong2 w = p[q];
                gt += (uint32_t)(w.x >> 32) > key;
                gt += (uint32_t)(w.y >> 32) > key;
            }
            if (j0 + 2 * np < n) gt += (uint32_t)(cand_sh[n - 1] >> 32) > key;
        }
        __syncthreads(); /* every count done (cand_sh read), n2 zeroed */
        if (ST) ms_cu_stamp(21);
        const bool keep = t < n && gt < (uint32_t)kk;
        const unsigned bal = __ballot_sync(0xffffffffu, keep);
        int32_t base = 0;
        if (lane == 0 && bal) base = atomicAdd(&n2, __popc(bal));
        base = __shfl_sync(0xffffffffu, base, 0);
        if (keep) cand_sh[base + __popc(bal & ((1u << lane) - 1))] = v;
        __syncthreads();
        n = n2;
        __syncthreads(); /* every thread has read n2 before a later trim zeroes it */
        if (ST) ms_cu_stamp(22);
        return n;
    }
    ms_cu_keys_sh ks;
    ks.v = cand_sh;
    ks.n = (uint32_t)n;
    const uint32_t kth = ms_cu_kth_key<ms_cu_keys_sh, ST, EARLY>(ks, (uint32_t)kk, S.cnt, res);
    unsigned long long *tmp = cand_sh + CAP;
    if (threadIdx.x == 0) n2 = 0;
    __syncthreads();
    for (int32_t i = threadIdx.x; i < n; i += blockDim.x) {
        const unsigned long long v = cand_sh[i];
        if ((uint32_t)(v >> 32) >= kth) tmp[atomicAdd(&n2, 1)] = v;
    }
    __syncthreads();
    n = n2;
    for (int32_t i = threadIdx.x; i < n; i += blockDim.x) cand_sh[i] = tmp[i];
    __syncthreads();
    if (ST) ms_cu_stamp(22);
    return n;
}

#ifdef MS_CU_K4_RTRIM
/* Round 21B (MS_CU_K4_RTRIM, on since its round; -DMS_CU_NO_K4_RTRIM: without): the one-read kernels' trim (ms_cu_k4<true>, K4L, K4R) in one level, to at most
 * MS_CU_WARP_N entries instead of exactly the top kk. The finish (ms_cu_k4_fin_blk) takes any list of at most 64 that
 * is an upper set of the listed candidates holding their top kk: it gives each entry its count and mass of strictly
 * greater keys inside the list and top-k keeps those with a count below kk (the default order; the lean path already
 * skips the trim for such lists of at most 64). Why that is exact: a listed entry z of the row's top kk has every
 * token of S0 above it in the row's top kk, all listed and all kept here (kept is an upper set), so its count and mass
 * are the row's; a listed z outside the top kk has at least kk listed entries strictly above it (every token above it
 * is listed, or some chunk listed kk tokens above it: each chunk lists an upper set of its own S0), all kept, so top-k
 * drops it, as after the exact trim. How: each thread t holds entries t and t + blockDim.x in registers (n <= 2 x
 * blockDim.x), counts each in a bin of the candidate histogram's function ms_cu_lbin (non-increasing in the key, from
 * the row's m and min-p's range: 256 bins over [m + ln min_p, m]) in S.cnt, zeroed by the caller before the list's
 * barrier; after one barrier every warp finds by itself (no barrier) the first bin b* where the running count from
 * bin 0 (the largest keys) reaches kk, and that count; if it is at most MS_CU_WARP_N the entries in bins <= b* (an
 * upper set: ties share a bin) are written back in place (one shared atomic a warp; every thread read its entries
 * before the barrier) and the new count read after a second barrier: 2 barriers against the radix select's 12 (min /
 * max 3, one level and the early select 6, the compaction 3) and no serial pass of warp 0. Otherwise (a crowded bin)
 * it returns -1 and the caller runs ms_cu_k4_trim as before (S.cnt is then rezeroed after that one's first barrier).
 * Only rows of the default order with top-k (f.k == kk), a finite m, more than 64 listed and at most 2 x blockDim.x. */
__device__ __forceinline__ int32_t ms_cu_k4_rtrim(unsigned long long *cand_sh, int32_t n, int32_t kk, const ms_cu_row &c,
                                                  float lscale, ms_cu_k4sh &S
#ifdef MS_CU_K4_FUSE
                                                  , ms_cu_pe *fT = nullptr /* round 29C: the finish's entries too */
#endif
                                                  ) {
    __shared__ int32_t rt_n;
    const unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    unsigned long long v[2];
    uint32_t b[2];
#pragma unroll
    for (int u = 0; u < 2; u++) {
        const int32_t i = (int32_t)threadIdx.x + u * (int32_t)blockDim.x;
        v[u] = i < n ? cand_sh[i] : 0ull;
        b[u] = i < n ? ms_cu_lbin(c, lscale, (uint32_t)(v[u] >> 32)) : (uint32_t)MS_CU_LBINS;
        if (i < n) atomicAdd(&S.cnt[b[u]], 1u);
    }
    if (threadIdx.x == 0) rt_n = 0;
    __syncthreads(); /* the histogram complete; every entry in registers */
    ms_cu_stamp(34);
    uint32_t hb[8];
#pragma unroll
    for (int j = 0; j < 8; j++) hb[j] = S.cnt[8 * lane + j];
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) sum += hb[j];
    uint32_t inc = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const uint32_t y = __shfl_up_sync(FULL, inc, o);
        if (lane >= o) inc += y;
    }
    uint32_t run = inc - sum, mine = 0, mcnt = 0;
    bool found = false;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        const uint32_t nx = run + hb[j];
        if (!found && run < (uint32_t)kk && nx >= (uint32_t)kk) {
            mine = 8 * lane + j;
            mcnt = nx;
            found = true;
        }
        run = nx;
    }
    const unsigned bal = __ballot_sync(FULL, found); /* exactly one lane: the counts total n > kk */
    const int src = __ffs(bal) - 1;
    const uint32_t bstar = __shfl_sync(FULL, mine, src);
    const uint32_t cnt = __shfl_sync(FULL, mcnt, src);
    if (cnt > (uint32_t)MS_CU_WARP_N) return -1; /* the same verdict in every warp (the same counts) */
#pragma unroll
    for (int u = 0; u < 2; u++) {
        const bool keep = b[u] <= bstar; /* false past n: bin MS_CU_LBINS */
        const unsigned kb = __ballot_sync(FULL, keep);
        int32_t base = 0;
        if (lane == 0 && kb) base = atomicAdd(&rt_n, __popc(kb));
        base = __shfl_sync(FULL, base, 0);
#ifdef MS_CU_K4_FUSE
        if (keep) {
            const int32_t pos = base + __popc(kb & ((1u << lane) - 1)); /* < cnt <= MS_CU_WARP_N */
            cand_sh[pos] = v[u];
            if (fT != nullptr) { /* round 29C: the finish's entry, as ms_cu_k4_fin_blk makes it (c.m final here) */
                ms_cu_pe p;
                p.key = (uint32_t)(v[u] >> 32);
                p.id = (int32_t)(uint32_t)v[u];
                p.q = ms_cu_from_y(c, ms_cu_unkey(p.key), p.id).q;
                fT[pos] = p;
            }
        }
#else
        if (keep) cand_sh[base + __popc(kb & ((1u << lane) - 1))] = v[u];
#endif
    }
    __syncthreads();
    ms_cu_stamp(35);
    return rt_n; /* cnt: nothing writes rt_n again in this block */
}
#endif

/* The first bin where the running count of the candidate histogram reaches kk (ms_cu_lbin), found by
 * each warp alone from the 8 bins per lane hb[] (bins 8 lane .. 8 lane + 7); MS_CU_LBINS - 1 when none. */
__device__ __forceinline__ uint32_t ms_cu_lbin_bmax(const uint32_t (&hb)[8], int32_t kk) {
    const unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    static_assert(MS_CU_LBINS == 8 * 32, "8 bins a lane");
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) sum += hb[j];
    uint32_t inc = sum;
    for (int o = 1; o < 32; o <<= 1) {
        const uint32_t t = __shfl_up_sync(FULL, inc, o);
        if (lane >= o) inc += t;
    }
    uint32_t run = inc - sum, mine = MS_CU_LBINS - 1;
    bool found = false;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        const uint32_t nx = run + hb[j];
        if (!found && nx >= (uint32_t)kk && run < (uint32_t)kk) {
            mine = 8 * lane + j;
            found = true;
        }
        run = nx;
    }
    const unsigned bal = __ballot_sync(FULL, found);
    return bal ? __shfl_sync(FULL, mine, __ffs(bal) - 1) : (uint32_t)(MS_CU_LBINS - 1);
}

/* Round 16B: the candidates K4's lean path loads per thread right after its PDL wait, before it knows cand_n
 * (speculative; 4 since round 6: 2048 of a row's candidates; B=1 flat rows list ~1600-2500, so a fifth round
 * of loads waited a whole L2 round trip inside the list; -DMS_CU_K4_PF=6 covers 3072: measured, no effect). */
#ifndef MS_CU_K4_PF
#  define MS_CU_K4_PF 4
#endif
#ifdef MS_CU_K4_WARM
/* Round 16B: the fake row of K4's warm-up pass (set once by ms__cuda_init, read only): row max 0.0 (key
 * 0x80000000), 64 candidates of that key with ids 0..63 (the rest of the MS_CU_K4_PF x MS_CU_T4 the
 * speculative loads may touch: zero), all counted in bin 0, m0 = 64 * 2^40. */
__device__ __align__(16) ms_cu_rowstat ms_cu_warm_st; /* 16-byte aligned: round 17B's MS_CU_K4_EARLYLD loads */
__device__ unsigned long long ms_cu_warm_cand[MS_CU_K4_PF * MS_CU_T4];
__device__ __align__(16) uint32_t ms_cu_warm_h[MS_CU_LBINS];
#endif
/* The 8 candidate-histogram bins lane `lane` of K4's lean path reads (bins 8 lane .. 8 lane + 7): the row's, or
 * in round 16B's warm-up pass (dry) the fake row's. */
__device__ __forceinline__ const uint32_t *ms_cu_k4_hrow(const ms_cu_args &a, int32_t r, int lane, bool dry) {
#ifdef MS_CU_K4_WARM
    return (dry ? ms_cu_warm_h : a.hcnt + (size_t)r * MS_CU_HB) + 8 * lane;
#else
    (void)dry;
    return a.hcnt + (size_t)r * MS_CU_HB + 8 * lane;
#endif
}
/* Round 6: K4 for the usual lite row without the whole-row setup. A first version (one warp loading the
 * candidates while the others waited) was exact but slower on flat rows (B=1 26.1 -> 33.7 us: ~1600
 * candidates loaded by one warp) and faster on peaked ones (B=64 49.2 -> 44.9): what K4 costs at small B is
 * its setup (the settings struct copied by every warp, the window filter's code, two logf) and the chain
 * of barriers after the PDL wait, not the candidate count. So: every thread reads only the fields a lite
 * row needs (ms_cu_k4_lean; independent loads, no struct copy, no window filter: the candidate path never
 * reads the logits), and after the wait (ms_cu_k4_lite) issues the stats', the bins' and its first four
 * candidates' loads together (speculative: the row's MS_CU_CAND entries are allocated whatever cand_n is;
 * entries past cand_n are never used), each warp scans the 256 bins by itself (no barrier), the block
 * compacts the candidates in the bins up to the k'-th's (one shared atomic per warp and step) and, after
 * one barrier, goes on exactly as the block path: the trim when it would trim, one warp for <= 64, else
 * the block. Every decision is computed by the same functions from the same values as there; the list
 * may be in another order, which no later step depends on (they rank by (key, id); the block path's own
 * order depends on its atomics). On by default since round 7 (round 5's path, -DMS_CU_NO_K4_LEAN, went in round
 * 11's prune): run on the
 * H200 (scripts/gpu_run.sh r6, f4a63fc) it passed all eight CUDA tests, memcheck and racecheck, and was
 * faster everywhere (full setting V=151936 flat B=1 26.1 -> 25.0 us, B=64 61.6 -> 57.7; peaked B=64 48.7
 * -> 42.7; K4 alone at flat B=1 18.0 -> 11.2 us under ncu). */
__device__ __forceinline__ bool ms_cu_k4_lean(const ms_cu_args &a, int32_t r, ms_cu_row &c, ms_cu_filt &f,
                                              int32_t &kk) {
    const int32_t s = a.row_slot[r];
    if (s < 0 || s >= a.capacity) return false;
    const ms_cu_slot *sp = a.slots + s;
    const int32_t used = sp->used;
    c.sl.temperature = sp->temperature;
    c.sl.top_p = sp->top_p;
    c.sl.min_p = sp->min_p;
    c.sl.top_k = sp->top_k;
    c.sl.min_tokens = sp->min_tokens;
    c.sl.min_keep = sp->min_keep;
    c.sl.top_p_first = sp->top_p_first;
    c.sl.seed = sp->seed;
    c.sl.n = sp->n;
#ifdef MS_CU_ONEREAD
    c.sl.rep = sp->rep; /* ms_cu_onread's window test */
    c.sl.window = sp->window;
#endif
    if (!used || c.sl.temperature < MS_GREEDY_TEMPERATURE) return false;
    c.V = a.V;
    c.filters = a.apply_filters;
    c.minp_on = a.apply_filters && c.sl.min_p > 0.0f;
    c.stop = a.stop;
    c.floor = a.stop != NULL && c.sl.n < (uint64_t)c.sl.min_tokens;
    f = ms_cu_filters(c);
    kk = ms_cu_lite_k(c, f);
    return kk > 0;
}

#ifdef MS_CU_K4W_BSH
/* Round 36B: the row's 256 candidate bins in shared memory for ms_cu_k4w's warps (ms_cu_k4_lite, PW only: no other
 * kernel references it) */
__device__ __forceinline__ uint4 *ms_cu_k4w_bsh() {
    __shared__ uint4 b[MS_CU_LBINS / 4];
    return b;
}
#endif
#ifdef MS_CU_K4W_BW
#  ifdef MS_CU_K4W_BSH
#    error "-DMS_CU_K4W_BW and -DMS_CU_K4W_BSH both replace ms_cu_k4w's loads: one at a time"
#  endif
/* Round 37B (-DMS_CU_K4W_BW=2, ms_cu_k4w alone: PW): the row's bins' bound bmax, published by warp 0 in one shared word
 * (bit 31 set: valid; zeroed by thread 0 before each pass's barrier in ms_cu_k4_row) that the list's other warps poll */
__device__ __forceinline__ uint32_t *ms_cu_k4w_bw() {
    __shared__ uint32_t w;
    return &w;
}
#endif
/* After the PDL wait, by the whole block (*n_sh = 0 and a barrier before): false when the row is not
 * served here (empty, or candidates over MS_CU_CAND: the block path from the start). */
template <bool OR, int CAP = MS_CU_CAND, bool PW = false, bool LD = false> /* OR: this row's candidates come from K2's one-read path (ms_cu_onread); CAP: round 20B's K4L (below); PW: round 21C's ms_cu_k4w; LD: round 30C's K4L (MS_CU_LD1) */
__device__ __forceinline__ bool ms_cu_k4_lite(const ms_cu_args &a, int32_t r, ms_cu_row &c, const ms_cu_filt &f,
                                              int32_t kk, ms_cu_k4sh &S, unsigned long long *cand_sh,
                                              int32_t *n_sh
                                              , float lscale_pre, uint64_t dbits
                                              , bool orow, bool dry, bool cnt_all) {
    const bool oneread = OR && orow; /* a constant false in the default instantiation */
    const int lane = threadIdx.x & 31;
#ifdef MS_CU_K4_WARM /* round 16B: the warm-up pass reads the fixed fake row (ms_cu_warm_*) */
    const ms_cu_rowstat *st = dry ? &ms_cu_warm_st : &a.stats[r];
    const unsigned long long *g = dry ? ms_cu_warm_cand : a.cand + (size_t)r * MS_CU_CAND;
#else
    const ms_cu_rowstat *st = &a.stats[r];
    const unsigned long long *g = a.cand + (size_t)r * MS_CU_CAND;
#endif
    int32_t n = MS_CU_WARP_N; /* round 21C: the dry finish groups' fake list */
#ifdef MS_CU_K4W_FT
    bool wt = false; /* round 36B: T[0..n) written by the list (below) */
#endif
#ifdef MS_CU_LD1
    const bool ld1 = MS_CU_LD1(OR, LD) && oneread && !dry; /* round 29C / 30C: this row's loads in one round trip */
    uint64_t m0e = 0; /* round 29C: a one-read row's m0, loaded with its stats */
    (void)ld1;
    (void)m0e;
#endif
#ifdef MS_CU_K4_FUSE
    ms_cu_pe *const fT = reinterpret_cast<ms_cu_pe *>(cand_sh + CAP); /* the finish's entries (ms_cu_k4_fin_blk's T) */
    bool ft = false; /* T written by the list or the trim (ms_cu_k4_fin_blk) */
#endif
#if defined(MS_CU_K4_PWARM) && defined(MS_CU_K4_WARM)
    /* Round 21C (-DMS_CU_K4_PWARM): the grouped warm-up (above ms_cu_k4_fin_blk). Every thread first fills the four
     * finish groups' copies (64 entries of the fake row's key 0x80000000, ids 0..63, mass 2^40, counts and masses
     * above 0: valid ids for the floor's stop bits), one barrier; then warps 0-3 run the list below and return,
     * warps 4-15 skip to the finish. */
    const bool pw = (PW || MS_CU_PW(OR, CAP)) && dry;
    if (pw) {
        const int t = (int)threadIdx.x;
        if (t < 4 * MS_CU_WARP_N) {
            unsigned long long *ar = cand_sh + CAP + MS_CU_PW_AREA * ((t >> 6) + 1);
            const int x = t & (MS_CU_WARP_N - 1);
            ms_cu_pe p;
            p.key = 0x80000000u;
            p.id = x;
            p.q = 1ull << 40;
            ((ms_cu_pe *)ar)[x] = p;
            ar[2 * MS_CU_WARP_N + x] = 0;
#ifdef MS_CU_K4_IDSCAN
            if (MS_CU_IDS3(PW)) ar[2 * MS_CU_WARP_N + x] = 1ull << 40; /* round 35C's =3: the masses */
            /* round 35C: id rank x (ids 0..63), =3: tie count x too (one key) */
            ((int32_t *)(ar + 3 * MS_CU_WARP_N))[x] = MS_CU_IDS3(PW) ? (x << 8) | (x << 16) : MS_CU_IDS(PW) ? x << 16 : 0;
#else
            ((int32_t *)(ar + 3 * MS_CU_WARP_N))[x] = 0;
#endif
            ar[MS_CU_PW_LIST + x] = (0x80000000ull << 32) | (unsigned long long)x;
        }
        __syncthreads();
    }
    const bool fin_only = pw && threadIdx.x >= 4 * 32;
    if (!fin_only) { /* round 21C: the list (not indented again) */
#else
    constexpr bool pw = false;
#endif
    constexpr int PF = MS_CU_R17(OR) ? MS_CU_K4_PF : 4; /* round 17B: 4 in the one-read kernel with -DMS_CU_K4_R17_LITE */
    static_assert(PF * MS_CU_T4 <= MS_CU_CAND, "speculative loads inside the row's candidates");
    static_assert(PF <= MS_CU_K4_PF, "the warm-up's candidates cover the speculative loads");
    unsigned long long pre[PF];
    uint32_t mk, cand_n, bound, hb[8];
#ifdef MS_CU_K4_NPRE
    /* round 29C: a one-read row's speculative rounds (>= 1, <= PF: see the loads below), block-uniform */
    int32_t npre = PF;
#  ifdef MS_CU_LD1
    if constexpr (MS_CU_LD1(OR, LD)) {
        if (ld1) { /* G <= 528, kk <= MS_CU_CAND: 32 bits */
            const uint32_t want = ((uint32_t)a.G * (uint32_t)kk + MS_CU_T4 - 1) / MS_CU_T4;
            npre = want < 1u ? 1 : want > (uint32_t)PF ? PF : (int32_t)want;
        }
    }
#  endif
    (void)npre;
#endif
#ifdef MS_CU_OR_RFST
  /* round 33C: the stats from thread 0's wait (ms_cu_rf_wait_st: the same condition, orow is false in the dry pass); the
   * candidates as the default's speculative rounds; no bins (a one-read row never reads them: bmax stays MS_CU_LBINS - 1) */
  if (OR && oneread && !dry && a.orf) {
#pragma unroll
    for (int j = 0; j < PF; j++) pre[j] = g[threadIdx.x + j * blockDim.x];
    const uint4 sv = ms_cu_rfst_sh;
    mk = sv.x, cand_n = sv.z, bound = sv.w;
#pragma unroll
    for (int j = 0; j < 8; j++) hb[j] = 0;
  } else
#endif
#ifdef MS_CU_K4W_BSH
  /* Round 36B (-DMS_CU_K4W_BSH, off; ms_cu_k4w alone: PW): round 17B's loads, but the row's 256 bins loaded once (1 KB: threads
   * 0..63, 16 bytes each, issued right after the stats, before the candidates) instead of once a warp (16 KB, issued last,
   * behind the 24 KB of speculative candidates), and handed to the warps through shared memory (one barrier, only where the
   * bins' scan runs). Same words, same wait, same loads (ld.volatile: issued in this order before any branch). Exact (9
   * CUDA tests, round 36B's N1); measured fp32 V=151936 B=1 flat +0.10 / +0.09 us, peaked -0.10 / -0.12 (two calls): off.
   * docs/cuda.md, "Round 36B". */
  uint4 bv_ = make_uint4(0u, 0u, 0u, 0u);
  if constexpr (PW) {
    uint4 *const ms_cu_bsh = ms_cu_k4w_bsh();
    uint32_t tk_;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(mk), "=r"(tk_), "=r"(cand_n), "=r"(bound) : "l"(st));
    (void)tk_;
    if (threadIdx.x < MS_CU_LBINS / 4)
      asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(bv_.x), "=r"(bv_.y), "=r"(bv_.z), "=r"(bv_.w) : "l"(ms_cu_k4_hrow(a, r, 0, dry) + 4 * threadIdx.x));
#pragma unroll
    for (int j = 0; j < PF; j++) /* speculative: see above */
        asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(pre[j]) : "l"(g + threadIdx.x + j * blockDim.x));
    if (threadIdx.x < MS_CU_LBINS / 4) ms_cu_bsh[threadIdx.x] = bv_;
#pragma unroll
    for (int j = 0; j < 8; j++) hb[j] = 0;
  } else
#endif
#ifdef MS_CU_K4W_BW
  /* Round 37B (-DMS_CU_K4W_BW, off; ms_cu_k4w alone: PW): round 17B's loads (EARLYLD, below: the same words, ld.volatile,
   * after the same wait, issued before any branch), with the bins first. =1: every warp loads its 256 bins (16 KB a block)
   * right after the stats, before its PF speculative rounds (24 KB) instead of after them. =2: warp 0 alone loads the
   * bins (1 KB), after the stats and before its rounds; it scans them (ms_cu_lbin_bmax) and publishes bmax in one shared
   * word that the other warps poll (no block barrier: round 36B's BSH waited on a named barrier of the whole block).
   * Exact: every warp's bins are the same 256 words read after the same wait, so warp 0's scan gives the bmax each warp's
   * own scan gives; the word carries bmax itself (no other data is handed over) and is zeroed before each pass's barrier.
   * Exact (=2: 10 CUDA tests); measured fp32 V=151936 B=1 flat -0.03 us, peaked -0.08 (=1: +0.03 / +0.07), within the
   * card's drift: the list then waits for the candidates' data instead (stamps). Off. docs/cuda.md, "Round 37B". */
  if constexpr (PW) {
    const uint32_t *hrow = ms_cu_k4_hrow(a, r, lane, dry);
    uint32_t tk_;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(mk), "=r"(tk_), "=r"(cand_n), "=r"(bound) : "l"(st));
    (void)tk_;
#pragma unroll
    for (int j = 0; j < 8; j++) hb[j] = 0;
    if (MS_CU_K4W_BW == 1 || threadIdx.x < 32) {
      asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(hb[0]), "=r"(hb[1]), "=r"(hb[2]), "=r"(hb[3]) : "l"(hrow));
      asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(hb[4]), "=r"(hb[5]), "=r"(hb[6]), "=r"(hb[7]) : "l"(hrow + 4));
    }
#pragma unroll
    for (int j = 0; j < PF; j++) /* speculative: see above */
        asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(pre[j]) : "l"(g + threadIdx.x + j * blockDim.x));
  } else
#endif
#ifdef MS_CU_K4_EARLYLD
  if (MS_CU_R17(OR)) {
    const uint32_t *hrow = ms_cu_k4_hrow(a, r, lane, dry);
    /* Round 17B (MS_CU_K4_EARLYLD, on with MS_CU_K4_R17_LITE since the twelfth session's final call): ptxas sinks the default's plain loads below the early returns they
     * do not feed (SASS, sm_90: the max key's load, its branch, then cand_n's load, its branch, then the
     * candidates' and the bins' loads): three L2 round trips in a row after the PDL wait. Plain ld.global in
     * volatile asm was sunk the same way (ptxas, not NVVM); ld.volatile is not: every load below is issued,
     * in this order, before any branch (SASS: LDG.E.128/64.STRONG.SYS): the stats' first 16 bytes in one (max
     * key, ticket, cand_n, bound), the PF candidates, the 8 bins in two 16-byte loads. The same words (the
     * row's stats are 64-byte aligned, a lane's 8 bins 32-byte aligned), read after the same wait, from L2
     * (K2 wrote them on other multiprocessors: L1 held none of them either way). */
    uint32_t tk_;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(mk), "=r"(tk_), "=r"(cand_n), "=r"(bound) : "l"(st));
    (void)tk_;
#pragma unroll
    for (int j = 0; j < PF; j++) /* speculative: see above */
        asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(pre[j]) : "l"(g + threadIdx.x + j * blockDim.x));
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(hb[0]), "=r"(hb[1]), "=r"(hb[2]), "=r"(hb[3]) : "l"(hrow));
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(hb[4]), "=r"(hb[5]), "=r"(hb[6]), "=r"(hb[7]) : "l"(hrow + 4));
  } else
#endif
#ifdef MS_CU_LD1 /* -DMS_CU_K4_FUSE_NOLD: round 29C's finish alone */
  /* Round 29C (-DMS_CU_K4_FUSE; round 30C's -DMS_CU_K4_LDTWO in K4L only): a one-read row's loads after the wait,
   * issued together before any branch (volatile:
   * ptxas does not sink them, as round 17B's EARLYLD): the stats' first 16 bytes, m0 (the finish's, same line), and
   * npre rounds of the candidates instead of PF: K2or lists at most about G x kk of them (its chunks' top k'; the list
   * loads any further ones itself); no bins (a one-read row's list never reads them: bmax stays MS_CU_LBINS - 1). */
  /* the default's loads (below), twice: MS_CU_LD1's instantiations (if constexpr) and the others */
#  define MS_CU_K4_LD0                                                                                                    \
    {                                                                                                                     \
        _Pragma("unroll") for (int j = 0; j < PF; j++) pre[j] = g[threadIdx.x + j * blockDim.x]; /* speculative */       \
        mk = st->maxkey, cand_n = st->cand_n, bound = st->bound;                                                          \
        const uint32_t *hrow = ms_cu_k4_hrow(a, r, lane, dry);                                                            \
        _Pragma("unroll") for (int j = 0; j < 8; j++) hb[j] = hrow[j];                                                    \
    }
  if constexpr (MS_CU_LD1(OR, LD)) {
    if (ld1) {
      uint32_t tk_;
      asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(mk), "=r"(tk_), "=r"(cand_n), "=r"(bound) : "l"(st));
      (void)tk_;
      asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(m0e) : "l"(&st->m0));
#pragma unroll
      for (int j = 0; j < PF; j++) {
          pre[j] = 0;
          if (j < npre) asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(pre[j]) : "l"(g + threadIdx.x + j * blockDim.x));
      }
#pragma unroll
      for (int j = 0; j < 8; j++) hb[j] = 0;
    } else
      MS_CU_K4_LD0
  } else
    MS_CU_K4_LD0
#  undef MS_CU_K4_LD0
#else
#  ifdef MS_CU_K4_ORPRE
  /* Round 36A (-DMS_CU_K4_ORPRE, off; docs/cuda.md, round 36A): the one-read kernels' loads after the wait (only they
   * compile this block: the others take EARLYLD above). The default's plain loads make three dependent round trips
   * (ptxas sinks each below the branch before it: the max key, then cand_n and the bound, then PF speculative rounds of
   * the candidates, 16 KB a block, where a peaked row has ~40). =1: thread t loads round j only where t + j x blockDim.x
   * < cand_n; =2: also the stats' first 16 bytes in one plain 16-byte load (LDG.E.128), so the rounds, predicated, go
   * out after one round trip: two instead of three (H200, full fp32 V=151936, B=28..128: flat -0.15..-0.50 us, peaked
   * -0.14..-0.50; recommended on); =3: =2 with the first round whatever cand_n beside the stats' load (no better: off).
   * Exact: ms_cu_k4_list reads pre[j] only at i = t + j x blockDim.x < n_all = cand_n (its test is false past it), and
   * every load reads the same words after the same wait (the stats 64-byte aligned, ms_cu_warm_st 16-byte). */
  if constexpr (OR) {
#    if MS_CU_K4_ORPRE >= 2
    const uint4 sv = *reinterpret_cast<const uint4 *>(st); /* max key, ticket, cand_n, bound (16-byte aligned) */
    mk = sv.x, cand_n = sv.z, bound = sv.w;
#    else
    mk = st->maxkey, cand_n = st->cand_n, bound = st->bound;
#    endif
#    ifdef MS_CU_K4_ORST
    if (!dry && mk != 1u) ms_cu_stamp(28); /* round 36A's stamps: the max key arrived (mk is never 1: a dependence) */
#    endif
#pragma unroll
    for (int j = 0; j < PF; j++) { /* only the candidates the list reads (it reads pre[j] at i < n_all alone) */
        const uint32_t i = threadIdx.x + (uint32_t)j * blockDim.x;
#    if MS_CU_K4_ORPRE >= 3
        if (j == 0) { /* =3: the first round whatever cand_n (speculative, as the default's), issued with the stats' load:
                       * volatile, since ptxas sinks a plain load below the branches on the max key and cand_n */
            asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(pre[0]) : "l"(g + i));
            continue;
        }
#    endif
        pre[j] = i < cand_n ? g[i] : 0ull;
    }
    const uint32_t *hrow = ms_cu_k4_hrow(a, r, lane, dry);
#pragma unroll
    for (int j = 0; j < 8; j++) hb[j] = hrow[j];
  } else
#  endif
  {
#pragma unroll
    for (int j = 0; j < PF; j++) pre[j] = g[threadIdx.x + j * blockDim.x]; /* speculative: see above */
    mk = st->maxkey, cand_n = st->cand_n, bound = st->bound;
#  if defined(MS_CU_K4_ORST) && defined(MS_CU_STAMPS)
    if (OR && !dry && mk != 1u) ms_cu_stamp(28); /* round 36A's stamps: the max key arrived */
#  endif
    const uint32_t *hrow = ms_cu_k4_hrow(a, r, lane, dry);
#pragma unroll
    for (int j = 0; j < 8; j++) hb[j] = hrow[j];
  }
#endif
    if (mk <= MS_CU_KEY_NEGINF) return false;
    c.m = ms_cu_unkey(mk);
    c.inf_row = ms__is_pos_inf(c.m);
    if (cand_n > (uint32_t)CAP) return false; /* round 20B's K4L: K4R serves it */
    if (!dry) ms_cu_stamp(10);
    const int32_t n_all = (int32_t)cand_n;
    uint32_t bmax = MS_CU_LBINS - 1;
    float lscale = 0.0f;
    if (!c.inf_row && n_all > kk
#ifdef MS_CU_ONEREAD
        && !oneread /* round 13: nothing binned (K2 does not know m): every candidate listed */
#endif
    ) { /* the first bin where the running count reaches k' (ms_cu_lbin), per warp */
        lscale = lscale_pre; /* ms_cu_lbin_scale(c), computed before the PDL wait */
#ifdef MS_CU_K4W_BSH
        if constexpr (PW) { /* round 36B: the bins from shared memory (block-uniform branch: the row's stats and kk); the dry
                             * pass's list group is warps 0-3 (round 21C), the real pass the whole block: named barrier 1 */
            asm volatile("bar.sync 1, %0;" ::"r"(dry ? 128 : (int)blockDim.x) : "memory");
            const uint4 *const ms_cu_bsh = ms_cu_k4w_bsh();
            const uint4 b0 = ms_cu_bsh[2 * lane], b1 = ms_cu_bsh[2 * lane + 1];
            hb[0] = b0.x, hb[1] = b0.y, hb[2] = b0.z, hb[3] = b0.w, hb[4] = b1.x, hb[5] = b1.y, hb[6] = b1.z, hb[7] = b1.w;
        }
#endif
#if defined(MS_CU_K4W_BW) && MS_CU_K4W_BW == 2
        if constexpr (PW) { /* round 37B: warp 0 scans and publishes; the list's other warps (the dry pass: 1-3; the real
                             * pass: 1-15) poll the word (block-uniform branch: the row's stats and kk) */
            uint32_t *const bw = ms_cu_k4w_bw();
            if (threadIdx.x < 32) {
                bmax = ms_cu_lbin_bmax(hb, kk);
                if (lane == 0) asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"((uint32_t)__cvta_generic_to_shared(bw)),
                                            "r"(0x80000000u | bmax) : "memory");
            } else {
                uint32_t v;
                do {
                    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"((uint32_t)__cvta_generic_to_shared(bw)) : "memory");
                } while (!(v >> 31));
                bmax = v & 0x7fffffffu;
            }
        } else
#endif
        bmax = ms_cu_lbin_bmax(hb, kk);
    }
#ifdef MS_CU_STAMPS_LIST
    if (pre[0] + pre[1] + pre[2] + pre[3] != 1) ms_cu_stamp_l(15); /* waits for thread 0's preloaded candidates */
    if (bmax != 1000u) ms_cu_stamp_l(13);
#endif
#ifdef MS_CU_STAMPS /* round 17B: 17 waits for thread 0's preloaded candidates (their sum is never 1: a dependence) */
    if (!dry && (pre[0] + pre[PF - 1] != 1ull)) ms_cu_stamp(17);
#endif
#ifdef MS_CU_K4_RTRIM
    /* round 21B: the one-level trim's histogram (ms_cu_k4_rtrim), zeroed before the list's barrier; the same verdict
     * in every thread (the row's settings, cand_n) */
    const bool rt = OR && !dry && !c.sl.top_p_first && f.k > 0 && f.k == kk && !c.inf_row && n_all > MS_CU_WARP_N &&
                    n_all <= 2 * (int32_t)blockDim.x;
    if (rt)
        for (int i = threadIdx.x; i < MS_CU_LBINS; i += blockDim.x) S.cnt[i] = 0;
#endif
    for (;;) {
            ms_cu_k4_list<PF, OR, MS_CU_R17(OR)
#ifdef MS_CU_K4_NPRE
                          , MS_CU_NP(OR, LD)
#endif
#ifdef MS_CU_K4W_FT
                          , PW
#endif
                          >(g, n_all, bound, bmax, c, lscale, pre, cand_sh, n_sh, oneread
#ifdef MS_CU_K4_NPRE
                                                 , npre
#endif
#ifdef MS_CU_K4_FUSE
                                                 , MS_CU_FU(OR) ? fT : nullptr
#endif
#ifdef MS_CU_K4W_FT
                                                 , reinterpret_cast<ms_cu_pe *>(cand_sh + CAP) /* ms_cu_k4_fin_blk's T */
#endif
                                                 );
#ifdef MS_CU_STAMPS_LIST
        ms_cu_stamp_l(14);
#endif
        if (!dry) ms_cu_stamp(18);
        if (pw) return true; /* round 21C: the list group's part of the dry pass ends here */
        __syncthreads();
        n = *n_sh;
        /* The list is an upper set (in y) of the listed candidates of S0, since the bin is computed here from
         * one m; with at least k' of them it holds their top k', which is all that follows needs. A list
         * shorter than k' is made again from every candidate: a guard only (round 9 wrote it for the fused
         * rows, removed in round 11, whose counts were a hint); the bins' counts are never above the true ones. */
        if (n >= kk || bmax == MS_CU_LBINS - 1) break;
        bmax = MS_CU_LBINS - 1;
        __syncthreads(); /* every thread has read *n_sh */
        if (threadIdx.x == 0) *n_sh = 0;
        __syncthreads();
    }
    if (!dry) ms_cu_stamp(11);
#ifdef MS_CU_K4_FUSE
    ft = MS_CU_FU(OR) && oneread && n <= MS_CU_WARP_N; /* round 29C: the list wrote every entry's T (block-uniform) */
#endif
#ifdef MS_CU_K4_RTRIM
    bool
#else
    const bool
#endif
        trim = n > kk && (n > MS_CU_WARP_N || c.sl.top_p_first); /* as the block path */
#ifdef MS_CU_K4W_FT
    /* round 36B: the final list wrote T[0..n) (n <= MS_CU_WARP_N, block-uniform) and no trim moves it; the dry pass's
     * finish groups make their own copies' entries as before */
    wt = PW && !dry && n <= MS_CU_WARP_N && !trim;
#endif
#ifdef MS_CU_K4_WARM /* round 16B: the tests' flag read before the wait, by the caller; none in the warm-up pass */
    if (threadIdx.x == 0 && cnt_all && !dry) {
#else
    (void)cnt_all;
    if (threadIdx.x == 0 && ms_cu_count_all) {
#endif
        if (bmax < MS_CU_LBINS - 1) {
            atomicAdd(&ms_cu_mode_rows[5], 1ull);
            if (n > kk + 16) atomicAdd(&ms_cu_mode_rows[6], 1ull);
        }
        atomicAdd(&ms_cu_mode_rows[7], 1ull);
        if (trim) atomicAdd(&ms_cu_mode_rows[0], 1ull);
#ifdef MS_CU_ONEREAD
        if (oneread) atomicAdd(&ms_cu_or_rows[3], 1ull);
#endif
    }
#ifdef MS_CU_STAMPS
    const int32_t n_list = n;
#endif
#ifdef MS_CU_K4_RTRIM
    if (trim && rt) { /* round 21B: n <= n_all <= 2 x blockDim.x */
        const int32_t n1 = ms_cu_k4_rtrim(cand_sh, n, kk, c, lscale_pre, S
#ifdef MS_CU_K4_FUSE
                                          , MS_CU_FU(OR) ? fT : nullptr
#endif
                                          );
        if (n1 >= 0) {
            n = n1;
            trim = false;
#ifdef MS_CU_K4_FUSE
            ft = MS_CU_FU(OR); /* round 29C: the trim wrote every kept entry's T */
#endif
            ms_cu_stamp(22);
        }
    }
#endif
#ifdef MS_CU_K4_FUSE
    if (trim) ft = false; /* round 29C: the radix trim moves the list through T's scratch */
#endif
    if (trim) n = ms_cu_k4_trim<
#ifdef MS_CU_STAMPS
                                1
#else
                                0 /* one instantiation with the block path's */
#endif
                                , MS_CU_KTH_EARLY && MS_CU_TSEL(OR), MS_CU_RANK(OR), CAP>(cand_sh, n, kk, S); /* the block path's trim to the top kk, as there */
#ifdef MS_CU_STAMPS
    if (threadIdx.x == 0 && !dry) {
        ms_cu_stq(0, cand_n);
        ms_cu_stq(1, (unsigned long long)n_list);
        ms_cu_stq(2, (unsigned long long)n);
        ms_cu_stq(4, oneread ? 1ull : 0ull);
    }
#endif
#if defined(MS_CU_K4_PWARM) && defined(MS_CU_K4_WARM)
    } /* round 21C: the list */
#endif
    if (n <= MS_CU_WARP_N) {
#ifdef MS_CU_K4_FUSE
        ms_cu_k4_fin_blk<PW || MS_CU_PW(OR, CAP), MS_CU_FU(OR)>(a, r, c, f, cand_sh, n,
#  ifndef MS_CU_K4_FUSE_NOLD
                                                               ld1 ? m0e : st->m0, /* round 29C: loaded with the stats */
#  else
                                                               st->m0,
#  endif
                                                               cand_sh + CAP, dbits, dry, ft);
#elif defined(MS_CU_LD1)
        if constexpr (MS_CU_LD1(OR, LD))
            ms_cu_k4_fin_blk<PW || MS_CU_PW(OR, CAP)>(a, r, c, f, cand_sh, n, ld1 ? m0e : st->m0, /* round 30C: loaded with the stats */
                                                      cand_sh + CAP, dbits, dry);
        else
            ms_cu_k4_fin_blk<PW || MS_CU_PW(OR, CAP)>(a, r, c, f, cand_sh, n, st->m0, cand_sh + CAP, dbits, dry);
#elif defined(MS_CU_K4W_FT)
        ms_cu_k4_fin_blk<PW || MS_CU_PW(OR, CAP)>(a, r, c, f, cand_sh, n, st->m0, cand_sh + CAP, dbits, dry, wt);
#else
        ms_cu_k4_fin_blk<PW || MS_CU_PW(OR, CAP)>(a, r, c, f, cand_sh, n, st->m0, cand_sh + CAP, dbits, dry);
#endif
        if (!dry) ms_cu_stamp(12);
        return true;
    }
    if (CAP < MS_CU_CAND) return false; /* round 20B's K4L: nothing written yet; K4R serves the row (ms_cu_k4_cand's room) */
    if (dry) return true; /* never: the fake row lists 64 */
    ms_cu_k4_cand(a, r, c, f, S, cand_sh, n, st->m0);
    ms_cu_stamp(12);
    return true;
}

/* 128 registers (512 threads a block): with round 4's BAND code ptxas (CUDA 13) chose 64 registers
 * for K4 by itself and spilled 1.2 KB; __maxnreg__ (CUDA 12.4+) replaces __launch_bounds__, with which
 * it cannot be combined, and gives the same limit the launch bound allowed. */
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#  define MS_CU_K4_BOUNDS __maxnreg__(65536 / MS_CU_T4 > 255 ? 255 : 65536 / MS_CU_T4)
#else
#  define MS_CU_K4_BOUNDS __launch_bounds__(MS_CU_T4)
#endif
/* A K4 row's wait for what K1..K3 wrote: the PDL grid wait (the default), or with the off switches a count of the row's
 * own K2 blocks (round 18B's RF24; rounds 28C and 33C in the one-read steps: orow, the row K2or served). RF: round 33C's
 * ms_cu_k4rf (MS_CU_K4_RFARG, false without -DMS_CU_OR_RFK). */
template <bool OR, bool RF>
__device__ __forceinline__ void ms_cu_k4_wait(const ms_cu_args &a, const int32_t r, const bool orow) {
#ifdef MS_CU_RF24
    if (a.k4zero) { ms_cu_rf_wait(&a.stats[r].k2n, (uint32_t)a.G); return; } /* round 18B: the row's K2 blocks */
#endif
#if defined(MS_CU_OR_RFK)
    if (RF && orow) { ms_cu_rf_wait(&a.stats[r].c_above, (uint32_t)a.G); return; } /* round 33C: ms_cu_k4rf (a.orf) */
#elif defined(MS_CU_OR_RFST)
    if (OR && orow && a.orf) { ms_cu_rf_wait_st(&a.stats[r].c_above, (uint32_t)a.G, &a.stats[r]); return; } /* round 33C */
#elif defined(MS_CU_OR_RFNR)
    if (OR && orow && a.orf) { ms_cu_rf_wait(&a.stats[r].c_above, (uint32_t)a.G); return; } /* round 33C: ring-less steps */
#elif defined(MS_CU_OR_RF)
    if (OR && orow && a.k4zero) { ms_cu_rf_wait(&a.stats[r].c_above, (uint32_t)a.G); return; } /* round 28C: K2or's */
#endif
    (void)a; (void)r; (void)orow;
    ms_cu_pdl_wait();
}
#ifdef MS_CU_OR_RFK
#  define MS_CU_K4_RFARG RF
#else
#  define MS_CU_K4_RFARG false
#endif
#ifdef MS_CU_K4_ZERO
/* Round 17C (MS_CU_K4_ZERO, on unless -DMS_CU_NO_K4_ZERO): with the resource's own workspace (a.k4zero) no K0 runs;
 * instead K4, the stats' last reader, leaves its row's stats zero for the next step. The row's work is ms_cu_k4_row
 * (the kernel's body before this round, unchanged); every path returns from it, then the block waits for K1..K3 (a
 * second wait costs nothing: the rows that returned before their wait, unused slots, need it here, for K1..K3 may
 * still touch the row's stats), a barrier orders every thread's reads of the stats before thread t < 8 zeroes the
 * row's word t. Nothing after K4 in a step reads the stats, and the next step's K1 is a plain launch: it starts after
 * this grid completed. */
#ifdef MS_CU_OR_RFK
template <bool OR, bool PW = false, bool RF = false> __device__ __forceinline__ void ms_cu_k4_row(const ms_cu_args &a, int32_t r); /* RF: round 33C's ms_cu_k4rf */
#else
template <bool OR, bool PW = false> __device__ __forceinline__ void ms_cu_k4_row(const ms_cu_args &a, int32_t r); /* PW: round 21C's ms_cu_k4w */
#endif
/* The end of a K4 block with the resource's own workspace (a.k4zero): row r's stats zeroed, as described above
 * (ms_cu_k4, and round 20B's K4R). */
__device__ __forceinline__ void ms_cu_k4_zero(const ms_cu_args &a, unsigned r) { /* r: blockIdx.x */
    if (a.k4zero) {
        static_assert(sizeof(ms_cu_rowstat) % 8 == 0 && sizeof(ms_cu_rowstat) / 8 <= MS_CU_T4, "K4 zeroes a row's stats");
        ms_cu_pdl_wait(); /* rows that returned before their wait */
        __syncthreads(); /* every thread's reads of the row's stats (K4R: k3done too) before they are zeroed */
        if (threadIdx.x < sizeof(ms_cu_rowstat) / 8) ((unsigned long long *)&a.stats[r])[threadIdx.x] = 0;
#ifdef MS_CU_OR_RC2
        else if (threadIdx.x - 32u < (unsigned)MS_CU_ORRC) a.orc[(size_t)r * MS_CU_ORRC + threadIdx.x - 32u] = 0; /* round 30A */
#endif
#if defined(MS_CU_K1_ROWCUT) && defined(MS_CU_K1_RC_OWN) && !defined(MS_CU_RC_INST) /* round 32A: K2 zeroes them */
        else if ((a.rcut & 1) && threadIdx.x - 32u < (unsigned)(MS_CU_RCB / 2)) /* the row's bins, 8 bytes a thread */
            ((unsigned long long *)MS_CU_RCH(a, r))[threadIdx.x - 32u] = 0;
#endif
    }
    ms_cu_stamp(24);
}
template <bool OR>
__global__ void MS_CU_K4_BOUNDS ms_cu_k4(ms_cu_args a) {
    ms_cu_k4_row<OR>(a, blockIdx.x);
    ms_cu_k4_zero(a, blockIdx.x);
}
#if defined(MS_CU_K4_PWOWN) && defined(MS_CU_K4_WARM)
/* -DMS_CU_K4_PWOWN (above ms_cu_k4_fin_blk): the warm-up steps' K4, with round 21C's grouped pass */
__global__ void MS_CU_K4_BOUNDS ms_cu_k4w(ms_cu_args a) {
    ms_cu_k4_row<false, true>(a, blockIdx.x);
    ms_cu_k4_zero(a, blockIdx.x);
}
#endif
#ifdef MS_CU_OR_RFK
/* round 33C: the steps with a.orf (ms_cu_launch): ms_cu_k4<true> whose one-read rows wait on their K2or blocks' count */
__global__ void MS_CU_K4_BOUNDS ms_cu_k4rf(ms_cu_args a) {
    ms_cu_k4_row<true, false, true>(a, blockIdx.x);
    ms_cu_k4_zero(a, blockIdx.x);
}
#endif
#ifdef MS_CU_OR_RFK
template <bool OR, bool PW, bool RF> __device__ __forceinline__ void ms_cu_k4_row(const ms_cu_args &a, const int32_t r) { /* round 33C: RF */
#else
template <bool OR, bool PW> __device__ __forceinline__ void ms_cu_k4_row(const ms_cu_args &a, const int32_t r) { /* r: blockIdx.x, or round 20B's K4R's row */
#endif
#else
template <bool OR> /* as ms_cu_k1 */
__global__ void MS_CU_K4_BOUNDS ms_cu_k4(ms_cu_args a) {
#endif
    extern __shared__ unsigned long long ms_cu_cand_sh[];
    __shared__ ms_cu_k4sh S;
#ifndef MS_CU_K4_ZERO
    const int32_t r = blockIdx.x;
#endif
    ms_cu_stamp(8);
    {
        __shared__ int32_t lite_n;
        ms_cu_row lc = {};
        ms_cu_filt lf = {};
        int32_t lkk = 0;
        if (ms_cu_k4_lean(a, r, lc, lf, lkk)) { /* the same verdict in every thread */
            bool orow = false; /* round 13: K2's one-read path served this row */
#ifdef MS_CU_ONEREAD
            orow = OR && ms_cu_onread(a, a.logits + (size_t)r * (size_t)a.stride * a.elem, lc, lf); /* from the slot's fields, as K1 and K2 decide it */
#endif
#ifndef MS_CU_K4_WARM
            if (threadIdx.x == 0) lite_n = 0;
#endif
            const float lsc = ms_cu_lbin_scale(lc);
            const uint64_t dbits = ms__draw_bits(lc.sl.seed, lc.sl.n, (uint32_t)a.row_k[r]);
#ifdef MS_CU_K4_WARM
            /* Round 16B (-DMS_CU_K4_WARM): before the PDL wait, in steps where a.k4warm (ms_cu_launch), the
             * block runs the same code (the one copy of ms_cu_k4_lite, the loop is not unrolled) over a fixed
             * fake row in global memory (ms_cu_warm_*: 64 tied candidates, all in bin 0) with no output, no
             * counters and no stamps, so that the lean path's instructions are in the multiprocessor's caches
             * when the real pass starts after the wait. The real pass reads nothing the dry one wrote: its
             * list, counts and finish rewrite every shared word they read (the row's own values from lc, and
             * c.m / c.inf_row from the real stats). Exact: the real pass is the default's code on the same data.
             * Measured (round 16B): flat B=1 -0.7 us; on with MS_CU_K2_TAIL since the eleventh session's final
             * call (-DMS_CU_NO_K4_WARM: without). */
            bool served = false;
            const bool cnt_all = ms_cu_count_all != 0; /* the tests' flag (set by the host between steps) */
#pragma unroll 1
            for (int pass = a.k4warm ? 0 : 1; pass < 2; pass++) {
                const bool dry = pass == 0;
                if (dry) ms_cu_stamp(36); /* round 20C */
                if (threadIdx.x == 0) lite_n = 0;
#if defined(MS_CU_K4W_BW) && MS_CU_K4W_BW == 2
                if constexpr (PW) { /* round 37B: bmax's word not yet published in this pass (the barrier below orders it) */
                    if (threadIdx.x == 0) *ms_cu_k4w_bw() = 0u;
                }
#endif
                __syncthreads();
                if (!dry) {
#if defined(MS_CU_K4_ORST) && defined(MS_CU_STAMPS)
                    if (OR) ms_cu_stamp(29); /* round 36A's stamps: the block's set-up done, before its wait */
#endif
                    ms_cu_k4_wait<OR, MS_CU_K4_RFARG>(a, r, orow); /* everything K1..K3 wrote */
                    ms_cu_stamp(9);
                }
                served = ms_cu_k4_lite<OR, MS_CU_CAND, PW>(a, r, lc, lf, lkk, S, ms_cu_cand_sh, &lite_n, lsc, dbits,
                                                          orow && !dry, dry, cnt_all);
#if defined(MS_CU_K4_PWARM) && defined(MS_CU_K4_WARM)
                if ((PW || MS_CU_PW(OR, MS_CU_CAND)) && dry) __syncthreads(); /* round 21C: every dry group done (lite_n's atomics too) */
#endif
                if (dry) ms_cu_stamp(37); /* round 20C */
            }
            if (served) return;
#else
            __syncthreads();
            ms_cu_k4_wait<OR, MS_CU_K4_RFARG>(a, r, orow); /* everything K1..K3 wrote */
            ms_cu_stamp(9);
            if (ms_cu_k4_lite<OR>(a, r, lc, lf, lkk, S, ms_cu_cand_sh, &lite_n, lsc, dbits, orow, false, false)) return;
#endif
        }
    }
    const int32_t slot = ms_cu_slot_ok(a, r);
    if (slot < 0) {
        if (threadIdx.x == 0) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        return;
    }
    ms_cu_rowstat *st = &a.stats[r];
    ms_cu_row c;
    ms_cu_row_setup(c, a.slots, slot, a.logits + (size_t)r * (size_t)a.stride * a.elem, a.dtype, a.V, a.apply_penalty,
                    a.apply_filters, a.seen, a.seen_words, a.hist, a.hist_cap, a.stop, S.wfilt);
    ms_cu_pdl_wait(); /* everything K1..K3 wrote */
    if (c.greedy) {
        if (threadIdx.x == 0) {
            unsigned long long b = st->gbest, fr = st->gfree;
            unsigned long long p = (c.floor && fr) ? fr : b;
            if (!p) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
            else ms_cu_out(a, r, (int32_t)(0xffffffffu - (uint32_t)p), MS_ROW_OK);
        }
        return;
    }
    if (!ms_cu_set_max(c, st)) {
        if (threadIdx.x == 0) ms_cu_out(a, r, -1, MS_ROW_EMPTY);
        return;
    }
    const ms_cu_filt f = ms_cu_filters(c);
    uint32_t mode = st->mode;
    const int32_t kk = f.k > 0 ? f.k : f.k2;
    if (ms_cu_lite_k(c, f) > 0) /* K2 gathered each chunk's top-k of S0; too many: the exact slow path */
        mode = st->cand_n <= MS_CU_CAND ? MS_CU_MODE_S0 : MS_CU_MODE_FULL;
#if !defined(MS_CU_K3_KERNEL) || defined(MS_CU_K3W_K2)
    /* A block of the row gave up its gather in K2's grid (round 15B's ms_cu_k2_k3 in every step; round 25A's
     * ms_cu_k2_k3w in the steps where a.k3w: K4w, with =2 ms_cu_k4<false> too, with =3 (round 26D) ms_cu_k4<true>): the
     * list and the chunks' pairs are partial, so the row takes the whole-row path */
#  ifndef MS_CU_K3_KERNEL
    const bool k3part = true;
#  else
    const bool k3part = (PW || (!OR && MS_CU_K3W_K2 >= 2) || (OR && MS_CU_K3W_K2 >= 3)) && a.k3w;
#  endif
    if (k3part && (mode == MS_CU_MODE_FAST || mode == MS_CU_MODE_BAND) && st->k3done != (uint32_t)a.G) {
        mode = MS_CU_MODE_FULL;
        if (threadIdx.x == 0 && ms_cu_count_all) atomicAdd(&ms_cu_k3_rows[1], 1ull);
    }
#endif
    if (mode == MS_CU_MODE_BAND && st->cand_n > MS_CU_CAND) mode = MS_CU_MODE_FULL; /* never seen (K2 counted them) */
    if (threadIdx.x == 0 && (mode == MS_CU_MODE_BAND || mode == MS_CU_MODE_FULL)) /* for the tests (rare modes only) */
        atomicAdd(&ms_cu_mode_rows[mode], 1ull);
    if (mode == MS_CU_MODE_BAND) { /* the bound bucket's S0 tokens; every threshold inside them */
        const int32_t n = (int32_t)st->cand_n;
        const unsigned long long *g = a.cand + (size_t)r * MS_CU_CAND;
        for (int32_t i = threadIdx.x; i < n; i += blockDim.x) ms_cu_cand_sh[i] = g[i];
        __syncthreads();
        ms_cu_k4_band(a, r, c, f, S, ms_cu_cand_sh, n, st, ms_cu_cand_sh + MS_CU_CAND);
        return;
    }
    if (mode == MS_CU_MODE_S0 || mode == MS_CU_MODE_FAST) {
        __shared__ int32_t n_sh;
        int32_t n;
        {
            /* S0 mode: K2 gathered every min-p survivor; keep those at or above the bound */
            if (threadIdx.x == 0) n_sh = 0;
            __syncthreads();
            const int32_t n_all = (int32_t)min(st->cand_n, (uint32_t)MS_CU_CAND);
            const unsigned long long *g = a.cand + (size_t)r * MS_CU_CAND;
            const uint32_t bound = mode == MS_CU_MODE_S0 ? st->bound : 0;
            /* the first candidates' loads issued now, in flight during the bins' scan below */
            constexpr int PF = 4;
            unsigned long long pre[PF];
#pragma unroll
            for (int j = 0; j < PF; j++) {
                const int32_t i = threadIdx.x + j * blockDim.x;
                pre[j] = i < n_all ? g[i] : 0;
            }
            /* lite rows: only the candidates in the bins up to the k'-th's (ms_cu_lbin). With the lean
             * path (the default since round 7) every lite row that reaches this point goes to the
             * whole-row path instead (its candidates overflowed or the row is empty), so this is
             * compiled only without it. */
            uint32_t bmax = MS_CU_LBINS - 1;
            float lscale = 0.0f;
            ms_cu_k4_list<PF, false, MS_CU_R17(OR)>(g, n_all, bound, bmax, c, lscale, pre, ms_cu_cand_sh, &n_sh);
            __syncthreads();
            /* Every filter keeps a subset of the candidates' top-k (k of whichever top-k runs; see
             * ms_cu_lite_k): keep only those, so that K4 sorts about k entries, not thousands. */
            n = n_sh;
            if (threadIdx.x == 0 && ms_cu_count_all && bmax < MS_CU_LBINS - 1) {
                atomicAdd(&ms_cu_mode_rows[5], 1ull);
                if (n > kk + 16) atomicAdd(&ms_cu_mode_rows[6], 1ull);
            }
            /* Not when one warp can take them all in the default order: k4_warp applies top-k to its
             * ranked list exactly (the list holds the row's top-k of S0 as an upper set), which saves the
             * select's ~17 barriers. The HF order needs the trim: its top-p runs over the list first, and
             * the list's prefix masses are exact only within the top k'. */
            if (kk > 0 && n > kk && (n > MS_CU_WARP_N || c.sl.top_p_first))
                n = ms_cu_k4_trim<0, MS_CU_KTH_EARLY && MS_CU_TSEL(OR), MS_CU_RANK(OR)>(ms_cu_cand_sh, n, kk, S);
            /* the candidates are not all of S0: top-p over S0 needs S0's mass */
            if (n <= MS_CU_WARP_N) { /* the usual case after the trim: one warp finishes the row */
                if (threadIdx.x < 32) ms_cu_k4_warp2(a, r, c, f, ms_cu_cand_sh, n, st->m0, ms_cu_cand_sh + MS_CU_CAND);
                return;
            }
        }
        ms_cu_k4_cand(a, r, c, f, S, ms_cu_cand_sh, n, st->m0);
        return;
    }
    /* The whole row: exact radix descents over recomputed elements (rows without top-k/top-p, or
     * whose candidates did not fit). */
    ms_cu_src s;
    s.c = &c;
    s.cand = NULL;
    s.n = 0;
    s.scr = ms_cu_cand_sh; /* the candidates' space, unused on this path */
    /* K2's histogram of S0 is there for rows it classed FULL itself (not lite rows sent here by K4) */
    const bool ghist = st->mode == MS_CU_MODE_FULL && ms_cu_lite_k(c, f) == 0;
    s.gc = ghist ? a.hcnt + (size_t)r * MS_CU_HB : NULL;
    s.gm = ghist ? a.hmass + (size_t)r * MS_CU_HB : NULL;
    uint32_t lb = 0;
    if (f.sel) {
        if (!c.sl.top_p_first) {
            if (f.k > 0) lb = ms_cu_select_count(s, S, lb, (uint64_t)f.k);
            if (f.p_on) lb = ms_cu_top_p(s, S, c, f, lb, 0);
        } else {
            if (f.p_on) lb = ms_cu_top_p(s, S, c, f, lb, 0);
            if (f.k2 > 0) {
                uint32_t v = ms_cu_select_count(s, S, lb, (uint64_t)f.k2);
                lb = v > lb ? v : lb;
            }
        }
    }
    if ((size_t)((c.V + 31) >> 5) * 2 <= (size_t)MS_CU_K4_DYN / 8) { /* the steps' masses fit the scratch */
        ms_cu_draw_row(a, r, c, S, lb, ms_cu_cand_sh);
        return;
    }
    ms_cu_draw(a, r, c, S, c.V, [&](int32_t i, int32_t *id, bool *stop) -> uint64_t {
        ms_cu_elem e = ms_cu_elem_at(c, i);
        *id = i;
        *stop = c.floor && ms_cu_bit(c.stop, i);
        return (e.s0 && e.key >= lb) ? e.q : 0;
    });
}

#ifdef MS_CU_K4_TWO
/* Round 20B (MS_CU_K4_TWO, on since the fifteenth session): K4 as two kernels in one-read steps with more rows than multiprocessors
 * (ms_cu_launch). ms_cu_k4<true> holds a whole multiprocessor (512 threads x ~128 registers, MS_CU_K4_DYN = 160 KB),
 * so 256 rows on 132 multiprocessors ran in two waves (flat B=256: the last rows' wait passed 9.6 us after the
 * first's). K4L (ms_cu_k4l): one block of 512 threads a row, registers capped at 64 (__launch_bounds__(512, 2)) and
 * 2 x MS_CU_K4L_CAP candidates of dynamic shared memory, so two blocks fit a multiprocessor; it runs the lean path
 * (ms_cu_k4_lean, ms_cu_k4_lite: the same code, instantiated with CAP) for the rows that take it, and marks in the
 * row's stats (k3done, a word only round 15B's -DMS_CU_K3_IN_K2 uses) each row it served. It does not serve (and writes nothing for) a row with more than CAP
 * candidates or more than MS_CU_WARP_N left after the trim (ms_cu_k4_cand needs K4's whole shared memory), nor any
 * row off the lean path; its blocks of rows off the lean path exit at once, but block 0 always waits for K3 (as
 * K3's block 0 waits for K2, round 15B), so K4L's completion covers K1..K3's. K4R (ms_cu_k4r, launched after it with
 * PDL; a block of K4's shape a row, one a multiprocessor; a version looping over the rows in one wave spilled ~1 KB):
 * a lean row waits (K4L's grid complete) and is only zeroed if K4L marked it; any other row runs ms_cu_k4<true>'s
 * row code (ms_cu_k4_row) as the one kernel did, its set-up before its wait. Exact: every row is decided once, by the same
 * functions on the same values as in ms_cu_k4<true> (the list's room and the trim's scratch move, not the values);
 * K4L's rows that it gives up are redone from the start by K4R (K4L wrote no output for them; the tests' path
 * counters then count such a row twice). */
__global__ void __launch_bounds__(MS_CU_T4, 2) ms_cu_k4l(ms_cu_args a) {
    extern __shared__ unsigned long long ms_cu_cand_sh[];
    __shared__ ms_cu_k4sh S;
    __shared__ int32_t lite_n;
    const int32_t r = blockIdx.x;
    ms_cu_pdl_go(); /* K4R's blocks may take the multiprocessors K4L leaves (once every K4L block has started) */
    ms_cu_stamp(8);
    ms_cu_row lc = {};
    ms_cu_filt lf = {};
    int32_t lkk = 0;
    const bool lean = ms_cu_k4_lean(a, r, lc, lf, lkk); /* the same verdict in every thread */
    bool orow = false;
    float lsc = 0.0f;
    uint64_t dbits = 0;
    if (lean) {
        orow = ms_cu_onread(a, a.logits + (size_t)r * (size_t)a.stride * a.elem, lc, lf);
        lsc = ms_cu_lbin_scale(lc);
        dbits = ms__draw_bits(lc.sl.seed, lc.sl.n, (uint32_t)a.row_k[r]);
    }
    if (!lean && r != 0) return; /* K4R's; block 0 waits for K3 whatever its row, so that K4L's completion covers K1..K3 */
    const bool cnt_all = ms_cu_count_all != 0;
    if (threadIdx.x == 0) lite_n = 0;
    __syncthreads();
    ms_cu_pdl_wait();
    ms_cu_stamp(9);
#ifdef MS_CU_LD1
    constexpr bool LD = true; /* round 30C */
#else
    constexpr bool LD = false;
#endif
    if (lean && ms_cu_k4_lite<true, MS_CU_K4L_CAP, false, LD>(a, r, lc, lf, lkk, S, ms_cu_cand_sh, &lite_n, lsc, dbits, orow,
                                                             false, cnt_all) &&
        threadIdx.x == 0)
        a.stats[r].k3done = 1u;
}
__global__ void MS_CU_K4_BOUNDS ms_cu_k4r(ms_cu_args a) {
    bool go = true;
    {
        ms_cu_row lc = {};
        ms_cu_filt lf = {};
        int32_t lkk = 0;
        if (ms_cu_k4_lean(a, blockIdx.x, lc, lf, lkk)) { /* the rows K4L may have served (the same verdict as there) */
            ms_cu_pdl_wait(); /* K4L's grid, hence K1..K3's */
            go = !a.stats[blockIdx.x].k3done;
        }
    }
    if (go) ms_cu_k4_row<true>(a, blockIdx.x); /* other rows: set-up, then the wait, as in ms_cu_k4<true> (round 30C's loads
                                                 * not here: an instantiation of K4R's own changed ms_cu_k4<true>'s SASS) */
    ms_cu_k4_zero(a, blockIdx.x);
}
#endif

/* ---- commit, accept, plan ------------------------------------------------------------------ */

__device__ void ms_cu_append(ms_cu_slot *s, uint64_t *seen, int32_t *hist, int32_t hist_cap, int32_t tok) {
    if (seen) seen[tok >> 6] |= 1ull << (tok & 63);
    if (hist) {
        hist[s->hist_head] = tok;
        s->hist_head = (s->hist_head + 1) % hist_cap;
        if (s->hist_len < hist_cap) s->hist_len++;
    }
    s->n++;
}

/* One thread per row; the first row of each slot appends that slot's kept rows in row order. */
__global__ void ms_cu_commit_k(ms_cu_slot *slots, int32_t capacity, uint64_t *seen, int32_t words, int32_t *hist,
                               int32_t hist_cap, int32_t vmax, int32_t n, const int32_t *row_slot, const uint8_t *kept,
                               const int32_t *tokens) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int32_t s = row_slot[i];
    if (s < 0 || s >= capacity || !slots[s].used) return;
    for (int32_t j = 0; j < i; j++)
        if (row_slot[j] == s) return;
    ms_cu_slot st = slots[s];
    uint64_t *sb = seen ? seen + (size_t)s * (size_t)words : NULL;
    int32_t *hb = hist ? hist + (size_t)s * (size_t)hist_cap : NULL;
    for (int32_t j = i; j < n; j++) {
        if (row_slot[j] != s || (kept && !kept[j])) continue;
        int32_t t = tokens[j];
        if (t < 0 || t >= vmax) continue;
        ms_cu_append(&st, sb, hb, hist_cap, t);
    }
    slots[s].n = st.n;
    slots[s].hist_len = st.hist_len;
    slots[s].hist_head = st.hist_head;
}

__global__ void ms_cu_accept_k(ms_cu_slot *slots, int32_t slot, uint64_t *seen, int32_t words, int32_t *hist,
                               int32_t hist_cap, const int32_t *tokens, int32_t n) {
    ms_cu_slot st = slots[slot];
    uint64_t *sb = seen ? seen + (size_t)slot * (size_t)words : NULL;
    int32_t *hb = hist ? hist + (size_t)slot * (size_t)hist_cap : NULL;
    for (int32_t j = 0; j < n; j++) ms_cu_append(&st, sb, hb, hist_cap, tokens[j]);
    slots[slot].n = st.n;
    slots[slot].hist_len = st.hist_len;
    slots[slot].hist_head = st.hist_head;
}

__global__ void ms_cu_seen_k(uint64_t *bits, const int32_t *tokens, int32_t n) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicOr((unsigned long long *)&bits[tokens[i] >> 6], 1ull << (tokens[i] & 63));
}

/* ---- host side ------------------------------------------------------------------------------ */

static ms_cu_state *ms_cu_st(const ms_resource *res) { return (ms_cu_state *)res->backend_state; }

static int ms_cu_err(ms_resource *res, cudaError_t e, const char *what) {
    cudaGetLastError(); /* clear a sticky launch error so later calls report their own */
    int code = (e == cudaErrorMemoryAllocation) ? MS_ENOMEM
               : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) ? MS_EBACKEND : MS_ECUDA;
    return ms__fail(res, code, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* Runs the calls of one entry point on the resource's device, restoring the caller's. */
struct ms_cu_dev {
    int prev;
    bool ok;
    ms_cu_dev(int d) {
        ok = cudaGetDevice(&prev) == cudaSuccess;
        if (ok && prev != d) ok = cudaSetDevice(d) == cudaSuccess;
    }
    ~ms_cu_dev() {
        int cur;
        if (cudaGetDevice(&cur) == cudaSuccess && cur != prev) cudaSetDevice(prev);
    }
};

static size_t ms_cu_align(size_t x) { return (x + 255) & ~(size_t)255; }

#ifdef MS_CU_CARVE
/* Round 20C (-DMS_CU_CARVE; off): the shared-memory carveout preference cv (percent) on every kernel of a step. A hint:
 * kernels and results unchanged. (The fifteenth session's -DMS_CU_CARVE_OR, the one-read kernels alone, was removed in
 * the sixteenth session's review: round 22D's launch attribute, MS_CU_CARVE_OW, serves those steps.) */
static cudaError_t ms_cu_carve(int cv) {
    const cudaFuncAttribute ca = cudaFuncAttributePreferredSharedMemoryCarveout;
    cudaError_t e = cudaSuccess;
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k0, ca, cv);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k1<false>, ca, cv);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k2<false, false>, ca, cv);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k2<false, true>, ca, cv);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4<false>, ca, cv);
#  if defined(MS_CU_K4_PWOWN) && defined(MS_CU_K4_WARM)
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4w, ca, cv);
#  endif
#  ifdef MS_CU_K3_KERNEL
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k3<MS_CU_K3_B0>, ca, cv);
#    ifdef MS_CU_K3W_B0LATE
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k3<true>, ca, cv);
#    endif
#  endif
#  ifdef MS_CU_ONEREAD
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k1<true>, ca, cv);
#    ifdef MS_CU_OR_K2OWN
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k2<true, false, true>, ca, cv);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k2<true, true, true>, ca, cv);
#    else
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k2<true, false>, ca, cv);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k2<true, true>, ca, cv);
#    endif
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4<true>, ca, cv);
#    ifdef MS_CU_K4_TWO
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4l, ca, cv);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4r, ca, cv);
#    endif
#  endif
    return e;
}
#endif



/* Round 11 (only with -DMS_CU_PB): the K2 blocks of a step of n rows whose bucket masses the workspace
 * holds: one wave (4 a multiprocessor, the launch's G rounds down to it) or 8 a row (chunks of at most 32768 tokens up to V =
 * 262144); a step with more blocks gets a.pb = NULL and K3's walk with exp (exact either way). 16 KB a block. */
static size_t ms_cu_pb_blocks(const ms_cu_state *st, int32_t n) {
#ifdef MS_CU_PB
    const size_t wave = (size_t)st->sm_count * 4, rows8 = (size_t)n * 8;
    return wave > rows8 ? wave : rows8;
#else
    (void)st, (void)n;
    return 0;
#endif
}
static size_t ms_cu_ws_size(const ms_cu_state *st, int32_t n) {
    size_t s = 0;
    s += ms_cu_align((size_t)n * sizeof(ms_cu_rowstat));
    s += ms_cu_align((size_t)n * MS_CU_HB * sizeof(uint32_t));
    s += ms_cu_align((size_t)n * MS_CU_HB * sizeof(unsigned long long));
    s += ms_cu_align((size_t)n * MS_CU_CAND * sizeof(unsigned long long));
    s += ms_cu_align(ms_cu_pb_blocks(st, n) * MS_CU_HB * sizeof(unsigned long long));
    return s;
}

/* A measurement knob read at resource creation: the environment's integer name, or def where it is unset or empty. */
static inline int ms_cu_env_int(const char *name, int def) {
    const char *ev = getenv(name);
    return ev && *ev ? atoi(ev) : def;
}
extern "C" int ms__cuda_init(ms_resource *res) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        cudaGetLastError();
        return ms__fail(res, MS_EBACKEND, "backend=cuda: no CUDA device (%s)",
                        e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    }
    if (res->params.device < 0 || res->params.device >= count)
        return ms__fail(res, MS_EBACKEND, "device=%d: only %d CUDA devices", res->params.device, count);
    ms_cu_state *st = (ms_cu_state *)calloc(1, sizeof *st);
    if (!st) return ms__fail(res, MS_ENOMEM, "CUDA state");
    res->backend_state = st;
    st->device = res->params.device;
    ms_cu_dev guard(st->device);
    if (!guard.ok) return ms__fail(res, MS_ECUDA, "cudaSetDevice(%d) failed", st->device);
    e = cudaDeviceGetAttribute(&st->sm_count, cudaDevAttrMultiProcessorCount, st->device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&st->l2_bytes, cudaDevAttrL2CacheSize, st->device);
    int major = 0;
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, st->device);
    if (e != cudaSuccess) return ms_cu_err(res, e, "device attributes");
#ifndef MS_CU_NO_PDL /* every kernel launched plainly, to compare */
    st->pdl = major >= 9;
#endif
#ifdef MS_CU_K4_WARM
    { /* round 16B: K4's fake row (ms_cu_warm_*) */
        ms_cu_rowstat ws;
        memset(&ws, 0, sizeof ws);
        ws.maxkey = 0x80000000u;
        ws.cand_n = 64;
        ws.m0 = 64ull << 40;
        unsigned long long wc[MS_CU_K4_PF * MS_CU_T4];
        uint32_t wh[MS_CU_LBINS] = {};
        for (int i = 0; i < MS_CU_K4_PF * MS_CU_T4; i++) wc[i] = i < 64 ? (0x80000000ull << 32) | (unsigned long long)i : 0;
        wh[0] = 64;
        e = cudaMemcpyToSymbol(ms_cu_warm_st, &ws, sizeof ws);
        if (e == cudaSuccess) e = cudaMemcpyToSymbol(ms_cu_warm_cand, wc, sizeof wc);
        if (e == cudaSuccess) e = cudaMemcpyToSymbol(ms_cu_warm_h, wh, sizeof wh);
        if (e != cudaSuccess) return ms_cu_err(res, e, "K4's warm-up row");
    }
#endif
#ifdef MS_CU_OR_TAPER
    { /* round 32B's taper (0..63), per resource; MS_CU_ORTAPER in the environment is a measurement knob */
        const int e = getenv("MS_CU_ORTAPER") ? atoi(getenv("MS_CU_ORTAPER")) : MS_CU_OR_TAPER;
        st->tpe = e < 0 ? 0 : e > 63 ? 63 : e;
    }
#endif
#ifdef MS_CU_OR_SPF_RT
    st->spf = ms_cu_env_int("MS_CU_SPF", 1) != 0; /* round 35B: a measurement build's knob */
#endif
#ifdef MS_CU_OR_LOOP2
    /* Round 34C: a measurement knob (MS_CU_ORRING=1 in the environment), per resource: K2's cp.async ring in every step,
     * as -DMS_CU_RING_MODE=1 builds it (ms_cu_launch's rule), so that one binary measures the one-wave one-read steps
     * with the ring and round 19B's whole steps against the same steps without it */
    st->ringk = ms_cu_env_int("MS_CU_ORRING", 0) > 0;
#endif
#ifdef MS_CU_OR_TAIL2
    { /* round 33B's row budget R, per resource; MS_CU_ORTAIL2 in the environment is a measurement knob (0: never) */
        const int v = ms_cu_env_int("MS_CU_ORTAIL2", MS_CU_OR_TAIL2);
        st->tl2 = v < 0 ? 0 : v < MS_CU_CAND ? v : MS_CU_CAND; /* a row's list within MS_CU_CAND (above) */
    }
#endif
#ifdef MS_CU_WARM_CHUNK
    { /* round 34A: the warm-up steps' smallest chunk; MS_CU_WARMCHUNK in the environment is a measurement knob (0: off) */
        const int v = ms_cu_env_int("MS_CU_WARMCHUNK", MS_CU_WARM_CHUNK);
        st->wchunk = v <= 0 ? 0 : v < 8 ? 8 : v > 32768 ? 32768 : v;
    }
#endif
#ifdef MS_CU_OR_DCUT2_RT
    st->dc2 = getenv("MS_CU_ORDC2") ? atoi(getenv("MS_CU_ORDC2")) : MS_CU_OR_DCUT2_MIN; /* round 33B: 32C's gate, per resource */
#endif
#if defined(MS_CU_OR_DYN) && (defined(MS_CU_OR_DYN_ALWAYS) || defined(MS_CU_OR_DYN_RT))
    /* round 29B's knob from the environment (the tests' runs: gpu_run.sh's tests step), as ms__cuda_ordyn sets it */
    if (getenv("MS_CU_ORDYN") && ms__cuda_ordyn(atoi(getenv("MS_CU_ORDYN"))) < 0)
        return ms_cu_err(res, cudaGetLastError(), "MS_CU_ORDYN");
#endif
    const int32_t cap = res->params.capacity, rows = res->params.max_rows;
    const size_t words = (size_t)res->bitset_words;
#define MS_CU_ALLOC(p, bytes)                                                    \
    do {                                                                         \
        e = cudaMalloc((void **)&(p), (bytes));                                  \
        if (e != cudaSuccess) return ms_cu_err(res, e, "cudaMalloc " #p);        \
    } while (0)
    MS_CU_ALLOC(st->d_slots, (size_t)cap * sizeof(ms_cu_slot));
    e = cudaMemset(st->d_slots, 0, (size_t)cap * sizeof(ms_cu_slot));
    if (e != cudaSuccess) return ms_cu_err(res, e, "cudaMemset");
    if (res->seen) {
        MS_CU_ALLOC(st->d_seen, (size_t)cap * words * 8);
        e = cudaMemset(st->d_seen, 0, (size_t)cap * words * 8);
        if (e != cudaSuccess) return ms_cu_err(res, e, "cudaMemset");
    }
    if (res->hist) {
        /* cleared so that reading a whole ring back (ms_explain) never copies unwritten memory */
        MS_CU_ALLOC(st->d_hist, (size_t)cap * (size_t)res->spec.max_repetition_window * sizeof(int32_t));
        e = cudaMemset(st->d_hist, 0, (size_t)cap * (size_t)res->spec.max_repetition_window * sizeof(int32_t));
        if (e != cudaSuccess) return ms_cu_err(res, e, "cudaMemset");
    }
    if (res->stop_mask) {
        MS_CU_ALLOC(st->d_stop, words * 8);
        e = cudaMemcpy(st->d_stop, res->stop_mask, words * 8, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) return ms_cu_err(res, e, "stop mask");
    }
    MS_CU_ALLOC(st->d_row_slot, (size_t)rows * sizeof(int32_t));
    MS_CU_ALLOC(st->d_row_k, (size_t)rows * sizeof(int32_t));
    MS_CU_ALLOC(st->d_pend_tok, (size_t)rows * sizeof(int32_t));
    MS_CU_ALLOC(st->d_kept, (size_t)rows);
    MS_CU_ALLOC(st->d_stage, (size_t)MS_CU_STAGE * sizeof(int32_t));
    st->ws_bytes = ms_cu_ws_size(st, rows);
    MS_CU_ALLOC(st->d_ws, st->ws_bytes);
#ifdef MS_CU_K4_ZERO /* round 17C: the stats of all max_rows rows start zero; every step's K4 leaves its rows' zero */
    e = cudaMemset(st->d_ws, 0, ms_cu_align((size_t)rows * sizeof(ms_cu_rowstat)));
    if (e != cudaSuccess) return ms_cu_err(res, e, "cudaMemset");
#endif
#ifdef MS_CU_OR_RC2 /* round 30A: the row cut's slots start zero; each step's K4 leaves its rows' zero */
    MS_CU_ALLOC(st->d_orc, (size_t)rows * MS_CU_ORRC * sizeof(uint32_t));
    e = cudaMemset(st->d_orc, 0, (size_t)rows * MS_CU_ORRC * sizeof(uint32_t));
    if (e != cudaSuccess) return ms_cu_err(res, e, "cudaMemset");
    { /* a measurement knob (round 30A's call 2): MS_CU_RC2_G=0 compiles the row cut but never takes it */
        st->rcmax = ms_cu_env_int("MS_CU_RC2_G", MS_CU_ORRC);
        if (st->rcmax > MS_CU_ORRC) st->rcmax = MS_CU_ORRC;
    }
#endif
#if defined(MS_CU_K1_ROWCUT) && defined(MS_CU_K1_RC_OWN) /* the bins start zero; each step's K4 leaves its rows' zero */
    MS_CU_ALLOC(st->d_rch, (size_t)rows * MS_CU_RCW * sizeof(uint32_t));
    e = cudaMemset(st->d_rch, 0, (size_t)rows * MS_CU_RCW * sizeof(uint32_t));
    if (e != cudaSuccess) return ms_cu_err(res, e, "cudaMemset");
#endif
#ifdef MS_CU_K1_ROWCUT
    { /* round 31A: a measurement knob, MS_CU_RC_MIN (tokens a chunk; 0: every plain step, a huge value: never) */
        st->rcmin = ms_cu_env_int("MS_CU_RC_MIN", MS_CU_RC_MINCHUNK);
        /* MS_CU_RC_BITS: 1: K1 counts, K2 never reads (K1's cost alone); 3: both */
#  ifdef MS_CU_RC_INST
#    ifdef MS_CU_RC_LEAN
        st->rcbits = ms_cu_env_int("MS_CU_RC_BITS", 15) & 63; /* round 33A: 8, K1's count filtered; 16 by the running max; 32 acq_rel */
#    else
        st->rcbits = ms_cu_env_int("MS_CU_RC_BITS", 7) & 7; /* round 32A: 4, K2's pre-test (ms_cu_k2_rowcut) */
#    endif
#  else
        st->rcbits = ms_cu_env_int("MS_CU_RC_BITS", 3) & 3;
#  endif
    }
#endif
#undef MS_CU_ALLOC
    st->h_kept = (uint8_t *)malloc((size_t)rows);
    if (!st->h_kept) return ms__fail(res, MS_ENOMEM, "commit flags");
#ifdef MS_CU_RC_INST
    st->h_rcq = (uint8_t *)calloc((size_t)res->params.capacity + 1, 1);
    if (!st->h_rcq) return ms__fail(res, MS_ENOMEM, "row cut flags");
    st->rc_slots = 0;
#endif
#if defined(MS_CU_OR_SMALLB) && defined(MS_CU_OR_GMAX)
    st->h_orx = (uint8_t *)calloc((size_t)res->params.capacity + 1, 1);
    if (!st->h_orx) return ms__fail(res, MS_ENOMEM, "one-read lite flags");
    st->orx_slots = 0;
#endif
    st->h_stage = (int32_t *)malloc((size_t)MS_CU_STAGE * sizeof(int32_t));
    if (!st->h_stage) return ms__fail(res, MS_ENOMEM, "token staging");
    e = cudaFuncSetAttribute(ms_cu_k4<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, MS_CU_K4_DYN);
#if defined(MS_CU_K4_PWOWN) && defined(MS_CU_K4_WARM)
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4w, cudaFuncAttributeMaxDynamicSharedMemorySize, MS_CU_K4_DYN);
#endif
#ifdef MS_CU_ONEREAD
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, MS_CU_K4_DYN);
#endif
#ifdef MS_CU_OR_RFK
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4rf, cudaFuncAttributeMaxDynamicSharedMemorySize, MS_CU_K4_DYN);
#endif
#ifdef MS_CU_K4_TWO
    if (e == cudaSuccess) e = cudaFuncSetAttribute(ms_cu_k4r, cudaFuncAttributeMaxDynamicSharedMemorySize, MS_CU_K4_DYN);
#endif
#if defined(MS_CU_CARVE)
    /* Round 20C (-DMS_CU_CARVE=<percent>): one shared-memory carveout preference for every kernel of a step. Without it
     * the driver sizes each kernel's carveout to its own needs (K1 and K3 ~1.5 KB a block, K2 ~41 KB, K4 ~170 KB), and a
     * multiprocessor changes its L1 / shared split only when it is idle: a K2 block could not join K1's blocks on a
     * multiprocessor configured for K1, even with registers free (at B=1 K2's blocks entered at 2.5 us, after K1's
     * left, though K1 releases them at its entry). A hint: kernels and results unchanged. Measured with 100 (H200,
     * docs/cuda.md round 20C): K2's blocks enter at 0.9 us at B=1; full setting B=64 1.8-2.1 us faster flat, but B=1
     * +2.4 (K4, which needs an empty multiprocessor, enters later and its warm-up ends last), B=256 +0.7..+1.4,
     * top-p alone peaked B=1 +1.3: off. */
    if (e == cudaSuccess) e = ms_cu_carve(MS_CU_CARVE);
#endif
    if (e != cudaSuccess) return ms_cu_err(res, e, "cudaFuncSetAttribute");
    return MS_OK;
}

extern "C" void ms__cuda_destroy(ms_resource *res) {
    ms_cu_state *st = ms_cu_st(res);
    if (!st) return;
    {
        ms_cu_dev guard(st->device);
        cudaStreamSynchronize(st->stream);
        cudaFree(st->d_slots);
        cudaFree(st->d_seen);
        cudaFree(st->d_hist);
        cudaFree(st->d_stop);
        cudaFree(st->d_row_slot);
        cudaFree(st->d_row_k);
        cudaFree(st->d_pend_tok);
        cudaFree(st->d_kept);
        cudaFree(st->d_stage);
        cudaFree(st->d_ws);
#ifdef MS_CU_OR_RC2
        cudaFree(st->d_orc);
#endif
#if defined(MS_CU_K1_ROWCUT) && defined(MS_CU_K1_RC_OWN)
        cudaFree(st->d_rch);
#endif
        cudaGetLastError();
    }
    free(st->h_kept);
#ifdef MS_CU_RC_INST
    free(st->h_rcq);
#endif
#if defined(MS_CU_OR_SMALLB) && defined(MS_CU_OR_GMAX)
    free(st->h_orx);
#endif
    free(st->h_stage);
    free(st);
    res->backend_state = NULL;
}

#if defined(MS_CU_OR_SMALLB) && defined(MS_CU_OR_GMAX)
/* Round 37C (-DMS_CU_OR_SMALLB): 1 when a request's settings would NOT make its rows lite one-read rows in a step of
 * MS_CU_OR_GMAX chunks a row with filters on: the complement of ms_cu_onread on the slot's fields (ms__cuda_ingest
 * copies them from cfg unchanged): min-p on (ms_cu_slot_row: min_p > 0 with the step's filters), a top-k of the default
 * order (ms_cu_filters: 0 < top_k < V; the rule's V >= 147456 is above MS_CU_STAGE_SH) of at most MS_CU_STAGE_SH
 * (ms_cu_lite_k), not greedy (T >= MS_GREEDY_TEMPERATURE: greedy rows take K1's argmax in either path), no window
 * penalty (rep != 1 with a window), and MS_CU_OR_GMAX lists of k + k / 8 + 8 within MS_CU_CAND. The row's alignment
 * is the step's (ms_cu_launch). */
static uint8_t ms_cu_or_nolite(const ms_req_config *cfg) {
    const int32_t k = cfg->top_k;
    const bool lite = cfg->min_p > 0.0f && k > 0 && k <= MS_CU_STAGE_SH && !cfg->top_p_first &&
                      !(cfg->temperature < MS_GREEDY_TEMPERATURE) &&
                      !(cfg->repetition_penalty != 1.0f && cfg->repetition_window > 0) &&
                      (int64_t)(MS_CU_OR_GMAX) * (int64_t)(k + k / 8 + 8) <= (int64_t)MS_CU_CAND;
    return lite ? 0 : 1;
}
#endif

extern "C" int ms__cuda_ingest(ms_resource *res, int32_t slot, const ms_req_config *cfg) {
    ms_cu_state *st = ms_cu_st(res);
    ms_cu_dev guard(st->device);
    ms_cu_slot s;
    memset(&s, 0, sizeof s);
    s.temperature = cfg->temperature;
    s.top_p = cfg->top_p;
    s.min_p = cfg->min_p;
    s.rep = cfg->repetition_penalty;
    s.top_k = cfg->top_k;
    s.window = cfg->repetition_window;
    s.min_tokens = cfg->min_tokens;
    s.min_keep = cfg->top_p_min_keep;
    s.top_p_first = cfg->top_p_first;
    s.used = 1;
    s.seed = cfg->seed;
    /* pageable source: copied to staging before the call returns, so `s` may go out of scope */
    cudaError_t e = cudaMemcpyAsync(st->d_slots + slot, &s, sizeof s, cudaMemcpyHostToDevice, st->stream);
    if (e != cudaSuccess) return ms_cu_err(res, e, "ingest");
#ifdef MS_CU_RC_INST
    { /* round 32A: a request that can take the row cut (top-k and min-p, the default order: ms_cu_k1_early's rows) */
        const uint8_t q = cfg->top_k > 0 && cfg->min_p > 0.0f && !cfg->top_p_first;
        st->rc_slots += (int32_t)q - (int32_t)st->h_rcq[slot];
        st->h_rcq[slot] = q;
    }
#endif
#if defined(MS_CU_OR_SMALLB) && defined(MS_CU_OR_GMAX)
    { /* round 37C: SMALLB's count of resident requests that are not lite one-read rows */
        const uint8_t q = ms_cu_or_nolite(cfg);
        st->orx_slots += (int32_t)q - (int32_t)st->h_orx[slot];
        st->h_orx[slot] = q;
    }
#endif
    return MS_OK;
}

extern "C" void ms__cuda_remove(ms_resource *res, int32_t slot) {
    ms_cu_state *st = ms_cu_st(res);
    ms_cu_dev guard(st->device);
    cudaMemsetAsync(st->d_slots + slot, 0, sizeof(ms_cu_slot), st->stream);
#ifdef MS_CU_RC_INST
    st->rc_slots -= (int32_t)st->h_rcq[slot]; /* round 32A */
    st->h_rcq[slot] = 0;
#endif
#if defined(MS_CU_OR_SMALLB) && defined(MS_CU_OR_GMAX)
    st->orx_slots -= (int32_t)st->h_orx[slot]; /* round 37C */
    st->h_orx[slot] = 0;
#endif
    if (st->d_seen)
        cudaMemsetAsync(st->d_seen + (size_t)slot * (size_t)res->bitset_words, 0, (size_t)res->bitset_words * 8,
                        st->stream);
}

/* n (<= MS_CU_STAGE) caller tokens to d_stage. The caller's array may be pinned (engines keep token ids in
 * page-locked memory), and a copy from pinned memory runs only when the stream reaches it: the caller could
 * change the tokens after the call returns (the header allows it), and unchecked values would reach the
 * kernels, which index the seen bitset with them. So the checked values are first copied into the
 * library's own pageable buffer, from which cudaMemcpyAsync has taken them before it returns (CUDA's rule
 * for pageable host to device copies), and h_stage may be reused at once. */
static cudaError_t ms_cu_stage_tokens(ms_cu_state *st, const int32_t *tokens, int32_t n) {
    memcpy(st->h_stage, tokens, (size_t)n * sizeof(int32_t));
    return cudaMemcpyAsync(st->d_stage, st->h_stage, (size_t)n * sizeof(int32_t), cudaMemcpyHostToDevice, st->stream);
}

extern "C" int ms__cuda_plan(ms_resource *res, const ms_step *step) {
    ms_cu_state *st = ms_cu_st(res);
    if (!st->d_seen) return MS_OK;
    ms_cu_dev guard(st->device);
    for (int32_t i = 0; i < step->n_prefill; i++) {
        const ms_prefill *pf = &step->prefill[i];
        int32_t slot = ms__slot_of(res, pf->rid);
        if (!res->slots[slot].cfg.penalize_prompt) continue;
        for (int32_t o = 0; o < pf->n_tokens; o += MS_CU_STAGE) {
            int32_t n = pf->n_tokens - o < MS_CU_STAGE ? pf->n_tokens - o : MS_CU_STAGE;
            cudaError_t e = ms_cu_stage_tokens(st, pf->tokens + o, n);
            if (e == cudaSuccess) {
                ms_cu_seen_k<<<(n + 255) / 256, 256, 0, st->stream>>>(
                    st->d_seen + (size_t)slot * (size_t)res->bitset_words, st->d_stage, n);
                e = cudaGetLastError();
            }
            if (e != cudaSuccess) return ms_cu_err(res, e, "plan");
        }
    }
    return MS_OK;
}

extern "C" int ms__cuda_accept(ms_resource *res, int32_t slot, const int32_t *tokens, int32_t n) {
    ms_cu_state *st = ms_cu_st(res);
    ms_cu_dev guard(st->device);
    for (int32_t o = 0; o < n; o += MS_CU_STAGE) {
        int32_t m = n - o < MS_CU_STAGE ? n - o : MS_CU_STAGE;
        cudaError_t e = ms_cu_stage_tokens(st, tokens + o, m);
        if (e == cudaSuccess) {
            ms_cu_accept_k<<<1, 1, 0, st->stream>>>(st->d_slots, slot, st->d_seen, res->bitset_words, st->d_hist,
                                                    res->spec.max_repetition_window, st->d_stage, m);
            e = cudaGetLastError();
        }
        if (e != cudaSuccess) return ms_cu_err(res, e, "accept");
    }
    return MS_OK;
}

extern "C" int ms__cuda_pull_slot(ms_resource *res, int32_t slot) {
    ms_cu_state *st = ms_cu_st(res);
    ms_cu_dev guard(st->device);
    ms_cu_slot s;
    cudaError_t e = cudaMemcpyAsync(&s, st->d_slots + slot, sizeof s, cudaMemcpyDeviceToHost, st->stream);
    if (e == cudaSuccess && st->d_seen)
        e = cudaMemcpyAsync(res->seen + (size_t)slot * (size_t)res->bitset_words,
                            st->d_seen + (size_t)slot * (size_t)res->bitset_words, (size_t)res->bitset_words * 8,
                            cudaMemcpyDeviceToHost, st->stream);
    const size_t hc = (size_t)res->spec.max_repetition_window;
    if (e == cudaSuccess && st->d_hist)
        e = cudaMemcpyAsync(res->hist + (size_t)slot * hc, st->d_hist + (size_t)slot * hc, hc * sizeof(int32_t),
                            cudaMemcpyDeviceToHost, st->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st->stream);
    if (e != cudaSuccess) return ms_cu_err(res, e, "reading the request state back");
    res->slots[slot].n = s.n;
    res->slots[slot].hist_len = s.hist_len;
    res->slots[slot].hist_head = s.hist_head;
    return MS_OK;
}

/* Round 11: the smallest chunk (tokens a K1..K3 block) for which K2 leaves its per-block bucket masses and K3
 * uses them (ms_cu_k3_pb), and for which K4's BAND walk takes 16-byte loads (ms_cu_draw_range_v). Measured (H200, top-p
 * flat, V=151936): both faster at B=64 / 256 (chunks of 19k / 30k tokens), slower at B=1 / 16 (1k / 4.6k); the
 * 16-byte walk slower at B=64 too. Tests lower them (ms__cuda_r11_minchunk) to reach small rows. */
#ifndef MS_CU_PB_MINCHUNK
#define MS_CU_PB_MINCHUNK 8192
#endif
#ifndef MS_CU_DRAWV_MINCHUNK
#define MS_CU_DRAWV_MINCHUNK 24576
#endif
static int32_t ms_cu_pb_min = MS_CU_PB_MINCHUNK, ms_cu_drawv_min = MS_CU_DRAWV_MINCHUNK;
#ifdef MS_CU_ONEREAD
/* Round 13: the one-read path for lite rows from this chunk size (at B=1 a row's ~1024-token chunks
 * have maxima far below the row's, so their superset C would be long; at V=151936 8192 enables B >= 32), and
 * since round 14 only for steps whose logits exceed L2 (ms_cu_launch). Tests set it (ms__cuda_oneread). */
#ifndef MS_CU_ONEREAD_MINCHUNK
#define MS_CU_ONEREAD_MINCHUNK 8192
#endif
static int32_t ms_cu_or_min = MS_CU_ONEREAD_MINCHUNK;
#ifndef MS_CU_ONEREAD_L2 /* 0: the path from MS_CU_ONEREAD_MINCHUNK alone (a measurement switch) */
#define MS_CU_ONEREAD_L2 1
#endif
static bool ms_cu_or_l2 = MS_CU_ONEREAD_L2; /* round 14: and only when the step's logits exceed L2 (off once a test sets the threshold) */
/* Round 27A (-DMS_CU_OR_WAVEQ=q, a measurement knob): the one-read steps' grid of q blocks a multiprocessor, where that
 * gives more chunks a row than ms_cu_grid's 4 (q / 4 waves); 4: ms_cu_grid's grid, the default. ms__cuda_orwaves sets
 * it at run time (the bench's MS_BENCH_ORWAVES). H200, full setting V=151936: 1.7-10.8 us slower at B=32..96 (q = 6, 8),
 * level at B=256; faster only at peaked B=128 (docs/cuda.md, round 27A). */
#ifndef MS_CU_OR_WAVEQ
#  define MS_CU_OR_WAVEQ 4
#endif
static int32_t ms_cu_or_waveq = MS_CU_OR_WAVEQ;
/* Round 28B (a measurement knob; 0: off, the default): the one-read steps' chunks a row G set directly (ms__cuda_org, the
 * bench's MS_BENCH_ORG), within the path's floor (ms_cu_or_min), K1..K3's (ms_cu_minchunk), MS_CU_OR_GMAX and chunks of
 * at most MS_CU_OR_CHUNKMAX tokens (ms_cu_or_grid). */
static int32_t ms_cu_or_g = 0;
#if defined(MS_CU_OR_DYN) && defined(MS_CU_OR_DYN_ALWAYS)
/* Round 29B: every row of the step takes round 28A's pieces in the ring-less K2or (ms_cu_k2_one's conditions, from the
 * step's arguments: the own workspace, rows aligned to groups of 4, every warp's first piece whole, the bitmap) */
static bool ms_cu_or_dyok(const ms_cu_args &a) {
    const size_t es = a.dtype == MS_DTYPE_F32 ? 4 : 2;
    constexpr int64_t PS = (int64_t)MS_CU_OR_DYN_PM * MS_CU_K2_NG * 128, nwb = MS_CU_T123 / 32;
    const int64_t tvr = a.V & ~3, P = (tvr + PS - 1) / PS;
    return a.dyq >= 0 && a.k4zero && ((uintptr_t)a.logits & (4 * es - 1)) == 0 && ((size_t)a.stride * a.elem) % (4 * es) == 0 &&
           (int64_t)a.G * nwb * PS <= tvr && P <= 32 * MS_CU_OR_DYN_BW;
}
#endif
/* Round 28B (MS_CU_OR_ONEWAVE: on since the twentieth session's final call; -DMS_CU_NO_OR_ONEWAVE off): the one-read
 * steps in one wave where ms_cu_grid's 32768-token chunk bound alone takes them past it (a host rule in ms_cu_or_grid).
 * In round 28B (H200, V=151936 / 262144) the full setting fp32 was 1.6-10.3 us faster at every B it changed, but top-p
 * alone on flat rows 23-102 us slower (their chunks exceeded round 23C's segment walk: MS_CU_SEGW_CHUNK, now 65536) and
 * bf16 peaked B=160 +7.9 (one run): docs/cuda.md, round 28B and the twentieth session's final call. ms__cuda_org's
 * second argument sets it at run time (the bench's MS_BENCH_ORG=0,1). */
#ifndef MS_CU_OR_ONEWAVE
#  ifdef MS_CU_NO_OR_ONEWAVE
#    define MS_CU_OR_ONEWAVE 0
#  else
#    define MS_CU_OR_ONEWAVE 1 /* on since the twentieth session's final call, for chunks up to MS_CU_OR_ONEWAVE_CHUNK */
#  endif
#endif
/* Twentieth session: the rule only where its chunks stay within this many tokens (V=151936: B=106..132, 4 chunks a row,
 * 37984 tokens). The lead's call L1 (bench/results/cuda_h200_2026-12-01-session20-l1.md, with MS_CU_SEGW_CHUNK=65536):
 * there full setting -3.8..-9.2 us, top-p alone -14.9..-30.3; at 3 chunks a row (B=133..176, 50646 tokens) the full
 * setting gained 1.7-8.5 but top-p alone lost at B=144 (+4.8 / +5.9) and bf16 peaked B=160 lost 7.9 (round 28B, one
 * run): left out until measured further. */
#ifndef MS_CU_OR_ONEWAVE_CHUNK
#  define MS_CU_OR_ONEWAVE_CHUNK 40960
#endif
static int32_t ms_cu_or_onewave = MS_CU_OR_ONEWAVE;
/* Round 29A (MS_CU_OR_R29, on by default since the twenty-first session's final call, -DMS_CU_NO_OR_R29 off: turns on the
 * three below; each can be set alone; host only): the one-wave rule per dtype and K2's ring in 2-byte one-read steps.
 * - MS_CU_OR_RING16: K2's cp.async ring in every one-read step of 2-byte logits (bf16 / fp16) whose chunks hold at
 *   least MS_CU_OR_RING16_MINCHUNK tokens, not only past one wave (ms_cu_ring_mode -1, the host's rule). Without the ring
 *   a K2or thread of bf16 keeps 2 groups of 8 bytes in flight (fp32: of 16), and the one-wave grids lost to the tail
 *   wave with the ring (H200, round 29A: bf16 peaked B=160 at G=3 without it 7-8 us slower than G=5 with it, K2's
 *   blocks ending at 45.5-50.9 us against 21.8-46.6; with it 0.5 us faster).
 * - MS_CU_OR_ONEWAVE_CHUNK16: the one-wave rule's chunk bound for 2-byte logits (with the ring, 65536: V=151936
 *   B=106..176, V=262144 B=67..132).
 * - MS_CU_OR_ONEWAVE_LOAD: past MS_CU_OR_ONEWAVE_CHUNK (up to MS_CU_OR_CHUNKMAX) the one-wave G only where its busiest
 *   multiprocessor has fewer tokens (ceil(n g / SMs) chunks of its size) than with ms_cu_grid's G: top-p alone is
 *   compute-bound in K2's histogram pass and K3, which follow that count (V=151936 fp32 G=3: B=133 / 144 lost 5-8 us, 6
 *   chunks of 30392 against 4 of 50648; B=159..176 gained, 7 against 4). V=151936: B=159..176 (3 chunks); V=262144:
 *   B=83..88 (6), 100..105 (5). */
#if !defined(MS_CU_NO_OR_R29) && !defined(MS_CU_OR_R29)
#  define MS_CU_OR_R29 1
#endif
#ifdef MS_CU_OR_R29
#  ifndef MS_CU_OR_RING16
#    define MS_CU_OR_RING16 1
#  endif
#  ifndef MS_CU_OR_RING16_MINCHUNK
#    define MS_CU_OR_RING16_MINCHUNK 16384
#  endif
#  ifndef MS_CU_OR_ONEWAVE_CHUNK16
#    define MS_CU_OR_ONEWAVE_CHUNK16 65536
#  endif
#  ifndef MS_CU_OR_ONEWAVE_LOAD
#    define MS_CU_OR_ONEWAVE_LOAD 1
#  endif
#endif
#ifndef MS_CU_OR_RING16
#  define MS_CU_OR_RING16 0
#endif
/* MS_CU_OR_RING16's smallest chunk (tokens): round 29A's call 2 measured the ring at bf16 B=32 (G=16, 9496-token chunks)
 * 0.8 us slower on flat rows (peaked -0.2), and from B=64 (18992) faster; 16384: V=151936 from B=53 (not run: N, the
 * binary measured, had no bound; below it the rule keeps the default's launch, D's numbers) */
#ifndef MS_CU_OR_RING16_MINCHUNK
#  define MS_CU_OR_RING16_MINCHUNK 0
#endif
#ifndef MS_CU_OR_ONEWAVE_CHUNK16
#  define MS_CU_OR_ONEWAVE_CHUNK16 MS_CU_OR_ONEWAVE_CHUNK
#endif
#ifndef MS_CU_OR_ONEWAVE_LOAD
#  define MS_CU_OR_ONEWAVE_LOAD 0
#endif
/* run-time copies (ms__cuda_orw, the bench's MS_BENCH_ORW: measurements) */
static int32_t ms_cu_ow_chunk = MS_CU_OR_ONEWAVE_CHUNK, ms_cu_ow_chunk16 = MS_CU_OR_ONEWAVE_CHUNK16;
static int32_t ms_cu_ow_load = MS_CU_OR_ONEWAVE_LOAD, ms_cu_or_ring16 = MS_CU_OR_RING16;
#endif
/* Round 28B: the largest chunk (tokens) a one-read step's grid may take below ms_cu_grid's 32768-token bound (that bound
 * keeps flat rows' min-p survivors within K2's stage; an overflow re-reads the chunk, exact). The kernels' own limit is
 * 65536: K2's histogram masses in 16-bit parts sum within 32 bits up to 2^16 tokens a chunk; K3's and K4's segment walk
 * (MS_CU_SEGW_MAX) falls back to chunk pairs for longer chunks; K4's chunk walk keeps a step's mass per 32 or 128
 * tokens in its 8192-entry list. */
#ifndef MS_CU_OR_CHUNKMAX
#  define MS_CU_OR_CHUNKMAX 65536
#endif
static_assert(MS_CU_OR_CHUNKMAX >= 32768 && MS_CU_OR_CHUNKMAX <= 65536, "K2's 16-bit mass parts: chunks of at most 2^16 tokens");
static_assert(MS_CU_OR_ONEWAVE_CHUNK <= MS_CU_OR_CHUNKMAX && MS_CU_OR_ONEWAVE_CHUNK <= MS_CU_SEGW_CHUNK, "the one-wave rule's chunks within K2's and the segment walk's bounds");
static_assert(MS_CU_OR_ONEWAVE_CHUNK16 <= MS_CU_OR_CHUNKMAX && MS_CU_OR_ONEWAVE_CHUNK16 <= MS_CU_SEGW_CHUNK, "round 29A: the 2-byte bound likewise");
#ifdef MS_CU_OR_FEW
static int32_t ms_cu_orfew_chunk = MS_CU_OR_FEWCHUNK, ms_cu_orfew_b = MS_CU_OR_FEWB; /* round 23A (ms__cuda_orfew) */
static int32_t ms_cu_orfew_warm = 1; /* round 23A: K4's warm-up pass in every few-chunk step (B=2 and 3 too) */
#endif
/* Round 15A: K2's scans through the cp.async ring (ms_cu_ring) only in steps whose K1..K3 grid exceeds one wave
 * (n G > MS_CU_K2_MINB blocks per multiprocessor): measured on the H200 (full setting, V=151936), the ring gained
 * 5.8-10.5 us a step at fp32 B=128 and 256 and 6.7-24.5 at bf16 B=128 and 256 (640 and 1280 blocks), and lost
 * 0.7-3.4 us at B=1..64 and flat B=96 (528 blocks or fewer: one wave), on both paths (docs/cuda.md, round 15A),
 * where each scan is no faster with it: not bound by bytes in flight. -1: that rule;
 * 0 / 1: off / on in every step (tests, ms__cuda_ring). -DMS_CU_NO_RING: never (the kernels not built). */
#ifndef MS_CU_RING_MODE /* a measurement switch: 1 builds the ring on in every step */
#  define MS_CU_RING_MODE -1
#endif
#ifndef MS_CU_NO_RING
static int ms_cu_ring_mode = MS_CU_RING_MODE;
#endif
extern "C" void ms__cuda_r11_minchunk(int32_t pb, int32_t drawv) {
    ms_cu_pb_min = pb < 0 ? MS_CU_PB_MINCHUNK : pb;
    ms_cu_drawv_min = drawv < 0 ? MS_CU_DRAWV_MINCHUNK : drawv;
}

/* The bytes a value the one-read path's L2 rule counts: 4 at every dtype since the tenth session (bf16 / fp16 steps
 * take the path from fp32's batch: H200, full setting V=151936 bf16, B=96 flat 68.4 -> 61.8 us, peaked 55.0 -> 47.4,
 * B=128 109.7 -> 85.4 and 94.0 -> 62.9, B=32 / 64 unchanged; top-p alone there 2.2-9.2 us slower, as the path's
 * <true> kernels run its rows: bench/results/cuda_h200_2026-11-30-session10-final.md). -DMS_CU_OR_ELEM_DTYPE counts
 * the dtype's own bytes, as rounds 14-15 did. */
/* Round 16A: the L2 rule's fraction in quarters of L2 (the path when n V 4 > L2 MS_CU_OR_L2Q / 4). 2 since round 16A:
 * B=64 at V=151936 fp32 (39 MB, under the H200's 3/4 of L2) gained on the path since the tenth session's bins of x
 * (H200, full setting: flat 48.3 -> 46.9 us, peaked 39.4 -> 35.9; bf16 50.9 -> 48.0, 40.1 -> 36.7) while B=48 (29 MB)
 * stayed mixed (flat +0.5, peaked -2.9) and B=32 lost (flat +1.9): docs/cuda.md, round 16A. 3: the rule before.
 * Round 25B: 1 (from 1/4 of L2: B >= 28 at V=151936 fp32, where the chunk rule binds, and B >= 17 at V=262144). The
 * path, much faster since (rounds 18-22), now won where the rule kept it off: H200, full setting fp32 V=151936 B=28..48
 * flat -0.9..-2.1 us, peaked -2.2..-3.2, bf16 B=28/40 -1.6..-3.5; V=262144 B=17..29 peaked -2.4..-3.1, flat B=29 -2.8
 * but B=17 / 24 +2.5 / +1.6 (22-31 chunks a row); top-p alone level but peaked B=48 +1.6 (1.6 %): docs/cuda.md,
 * round 25B. 2: the rule of rounds 16A-24 (-DMS_CU_NO_OR_QUARTER; 1 is defined near the other defaults at the top). */
#ifndef MS_CU_OR_L2Q
#  define MS_CU_OR_L2Q 2
#endif
/* Round 25B (MS_CU_OR_GMAX=n; 18 by default since the eighteenth session's final call): the L2 rule also asks for at most n chunks a row
 * (a.G). Flat rows lost on the path at 22 and 31 chunks (V=262144 B=24 / 17) and won at 18 and fewer; with n = 18 the
 * rule of 1/4 of L2 stays at B >= 28 at V=151936 and starts at B=28 at V=262144. Host only (B, V, the chip). */
#ifdef MS_CU_OR_ELEM_DTYPE
#  define MS_CU_OR_ELEM(e) ((int64_t)(e))
#else
#  define MS_CU_OR_ELEM(e) ((int64_t)4)
#endif
/* Round 16B: the smallest chunk of K1..K3 (tokens; the default 1024 since round 1). At small batches a row
 * spreads over up to V / MS_CU_MINCHUNK blocks (B=1, V=151936: 149 blocks of 1024 tokens); larger chunks give
 * fewer blocks, so fewer appends to a row's candidates (K2's atomics on cand_n) and fewer K1 atomics, at the
 * price of longer scans. Only the grid changes, never what a block computes from its chunk (exact for every
 * G, as G already varies with B). ms__cuda_minchunk sets it at run time (measurements and tests). */
#ifndef MS_CU_MINCHUNK
#  define MS_CU_MINCHUNK 1024
#endif
static int32_t ms_cu_minchunk = MS_CU_MINCHUNK;
extern "C" int32_t ms__cuda_minchunk(int32_t c) {
    if (c >= 8 && c <= 32768) ms_cu_minchunk = c;
    else if (c == -1) ms_cu_minchunk = MS_CU_MINCHUNK;
    return ms_cu_minchunk;
}
/* Blocks a row of K1..K3: about 4 blocks per multiprocessor in all (measured on an H200: 4 beat 3 and 8 at
 * B = 64 and 256, see docs/cuda.md): at small batches a row spreads over many blocks. Never chunks under
 * ms_cu_minchunk (1024 unless set), but chunks of at most 32768 tokens, so that a chunk's min-p survivors
 * usually fit K2's stage (flat rows at B=256 overflowed it with 76k-token chunks and took the re-reading path). */
/* The fewest chunks a row of V tokens takes: chunks of at most 32768 tokens (ms_cu_grid, and the rules that change G) */
static int32_t ms_cu_grid_least(int32_t V) {
    return (int32_t)((V + 32767) / 32768);
}
static int32_t ms_cu_grid(int sm_count, int32_t n, int32_t V) {
    const int64_t want = ((int64_t)sm_count * 4) / n; /* rounded down: all blocks in one wave */
    const int64_t most = ((int64_t)V + ms_cu_minchunk - 1) / ms_cu_minchunk;
    int32_t G = (int32_t)(want < most ? want : most);
    const int32_t least = ms_cu_grid_least(V);
    if (G < least) G = least;
    if (G < 1) G = 1;
    return G;
}

/* A row's chunk (tokens) with G chunks a row: the kernels' ((V + G - 1) / G + 7) & ~7, on the host */
static int32_t ms_cu_chunk_of(int32_t V, int32_t G) {
    return (int32_t)((((int64_t)V + G - 1) / G + 7) & ~(int64_t)7);
}

/* a.G = G and what follows from its chunk (returned): K2's per-block masses (a.pb, round 11; pb: their place in the
 * workspace) and K4's 16-byte walk (a.drawv). The launch's rule and the one-read grid (ms_cu_or_grid) both set it here. */
static int32_t ms_cu_set_grid(ms_cu_args &a, const ms_cu_state *st, int32_t n, int32_t G, char *pb) {
    a.G = G;
    const int32_t chunk = ms_cu_chunk_of(a.V, G);
    a.pb = (size_t)n * (size_t)G <= ms_cu_pb_blocks(st, n) && chunk >= ms_cu_pb_min ? (unsigned long long *)pb : NULL;
    a.drawv = chunk >= ms_cu_drawv_min;
    return chunk;
}

#ifdef MS_CU_ONEREAD
/* A one-read step's chunks a row, from ms_cu_grid's G (from B, V and the chip alone: capturable; any G is exact, the
 * row's candidates being the union of its chunks' lists). G itself unless a knob asks for another: round 27A's q blocks a
 * multiprocessor (ms__cuda_orwaves; only more chunks than G), round 28B's G set directly (ms__cuda_org). Never chunks
 * under the path's floor (ms_cu_or_min) or K1..K3's (ms_cu_minchunk), more than MS_CU_OR_GMAX a row, or chunks over
 * MS_CU_OR_CHUNKMAX tokens. */
static int64_t ms_cu_or_bound(int32_t V, int64_t g) {
    const int64_t most = ((int64_t)V + ms_cu_minchunk - 1) / ms_cu_minchunk;
    if (ms_cu_or_min > 0 && g > (int64_t)V / ms_cu_or_min) g = (int64_t)V / ms_cu_or_min;
    if (g > most) g = most;
#ifdef MS_CU_OR_GMAX
    if (g > (int64_t)(MS_CU_OR_GMAX)) g = (int64_t)(MS_CU_OR_GMAX);
#endif
    const int64_t least = ((int64_t)V + MS_CU_OR_CHUNKMAX - 1) / MS_CU_OR_CHUNKMAX;
    if (g < least) g = least;
    return g < 1 ? 1 : g;
}
/* Round 29A: the most tokens a multiprocessor scans with g chunks a row (ceil(n g / SMs) blocks of g's chunk) */
static int64_t ms_cu_or_smload(int sm_count, int32_t n, int32_t V, int64_t g) {
    return ((int64_t)n * g + sm_count - 1) / sm_count * ms_cu_chunk_of(V, (int32_t)g);
}
static int32_t ms_cu_or_grid(int sm_count, int32_t n, int32_t V, int32_t G, int elem) {
    int64_t g2 = G;
    if (ms_cu_or_onewave && ms_cu_or_waveq <= 4 && ms_cu_or_g <= 0) {
        /* Round 28B (MS_CU_OR_ONEWAVE, on): where ms_cu_grid's G exceeds its one wave (4 blocks a multiprocessor) only
         * because of its 32768-token chunk bound (V=151936: G = 5 at B >= 106), the one-read step takes the wave's G when
         * its chunks stay within MS_CU_OR_ONEWAVE_CHUNK (40960) tokens: one wave, no tail wave, K2's ring off (the host's
         * rule follows the blocks). V=151936: B=106..132 4 chunks a row; V=262144: B=67..75 7 instead of 8.
         * The bound was set for K2's min-p stage (flat rows' survivors of a chunk; an overflow re-reads the chunk: exact,
         * slower): a flat row stages ~500 tokens a 19k chunk, ~1.3k a 51k chunk, within the stage's 2048. */
        const int64_t wave = (int64_t)sm_count * 4;
        if ((int64_t)n * G > wave) {
            const int64_t g1 = wave / (int64_t)n;
            /* round 29A: the bound per dtype (ms_cu_ow_chunk16 for 2-byte logits; both MS_CU_OR_ONEWAVE_CHUNK by default) */
            const int64_t cb = elem == 2 ? ms_cu_ow_chunk16 : ms_cu_ow_chunk;
            if (g1 >= 1 && g1 < G) {
                if (g1 >= ((int64_t)V + cb - 1) / cb) return (int32_t)g1;
                /* round 29A (MS_CU_OR_ONEWAVE_LOAD, on with MS_CU_OR_R29): larger chunks, up to MS_CU_OR_CHUNKMAX, where the
                 * busiest multiprocessor scans fewer tokens than with G */
                if (ms_cu_ow_load && g1 >= ((int64_t)V + MS_CU_OR_CHUNKMAX - 1) / MS_CU_OR_CHUNKMAX &&
                    ms_cu_or_smload(sm_count, n, V, g1) < ms_cu_or_smload(sm_count, n, V, G))
                    return (int32_t)g1;
            }
        }
        return G;
    }
    if (ms_cu_or_waveq > 4) { /* round 27A: only ever more chunks than G */
        const int64_t q = ms_cu_or_bound(V, ((int64_t)sm_count * ms_cu_or_waveq) / (int64_t)n);
        if (q > g2) g2 = q;
    }
    if (ms_cu_or_g > 0) g2 = ms_cu_or_bound(V, ms_cu_or_g);
    return (int32_t)g2;
}
#endif

/* A launch configuration on stream s, with programmatic dependent launch's attribute (its storage *at) when pdl:
 * the one setup of ms_cu_launch's K1..K4 and ms__cuda_chain's kernels. */
static cudaLaunchConfig_t ms_cu_cfg(cudaStream_t s, cudaLaunchAttribute *at, bool pdl, unsigned grid, unsigned block,
                                    size_t smem) {
    at->id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at->val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cfg.attrs = at;
    cfg.numAttrs = pdl ? 1 : 0;
    return cfg;
}

#ifdef MS_CU_K4_ZERO
/* Round 17C's dirty workspace: zeroes, on the resource's stream, every row's stats and what the off switches keep
 * beside them (round 30A's row-cut slots, round 31A's bins), as a step that failed half-way may have left them.
 * Returns the first failure and names it in *what; the memsets after a failure are not enqueued. */
static cudaError_t ms_cu_zero_own(ms_resource *res, void *stats, size_t stat_bytes, const char **what) {
    ms_cu_state *st = ms_cu_st(res);
    *what = "sample: zeroing the stats";
    cudaError_t e = cudaMemsetAsync(stats, 0, stat_bytes, st->stream);
#  ifdef MS_CU_OR_RC2 /* round 30A: and the row cut's slots */
    if (e == cudaSuccess) {
        *what = "sample: zeroing the row cut's slots";
        e = cudaMemsetAsync(st->d_orc, 0, (size_t)res->params.max_rows * MS_CU_ORRC * sizeof(uint32_t), st->stream);
    }
#  endif
#  if defined(MS_CU_K1_ROWCUT) && defined(MS_CU_K1_RC_OWN) /* and round 31A's bins */
    if (e == cudaSuccess) {
        *what = "sample: zeroing the row cut's bins";
        e = cudaMemsetAsync(st->d_rch, 0, (size_t)res->params.max_rows * MS_CU_RCW * sizeof(uint32_t), st->stream);
    }
#  endif
    return e;
}
#endif

/* Enqueues the whole pipeline (K0, then K1 to K4). */
static int ms_cu_launch(ms_resource *res, int32_t n, const int32_t *d_row_slot, const int32_t *d_row_k,
                        const void *logits, ms_dtype dtype, int32_t V, int64_t stride, bool apply_penalty,
                        bool apply_filters, int32_t *tokens, int32_t *status, int32_t *pend, void *ws) {
    ms_cu_state *st = ms_cu_st(res);
    if (n == 0) return MS_OK;
    ms_cu_args a;
    memset(&a, 0, sizeof a);
#ifdef MS_CU_OR_TAPER
    a.tpe = st->tpe; /* round 32B: read by the ring-less K2or alone */
#endif
#ifdef MS_CU_OR_TAIL2
    a.tl2 = st->tl2; /* round 33B: read by K2or alone */
#ifdef MS_CU_OR_SPF_RT
    a.spf = st->spf ? 1 : 0; /* round 35B */
#endif
#endif
#ifdef MS_CU_OR_DCUT2_RT
    a.dc2 = st->dc2;
#endif
    a.slots = st->d_slots;
    a.row_slot = d_row_slot;
    a.row_k = d_row_k;
    a.capacity = res->params.capacity;
    a.logits = (const char *)logits;
    a.dtype = (int)dtype;
    a.elem = dtype == MS_DTYPE_F32 ? 4 : 2;
    a.stride = stride;
    a.V = V;
    a.G = ms_cu_grid(st->sm_count, n, V);
#ifdef MS_CU_WARM_CHUNK
    /* Round 34A (MS_CU_WARM_CHUNK=c, host only, on: c = 1536, above): the warm-up steps (at most two K1..K3 blocks a multiprocessor
     * with the default grid: B=1 at V=151936, where a.k4warm below holds) of 4-byte logits take chunks of at least c
     * tokens (st->wchunk, MS_CU_WARMCHUNK in the environment at resource creation: a measurement knob, 0 off), unless a
     * test or the bench set K1..K3's smallest chunk (ms__cuda_minchunk). Fewer, larger chunks: K1 leaves multiprocessors
     * free, so K2's blocks (and K4w's) enter while K1 runs and K2's waits pass together (stamps: docs/cuda.md, round 34A).
     * Not for 2-byte logits (bf16 B=1 0.2-0.35 us slower at c = 2048 in round 34A's first call). From B, V, the dtype
     * and the chip alone (capturable); only the grid changes, never what a block computes from its chunk: exact for
     * every G (round 16B). n G only falls, so the step stays a warm-up step. */
    if (st->wchunk > 0 && a.elem == 4 && ms_cu_minchunk == MS_CU_MINCHUNK &&
        (int64_t)n * a.G <= 2 * (int64_t)st->sm_count) {
        const int32_t g2 = (int32_t)(((int64_t)V + st->wchunk - 1) / st->wchunk);
        if (g2 >= 1 && g2 >= ms_cu_grid_least(V) && g2 < a.G) a.G = g2;
    }
#endif
#ifdef MS_CU_K4_FREESM
    /* Round 20C (-DMS_CU_K4_FREESM, with -DMS_CU_CARVE): in the steps of K4's warm-up (at most two K1..K3 blocks a
     * multiprocessor: B=1 at V=151936), K1..K3's grid leaves n multiprocessors without a block, so that K4's blocks
     * (a whole multiprocessor each: 512 threads x 128 registers) can start, and run their warm-up pass, while K1..K3
     * run. With one carveout for every kernel, K2's and K3's blocks join K1's on its multiprocessors, and with 149
     * blocks on 132 none was left free: K4 entered only when K2's first blocks left (6.9 us) and its warm-up ended
     * last (12.3 us, stamps). From B, V and the multiprocessor count alone (capturable); any G is exact. Measured
     * (H200, with -DMS_CU_CARVE=100 -DMS_CU_K3_B0LATE, one run): B=1 flat -0.1, peaked -0.45 us against main; off. */
    if ((int64_t)n * a.G <= 2 * (int64_t)st->sm_count && n < st->sm_count) {
        const int32_t g2 = (st->sm_count - n) / n;
        if (g2 >= ms_cu_grid_least(V) && g2 < a.G) a.G = g2;
    }
#endif
    a.apply_penalty = apply_penalty;
    a.apply_filters = apply_filters;
    a.seen = st->d_seen;
    a.seen_words = res->bitset_words;
    a.hist = st->d_hist;
    a.hist_cap = res->spec.max_repetition_window;
    a.stop = st->d_stop;
    a.tokens = tokens;
    a.status = status;
    a.pend = pend;
    char *p = (char *)ws;
    a.stats = (ms_cu_rowstat *)p;
#ifdef MS_CU_K4_ZERO
    /* Round 17C: the resource's own workspace keeps the stats of all max_rows rows zero between steps (K4 zeroes its
     * rows'; those past a step's n are never written), so they sit at a fixed place, max_rows rows long; the rest
     * follows (n <= max_rows, so it fits ms_cu_ws_size(max_rows)). A caller's workspace: K0, as before. */
    const bool own = ws == st->d_ws;
    const size_t stat_bytes = (size_t)(own ? res->params.max_rows : n) * sizeof(ms_cu_rowstat);
    a.k4zero = own;
#  ifdef MS_CU_OR_RC2
    a.orc = own ? st->d_orc : NULL; /* round 30A */
    a.rcmax = st->rcmax;
#  endif
#else
    const size_t stat_bytes = (size_t)n * sizeof(ms_cu_rowstat);
#endif
    p += ms_cu_align(stat_bytes);
    a.hcnt = (uint32_t *)p;
    p += ms_cu_align((size_t)n * MS_CU_HB * sizeof(uint32_t));
    a.hmass = (unsigned long long *)p;
    p += ms_cu_align((size_t)n * MS_CU_HB * sizeof(unsigned long long));
    a.cand = (unsigned long long *)p;
    p += ms_cu_align((size_t)n * MS_CU_CAND * sizeof(unsigned long long));
    { /* round 11: both only for large chunks (measured: faster from B=64, slower at B=1 and 16; docs/cuda.md) */
        const int32_t chunk = ms_cu_set_grid(a, st, n, a.G, p);
#ifdef MS_CU_ONEREAD
        /* From B, V and the dtype alone: the same in a captured graph. Round 14: and only when the step's
         * logits do not fit in L2, where K1's read is the one from DRAM that the path saves; when they fit,
         * K2's second read comes from L2 and the path did not pay (H200, fp32 V=151936: flat B=32 35.8 ->
         * 38.9 us, B=64 49.3 -> 49.8; at B=128 and 256, 78 and 156 MB, it gained 10-28 us). Ninth session:
         * from 3/4 of L2, since B=96 (58 MB, just under the H200's L2) gained too (flat 64.1 -> 59.0 us,
         * peaked 54.2 -> 44.0) while B=64 (39 MB) was mixed (flat +0.6, peaked -3.3). Tenth session: the logits
         * counted at 4 bytes a value whatever the dtype (MS_CU_OR_ELEM): measured at bf16, the path paid from
         * the same batch as at fp32. Round 16A: from 1/2 of L2 (MS_CU_OR_L2Q), since B=64 gained too; round 25B: from
         * 1/4 of L2, since B=28..48 gained too. */
        a.oneread = chunk >= ms_cu_or_min &&
                    (!ms_cu_or_l2 || (int64_t)n * V * MS_CU_OR_ELEM(a.elem) * 4 > (int64_t)st->l2_bytes * MS_CU_OR_L2Q);
#ifdef MS_CU_OR_GMAX
        if (ms_cu_or_l2 && a.G > (int32_t)(MS_CU_OR_GMAX)) a.oneread = 0; /* round 25B: at most n chunks a row (18 by default) */
#endif
#if defined(MS_CU_OR_SMALLB) && defined(MS_CU_OR_GMAX)
        /* Round 37C (MS_CU_OR_SMALLB=g, on since the twenty-ninth session's final calls, g = 24): a two-pass step whose
         * grid (ms_cu_grid) has at most g chunks a row takes the one-read path in MS_CU_OR_GMAX chunks a row when the
         * row holds that many of the path's chunks (ms_cu_or_bound: V >= 18 x 8192 by default), whatever the L2 rule
         * says: with g = 22, B=23..27 at V=151936 and 262144 on 132 multiprocessors (g = 24: B=22..27). H200, full setting: fp32 V=151936 peaked -1.0..-1.9 us, flat B=23 / 24 level, B=25..27
         * -0.5..-0.9, bf16 and V=262144 likewise or better; but top-p alone +1.2..+3.8 at B=24 / 27 (its rows lose
         * ms_cu_grid's 22 chunks a row and run the path's <true> kernels): off (docs/cuda.md, round 37C). At B <= 20 the
         * path loses on flat rows at every G measured. From B, V and the chip alone (capturable); exact, as both paths are
         * for any G. Not where a test set the threshold (ms__cuda_oneread turns ms_cu_or_l2 off).
         * Round 37C part 2 (unless -DMS_CU_OR_SMALLB_ALL, the rule above alone): only while every resident request
         * would be a lite one-read row (st->orx_slots == 0, kept by ms__cuda_ingest / ms__cuda_remove from the slots'
         * settings, ms_cu_or_nolite; as round 32A's rc_slots), in a step with filters on (else no row is lite) whose
         * rows all start aligned to 4 values (ms_cu_onread's last test: the base and the stride), so that top-p alone,
         * greedy, HF-order or unfiltered rows keep the default's two-pass step. A superset of the step's rows (resident
         * requests without a row count too). Any choice is exact (both paths are); a captured graph keeps the choice it
         * was captured with. H200 (docs/cuda.md, round 37C part 2): full setting as above (peaked B=24 / 27 -1.65..-1.86
         * us, flat B=27 -0.84..-1.05), top-p alone level (-0.17..+0.02): recommended on; validated and on since the
         * twenty-ninth session's final call at g = 22, and at g = 24 (B=22 too: flat -0.87, peaked -1.49 us) since its
         * last call (MS_CU_OR_SMALLB 24 defined above; -DMS_CU_NO_OR_SMALLB builds without it). */
#  ifndef MS_CU_OR_SMALLB_ALL
        const bool smallb_ok = apply_filters && st->orx_slots == 0 &&
                               ((uintptr_t)logits & (uintptr_t)(4 * a.elem - 1)) == 0 && (stride & 3) == 0;
#  else
        const bool smallb_ok = true;
#  endif
        if (smallb_ok && !a.oneread && ms_cu_or_l2 && a.G <= (int32_t)(MS_CU_OR_SMALLB) &&
            ms_cu_or_bound(V, (int64_t)(MS_CU_OR_GMAX)) == (int64_t)(MS_CU_OR_GMAX) && (int32_t)(MS_CU_OR_GMAX) < a.G) {
            (void)ms_cu_set_grid(a, st, n, (int32_t)(MS_CU_OR_GMAX), p);
            a.oneread = 1;
        }
#endif
        if (a.oneread) {
            /* Round 28B's one-wave rule (on), round 27A's -DMS_CU_OR_WAVEQ=q (more, smaller chunks; measured slower at
             * B=32..96) and round 28B's G set directly (knobs, off by default). The ring follows the blocks. */
            const int32_t g2 = ms_cu_or_grid(st->sm_count, n, V, a.G, a.elem);
            if (g2 != a.G) (void)ms_cu_set_grid(a, st, n, g2, p);
        }
#endif
#ifdef MS_CU_OR_FEW
        /* Round 23A: at B <= ms_cu_orfew_b the one-read rows take a.Go chunks of about ms_cu_orfew_chunk tokens (from B
         * and V alone: capturable), when that is fewer than a.G and the chunk reaches the path's threshold (the tests'
         * ms__cuda_oneread: INT32_MAX keeps it off, 0 or 8192 on) */
        a.Go = a.G;
        if (n <= ms_cu_orfew_b && ms_cu_orfew_chunk > 0) {
            const int32_t go = (int32_t)(((int64_t)V + ms_cu_orfew_chunk - 1) / ms_cu_orfew_chunk);
            const int32_t ochunk = ms_cu_chunk_of(V, go);
            if (go < a.G && ochunk >= ms_cu_or_min) {
                a.Go = go;
                a.oneread = 1;
            }
        }
#endif
    }
#ifdef MS_CU_K1_ROWCUT
    /* round 31A: from B, V and the chip alone (capturable); any value is exact (without it K1 counts nothing, K2 cuts nothing) */
    a.rcut = ms_cu_chunk_of(a.V, a.G) >= st->rcmin ? st->rcbits : 0;
#  ifdef MS_CU_K1_RC_OWN
    a.rch = st->d_rch;
    if (!a.k4zero) a.rcut = 0; /* a caller's workspace: no bins (K0 zeroes only the stats) */
#  endif
#  ifdef MS_CU_RC_INST
    /* Round 32A: the cut only while a resident request can take it (filters on; top-k and min-p on, the default order:
     * st->rc_slots, kept by ms__cuda_ingest / ms__cuda_remove; a superset of the rows whose K1 counts, ms_cu_k1_early),
     * so that top-p alone runs the default's kernels. Any value is exact (above); a captured graph keeps the one it was
     * captured with. */
    if (!apply_filters || st->rc_slots == 0) a.rcut = 0;
#  endif
#endif
    const unsigned blocks = (unsigned)((int64_t)n * a.G);
    /* Round 16B: K4's warm-up pass only where K4's blocks can start early: they need a multiprocessor with
     * no K2 block (K4 holds 120 registers x 512 threads), so only in steps with at most two K1..K3 blocks per
     * multiprocessor (B <= 3 at V=151936; B=4 has 528 blocks and the pass then delayed K4: +2.8 us) */
#ifdef MS_CU_K4_WARM
    a.k4warm = (int64_t)blocks <= 2 * (int64_t)st->sm_count;
#endif
#if defined(MS_CU_OR_FEW) && defined(MS_CU_K4_WARM)
    /* round 23A: a few-chunk step's K2 blocks but n a.Go return at once, so K4's blocks find free multiprocessors early */
    if (a.Go != a.G && ms_cu_orfew_warm) a.k4warm = 1;
#endif
    void (*k1)(ms_cu_args) = ms_cu_k1<false>;
    void (*k2)(ms_cu_args) = ms_cu_k2<false, false>;
    void (*k4)(ms_cu_args) = ms_cu_k4<false>;
#if defined(MS_CU_K4_PWOWN) && defined(MS_CU_K4_WARM)
    if (a.k4warm) k4 = ms_cu_k4w; /* round 21C (-DMS_CU_K4_PWOWN): the warm-up steps' K4, with the grouped pass */
#endif
#ifdef MS_CU_K3_KERNEL
    void (*k3)(ms_cu_args) = ms_cu_k3<MS_CU_K3_B0>;
#  if defined(MS_CU_K3W_B0LATE) && defined(MS_CU_K4_WARM) && defined(MS_CU_K3_NOWAIT)
    if (a.k4warm) k3 = ms_cu_k3<true>; /* after round 21C (-DMS_CU_K3W_B0LATE): B0LATE in the warm-up steps only */
#  endif
#endif
#ifdef MS_CU_K4_TWO
    /* round 20B: K4L then K4R where ms_cu_k4<true> would run in more than one wave (one block a multiprocessor) */
    const bool k4two = a.oneread && n > st->sm_count;
    constexpr size_t k4l_smem = (size_t)2 * MS_CU_K4L_CAP * sizeof(unsigned long long); /* the list, the trim's scratch */
    static_assert(MS_CU_K4L_CAP >= 4 * MS_CU_WARP_N + 1 && MS_CU_K4L_CAP <= MS_CU_CAND, "K4L's finish scratch after the list");
#endif
#ifndef MS_CU_NO_RING
#  ifdef MS_CU_ONEREAD
    /* round 29A (MS_CU_OR_RING16, on with MS_CU_OR_R29): the host's rule takes the ring in every one-read step of 2-byte logits */
    const bool ring16 = ms_cu_or_ring16 && a.oneread && a.elem == 2 &&
                        ms_cu_chunk_of(a.V, a.G) >= (int32_t)(MS_CU_OR_RING16_MINCHUNK);
#  else
    const bool ring16 = false;
#  endif
#ifdef MS_CU_OR_LOOP2
    const bool ring = st->ringk || (ms_cu_ring_mode < 0 ? (int64_t)blocks > (int64_t)st->sm_count * MS_CU_K2_MINB || ring16
                                                        : ms_cu_ring_mode > 0); /* round 34C's knob */
#else
    const bool ring = ms_cu_ring_mode < 0 ? (int64_t)blocks > (int64_t)st->sm_count * MS_CU_K2_MINB || ring16
                                          : ms_cu_ring_mode > 0;
#endif
    if (ring) k2 = ms_cu_k2<false, true>;
#endif
#ifdef MS_CU_ONEREAD
    if (a.oneread) { /* round 14: the one-read path's instantiations only in steps that can take it */
        k1 = ms_cu_k1<true>;
#  ifdef MS_CU_OR_K2OWN
        k2 = ms_cu_k2<true, false, true>; /* round 18D: K2or */
#  else
        k2 = ms_cu_k2<true, false>;
#  endif
        k4 = ms_cu_k4<true>;
#  ifndef MS_CU_NO_RING
#    ifdef MS_CU_OR_K2OWN
        if (ring) k2 = ms_cu_k2<true, true, true>;
#    else
        if (ring) k2 = ms_cu_k2<true, true>;
#    endif
#  endif
#  if defined(MS_CU_OR_DYN) && defined(MS_CU_OR_DYN_ALWAYS)
        /* round 29B: the ring-less K2or runs the pieces alone; a step whose rows do not all qualify takes the ring's */
        a.dyq = ms_cu_or_dyq;
        if (!ring && !ms_cu_or_dyok(a)) k2 = ms_cu_k2<true, true, true>;
#  endif
    }
#endif
#ifdef MS_CU_K3W_K2
    /* Round 25A: in the steps that launch K4w with K2's plain instantiation (the warm-up steps; not where the tests'
     * hooks force the one-read path or the ring), K2's grid of 2 n G blocks does K3's work (ms_cu_k2_k3w) and K3 is not
     * launched. From B, V and the hooks alone: capturable. */
#  if MS_CU_K3W_K2 >= 2
    /* -DMS_CU_K3W_K2=2: every step of K2's plain instantiation (no one-read path, no ring: its n G blocks in one wave) */
    a.k3w = k2 == ms_cu_k2<false, false> ? 1 : 0;
#  else
    a.k3w = a.k4warm && k4 == ms_cu_k4w && k2 == ms_cu_k2<false, false> ? 1 : 0;
#  endif
#  if MS_CU_K3W_K2 >= 3
    /* Round 26D (-DMS_CU_K3W_K2=3): =2's steps and the one-read steps without the ring (K2or's n G blocks fit at once) and without
     * K4L / K4R (K4L marks its rows in k3done; K4R reads it). K2or's n G main blocks have the lower indices, dispatched
     * first: a gather block spins only for a row whose main blocks were all dispatched before it, and at most
     * ms_cu_k3_spin_ns, after which K4<true> serves the row whole (its k3done check). */
    bool k3or = k2 == ms_cu_k2<true, false, true>;
#    ifdef MS_CU_K4_TWO
    k3or = k3or && !k4two;
#    endif
    if (k3or) a.k3w = 1;
    if (a.k3w) k2 = k2 == ms_cu_k2<true, false, true> ? ms_cu_k2<true, false, true, true> : ms_cu_k2<false, false, false, true>;
#  else
    if (a.k3w) k2 = ms_cu_k2<false, false, false, true>;
#  endif
    const unsigned k2blocks = a.k3w ? 2u * blocks : blocks;
#else
    const unsigned k2blocks = blocks;
#endif
#ifdef MS_CU_RC_INST
    /* Round 32A: the cut's instantiations in the steps that take it, only in the plain lite steps whose K4 is K4<false>
     * (not the one-read steps, whose K1<true> counts nothing, nor the warm-up steps' K4w: B <= 3 at V=151936); every
     * other step launches the RC false kernels, the default's code, and K4 is the default's in every step. K1<false,
     * true> counts the bins, K2's RC instantiation of the step's kind (K3W: no ring; the ring) reads them and its row's
     * last block zeroes them: the two are chosen together from a.rcut, so a step that counts also zeroes (a captured
     * graph keeps both). */
    if (a.oneread || k4 != ms_cu_k4<false>) a.rcut = 0;
    if (a.rcut) {
        void (*k2rc)(ms_cu_args) = NULL; /* K2's RC instantiation of the step's kind; none: no cut this step */
        if (k2 == ms_cu_k2<false, false, false, true>) k2rc = ms_cu_k2<false, false, false, true, true>;
        else if (k2 == ms_cu_k2<false, true>) k2rc = ms_cu_k2<false, true, false, false, true>;
        else if (k2 == ms_cu_k2<false, false>) k2rc = ms_cu_k2<false, false, false, false, true>;
        if (k2rc) {
            k1 = ms_cu_k1<false, true>;
            k2 = k2rc; /* it also leaves the bins zero (ms_cu_k2_rczero): K1 counts only where it runs */
        } else {
            a.rcut = 0;
        }
    }
#endif
#ifdef MS_CU_OR_RFNR
    /* Round 33C: the per-row count only where K2or runs without the ring (its blocks in one wave) and K4 is K4<true>,
     * on the resource's own workspace (whose stats, c_above too, are zero at a step's start). K2or (RG false) counts
     * and K4<true> waits on the same flag, so both sides agree; from B, V and the dtype alone: capturable. */
    a.orf = own && a.oneread && k2 != ms_cu_k2<true, true, true> ? 1 : 0; /* K4<true>: not in K4L / K4R's steps */
#  ifdef MS_CU_K4_TWO
    if (k4two) a.orf = 0;
#  endif
#  ifdef MS_CU_OR_RFK
    if (a.orf) k4 = ms_cu_k4rf; /* round 33C: the count's wait in a kernel of its own */
#  endif
#endif
    static_assert(sizeof(ms_cu_rowstat) % sizeof(unsigned long long) == 0, "K0 zeroes the stats in 8-byte words");
    bool k0 = true;
#ifdef MS_CU_K4_ZERO
    if (own) { /* round 17C: no K0; K1 plain, so it starts after the previous step's K4 completed */
        k0 = false;
        if (st->ws_dirty) { /* a step failed half-way: zero every row's stats first (a memset node in a capture) */
            const char *what = NULL;
            cudaError_t e = ms_cu_zero_own(res, a.stats, stat_bytes, &what);
            if (e != cudaSuccess) return ms_cu_err(res, e, what);
            cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
            e = cudaStreamIsCapturing(st->stream, &cs);
            if (e != cudaSuccess) return ms_cu_err(res, e, "sample: capture status");
            if (cs == cudaStreamCaptureStatusNone) st->ws_dirty = false; /* captured: only once a plain call ran it */
        }
    }
#endif
    if (k0) ms_cu_k0<<<1, 256, 0, st->stream>>>(a.stats, n);
    cudaError_t e = cudaSuccess;
    if (st->pdl) { /* K2..K4 scheduled while the previous kernel finishes (ms_cu_pdl_wait) */
        /* K1 after K0 with PDL: its pass overlaps K0; it waits for K0 before its atomics. Without K0, plain.
         * Round 22D (MS_CU_CARVE_OW, on since the sixteenth session's final call): in one-read steps without the ring
         * (K2or's grid in one wave: B = 52..66 at fp32 V=151936 on the H200) K1 and K2 also take the shared-memory
         * carveout preference as a launch attribute (which takes precedence over the function's, and a captured graph's
         * kernel node keeps), so that a multiprocessor keeps a large carveout while K1's blocks are resident and K2's
         * (~41 KB) join them (round 20C). A hint: kernels and results unchanged. A launch attribute, not
         * cudaFuncSetAttribute: naming ms_cu_k1<true> in a host function above ms_cu_launch changed K4<true>'s SASS (the
         * instantiation order), and the function's attribute holds at every B, where K1's preference cost top-p alone
         * 6.8-10.2 us at B=128/256 (round 22D). H200 with 100: full setting B=52/64 0.6-1.3 us, top-p alone 2.1-3.3 us
         * faster, B >= 67 launched as before; validated in the sixteenth session's final call (docs/cuda.md). */
        cudaLaunchAttribute at[2];
        unsigned cv = 0; /* 1: the carveout attribute at[1] goes with K1 and K2 */
#if defined(MS_CU_CARVE_OW) && defined(MS_CU_ONEREAD)
        at[1].id = cudaLaunchAttributePreferredSharedMemoryCarveout;
        at[1].val.sharedMemCarveout = (unsigned)(MS_CU_CARVE_OW);
#  ifndef MS_CU_NO_RING
        cv = a.oneread && !ring ? 1u : 0u;
#  else
        cv = a.oneread ? 1u : 0u;
#  endif
#endif
        cudaLaunchConfig_t cfg = ms_cu_cfg(st->stream, at, k0, blocks, MS_CU_T123, 0);
        if (!k0) cfg.attrs = at + 1;
        cfg.numAttrs += cv;
        e = cudaLaunchKernelEx(&cfg, k1, a);
        cfg.attrs = at;
        cfg.numAttrs = 1 + cv;
#ifdef MS_CU_K3W_K2
        cfg.gridDim = dim3(k2blocks); /* round 25A: 2 n G in its steps */
#endif
        if (e == cudaSuccess) e = cudaLaunchKernelEx(&cfg, k2, a);
#ifdef MS_CU_K3W_K2
        cfg.gridDim = dim3(blocks);
#endif
        cfg.numAttrs = 1;
#ifdef MS_CU_K3_KERNEL
#  ifdef MS_CU_K3W_K2
        if (!a.k3w) /* round 25A: K2's grid did K3's work */
#  endif
#  ifdef MS_CU_K3_SKIP
        /* Round 25A (-DMS_CU_K3_SKIP: a measurement binary, never a default): no K3, so K4 waits on K2's grid directly.
         * Exact only for rows K3 has no work for (lite, greedy, unfiltered: the full setting); wrong for FAST / BAND
         * rows (top-p alone). It bounds what removing the K2 -> K3 -> K4 link can gain. Round 25A's measured K was
         * 56ef05d + -DMS_CU_K3_SKIP=2, before MS_CU_K3W_K2 was on: with it on, add -DMS_CU_NO_K3W_K2 for the same kernels. */
        if (!(MS_CU_K3_SKIP >= 2 || a.k4warm)) /* 1 (or no value): the warm-up steps only; 2: every step */
#  endif
        if (e == cudaSuccess) e = cudaLaunchKernelEx(&cfg, k3, a);
#endif
        cfg.gridDim = dim3((unsigned)n);
        cfg.blockDim = dim3(MS_CU_T4);
        cfg.dynamicSmemBytes = MS_CU_K4_DYN;
#ifdef MS_CU_K4_TWO
        if (k4two) {
            cfg.dynamicSmemBytes = k4l_smem;
            if (e == cudaSuccess) e = cudaLaunchKernelEx(&cfg, ms_cu_k4l, a);
            cfg.dynamicSmemBytes = MS_CU_K4_DYN;
            if (e == cudaSuccess) e = cudaLaunchKernelEx(&cfg, ms_cu_k4r, a);
        } else
#endif
        if (e == cudaSuccess) e = cudaLaunchKernelEx(&cfg, k4, a);
    } else {
        k1<<<blocks, MS_CU_T123, 0, st->stream>>>(a);
        k2<<<k2blocks, MS_CU_T123, 0, st->stream>>>(a);
#ifdef MS_CU_K3_KERNEL
#  ifdef MS_CU_K3W_K2
        if (!a.k3w) /* round 25A */
#  endif
        k3<<<blocks, MS_CU_T123, 0, st->stream>>>(a);
#endif
#ifdef MS_CU_K4_TWO
        if (k4two) {
            ms_cu_k4l<<<(unsigned)n, MS_CU_T4, k4l_smem, st->stream>>>(a);
            ms_cu_k4r<<<(unsigned)n, MS_CU_T4, MS_CU_K4_DYN, st->stream>>>(a);
        } else
#endif
        k4<<<(unsigned)n, MS_CU_T4, MS_CU_K4_DYN, st->stream>>>(a);
    }
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
#ifdef MS_CU_K4_ZERO
        /* round 17C: kernels before the failed one may have run: the next call zeroes the stats first. A graph
         * captured before, replayed later without a call in between, would find them dirty: best effort, zero
         * them now behind whatever was enqueued (fails harmlessly where the stream's capture was invalidated) */
        if (own) {
            st->ws_dirty = true;
            const char *what = NULL;
            (void)ms_cu_zero_own(res, a.stats, stat_bytes, &what);
        }
#endif
        return ms_cu_err(res, e, "sample: launch");
    }
    return MS_OK;
}

/* The device pointers a step reads or writes must be aligned to their element: a misaligned 4- or 8-byte
 * access faults the kernel, and a fault poisons the whole CUDA context of the process. */
static int ms_cu_misaligned(const void *p, size_t align) { return p && ((uintptr_t)p & (align - 1)) != 0; }

extern "C" int ms__cuda_sample(ms_resource *res, const ms_step *step, const ms_batch *batch, int32_t V, int64_t stride,
                               int32_t *tokens, int32_t *row_status) {
    ms_cu_state *st = ms_cu_st(res);
    const int32_t n = batch->n_rows;
    if (n == 0) return MS_OK;
    const size_t elem = batch->dtype == MS_DTYPE_F32 ? 4 : 2;
    if (ms_cu_misaligned(batch->logits, elem))
        return ms__fail(res, MS_EINVAL, "logits must be aligned to its %zu-byte elements", elem);
    if (ms_cu_misaligned(tokens, 4) || ms_cu_misaligned(row_status, 4))
        return ms__fail(res, MS_EINVAL, "tokens and row_status must be 4-byte aligned");
    ms_cu_dev guard(st->device);
    cudaError_t e = cudaMemcpyAsync(st->d_row_slot, res->row_slot, (size_t)n * 4, cudaMemcpyHostToDevice, st->stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(st->d_row_k, res->row_k, (size_t)n * 4, cudaMemcpyHostToDevice, st->stream);
    int rc = e != cudaSuccess ? ms_cu_err(res, e, "sample: row upload")
                              : ms_cu_launch(res, n, st->d_row_slot, st->d_row_k, batch->logits, batch->dtype, V, stride,
                                             step ? step->apply_penalty : true, step ? step->apply_filters : true,
                                             tokens, row_status, st->d_pend_tok, st->d_ws);
    if (rc < 0) {
        /* A CUDA error after the inputs were checked: the device's row table and pending tokens may already
         * hold part of this call, so the previous sample can no longer be committed as it was. Drop it, so
         * that ms_commit answers MS_ESTATE instead of committing mixed rows (no input reaches this). */
        res->has_pending = false;
        res->n_pending = 0;
    }
    return rc;
}

static int ms_cu_commit_launch(ms_resource *res, int32_t n, const int32_t *row_slot, const uint8_t *kept,
                               const int32_t *tokens) {
    ms_cu_state *st = ms_cu_st(res);
    if (n == 0) return MS_OK;
    ms_cu_commit_k<<<(n + 127) / 128, 128, 0, st->stream>>>(st->d_slots, res->params.capacity, st->d_seen,
                                                           res->bitset_words, st->d_hist,
                                                           res->spec.max_repetition_window, res->scratch_V, n,
                                                           row_slot, kept, tokens);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return ms_cu_err(res, e, "commit");
    return MS_OK;
}

extern "C" int ms__cuda_commit(ms_resource *res, const ms_step *step) {
    ms_cu_state *st = ms_cu_st(res);
    ms_cu_dev guard(st->device);
    const bool all = !step || !step->kept_rids;
    if (!all)
        for (int32_t i = 0; i < step->n_kept_rids; i++) {
            int32_t slot = ms__slot_of(res, step->kept_rids[i]);
            if (slot >= 0) res->mark[slot] = 1;
        }
    int queued = 0;
    for (int32_t i = 0; i < res->n_pending; i++) {
        const ms_pending_row *pr = &res->pending[i];
        st->h_kept[i] = pr->slot >= 0 && (all || res->mark[pr->slot]);
        queued += st->h_kept[i];
    }
    if (!all)
        for (int32_t i = 0; i < step->n_kept_rids; i++) {
            int32_t slot = ms__slot_of(res, step->kept_rids[i]);
            if (slot >= 0) res->mark[slot] = 0;
        }
    int rc = MS_OK;
    if (res->n_pending > 0) {
        cudaError_t e = cudaMemcpyAsync(st->d_kept, st->h_kept, (size_t)res->n_pending, cudaMemcpyHostToDevice, st->stream);
        if (e != cudaSuccess) return ms_cu_err(res, e, "commit: flags");
        rc = ms_cu_commit_launch(res, res->n_pending, st->d_row_slot, st->d_kept, st->d_pend_tok);
    }
    if (rc < 0) return rc;
    res->has_pending = false;
    res->n_pending = 0;
    return queued;
}

extern "C" int ms__cuda_stamps(int op, unsigned long long lo[38], unsigned long long hi[38]) {
#ifdef MS_CU_STAMPS
    static_assert(MS_CU_NSTAMP == 38, "the hook's arrays");
    if (op == 1) { /* arm: earliest = all ones, latest = 0, on */
        unsigned long long l[MS_CU_NSTAMP], h[MS_CU_NSTAMP];
        for (int i = 0; i < MS_CU_NSTAMP; i++) l[i] = ~0ull, h[i] = 0;
        const int on = 1;
        if (cudaDeviceSynchronize() != cudaSuccess || cudaMemcpyToSymbol(ms_cu_st_lo, l, sizeof l) != cudaSuccess ||
            cudaMemcpyToSymbol(ms_cu_st_hi, h, sizeof h) != cudaSuccess ||
            cudaMemcpyToSymbol(ms_cu_st_on, &on, sizeof on) != cudaSuccess)
            return -1;
        return 1;
    }
    const int off = 0; /* read and disarm */
    if (cudaDeviceSynchronize() != cudaSuccess || cudaMemcpyFromSymbol(lo, ms_cu_st_lo, MS_CU_NSTAMP * 8) != cudaSuccess ||
        cudaMemcpyFromSymbol(hi, ms_cu_st_hi, MS_CU_NSTAMP * 8) != cudaSuccess ||
        cudaMemcpyToSymbol(ms_cu_st_on, &off, sizeof off) != cudaSuccess)
        return -1;
    return 1;
#else
    (void)op, (void)lo, (void)hi;
    return 0;
#endif
}

/* Round 20A: the one-read pass's counters (ms_cu_orq, ms_cu_sm_*): op 1 clears them, op 0 reads q (MS_CU_NORQ = 12
 * words) and, per multiprocessor (256), the blocks and the earliest and latest scan ends (%globaltimer, ns). */
extern "C" int ms__cuda_stamps_or(int op, unsigned long long q[12], unsigned long long smlo[256],
                                  unsigned long long smhi[256], unsigned long long smn[256]) {
#ifdef MS_CU_STAMPS
    static_assert(MS_CU_NORQ == 12 && MS_CU_NSM == 256, "the hook's arrays");
    if (op == 1) {
        static unsigned long long z[32 * MS_CU_NORQ], o[MS_CU_NSM];
        for (int i = 0; i < 32 * MS_CU_NORQ; i++) z[i] = 0;
        for (int i = 0; i < MS_CU_NSM; i++) o[i] = ~0ull;
        return cudaDeviceSynchronize() == cudaSuccess && cudaMemcpyToSymbol(ms_cu_orq, z, sizeof z) == cudaSuccess &&
                       cudaMemcpyToSymbol(ms_cu_sm_lo, o, sizeof o) == cudaSuccess &&
                       cudaMemcpyToSymbol(ms_cu_sm_hi, z, MS_CU_NSM * 8) == cudaSuccess &&
                       cudaMemcpyToSymbol(ms_cu_sm_n, z, MS_CU_NSM * 8) == cudaSuccess
                   ? 1
                   : -1;
    }
    static unsigned long long cq[32 * MS_CU_NORQ];
    if (cudaDeviceSynchronize() != cudaSuccess || cudaMemcpyFromSymbol(cq, ms_cu_orq, sizeof cq) != cudaSuccess) return -1;
    for (int i = 0; i < MS_CU_NORQ; i++) {
        q[i] = 0;
        for (int j = 0; j < 32; j++) q[i] += cq[j * MS_CU_NORQ + i];
    }
    return cudaMemcpyFromSymbol(smlo, ms_cu_sm_lo, MS_CU_NSM * 8) == cudaSuccess &&
                   cudaMemcpyFromSymbol(smhi, ms_cu_sm_hi, MS_CU_NSM * 8) == cudaSuccess &&
                   cudaMemcpyFromSymbol(smn, ms_cu_sm_n, MS_CU_NSM * 8) == cudaSuccess
               ? 1
               : -1;
#else
    (void)op, (void)q, (void)smlo, (void)smhi, (void)smn;
    return 0;
#endif
}

/* Round 29B: the K2 blocks' records (ms_cu_orq_blk; stamps builds): op 1 clears the rows' words (~0: no record), op 0
 * reads the first n (<= 4096) blocks' times (t: 3 x n, entry / scan end / exit, ns), words (m) and staged tokens (rn). */
extern "C" int ms__cuda_stamps_blk(int op, int n, unsigned long long *t, uint32_t *m, uint32_t *rn) {
#ifdef MS_CU_STAMPS
    if (n > MS_CU_NBLK) n = MS_CU_NBLK;
    if (op == 1) {
        static uint32_t o[MS_CU_NBLK];
        for (int i = 0; i < MS_CU_NBLK; i++) o[i] = ~0u;
        return cudaDeviceSynchronize() == cudaSuccess && cudaMemcpyToSymbol(ms_cu_blk_m, o, sizeof o) == cudaSuccess ? 1 : -1;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) return -1;
    for (int k = 0; k < 3; k++)
        if (cudaMemcpyFromSymbol(t + (size_t)k * n, ms_cu_blk_t, (size_t)n * 8, (size_t)k * MS_CU_NBLK * 8) != cudaSuccess)
            return -1;
    return cudaMemcpyFromSymbol(m, ms_cu_blk_m, (size_t)n * 4) == cudaSuccess &&
                   cudaMemcpyFromSymbol(rn, ms_cu_blk_n, (size_t)n * 4) == cudaSuccess
               ? 1
               : -1;
#else
    (void)op, (void)n, (void)t, (void)m, (void)rn;
    return 0;
#endif
}

/* Round 17B: K4's row counters (ms_cu_stq): op 1 clears them (sums 0, least all ones, largest 0, rows 0), op 0
 * reads the 3 * 5 + 1 words (sums, least, largest, rows). Counted only while the stamps are armed. */
extern "C" int ms__cuda_stamps_q(int op, unsigned long long q[16]) {
#ifdef MS_CU_STAMPS
    static_assert(3 * MS_CU_NSTQ + 1 == 16, "the hook's array");
    if (op == 1) {
        unsigned long long z[16];
        for (int i = 0; i < 16; i++) z[i] = (i >= MS_CU_NSTQ && i < 2 * MS_CU_NSTQ) ? ~0ull : 0ull;
        return cudaDeviceSynchronize() == cudaSuccess && cudaMemcpyToSymbol(ms_cu_st_q, z, sizeof z) == cudaSuccess ? 1 : -1;
    }
    return cudaDeviceSynchronize() == cudaSuccess && cudaMemcpyFromSymbol(q, ms_cu_st_q, 16 * 8) == cudaSuccess ? 1 : -1;
#else
    (void)op, (void)q;
    return 0;
#endif
}

/* Round 16B (diagnostics): the cost of the step's chain by itself. Near-empty kernels launched as
 * ms_cu_launch launches K0..K4: K0 plain (one block of 256), then nk - 2 kernels of n G blocks of MS_CU_T123
 * threads and a last one of n blocks of MS_CU_T4 threads with K4's dynamic shared memory, all with the PDL
 * attribute (unless pdl == 0), each running griddepcontrol.launch_dependents then griddepcontrol.wait, and
 * block 0's thread 0 writing one word. nk = 1: K0 alone; 2: K0 + K4; 3: + K1; 4: + K2; 5: + K3 (the step's
 * five). Captured in a graph, replayed 20 times to warm, then 200 times with an event after each; the median
 * interval in us. Allocates, synchronizes: never during sampling. Round 17C: pdl 2 leaves K0 out and launches the
 * first of the others plainly (MS_CU_K4_ZERO's chain with the resource's own workspace: nk 5 is K1..K4). */
__global__ void __launch_bounds__(256) ms_cu_chain_k0(unsigned long long *w) {
    ms_cu_pdl_go();
    if (threadIdx.x == 0) w[0] = 0;
}
__global__ void ms_cu_chain_k(unsigned long long *w, int i) {
    ms_cu_pdl_go();
    ms_cu_pdl_wait();
    if (blockIdx.x == 0 && threadIdx.x == 0) w[i] = (unsigned long long)i;
}
__global__ void ms_cu_chain_k4(unsigned long long *w, int i) {
    extern __shared__ unsigned long long ms_cu_chain_sh[];
    ms_cu_pdl_wait();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        ms_cu_chain_sh[0] = (unsigned long long)i;
        w[i] = ms_cu_chain_sh[0];
    }
}
static int ms_cu_chain_cmp(const void *x, const void *y) {
    const float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}
extern "C" int ms__cuda_chain(int32_t n, int32_t V, int nk, int pdl, float *us) {
    if (n < 1 || V < 1 || nk < 1 || nk > 5 || pdl < 0 || pdl > 2 || (pdl == 2 && nk < 2) || !us) return MS_EINVAL;
    int dev = 0, sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return MS_ECUDA;
    const int32_t G = ms_cu_grid(sm, n, V);
    enum { W = 20, R = 200 };
    unsigned long long *w = NULL;
    cudaStream_t s = NULL;
    cudaGraph_t g = NULL;
    cudaGraphExec_t ex = NULL;
    cudaEvent_t ev[R + 1] = {};
    float t[R];
    cudaError_t e = cudaFuncSetAttribute(ms_cu_chain_k4, cudaFuncAttributeMaxDynamicSharedMemorySize, MS_CU_K4_DYN);
    if (e == cudaSuccess) e = cudaMalloc((void **)&w, 8 * 8);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        if (pdl != 2) ms_cu_chain_k0<<<1, 256, 0, s>>>(w);
        cudaLaunchAttribute at[1];
        cudaLaunchConfig_t cfg = ms_cu_cfg(s, at, pdl == 1, (unsigned)(n * G), MS_CU_T123, 0);
        for (int i = 1; i < nk - 1 && e == cudaSuccess; i++) {
            cfg.numAttrs = pdl == 1 || (pdl == 2 && i > 1) ? 1 : 0; /* pdl 2: the first (K1) plain, without K0 */
            e = cudaLaunchKernelEx(&cfg, ms_cu_chain_k, w, i);
        }
        if (pdl == 2) cfg.numAttrs = nk > 2 ? 1 : 0;
        cfg.gridDim = dim3((unsigned)n);
        cfg.blockDim = dim3(MS_CU_T4);
        cfg.dynamicSmemBytes = MS_CU_K4_DYN;
        if (nk > 1 && e == cudaSuccess) e = cudaLaunchKernelEx(&cfg, ms_cu_chain_k4, w, 7);
        const cudaError_t e2 = cudaStreamEndCapture(s, &g);
        if (e == cudaSuccess) e = e2;
    }
    if (e == cudaSuccess) e = cudaGraphInstantiate(&ex, g, 0);
    for (int i = 0; i <= R && e == cudaSuccess; i++) e = cudaEventCreate(&ev[i]);
    for (int i = 0; i < W && e == cudaSuccess; i++) e = cudaGraphLaunch(ex, s);
    if (e == cudaSuccess) e = cudaEventRecord(ev[0], s);
    for (int i = 0; i < R && e == cudaSuccess; i++) {
        e = cudaGraphLaunch(ex, s);
        if (e == cudaSuccess) e = cudaEventRecord(ev[i + 1], s);
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    for (int i = 0; i < R && e == cudaSuccess; i++) e = cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]);
    if (e == cudaSuccess) {
        qsort(t, R, sizeof(float), ms_cu_chain_cmp);
        *us = t[R / 2] * 1e3f;
    }
    for (int i = 0; i <= R; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    if (ex) cudaGraphExecDestroy(ex);
    if (g) cudaGraphDestroy(g);
    if (s) cudaStreamDestroy(s);
    if (w) cudaFree(w);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return MS_ECUDA;
    }
    return G;
}

extern "C" int ms__cuda_r11(void) {
    int v = 0;
#ifdef MS_CU_PB
    v |= 1;
#endif
#ifndef MS_CU_NO_DRAWV
    v |= 2;
#endif
    return v;
}

/* The tests' counters: turns counting on (ms_cu_count_all) and copies the n counters of sym to out; MS_OK, or
 * MS_ECUDA on a CUDA error (cleared). One body for ms__cuda_k2_rows, ms__cuda_oneread and ms__cuda_mode_rows. */
template <size_t N>
static int ms_cu_counters(const unsigned long long (&sym)[N], uint64_t *out) {
    unsigned long long v[N];
    const int on = 1;
    if (cudaMemcpyToSymbol(ms_cu_count_all, &on, sizeof on) != cudaSuccess ||
        cudaMemcpyFromSymbol(v, sym, sizeof v) != cudaSuccess) {
        cudaGetLastError();
        return MS_ECUDA;
    }
    for (size_t i = 0; i < N; i++) out[i] = v[i];
    return MS_OK;
}

/* Round 12's counters (ms_cu_k2_rows), out[4]: returns 3 (bit 0: the stage is built, bit 1: the bin cut is;
 * both were switches, -DMS_CU_K2_ATOM and -DMS_CU_K2_BINSEL, until the round's device runs), MS_ECUDA on a
 * CUDA error. */
extern "C" int ms__cuda_k2_rows(uint64_t out[4]) {
#ifdef MS_CU_RC_INST
    uint64_t o6[6]; /* round 32A: [4..5] are round 31A's */
    const int rc = ms_cu_counters(ms_cu_k2_rows, o6);
    for (int i = 0; i < 4; i++) out[i] = o6[i];
#else
    const int rc = ms_cu_counters(ms_cu_k2_rows, out);
#endif
    return rc != MS_OK ? rc : 3; /* both built (the default since round 12) */
}

/* Round 15A's switch and counters (ms_cu_ring_rows): see ms_cuda.h. */
extern "C" int ms__cuda_ring(int mode, uint64_t out[2]) {
#ifndef MS_CU_NO_RING
    if (mode != -2) ms_cu_ring_mode = mode < 0 ? MS_CU_RING_MODE : mode > 0;
    if (!out) return 1;
    const int rc = ms_cu_counters(ms_cu_ring_rows, out);
    return rc != MS_OK ? rc : 1;
#else
    (void)mode;
    if (out) out[0] = out[1] = 0;
    return 0;
#endif
}

/* Round 13's switch and counters (ms_cu_or_rows): see ms_cuda.h. */
extern "C" int ms__cuda_oneread(int32_t minchunk, uint64_t out[5]) {
#ifdef MS_CU_ONEREAD
    if (minchunk != -2) {
        ms_cu_or_min = minchunk < 0 ? MS_CU_ONEREAD_MINCHUNK : minchunk;
        ms_cu_or_l2 = minchunk < 0; /* a test's threshold alone decides */
    }
    if (!out) return 1;
    const int rc = ms_cu_counters(ms_cu_or_rows, out);
    return rc != MS_OK ? rc : 1;
#else
    (void)minchunk;
    if (out)
        for (int i = 0; i < 5; i++) out[i] = 0;
    return 0;
#endif
}

/* Round 37C (tests only): the build's MS_CU_OR_SMALLB (the one-read path at two-pass steps of at most that many chunks a
 * row while every resident request is lite), 0 without it. */
extern "C" int32_t ms__cuda_orsmallb(void) {
#if defined(MS_CU_ONEREAD) && defined(MS_CU_OR_SMALLB) && defined(MS_CU_OR_GMAX)
    return (int32_t)(MS_CU_OR_SMALLB);
#else
    return 0;
#endif
}

/* Round 27A's knob (measurements): the one-read steps' grid in blocks a multiprocessor (4: ms_cu_grid's, the default;
 * -1: MS_CU_OR_WAVEQ; values under 4 act as 4). Returns the value in force (0 without the one-read path). */
extern "C" int32_t ms__cuda_orwaves(int32_t q) {
#ifdef MS_CU_ONEREAD
    if (q == -1) ms_cu_or_waveq = MS_CU_OR_WAVEQ;
    else if (q >= 1 && q <= 64) ms_cu_or_waveq = q;
    return ms_cu_or_waveq;
#else
    (void)q;
    return 0;
#endif
}

/* Round 28B's knobs (measurements): the one-read steps' chunks a row G (0 or -1: off, the grid of ms_cu_grid and the rule;
 * -2: unchanged), within ms_cu_or_grid's bounds, and the rule MS_CU_OR_ONEWAVE (onewave 0: off, 1: on, -1: the build's,
 * -2: unchanged). Returns the G in force (0 without the one-read path). */
extern "C" int32_t ms__cuda_org(int32_t G, int32_t onewave) {
#ifdef MS_CU_ONEREAD
    if (G == -1) ms_cu_or_g = 0;
    else if (G >= 0 && G <= 4096) ms_cu_or_g = G;
    if (onewave == -1) ms_cu_or_onewave = MS_CU_OR_ONEWAVE;
    else if (onewave == 0 || onewave == 1) ms_cu_or_onewave = onewave;
    return ms_cu_or_g;
#else
    (void)G, (void)onewave;
    return 0;
#endif
}

/* Round 29A's knobs (measurements): the one-wave rule's chunk bound for 4-byte and 2-byte logits (tokens; -1: the build's),
 * its load test past the bound (MS_CU_OR_ONEWAVE_LOAD: 0 off, 1 on, -1 the build's) and K2's ring in 2-byte one-read
 * steps (MS_CU_OR_RING16: likewise); -2 leaves one unchanged. Returns 1 with the one-read path built, else 0. */
extern "C" int ms__cuda_orw(int32_t chunk, int32_t chunk16, int32_t load, int32_t ring16) {
#ifdef MS_CU_ONEREAD
    if (chunk == -1) ms_cu_ow_chunk = MS_CU_OR_ONEWAVE_CHUNK;
    else if (chunk >= 8192 && chunk <= MS_CU_OR_CHUNKMAX && chunk <= MS_CU_SEGW_CHUNK) ms_cu_ow_chunk = chunk;
    if (chunk16 == -1) ms_cu_ow_chunk16 = MS_CU_OR_ONEWAVE_CHUNK16;
    else if (chunk16 >= 8192 && chunk16 <= MS_CU_OR_CHUNKMAX && chunk16 <= MS_CU_SEGW_CHUNK) ms_cu_ow_chunk16 = chunk16;
    if (load == -1) ms_cu_ow_load = MS_CU_OR_ONEWAVE_LOAD;
    else if (load == 0 || load == 1) ms_cu_ow_load = load;
    if (ring16 == -1) ms_cu_or_ring16 = MS_CU_OR_RING16;
    else if (ring16 == 0 || ring16 == 1) ms_cu_or_ring16 = ring16;
    return 1;
#else
    (void)chunk, (void)chunk16, (void)load, (void)ring16;
    return 0;
#endif
}

/* Round 29B's knob (-DMS_CU_OR_DYN_RT with -DMS_CU_OR_DYN: round 28A's pieces, how many by rule; ms_cu_ordyn_q says what
 * q means). Returns 1 when built with it (the value set), else 0. */
extern "C" int ms__cuda_ordyn(int q) {
#if defined(MS_CU_OR_DYN) && defined(MS_CU_OR_DYN_ALWAYS)
    ms_cu_or_dyq = q;
    return 1;
#elif defined(MS_CU_OR_DYN) && defined(MS_CU_OR_DYN_RT)
    return cudaMemcpyToSymbol(ms_cu_ordyn_q, &q, sizeof q) == cudaSuccess ? 1 : -1;
#else
    (void)q;
    return 0;
#endif
}

/* Round 23A's knobs (measurements): the few-chunk one-read steps' chunk (tokens; 0: off; -1: MS_CU_OR_FEWCHUNK), their
 * largest B (-1: MS_CU_OR_FEWB) and K4's warm-up pass in them (0: only as the default's rule; -1 or 1: in all). Returns 1
 * when built with -DMS_CU_OR_FEW, else 0. */
extern "C" int ms__cuda_orfew(int32_t chunk, int32_t maxb, int32_t warm) {
#ifdef MS_CU_OR_FEW
    ms_cu_orfew_chunk = chunk < 0 ? MS_CU_OR_FEWCHUNK : chunk;
    ms_cu_orfew_b = maxb < 0 ? MS_CU_OR_FEWB : maxb;
    ms_cu_orfew_warm = warm < 0 ? 1 : warm;
    return 1;
#else
    (void)chunk;
    (void)maxb;
    (void)warm;
    return 0;
#endif
}

#ifdef MS_CU_K1_ROWCUT
#  include <stdio.h>
extern "C" int ms__cuda_mode_rows(uint64_t out[8]) { /* round 31A: its own counters printed too */
#  ifdef MS_CU_RC_PRINT /* a measurement knob: the library prints nothing by default */
    uint64_t rc[2] = {0, 0};
    if (ms__cuda_rowcut_rows(rc) >= 0)
        printf("  round 31A row cut (cumulative): K2 lite blocks that read K1's bins %llu, raised their cut %llu\n",
               (unsigned long long)rc[0], (unsigned long long)rc[1]);
#  endif
    return ms_cu_counters(ms_cu_mode_rows, out);
}
#else
extern "C" int ms__cuda_mode_rows(uint64_t out[8]) { return ms_cu_counters(ms_cu_mode_rows, out); }
#endif

/* Round 31A's counters (ms_cu_rc_rows): see ms_cuda.h. */
extern "C" int ms__cuda_rowcut_rows(uint64_t out[2]) {
#if defined(MS_CU_K1_ROWCUT) && defined(MS_CU_RC_INST)
    uint64_t o6[6]; /* round 32A: in ms_cu_k2_rows[4..5] */
    const int rc = ms_cu_counters(ms_cu_k2_rows, o6);
    out[0] = o6[4], out[1] = o6[5];
    return rc != MS_OK ? rc : 1;
#elif defined(MS_CU_K1_ROWCUT)
    const int rc = ms_cu_counters(ms_cu_rc_rows, out);
    return rc != MS_OK ? rc : 1;
#else
    out[0] = out[1] = 0;
    return 0;
#endif
}

/* Round 15B's hook and counters (ms_cu_k3_giveup, ms_cu_k3_rows): see ms_cuda.h. */
extern "C" int ms__cuda_k3(int giveup, int32_t spin_us, uint64_t out[2]) {
#if !defined(MS_CU_K3_KERNEL) || defined(MS_CU_K3W_K2) /* round 25A: its blocks in K2's grid use the same hook */
    const unsigned long long ns = spin_us < 0 ? (unsigned long long)MS_CU_K3_SPIN_US * 1000ull : (unsigned long long)spin_us * 1000ull;
    if ((giveup >= 0 && cudaMemcpyToSymbol(ms_cu_k3_giveup, &giveup, sizeof giveup) != cudaSuccess) ||
        (spin_us != -2 && cudaMemcpyToSymbol(ms_cu_k3_spin_ns, &ns, sizeof ns) != cudaSuccess)) {
        cudaGetLastError();
        return MS_ECUDA;
    }
#  if defined(MS_CU_K3W_K2) && MS_CU_K3W_K2 >= 3
    const int built = 2; /* round 26D: the one-read steps' K2or gathers too */
#  else
    const int built = 1;
#  endif
    if (!out) return built;
    const int rc = ms_cu_counters(ms_cu_k3_rows, out);
    return rc != MS_OK ? rc : built;
#else
    (void)giveup, (void)spin_us;
    if (out) out[0] = out[1] = 0;
    return 0;
#endif
}

/* ---- public CUDA API --------------------------------------------------------------------------- */

extern "C" MS_API int ms_cuda_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return MS_EBACKEND;
    }
    return n;
}

static int ms_cu_check_res(ms_resource *res) {
    if (!res) return MS_EINVAL;
    if (res->params.backend != MS_BACKEND_CUDA || !res->backend_state)
        return ms__fail(res, MS_EBACKEND, "not a CUDA resource (params.backend)");
    return MS_OK;
}

extern "C" MS_API int ms_cuda_set_stream(ms_resource *res, void *stream) {
    int rc = ms_cu_check_res(res);
    if (rc < 0) return rc;
    ms_cu_st(res)->stream = (cudaStream_t)stream;
    return MS_OK;
}

extern "C" MS_API int ms_cuda_slot_of(const ms_resource *res, int64_t rid) {
    if (!res) return MS_EINVAL;
    if (res->params.backend != MS_BACKEND_CUDA)
        return ms__fail((ms_resource *)res, MS_EBACKEND, "ms_cuda_slot_of: the resource's backend is not CUDA");
    int32_t s = ms__slot_of(res, rid);
    return s < 0 ? MS_ENOENT : s;
}

extern "C" MS_API int ms_cuda_workspace_size(const ms_resource *res, int32_t n_rows, size_t *bytes) {
    if (!res) return MS_EINVAL;
    ms_resource *r = (ms_resource *)res; /* only its last-error message is written */
    if (!bytes) return ms__fail(r, MS_EINVAL, "ms_cuda_workspace_size: bytes is NULL");
    if (n_rows < 0) return ms__fail(r, MS_ESHAPE, "n_rows=%d is negative", (int)n_rows);
    if (res->params.backend != MS_BACKEND_CUDA)
        return ms__fail(r, MS_EBACKEND, "ms_cuda_workspace_size: the resource's backend is not CUDA");
    *bytes = ms_cu_ws_size(ms_cu_st(res), n_rows);
    return MS_OK;
}

extern "C" MS_API int ms_cuda_sample_rows(ms_resource *res, const ms_cuda_rows *rows, void *workspace,
                                          size_t workspace_bytes) {
    int rc = ms_cu_check_res(res);
    if (rc < 0) return rc;
    if (!rows) return ms__fail(res, MS_EINVAL, "rows is NULL");
    const int32_t n = rows->n_rows;
    if (n < 0) return ms__fail(res, MS_ESHAPE, "n_rows=%d is negative", (int)n);
    if (n > 0 && (!rows->row_slot || !rows->row_k || !rows->logits || !rows->tokens))
        return ms__fail(res, MS_EINVAL, "row_slot, row_k, logits and tokens must not be NULL");
    if (rows->dtype != MS_DTYPE_F32 && rows->dtype != MS_DTYPE_F16 && rows->dtype != MS_DTYPE_BF16)
        return ms__fail(res, MS_EDTYPE, "dtype=%d: expected MS_DTYPE_F32, MS_DTYPE_F16 or MS_DTYPE_BF16", (int)rows->dtype);
    if (rows->width < 1 || (res->V > 0 && rows->width < res->V) || (res->V == 0 && rows->width > res->scratch_V))
        return ms__fail(res, MS_ESHAPE, "width=%d: must be >= vocab_size=%d (or <= max_vocab=%d when unset)",
                        (int)rows->width, (int)res->V, (int)res->scratch_V);
    const int64_t stride = rows->row_stride ? rows->row_stride : rows->width;
    if (stride < rows->width) return ms__fail(res, MS_ESHAPE, "row_stride=%lld < width", (long long)stride);
    const size_t elem = rows->dtype == MS_DTYPE_F32 ? 4 : 2;
    if (ms_cu_misaligned(rows->logits, elem))
        return ms__fail(res, MS_EINVAL, "logits must be aligned to its %zu-byte elements", elem);
    if (ms_cu_misaligned(rows->row_slot, 4) || ms_cu_misaligned(rows->row_k, 4) || ms_cu_misaligned(rows->tokens, 4) ||
        ms_cu_misaligned(rows->row_status, 4))
        return ms__fail(res, MS_EINVAL, "row_slot, row_k, tokens and row_status must be 4-byte aligned");
    if (ms_cu_misaligned(workspace, 256))
        return ms__fail(res, MS_EINVAL, "workspace must be 256-byte aligned (as cudaMalloc returns it)");
    ms_cu_state *st = ms_cu_st(res);
    if (!workspace) {
        if (n > res->params.max_rows)
            return ms__fail(res, MS_ESHAPE, "n_rows=%d exceeds max_rows=%d (the built-in workspace)", (int)n,
                            (int)res->params.max_rows);
        workspace = st->d_ws;
    } else if (workspace_bytes < ms_cu_ws_size(st, n)) {
        return ms__fail(res, MS_ENOSPC, "workspace of %zu bytes; %zu needed", workspace_bytes, ms_cu_ws_size(st, n));
    }
    ms_cu_dev guard(st->device);
    const int32_t V = res->V > 0 ? res->V : rows->width;
    return ms_cu_launch(res, n, rows->row_slot, rows->row_k, rows->logits, rows->dtype, V, stride,
                        rows->apply_penalty, rows->apply_filters, rows->tokens, rows->row_status, NULL, workspace);
}

extern "C" MS_API int ms_cuda_commit_rows(ms_resource *res, int32_t n_rows, const int32_t *row_slot,
                                          const uint8_t *row_kept, const int32_t *tokens) {
    int rc = ms_cu_check_res(res);
    if (rc < 0) return rc;
    if (n_rows < 0) return ms__fail(res, MS_ESHAPE, "n_rows=%d is negative", (int)n_rows);
    if (n_rows > 0 && (!row_slot || !tokens)) return ms__fail(res, MS_EINVAL, "row_slot and tokens must not be NULL");
    if (ms_cu_misaligned(row_slot, 4) || ms_cu_misaligned(tokens, 4))
        return ms__fail(res, MS_EINVAL, "row_slot and tokens must be 4-byte aligned");
    ms_cu_dev guard(ms_cu_st(res)->device);
    return ms_cu_commit_launch(res, n_rows, row_slot, row_kept, tokens);
}
