/* Velocity Verlet with x and v resident on the device (include/streamcl/
 * integrate.h): one work-item per atom. LAMMPS's FixNVE arithmetic in double,
 * contraction off, so a CPU device gives the host loop's bits.
 * Options: FREAL (the force rows' type: float or double), WG (work-group
 * size of the kinetic-energy partials, a power of two). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

/* v += dtfm f, then (first half) x += dtv v */
__kernel void integrate_half(const int n, const int first_half, const double dtv,
                             __global double *x, __global double *v,
                             __global const FREAL *f, __global const double *dtfm)
{
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    const double a = dtfm[i];
    for (int d = 0; d < 3; d++) {
        const double vd = v[3 * i + d] + a * (double)f[4 * i + d];
        v[3 * i + d] = vd;
        if (first_half) x[3 * i + d] += dtv * vd;
    }
}

__kernel void integrate_scale(const int n, const double sx, const double sy, const double sz,
                              __global double *v)
{
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    v[3 * i] *= sx;
    v[3 * i + 1] *= sy;
    v[3 * i + 2] *= sz;
}

/* per-work-group sums of m v_a v_b (6 a group) and the largest squared
 * displacement from xhold (1 a group, after the 6) */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void integrate_sums(const int n, const int what, __global const double *x,
                    __global const double *xhold, __global const double *v,
                    __global const double *mass, __global double *part)
{
    const int i = (int)get_global_id(0), lid = (int)get_local_id(0);
    __local double s[7 * WG];
    double t[7] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (i < n && what == 0) {
        const double m = mass[i], vx = v[3 * i], vy = v[3 * i + 1], vz = v[3 * i + 2];
        t[0] = m * vx * vx; t[1] = m * vy * vy; t[2] = m * vz * vz;
        t[3] = m * vx * vy; t[4] = m * vx * vz; t[5] = m * vy * vz;
    }
    if (i < n && what == 1) {
        const double dx = x[3 * i] - xhold[3 * i], dy = x[3 * i + 1] - xhold[3 * i + 1],
                     dz = x[3 * i + 2] - xhold[3 * i + 2];
        t[6] = dx * dx + dy * dy + dz * dz;
        if (isnan(t[6])) t[6] = INFINITY;   /* a lost atom re-neighbors: LAMMPS reports it there */
    }
    for (int k = 0; k < 7; k++) s[7 * lid + k] = t[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = WG / 2; h > 0; h >>= 1) {
        if (lid < h) {
            for (int k = 0; k < 6; k++) s[7 * lid + k] += s[7 * (lid + h) + k];
            s[7 * lid + 6] = fmax(s[7 * lid + 6], s[7 * (lid + h) + 6]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        for (int k = 0; k < 7; k++) part[7 * get_group_id(0) + k] = s[k];
}
