/* Full neighbor lists on the device from a cell grid (src/pair/list/charmm_bin.cl, or
 * the host binning on devices without fp64).
 *
 * LANES work-items per local atom scan the cells within `reach` cells of its
 * own (cells are at least cutoff/reach wide; reach 2 scans 1.7x less volume
 * than 27 cells of the full cutoff), keep every other atom closer than the
 * list cutoff (force cutoff + skin) and tag it with its special kind (1-2,
 * 1-3, 1-4 partner by global tag) in the two high bits. The rows of cells
 * are scanned in chunks of CHUNK candidates, 8 sub-chunks of 2 LANES: lane
 * l tests candidates 2l and 2l + 1 of each sub-chunk (the lanes of an atom
 * read 256 neighboring bytes together) and keeps its pairs in local memory;
 * after a barrier each lane writes them at their rank (the pairs of the
 * chunks before, of the sub-chunks before, of the lanes before it in the
 * sub-chunk): one pass, no atomics, and the pairs in increasing j, the scan
 * order (rows in z, y order, the cells of a row contiguous), whatever LANES
 * and the launch shape: the force kernels' neighboring slots gather from
 * neighboring positions (lane by lane, every 8th pair, cost them 11-15%). The list is
 * padded to a multiple of 8 slots with the sentinel atom (far away: it never
 * passes a cutoff); numnbr holds the padded count, npairs the pairs. Slots
 * are stored in blocks of 8 per atom: slot s of chunk atom a lives at
 * (s/8)*count*8 + a*8 + s%8, so the 8 slots a group of lanes reads together
 * are contiguous. An atom with more neighbors than the capacity stores none
 * past it and reports its count in *overflow; the host regrows and
 * rebuilds: the list is never truncated.
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

#include "charmm_special.clh"

/* The low 32 bits of tag[j]. */
inline uint tag_lo32(__global const long *tag, int j)
{
#ifdef __ENDIAN_LITTLE__
    return ((__global const uint *)tag)[2 * (size_t)j];
#else
    return (uint)tag[j];
#endif
}

/* LANES work-items per atom (see the top); work-groups hold whole atoms,
 * and every work-item runs the same rows and chunks (their counts are the
 * work-group's: the barriers are uniform). Per work-item HITS slots of
 * scratch in local memory: a chunk gives a lane at most HITS candidates.
 * (H200, rhodo 32k: one work-item per atom, ~7 warps per SM, latency-bound
 * at 1.28 ms per build; 8 lanes counting in one pass and writing at prefix
 * offsets in a second: 1.66 ms; 8 lanes keeping every 8th candidate in
 * their own column of slots: 0.46 ms, and the same in chunks of 128
 * candidates written lane by lane: 0.46 ms, but both orders made the force
 * kernel's gathers 11-15% slower than increasing j.) */
#define SUBCHUNKS 8              /* of a chunk (bytes of a ulong) */
#define CHUNK (2 * LANES * SUBCHUNKS) /* candidates of a row per chunk */
#define HITS (2 * SUBCHUNKS)     /* candidates of a lane per chunk */

/* The tag range [lo, lo + span] of local atom o's special partners, on the
 * low 32 bits of the tags (returns lo, *span the width; see neighbor_build) */
inline uint special_range(__global const long *tag, __global const int *nspecial,
                          __global const long *special, const int maxspecial, const int active,
                          const int i, const int o, uint *span)
{
    long lo = 0, hi = -1;
    if (active && maxspecial > 0)
        for (int k = 0; k < nspecial[3 * o + 2]; k++) {
            const long t = special[(size_t)o * (size_t)maxspecial + k];
            lo = k == 0 || t < lo ? t : lo;
            hi = k == 0 || t > hi ? t : hi;
        }
    *span = hi < lo ? 0u : hi - lo >= 0xffffffffL ? 0xffffffffu : (uint)(hi - lo);
    return hi < lo ? (active ? tag_lo32(tag, i) : 0u) : (uint)lo;
}

/* The candidates [*s0, *s1) of row (y, z) of cells around cell cx, clipped
 * to the chord of the sphere of squared radius reach_cutsq around (xi, yi,
 * zi); left as they are when the row misses it */
inline void row_span(__global const int *cell_start, const int nx, const int ny, const int reach,
                     const real4 grid_lo, const real4 grid_width, const int cx, const int y,
                     const int z, const real xi, const real yi, const real zi,
                     const real reach_cutsq, int *s0, int *s1)
{
    const real zlo = grid_lo.z + (real)z * grid_width.z;
    const real ylo = grid_lo.y + (real)y * grid_width.y;
    const real dz = max(max(zlo - zi, zi - (zlo + grid_width.z)), (real)0);
    const real dy = max(max(ylo - yi, yi - (ylo + grid_width.y)), (real)0);
    const real left = reach_cutsq - dy * dy - dz * dz;
    if (left > 0) {
        const real chord = sqrt(left); /* half the chord */
        const int x0 =
            max(max(cx - reach, 0), (int)floor((xi - chord - grid_lo.x) / grid_width.x));
        const int x1 =
            min(min(cx + reach, nx - 1), (int)floor((xi + chord - grid_lo.x) / grid_width.x));
        if (x1 >= x0) {
            const int row = (z * ny + y) * nx;
            *s0 = cell_start[row + x0];
            *s1 = cell_start[row + x1 + 1];
        }
    }
}

/* The special kind of pair (o, j) at distance (dx, dy, dz): the lookup only
 * for tags in the atom's special range */
inline int pair_kind(__global const long *tag, __global const int *nspecial,
                     __global const long *special, const int maxspecial, const int o,
                     const int j, const uint range_lo, const uint range_span, const real dx,
                     const real dy, const real dz, const real unit, const real4 half_box)
{
    int kind = tag_lo32(tag, j) - range_lo <= range_span
                   ? special_kind(nspecial, special, maxspecial, o, tag[j])
                   : 0;
    /* a far periodic image of the partner is not the partner (LAMMPS's
     * minimum_image_check) */
    if (kind && (fabs(dx) * unit > half_box.x || fabs(dy) * unit > half_box.y ||
                 fabs(dz) * unit > half_box.z))
        kind = 0;
    return kind;
}

/* A lane's pairs of one chunk (mine, counts: per sub-chunk, a byte each)
 * at their ranks after the atom's total before the chunk: byte m of all,
 * the sub-chunks before m of every lane; of before, of the lanes before */
inline void store_chunk(__global int *nbr, __local const int *mine, const size_t stride,
                        const int a, const int capacity, const int total, const ulong counts,
                        const ulong before, const ulong all)
{
    /* byte m: the pairs of the sub-chunks before m */
    const ulong earlier = all * 0x0101010101010100UL;
    for (int m = 0, k = 0; m < SUBCHUNKS; m++) {
        const int base =
            total + (int)((earlier >> (8 * m)) & 0xff) + (int)((before >> (8 * m)) & 0xff);
        for (int c = (int)((counts >> (8 * m)) & 0xff), q = 0; q < c; q++, k++)
            if (base + q < capacity)
                nbr[SLOT(base + q)] = mine[k];
    }
}
/* Why 29 arguments: positions, tags, specials and the cell grid in; lists, counts and overflow
 * out; three __local scratch arrays. */
__kernel void neighbor_build(__global const pos4 *pos, __global const long *tag,
                             __global const int *ilist, __global const int *icell,
                             __global const int *cell_start, const int nx, const int ny,
                             const int nz, const int reach, const real cutsq, const real unit,
                             const real4 grid_lo, const real4 grid_width, const real4 half_box,
                             __global const int *order, __global const int *nspecial,
                             __global const long *special, const int maxspecial, const int first,
                             const int count, const int capacity, const int sentinel,
                             __global int *nbr, __global int *numnbr, __global int *npairs,
                             volatile __global int *overflow, __local ulong *lane_count,
                             __local int *row_length, __local int *scratch)
{
    const int gid = get_global_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const int a = gid / LANES, lane = gid % LANES, atoms = wg / LANES;
    const int active = a < count;
    const int ii = first + (active ? a : 0);
    const size_t stride = (size_t)count * PAD;
    __local int *mine = scratch + lid * HITS;
    const int i = active ? ilist[ii] : -1;
    const pos4 pi = pos[active ? i : 0];
    const int c = active ? icell[ii] : 0;
    const int cx = c % nx, cy = (c / nx) % ny, cz = c / (nx * ny);
    /* bonded partners have nearby tags: most neighbors fail this range test,
     * on the low 32 bits of the tags (two registers, a 4-byte load): tags in
     * [lo, hi] pass (lo + 2^32 k too, which special_kind then rejects); no
     * specials: only tags equal to i's in those bits. The specials are the
     * caller's arrays, by the caller's index o. */
    const int o = active ? order[i] : 0;
    uint range_span;
    const uint range_lo =
        special_range(tag, nspecial, special, maxspecial, active, i, o, &range_span);
#if SCL_POS_DOUBLE
    const real xi = pi.x, yi = pi.y, zi = pi.z;
#else
    const real xi = (real)pi.x * unit, yi = (real)pi.y * unit, zi = (real)pi.z * unit;
#endif
    const real reach_cut = sqrt(cutsq) + (real)1e-3, reach_cutsq = reach_cut * reach_cut;
    const real cutsq_steps = UNITS(cutsq);
    const int side = 2 * reach + 1;
    int total = 0, parity = 0; /* the atom's pairs so far (every lane counts them all) */
    /* Rows of cells (z, y) around the atom's cell, clipped to the cutoff
     * sphere: rows farther than the cutoff in y-z are empty, and the x range
     * of the others shrinks to the sphere's chord (of the 5x5x5 half-width
     * cells, about a third of the candidates were in the corners). The clip
     * is conservative (1e-3 A to spare for float cell boundaries); every
     * candidate still passes the exact distance test. The cells of a row are
     * contiguous in the sorted order, and rows come in that order: the list
     * is in increasing j (binned index) row by row, lane by lane within a
     * chunk of a row. */
    for (int r = 0; r < side * side; r++) {
        const int z = cz + r / side - reach, y = cy + r % side - reach;
        int s0 = 0, s1 = 0;
        if (active && z >= 0 && z < nz && y >= 0 && y < ny)
            row_span(cell_start, nx, ny, reach, grid_lo, grid_width, cx, y, z, xi, yi, zi,
                     reach_cutsq, &s0, &s1);
        /* the longest row of the work-group's atoms: its chunk count */
        if (lane == 0)
            row_length[(r & 1) * atoms + lid / LANES] = s1 - s0;
        barrier(CLK_LOCAL_MEM_FENCE);
        int longest = 0;
        for (int k = 0; k < atoms; k++)
            longest = max(longest, row_length[(r & 1) * atoms + k]);
        for (int c0 = 0; c0 < longest; c0 += CHUNK) {
            /* sub-chunk m of 2 LANES candidates: lane l tests its 2l-th and
             * (2l+1)-th, and counts its pairs there in byte m of counts */
            int h = 0;
            ulong counts = 0;
            const int end = min(s1, s0 + c0 + CHUNK);
            for (int m = 0; m < SUBCHUNKS; m++)
                for (int q = 0; q < 2; q++) {
                    const int j = s0 + c0 + 2 * (m * LANES + lane) + q;
                    if (j >= end || j == i)
                        continue;
                    const pos4 pj = pos[j];
                    const real dx = DELTA(pi.x, pj.x), dy = DELTA(pi.y, pj.y),
                               dz = DELTA(pi.z, pj.z);
                    if (dx * dx + dy * dy + dz * dz < cutsq_steps) {
                        const int kind = pair_kind(tag, nspecial, special, maxspecial, o, j,
                                                   range_lo, range_span, dx, dy, dz, unit,
                                                   half_box);
                        mine[h++] = j | (kind << KIND_SHIFT);
                        counts += (ulong)1 << (8 * m);
                    }
                }
            /* counts double-buffered: one barrier a chunk. Bytewise sums
             * (at most 2 LANES a byte, 16 LANES in all: no carries) */
            lane_count[parity * wg + lid] = counts;
            barrier(CLK_LOCAL_MEM_FENCE);
            ulong before = 0, all = 0;
            for (int l = 0; l < LANES; l++) {
                const ulong v = lane_count[parity * wg + lid - lane + l];
                before += l < lane ? v : 0;
                all += v;
            }
            parity ^= 1;
            store_chunk(nbr, mine, stride, a, capacity, total, counts, before, all);
            total += (int)((all * 0x0101010101010101UL) >> 56);
        }
    }
    if (!active)
        return;
    if (total > capacity) { /* nothing stored past the capacity */
        if (lane == 0) {
            atomic_max(overflow, total);
            numnbr[ii] = 0;
            npairs[ii] = 0;
        }
        return;
    }
    const int padded = (total + PAD - 1) / PAD * PAD;
    for (int s = total + lane; s < padded; s += LANES)
        nbr[SLOT(s)] = sentinel;
    if (lane == 0) {
        numnbr[ii] = padded;
        npairs[ii] = total;
    }
}

/* Dynamic pruning: copy the pairs of the full list (nbr, numnbr) closer than
 * sqrt(cutsq) at the current positions into the inner list (same blocked
 * layout, padded with the sentinel, special pairs first and counted in
 * nspecial_front), in the order of the full list (increasing j row by row:
 * the force kernels' gathers of neighboring slots stay close). LANES
 * work-items per atom take the slots s with s % LANES == lane (the lanes of
 * a warp read neighboring slots together). The first sweep tests the
 * distances and marks each slot in local memory (a byte: 1 special pair
 * kept, 2 other kept, 0 not), for the atom's first KEEP_ROWS blocks of 8
 * slots; a lane's slot then goes to the number of kept slots before it of
 * its kind (specials before all others), which the second sweep counts from
 * the marks block by block (popcounts of 8 marks), without gathering
 * positions again: a fixed order, no atomics. Blocks past KEEP_ROWS (atoms
 * with more than 8 KEEP_ROWS slots) are tested again, all 8 slots, in the
 * second sweep. The force kernels then skip the outer shell of the skin
 * until an atom has moved half the inner skin (the host checks). */
#define KEEP_ROWS 128
#define MARKS_SPECIAL 0x0101010101010101UL
#define MARKS_OTHER 0x0202020202020202UL

/* 1 (special) or 2 (other) when the pair is within the cutoff, else 0 */
inline int pair_mark(__global const pos4 *pos, const pos4 pi, const int packed,
                     const real cutsq_steps)
{
    const pos4 pj = pos[packed & 0x3fffffff];
    const real dx = DELTA(pi.x, pj.x), dy = DELTA(pi.y, pj.y), dz = DELTA(pi.z, pj.z);
    return dx * dx + dy * dy + dz * dz < cutsq_steps ? ((packed >> KIND_SHIFT) & 3 ? 1 : 2) : 0;
}

__kernel void neighbor_prune(__global const pos4 *pos, __global const int *ilist,
                             __global const int *nbr, __global const int *numnbr,
                             const real cutsq, const real unit, const int first, const int count,
                             const int sentinel, __global int *nbr_in, __global int *numnbr_in,
                             __global int *nspecial_front, __local int *lane_count,
                             __local ulong *marks)
{
    const int gid = get_global_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const int a = gid / LANES, lane = gid % LANES;
    const int active = a < count;
    const int ii = first + (active ? a : 0);
    const pos4 pi = pos[ilist[ii]];
    const size_t stride = (size_t)count * PAD;
    const int n = active ? numnbr[ii] : 0, n8 = (n + PAD - 1) / PAD * PAD;
    const real cutsq_steps = UNITS(cutsq);
    __local ulong *mine = marks + (lid / LANES) * KEEP_ROWS; /* the atom's marks */
    __local uchar *mine_bytes = (__local uchar *)mine;
    int kept_special = 0, kept_other = 0;
    for (int s = lane; s < n8; s += LANES) {
        const int mark = s < n ? pair_mark(pos, pi, nbr[SLOT(s)], cutsq_steps) : 0;
        kept_special += mark == 1;
        kept_other += mark == 2;
        if (s < PAD * KEEP_ROWS)
            mine_bytes[s] = (uchar)mark;
    }
    /* lane_count[lid]: special pairs kept, lane_count[wg + lid]: the others */
    lane_count[lid] = kept_special;
    lane_count[wg + lid] = kept_other;
    barrier(CLK_LOCAL_MEM_FENCE);
    int specials = 0, others = 0;
    for (int l = 0; l < LANES; l++) {
        specials += lane_count[lid - lane + l];
        others += lane_count[wg + lid - lane + l];
    }
    if (!active)
        return;
    int before_special = 0, before_other = 0; /* kept in the blocks before */
    for (int k = 0; k < n8 / PAD; k++) {
        ulong v = 0;
        if (k < KEEP_ROWS) {
            v = mine[k];
        } else { /* not marked: test the block's 8 slots here */
            for (int p = 0; p < PAD; p++)
                v |= (ulong)(8 * k + p < n ? pair_mark(pos, pi, nbr[SLOT(8 * k + p)], cutsq_steps)
                                           : 0)
                     << (8 * p);
        }
        for (int p = lane; p < PAD; p += LANES) { /* this lane's slots of the block */
            const int mark = (int)(v >> (8 * p)) & 3;
            if (mark) {
                const ulong below = ((ulong)1 << (8 * p)) - 1;
                const int slot = mark == 1 ? before_special + popcount(v & below & MARKS_SPECIAL)
                                           : specials + before_other +
                                                 popcount(v & below & MARKS_OTHER);
                nbr_in[SLOT(slot)] = nbr[SLOT(8 * k + p)];
            }
        }
        before_special += popcount(v & MARKS_SPECIAL);
        before_other += popcount(v & MARKS_OTHER);
    }
    const int m = specials + others;
    for (int s = m + lane; s < (m + PAD - 1) / PAD * PAD; s += LANES)
        nbr_in[SLOT(s)] = sentinel;
    if (lane == 0) {
        numnbr_in[ii] = m;
        nspecial_front[ii] = specials;
    }
}
