/* What the OpenCL driver and the C reference share: the padded layout, the
 * staggered material arrays, CPML profiles, the source injection table and
 * receiver nodes. Both sides run the same scheme from these tables, so they
 * differ only in rounding. */
#ifndef STREAMCL_SEISMIC_INTERNAL_H
#define STREAMCL_SEISMIC_INTERNAL_H

#include "streamcl/seismic.h"

#include <stddef.h>

enum { F_VX, F_VY, F_VZ, F_SXX, F_SYY, F_SZZ, F_SXY, F_SXZ, F_SYZ, F_COUNT };

/* Padded grid: every array has SCL_SEIS_HALO zero planes around nx*ny*nz
 * cells; a view of the grid3d grid whose integer nodes are the cells. Rows
 * (px) are padded to a multiple of SEIS_ALIGN elements (128 B in fp32), so
 * that a GPU work-group's row is whole cache lines rather than straddling
 * one more. */
#define SEIS_ALIGN 32

/* Set-up loops over more points than this run on OpenMP threads (a 512^3
 * model's tables take seconds on one core); smaller ones stay serial. */
#define SEIS_PAR_MIN (1L << 22)
typedef struct {
    scl_grid3d grid;
    int nx, ny, nz;
    long px, py, pz;   /* padded sizes */
    long sy, sz;       /* strides of j and k */
    long n;            /* padded cells */
    long origin;       /* index of cell (0,0,0) */
} seis_layout;

scl_status seis_layout_init(seis_layout *g, int nx, int ny, int nz, double h, char *err,
                            size_t errlen);
static inline long seis_index(const seis_layout *g, int i, int j, int k)
{
    return g->origin + i + j * g->sy + k * g->sz;
}

/* The most z planes one launch of the update kernels may cover, so that
 * the indices within it (cl/seismic.cl: origin + i + j sy + (k - zb) sz
 * from the launch's 64-bit base at plane zb; stencils and surface images
 * reach a few planes beyond, work-items past the box a work-group's rows)
 * stay below 2^31; 0 when one plane's section alone is too large. */
static inline int seis_launch_planes(const seis_layout *g)
{
    const long room = (2147483647L - 2048L * g->px) / g->sz - 8;
    return room < 1 ? 0 : room > 2147483647L ? 2147483647 : (int)room;
}

/* CPML profiles of one direction (n cells): at centres (_c) and at half
 * nodes i+1/2 (_h); a = 0, b = 1, ik = 1 outside the layer. slot[i] is the
 * cell's index in the direction's memory-variable slab (-1 outside). */
typedef struct {
    int n, width;      /* cells, slab width 2*pml (0: no layer) */
    double *a_c, *b_c, *ik_c, *a_h, *b_h, *ik_h;
    int *slot;
} seis_cpml_dir;

/* One injection: field[index] += coeff * wavelet[source][step]. */
typedef struct {
    int field;
    long index;        /* padded */
    int source;
    double coeff;
} seis_injection;

typedef struct {
    seis_layout g;
    int order;
    double c1, c2;     /* stencil weights over h */
    double dt;
    long steps;
    int free_surface, pml;
    /* padded material arrays (edges replicated into the halo) */
    double *rho, *lam, *mu;
    seis_cpml_dir dir[3];
    /* wavelet[s*steps + n]: force sources at t = n dt, moment sources at (n+1/2) dt */
    double *wavelet;
    int nsources;
    seis_injection *inj;
    int ninj;
    long *rec_index;   /* padded index of each receiver's cell */
    int nrec;
    /* a slab of a whole model (scl_seis_slab): cut axis (-1: the whole
     * model), the whole model's index of local cell 0 and its cells */
    int cut, off[3], gn[3];
} seis_setup;

/* Build every table from a checked model and config. */
scl_status seis_setup_create(const scl_seis_model *m, const scl_seis_config *c, seis_setup *s,
                             char *err, size_t errlen);
/* The same for a slab (NULL: the whole model m): m is its window. */
scl_status seis_setup_slab(const scl_seis_model *m, const scl_seis_config *c,
                           const scl_seis_slab *slab, seis_setup *s, char *err, size_t errlen);
void seis_setup_free(seis_setup *s);

/* Slab sizes of the memory variables of direction d (6 variables each). */
long seis_cpml_slab(const seis_setup *s, int d);

/* Fields in padded layout → natural order (doubles). */
void seis_unpad_float(const seis_layout *g, const float *in, double *out);
void seis_unpad_double(const seis_layout *g, const double *in, double *out);

#endif
