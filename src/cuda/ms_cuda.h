/* ms_cuda.h: the hooks between the resource (ms_resource.c) and the CUDA backend (ms_cuda.cu).
 *
 * On a CUDA resource the device holds the truth of every request's state (config, committed count
 * n, history ring, seen set): commits run on the device so that ms_cuda_commit_rows can be captured
 * in a graph. The host copies in ms_resource.c are kept for validation only; ms__cuda_pull_slot
 * refreshes one slot's host copy from the device when the host needs it (ms_explain). */
#ifndef MS_CUDA_H
#define MS_CUDA_H

#include "ms_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Takes the device, allocates every device buffer (state, staging, the build-time workspace for
 * max_rows rows) and uploads the stop mask. 0, MS_EBACKEND (no device), MS_ENOMEM or MS_ECUDA. */
int ms__cuda_init(ms_resource *res);
void ms__cuda_destroy(ms_resource *res);
/* Uploads the slot's config with empty state; called before the host commits the slot. */
int ms__cuda_ingest(ms_resource *res, int32_t slot, const ms_req_config *cfg);
/* Clears the slot's device state (seen set, count, ring). */
void ms__cuda_remove(ms_resource *res, int32_t slot);
/* Adds step->prefill tokens of penalize_prompt requests to the device seen sets (checked already). */
int ms__cuda_plan(ms_resource *res, const ms_step *step);
/* Appends explicit tokens to the slot's device state (checked already). */
int ms__cuda_accept(ms_resource *res, int32_t slot, const int32_t *tokens, int32_t n);
/* ms_sample on a CUDA resource: logits, tokens and row_status are device pointers; the rows'
 * slots and indices are in res->row_slot / res->row_k. Enqueued on the resource's stream. */
int ms__cuda_sample(ms_resource *res, const ms_step *step, const ms_batch *batch, int32_t V, int64_t stride,
                    int32_t *tokens, int32_t *row_status);
/* ms_commit on a CUDA resource: appends the kept rows' device tokens on the device. Returns the
 * number of rows queued for commit (kept and still resident; an empty row among them commits
 * nothing), without waiting for the device. Clears the pending sample. */
int ms__cuda_commit(ms_resource *res, const ms_step *step);
/* Copies the slot's device state (n, ring, seen set) into the host copy; waits for the stream. */
int ms__cuda_pull_slot(ms_resource *res, int32_t slot);
/* Tests only: rows K4 served by mode since the process started, out[MS_CU_MODE_*] (counted for the
 * BAND = 4 and FULL = 3 modes); once called, also lite rows: [5] the bin cut, [6] more than k' + 16
 * left after it, [7] served by K4's lean path (round 6; the default since round 7), [0] those of them trimmed by the
 * block;
 * waits for the device. 0 or MS_ECUDA. */
int ms__cuda_mode_rows(uint64_t out[8]);
/* Round 11 (tests only): bit 0 set when K3 takes BAND rows' masses above the bucket from K2's per-block bucket
 * masses (-DMS_CU_PB, off by default; counted in ms__cuda_mode_rows' [1], per chunk), bit 1 when K4's BAND draw walks its
 * chunk with 16-byte loads (on unless -DMS_CU_NO_DRAWV; counted in [2], per row). */
int ms__cuda_r11(void);
/* Round 11 (tests only): the smallest chunk for each of the two (default 8192 and 24576 tokens; -1: the
 * default, 0: every step). Read at launch, on the host. */
void ms__cuda_r11_minchunk(int32_t pb, int32_t drawv);
/* Round 12 (tests only), counted since the process started once this or ms__cuda_mode_rows was called: K2 lite
 * blocks that ran the block-wide stage, out[0], and those whose stage overflowed (the chunk re-read), out[1];
 * lite chunks cut by the candidate bins, out[2], and those whose bins were too crowded (the radix select),
 * out[3]. Returns 3 (bit 0: the stage is built, bit 1: the bin cut is; both switches until the round's device
 * runs, the default since), MS_ECUDA on a CUDA error; waits for the device. */
int ms__cuda_k2_rows(uint64_t out[4]);
/* Round 31A (tests only), counted since the process started once this or ms__cuda_mode_rows was called: K2 lite
 * blocks that read K1's bins of warp maxima (the row-wide top-k' cut, MS_CU_K1_ROWCUT), out[0], and those whose cut
 * the bins raised, out[1]. Returns 1 where the cut is built (-DMS_CU_K1_ROWCUT, off by default), 0 where
 * not (out zero), MS_ECUDA on a CUDA error; waits for the device. */
int ms__cuda_rowcut_rows(uint64_t out[2]);
/* Round 13 (tests only; the path is built unless -DMS_CU_NO_ONEREAD, see docs/cuda.md round 14):
 * minchunk sets the smallest chunk for which a step takes the one-read path for lite rows (-1: the default,
 * chunks of 8192 tokens and a step's logits larger than L2; >= 0: that chunk size alone, 0: every step; -2:
 * unchanged); read at launch, on the host. With out (not NULL), counted since the
 * process started once this or ms__cuda_mode_rows was called: K2 blocks that took the path, out[0], those
 * whose pass stage overflowed (the chunk re-read), out[1], those with more tokens of the superset than K2's
 * stage holds (the radix select), out[2], rows K4 served from them, out[3], and (round 14) blocks whose online
 * top-k' cut fired, out[4]. Returns 1 when the path is built,
 * 0 when not (out zeroed, nothing done), MS_ECUDA on a CUDA error (waits for the device). */
int ms__cuda_oneread(int32_t minchunk, uint64_t out[5]);
/* Tests only (round 37C): the build's -DMS_CU_OR_SMALLB (the one-read path at two-pass steps of at most that many
 * chunks a row while every resident request is lite), 0 without it. */
int32_t ms__cuda_orsmallb(void);
/* Measurements (round 23A, -DMS_CU_OR_FEW): the few-chunk one-read steps' chunk in tokens (0: off; -1: the default,
 * MS_CU_OR_FEWCHUNK), their largest B (-1: MS_CU_OR_FEWB) and K4's warm-up pass in them (0: as the default's rule; -1 or
 * 1: in all); read at launch, on the host. Returns 1 when built with the switch, else 0 (nothing done). */
int ms__cuda_orfew(int32_t chunk, int32_t maxb, int32_t warm);
/* Measurements (round 27A): the one-read steps' grid in blocks a multiprocessor (4: ms_cu_grid's, the default; -1: the
 * build's MS_CU_OR_WAVEQ); read at launch, on the host. Returns the value in force, 0 without the one-read path. */
int32_t ms__cuda_orwaves(int32_t q);
/* Measurements (round 28B): the one-read steps' chunks a row G set directly (0 or -1: the default's grid; -2: unchanged),
 * within the path's bounds (its floor, K1..K3's, MS_CU_OR_GMAX, chunks of at most MS_CU_OR_CHUNKMAX tokens), and the
 * one-wave rule MS_CU_OR_ONEWAVE (onewave 0: off, 1: on, -1: the build's, -2: unchanged); read at launch, on the host.
 * Returns the G in force, 0 without the one-read path. */
int32_t ms__cuda_org(int32_t G, int32_t onewave);
/* Measurements (round 29A): the one-wave rule's chunk bound for 4-byte and 2-byte logits (tokens; -1: the build's
 * MS_CU_OR_ONEWAVE_CHUNK / _CHUNK16), its load test past the bound (0 off, 1 on, -1 the build's MS_CU_OR_ONEWAVE_LOAD)
 * and K2's ring in every 2-byte one-read step (0, 1, -1: MS_CU_OR_RING16); -2 leaves one unchanged; read at launch, on
 * the host. Returns 1 with the one-read path built, else 0. */
int ms__cuda_orw(int32_t chunk, int32_t chunk16, int32_t load, int32_t ring16);
/* Tests only (round 15A): K2's scans through the cp.async ring: mode -1 the host's rule (grids past one wave), 0 off,
 * 1 on in every step, -2 unchanged. With out (not NULL), counted since the process started once a counter hook was
 * called: K2 blocks whose scan ran through it, lite out[0] and one-read out[1]. Returns 1 when the ring is built,
 * 0 when not (-DMS_CU_NO_RING: out zeroed, nothing done), MS_ECUDA on a CUDA error. */
int ms__cuda_ring(int mode, uint64_t out[2]);
/* Round 15B (tests only): K3's gather runs in K2 when built with -DMS_CU_K3_IN_K2 (not the default). giveup >= 0 sets the test hook
 * (0: off, 1: a row's odd K2 blocks but its last give up their gather, as a block does after its spin's time bound,
 * without marking the row, so the others gather a partial list; 2: every block gives up; -1: unchanged); spin_us
 * the spin's time bound in microseconds (-1: the default, MS_CU_K3_SPIN_US; -2: unchanged); read by the device at each step. With out (not NULL), counted since the process started once
 * this or ms__cuda_mode_rows was called: K2 blocks that gathered, out[0], and FAST / BAND rows K4 served by the
 * whole-row path because a block gave up, out[1]. Returns 1 when the gather is in K2 (round 25A: or in K2's grid,
 * MS_CU_K3W_K2), 2 when the one-read steps' K2or gathers too (round 26D: -DMS_CU_K3W_K2=3), 0 when not (out zeroed,
 * nothing done), MS_ECUDA on a CUDA error (waits for the device). */
int ms__cuda_k3(int giveup, int32_t spin_us, uint64_t out[2]);
/* Diagnostics only (round 7, built with -DMS_CU_STAMPS; 0 and nothing done otherwise): op 1 arms the
 * kernels' %globaltimer stamps (earliest / latest over the blocks, per event; see ms_cuda.cu), op 0 waits
 * for the device, reads them into lo / hi and disarms. 1 done, -1 a CUDA error. */
int ms__cuda_stamps(int op, unsigned long long lo[38], unsigned long long hi[38]);
int ms__cuda_stamps_q(int op, unsigned long long q[16]); /* round 17B: K4's row counters (ms_cuda.cu) */
int ms__cuda_stamps_or(int op, unsigned long long q[12], unsigned long long smlo[256], unsigned long long smhi[256],
                       unsigned long long smn[256]); /* round 20A: the one-read pass's counters */

/* Round 16B (diagnostics and tests): the smallest chunk of K1..K3 in tokens (8..32768; -1: the default,
 * MS_CU_MINCHUNK = 1024; anything else: unchanged); read at launch, on the host. Returns the value in force. */
int32_t ms__cuda_minchunk(int32_t c);
/* Round 16B (diagnostics): a graph of nk (1..5) near-empty kernels launched as a step's K0..K4 for n rows of
 * V tokens (the same grids; pdl 0: without the PDL attribute; round 17C, pdl 2: without K0, the first of the
 * others launched plainly, the rest with PDL), replayed 200 times: the median us a replay in
 * *us. Returns the blocks a row (G), or MS_EINVAL / MS_ECUDA. Allocates and synchronizes. */
int ms__cuda_chain(int32_t n, int32_t V, int nk, int pdl, float *us);

#ifdef __cplusplus
}
#endif
#endif /* MS_CUDA_H */
