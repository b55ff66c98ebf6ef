/*
 * streamcl fdtd — 3D FDTD for Maxwell's equations (Yee scheme) on the offload core.
 *
 *   scl_fdtd_model   what a run needs: grid, time step, materials with a material
 *                    index per field component, CPML thickness per face, sources,
 *                    receivers. Built from gprMax's input language (a subset, read
 *                    by scl_fdtd_read_input) or by a program.
 *   scl_fdtd_host    the plain C reference (serial, or OpenMP when threads > 1):
 *                    the test oracle and the CPU baseline
 *   scl_fdtd         the OpenCL solver on one scl_context (fp32 default, fp64 option)
 *
 * Physics (gprMax's discretisation, so that a model gives the same receiver
 * signals): Yee cell with E on edges and H on faces; Ex(i,j,k) at
 * ((i+1/2)dx, j dy, k dz), Hx(i,j,k) at (i dx, (j+1/2)dy, (k+1/2)dz), etc.
 *   E <- CA E + CB curl H,  CA = (1 - s dt/2e)/(1 + s dt/2e),  CB = (dt/e)/(1 + s dt/2e)
 *   H <- DA H - DB curl E,  likewise with mu and the magnetic loss
 * Tangential E on the domain faces is never updated (PEC box), unless an axis
 * is periodic. Each step: record receivers (E at n dt, H at (n-1/2) dt), update
 * H, CPML H, update E, CPML E, then sources with J at (n+1/2) dt:
 * Hertzian dipole E -= CB J dl/(dx dy dz); hard voltage source E = -V/d.
 * Materials on edges/faces between different cells are averaged as gprMax
 * does (E: the 4 cells around the edge, H: the 2 cells beside the face) unless
 * the object was built without averaging (its edges take its material).
 * CPML: Roden & Gedney with gprMax's default grading (order 4, sigma_max =
 * (m+1)/(150 pi d), kappa 1, alpha 0), inside the domain, as correction terms
 * added to the main update at the slab points (the fused kernel: inline, its
 * auxiliary fields stored for the slab planes only; the separate kernels:
 * slab kernels after each update). lo + hi CPML cells must leave at least one
 * interior cell on their axis.
 *
 * Time step: dt = factor / (c sqrt(1/dx^2 + 1/dy^2 + 1/dz^2)) (gprMax's, with
 * #time_step_stability_factor, default 1); a dt above the Courant limit is
 * refused with the limit in the message.
 *
 * Memory layout: six field arrays on a scl_grid3d with one halo plane, x
 * fastest, rows padded to 32 points (work-group rows start aligned); one byte of material index per component per point (not read when
 * the model is one material: "uniform" kernels). Bytes per cell update, fp32
 * (fp64 doubles the field part): separate H and E kernels 2 * (6 + 3) * 4 =
 * 72 (+6 with material bytes); the fused kernel reads the six components of
 * step n once and writes the six of step n+1 into a second buffer set: 48
 * (+6), for twice the field memory and four recomputed H values per cell that
 * caches serve. The kernels are 2.5D (a work-item walks kz planes of its
 * column and keeps the plane it just read in registers; kz is tuned), so a
 * value is read from DRAM once per update, not once per plane using it. The roof is the device's copy bandwidth divided by these
 * bytes (H200, ~4.3 TB/s: ~60 Gcells/s separate, ~90 fused). CPML: a slab
 * point also reads and writes the auxiliary field of each of its 4 field
 * pairs per slab axis (+32 bytes in fp32) in the fused kernel (the walks near
 * the slabs run in a build with the CPML code, the others in one without its
 * registers); the slab kernels of the separate path re-read and re-write the
 * target field too (+56). Slabs hold (lo + hi + 2) / n of the cells per axis.
 *
 * Decomposition (prepared, not implemented): cut the global grid into boxes
 * with scl_grid3d_subdomain; each part keeps one halo plane per face (the
 * arrays already have them, and kernels read only the +-1 neighbour planes
 * through the padded strides). After the H update a part sends its first
 * owned plane of the two tangential H components to the lower neighbour's
 * halo; after the E update it sends its last plane of the tangential E
 * components to the upper neighbour. CPML coefficients come from the global
 * axis at ox + i; sources and receivers belong to the part that owns their
 * node. The fused kernel needs a second halo exchange (its recomputed H
 * reads E at -1 neighbours): exchange E and H of step n before it.
 *
 * Errors: solver calls record messages in the context (scl_last_error);
 * readers and checks fill err[] ("PATH:LINE: why" for input files).
 */
#ifndef STREAMCL_FDTD_H
#define STREAMCL_FDTD_H

#include "streamcl.h"
#include "streamcl/grid3d.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCL_FDTD_C0 299792458.0
#define SCL_FDTD_MU0 (4e-7 * 3.14159265358979323846)
#define SCL_FDTD_EPS0 (1.0 / (SCL_FDTD_MU0 * SCL_FDTD_C0 * SCL_FDTD_C0))
#define SCL_FDTD_MAX_MATERIALS 256 /* material index is one byte per component */

enum { SCL_EX, SCL_EY, SCL_EZ, SCL_HX, SCL_HY, SCL_HZ };

typedef struct {
    char name[64];
    double er, se, mr, sm;  /* relative permittivity, conductivity (S/m), permeability, magnetic loss (Ohm/m) */
    int pec;                /* 1: perfect conductor (coefficients 0) */
    int averagable;
} scl_fdtd_material;

typedef enum { SCL_FDTD_HERTZIAN, SCL_FDTD_VOLTAGE } scl_fdtd_source_kind;

typedef struct {
    scl_fdtd_source_kind kind;
    int pol;               /* 0 x, 1 y, 2 z */
    int ijk[3];
    double pos[3];
    int wave;              /* index into model waves */
    double start, stop;    /* active window (s); stop < 0: whole run */
    double resistance;     /* voltage source: 0 = hard source */
} scl_fdtd_source;

typedef struct {
    char name[64];
    scl_wavelet w;
} scl_fdtd_wave;

typedef struct {
    char title[256];
    scl_grid3d grid;            /* halo 1 */
    double dt;
    double stability;           /* factor of the Courant limit (gprMax's, default 1) */
    long iterations;
    double time_window;         /* s, when #time_window gave seconds (0: iterations given):
                                 * a new dt keeps it, iterations = ceil(window / dt) + 1 */
    int pml[6];                 /* CPML cells at x0 y0 z0 x1 y1 z1 faces */
    int periodic[3];            /* 1: axis wraps (no CPML on it), for plane-wave tests */
    int nmat;
    scl_fdtd_material *mat;     /* 0 pec, 1 free_space, then user and averaged ones */
    unsigned char *solid;       /* cell material, nx*ny*nz, i fastest */
    unsigned char *rigid;       /* 1: cell built without averaging */
    unsigned char *id[6];       /* per component material, padded grid layout */
    int nwave, nsrc, nrx;
    scl_fdtd_wave *wave;
    scl_fdtd_source *src;
    char (*rx_name)[64];
    int (*rx_ijk)[3];
    double (*rx_pos)[3];
} scl_fdtd_model;

/* Courant limit of a grid: 1 / (c sqrt(1/dx^2 + 1/dy^2 + 1/dz^2)). */
double scl_fdtd_courant_dt(double dx, double dy, double dz);

/* An empty model: nx*ny*nz cells of free space, PEC outside, no CPML, dt at
 * stability * Courant, iterations 0. Materials pec and free_space exist. */
scl_status scl_fdtd_model_init(scl_fdtd_model *m, int nx, int ny, int nz, double dx, double dy,
                               double dz, double stability, char *err, size_t errlen);
void scl_fdtd_model_free(scl_fdtd_model *m);
/* Add a material; returns its index or -1 (message in err) for bad values
 * (needs er >= 1, mr >= 1, se >= 0, sm >= 0, all finite, as gprMax) or too many. */
int scl_fdtd_add_material(scl_fdtd_model *m, const char *name, double er, double se, double mr,
                          double sm, char *err, size_t errlen);
int scl_fdtd_find_material(const scl_fdtd_model *m, const char *name);
/* Fill cells [lo, hi) with material mat (averaging 1: as gprMax's averaged objects). */
void scl_fdtd_fill_box(scl_fdtd_model *m, const int lo[3], const int hi[3], int mat,
                       int averaging);
/* Derive the per-component indices from the cells (averaged materials are
 * added); call after the last object. Also checks dt against Courant and the
 * CPML against the grid. */
scl_status scl_fdtd_model_finish(scl_fdtd_model *m, char *err, size_t errlen);
/* A time step other than gprMax's, keeping the time window as gprMax would
 * count it: iterations = ceil(time_window / dt) + 1 when the input gave the
 * window in seconds (the iteration count when it gave iterations); sources
 * active for the whole run stay so. Refused: dt above the Courant limit, or
 * more than 1e8 iterations. Then scl_fdtd_model_finish. */
scl_status scl_fdtd_model_set_dt(scl_fdtd_model *m, double dt, char *err, size_t errlen);
/* Update coefficients per material: ca, cb for E (cb = dt/e_eff, divide by the
 * spacing in the curl) and da, db for H. Arrays of m->nmat. */
void scl_fdtd_coefficients(const scl_fdtd_model *m, double *ca, double *cb, double *da,
                           double *db);
/* Source term of source s at step n (the value added, per the source kind). */
double scl_fdtd_source_value(const scl_fdtd_model *m, int s, long n);
/* 1 if every component of every point has the same material (uniform kernels). */
int scl_fdtd_model_uniform(const scl_fdtd_model *m);

/* Read a gprMax input file (the subset: #title #domain #dx_dy_dz #time_window
 * #time_step_stability_factor #material #waveform #hertzian_dipole
 * #voltage_source #rx #box #sphere #cylinder #pml_cells #messages). Any other
 * command is an error naming it and the line. The model is finished. */
scl_status scl_fdtd_read_input(const char *path, scl_fdtd_model *m, char *err, size_t errlen);
/* Same, refusing a domain of more than max_cells cells (0: no limit) before
 * anything is allocated (for services and fuzzing). */
scl_status scl_fdtd_read_input_limit(const char *path, long long max_cells, scl_fdtd_model *m,
                                     char *err, size_t errlen);

/* ------------------------------------------------------------------ host reference */

typedef struct scl_fdtd_host scl_fdtd_host;

/* threads <= 1: serial; otherwise OpenMP with that many threads. fp64 selects
 * double (the oracle) or float (the CPU baseline) arithmetic. */
scl_status scl_fdtd_host_create(const scl_fdtd_model *m, int fp64, int threads,
                                scl_fdtd_host **out, char *err, size_t errlen);
void scl_fdtd_host_free(scl_fdtd_host *h);
/* Advance steps; receivers (if rx != NULL, ncomp 6, nt >= iterations) record
 * at each step index n before its update. */
void scl_fdtd_host_run(scl_fdtd_host *h, long steps, scl_receivers *rx);
long scl_fdtd_host_steps(const scl_fdtd_host *h);
/* Component c (SCL_EX..SCL_HZ) in the padded layout, as doubles. */
void scl_fdtd_host_get(const scl_fdtd_host *h, int c, double *out);
void scl_fdtd_host_set(scl_fdtd_host *h, int c, const double *in);

/* ------------------------------------------------------------------ OpenCL solver */

typedef enum {
    SCL_FDTD_SEPARATE = 0, /* H kernel then E kernel, in place: 72 bytes/cell (fp32) */
    SCL_FDTD_FUSED = 1     /* one kernel per step between two buffer sets: 48 bytes/cell */
} scl_fdtd_kernel;

typedef struct {
    int fp64;            /* 1: double fields and arithmetic (device must have fp64) */
    scl_fdtd_kernel kernel;
    int no_tune;         /* 1: default work-group shape */
    const char *force;   /* plan parameters, e.g. "lx=32,ly=4" */
} scl_fdtd_options;

typedef struct scl_fdtd scl_fdtd;

/* The model must outlive the solver (source values are computed from it).
 * SCL_ERR_UNSUPPORTED: fp64 on a device without it, or the fused kernel on a
 * model with a periodic axis. */
scl_status scl_fdtd_create(scl_context *ctx, const scl_fdtd_model *m, const scl_fdtd_options *opt,
                           scl_fdtd **out);
void scl_fdtd_free(scl_fdtd *f);
/* Advance steps. Receiver samples stay on the device until read. */
scl_status scl_fdtd_run(scl_fdtd *f, long steps);
long scl_fdtd_steps(const scl_fdtd *f);
/* Receiver series of the steps run so far into rx (ncomp 6, nt >= steps). */
scl_status scl_fdtd_read_receivers(scl_fdtd *f, scl_receivers *rx);
scl_status scl_fdtd_get(scl_fdtd *f, int c, double *out);
scl_status scl_fdtd_set(scl_fdtd *f, int c, const double *in);
/* Device bytes per cell update of the main kernels (the bandwidth model). */
double scl_fdtd_bytes_per_cell(const scl_fdtd *f);
/* Launch shape chosen by the plan: work-group lx x ly, kz planes walked per work-item. */
void scl_fdtd_work_group(const scl_fdtd *f, int *lx, int *ly, int *kz);
/* How the CPML is applied (the plan's cpml value for the fused kernel): 1
 * inline, the walks that meet the slabs by a fused kernel with the CPML code
 * and the others by one without it (its registers); 2 inline, one kernel for
 * all; 0 by slab kernels after the main ones (always for the separate
 * kernels); -1 no CPML. */
int scl_fdtd_cpml_inline(const scl_fdtd *f);
/* What the tuner found for CPML variant cpml (0-2, as above): returns the
 * best step's device seconds (shape: its lx, ly, kz), 0 if none of its
 * shapes ran (why: the error, e.g. a build or launch failure, or the last
 * refusal), -1 if not tried (no fused CPML, tuning off, cpml forced).
 * refused: shapes refused (work-group over the limit); limit: the kernel's
 * work-group limit on the device (CPML build for 1 and 2, the build without
 * the CPML code for 0; it falls as registers rise). */
double scl_fdtd_cpml_variant(const scl_fdtd *f, int cpml, int shape[3], int *refused,
                             size_t *limit, const char **why);

/* ------------------------------------------------------------------ outputs */

/* gprMax's output layout: attributes gprMax, Title, Iterations, nx_ny_nz,
 * dx_dy_dz, dt, nsrc, nrx, srcsteps, rxsteps; /srcs/srcN (Type, Position);
 * /rxs/rxN (Name, Position) with datasets Ex Ey Ez Hx Hy Hz. Written through a
 * temporary file. SCL_ERR_UNSUPPORTED when built without HDF5. */
scl_status scl_fdtd_write_hdf5(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                               long iterations, int fp64, char *err, size_t errlen);
/* Receivers as text columns: time Ex Ey Ez Hx Hy Hz per receiver block. */
scl_status scl_fdtd_write_text(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                               long iterations, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
