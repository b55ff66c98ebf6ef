/* Cluster-pair lists of the "cluster" force kind (charmm_cluster_force in
 * src/pair/kinds/charmm_pair.clh), built on the device from the neighbor list object's packed
 * positions at each rebuild, GROMACS-style:
 *   - the atoms are cut into clusters of 8: columns of a 2D grid in x-y
 *     (about as wide as a cluster is tall), atoms sorted by z within each
 *     column (cluster_sort), each column's sorted atoms cut into groups of 8
 *     (the last one padded with -1). Two sets: the i-set holds the local
 *     atoms (entries are local slots ii, see ilist), the j-set every atom
 *     (entries are binned indices);
 *   - a bounding box per cluster (cluster_bounds);
 *   - per i-cluster the j-clusters whose box comes closer than the list
 *     cutoff to its own, each with a 64-bit mask of the (i, j) atom pairs to
 *     compute: bit 8 i + k is clear for padding, the atom itself and special
 *     pairs (cluster_pairs). The special pairs go to a short list per i atom
 *     (binned j | kind << 30) that the force kernel runs through the general
 *     pair code after the clusters;
 *   - at each prune of the engine, an inner list of the entries with pairs
 *     closer than the force cutoff + the inner skin, masks cut to those
 *     pairs (cluster_prune): on rhodo 147 of 273 entries per i-cluster, and
 *     1039 of 2229 atom pairs per atom in 8 x 4 blocks with a pair in reach.
 * Column counts, starts and the per-column order reuse bin_count-like
 * atomics, bin_scan and bin_scatter (src/pair/list/charmm_bin.cl); the z sort ranks each
 * atom among its column (ties by index), so the result does not depend on
 * the order of the atomics.
 *
 * Options: SCL_POS_DOUBLE=0|1: positions are double4, or int4 fixed point
 * (`unit` Angstrom per step, see src/pair/kinds/charmm_pair.clh). Box arithmetic is float in
 * Angstrom relative to the packing origin, with 1e-3 A to spare in the
 * distance tests (every pair is still tested exactly by the force kernel). */

#if SCL_POS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double4 pos4;
#define DELTA(a, b) ((float)((a) - (b)))
#else
typedef int4 pos4;
#define DELTA(a, b) ((float)as_int((uint)(a) - (uint)(b)) * unit)
#endif

#define KIND_SHIFT 30
#define CLUSTER 8
#define SPARE 1e-3f

inline float4 coords(const pos4 p, const float unit)
{
    return (float4)((float)p.x * unit, (float)p.y * unit, (float)p.z * unit, 0.0f);
}

/* The atom of entry a of a set: local slot a (map = ilist) or binned a. */
inline int atom_of(__global const int *map, const int use_map, const int a)
{
    return use_map ? map[a] : a;
}

inline int column_coord(const float v, const float lo, const float inv_width, const int n)
{
    return (int)clamp(floor((v - lo) * inv_width), 0.0f, (float)(n - 1));
}

/* Column of each entry and its arrival rank there (count zeroed before). */
__kernel void cluster_columns(__global const pos4 *pos, __global const int *map, const int use_map,
                              const int n, const float unit, const float4 grid_lo,
                              const float4 inv_width, const int ncx, const int ncy,
                              __global int *col_of, __global int *rank, __global int *count)
{
    const int a = get_global_id(0);
    if (a >= n)
        return;
    const float4 r = coords(pos[atom_of(map, use_map, a)], unit);
    const int c = column_coord(r.y, grid_lo.y, inv_width.y, ncy) * ncx +
                  column_coord(r.x, grid_lo.x, inv_width.x, ncx);
    col_of[a] = c;
    rank[a] = atomic_inc(&count[c]);
}

/* Place each entry at its z rank within its column's clusters (cl_atom
 * filled with -1 before: the padding). */
__kernel void cluster_sort(__global const pos4 *pos, __global const int *map, const int use_map,
                           const int n, const float unit, __global const int *col_of,
                           __global const int *col_start, __global const int *col_cluster,
                           __global const int *col_entries, __global int *cl_atom)
{
    const int a = get_global_id(0);
    if (a >= n)
        return;
    const int c = col_of[a];
    const float z = coords(pos[atom_of(map, use_map, a)], unit).z;
    int r = 0;
    for (int s = col_start[c]; s < col_start[c + 1]; s++) {
        const int e = col_entries[s];
        const float ze = coords(pos[atom_of(map, use_map, e)], unit).z;
        r += ze < z || (ze == z && e < a);
    }
    cl_atom[CLUSTER * col_cluster[c] + r] = a;
}

/* Bounding box of each cluster's atoms (an empty cluster's never comes
 * near anything). */
__kernel void cluster_bounds(__global const pos4 *pos, __global const int *map, const int use_map,
                             const int nclusters, const float unit, __global const int *cl_atom,
                             __global float4 *cl_lo, __global float4 *cl_hi)
{
    const int c = get_global_id(0);
    if (c >= nclusters)
        return;
    float4 lo = (float4)(1e30f), hi = (float4)(-1e30f);
    for (int k = 0; k < CLUSTER; k++) {
        const int a = cl_atom[CLUSTER * c + k];
        if (a < 0)
            continue;
        const float4 r = coords(pos[atom_of(map, use_map, a)], unit);
        lo = fmin(lo, r);
        hi = fmax(hi, r);
    }
    cl_lo[c] = lo;
    cl_hi[c] = hi;
}

#include "../list/charmm_special.clh"

/* The range of local atom o's special partner tags (x > y: empty): bonded
 * partners have nearby tags, and most pairs fail the range test */
inline long2 special_tags(__global const int *nspecial, __global const long *special,
                          const int maxspecial, const int o, const int has_atom)
{
    long2 range = (long2)(1, 0); /* empty */
    if (has_atom && maxspecial > 0)
        for (int s = 0; s < nspecial[3 * o + 2]; s++) {
            const long tg = special[(size_t)o * (size_t)maxspecial + s];
            range.x = s == 0 || tg < range.x ? tg : range.x;
            range.y = s == 0 || tg > range.y ? tg : range.y;
        }
    return range;
}

/* The first cluster of [first, last) (one column: hi.z grows along it)
 * whose box reaches z, by bisection */
inline int first_reaching(__global const float4 *cl_hi_j, int first, int last, const float z)
{
    while (first < last) {
        const int mid = (first + last) / 2;
        if (cl_hi_j[mid].z < z)
            first = mid + 1;
        else
            last = mid;
    }
    return first;
}

/* The special kind of the pair (i at pi, o; binned j bj with tag tj in the
 * range): 0 for none, -1 for a special pair beyond the list cutoff */
inline int cluster_special(__global const pos4 *pos, __global const int *nspecial,
                           __global const long *special, const int maxspecial, const int o,
                           const pos4 pi, const int bj, const long tj, const float unit,
                           const float4 half_box, const float cutsq)
{
    const pos4 pj = pos[bj];
    const float dx = DELTA(pi.x, pj.x), dy = DELTA(pi.y, pj.y), dz = DELTA(pi.z, pj.z);
    int kind = special_kind(nspecial, special, maxspecial, o, tj);
    /* a far periodic image of the partner is not the partner (LAMMPS's
     * minimum_image_check) */
    if (fabs(dx) > half_box.x || fabs(dy) > half_box.y || fabs(dz) > half_box.z)
        kind = 0;
    /* beyond the list cutoff a special pair never interacts: neither
     * computed nor listed */
    if (kind && dx * dx + dy * dy + dz * dz >= cutsq + SPARE)
        kind = -1;
    return kind;
}

/* The special pairs of i = t with j-cluster jc (kinds: the work-group's, in
 * k order) onto i's list after its nsp so far; returns the new count (past
 * sp_capacity: counted, not stored) */
inline int list_specials(__local const int *kinds, __global const int *cl_atom_j, const int ic,
                         const int jc, const int t, const int sp_capacity, int nsp,
                         __global int *sp_list)
{
    for (int kk = 0; kk < CLUSTER; kk++) {
        const int kd = kinds[CLUSTER * t + kk];
        if (kd && nsp < sp_capacity)
            sp_list[(size_t)(CLUSTER * ic + t) * (size_t)sp_capacity + nsp] =
                cl_atom_j[CLUSTER * jc + kk] | (kd << KIND_SHIFT);
        nsp += kd != 0;
    }
    return nsp;
}

/* One work-group of 64 per i-cluster; work-item t takes atom pair (i, k) =
 * (t / 8, t % 8) of every j-cluster in reach. The j-clusters of a column
 * come in z order, so the scan of a column stops past the box. Entries of
 * i-cluster ic: cj[ic * capacity + p] and cmask[...] for p < nj[ic]; an
 * i-cluster with more than capacity raises overflow[0] to its count (the
 * host regrows and rebuilds). Specials of i slot 8 ic + i: sp_list[slot *
 * sp_capacity + s] for s < sp_count[slot]; more raise overflow[1] (one
 * image of each partner passes the half-box test, but without a box every
 * image in reach is special, as in src/pair/list/neighbor.cl). */
/* Why 29 arguments: i and j cluster geometry (atoms, bounds), the column grid as scalars, the
 * specials, and the list outputs with their overflow. */
__kernel void cluster_pairs(__global const pos4 *pos, __global const int *ilist,
                            __global const int *order, __global const long *tag,
                            __global const int *nspecial, __global const long *special,
                            const int maxspecial, __global const int *cl_atom_i,
                            __global const float4 *cl_lo_i, __global const float4 *cl_hi_i,
                            __global const int *cl_atom_j, __global const float4 *cl_lo_j,
                            __global const float4 *cl_hi_j, __global const int *col_cluster,
                            const int ncx, const int ncy, const float4 grid_lo,
                            const float4 inv_width, const float cut, const float unit,
                            const float4 half_box, const int capacity, const int sp_capacity,
                            __global int *cj, __global int2 *cmask, __global int *nj,
                            __global int *sp_list, __global int *sp_count,
                            volatile __global int *overflow)
{
    const int ic = get_group_id(0), t = get_local_id(0);
    const int i = t / CLUSTER, k = t % CLUSTER;
    __local uint mask[2];
    __local int kinds[CLUSTER * CLUSTER], any_special;
    const int ai = cl_atom_i[CLUSTER * ic + i];
    const int bi = ai >= 0 ? ilist[ai] : -1;
    const pos4 pi = pos[bi >= 0 ? bi : 0];
    const int o = bi >= 0 ? order[bi] : 0;
    /* bonded partners have nearby tags: most pairs fail this range test */
    const long2 range = special_tags(nspecial, special, maxspecial, o, bi >= 0);
    const float4 lo = cl_lo_i[ic], hi = cl_hi_i[ic];
    const float reach = cut + SPARE, reach2 = reach * reach, cutsq = cut * cut;
    const int x0 = column_coord(lo.x - reach, grid_lo.x, inv_width.x, ncx);
    const int x1 = column_coord(hi.x + reach, grid_lo.x, inv_width.x, ncx);
    const int y0 = column_coord(lo.y - reach, grid_lo.y, inv_width.y, ncy);
    const int y1 = column_coord(hi.y + reach, grid_lo.y, inv_width.y, ncy);
    int n = 0, nsp = 0;
    for (int cy = y0; cy <= y1 && lo.x <= hi.x; cy++)
        for (int cx = x0; cx <= x1; cx++) {
            const int col = cy * ncx + cx, end = col_cluster[col + 1];
            /* a column's clusters are consecutive groups of its z-sorted
             * atoms: their z ranges follow each other, so hi.z grows along
             * the column; start at the first that reaches lo.z - reach */
            const int first = first_reaching(cl_hi_j, col_cluster[col], end, lo.z - reach);
            for (int jc = first; jc < end; jc++) {
                const float4 jlo = cl_lo_j[jc], jhi = cl_hi_j[jc];
                if (jlo.z > hi.z + reach)
                    break;
                const float4 gap = fmax(fmax(jlo - hi, lo - jhi), (float4)(0.0f));
                if (gap.x * gap.x + gap.y * gap.y + gap.z * gap.z >= reach2)
                    continue;
                if (t < 2)
                    mask[t] = 0;
                if (t == 0)
                    any_special = 0;
                barrier(CLK_LOCAL_MEM_FENCE);
                const int bj = cl_atom_j[CLUSTER * jc + k];
                int kind = 0;
                if (bi >= 0 && bj >= 0 && bi != bj) {
                    const long tj = tag[bj];
                    if (tj >= range.x && tj <= range.y)
                        kind = cluster_special(pos, nspecial, special, maxspecial, o, pi, bj, tj,
                                               unit, half_box, cutsq);
                    if (kind == 0)
                        atomic_or(&mask[i / 4], 1u << (CLUSTER * (i % 4) + k));
                }
                kinds[t] = kind > 0 ? kind : 0;
                if (kind > 0)
                    any_special = 1;
                barrier(CLK_LOCAL_MEM_FENCE);
                if (any_special && t < CLUSTER) /* the specials of i = t, in k order */
                    nsp = list_specials(kinds, cl_atom_j, ic, jc, t, sp_capacity, nsp, sp_list);
                if ((mask[0] | mask[1]) != 0) {
                    if (t == 0 && n < capacity) {
                        cj[(size_t)ic * (size_t)capacity + n] = jc;
                        cmask[(size_t)ic * (size_t)capacity + n] =
                            (int2)(as_int(mask[0]), as_int(mask[1]));
                    }
                    n++;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }
    if (t == 0) {
        nj[ic] = min(n, capacity);
        if (n > capacity)
            atomic_max(overflow, n);
    }
    if (t < CLUSTER) {
        sp_count[CLUSTER * ic + t] = min(nsp, sp_capacity);
        if (nsp > sp_capacity) /* images without a box: the host regrows */
            atomic_max(overflow + 1, nsp);
    }
}

/* Dynamic pruning of the cluster-pair lists: the inner list of i-cluster ic
 * (cj_in, cmask_in, nj_in; same layout) holds, in order, the entries whose
 * mask keeps a pair closer than sqrt(cutsq) at positions pos (the force
 * cutoff plus the inner skin; the engine re-prunes once an atom has moved
 * half the inner skin), with only those pairs in the mask. One work-group
 * per i-cluster; its work-items take 64-entry blocks, one entry each, and
 * write the kept ones at offsets from a count in local memory. */
__kernel void cluster_prune(__global const pos4 *pos, __global const int *ilist,
                            __global const int *cl_atom_i, __global const int *cl_atom_j,
                            __global const int *cj, __global const int2 *cmask,
                            __global const int *nj, const int capacity, const float cutsq,
                            const float unit, __global int *cj_in, __global int2 *cmask_in,
                            __global int *nj_in, __local int *kept)
{
    const int ic = get_group_id(0), t = get_local_id(0), wg = get_local_size(0);
    __local pos4 pi[CLUSTER];
    if (t < CLUSTER) {
        const int ai = cl_atom_i[CLUSTER * ic + t];
        pi[t] = pos[ai >= 0 ? ilist[ai] : 0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int n = nj[ic];
    const size_t row = (size_t)ic * (size_t)capacity;
    int out = 0;
    for (int first = 0; first < n; first += wg) {
        const int p = first + t;
        uint m[2] = {0, 0};
        int jc = 0;
        if (p < n) {
            const int2 full = cmask[row + p];
            jc = cj[row + p];
            for (int k = 0; k < CLUSTER; k++) {
                const int bj = cl_atom_j[CLUSTER * jc + k];
                if (bj < 0)
                    continue;
                const pos4 pj = pos[bj];
                for (int i = 0; i < CLUSTER; i++) {
                    const uint bit = 1u << (CLUSTER * (i % 4) + k);
                    const float dx = DELTA(pi[i].x, pj.x), dy = DELTA(pi[i].y, pj.y),
                                dz = DELTA(pi[i].z, pj.z);
                    if ((as_uint(i < 4 ? full.x : full.y) & bit) &&
                        dx * dx + dy * dy + dz * dz < cutsq)
                        m[i / 4] |= bit;
                }
            }
        }
        const int alive = (m[0] | m[1]) != 0;
        kept[t] = alive;
        barrier(CLK_LOCAL_MEM_FENCE);
        int before = 0, total = 0;
        for (int u = 0; u < wg; u++) {
            before += u < t ? kept[u] : 0;
            total += kept[u];
        }
        if (alive) {
            cj_in[row + out + before] = jc;
            cmask_in[row + out + before] = (int2)(as_int(m[0]), as_int(m[1]));
        }
        out += total;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0)
        nj_in[ic] = out;
}
