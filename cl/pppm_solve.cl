/* The grid half of PPPM on one rank (LAMMPS's brick2fft + poisson_ik), around
 * VkFFT's transforms: fixed-point density -> complex grid; after the forward
 * FFT, the energy/virial terms and the three ik gradients for the inverse
 * FFTs. Grids are nx*ny*nz, x fastest, complex interleaved (re, im).
 * Options: FP64 0|1 (grid values float|double), WG (work-group size, power of two). */

#if SCL_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;   /* energy/virial partial sums */
#else
typedef float acc_t;
#endif
#if FP64
typedef double real;
#else
typedef float real;
#endif

/* work = (density, 0): density = fixed * inv_scale */
__kernel void pppm_fixed_to_complex(const int npoints, __global const long *density_fixed,
                                    const acc_t inv_scale, __global real *work)
{
    const int i = get_global_id(0);
    if (i >= npoints) return;
    work[2 * i] = (real)((acc_t)density_fixed[i] * inv_scale);
    work[2 * i + 1] = (real)0;
}

/* Per k-point: with tally, eng = s2 G |rho_k|^2 and eng * vg (the virial
 * coefficients of LAMMPS's PPPM::setup, from fk and g_ewald) summed per
 * work-group into partials[group * 7 + (0 energy, 1..6 virial)]; then
 * rho_k *= scaleinv G and vd_d = i k_d rho_k (the inputs of the inverse FFTs). */
__kernel void pppm_poisson_ik(const int nx, const int ny, const int nz, const int tally,
                              __global const real *work, __global const real *greensfn,
                              __global const real *fk, const acc_t scaleinv, const acc_t s2,
                              const acc_t gew_term, __global real *vdx, __global real *vdy,
                              __global real *vdz, __global acc_t *partials)
{
    __local acc_t red[7 * WG];
    const int i = get_global_id(0), lid = get_local_id(0);
    const int npoints = nx * ny * nz;
    acc_t e[7] = {0, 0, 0, 0, 0, 0, 0};
    if (i < npoints) {
        const int ix = i % nx, iy = (i / nx) % ny, iz = i / (nx * ny);
        const real kx = fk[ix], ky = fk[nx + iy], kz = fk[nx + ny + iz];
        const real g = greensfn[i];
        real re = work[2 * i], im = work[2 * i + 1];
        if (tally) {
            const acc_t eng = (acc_t)s2 * (acc_t)g * ((acc_t)re * re + (acc_t)im * im);
            const acc_t sqk = (acc_t)kx * kx + (acc_t)ky * ky + (acc_t)kz * kz;
            e[0] = eng;
            if (sqk != 0) {
                const acc_t vterm = -2 * (1 / sqk + gew_term);
                e[1] = eng * (1 + vterm * kx * kx);
                e[2] = eng * (1 + vterm * ky * ky);
                e[3] = eng * (1 + vterm * kz * kz);
                e[4] = eng * vterm * kx * ky;
                e[5] = eng * vterm * kx * kz;
                e[6] = eng * vterm * ky * kz;
            }
        }
        const real f = (real)scaleinv * g;
        re *= f;
        im *= f;
        vdx[2 * i] = -kx * im; vdx[2 * i + 1] = kx * re;
        vdy[2 * i] = -ky * im; vdy[2 * i + 1] = ky * re;
        vdz[2 * i] = -kz * im; vdz[2 * i + 1] = kz * re;
    }
    if (!tally) return;   /* uniform over the launch: no work-item waits below */
    for (int c = 0; c < 7; c++) red[c * WG + lid] = e[c];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            for (int c = 0; c < 7; c++) red[c * WG + lid] += red[c * WG + lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        for (int c = 0; c < 7; c++) partials[get_group_id(0) * 7 + c] = red[c * WG];
}
