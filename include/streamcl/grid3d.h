/*
 * streamcl grid3d — the 3D staggered-grid pieces shared by the FDTD solvers
 * (Maxwell, fdtd.h; elastic waves, seismic.h). Host-only: no OpenCL here.
 *
 *   scl_grid3d        cell counts, spacing, halo planes, padded indexing of a
 *                     (sub-)domain, and how a global grid splits into parts
 *   scl_cpml_axis     CPML profile coefficients along one axis (Roden & Gedney
 *                     2000; the CFS grading of sigma, kappa, alpha; b and c per
 *                     integer node and per half node)
 *   scl_wavelet       source wavelets as gprMax defines them (gaussian, its
 *                     derivatives, ricker, sine, contsine)
 *   scl_receivers     time series of point receivers (n receivers x components x steps)
 *   scl_png_slice     a 2D plane of a field as a PNG (libpng), colour mapped
 *   scl_linereader    a run-file reader that knows file and line for messages
 *   scl_outfile       (streamcl.h) output under a temporary name, renamed when complete
 *                     and removed on failure
 * A progress line is the command's business (the library never prints): the
 * streamcl command has cli_progress_* in src/cli/commands.h.
 *
 * Grid convention (both solvers): a domain of nx*ny*nz cells of size
 * dx*dy*dz has nx+1 integer nodes x_i = i*dx (i = 0..nx) and nx half nodes
 * (i+1/2)*dx along x, likewise y and z. Every field array holds
 * (nx+1)(ny+1)(nz+1) points (a half-node field leaves its last plane unused)
 * plus `halo` planes on each side of each axis, x fastest; rows are padded to
 * a multiple of `align` elements so that every row starts aligned.
 *
 * Decomposition: a global grid is cut into px*py*pz boxes of whole cells
 * (scl_grid3d_subdomain). Part (a,b,c) owns cells [ox, ox+nx) along x; its
 * node plane ox+nx is shared with the next part, which owns it; halo planes
 * hold the neighbours' values and are exchanged after each half step (H
 * planes after the H update, E planes after the E update). CPML profiles are
 * built once for the global axis and read at global index ox + i.
 *
 * Errors: functions fill err/errlen ("what: why", or "PATH:LINE: why" for run
 * files) and return an scl_status; nothing prints, nothing exits.
 */
#ifndef STREAMCL_GRID3D_H
#define STREAMCL_GRID3D_H

#include "streamcl.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ grid */

typedef struct {
    int nx, ny, nz;          /* cells of this (sub-)domain */
    double dx, dy, dz;       /* cell size (m) */
    int halo;                /* halo planes on each side of each axis */
    int ox, oy, oz;          /* global index of this domain's node 0 */
    int gnx, gny, gnz;       /* cells of the global domain (== n* when not split) */
    /* padded storage: px*py*pz points, index (i,j,k) at
     * (i+halo) + px*((j+halo) + py*(k+halo)); i in [-halo, nx+halo] */
    long px, py, pz;
} scl_grid3d;

/* A whole domain: nx, ny, nz >= 1 cells, positive finite spacings, halo >= 0,
 * rows padded to a multiple of align elements (align >= 1). SCL_ERR_INPUT
 * with a message for anything else, SCL_ERR_TOO_LARGE when the point count
 * does not fit a 32-bit index (kernels index with int). */
scl_status scl_grid3d_init(scl_grid3d *g, int nx, int ny, int nz, double dx, double dy,
                           double dz, int halo, int align, char *err, size_t errlen);

/* Part coords[3] of a global grid cut into parts[3] boxes along the axes (as
 * even as possible: the first n%p parts get one cell more). */
scl_status scl_grid3d_subdomain(const scl_grid3d *global, const int parts[3],
                                const int coords[3], int halo, int align, scl_grid3d *sub,
                                char *err, size_t errlen);

/* Padded point count (elements of one field array). */
static inline long scl_grid3d_points(const scl_grid3d *g) { return g->px * g->py * g->pz; }

/* Offset of point (i,j,k) (local indices, -halo allowed) in a field array. */
static inline long scl_grid3d_index(const scl_grid3d *g, int i, int j, int k)
{
    return (long)(i + g->halo) + g->px * ((long)(j + g->halo) + g->py * (long)(k + g->halo));
}

/* Nearest node of a position (m, global coordinates) the way gprMax rounds
 * (round half down of x/dx), as a local index. SCL_ERR_INPUT, naming what,
 * when the node lies outside [0, n] of this domain or the position is not finite. */
scl_status scl_grid3d_locate(const scl_grid3d *g, const char *what, double x, double y,
                             double z, int ijk[3], char *err, size_t errlen);
/* gprMax's round_value: round half down (2.5 -> 2, -2.5 -> -3). */
long scl_round_half_down(double v);

/* Plane of a padded field: axis 0/1/2 (x/y/z) at local node index `index`,
 * into out (row-major, the other two axes in order: for axis 2, w = nx+1
 * points of x by h = ny+1 rows of y; for axis 1, x by z; for axis 0, y by z).
 * Returns the point count or -1 for a bad axis/index. */
long scl_grid3d_slice_float(const scl_grid3d *g, const float *field, int axis, int index,
                            float *out, int *w, int *h);
long scl_grid3d_slice_double(const scl_grid3d *g, const double *field, int axis, int index,
                             float *out, int *w, int *h);

/* ------------------------------------------------------------------ CPML */

/* Grading along a depth rho in [0, L] into a CPML of thickness L (rho = 0 at
 * its inner face, rho = L at the outer wall), Roden & Gedney's CFS form:
 *   d(rho)     = d_max * (rho/L)^order          damping rate (1/s)
 *   kappa(rho) = 1 + (kappa_max - 1)(rho/L)^order
 *   alpha(rho) = alpha_max * (1 - rho/L)         CFS frequency shift (1/s)
 * For Maxwell, d = sigma/eps0 and alpha = alpha_sigma/eps0. */
typedef struct {
    int order;          /* polynomial grading order m (gprMax default 4; 2-4 usual) */
    double d_max;       /* peak damping rate (1/s), see scl_cpml_em_dmax / _seismic_dmax */
    double kappa_max;   /* >= 1 (1: no stretching) */
    double alpha_max;   /* >= 0 (1/s) */
} scl_cpml_grading;

/* Peak damping for Maxwell: sigma_opt = (m+1) / (150 pi d sqrt(eps_r mu_r)) S/m
 * (Taflove & Hagness 7.67; gprMax's 0.8 (m+1)/(z0 d sqrt(er mr)) is 0.07%
 * larger, and fdtd uses gprMax's own CPML form), returned as sigma/eps0. */
double scl_cpml_em_dmax(int order, double d, double eps_r, double mu_r);
/* Peak damping for elastic waves (Collino & Tsogka): -(m+1) vp ln(R) / (2 L). */
double scl_cpml_seismic_dmax(int order, double vp, double thickness, double reflection);

/* Coefficients along one axis of n cells, spacing d, time step dt, with lo
 * and hi CPML cells at the two ends (0 = no CPML there, e.g. a free surface).
 * Arrays of n+1 entries each:
 *   *_node[i]  at x = i*d        (derivatives of half-node fields there)
 *   *_half[i]  at x = (i+1/2)*d  (derivatives of node fields; entry n unused)
 * kinv = 1/kappa, b = exp(-(d/kappa + alpha) dt), c = d (b-1) / (kappa (d + kappa alpha));
 * the recursive convolution is psi <- b psi + c dF/dx and the update uses
 * kinv dF/dx + psi. Outside the CPML kinv = 1, b = c = 0. */
typedef struct {
    int n, lo, hi;
    double *kinv_node, *b_node, *c_node;
    double *kinv_half, *b_half, *c_half;
} scl_cpml_axis;

scl_status scl_cpml_axis_build(scl_cpml_axis *a, int n, double d, double dt, int lo, int hi,
                               const scl_cpml_grading *gr, char *err, size_t errlen);
void scl_cpml_axis_free(scl_cpml_axis *a);

/* ------------------------------------------------------------------ wavelets */

typedef enum {
    SCL_WAVE_GAUSSIAN,           /* exp(-zeta tau^2), zeta = 2 pi^2 f^2, tau = t - 1/f */
    SCL_WAVE_GAUSSIANDOT,        /* -2 zeta tau exp(-zeta tau^2) (same zeta, delay) */
    SCL_WAVE_GAUSSIANDOTNORM,    /* gaussiandot * sqrt(e / (2 zeta)): peak 1 */
    SCL_WAVE_GAUSSIANDOTDOT,     /* 2 zeta (2 zeta tau^2 - 1) exp(-zeta tau^2), zeta = pi^2 f^2, tau = t - sqrt(2)/f */
    SCL_WAVE_GAUSSIANDOTDOTNORM, /* gaussiandotdot / (2 zeta) */
    SCL_WAVE_RICKER,             /* -gaussiandotdotnorm: (1 - 2 zeta tau^2) exp(-zeta tau^2) */
    SCL_WAVE_SINE,               /* sin(2 pi f t) for t f <= 1, then 0 */
    SCL_WAVE_CONTSINE,           /* min(0.25 f t, 1) sin(2 pi f t) */
    SCL_WAVE_GAUSSIANPRIME,      /* gprMax's other name of gaussiandot */
    SCL_WAVE_GAUSSIANDOUBLEPRIME,/* gaussiandotdot's formula with the gaussian's zeta and delay */
    SCL_WAVE_GAUSPULSE,          /* exp(-zeta tau^2) cos(2 pi f tau): 50% bandwidth at -6 dB, delayed to -60 dB */
    SCL_WAVE_IMPULSE             /* 1 at the first sample (t < dt: scl_wavelet_impulse), 0 after */
} scl_wavelet_kind;

typedef struct {
    scl_wavelet_kind kind;
    double amp;       /* scale */
    double freq;      /* Hz, > 0 */
    double delay;     /* time of the centre (s); gprMax's default chi when delay_set == 0 */
    int delay_set;
} scl_wavelet;

/* Value at time t (s); an impulse is amp at t == 0 only (use
 * scl_wavelet_sample where the time step is known). */
double scl_wavelet_value(const scl_wavelet *w, double t);
/* Value at time t of a run with time step dt: an impulse is amp for t < dt
 * (gprMax's rule, so a source evaluated half a step late still fires once). */
double scl_wavelet_sample(const scl_wavelet *w, double t, double dt);
/* Kind by gprMax's name ("ricker", "gaussiandot", ...); -1 if unknown. */
int scl_wavelet_kind_from_name(const char *name);
const char *scl_wavelet_kind_name(scl_wavelet_kind kind);
/* The default delay (gprMax's chi): 1/f for the gaussian family, sqrt(2)/f
 * for gaussiandotdot(norm) and ricker, 0 for the sines. */
double scl_wavelet_default_delay(scl_wavelet_kind kind, double freq);

/* ------------------------------------------------------------------ receivers */

#define SCL_RECEIVER_NAME 64

typedef struct {
    int n;            /* receivers */
    int ncomp;        /* components per receiver (e.g. 6: Ex Ey Ez Hx Hy Hz) */
    long nt;          /* samples per component */
    char (*name)[SCL_RECEIVER_NAME];
    int (*ijk)[3];    /* local node of each receiver */
    double (*pos)[3]; /* position as given (m) */
    double *data;     /* [rx][comp][step] */
} scl_receivers;

scl_status scl_receivers_create(scl_receivers *r, int n, int ncomp, long nt, char *err,
                                size_t errlen);
void scl_receivers_free(scl_receivers *r);
static inline double *scl_receivers_series(const scl_receivers *r, int rx, int comp)
{
    return r->data + ((long)rx * r->ncomp + comp) * r->nt;
}

/* ------------------------------------------------------------------ PNG slices */

/* Write a w x h plane (row 0 at the top) as an 8-bit RGB PNG through a
 * temporary file. Signed fields (symmetric = 1) use a blue-white-red map over
 * [-scale, scale]; otherwise a viridis-like map over [0, scale] (values beyond
 * saturate). scale <= 0: the plane's 99th percentile of |value| (so that a
 * source point's near field does not wash out the picture). Non-finite values are drawn black. Small planes
 * are drawn with square blocks of f x f pixels (f up to 16) so that the short
 * side has at least 384 pixels.
 * SCL_ERR_UNSUPPORTED when built without libpng. */
scl_status scl_png_slice(const char *path, const float *plane, int w, int h, double scale,
                         int symmetric, char *err, size_t errlen);
/* (RGB bytes: scl_png_write_rgb in streamcl.h, the core's writer.) */

/* ------------------------------------------------------------------ run files */

typedef struct {
    FILE *f;
    char path[1024];
    long line;        /* number of the line last returned (1-based) */
    char *buf;
    size_t cap;
} scl_linereader;

scl_status scl_linereader_open(scl_linereader *r, const char *path, char *err, size_t errlen);
/* Next line without its newline (and without a trailing '\r'). Returns 1 with
 * *line set, 0 at end of file, -1 on a read error (message in err). */
int scl_linereader_next(scl_linereader *r, char **line, char *err, size_t errlen);
void scl_linereader_close(scl_linereader *r);
/* "PATH:LINE: message" into err; returns SCL_ERR_INPUT for chaining. */
scl_status scl_linereader_fail(const scl_linereader *r, char *err, size_t errlen,
                               const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Split line in place at blanks (spaces, tabs): up to max tokens into tok;
 * returns the number found (more than max: max + 1). */
int scl_split_tokens(char *line, char **tok, int max);
/* Strict number parsing: the whole token, finite. 0 on success, -1 if not. */
int scl_parse_real(const char *tok, double *out);
int scl_parse_int(const char *tok, long *out);

/* Output files: scl_outfile and scl_output_path_check are in streamcl.h (the
 * core: every writer of every module uses them). */

#ifdef __cplusplus
}
#endif
#endif
