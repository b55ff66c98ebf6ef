/* Full neighbor lists on the device from a cell grid (cl/charmm_bin.cl, or
 * the host binning on devices without fp64).
 *
 * LANES work-items per local atom scan the cells within `reach` cells of its
 * own (cells are at least cutoff/reach wide; reach 2 scans 1.7x less volume
 * than 27 cells of the full cutoff), keep every other atom closer than the
 * list cutoff (force cutoff + skin) and tag it with its special kind (1-2,
 * 1-3, 1-4 partner by global tag) in the two high bits. The candidates are
 * numbered in scan order; lane l takes those with number % LANES == l and
 * keeps its k-th pair in slot k * LANES + l: one pass, no atomics, and an
 * order fixed by LANES alone (not by the launch shape). The lanes' counts
 * differ by a few: the lanes past ceil(pairs / LANES) rows move their last
 * pairs into the others' free slots, so an atom's list is its pairs rounded
 * up to a multiple of LANES and of 8, with the sentinel atom (far away: it
 * never passes a cutoff) in the slots left (fewer than LANES, possibly
 * between pairs) and the padding; numnbr holds that slot count, npairs the
 * pairs. Slots are stored in blocks of 8 per atom: slot s of chunk atom a
 * lives at (s/8)*count*8 + a*8 + s%8, so the 8 slots a group of lanes reads
 * together are contiguous (with LANES 8, lane l's pairs are column l of the
 * atom's blocks, which the prune's lane l reads). An atom with more than
 * capacity/LANES pairs in some lane stores none past that and reports the
 * slots it needs in *overflow; the host regrows and rebuilds: the list is
 * never truncated.
 *
 * Options: SCL_POS_DOUBLE=0|1: positions are double4, or int4 fixed point
 * (`unit` Angstrom per step, differences modulo 2^32: see charmm.cl);
 * LANES: 1, 2, 4 or 8 (charmm_nlist.lanes), work-items per atom of the build
 * and the prune. */

#if SCL_POS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double4 real4;
typedef double4 pos4;
#define DELTA(a, b) ((a) - (b))
#define UNITS(v) (v) /* positions are in Angstrom */
#else
typedef float real;
typedef float4 real4;
typedef int4 pos4;
/* Differences in fixed-point steps: unit is a power of two, so comparing
 * d^2 in steps against cutsq / unit^2 rounds exactly as in Angstrom */
#define DELTA(a, b) ((real)as_int((uint)(a) - (uint)(b)))
#define UNITS(v) ((v) / (unit * unit))
#endif

#define KIND_SHIFT 30
#define PAD 8
#ifndef LANES /* work-items per atom of the build and the prune (charmm_nlist.lanes) */
#define LANES 8
#endif
/* index of slot s (>= 0) of chunk atom a; 32-bit factors, one wide multiply */
#define SLOT(s) ((size_t)((uint)(s) / PAD) * (size_t)(uint)stride + (size_t)((uint)a * PAD + (uint)(s) % PAD))

/* The index of a lane's next slot (s -> s + LANES) from that of s, whose
 * place in its block is *at_pad: an add instead of SLOT's arithmetic. */
inline size_t slot_next(size_t at, int *at_pad, const size_t stride)
{
#if LANES == PAD
    (void)at_pad;
    return at + stride;
#else
    *at_pad += LANES;
    if (*at_pad < PAD)
        return at + LANES;
    *at_pad -= PAD;
    return at + stride - (PAD - LANES);
#endif
}

/* Special kind of partner tag for local atom o (caller's index; 0: not
 * special). */
inline int special_kind(__global const int *nspecial, __global const long *special,
                        int maxspecial, int o, long tag)
{
    const int n12 = nspecial[3 * o], n13 = nspecial[3 * o + 1], n14 = nspecial[3 * o + 2];
    __global const long *sp = special + (size_t)o * (size_t)maxspecial;
    for (int k = 0; k < n14; k++)
        if (sp[k] == tag)
            return k < n12 ? 1 : k < n13 ? 2 : 3;
    return 0;
}

/* The low 32 bits of tag[j]. */
inline uint tag_lo32(__global const long *tag, int j)
{
#ifdef __ENDIAN_LITTLE__
    return ((__global const uint *)tag)[2 * (size_t)j];
#else
    return (uint)tag[j];
#endif
}

/* LANES work-items per atom (see the top); work-groups hold whole atoms and
 * every work-item reaches the barrier. (One work-item per atom, 32k atoms:
 * ~7 warps per SM, latency-bound at 1.28 ms per build on the H200; 8 lanes
 * counting in one pass and writing at prefix offsets in a second: 1.66 ms.) */
__kernel void neighbor_build(__global const pos4 *pos, __global const long *tag,
                             __global const int *ilist, __global const int *icell,
                             __global const int *cell_start, const int nx, const int ny,
                             const int nz, const int reach, const real cutsq, const real unit,
                             const real4 grid_lo, const real4 grid_width, const real4 half_box,
                             __global const int *order, __global const int *nspecial,
                             __global const long *special, const int maxspecial, const int first,
                             const int count, const int capacity, const int sentinel,
                             __global int *nbr, __global int *numnbr, __global int *npairs,
                             volatile __global int *overflow, __local int *lane_count)
{
    const int gid = get_global_id(0), lid = get_local_id(0);
    const int a = gid / LANES, lane = gid % LANES;
    const int active = a < count;
    const int ii = first + (active ? a : 0);
    const size_t stride = (size_t)count * PAD;
    const int lane_cap = capacity / LANES;
    int n = 0; /* this lane's pairs */
    size_t out = SLOT(lane); /* where its next pair goes */
    int out_pad = lane % PAD;
    if (active) {
        const int i = ilist[ii];
        const pos4 pi = pos[i];
        const int c = icell[ii];
        const int cx = c % nx, cy = (c / nx) % ny, cz = c / (nx * ny);
        /* bonded partners have nearby tags: most neighbors fail this range
         * test, on the low 32 bits of the tags (two registers, a 4-byte
         * load): tags in [lo, hi] pass (lo + 2^32 k too, which special_kind
         * then rejects); no specials: only tags equal to i's in those bits.
         * The specials are the caller's arrays, by the caller's index o. */
        const int o = order[i];
        long lo = 0, hi = -1;
        if (maxspecial > 0)
            for (int k = 0; k < nspecial[3 * o + 2]; k++) {
                const long t = special[(size_t)o * (size_t)maxspecial + k];
                lo = k == 0 || t < lo ? t : lo;
                hi = k == 0 || t > hi ? t : hi;
            }
        const uint range_lo = hi < lo ? tag_lo32(tag, i) : (uint)lo;
        const uint range_span = hi < lo ? 0u : hi - lo >= 0xffffffffL ? 0xffffffffu : (uint)(hi - lo);
        /* Rows of cells (z, y) are clipped to the cutoff sphere around the
         * atom: rows farther than the cutoff in y-z are skipped, and the x
         * range of the others shrinks to the sphere's chord. Of the 5x5x5
         * half-width cells, about a third of the candidates were in the
         * corners. The clip is conservative (1e-3 A to spare for float cell
         * boundaries); every candidate still passes the exact distance test. */
#if SCL_POS_DOUBLE
        const real xi = pi.x, yi = pi.y, zi = pi.z;
#else
        const real xi = (real)pi.x * unit, yi = (real)pi.y * unit, zi = (real)pi.z * unit;
#endif
        const real reach_cut = sqrt(cutsq) + (real)1e-3, reach_cutsq = reach_cut * reach_cut;
        const real cutsq_steps = UNITS(cutsq);
        int scanned = 0; /* candidates numbered so far */
        for (int z = max(cz - reach, 0); z <= min(cz + reach, nz - 1); z++) {
            const real zlo = grid_lo.z + (real)z * grid_width.z;
            const real dz = max(max(zlo - zi, zi - (zlo + grid_width.z)), (real)0);
            for (int y = max(cy - reach, 0); y <= min(cy + reach, ny - 1); y++) {
                const real ylo = grid_lo.y + (real)y * grid_width.y;
                const real dy = max(max(ylo - yi, yi - (ylo + grid_width.y)), (real)0);
                const real left = reach_cutsq - dy * dy - dz * dz;
                if (left <= 0)
                    continue;
                const real chord = sqrt(left); /* half the chord */
                const int x0 = max(max(cx - reach, 0),
                                   (int)floor((xi - chord - grid_lo.x) / grid_width.x));
                const int x1 = min(min(cx + reach, nx - 1),
                                   (int)floor((xi + chord - grid_lo.x) / grid_width.x));
                if (x1 < x0)
                    continue;
                const int row = (z * ny + y) * nx;
                /* the cells of a row are contiguous in the sorted order */
                const int s0 = cell_start[row + x0];
                const int s1 = cell_start[row + x1 + 1];
                /* candidate s0 + q has number scanned + q */
                for (int j = s0 + ((lane - scanned) & (LANES - 1)); j < s1; j += LANES) {
                    if (j == i)
                        continue;
                    const pos4 pj = pos[j];
                    const real dx = DELTA(pi.x, pj.x), dy = DELTA(pi.y, pj.y),
                               dz = DELTA(pi.z, pj.z);
                    if (dx * dx + dy * dy + dz * dz < cutsq_steps) {
                        if (n < lane_cap) { /* slot n * LANES + lane */
                            int kind = tag_lo32(tag, j) - range_lo <= range_span
                                           ? special_kind(nspecial, special, maxspecial, o, tag[j])
                                           : 0;
                            /* a far periodic image of the partner is not the
                             * partner (LAMMPS's minimum_image_check) */
                            if (kind && (fabs(dx) * unit > half_box.x ||
                                         fabs(dy) * unit > half_box.y ||
                                         fabs(dz) * unit > half_box.z))
                                kind = 0;
                            nbr[out] = j | (kind << KIND_SHIFT);
                            out = slot_next(out, &out_pad, stride);
                        }
                        n++;
                    }
                }
                scanned += s1 - s0;
            }
        }
    }
    lane_count[lid] = n;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!active)
        return;
    const __local int *counts = lane_count + (lid - lane); /* the atom's lanes' */
    int most = 0, pairs = 0;
    for (int l = 0; l < LANES; l++) {
        most = max(most, counts[l]);
        pairs += counts[l];
    }
    if (most > lane_cap) {
        if (lane == 0) {
            atomic_max(overflow, most * LANES);
            numnbr[ii] = 0;
            npairs[ii] = 0;
        }
        return;
    }
    /* Even the lanes out: rows = ceil(pairs / LANES); the pairs of lanes
     * past it (numbered lane by lane) move to the free slots of the others
     * below it (numbered lane by lane, row by row); the free slots left (fewer
     * than LANES, in the last row) get the sentinel. Every lane computes the
     * same numbering from the counts: a fixed order, and no slot written
     * twice. The list is then as long as one lane's would be, rounded to 8. */
    const int rows = (pairs + LANES - 1) / LANES;
    int extra_before = 0, free_before = 0, moved = 0;
    for (int l = 0; l < LANES; l++) {
        const int extra = max(counts[l] - rows, 0), unused = max(rows - counts[l], 0);
        extra_before += l < lane ? extra : 0;
        free_before += l < lane ? unused : 0;
        moved += extra;
    }
    for (int k = rows; k < n; k++) { /* this lane's pairs past the rows */
        const int m = extra_before + k - rows; /* the m-th free slot */
        int l = 0, before = 0;
        while (before + max(rows - counts[l], 0) <= m)
            before += max(rows - counts[l++], 0);
        nbr[SLOT((counts[l] + m - before) * LANES + l)] = nbr[SLOT(k * LANES + lane)];
    }
    for (int k = n; k < rows; k++) /* this lane's free slots no pair moved to */
        if (free_before + k - n >= moved)
            nbr[SLOT(k * LANES + lane)] = sentinel;
    /* the padding to 8 slots, each lane in its own slots (it has read its
     * pairs there already) */
    const int padded = (rows * LANES + PAD - 1) / PAD * PAD;
    for (int k = rows; k < padded / LANES; k++)
        nbr[SLOT(k * LANES + lane)] = sentinel;
    if (lane == 0) {
        numnbr[ii] = padded;
        npairs[ii] = pairs;
    }
}

/* Dynamic pruning: copy the pairs of the full list (nbr, numnbr) closer than
 * sqrt(cutsq) at the current positions into the inner list (same blocked
 * layout, padded with the sentinel, special pairs first and counted in
 * nspecial_front). LANES work-items per atom take the slots s with
 * s % LANES == lane (the build's lane of that number: mostly its pairs; the
 * sentinel, in the few free slots, never passes the cutoff). One sweep
 * tests the distances, counts the lane's kept special and other pairs and
 * remembers which were kept (bits, for its first KEEP_BITS slots); offsets
 * come from the counts in local memory (specials of all lanes first); a
 * second sweep writes, from the bits without gathering positions again: a
 * fixed order, no atomics. The force kernels then skip the outer shell of
 * the skin until an atom has moved half the inner skin (the host checks). */
#define KEEP_BITS 128

inline int pair_within(__global const pos4 *pos, const pos4 pi, const int packed,
                       const real cutsq_steps)
{
    const pos4 pj = pos[packed & 0x3fffffff];
    const real dx = DELTA(pi.x, pj.x), dy = DELTA(pi.y, pj.y), dz = DELTA(pi.z, pj.z);
    return dx * dx + dy * dy + dz * dz < cutsq_steps;
}

__kernel void neighbor_prune(__global const pos4 *pos, __global const int *ilist,
                             __global const int *nbr, __global const int *numnbr,
                             const real cutsq, const real unit, const int first, const int count,
                             const int sentinel, __global int *nbr_in, __global int *numnbr_in,
                             __global int *nspecial_front, __local int *lane_count)
{
    const int gid = get_global_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const int a = gid / LANES, lane = gid % LANES;
    const int active = a < count;
    const int ii = first + (active ? a : 0);
    const pos4 pi = pos[ilist[ii]];
    const size_t stride = (size_t)count * PAD;
    const int n = active ? numnbr[ii] : 0;
    const real cutsq_steps = UNITS(cutsq);
    int kept_special = 0, kept_other = 0;
    ulong keep0 = 0, keep1 = 0; /* k-th slot of the lane kept, k < KEEP_BITS */
    size_t at = SLOT(lane);
    int at_pad = lane % PAD;
    for (int s = lane, k = 0; s < n; s += LANES, k++, at = slot_next(at, &at_pad, stride)) {
        const int packed = nbr[at];
        if (pair_within(pos, pi, packed, cutsq_steps)) {
            if ((packed >> KIND_SHIFT) & 3)
                kept_special++;
            else
                kept_other++;
            if (k < 64)
                keep0 |= (ulong)1 << k;
            else if (k < KEEP_BITS)
                keep1 |= (ulong)1 << (k - 64);
        }
    }
    /* lane_count[lid]: special pairs kept, lane_count[wg + lid]: the others */
    lane_count[lid] = kept_special;
    lane_count[wg + lid] = kept_other;
    barrier(CLK_LOCAL_MEM_FENCE);
    int specials = 0, others = 0, off_special = 0, off_other = 0;
    for (int l = 0; l < LANES; l++) {
        const int vs = lane_count[lid - lane + l], vo = lane_count[wg + lid - lane + l];
        off_special += l < lane ? vs : 0;
        off_other += l < lane ? vo : 0;
        specials += vs;
        others += vo;
    }
    if (!active)
        return;
    int at_special = off_special, at_other = specials + off_other;
    at = SLOT(lane);
    at_pad = lane % PAD;
    for (int s = lane, k = 0; s < n; s += LANES, k++, at = slot_next(at, &at_pad, stride)) {
        const int packed = nbr[at];
        const int kept = k < 64           ? (int)(keep0 >> k) & 1
                         : k < KEEP_BITS ? (int)(keep1 >> (k - 64)) & 1
                                         : pair_within(pos, pi, packed, cutsq_steps);
        if (kept) {
            const int slot = (packed >> KIND_SHIFT) & 3 ? at_special++ : at_other++;
            nbr_in[SLOT(slot)] = packed;
        }
    }
    if (lane == 0) {
        const int m = specials + others;
        for (int s = m; s < ((m + PAD - 1) / PAD) * PAD; s++)
            nbr_in[SLOT(s)] = sentinel;
        numnbr_in[ii] = m;
        nspecial_front[ii] = specials;
    }
}
