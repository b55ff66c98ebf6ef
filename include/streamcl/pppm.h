/*
 * streamcl/pppm.h — the particle-mesh half of PPPM (Hockney-Eastwood, as in
 * LAMMPS's kspace_style pppm) on an OpenCL device: charge assignment of
 * point charges onto a brick of a 3D grid, and interpolation of the ik
 * electric field from three bricks back to forces. The FFT part (Poisson
 * solve, energy, virial) stays with the caller (LAMMPS's own machinery).
 *
 * The brick is a box of grid points [lo[d], hi[d]] in global grid indices
 * (a rank's "out" brick, ghosts included), stored x fastest:
 *   index = ((z - lo[2]) * ny_b + (y - lo[1])) * nx_b + (x - lo[0]).
 * Charge assignment is deterministic: each grid point sums 64-bit fixed-point
 * contributions with integer atomics, so the result does not depend on the
 * order in which work-items run (identical bits run to run).
 *
 * Precision: mixed (weights and field interpolation in float; the grid
 * position of each atom in double where the device has fp64; charge sums in
 * 64-bit fixed point either way) or double (everything in double; needs fp64).
 *
 *   scl_pppm *p;
 *   scl_pppm_create(ctx, &params, &p);
 *   scl_pppm_make_rho(p, n, x, q, density);           // density brick (blocking)
 *   ... caller: reverse comm, FFTs, Poisson, forward comm -> vdx, vdy, vdz ...
 *   scl_pppm_fieldforce_start(p, vdx, vdy, vdz);      // queued, returns at once
 *   ... other host work ...
 *   scl_pppm_fieldforce_finish(p, f);                 // f[3i+d] += force
 *
 * Between make_rho and fieldforce_finish the caller keeps x and q unchanged
 * (fieldforce reuses the uploaded atoms). Functions return SCL_OK or an
 * error with a message in scl_last_error(ctx).
 */
#ifndef STREAMCL_PPPM_H
#define STREAMCL_PPPM_H

#include "../streamcl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCL_PPPM_MIN_ORDER 2
#define SCL_PPPM_MAX_ORDER 7

typedef struct {
    int order;              /* assignment order, 2..7 (points per dimension) */
    int lo[3], hi[3];       /* brick extent in global grid indices, inclusive */
    double boxlo[3];        /* origin of the grid (LAMMPS domain->boxlo) */
    double delinv[3];       /* grid points per length unit: nx_pppm / xprd, ... */
    double delvolinv;       /* 1 / volume of a grid cell */
    double qscale;          /* force = qscale * q * E (LAMMPS: qqrd2e * scale) */
    int fp64;               /* 0: mixed precision, 1: double precision */
    int inputs_stable;      /* 1: the x and q given to make_rho / solve_start stay
                               unchanged until the step's finish call, so they
                               go up without the call waiting for the copy;
                               0: the call returns once they are copied */
} scl_pppm_params;

typedef struct scl_pppm scl_pppm;

/* LAMMPS's shift constants of an order: the grid point an atom maps to is
 * floor((x - boxlo) * delinv + shift) - OFFSET, and the stencil is
 * [nlower, nupper] around it. */
void scl_pppm_stencil(int order, double *shift, double *shiftone, int *nlower, int *nupper);

/* Coefficients of the charge assignment function of an order (LAMMPS's
 * rho_coeff): coeff[l * order + (k - nlower)], l = 0..order-1 the power,
 * k = nlower..nupper the stencil point. */
void scl_pppm_rho_coeff(int order, double *coeff);

scl_status scl_pppm_create(scl_context *ctx, const scl_pppm_params *params, scl_pppm **out);
void scl_pppm_free(scl_pppm *p);
/* Change what a box change changes (boxlo, delinv, delvolinv, qscale) and
 * keep the rest; order, brick and fp64 of params must be those of p
 * (else SCL_ERR_ARGUMENT: create a new one). */
scl_status scl_pppm_set_geometry(scl_pppm *p, const scl_pppm_params *params);

/* Charge density of n atoms (x: n*3 doubles, q: n doubles) on the brick:
 * density[brick index] = delvolinv * sum_i q_i W(grid point - x_i). Blocks
 * until density (scl_pppm_brick_count(p) doubles) is written. An atom whose
 * stencil leaves the brick is SCL_ERR_INPUT ("out of range atoms"), as are
 * non-finite coordinates. */
scl_status scl_pppm_make_rho(scl_pppm *p, int n, const double *x, const double *q,
                             double *density);

/* Queue the force interpolation of the atoms of the last make_rho from the
 * field bricks vdx, vdy, vdz (gradients of the potential, brick layout):
 * force_i = -qscale * q_i * sum W * vd. The bricks are copied before the
 * call returns. */
scl_status scl_pppm_fieldforce_start(scl_pppm *p, const double *vdx, const double *vdy,
                                     const double *vdz);
/* Wait for the queued interpolation and add the forces: f[3i+d] += force.
 * No-op (SCL_OK) when nothing is pending. */
scl_status scl_pppm_fieldforce_finish(scl_pppm *p, double *f);
int scl_pppm_pending(const scl_pppm *p);

size_t scl_pppm_brick_count(const scl_pppm *p);

/* ---- whole step on the device (one rank: the grid is not distributed) ----
 * The brick becomes the whole periodic grid nx*ny*nz (params lo/hi are not
 * used; stencils wrap), and the device does LAMMPS's brick2fft and
 * poisson_ik too, with VkFFT's OpenCL transforms: charge assignment, forward
 * FFT, Green's function, energy/virial sums, three inverse FFTs, forces.
 * Set the k-space (again after each PPPM setup(), i.e. after box changes),
 * then start/finish each step. */
typedef struct {
    int nx, ny, nz;                /* the global grid (nx_pppm, ...) */
    const double *greensfn;        /* nx*ny*nz, x fastest (LAMMPS's greensfn) */
    const double *fkx, *fky, *fkz; /* nx, ny, nz wave numbers (LAMMPS's fkx, ...) */
    double g_ewald;                /* for the virial coefficients */
} scl_pppm_kspace;

/* SCL_ERR_UNSUPPORTED when the library was built without VkFFT. */
scl_status scl_pppm_solver_set(scl_pppm *p, const scl_pppm_kspace *k);
/* The same factors computed on the device, where they are used, instead of
 * uploaded (fix npt changes the box every step): LAMMPS's
 * PPPM::compute_gf_ik over the whole grid and the wave numbers of
 * PPPM::setup, for an orthogonal box and ik differentiation, the host's
 * operations in its order in double (exp and sin may differ from the
 * host's by ulps: ~1e-15 relative, tests/pppm). nbx..nbz and gf_b are
 * LAMMPS's (its aliasing images and gf_denom coefficients, params.order
 * of them). Nothing is uploaded. SCL_ERR_UNSUPPORTED without fp64 or
 * VkFFT (then scl_pppm_solver_set). */
typedef struct {
    int nx, ny, nz;
    double xprd, yprd, zprd_slab;  /* zprd_slab: zprd * slab_volfactor */
    double g_ewald;
    int nbx, nby, nbz;
    const double *gf_b;
} scl_pppm_kspace_box;
scl_status scl_pppm_solver_set_box(scl_pppm *p, const scl_pppm_kspace_box *b);
/* Queue a whole step for n atoms. tally: also sum energy and virial. x and q
 * are copied before the call returns, or read until scl_pppm_solve_finish
 * with params.inputs_stable. */
scl_status scl_pppm_solve_start(scl_pppm *p, int n, const double *x, const double *q, int tally);
/* solve_start with x and q already on the device: xq_dev, a stream of
 * doubles on p's context holding x (3n doubles from element 0) and q (n
 * doubles from element q_first >= 3n), e.g. scl_charmm_positions of the
 * pair engine's pending step (q_first = 3 * its natoms), copied on the
 * device instead of uploaded. q (host, n) still gives the fixed-point scale
 * and must equal the device's q. The same results bit for bit.
 * SCL_ERR_ARGUMENT for a stream of another type or too short, or a device
 * without fp64 (its positions are float: use solve_start). */
scl_status scl_pppm_solve_start_device(scl_pppm *p, int n, const scl_stream *xq_dev,
                                       size_t q_first, const double *q, int tally);
/* One force download per step with another module of the context (LAMMPS:
 * the pair style's, see scl_charmm_set_force_hook): with defer on, solve
 * steps leave their forces on the device; scl_pppm_add_forces_into queues
 * rows[4i + d] += f[3i + d] for the step's atoms (rows of 4 values of
 * type SCL_FLOAT or SCL_DOUBLE, at least n of them; the same sums as the
 * host's f += in double rows), and solve_finish then adds no forces (f may
 * be NULL). SCL_ERR_ARGUMENT when no deferred step is pending or the rows
 * do not fit. */
scl_status scl_pppm_defer_forces(scl_pppm *p, int on);
scl_status scl_pppm_add_forces_into(scl_pppm *p, scl_stream *rows, scl_type type, int nrows);
/* Build now the kernel add_forces_into uses for rows of `type` (SCL_FLOAT or
 * SCL_DOUBLE), which its first call would otherwise build: at set-up, so
 * that no time step compiles a program. Once per type. */
scl_status scl_pppm_prepare_rows(scl_pppm *p, scl_type type);
/* Wait, add forces (f[3i+d] += ...). With tally, *energy = sum over k of
 * s2 G |rho_k|^2 and virial[6] the same weighted by LAMMPS's vg, i.e. the
 * values of LAMMPS's `energy` and `virial` after poisson_ik, before its
 * scaling in compute(). SCL_ERR_INPUT when atoms were out of range. */
scl_status scl_pppm_solve_finish(scl_pppm *p, double *f, double *energy, double virial[6]);

/* Device seconds of the phases so far (when the context profiles; else 0). */
typedef struct {
    double t_upload, t_assign, t_download, t_interp;
    double t_solve;     /* whole-grid mode: density conversion + Poisson kernels */
    long steps, device_steps;   /* make_rho calls / whole-step solves */
} scl_pppm_stats;
void scl_pppm_stats_get(const scl_pppm *p, scl_pppm_stats *s);

/* ---- plain C reference (double), the test oracle ---- */

/* density as scl_pppm_make_rho; returns the number of out-of-range atoms
 * (then density is incomplete). */
int scl_pppm_reference_make_rho(const scl_pppm_params *params, int n, const double *x,
                                const double *q, double *density);
/* f[3i+d] += the force of scl_pppm_fieldforce_*; returns out-of-range count. */
int scl_pppm_reference_fieldforce(const scl_pppm_params *params, int n, const double *x,
                                  const double *q, const double *vdx, const double *vdy,
                                  const double *vdz, double *f);

#ifdef __cplusplus
}
#endif
#endif
