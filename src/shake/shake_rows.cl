/* SHAKE inside another module's force rows (scl_shake_solve_rows, one rank):
 * the unconstrained update from the rows (4 values a row, float or double:
 * ROWS_DOUBLE) and the constraint forces added back into them. Each atom is
 * in at most one cluster: no atomics, the same sums every run. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#if ROWS_DOUBLE
typedef double row_t;
#else
typedef float row_t;
#endif

/* The owned atoms (index below nlocal: ghost images are skipped) of this
 * work-item's cluster m (none past ncluster), in cluster order, with their
 * slots 4 m + place (a mass a slot, three constraint forces a slot): how
 * many. */
inline int owned_atoms(const int ncluster, const int nlocal, __global const int *kind,
                       __global const int *atoms, int i[4], int slot[4])
{
    const int m = (int)get_global_id(0);
    if (m >= ncluster)
        return 0;
    const int na = kind[m] == 1 ? 3 : kind[m];
    int n = 0;
    for (int s = 4 * m; s < 4 * m + na; s++)
        if (atoms[s] < nlocal) {
            i[n] = atoms[s];
            slot[n++] = s;
        }
    return n;
}

/* xshake = x + dtv v + dtfsq/m f for the clusters' atoms (all owned), as
 * LAMMPS's unconstrained_update with f its total force at post_force: the
 * atom's row, plus (has_extra) the extra rows [start[i], start[i+1]) of
 * extra (forces on its ghost images, which LAMMPS's reverse communication
 * adds to it). */
__kernel void shake_unconstrained_rows(const int ncluster, const int nlocal,
                                       __global const int *kind, __global const int *atoms,
                                       __global const double *mass, __global const double *x,
                                       __global const double *v, __global const row_t *rows,
                                       __global const int *start, __global const int *extra,
                                       const int has_extra, const double dtv, const double dtfsq,
                                       __global double *xs)
{
    int own[4], slot[4];
    const int n = owned_atoms(ncluster, nlocal, kind, atoms, own, slot);
    for (int o = 0; o < n; o++) {
        const int i = own[o];
        double f[3] = {(double)rows[4 * i], (double)rows[4 * i + 1], (double)rows[4 * i + 2]};
        if (has_extra)
            for (int e = start[i]; e < start[i + 1]; e++) {
                const int r = extra[e];
                for (int k = 0; k < 3; k++)
                    f[k] += (double)rows[4 * r + k];
            }
        const double dtfmsq = dtfsq / mass[slot[o]];
        for (int k = 0; k < 3; k++)
            xs[3 * i + k] = x[3 * i + k] + dtv * v[3 * i + k] + dtfmsq * f[k];
    }
}

/* The constraint forces of each cluster into its owned atoms' rows. */
__kernel void shake_scatter_rows(const int ncluster, const int nlocal, __global const int *kind,
                                 __global const int *atoms, __global const double *fc,
                                 __global row_t *rows)
{
    int own[4], slot[4];
    const int n = owned_atoms(ncluster, nlocal, kind, atoms, own, slot);
    for (int o = 0; o < n; o++)
        for (int k = 0; k < 3; k++)
            rows[4 * own[o] + k] += (row_t)fc[3 * slot[o] + k];
}
