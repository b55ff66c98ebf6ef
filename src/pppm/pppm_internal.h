/* Shared between the pppm driver and its C reference. */
#ifndef SCL_PPPM_INTERNAL_H
#define SCL_PPPM_INTERNAL_H

#include "streamcl/pppm.h"

#include <stdint.h>

/* LAMMPS's OFFSET: keeps (int) truncation a floor for atoms slightly below boxlo */
#define PPPM_OFFSET 16384

/* Grid point g and offsets d of atom xi (LAMMPS particle_map + the dx of
 * make_rho); 1 when the stencil leaves the brick or x is not finite. */
int pppm_map_atom(const scl_pppm_params *p, const double *xi, int g[3], double d[3]);
/* w[k] = assignment weight of stencil point nlower + k at offset d. */
void pppm_weights(int order, const double *coeff, double d, double *w);
size_t pppm_brick_points(const scl_pppm_params *p);

struct scl_pppm {
    scl_context *ctx;
    scl_pppm_params p;
    int pos_fp64;               /* device positions in double (device has fp64) */
    size_t real_size, pos_size; /* bytes of a grid/force value and of a position */
    size_t npoints;
    scl_kernel *assign, *interp;
    scl_stream *coeff, *density, *bad, *vd[3];
    scl_stream *x, *q, *f;      /* per-atom, capacity cap */
    int cap, n;                 /* capacity and atoms of the last make_rho */
    void *pos_host, *q_host;    /* staging when positions are float */
    void *vd_host[3];           /* staging of the field bricks in mixed */
    void *f_host;               /* forces read back (real) */
    int64_t *density_host;
    scl_event interp_ev, f_ready; /* pending interpolation and its read-back */
    int pending;
    scl_pppm_stats stats;
    double shift, shiftone;
    double inv_scale;           /* density = fixed * inv_scale (last upload) */
    /* whole-grid mode (solve.c), after scl_pppm_solver_set */
    int nk[3];
    scl_kernel *assign_p, *interp_p, *to_complex, *poisson;
    scl_kernel *green_k;        /* scl_pppm_solver_set_box's (made on first use) */
    scl_kernel *add_into[2];    /* scl_pppm_add_forces_into: float, double rows */
    int defer_forces, forces_deferred; /* solve steps leave their forces on the device */
    scl_stream *density_p, *work, *vdc[3], *green, *fk, *partials;
    struct pppm_fft *fft;
    int wg, ngroups, tally_pending, solve_pending;
    void *partials_host;
    int bad_host;
    scl_event partials_ready, bad_ready;
    scl_event step_ev[4];       /* assign, to_complex, poisson, interp (profiling) */
    scl_event upload_ev[2];     /* x and q writes not waited for (inputs_stable) */
};

/* driver.c, shared with solve.c */
scl_status pppm_bind_grid(scl_pppm *p, scl_kernel *k, const int *lo, const int *hi);
scl_status pppm_reserve_atoms(scl_pppm *p, int n);
/* queue the upload of the atoms; sets p->n and p->inv_scale, returns the
 * fixed-point scale to pass to the assignment kernel */
scl_status pppm_upload_atoms(scl_pppm *p, int n, const double *x, const double *q, double *scale);
/* the same from a device stream (xq_dev: x at 0, q at q_first; NULL: upload) */
scl_status pppm_put_atoms(scl_pppm *p, int n, const double *x, const double *q,
                          const scl_stream *xq_dev, size_t q_first, double *scale);
void pppm_add_seconds(scl_pppm *p, scl_event ev, double *acc);
/* the upload time of the last pppm_upload_atoms once its writes are done */
void pppm_account_uploads(scl_pppm *p);
scl_status pppm_add_forces(const scl_pppm *p, double *f);
/* solve.c: the whole-grid solve's state */
void pppm_solver_free(scl_pppm *p);
/* driver.c: the rest, and the object (the queue finished first) */
void pppm_driver_free(scl_pppm *p);

/* fft_vkfft.c: in-place complex 3D FFTs of nx*ny*nz on a stream (VkFFT) */
typedef struct pppm_fft pppm_fft;
scl_status pppm_fft_create(scl_context *ctx, const int n[3], int fp64, scl_stream *buffer,
                           pppm_fft **out);
/* forward: exp(-i k.x); inverse: exp(+i k.x), not normalised (LAMMPS's FFT3d) */
scl_status pppm_fft_run(pppm_fft *f, scl_stream *s, int inverse);
void pppm_fft_free(pppm_fft *f);

#endif
