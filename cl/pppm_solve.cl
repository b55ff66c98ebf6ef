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

#if SCL_FP64
/* LAMMPS's PPPM::compute_gf_ik for the whole grid of one rank (orthogonal
 * box, ik differentiation) and the wave numbers of PPPM::setup, computed
 * where they are used instead of uploaded after every box change (fix npt).
 * The host's operations in the host's order, in double, without
 * contraction: only exp and sin may differ from the host's libm (by ulps).
 * One work-item per grid point (x fastest); the first nx + ny + nz also
 * write fk (fkx, fky, fkz). gf_b: LAMMPS's gf_denom coefficients (order of
 * them, the rest 0). */
#pragma OPENCL FP_CONTRACT OFF

static double sinc_pow(const double x, int n)
{
    if (x == 0.0) return 1.0;
    double ww = sin(x) / x, yy = 1.0;
    for (; n != 0; n >>= 1, ww *= ww)
        if (n & 1) yy *= ww;
    return yy;
}

/* the aliasing images' sum of one axis' factors: exp(-(q/2g)^2) and the
 * assignment function's sinc power at q = unitk * (per + n * images) */
static double2 axis_factor(const double unitk, const int per, const int n, const int grid,
                           const double prd, const double g_ewald, const int twoorder)
{
    const double q = unitk * (per + grid * n);
    const double s = exp(-0.25 * ((q / g_ewald) * (q / g_ewald)));
    const double arg = 0.5 * q * prd / grid;
    return (double2)(s, sinc_pow(arg, twoorder));
}

static double period(const int i, const int n) { return (double)(i - n * (2 * i / n)); }

/* Why 20 arguments: the box, the aliasing image counts and LAMMPS's 7 gf_denom coefficients as
 * scalars, so the kernel needs no uploaded table. */
__kernel void pppm_green_ik(const int nx, const int ny, const int nz, const double xprd,
                            const double yprd, const double zprd_slab, const double g_ewald,
                            const int nbx, const int nby, const int nbz, const int order,
                            const double gf0, const double gf1, const double gf2, const double gf3,
                            const double gf4, const double gf5, const double gf6,
                            __global real *greensfn, __global real *fk)
{
    const int i = get_global_id(0);
    const double pi2 = 6.28318530717958647692; /* LAMMPS's MY_2PI */
    const double unitkx = pi2 / xprd, unitky = pi2 / yprd, unitkz = pi2 / zprd_slab;
    if (i < nx + ny + nz)
        fk[i] = (real)(i < nx ? unitkx * period(i, nx)
                              : i < nx + ny ? unitky * period(i - nx, ny)
                                            : unitkz * period(i - nx - ny, nz));
    if (i >= nx * ny * nz) return;
    const int kper = (int)period(i % nx, nx), lper = (int)period((i / nx) % ny, ny),
              mper = (int)period(i / (nx * ny), nz);
    const double sqk = (unitkx * kper) * (unitkx * kper) + (unitky * lper) * (unitky * lper) +
                       (unitkz * mper) * (unitkz * mper);
    if (sqk == 0.0) {
        greensfn[i] = (real)0;
        return;
    }
    const double snx0 = sin(0.5 * unitkx * kper * xprd / nx), sny0 = sin(0.5 * unitky * lper * yprd / ny),
                 snz0 = sin(0.5 * unitkz * mper * zprd_slab / nz);
    const double sn[3] = {snx0 * snx0, sny0 * sny0, snz0 * snz0};
    const double gf_b[7] = {gf0, gf1, gf2, gf3, gf4, gf5, gf6};
    double sd[3] = {0.0, 0.0, 0.0};
    for (int l = order - 1; l >= 0; l--)
        for (int d = 0; d < 3; d++) sd[d] = gf_b[l] + sd[d] * sn[d];
    const double s = sd[0] * sd[1] * sd[2], denominator = s * s;
    const double numerator = 12.5663706 / sqk;
    double sum1 = 0.0;
    for (int ax = -nbx; ax <= nbx; ax++) {
        const double qx = unitkx * (kper + nx * ax);
        const double2 fx = axis_factor(unitkx, kper, ax, nx, xprd, g_ewald, 2 * order);
        for (int ay = -nby; ay <= nby; ay++) {
            const double qy = unitky * (lper + ny * ay);
            const double2 fy = axis_factor(unitky, lper, ay, ny, yprd, g_ewald, 2 * order);
            for (int az = -nbz; az <= nbz; az++) {
                const double qz = unitkz * (mper + nz * az);
                const double2 fz = axis_factor(unitkz, mper, az, nz, zprd_slab, g_ewald, 2 * order);
                const double dot1 = unitkx * kper * qx + unitky * lper * qy + unitkz * mper * qz;
                const double dot2 = qx * qx + qy * qy + qz * qz;
                sum1 += (dot1 / dot2) * fx.x * fy.x * fz.x * fx.y * fy.y * fz.y;
            }
        }
    }
    greensfn[i] = (real)(numerator * sum1 / denominator);
}
#endif

/* rows[4i + d] += f[3i + d] for the n atoms (scl_pppm_add_forces_into): the
 * step's forces into another module's force rows, which one download brings
 * back; in double where the rows are double (INTO_DOUBLE needs fp64). */
#if INTO_DOUBLE
typedef double into_t;
#else
typedef float into_t;
#endif
__kernel void pppm_add_into(const int n, __global const real *f, __global into_t *rows)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    for (int d = 0; d < 3; d++) rows[4 * i + d] = (into_t)(rows[4 * i + d] + (into_t)f[3 * i + d]);
}
