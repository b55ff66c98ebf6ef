/* The "charmm" kind's force kernel (kinds/charmm_lanes.c): full lists, TPA
 * lanes per atom; the pair math, options and precisions are those of
 * charmm_pair.clh. */
#include "charmm_pair.clh"

/* The pair loops' macros (charmm_force's names: s the lane's slot, npad
 * its end, next the list pointer, a the atom, stride the list's).
 * The lane's list entries: blocks of PAD slots, block b of atom a at
 * b * stride + a * PAD. With TPA >= PAD a lane stays at slot lane % PAD of
 * every (TPA / PAD)-th block: a pointer step per pair instead of 64-bit
 * index arithmetic (~12 instructions on sm_90). */
#if TPA >= PAD
#define NBR_FETCH(slot) (*next) /* (next is at slot) */
#define NBR_ADVANCE() (next += next_step)
#else
#define NBR_FETCH(slot) nbr[(size_t)((uint)(slot) / PAD) * stride + (size_t)a * PAD + (uint)(slot) % PAD]
#define NBR_ADVANCE() (void)0
#endif
#define NBR_ENTRY() NBR_FETCH(s)
#define NBR_STEP() (s += TPA, NBR_ADVANCE())
/* FSUM pairs into the float partials, then one move into the totals
 * (FLUSH_ALL) outside the inner loop: no per-pair counter or predicated
 * flush; the tallies every 32 pairs (s / TPA: the lane's pairs so far) */
#undef TALLY_DUE
#define TALLY_DUE() ((((uint)s / TPA) & 31) < FSUM)
#if PIPE
#define LAST_PHASE 0
#else
#define LAST_PHASE 1
#endif
/* PIPE 1: phase 1 software-pipelined. A lane's loop is a chain of
 * dependent loads (list entry from DRAM or L2, then position and type of
 * j, then the LJ row): here the entry two slots ahead and the position and
 * type of the next slot are loaded one iteration before they are used, so
 * their latencies overlap a pair's math instead of adding to it (~4 more
 * registers). The list pointer (NBR_FETCH, NBR_ADVANCE) runs two slots
 * ahead of s. A plan value: the tuner times pipe 0, 1 and 2 (H200, rhodo
 * 32k mixed: 0.135 / 0.097 / 0.103 ms, -28% at the same instruction count:
 * the loop was latency-bound). */
/* The start of a pipelined loop: the entry e0 of slot s with its position
 * p0 and type t0, the entry e1 of slot s + TPA; the list pointer then at
 * s + 2 TPA. */
#define PIPE_START(e0, p0, t0, e1)                                                             \
    if (s < npad) {                                                                            \
        e0 = NBR_FETCH(s);                                                                     \
        p0 = pos[(e0) & INDEX_MASK];                                                           \
        t0 = type[(e0) & INDEX_MASK];                                                          \
    }                                                                                          \
    NBR_ADVANCE();                                                                             \
    if (s + TPA < npad)                                                                        \
        e1 = NBR_FETCH(s + TPA);                                                               \
    NBR_ADVANCE()
/* PIPE 2: the pipelined loop of PIPE 1 unrolled twice, the two register
 * sets (x: slot s, y: slot s + TPA) taking turns, so that nothing is copied
 * between iterations (PIPE 1 spends ~6 moves per pair on that).
 * PIPE_HALF(use, load): the pair of set `use` (its position, type and
 * entry), the position and type of the next slot into set `load` from its
 * entry, and the entry two slots ahead into `use`; do-while(0), so that the
 * cutoff's `continue` ends only this half. */
#define PIPE_HALF(pu, tu, eu, pl, tl, el)                                                      \
    do {                                                                                       \
        const pos4 pj = pu;                                                                    \
        const int tj = tu, j = (eu) & INDEX_MASK, kind = 0;                                    \
        pl = pos[(el) & INDEX_MASK];                                                           \
        tl = type[(el) & INDEX_MASK];                                                          \
        if (s + 2 * TPA < npad)                                                                \
            eu = NBR_FETCH(s + 2 * TPA);                                                       \
        NBR_STEP();                                                                            \
        const real4 d = pair_delta(pi, pj, lo_i, pos_lo, j, unit);                             \
        const real dx = d.x, dy = d.y, dz = d.z, qj = d.w;                                     \
        PAIR_STEP(tj);                                                                         \
    } while (0)

/* Why 34 arguments: positions, lists and types, plus the pair style's constants (cutoffs,
 * switching, Ewald, special factors) as scalars, as LAMMPS's style holds them, and the outputs. */
__kernel void charmm_force(__global const pos4 *restrict pos,
                           __global const float4 *restrict pos_lo,
                           __global const int *restrict type, __global const int *restrict ilist,
                           __global const int *restrict order,
                           __global const int *restrict nbr, __global const int *restrict numnbr,
                           __global const int *restrict nspecial_front, const int sorted,
                           __global const real4 *restrict ljc, const int ntypes,
                           const real cut_forcesq, const real cut_coulsq, const real cut_ljsq,
                           const real cut_lj_innersq, const real inv_denom_lj, const real qqrd2e,
                           const real g_ewald, const real4 special_lj, const real4 special_coul,
                           const real min_r2, const real unit, const ulong cut_force_units,
                           const ulong cut_coul_units, const int first, const int count,
                           const int group_base, const int per_atom, __global out_t *force,
                           __global part_t *partials, __global out_t *eatom, __global out_t *vatom,
                           volatile __global int *error, __local acc *scratch)
{
    const int gid = get_global_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const int lane = gid % TPA, a = gid / TPA;
    const int active = a < count;
    const int ii = first + (active ? a : 0);
    const int i = ilist[ii];
    const pos4 pi = pos[i];
    const float4 lo_i = residuals(pos_lo, i);
    const real qi = pair_delta(pi, pi, lo_i, pos_lo, i, unit).w;
    const int ti = type[i];
#if POS_FIXED && !PAIR_DOUBLE
    const real cut_hi = cut_forcesq * CUT_BAND_HI, band_lo = min(cut_forcesq, cut_coulsq) * CUT_BAND_LO;
#endif
    const size_t stride = (size_t)count * PAD;
    const int npad = active ? (numnbr[ii] + PAD - 1) / PAD * PAD : 0;
    TALLY_ACCUMULATORS();
    /* Sorted (pruned) lists hold their special pairs first: phase 0 runs the
     * general code over those, phase 1 the rest with kind 0 known at compile
     * time (no special factors, no erf series branch). With ~4% special
     * pairs spread over the list, nearly every warp step had some lane take
     * the series branch, which the others then waited for. Unsorted lists
     * run everything in phase 0. */
    const int nsp = !active ? 0 : sorted ? min(nspecial_front[ii], npad) : npad;
    int s = lane;
    /* the lane's list entries (NBR_FETCH) */
#if TPA >= PAD
    __global const int *restrict next = nbr + (size_t)(lane / PAD) * stride + (size_t)a * PAD + lane % PAD;
    const size_t next_step = (size_t)(TPA / PAD) * stride;
#endif
#pragma unroll
    for (int phase = 0; phase <= LAST_PHASE; phase++) {
        const int end = phase == 0 ? nsp : npad;
        while (s < end) {
            for (int f = 0; f < FLUSH_EVERY && s < end; f++, NBR_STEP()) {
                const int packed = NBR_ENTRY();
                const int j = packed & INDEX_MASK;
                const int kind = phase == 0 ? (packed >> KIND_SHIFT) & 3 : 0;
                const pos4 pj = pos[j];
                const real4 d = pair_delta(pi, pj, lo_i, pos_lo, j, unit);
                const real dx = d.x, dy = d.y, dz = d.z, qj = d.w;
                PAIR_STEP(type[j]);
            }
            FLUSH_ALL();
        }
    }
#if PIPE == 1
    /* PIPE 1: phase 1 software-pipelined (see the top) */
    {
        int e_cur = 0, e_next = 0, t_cur = 0;
        pos4 p_cur = pi;
        PIPE_START(e_cur, p_cur, t_cur, e_next);
        while (s < npad) {
            for (int f = 0; f < FLUSH_EVERY && s < npad; f++) {
                const int packed = e_cur, tj = t_cur;
                const pos4 pj = p_cur;
                const int j = packed & INDEX_MASK, kind = 0;
                /* (past the end e_next is still a valid index: no guard) */
                p_cur = pos[e_next & INDEX_MASK];
                t_cur = type[e_next & INDEX_MASK];
                e_cur = e_next;
                if (s + 2 * TPA < npad)
                    e_next = NBR_FETCH(s + 2 * TPA);
                NBR_STEP();
                const real4 d = pair_delta(pi, pj, lo_i, pos_lo, j, unit);
                const real dx = d.x, dy = d.y, dz = d.z, qj = d.w;
                PAIR_STEP(tj);
            }
            FLUSH_ALL();
        }
    }
#endif
#if PIPE == 2
    /* PIPE 2: PIPE 1 unrolled twice (PIPE_HALF) */
    {
        int ex = 0, ey = 0, tx = 0, ty = 0;
        pos4 px = pi, py = pi;
        PIPE_START(ex, px, tx, ey);
        while (s < npad) {
            for (int f = 0; f < FLUSH_EVERY && s < npad; f += 2) {
                PIPE_HALF(px, tx, ex, py, ty, ey);
                if (s < npad)
                    PIPE_HALF(py, ty, ey, px, tx, ex);
            }
            FLUSH_ALL();
        }
    }
#endif
    (void)pfx, (void)pfy, (void)pfz;

    FINISH_SUMS();
    finish_atom(scratch, lid, wg, lane, active, order, i, fx, fy, fz, per_atom, force,
                partials, eatom, vatom, group_base + get_group_id(0));
}

#undef LAST_PHASE
#undef PIPE_START
#undef PIPE_HALF
#undef TALLY_DUE
#define TALLY_DUE() 1
#undef NBR_FETCH
#undef NBR_ADVANCE
#undef NBR_ENTRY
#undef NBR_STEP
