/* Binning of the charmm engine's atoms on the device (fp64 devices): the
 * host uploads the caller's arrays as they are (x, type, tag) and these
 * kernels produce what src/pair/list/neighbor.cl reads, bit for bit what the host
 * binning of src/pair/cell_grid.c computes:
 *   bin_bounds   bounding box of x per work-group (the host takes the
 *                extremes of those) and the input checks
 *   bin_count    cell of each atom, atoms (and local atoms) per cell
 *   bin_scan     cell starts and local-atom starts (one work-group)
 *   bin_scatter  each cell's atoms in arrival order
 *   bin_rank     within each cell by caller's index: the host's stable
 *                counting sort, so local atoms come first in every cell
 *   bin_gather   binned types and tags, local slots (ilist) and their cells
 * Cells: floor((x - lo) / width) in double, clamped, as cell_grid_coords. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

/* check[0]: smallest index with a non-finite coordinate, [1]: smallest with a
 * type outside [type_base, type_base + ntypes), [2]: smallest local atom
 * whose special counts decrease or pass maxspecial; INT_MAX (the fill
 * before) when none. Types are the caller's, type_base-based (LAMMPS: 1).
 * Work-group g writes the lo and hi of its atoms (a grid-stride loop) to
 * box[6 g ...]: no single work-group walks all atoms. */
__kernel void bin_bounds(__global const double *x, const int n, __global const int *type,
                         const int type_base, const int ntypes, __global const int *nspecial,
                         const int has_special,
                         const int nlocal, const int maxspecial, __global double *box, __global int *check,
                         __local double *scratch)
{
    const int lid = get_local_id(0), wg = get_local_size(0);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        int finite = 1;
        for (int d = 0; d < 3; d++) {
            const double v = x[3 * i + d];
            finite &= isfinite(v);
            lo[d] = v < lo[d] ? v : lo[d];
            hi[d] = v > hi[d] ? v : hi[d];
        }
        if (!finite)
            atomic_min(&check[0], i);
        if (type[i] < type_base || type[i] - type_base >= ntypes)
            atomic_min(&check[1], i);
        if (has_special && i < nlocal) {
            const int a = nspecial[3 * i], b = nspecial[3 * i + 1], c = nspecial[3 * i + 2];
            if (a < 0 || b < a || c < b || c > maxspecial)
                atomic_min(&check[2], i);
        }
    }
    for (int d = 0; d < 3; d++) {
        scratch[d * wg + lid] = lo[d];
        scratch[(3 + d) * wg + lid] = hi[d];
    }
    for (int step = wg / 2; step > 0; step >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < step)
            for (int d = 0; d < 3; d++) {
                const double l = scratch[d * wg + lid + step], h = scratch[(3 + d) * wg + lid + step];
                if (l < scratch[d * wg + lid])
                    scratch[d * wg + lid] = l;
                if (h > scratch[(3 + d) * wg + lid])
                    scratch[(3 + d) * wg + lid] = h;
            }
    }
    if (lid == 0)
        for (int k = 0; k < 6; k++)
            box[6 * get_group_id(0) + k] = scratch[k * wg];
}

inline int cell_coord(double v, double lo, double width, int n)
{
    const double f = floor((v - lo) / width);
    return f < 0.0 ? 0 : f >= (double)n ? n - 1 : (int)f;
}

/* count and local_count are zeroed before. */
__kernel void bin_count(__global const double *x, const int n, const int nlocal, const double lo_x,
                        const double lo_y, const double lo_z, const double width_x,
                        const double width_y, const double width_z, const int nx, const int ny,
                        const int nz, __global int *cell_of, __global int *rank,
                        __global int *count, __global int *local_count)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const int cx = cell_coord(x[3 * i], lo_x, width_x, nx);
    const int cy = cell_coord(x[3 * i + 1], lo_y, width_y, ny);
    const int cz = cell_coord(x[3 * i + 2], lo_z, width_z, nz);
    const int c = (cz * ny + cy) * nx + cx;
    cell_of[i] = c;
    rank[i] = atomic_inc(&count[c]);
    if (i < nlocal)
        atomic_inc(&local_count[c]);
}

/* Exclusive prefix sums of both counts (ncells + 1 entries each), one
 * work-group walking the cells in blocks of its size. cluster_size > 0: the
 * second count is not read but ceil(count / cluster_size), the clusters of
 * each column of the cluster-pair lists (src/pair/kinds/charmm_cluster.cl). */
__kernel void bin_scan(__global const int *count, __global const int *local_count,
                       const int ncells, const int cluster_size, __global int *cell_start,
                       __global int *local_start, __local int *sa, __local int *sb)
{
    const int lid = get_local_id(0), wg = get_local_size(0);
    int carry_a = 0, carry_b = 0;
    for (int base = 0; base < ncells; base += wg) {
        const int k = base + lid;
        const int va = k < ncells ? count[k] : 0;
        const int vb = k >= ncells      ? 0
                       : cluster_size > 0 ? (va + cluster_size - 1) / cluster_size
                                          : local_count[k];
        sa[lid] = va;
        sb[lid] = vb;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int off = 1; off < wg; off <<= 1) { /* inclusive scan */
            const int ta = lid >= off ? sa[lid - off] : 0, tb = lid >= off ? sb[lid - off] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            sa[lid] += ta;
            sb[lid] += tb;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (k < ncells) {
            cell_start[k] = carry_a + sa[lid] - va;
            local_start[k] = carry_b + sb[lid] - vb;
        }
        carry_a += sa[wg - 1];
        carry_b += sb[wg - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        cell_start[ncells] = carry_a;
        local_start[ncells] = carry_b;
    }
}

__kernel void bin_scatter(const int n, __global const int *cell_of, __global const int *rank,
                          __global const int *cell_start, __global int *order)
{
    const int i = get_global_id(0);
    if (i < n)
        order[cell_start[cell_of[i]] + rank[i]] = i;
}

/* One work-item per atom i: its place in its cell is the number of the
 * cell's atoms (in arrival) with a smaller caller's index. (An insertion
 * sort per cell took as long as the fullest cell: ~0.1 ms on the H200.) */
__kernel void bin_rank(const int n, __global const int *cell_of, __global const int *cell_start,
                       __global const int *arrival, __global int *order)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const int s0 = cell_start[cell_of[i]], s1 = cell_start[cell_of[i] + 1];
    int r = 0;
    for (int s = s0; s < s1; s++)
        r += arrival[s] < i;
    order[s0 + r] = i;
}

/* Binned 0-based types and tags (has_tag 0: the index is the tag), and for local
 * atoms their slot ii in binned order (ilist, icell). Work-item n writes the
 * sentinel's type and tag. */
__kernel void bin_gather(const int n, const int nlocal, __global const int *order,
                         __global const int *cell_of, __global const int *cell_start,
                         __global const int *local_start, __global const int *type,
                         const int type_base, __global const long *tag, const int has_tag,
                         __global int *type_binned,
                         __global long *tag_binned, __global int *ilist, __global int *icell)
{
    const int b = get_global_id(0);
    if (b > n)
        return;
    if (b == n) {
        type_binned[n] = 0;
        tag_binned[n] = -1;
        return;
    }
    const int o = order[b];
    type_binned[b] = type[o] - type_base; /* checked by bin_bounds */
    tag_binned[b] = has_tag ? tag[o] : (long)o;
    if (o < nlocal) { /* local atoms come first in their cell (bin_rank) */
        const int c = cell_of[o];
        const int ii = local_start[c] + (b - cell_start[c]);
        ilist[ii] = b;
        icell[ii] = c;
    }
}
