/*
 * streamcl seismic — 3D isotropic elastic waves, velocity–stress FDTD (Virieux)
 * on the offload core.
 *
 *   scl_seis_model    nx*ny*nz cells of spacing h, per-cell rho, vp, vs
 *   scl_seis_config   order (2 or 4), dt, steps, free surface, CPML, sources,
 *                     receivers, precision
 *   scl_seis          the OpenCL solver (velocity and stress kernels)
 *   scl_seis_ref_*    the plain C oracle of the same update (serial, or
 *                     OpenMP with threads > 1: the CPU baseline)
 *
 * Grid. The model's cells are the integer nodes of a grid3d grid of
 * (nx-1)(ny-1)(nz-1) cells (halo 2): cell (i,j,k) has its centre at x = i h, y = j h, z = k h; z points
 * down and k = 0 is the top. Fields sit on Virieux's staggered grid:
 *   sxx syy szz  at the centre (i, j, k)      vx  at (i+1/2, j, k)
 *   sxy          at (i+1/2, j+1/2, k)         vy  at (i, j+1/2, k)
 *   sxz          at (i+1/2, j, k+1/2)         vz  at (i, j, k+1/2)
 *   syz          at (i, j+1/2, k+1/2)
 * Velocities live at half steps: after step n (n = 0, 1, ...) they hold
 * v((n+1/2) dt) and the stresses sigma((n+1) dt).
 * Staggered parameters: lambda = rho (vp^2 - 2 vs^2) and mu = rho vs^2 per
 * cell; density at a velocity node is the arithmetic mean of the two cells it
 * joins; mu at a shear-stress node is the harmonic mean of the four cells
 * around it (0 if any of them is fluid). Past the last cell the material of
 * the last cell is used.
 *
 * Space: 2nd order (c1 = 1) or 4th order (c1 = 9/8, c2 = -1/24) staggered
 * differences. Outside the grid every field is zero (a lossless reflecting
 * wall: with no CPML and no free surface the discrete energy
 * scl_seis_energy is conserved to rounding).
 *
 * Boundaries. CPML (Komatitsch & Martin 2007, polynomial order 2, kappa = 1,
 * alpha = pi f_pml decreasing linearly into the layer) in the outer `pml`
 * cells of every side except the top when free_surface is set. Free surface:
 * the plane k = 0 of normal stresses, by stress imaging (Levander 1988,
 * Graves 1996): szz = 0 there, sxx and syy use dvz/dz eliminated by szz = 0,
 * sxz, syz and szz are mirrored antisymmetrically above it, and vertical
 * derivatives that would reach above it fall back to 2nd order.
 *
 * Sources (s(t): a grid3d scl_wavelet, amp included):
 *   force     f = s(t) newtons along (fx,fy,fz) at the velocity
 *             nodes of the cell: v += dt f / (rho h^3) at t = n dt
 *   moment    moment-rate tensor s(t) M (N m / s): the stress glut
 *             sigma -= dt Mdot / h^3 at t = (n+1/2) dt; diagonal terms at the
 *             centre, off-diagonal ones spread over the 4 shear nodes around
 *             the centre
 *   explosive a moment source with M = identity (P waves only)
 * Receivers record vx, vy, vz at their own staggered nodes of the cell
 * (no interpolation) at t = (n+1/2) dt and pressure p = -(sxx+syy+szz)/3 at
 * the centre at t = (n+1) dt.
 *
 * Decomposition: every field is stored with a zero halo of 2 planes on all
 * sides (the 4th-order reach), so a sub-domain solver needs only its halo
 * planes filled from its neighbours between the velocity and stress updates.
 *
 * Errors: functions record messages in the context (scl_last_error) or fill
 * err[]; readers name the file and line.
 */
#ifndef STREAMCL_SEISMIC_H
#define STREAMCL_SEISMIC_H

#include "streamcl.h"
#include "streamcl/grid3d.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCL_SEIS_HALO 2
#define SCL_SEIS_MAX_SOURCES 64

typedef struct {
    int nx, ny, nz;        /* cells */
    double h;              /* cell size, metres */
    /* per cell, i + nx*(j + ny*k); m/s, m/s, kg/m^3 */
    float *vp, *vs, *rho;
} scl_seis_model;

/* Highest frequency of interest of a wavelet: 2.5 f (ricker, gaussian
 * family), f (sines). */
double scl_seis_wavelet_fmax(const scl_wavelet *w);

typedef enum { SCL_SEIS_FORCE = 0, SCL_SEIS_EXPLOSIVE = 1, SCL_SEIS_MOMENT = 2 } scl_seis_source_kind;

typedef struct {
    scl_seis_source_kind kind;
    int i, j, k;           /* cell */
    double dir[3];         /* force direction (force) */
    double m[6];           /* moment: xx yy zz xy xz yz (moment) */
    scl_wavelet wavelet;   /* grid3d's wavelets; its amp scales the source */
} scl_seis_source;

typedef struct { int i, j, k; } scl_seis_receiver;

enum { SCL_SEIS_VX, SCL_SEIS_VY, SCL_SEIS_VZ, SCL_SEIS_P, SCL_SEIS_NCOMP };

typedef struct {
    int order;             /* 2 or 4 */
    double dt;             /* s */
    long steps;
    int free_surface;      /* 1: the top is a free surface (no CPML there) */
    int pml;               /* CPML cells per side (0: reflecting walls) */
    double pml_r;          /* target reflection coefficient (0: 1e-4) */
    double pml_f;          /* frequency of the CPML alpha term (0: the first source's f0) */
    int fp64;              /* 1: double precision */
    const scl_seis_source *sources;
    int nsources;
    const scl_seis_receiver *receivers;
    int nreceivers;
} scl_seis_config;

/* Stability and sampling. The CFL number vp_max dt / h * sqrt(3) * (|c1|+|c2|)
 * must be <= 1 (refused otherwise). Points per minimum wavelength:
 * min(vs > 0 ? vs : vp) / (fmax h). */
double scl_seis_cfl(const scl_seis_model *m, const scl_seis_config *c);
/* Largest stable dt for the model and order. */
double scl_seis_dt_max(const scl_seis_model *m, int order);
double scl_seis_points_per_wavelength(const scl_seis_model *m, const scl_seis_config *c);

/* Check model and configuration: sizes, finite positive rho and vp, vs >= 0
 * and vs < (sqrt(3)/2) vp (positive bulk modulus), CFL, sources and
 * receivers inside the grid, order, pml thickness (< half of each side). The
 * first violation is SCL_ERR_INPUT with a message naming the cell or item. A
 * model sampled with fewer than 5 points per wavelength is refused; below 8
 * (4th order) or 10 (2nd) *warn receives a warning (when warn is not NULL). */
scl_status scl_seis_check(const scl_seis_model *m, const scl_seis_config *c, char *warn,
                          size_t warnlen, char *err, size_t errlen);

/* ------------------------------------------------------------------ solver */

typedef struct {
    int tune;            /* 1: time work-group shapes (plan cache otherwise) */
    const char *force;   /* fix plan parameters, e.g. "lx=32,ly=4" */
} scl_seis_options;

typedef struct scl_seis scl_seis;

scl_status scl_seis_create(scl_context *ctx, const scl_seis_model *m, const scl_seis_config *c,
                           const scl_seis_options *opt, scl_seis **out);
void scl_seis_free(scl_seis *s);
/* Advance `steps` steps (receivers record every step). */
scl_status scl_seis_step(scl_seis *s, long steps);
long scl_seis_steps_done(const scl_seis *s);
/* Receiver traces so far: traces[(r*SCL_SEIS_NCOMP + comp)*steps_total + n],
 * steps_total = the config's steps (samples not yet computed are 0). */
scl_status scl_seis_traces(scl_seis *s, float *traces);
/* One field (0..8: vx vy vz sxx syy szz sxy sxz syz) in natural order
 * i + nx*(j + ny*k), as doubles. */
scl_status scl_seis_read_field(scl_seis *s, int field, double *out);
/* Device bytes per cell update of the chosen scheme in the interior (120 B
 * fp32 for separate velocity and stress kernels, 84 B fused). */
double scl_seis_bytes_per_cell(const scl_seis *s);
/* Nonzero if the plan chose the fused scheme: the interior box (no CPML, no
 * surface rows) in one kernel between two buffer sets; possible only
 * without force sources (they act between the two half steps). 1: each
 * work-item recomputes its neighbours' new velocities; 2: a work-group
 * shares them in local memory. */
int scl_seis_fused(const scl_seis *s);
/* For fused = 2: 1 if each cell's own stress-phase loads are issued before
 * the velocity phase (in flight across the barrier), 0 if after it (fewer
 * registers); tuned. */
int scl_seis_lds_early(const scl_seis *s);
/* Nonzero if the plan runs the separate scheme with the CPML shell (plan
 * cpml=1): the interior kernels over every cell below the surface rows,
 * then one launch per phase over the CPML slab cells adding the CPML
 * terms. */
int scl_seis_cpml_shell(const scl_seis *s);
/* Device seconds of one step of the tuned plan of each scheme (0 separate,
 * 1 fused, 2 fused local, 3 separate with the CPML shell), the fastest of
 * which runs; 0 where not timed (tuning off, the scheme fixed by the plan
 * string, or not possible; the shell is timed on GPUs only). */
double scl_seis_scheme_seconds(const scl_seis *s, int scheme);
/* The plan's work-group (lx by ly work-items) and the z planes each
 * work-item walks (kz). */
void scl_seis_work_group(const scl_seis *s, int *lx, int *ly, int *kz);

/* ------------------------------------------------------------------ slabs */

/* A slab of a whole model for a decomposed run (the transport, e.g. MPI,
 * is the caller's): the cells [lo, lo + n) along axis (0 x, 1 y, 2 z) of a
 * whole model of nx * ny * nz cells. Its solver updates those cells with
 * the whole model's CPML profiles, free surface, sources (an injection at a
 * cell of the slab only) and receivers, and takes R = order / 2 halo planes
 * of each neighbour (the velocities after the velocity update; the three
 * stresses differentiated along the cut after the stress update): the same cells, the same operations, the same bits
 * as the whole model's solver. The separate scheme only (the fused one
 * would need 2R halo planes). Each slab needs n >= R, and with a free
 * surface over a z cut the top slab n >= 3 (its stress images). */
typedef struct {
    int axis, lo, n;
    int nx, ny, nz;  /* the whole model's cells */
    double vp_max;   /* the whole model's largest vp (the CPML's damping) */
} scl_seis_slab;

/* The window of the whole model g that a slab's solver takes: its planes
 * lo - 2 .. lo + n + 1 along axis (n + 4, those past g's walls repeat
 * g's outer plane, as the padded layout does); allocates w's arrays
 * (scl_seis_model_release). */
scl_status scl_seis_model_window(const scl_seis_model *g, int axis, int lo, int n,
                                 scl_seis_model *w);

/* A slab's solver: w is the window (scl_seis_model_window, or one built
 * the same way), c the whole run's configuration with its global
 * positions (the caller checked it against the whole model with
 * scl_seis_check) but only the receivers inside the slab (in c's order,
 * traces as scl_seis_traces for them). */
scl_status scl_seis_create_slab(scl_context *ctx, const scl_seis_model *w, const scl_seis_config *c,
                                const scl_seis_slab *slab, const scl_seis_options *opt,
                                scl_seis **out);

/* The halo transport of a slab's solver: group 0 velocities, 1 stresses.
 * send[0] goes to the lower neighbour (planes lo, ..), send[1] to the
 * upper one; recv[0] takes the lower neighbour's planes, recv[1] the upper
 * one's (pinned host memory). bytes[0]: the length of what goes down
 * (send[0], and recv[1] from above), bytes[1]: of what goes up (send[1],
 * recv[0]); the same on every slab of a run, at most
 * scl_seis_halo_bytes. Only the planes the neighbour's stencils read
 * travel: at order 4, per face 4 or 5 field planes of 6. Called on every slab for
 * every swap, also where a face has no neighbour (then its buffers are
 * neither sent nor read). A status other than SCL_OK stops the steps. */
typedef scl_status (*scl_seis_transport_fn)(void *user, int group, void *const send[2],
                                            void *const recv[2], const size_t bytes[2]);
/* scl_seis_step of a slab's solver with the halo swaps: overlap 1 swaps
 * behind the update of the planes that do not read the halo (packed and
 * read first, the inner planes queued, fn while they run, the received
 * planes written, then the edge planes); 0 swaps between whole updates.
 * The same bits either way. */
scl_status scl_seis_step_slab(scl_seis *s, long steps, scl_seis_transport_fn fn, void *user,
                              int overlap);
/* The most bytes one message of a slab's transport moves (a bound on the
 * `bytes` it is given, for both groups); 0 for a whole model. */
size_t scl_seis_halo_bytes(const scl_seis *s);

/* Where a slab's steps spent their time (scl_seis_step_slab, summed since
 * creation or the last reset): host seconds in the calls, of which waiting
 * for the send planes (the device still busy with the work queued before
 * them: the previous phase's interior and edges) and in the transport;
 * bytes sent; and the device seconds per kind of work from the commands'
 * events (SCL_SEIS_T_*; sources and receivers not counted). */
enum {
    SCL_SEIS_T_INTERIOR, /* the planes that read no halo (all of them without overlap) */
    SCL_SEIS_T_EDGE,     /* the R planes at each face, after the swap */
    SCL_SEIS_T_PACK,     /* send planes packed on the device */
    SCL_SEIS_T_READ,     /* and read to the host */
    SCL_SEIS_T_WRITE,    /* received planes written to the device */
    SCL_SEIS_T_UNPACK,   /* and unpacked */
    SCL_SEIS_T_COUNT
};
typedef struct {
    long steps;
    double wall, wait, transport, bytes;
    double device[SCL_SEIS_T_COUNT];
} scl_seis_slab_stats;
scl_status scl_seis_slab_stats_get(const scl_seis *s, scl_seis_slab_stats *out);
void scl_seis_slab_stats_reset(scl_seis *s);
/* Where the packed send planes of face d (0 low, 1 high) are read from the
 * device: host memory of scl_seis_halo_bytes bytes, e.g. the neighbour's
 * receive area in a shared memory window (NULL: the solver's pinned
 * buffer, as before). The transport then gets send[d] = that pointer with
 * the planes already in it, and need not copy them there. The caller keeps
 * the memory valid, and nobody else reading it from the transport's return
 * until the next swap's send planes are read (the slab's steps read them
 * right after the previous swap). */
scl_status scl_seis_set_halo_staging(scl_seis *s, void *const send[2]);

/* ------------------------------------------------------------------ reference */

typedef struct scl_seis_ref scl_seis_ref;

/* The plain C update of the same scheme, in double or float as c->fp64 says;
 * threads <= 1: serial; else OpenMP with that many threads. */
scl_status scl_seis_ref_create(const scl_seis_model *m, const scl_seis_config *c, int threads,
                               scl_seis_ref **out, char *err, size_t errlen);
void scl_seis_ref_free(scl_seis_ref *r);
void scl_seis_ref_step(scl_seis_ref *r, long steps);
/* Keep the previous stresses from now on, for scl_seis_ref_energy. */
void scl_seis_ref_enable_energy(scl_seis_ref *r);
long scl_seis_ref_steps_done(const scl_seis_ref *r);
/* Same layouts as scl_seis_traces and scl_seis_read_field. */
void scl_seis_ref_traces(const scl_seis_ref *r, float *traces);
void scl_seis_ref_field(const scl_seis_ref *r, int field, double *out);
/* scl_seis_energy of the current state (needs scl_seis_ref_enable_energy
 * before the last step; the model passed to create must still exist). */
double scl_seis_ref_energy(const scl_seis_ref *r);

/* Discrete energy of the leapfrog scheme, conserved exactly (to rounding)
 * without sources, CPML and free surface: h^3 (1/2 sum rho v.v at the
 * current half step + 1/2 sum sigma(n) : C^-1 sigma(n+1)), from the nine
 * fields after step n+1 (now, natural order, as scl_seis_read_field gives
 * them) and the six stresses after step n (prev: sxx syy szz sxy sxz syz). */
double scl_seis_energy(const scl_seis_model *m, const double *const now[9],
                       const double *const prev[6]);

/* ------------------------------------------------------------------ analytic */

/* Particle velocity of a point force F(t) = s(t) (w, amp included) along unit axis
 * `axis` (0 x, 1 y, 2 z) at the origin of a homogeneous full space (Stokes'
 * solution, Aki & Richards eq. 4.23, differentiated in time), at offset
 * (x,y,z) metres and time t: v[3]. */
void scl_seis_stokes_velocity(double vp, double vs, double rho, const scl_wavelet *w, int axis, double x, double y, double z, double t,
                              double v[3]);
/* Rayleigh-wave speed over vs for Poisson ratio nu (root of the Rayleigh
 * equation in (0, 1)). */
double scl_seis_rayleigh_ratio(double vp, double vs);

/* ------------------------------------------------------------------ files */

/* A run file: one command per line, '#' comments, positions in metres
 * (nearest cell centre, rounded half down), sources and receivers numbered
 * in order of appearance:
 *   grid NX NY NZ H                cells and cell size (m); not needed with a raw model
 *   model homogeneous VP VS RHO | model layered FILE | model raw HEADER
 *                                  (files relative to the run file)
 *   time T | steps N               simulated seconds or steps (one of them)
 *   dt DT                          default: 0.9 of the CFL limit, rounded down to a whole
 *                                  microsecond when that is >= 10 us (SEG-Y stores it so)
 *   order 2|4                      default 4
 *   surface free|absorbing         top boundary; default free
 *   pml N [R]                      CPML cells and target reflection; default 10 1e-4
 *   precision single|double        default single
 *   source force X Y Z FX FY FZ WAVELET F AMP [DELAY]
 *   source explosive X Y Z WAVELET F AMP [DELAY]
 *   source moment X Y Z MXX MYY MZZ MXY MXZ MYZ WAVELET F AMP [DELAY]
 *                                  WAVELET: ricker, gaussian, ... (grid3d's names)
 *   receiver X Y Z
 *   receivers X0 Y0 Z0 X1 Y1 Z1 N  N receivers evenly along a line (N >= 2)
 *   receiver_grid X0 Y0 X1 Y1 Z NX NY   NX x NY receivers on the plane at depth Z
 *                                  (x fastest; NX or NY = 1 takes X0 or Y0)
 * The whole run is checked (scl_seis_check); messages name the file and line. */
typedef struct {
    scl_seis_model model;
    scl_seis_config config;
    scl_seis_source sources[SCL_SEIS_MAX_SOURCES];
    scl_seis_receiver *receivers;   /* malloc'd */
} scl_seis_run;

scl_status scl_seis_read_run(const char *path, scl_seis_run *run, char *warn, size_t warnlen,
                             char *err, size_t errlen);
void scl_seis_run_release(scl_seis_run *run);

/* Layered model: lines "depth vp vs rho" (depth of the layer's top in metres,
 * increasing, the first 0); '#' comments. Fills m->vp/vs/rho (allocated here,
 * release with scl_seis_model_release) for nx, ny, nz, h already set. */
scl_status scl_seis_read_layered(const char *path, scl_seis_model *m, char *err, size_t errlen);
/* Raw model: a header file of "key value" lines: nx, ny, nz, h, and vp, vs,
 * rho naming float32 little-endian files of nx*ny*nz values (x fastest),
 * relative to the header's directory. Sets every field of m. */
scl_status scl_seis_read_raw(const char *header, scl_seis_model *m, char *err, size_t errlen);
/* Homogeneous model of m->nx, ny, nz. */
scl_status scl_seis_model_fill(scl_seis_model *m, double vp, double vs, double rho);
void scl_seis_model_release(scl_seis_model *m);

/* SEG-Y rev 1 (big-endian, IEEE float samples, format code 5), one trace per
 * receiver of component comp of traces (layout of scl_seis_traces), samples
 * every `decimate` steps. Coordinates in metres (scalar 1), receiver depth in
 * the group-elevation field as a negative elevation, the first source in the
 * source fields. The sample interval dt*decimate must be a whole number of
 * microseconds. Written through scl_outfile (complete or absent). */
scl_status scl_seis_write_segy(const char *path, const scl_seis_model *m,
                               const scl_seis_config *c, const float *traces, int comp,
                               int decimate, char *err, size_t errlen);
/* CSV: t, then r<n>_vx, r<n>_vy, r<n>_vz, r<n>_p per receiver. */
scl_status scl_seis_write_csv(const char *path, const scl_seis_config *c, const float *traces,
                              int decimate, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
