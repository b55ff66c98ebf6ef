/* Full neighbor lists on the device from a cell grid (cl/charmm_bin.cl, or
 * the host binning on devices without fp64).
 *
 * One work-item per local atom scans the cells within `reach` cells of its own
 * (cells are at least cutoff/reach wide; reach 2 scans 1.7x less volume than
 * 27 cells of the full cutoff), keeps every
 * other atom closer than the list cutoff (force cutoff + skin) and tags it
 * with its special kind (1-2, 1-3, 1-4 partner by global tag) in the two high
 * bits. The list is padded to a multiple of 8 slots with the sentinel atom
 * (far away, so it never passes a cutoff) and stored in blocks of 8 slots per
 * atom: slot s of chunk atom a lives at (s/8)*count*8 + a*8 + s%8, so the 8
 * slots a group of lanes reads together are contiguous. An atom with more
 * neighbors than the capacity stores none past it and reports its count in
 * *overflow; the host regrows and rebuilds: the list is never truncated.
 *
 * Options: SCL_POS_DOUBLE=0|1: positions are double4, or int4 fixed point
 * (`unit` Angstrom per step, differences modulo 2^32: see charmm.cl). */

#if SCL_POS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double4 real4;
typedef double4 pos4;
#define DELTA(a, b) ((a) - (b))
#else
typedef float real;
typedef float4 real4;
typedef int4 pos4;
#define DELTA(a, b) ((real)as_int((uint)(a) - (uint)(b)) * unit)
#endif

#define KIND_SHIFT 30
#define PAD 8
#ifndef LANES /* work-items per atom in the list prune (charmm_nlist.prune_lanes) */
#define LANES 8
#endif

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

/* One work-item per atom. (A version with 8 work-items per atom sharing the
 * rows, counting then writing at prefix offsets, measured 1.66 ms per build
 * at 32k atoms on the H200 against 1.23 ms for this one: the second pass over
 * the candidates cost more than the extra parallelism gained.) */
__kernel void neighbor_build(__global const pos4 *pos, __global const long *tag,
                             __global const int *ilist, __global const int *icell,
                             __global const int *cell_start, const int nx, const int ny,
                             const int nz, const int reach, const real cutsq, const real unit,
                             const real4 grid_lo, const real4 grid_width, const real4 half_box,
                             __global const int *order, __global const int *nspecial,
                             __global const long *special, const int maxspecial, const int first,
                             const int count, const int capacity, const int sentinel,
                             __global int *nbr, __global int *numnbr,
                             volatile __global int *overflow)
{
    const int a = get_global_id(0);
    if (a >= count)
        return;
    const int ii = first + a;
    const int i = ilist[ii];
    const pos4 pi = pos[i];
    const int c = icell[ii];
    const int cx = c % nx, cy = (c / nx) % ny, cz = c / (nx * ny);
    const size_t stride = (size_t)count * PAD;
    /* bonded partners have nearby tags: most neighbors fail this range test.
     * The specials are the caller's arrays, by the caller's index o. */
    const int o = order[i];
    long2 range = (long2)(1, 0); /* empty */
    if (maxspecial > 0)
        for (int k = 0; k < nspecial[3 * o + 2]; k++) {
            const long t = special[(size_t)o * (size_t)maxspecial + k];
            range.x = k == 0 || t < range.x ? t : range.x;
            range.y = k == 0 || t > range.y ? t : range.y;
        }
    /* Rows of cells (z, y) are clipped to the cutoff sphere around the atom:
     * rows farther than the cutoff in y-z are skipped, and the x range of
     * the others shrinks to the sphere's chord. Of the 5x5x5 half-width
     * cells, about a third of the candidates were in the corners. The clip
     * is conservative (1e-3 A to spare for float cell boundaries); every
     * candidate still passes the exact distance test below. */
#if SCL_POS_DOUBLE
    const real xi = pi.x, yi = pi.y, zi = pi.z;
#else
    const real xi = (real)pi.x * unit, yi = (real)pi.y * unit, zi = (real)pi.z * unit;
#endif
    const real reach_cut = sqrt(cutsq) + (real)1e-3, reach_cutsq = reach_cut * reach_cut;
    int n = 0;
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
            for (int j = s0; j < s1; j++) {
                if (j == i)
                    continue;
                const pos4 pj = pos[j];
                const real dx = DELTA(pi.x, pj.x), dy = DELTA(pi.y, pj.y), dz = DELTA(pi.z, pj.z);
                if (dx * dx + dy * dy + dz * dz < cutsq) {
                    if (n < capacity) {
                        const long tj = tag[j];
                        int kind = tj >= range.x && tj <= range.y
                                       ? special_kind(nspecial, special, maxspecial, o, tj)
                                       : 0;
                        /* a far periodic image of the partner is not the
                         * partner (LAMMPS's minimum_image_check) */
                        if (kind && (fabs(dx) > half_box.x || fabs(dy) > half_box.y ||
                                     fabs(dz) > half_box.z))
                            kind = 0;
                        nbr[(size_t)(n / PAD) * stride + (size_t)a * PAD + n % PAD] =
                            j | (kind << KIND_SHIFT);
                    }
                    n++;
                }
            }
        }
    }
    if (n > capacity) {
        atomic_max(overflow, n);
        numnbr[ii] = 0;
        return;
    }
    for (int s = n; s < ((n + PAD - 1) / PAD) * PAD; s++)
        nbr[(size_t)(s / PAD) * stride + (size_t)a * PAD + s % PAD] = sentinel;
    numnbr[ii] = n;
}

/* Dynamic pruning: copy the pairs of the full list (nbr, numnbr) closer than
 * sqrt(cutsq) at the current positions into the inner list (same blocked
 * layout, padded with the sentinel, special pairs first and counted in
 * nspecial_front). LANES work-items per atom take the slots s with
 * s % LANES == lane; each counts its special and other kept pairs, offsets
 * come from the counts in local memory (specials of all lanes first), then
 * each writes: a fixed order, no atomics. The force kernels then skip the
 * outer shell of the skin until an atom has moved half the inner skin (the
 * host checks). */
inline int prune_pass(__global const pos4 *pos, const pos4 pi, __global const int *nbr,
                      const int n, const size_t stride, const int a, const int lane,
                      const real cutsq, const real unit, const int special, const int write,
                      int offset, __global int *nbr_in)
{
    int m = 0;
    for (int s = lane; s < n; s += LANES) {
        const int packed = nbr[(size_t)(s / PAD) * stride + (size_t)a * PAD + s % PAD];
        if ((((packed >> KIND_SHIFT) & 3) != 0) != special)
            continue;
        const pos4 pj = pos[packed & 0x3fffffff];
        const real dx = DELTA(pi.x, pj.x), dy = DELTA(pi.y, pj.y), dz = DELTA(pi.z, pj.z);
        if (dx * dx + dy * dy + dz * dz < cutsq) {
            if (write) {
                const int slot = offset + m;
                nbr_in[(size_t)(slot / PAD) * stride + (size_t)a * PAD + slot % PAD] = packed;
            }
            m++;
        }
    }
    return m;
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
    /* lane_count[lid]: special pairs kept, lane_count[wg + lid]: the others */
    lane_count[lid] = prune_pass(pos, pi, nbr, n, stride, a, lane, cutsq, unit, 1, 0, 0, nbr_in);
    lane_count[wg + lid] =
        prune_pass(pos, pi, nbr, n, stride, a, lane, cutsq, unit, 0, 0, 0, nbr_in);
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
    prune_pass(pos, pi, nbr, n, stride, a, lane, cutsq, unit, 1, 1, off_special, nbr_in);
    prune_pass(pos, pi, nbr, n, stride, a, lane, cutsq, unit, 0, 1, specials + off_other, nbr_in);
    if (lane == 0) {
        const int m = specials + others;
        for (int s = m; s < ((m + PAD - 1) / PAD) * PAD; s++)
            nbr_in[(size_t)(s / PAD) * stride + (size_t)a * PAD + s % PAD] = sentinel;
        numnbr_in[ii] = m;
        nspecial_front[ii] = specials;
    }
}
