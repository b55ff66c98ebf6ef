/* Internal definitions of the pair module: coefficient tables, cell grids,
 * special-pair lookup, and the real4 argument helper (tables of arguments
 * are bound by the core: scl_kernel_bind). */
#ifndef SCL_PAIR_INTERNAL_H
#define SCL_PAIR_INTERNAL_H

#include "core/fail.h"
#include "streamcl/charmm.h"

#include <stdint.h>

/* Neighbor index layout: the special kind lives in the two high bits. */
#define CHARMM_KIND_SHIFT 30
#define CHARMM_INDEX_MASK 0x3fffffff
/* Lists are padded to a multiple of this many slots (also the block size of
 * the blocked list layout). */
#define CHARMM_PAD 8
/* Device list build: cells are cutoff/REACH wide, scanned REACH cells out. */
#define CHARMM_CELL_REACH 2
/* Work-items per atom of the device list build and prune on GPUs (LANES in
 * src/pair/list/neighbor.cl; CPUs: 1). */
#define CHARMM_LIST_LANES 8
/* Candidates of a lane per chunk of the list build (HITS there). */
#define CHARMM_BUILD_HITS 16
/* Blocks of 8 slots per atom whose prune marks stay in local memory
 * (KEEP_ROWS there). */
#define CHARMM_PRUNE_ROWS 128
/* Closer than this (Angstrom) two atoms are reported as overlapping: forces
 * there are not physical and (much closer) overflow float arithmetic. Closer
 * pairs than 0.05 A are computed as LAMMPS's CPU style computes them: a
 * minimizer's line search brought bonded atoms of LAMMPS's fourmol test
 * system to 0.045 A (lammps_minimize_* tests); at 0.01 A an LJ force of
 * lj1 ~ 1e7 is ~1e35 in float, below its 3.4e38. */
#define CHARMM_MIN_R 0.01

/* A real4 argument: double4 when dbl, else float4. */
static inline scl_status charmm_set_real4(scl_kernel *k, const char *arg, int dbl,
                                          const double v[4])
{
    if (dbl)
        return scl_kernel_set_value(k, arg, SCL_DOUBLE4, v);
    float f[4] = {(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
    return scl_kernel_set_value(k, arg, SCL_FLOAT4, f);
}

/* Pair coefficients and cutoffs derived from the parameters, as LAMMPS's
 * init_one() computes them. */
typedef struct {
    double lj1, lj2, lj3, lj4;
} charmm_lj;

typedef struct {
    int ntypes;
    charmm_lj *lj; /* ntypes*ntypes */
    double cut_ljsq, cut_lj_innersq, cut_coulsq, cut_forcesq, inv_denom_lj;
    double cut_neigh; /* max(cut_lj, cut_coul) + skin */
    double qqrd2e, g_ewald;
    double special_lj[4], special_coul[4];
} charmm_coeffs;

/* Validate parameters and fill coeffs (lj malloc'd; charmm_coeffs_free).
 * On failure err holds the message. */
scl_status charmm_coeffs_init(const scl_charmm_params *p, charmm_coeffs *c, char *err,
                              size_t errlen);
void charmm_coeffs_free(charmm_coeffs *c);

/* Check per-step atom data: finite coordinates and types in range. */
scl_status charmm_check_atoms(int natoms, const double *x, const int *type, int ntypes,
                              char *err, size_t errlen);
/* Check special-list shape: counts non-decreasing and <= maxspecial. */
scl_status charmm_check_specials(int nlocal, const int *nspecial, const int64_t *special,
                                 int maxspecial, char *err, size_t errlen);

/* The whole input check of scl_charmm_set_atoms_from's arrays (host paths
 * and error messages): finite x, types in range, special counts, tags and
 * special tags >= 0. */
scl_status charmm_check_atom_arrays(const scl_charmm_atoms *a, int ntypes, char *err,
                                    size_t errlen);
/* Element i of a tag array of tag_bytes (4 or 8) wide elements. */
static inline int64_t charmm_tag_at(const void *tags, int tag_bytes, size_t i)
{
    return tag_bytes == 4 ? (int64_t)((const int32_t *)tags)[i] : ((const int64_t *)tags)[i];
}

/* ---- host side of the transfers (charmm_host.c) ---- */

/* A host-mapped (pinned on discrete GPUs) staging buffer, kept mapped:
 * transfers from it neither block nor go through the driver's own staging. */
typedef struct {
    scl_stream *stream;
    void *ptr;
    size_t bytes;
} charmm_stage;
/* At least bytes (grown with headroom, contents not kept). */
scl_status charmm_stage_reserve(scl_context *ctx, charmm_stage *st, size_t bytes, void **ptr);
void charmm_stage_free(charmm_stage *st);

/* One segment of a batch of host copies. */
typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} charmm_copy;
/* Copy the segments (at most 8), in blocks over up to threads OpenMP threads
 * (0: 1), one thread per ~256 KB: small batches stay on the calling thread. */
void charmm_copy_parallel(const charmm_copy *c, int n, int threads);
/* The host threads of the engine's own host work: params.host_threads, or
 * when 0, 1 on CPU devices (the device's threads have the cores) and
 * OpenMP's default (0) elsewhere (copies take 0 as 1). */
int charmm_host_threads(const scl_device_info *dev, int host_threads);
/* Whether the caller's arrays go up straight from its memory (params
 * inputs_stable; stable: the caller promised to keep them unchanged). */
int charmm_direct_upload(const scl_device_info *dev, int inputs_stable);

/* Energy and force of one pair (double, LAMMPS formulas). Returns fpair
 * (force on i is del*fpair); evdwl/ecoul receive the pair energies. */
double charmm_pair_double(const charmm_coeffs *c, double r2, double qi, double qj, int ti,
                          int tj, int kind, double *evdwl, double *ecoul);

/* Special kind (0 normal, 1..3 for 1-2, 1-3, 1-4) of partner tag for atom i. */
static inline int charmm_special_kind(const int *nspecial_i, const int64_t *special_i,
                                      int64_t tag)
{
    if (!nspecial_i)
        return 0;
    for (int k = 0; k < nspecial_i[2]; k++)
        if (special_i[k] == tag)
            return k < nspecial_i[0] ? 1 : k < nspecial_i[1] ? 2 : 3;
    return 0;
}

/* A uniform cell grid over the bounding box of a set of points; atoms are
 * sorted by cell (counting sort) so that cell c holds
 * order[cell_start[c] .. cell_start[c+1]). Cells are at least cell_size wide,
 * so the 27 cells around a point hold every point within cell_size. */
typedef struct {
    double lo[3], width[3];
    int n[3];
    int ncells;
    int *cell_start; /* ncells + 1 */
    int *order;      /* sorted position -> original index */
    int *cell_of;    /* original index -> cell */
} cell_grid;

/* Returns 0, or -1 when out of memory. Coordinates must be finite. */
int cell_grid_build(cell_grid *g, int n, const double *x, double cell_size);
void cell_grid_free(cell_grid *g);
/* The two halves of cell_grid_build for callers that keep their buffers:
 * layout sets lo, width, n and ncells only (no allocation); sort then fills
 * the caller's cell_start (ncells + 1), order (n) and cell_of (n), with fill
 * (ncells ints) as scratch. */
void cell_grid_layout(cell_grid *g, int n, const double *x, double cell_size);
/* The same from the bounding box [lo, hi] of the n points. */
void cell_grid_layout_box(cell_grid *g, int n, const double lo[3], const double hi[3],
                          double cell_size);
void cell_grid_sort(cell_grid *g, int n, const double *x, int *fill);
/* Cell coordinates of a point (clamped into the grid). */
void cell_grid_coords(const cell_grid *g, const double *xp, int c[3]);

#endif
