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
 * Hertzian dipole E -= CB J dl/(dx dy dz); hard voltage source E = -V/d with
 * V at (n+1) dt (and at 0 before step 0), as gprMax (scl_fdtd_source_value).
 * Materials on edges/faces between different cells are averaged as gprMax
 * does (E: the 4 cells around the edge, H: the 2 cells beside the face) unless
 * the object was built without averaging (its edges take its material).
 * CPML: gprMax's default (its first-order recursive-integration "HORIPML"
 * form, order 4 grading, sigma_max = 0.8 (m+1)/(z0 d sqrt(er mr)) from the
 * mean er, mr of each slab's entrance plane, kappa 1, alpha 0; E sampled at
 * depths j, H at j + 1/2 cells; coefficients in host.c), inside the domain, as correction terms
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
 * Decomposition (slabs along one axis; the transport, e.g. MPI, is the
 * caller's): scl_fdtd_model_subdomain cuts cells [lo, lo + n) of a finished
 * model along an axis into a model of its own, whose grid keeps the offset
 * and the global sizes; a solver on it treats a cut face as interior (its
 * node plane 0 is updated, reading halo plane -1), reads the global CPML
 * profile at the offset and applies the part of the global CPML slabs that
 * falls inside. A slab owns cells [lo, lo + n) (the last one also the
 * closing node plane), and the sources and receivers there. Per step the
 * updates need, along the cut axis, H of plane -1 (the lower neighbour's
 * plane n - 1) before the E update and E of plane n (the upper neighbour's
 * plane 0) before the next H update: two tangential components each, one
 * way each (scl_fdtd_run_exchange, scl_fdtd_halo_read/_write). Every owned
 * point then computes what the whole domain computes there, operation for
 * operation: a decomposed run equals the whole run bit for bit. The
 * separate kernels only (the fused kernel recomputes H of the -1
 * neighbours, which would need E, H and psi halos of step n as well).
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
#define SCL_FDTD_MAX_POLES 4        /* Debye / Lorentz / Drude poles per material */

enum { SCL_EX, SCL_EY, SCL_EZ, SCL_HX, SCL_HY, SCL_HZ };

typedef struct {
    char name[64];
    double er, se, mr, sm;  /* relative permittivity, conductivity (S/m), permeability, magnetic loss (Ohm/m) */
    int pec;                /* 1: perfect conductor (coefficients 0) */
    int averagable;
    int frozen;             /* 1: the component never changes (coefficients 1 and 0; 2D TE) */
    /* Dispersion (#add_dispersion_debye/_lorentz/_drude): er is the relative
     * permittivity at infinite frequency; each pole p in gprMax's complex form
     * chi_p(t) = Re(w_p exp(q_p t)) (w[p], q[p] as re, im): Debye w = deltaer/tau,
     * q = -1/tau; Lorentz (deltaer, resonance f, damping d; wp = 2 pi f)
     * w = -i wp^2 deltaer / sqrt(wp^2 - d^2), q = -d + i sqrt(wp^2 - d^2); Drude
     * (plasma f, inverse relaxation a) w = -wp^2 / a, q = -a and pole_se +=
     * eps0 wp^2 / a. A dispersive material is never averaged (its edges take it). */
    int npoles;
    double w[SCL_FDTD_MAX_POLES][2], q[SCL_FDTD_MAX_POLES][2];
    double pole_se;
} scl_fdtd_material;

/* SCL_FDTD_MAGNETIC: gprMax's #magnetic_dipole, a magnetic current on the H
 * component pol after the H update. SCL_FDTD_TLINE: gprMax's
 * #transmission_line, a 1D line of impedance `resistance` fed by the
 * waveform and tied to the E edge (see Transmission lines below). */
typedef enum {
    SCL_FDTD_HERTZIAN,
    SCL_FDTD_VOLTAGE,
    SCL_FDTD_MAGNETIC,
    SCL_FDTD_TLINE
} scl_fdtd_source_kind;

typedef struct {
    scl_fdtd_source_kind kind;
    int pol;               /* 0 x, 1 y, 2 z */
    int ijk[3];
    double pos[3];
    int wave;              /* index into model waves */
    double start, stop;    /* active window (s); stop < 0: whole run */
    double resistance;     /* voltage source: 0 = hard source */
} scl_fdtd_source;

/* A waveform: an analytic wavelet, or samples from #excitation_file read as
 * gprMax does (scipy's interp1d): values v[k] at times t[k] (t NULL: the
 * simulation's times k dt, the column cut or zero-padded to the iteration
 * count), interpolated 'l' linearly, 'n' to the nearest sample (a time half
 * way between two takes the earlier), 'p' the previous, 'x' the next one;
 * outside the time axis the fill value, or (extrapolate) the line through
 * the two end samples. */
typedef struct {
    char name[64];
    scl_wavelet w;
    int nsamp;          /* 0: the wavelet w */
    double *t, *v;      /* owned by the model */
    char interp;
    int extrapolate;
    double fill;
} scl_fdtd_wave;

/* A field component given its material directly by a thin object (#plate,
 * #edge, a zero-thickness #triangle or #cylindrical_sector), as gprMax's
 * rigid components: it keeps that material unless a later object built
 * without averaging touches it, or later averaged objects fill every cell
 * around it (gprMax then averages it again). */
typedef struct {
    int comp;                   /* SCL_EX..SCL_HZ */
    int ijk[3];
    int mat;
    unsigned int object;        /* build number of the object (scl_fdtd_model.objects) */
} scl_fdtd_fixed;

/* #geometry_view: cells [lo, hi) sampled every step cells, written per cell
 * (gprMax's 'n' mode) as VTKHDF ImageData, FILE.vtkhdf beside the input. */
typedef struct {
    int lo[3], hi[3], step[3];
    char file[1024];            /* path without the extension */
} scl_fdtd_geometry_view;

/* #snapshot: the six fields at one iteration (E at n dt, H at (n - 1/2) dt,
 * as receivers), each interpolated (trilinearly, from its staggered points)
 * to the centres of the cells [lo, hi) sampled every step cells, as gprMax 4
 * writes them: FILE.vtkhdf in the directory INPUT_snaps beside the input. */
typedef struct {
    int lo[3], hi[3], step[3];
    long iteration;
    char file[1024];            /* path with the extension */
} scl_fdtd_snapshot;

/* gprMax's CFS parameters of its CPML (#pml_cfs), for alpha (S/m), kappa
 * and sigma (S/m), [0..2]: a polynomial of order profile (0 constant: max
 * everywhere) from min at the slab's entrance to max at its outer end
 * (reverse: the other way), at each sample's depth over the thickness;
 * sigma_auto: sigma max is gprMax's 0.8 (order + 1)/(z0 d sqrt(er mr)) from
 * the entrance plane. set 0: gprMax's default (alpha 0, kappa 1, sigma
 * quartic, automatic). */
typedef struct {
    int set, profile[3], reverse[3], sigma_auto;
    double min[3], max[3];
} scl_fdtd_cfs;

typedef struct {
    char title[256];
    scl_grid3d grid;            /* halo 1 */
    int mode2d;                 /* 0: 3D; 1 + a: 2D TM with axis a invariant (gprMax's
                                 * "2D TMx".."2D TMz"): one cell thick along a, no PML
                                 * across it, dt from the two other spacings */
    int te2d;                   /* with mode2d: 2D TE instead (gprMax's "2D TEx".."2D TEz"):
                                 * two cells thick along the axis a, the live plane at node
                                 * 1 (E_b, E_d, H_a); E_a is held at zero (pec) and H_b,
                                 * H_d by a frozen material (te-frozen: no update), so the
                                 * 3D update is gprMax's 2D TE one */
    double dt;
    double stability;           /* factor of the Courant limit (gprMax's, default 1) */
    long iterations;
    double time_window;         /* s, when #time_window gave seconds (0: iterations given):
                                 * a new dt keeps it, iterations = ceil(window / dt) + 1 */
    int pml[6];                 /* CPML cells at x0 y0 z0 x1 y1 z1 faces */
    scl_fdtd_cfs cfs;           /* their profile (#pml_cfs) */
    double pml_ermr[6];         /* er mr of each face's entrance plane that grades it (a
                                 * sub-domain: the whole model's; 0: from the model's cells) */
    int periodic[3];            /* 1: axis wraps (no CPML on it), for plane-wave tests */
    int nmat;
    scl_fdtd_material *mat;     /* 0 pec, 1 free_space, then user and averaged ones */
    unsigned char *solid;       /* cell material, nx*ny*nz, i fastest */
    unsigned int *rigid;        /* cell built without averaging: its object's build number
                                 * (later objects win shared edges, as in gprMax); 0: averaged */
    unsigned int *rigid_h;      /* H's view of rigid and solid: a PEC object leaves them (gprMax
                                 * keeps an earlier rigid object's H there); NULL until a PEC
                                 * object covers a rigid cell (then rigid and solid otherwise) */
    unsigned char *solid_h;
    int magnetic_arithmetic;    /* 1: an averaged H face takes the arithmetic mean of its cells'
                                 * mr and sm (#magnetic_averaging: arithmetic); 0: harmonic */
    int h_nomem;                /* 1: making them ran out of memory (model_finish says so) */
    unsigned int objects;       /* build number of the object being filled (scl_fdtd_fill_box) */
    unsigned int *owner;        /* cell's last object (any); made with the first fixed component */
    int nfixed, capfixed;
    scl_fdtd_fixed *fixed;      /* components set by thin objects, in build order */
    unsigned char *id[6];       /* per component material, padded grid layout */
    int nwave, nsrc, nrx;
    scl_fdtd_wave *wave;
    scl_fdtd_source *src;
    char (*rx_name)[64];
    int (*rx_ijk)[3];
    double (*rx_pos)[3];
    int src_step[3], rx_step[3];  /* B-scan moves per trace in cells (#src_steps, #rx_steps) */
    int trace;                    /* the trace the positions are at (scl_fdtd_model_trace) */
    int ncases;                   /* #study: gpr: its cases, one trace each (0: no study) */
    double (*case_pos)[3];        /* ncases x (nsrc + nrx) positions in metres, sources then
                                   * receivers: where case t puts each (instead of steps) */
    char (*case_id)[64];          /* the cases' IDs (gprMax's /study CaseID) */
    char *study_csv;              /* the study's CSV file (its /study SourcePath) */
    int ngview;
    scl_fdtd_geometry_view *gview;
    int nsnap;
    scl_fdtd_snapshot *snap;
} scl_fdtd_model;

/* Courant limit of a grid: 1 / (c sqrt(1/dx^2 + 1/dy^2 + 1/dz^2)). */
double scl_fdtd_courant_dt(double dx, double dy, double dz);

/* The model's Courant limit: 3D, or 2D from the two spacings across the
 * invariant axis (gprMax's rule for its 2D modes). */
double scl_fdtd_model_courant(const scl_fdtd_model *m);

/* Put sources and receivers where trace t (0-based) of a B-scan has them:
 * their read positions moved by t * src_step / rx_step cells (gprMax's
 * #src_steps, #rx_steps), or with a study (ncases > 0) case t's positions.
 * Refused (message in err) when one leaves the domain, t is not a case of
 * the study, or a resistive voltage source would move (its edge material). */
scl_status scl_fdtd_model_trace(scl_fdtd_model *m, int t, char *err, size_t errlen);

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
/* Thin objects (geometry.c), gprMax's rasterisation, built as object number
 * m->objects (the caller counts objects). Node and cell indices, no checks
 * beyond the grid's bounds (components outside are skipped).
 *   face:   the four E edges of the cell face normal to axis a at node
 *           p[a], cell p[b], p[d]: E_b at p and p + e_d with mat[b], E_d at p
 *           and p + e_b with mat[d] (mat[] per component axis)
 *   edge:   E_a at node p (one edge of an #edge)
 * SCL_ERR_MEMORY when the list cannot grow. */
scl_status scl_fdtd_build_face(scl_fdtd_model *m, int a, const int p[3], const int mat[3]);
scl_status scl_fdtd_build_edge(scl_fdtd_model *m, int a, const int p[3], int mat);
/* #triangle: vertices v (metres, on grid nodes), normal axis a, the plane at
 * node level; cells whose centre lies strictly inside the triangle: with
 * thick == 0 their face at level (scl_fdtd_build_face), else the cells
 * level .. level + thick - 1 along a (scl_fdtd_fill_box, averaging as given).
 * Returns the number of cells (columns) found, -1 on memory failure. */
long scl_fdtd_build_triangle(scl_fdtd_model *m, const double v[3][3], int a, int level, int thick,
                             int mat, int averaging);
/* #cylindrical_sector: normal axis a, centre (c1, c2) on the two other axes
 * (x normal: y z; y: x z; z: x y), radius r, from angle
 * start (radians, from the first of those axes towards the second) through
 * angle; cells whose centre is within r (inclusive), on or counter-clockwise
 * of the start ray and strictly clockwise of the end ray; thick as for the
 * triangle. Returns the count, -1 on memory failure. */
long scl_fdtd_build_sector(scl_fdtd_model *m, int a, double c1, double c2, double r, double start,
                           double angle, int level, int thick, int mat, int averaging);
/* Soils (soil.c). Peplinski's mixing model as gprMax applies it: par = sand
 * fraction, clay fraction, bulk density, sand particle density (g/cm3),
 * water volume fraction range lo, hi; per bin q of nbins (the middle of
 * each of nbins equal parts of the range) out[q] = permittivity at infinite
 * frequency, Debye delta, tau (water's at 25 C), conductivity (S/m). */
void scl_fdtd_peplinski(const double par[6], int nbins, double (*out)[4]);
/* A fractal volume of n cells (x fastest): normal white noise (seeded,
 * this library's generator) filtered by |w k|^-D (gprMax 4.0.1's) with gprMax's
 * weights scaled by the smallest side, zero mean. 0, or -1 out of memory. */
int scl_fdtd_fractal(const int n[3], double D, const double weight[3], unsigned long long seed,
                     double *out);
/* A rough surface of gprMax's #add_surface_roughness: n[0] x n[1] points
 * (first fastest) of 2D noise (this library's generator) filtered by
 * |w k|^-D with the weights as given, zero mean, stretched linearly from
 * its minimum lo to its maximum hi (heights in cells along the normal).
 * 0, or -1 out of memory. */
int scl_fdtd_fractal_surface(const int n[2], double D, const double weight[2],
                             unsigned long long seed, double lo, double hi, double *out);
/* A rough surface on a face of a fractal box (#add_surface_roughness). */
typedef struct {
    int axis, plus;             /* the face: normal axis, 1 the box's upper face */
    int lo[3], hi[3];           /* its cells in the plane: [lo, hi) on the two other axes */
    int range[2];               /* cells [range[0], range[1]) along the normal where the
                                 * height varies (clipped to the grid) */
    double D, w[2];             /* dimension, weights of the plane's two axes in order */
    unsigned long long seed;
    int blades;                 /* #add_grass: its number of blades (0: a rough surface) */
} scl_fdtd_rough;
/* Apply rough surface s to the mask of the box [blo, bhi) (cells, x
 * fastest; 1 soil, 0 not built) as gprMax does: at each point of the
 * surface, a cell t of the range is soil when t < height on an upper face,
 * t > height on a lower one, and not built otherwise. te_axis: the
 * invariant axis of a 2D TE model (-1 if none): a surface two cells across
 * it is generated one cell thick and copied. 0, or -1 out of memory. */
int scl_fdtd_rough_apply(const scl_fdtd_rough *s, int te_axis, const int blo[3], const int bhi[3],
                         signed char *mask);
/* Grass s (#add_grass, an upper face) into the same mask (3: grass) as
 * gprMax grows it: blades drawn at columns of the face by the density of a
 * fractal surface, each given a height in range; a blade fills the cells
 * of its column above the soil up to its height, bending away (by
 * (cells / b)^2 along both plane axes, b random in [10, 30], either sign)
 * until it leaves the box; its root goes down through the soil from the
 * box's top as deep as the blade rises above face (the box's upper face
 * before growing), wandering by a random walk. This library's random
 * numbers, seeded by s->seed. 0, or -1 out of memory. */
int scl_fdtd_grass_apply(const scl_fdtd_rough *s, int face, const int blo[3], const int bhi[3],
                         signed char *mask);
/* Replace the values by their bin 0..nbins-1 (numpy's digitize, right-closed,
 * on nbins edges from the minimum to the maximum, as gprMax). */
void scl_fdtd_fractal_bins(double *field, long cells, int nbins);

/* A gprMax geometry file (#geometry_objects_read, geomread.c): the integer
 * dataset /data of an (nx, ny, nz) array as h5py writes it, into cells
 * (malloc'ed, n[0] * n[1] * n[2], x fastest), its dx_dy_dz attribute in d;
 * components 1 when the file also has per-component arrays (/ID).
 * SCL_ERR_UNSUPPORTED when built without HDF5. */
scl_status scl_fdtd_read_geometry(const char *path, int n[3], double d[3], int **cells,
                                  int *components, char *err, size_t errlen);

/* Value of waveform w at time t (s) (wave.c). */
double scl_fdtd_wave_value(const scl_fdtd_model *m, int w, double t);

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
/* Dispersive media, gprMax's recursive-convolution update (Giannakis and
 * Giannopoulos 2014): per E point of a material with poles a complex
 * auxiliary field T_p per pole;
 *   A (with E^n):   phi = sum_p Re(c0_p T_p),  T_p <- c1_p T_p + c2_p E^n
 *   E^{n+1} = ca E^n + cb (curl H) - cb phi     (ca, cb include the poles)
 *   B (after the sources, with E^{n+1}):  T_p <- T_p - c2_p E^{n+1}
 * with c0 = eps0 exp(q dt/2), c1 = exp(q dt), c2 = -(w/q)(exp(q dt) - 1)/dt,
 * and ca, cb from eps0 (er - sum Re((w/q)(exp(q dt/2) - 1)))/dt and the
 * conductivity se + pole_se. Pole p of material q into c[6] (re, im of each). */
void scl_fdtd_pole_coefficients(const scl_fdtd_model *m, int q, int p, double c[6]);
typedef enum { SCL_FDTD_DEBYE, SCL_FDTD_LORENTZ, SCL_FDTD_DRUDE } scl_fdtd_pole_kind;
/* Add poles to a material, per pole the parameters of gprMax's command:
 * Debye (deltaer, tau), Lorentz (deltaer, resonance Hz, damping 1/s), Drude
 * (plasma Hz, inverse relaxation 1/s); par holds them pole after pole.
 * Refused for pec/free_space, more than SCL_FDTD_MAX_POLES in all, and
 * values gprMax refuses (negative, zero times, an overdamped Lorentz pole). */
scl_status scl_fdtd_add_poles(scl_fdtd_model *m, int mat, scl_fdtd_pole_kind kind, int npoles,
                              const double *par, char *err, size_t errlen);
/* Source term of source s applied after the E update of step n (gprMax's
 * semantics): a Hertzian dipole or resistive voltage source, active while
 * n dt is in its window, gives the current at (n + 1/2) dt (E -= cb * value,
 * 0 when inactive); a hard voltage source gives E^{n+1} = -V((n+1) dt)/d
 * while (n+1) dt is in its window, NaN outside it (the edge is then left to
 * the update). n = -1: the hard sources' E at t = 0, set before step 0. A
 * transmission line gives 0 (its update is its own). */
double scl_fdtd_source_value(const scl_fdtd_model *m, int s, long n);
/* 1 if every component of every point has the same material (uniform kernels). */
int scl_fdtd_model_uniform(const scl_fdtd_model *m);

/* Transmission lines (gprMax's #transmission_line; tline.c). A 1D line of
 * cells dl = sqrt(3) c dt long (c dt / dl = 1/sqrt(3)), impedance R (the
 * source's resistance), driven by a one-way injector at cell
 * SCL_FDTD_TLINE_SRC (V there += w(n dt)/sqrt(3), I one cell before +=
 * w((n + 1/2) dt)/(R sqrt(3))), a first-order absorbing end at cell 0, and
 * joined to the grid at cell SCL_FDTD_TLINE_ANT: while n dt is in its window,
 * after the H update I[ANT] is the current around the edge (the H loop,
 * as gprMax's Ix/Iy/Iz: 0 on the domain's low faces) and the line's I then
 * V are advanced; after the E update and the other sources the edge takes
 * E = -V[ANT]/d. Vtotal/Itotal(n): V[ANT], I[ANT] before step n. The
 * incident Vinc/Iinc: the same line, scl_fdtd_tline_cells long and not
 * joined, over the run (gprMax's). Refused in 2D and for R outside
 * (0, z0), as gprMax 4. The solvers return Vtotal, Itotal in receivers
 * nrx + t (t-th line among the sources; components 0 and 1) when the
 * receivers hold nrx + scl_fdtd_model_tlines rows. */
#define SCL_FDTD_TLINE_SRC 5
#define SCL_FDTD_TLINE_ANT 10
int scl_fdtd_model_tlines(const scl_fdtd_model *m);
/* The line's cell length, sqrt(3) c dt (m). */
double scl_fdtd_tline_dl(const scl_fdtd_model *m);
/* Cells of the line the incident values come from: 0.667 iterations
 * rounded (half down), as gprMax. */
long scl_fdtd_tline_cells(const scl_fdtd_model *m);
/* Vinc, Iinc of source s (a line) at steps 0 .. iterations (the last 0, as
 * gprMax's arrays of iterations + 1). SCL_ERR_ARGUMENT: not a line, or a
 * run too short for the line (scl_fdtd_tline_cells <= SCL_FDTD_TLINE_ANT). */
scl_status scl_fdtd_tline_incident(const scl_fdtd_model *m, int s, double *vinc, double *iinc,
                                   char *err, size_t errlen);

/* Read a gprMax input file (the subset: #title #domain #domain_mode
 * #dx_dy_dz #time_window #time_step_stability_factor #material #material_from_database
 * #add_dispersion_debye/_lorentz/_drude #waveform #hertzian_dipole #magnetic_dipole
 * #voltage_source #transmission_line #rx #rx_array #src_steps #rx_steps #box
 * #sphere #cylinder #plate #edge #triangle #cylindrical_sector #excitation_file #soil_peplinski
 * #fractal_box #add_surface_roughness #add_grass #geometry_objects_read #magnetic_averaging
 * #pml_cells #pml_cfs #geometry_view #snapshot #messages #study), with gprMax 4's 2D rules (a domain
 * one cell thick, or inf with #domain_mode: TM). Any other command is an
 * error naming it and the line. The model is finished, sources and
 * receivers at trace 0 (a study's first case). */
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
/* Back to step 0 for the model's sources and receivers as they are now
 * (after scl_fdtd_model_trace): source and receiver offsets re-uploaded,
 * fields and CPML state zeroed; the kernels, buffers and plan are kept (the
 * traces of a B-scan on one device set-up). The material layout must be
 * the one the solver was created with. */
scl_status scl_fdtd_restart(scl_fdtd *f);
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
 * kernels); 3 by two shell kernels after the fused kernel without the CPML
 * code (H corrected, then E redone with its corrections, one work-item per
 * slab cell of all six faces); 4 the x slabs' CPML inline in a fused kernel
 * with only that code, then the two shell kernels over the y and z slabs
 * only; 5 as 4, the x slabs' walks by that build and the others by the
 * build without CPML code; -1 no CPML. */
int scl_fdtd_cpml_inline(const scl_fdtd *f);
/* What the tuner found for CPML variant cpml (0-5, as above): returns the
 * best step's device seconds (shape: its lx, ly, kz), 0 if none of its
 * shapes ran (why: the error, e.g. a build or launch failure, or the last
 * refusal), -1 if not tried (no fused CPML, tuning off, cpml forced).
 * refused: shapes refused (work-group over the limit); limit: the kernel's
 * work-group limit on the device (CPML build for 1 and 2, the build without
 * the CPML code for 0 and 3, the x-only CPML build for 4 and 5; it falls as
 * registers rise). */
double scl_fdtd_cpml_variant(const scl_fdtd *f, int cpml, int shape[3], int *refused,
                             size_t *limit, const char **why);

/* ------------------------------------------------------------------ sub-domains */

/* Cells [lo, lo + n) along axis (0 x, 1 y, 2 z) of the finished whole model
 * g as a model of its own (see Decomposition above): materials per
 * component from g (averaged edges and halo planes included), g's CPML
 * (cut by the solver), waves, and the sources and receivers it owns (their
 * indices shifted); rx_index[r] (malloc'ed, free it) is receiver r's index
 * in g. Snapshots and geometry views stay with g. Refused: a periodic axis
 * cut. Free with scl_fdtd_model_free. */
scl_status scl_fdtd_model_subdomain(const scl_fdtd_model *g, int axis, int lo, int n,
                                    scl_fdtd_model *sub, int **rx_index, char *err,
                                    size_t errlen);

/* Called by scl_fdtd_run_exchange after the H update of each step (field 1:
 * H planes ready to go, E update next) and after the whole step (field 0:
 * E); it swaps the halo planes with the neighbours (scl_fdtd_halo_read,
 * scl_fdtd_halo_write). A status other than SCL_OK stops the run with it. */
typedef scl_status (*scl_fdtd_exchange_fn)(void *user, scl_fdtd *f, int field);
/* scl_fdtd_run with the two halo exchanges per step (fn NULL: scl_fdtd_run). */
scl_status scl_fdtd_run_exchange(scl_fdtd *f, long steps, scl_fdtd_exchange_fn fn, void *user);
/* The overlapped run's transport: send (in the first half of
 * scl_fdtd_halo_staging) goes to the neighbour, the neighbour's plane into
 * recv (the second half); field 0: E, down (to the lower neighbour, from the
 * upper one), then field 1: H, up; called twice per step on every
 * sub-domain, also where a face has no neighbour (the buffers are then not
 * read or not used). A status other than SCL_OK stops the run. */
typedef scl_status (*scl_fdtd_transport_fn)(void *user, int field, const void *send, void *recv);
/* scl_fdtd_run with each halo swap behind an interior update (the planes
 * packed and read first, the interior queued, fn while it runs, the
 * received plane written before the points that read it): the same fields
 * as scl_fdtd_run_exchange. The E planes of step n travel at the start of
 * step n (before the H update that reads them). */
scl_status scl_fdtd_run_overlap(scl_fdtd *f, long steps, scl_fdtd_transport_fn fn, void *user);
/* The cut axis (-1 for a whole domain) and the bytes of one halo plane of
 * two components in the solver's precision (what read and write move). */
int scl_fdtd_halo_axis(const scl_fdtd *f);
size_t scl_fdtd_halo_bytes(const scl_fdtd *f);
/* Pinned host memory of two halo planes (2 * scl_fdtd_halo_bytes, mapped
 * for the solver's life; NULL for a whole domain): send and receive buffers
 * that the bus reaches at full speed. */
void *scl_fdtd_halo_staging(scl_fdtd *f);
/* The overlapped run's send planes read from the device into host memory
 * of scl_fdtd_halo_bytes each: send[0] E (down), send[1] H (up), e.g. the
 * neighbours' receive areas in a shared memory window (NULL: the pinned
 * staging, as before); the transport's send is then that pointer with the
 * plane in it. The caller keeps it valid and unread by others from the
 * transport's return until the next swap's note. */
scl_status scl_fdtd_set_halo_staging(scl_fdtd *f, void *const send[2]);
/* field 1: H of the last owned plane n - 1 (for the upper neighbour);
 * field 0: E of plane 0 (for the lower neighbour). Blocking. */
scl_status scl_fdtd_halo_read(scl_fdtd *f, int field, void *buf);
/* field 1: into the H halo plane -1; field 0: into the E plane n. */
scl_status scl_fdtd_halo_write(scl_fdtd *f, int field, const void *buf);

/* ------------------------------------------------------------------ outputs */

/* gprMax's output layout: attributes gprMax, Title, Iterations, nx_ny_nz,
 * dx_dy_dz, dt, nsrc, nrx, srcsteps, rxsteps; /srcs/srcN (Type, Position);
 * /rxs/rxN (Name, Position) with datasets Ex Ey Ez Hx Hy Hz; per
 * transmission line /tls/tlN (Position, Resistance, dl) with Vinc, Iinc,
 * Vtotal, Itotal of iterations + 1 (Vtotal, Itotal from the receivers'
 * rows after nrx, zero when rx has none; the merged B-scan leaves them out,
 * as gprMax's merge tool). Written through a
 * temporary file. SCL_ERR_UNSUPPORTED when built without HDF5. */
scl_status scl_fdtd_write_hdf5(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                               long iterations, int fp64, char *err, size_t errlen);
/* A B-scan as gprMax's merge tool writes it: the attributes of the first
 * trace's file plus ntraces and MergedOutput, and per receiver component
 * an (iterations, ntraces) dataset; rx[t] holds trace t. */
scl_status scl_fdtd_write_merged(const char *path, const scl_fdtd_model *m,
                                 const scl_receivers *rx, int ntraces, long iterations, int fp64,
                                 char *err, size_t errlen);
/* Geometry view v of the model (m->gview[v]) as gprMax 4 writes it: VTKHDF
 * ImageData (ParaView, VTK's vtkHDFReader), CellData/Material with gprMax's
 * material numbers (pec 0, pmc 1, free_space 2, then the user's), FieldData
 * material_ids naming them. */
scl_status scl_fdtd_write_geometry_view(const char *path, const scl_fdtd_model *m, int v,
                                        char *err, size_t errlen);
/* Snapshot v of the model from the six fields in the padded layout
 * (scl_fdtd_get / scl_fdtd_host_get order: Ex Ey Ez Hx Hy Hz), float32 cell
 * data Ex..Hz as gprMax 4's .vtkhdf snapshots. */
scl_status scl_fdtd_write_snapshot(const char *path, const scl_fdtd_model *m, int v,
                                   const double *const fields[6], char *err, size_t errlen);
/* A radargram PNG of one component of a B-scan (traces across, time down,
 * symmetric grey scale). */
scl_status scl_fdtd_write_radargram(const char *path, const scl_receivers *rx, int ntraces,
                                    int receiver, int component, long iterations, char *err,
                                    size_t errlen);
/* Receivers as text columns: time Ex Ey Ez Hx Hy Hz per receiver block. */
scl_status scl_fdtd_write_text(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                               long iterations, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
