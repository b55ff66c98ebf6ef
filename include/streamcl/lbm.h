/*
 * streamcl lbm — the D2Q9 BGK lattice-Boltzmann benchmark on the offload core.
 *
 * The physics is the classic benchmark's (accelerate row ny-2, propagate with
 * periodic wrap, rebound on obstacles, BGK collision, mean |u| per step):
 *
 *   scl_lbm_params   the 7-line parameter file
 *   obstacles        nx*ny bytes, cell (x,y) at x + y*nx, 1 = blocked
 *   scl_lbm          a solver on one scl_context: one fused step kernel, SoA
 *                    lattices (two swapped, or one in place with the AA pattern),
 *                    fp32 or fp16 storage (arithmetic always in float)
 *   scl_lbm_ref_*    the plain C oracle (serial, literal) and the OpenMP baseline
 *
 * Speeds are handed out in SoA order: f[k*nx*ny + x + y*nx], directions
 * 0 rest, 1 E, 2 N, 3 W, 4 S, 5 NE, 6 NW, 7 SW, 8 SE.
 * Errors: the solver records messages in its context (scl_last_error); the
 * file readers and writers fill err[] and name the file and line.
 */
#ifndef STREAMCL_LBM_H
#define STREAMCL_LBM_H

#include "streamcl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCL_LBM_Q 9
#define SCL_LBM_MAX_DIM 65536 /* per side; also nx*ny*9 must fit 32-bit indices */

typedef struct {
    int nx, ny;           /* grid size (cells) */
    int max_iters;        /* timesteps of a full run */
    int reynolds_dim;     /* characteristic length for the Reynolds number */
    float density;        /* initial density per cell */
    float accel;          /* acceleration applied on row ny-2 */
    float omega;          /* relaxation rate, in (0, 2) */
} scl_lbm_params;

/* Check ranges (nx in [1, SCL_LBM_MAX_DIM], ny in [2, SCL_LBM_MAX_DIM] so that row ny-2 exists, omega in (0,2), density > 0,
 * finite values, max_iters >= 0). SCL_ERR_INPUT with a message otherwise. */
scl_status scl_lbm_check_params(const scl_lbm_params *p, char *err, size_t errlen);

/* Read the parameter file (7 lines: nx, ny, maxIters, reynolds_dim as
 * integers; density, accel, omega as numbers) and check it. Messages are
 * "PATH:LINE: what". SCL_ERR_IO for an unreadable file, else SCL_ERR_INPUT. */
scl_status scl_lbm_read_params(const char *path, scl_lbm_params *p, char *err, size_t errlen);

/* Read the obstacle file (lines "x y 1", 0-based; blank lines skipped) into
 * mask (nx*ny bytes, zeroed first). A grid with no fluid cell is an error. */
scl_status scl_lbm_read_obstacles(const char *path, const scl_lbm_params *p,
                                  unsigned char *mask, char *err, size_t errlen);

/* ------------------------------------------------------------------ solver */

typedef enum { SCL_LBM_FP32 = 0, SCL_LBM_FP16 = 1 } scl_lbm_storage;
typedef enum {
    SCL_LBM_TWO_LATTICES = 0, /* pull from one lattice into the other, swap */
    SCL_LBM_IN_PLACE = 1      /* AA pattern: one lattice, even/odd steps */
} scl_lbm_streaming;

typedef struct {
    scl_lbm_storage storage;
    scl_lbm_streaming streaming;
    int tune;            /* 1: time work-group shapes (plan cache otherwise); 0: defaults */
    const char *force;   /* fix plan parameters, e.g. "lx=64,ly=2" (NULL: none) */
    int batch;           /* steps whose av_vels are read back together (0: 256) */
} scl_lbm_options;

typedef struct scl_lbm scl_lbm;

/* Create a solver at the initial state (rest equilibrium). obstacles has
 * nx*ny bytes (non-zero = blocked). opt may be NULL (fp32, two lattices,
 * tuned). SCL_ERR_TOO_LARGE when the lattice does not fit the device. */
scl_status scl_lbm_create(scl_context *ctx, const scl_lbm_params *p,
                          const unsigned char *obstacles, const scl_lbm_options *opt,
                          scl_lbm **out);
void scl_lbm_free(scl_lbm *lbm);

/* Advance `steps` timesteps. av_vels (optional, `steps` floats) receives the
 * mean |u| over fluid cells after each step. */
scl_status scl_lbm_step(scl_lbm *lbm, long steps, float *av_vels);

long scl_lbm_steps_done(const scl_lbm *lbm);
/* Launch shape chosen by the plan: work-group lx by ly. */
void scl_lbm_work_group(const scl_lbm *lbm, int *lx, int *ly);
/* Device bytes moved per cell update (the bandwidth model: 9 loads, 9
 * stores, 1 obstacle byte). */
double scl_lbm_bytes_per_cell(const scl_lbm *lbm);

/* The state after the last step, in natural SoA order (9*nx*ny floats). */
scl_status scl_lbm_read_speeds(scl_lbm *lbm, float *f);
/* Macroscopic fields after the last step (nx*ny each, any may be NULL). */
scl_status scl_lbm_read_fields(scl_lbm *lbm, float *ux, float *uy, float *speed,
                               float *pressure);

/* ------------------------------------------------------- row-split lattices
 * For domain decomposition by the caller (the library knows nothing of MPI):
 * a solver owning global rows [y0, y0+rows) of the lattice p describes, with
 * one halo row below and above (the rows y0-1 and y0+rows, wrapping round:
 * streaming is periodic). Before every step the caller fills the halos from
 * the neighbouring slabs' edges; the updates are local, so the owned rows
 * evolve bitwise as in one whole-lattice solver. Two-lattice streaming only
 * (SCL_ERR_UNSUPPORTED for in place). obstacles is the whole nx*ny mask. */
scl_status scl_lbm_create_rows(scl_context *ctx, const scl_lbm_params *p,
                               const unsigned char *obstacles, int y0, int rows,
                               const scl_lbm_options *opt, scl_lbm **out);
/* Called before each step: read the edges, swap them with the neighbours,
 * write the halos. A status other than SCL_OK stops the steps and is returned. */
typedef scl_status (*scl_lbm_exchange_fn)(void *user, scl_lbm *lbm);
/* Advance `steps`; sums (optional, `steps` doubles) receives, per step, the
 * sum of |u| over the owned fluid cells (the caller sums over slabs and
 * divides by the fluid cells of the whole lattice). Also works on a whole
 * lattice (exchange may then be NULL). */
scl_status scl_lbm_step_rows(scl_lbm *lbm, long steps, double *sums, scl_lbm_exchange_fn exchange,
                             void *user);
/* Owned rows and their fluid cells (any may be NULL). */
void scl_lbm_rows(const scl_lbm *lbm, int *y0, int *rows, long *fluid);
/* Bytes of one edge or halo buffer: 3 directions x nx cells in storage format. */
size_t scl_lbm_halo_bytes(const scl_lbm *lbm);
/* Host memory for the exchange, pinned where the device offers it (the device
 * copies straight from and to it, so a non-blocking transfer returns at once;
 * pageable memory is staged by the driver, which may make the host wait):
 * 4 * scl_lbm_halo_bytes, meant as to_below,
 * to_above, from_below, from_above in that order; owned by the solver (valid
 * until scl_lbm_free). NULL for a whole-lattice solver. */
void *scl_lbm_halo_staging(scl_lbm *lbm);
/* to_below: S, SW, SE of the first owned row (the slab below needs them);
 * to_above: N, NE, NW of the last owned row. Blocking. */
scl_status scl_lbm_read_edges(scl_lbm *lbm, void *to_below, void *to_above);
/* from_below: the slab below's to_above, into the lower halo row; from_above:
 * the slab above's to_below, into the upper one. Queued before the next step. */
scl_status scl_lbm_write_halos(scl_lbm *lbm, const void *from_below, const void *from_above);
/* Advance `steps` with the halo exchange overlapped with the update: per
 * step the two edge rows are updated first and read (non-blocking) into
 * to_below / to_above (as scl_lbm_read_edges), then the interior rows are
 * launched; while they run, the host waits for the edge reads only and calls
 * swap(user, lbm), which must fill from_below / from_above (as for
 * scl_lbm_write_halos); their halo writes are queued before the next step.
 * swap is called exactly once per step, also after a device failure (so
 * that neighbours waiting for the exchange are not left hanging); the buffers
 * must stay allocated until the call returns. Precondition: the halos hold
 * the current state's neighbour edges, i.e. once before the first call
 * scl_lbm_read_edges / swap / scl_lbm_write_halos; a run of overlapped calls
 * keeps them filled (scl_lbm_step_rows does not: it refills them before its
 * steps and leaves them stale). Same states, bit for bit, as scl_lbm_step_rows;
 * sums add the same cells' |u| in another order (last bits may differ). */
scl_status scl_lbm_step_rows_overlap(scl_lbm *lbm, long steps, double *sums, void *to_below,
                                     void *to_above, const void *from_below,
                                     const void *from_above, scl_lbm_exchange_fn swap,
                                     void *user);
/* (scl_lbm_read_speeds / read_fields of a row-split solver give the owned rows
 * only: 9*nx*rows floats, SoA over the slab.) */

/* ------------------------------------------------------------------ host side */

/* Initial state: rest equilibrium of p->density (9*nx*ny floats). */
void scl_lbm_ref_init(const scl_lbm_params *p, float *f);
/* One timestep of the literal serial algorithm (accelerate, propagate into tmp,
 * rebound, collision back into f); returns the mean |u| over fluid cells. */
float scl_lbm_ref_step(const scl_lbm_params *p, const unsigned char *obstacles, float *f,
                       float *tmp);
/* The CPU baseline: the same step fused into one OpenMP pass that pulls from
 * *f into *tmp and then swaps the two pointers. */
float scl_lbm_omp_step(const scl_lbm_params *p, const unsigned char *obstacles, float **f,
                       float **tmp);
/* Fields of a natural state (obstacle cells: u = 0, pressure = density/3). */
void scl_lbm_fields(const scl_lbm_params *p, const unsigned char *obstacles, const float *f,
                    float *ux, float *uy, float *speed, float *pressure);
/* Number of non-obstacle cells. */
long scl_lbm_fluid_cells(const scl_lbm_params *p, const unsigned char *obstacles);
/* Reynolds number av_vel * reynolds_dim / nu with nu = (2/omega - 1)/6. */
double scl_lbm_reynolds(const scl_lbm_params *p, double av_vel);

/* Writers: complete files or none (scl_outfile: a temporary beside PATH, renamed when
 * complete; a device or FIFO written straight). */
scl_status scl_lbm_write_av_vels(const char *path, const float *av_vels, long steps, char *err,
                                 size_t errlen);
scl_status scl_lbm_write_state(const char *path, const scl_lbm_params *p,
                               const unsigned char *obstacles, const float *ux, const float *uy,
                               const float *speed, const float *pressure, char *err,
                               size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
