/*
 * lj/charmm/coul/long pair engine: the physics of LAMMPS's pair style of that
 * name (CHARMM-switched Lennard-Jones + real-space Ewald/PPPM Coulomb),
 * computed by OpenCL kernels, usable without LAMMPS.
 *
 * Atoms are given as LAMMPS holds them: nlocal owned atoms followed by nghost
 * ghost atoms (periodic images / other ranks' atoms). Forces are computed for
 * the local atoms from full neighbor lists (every pair appears for both
 * atoms), so ghosts receive no force and newton pair does not matter.
 *
 * Per step:
 *   on steps where the atom set changed (LAMMPS re-neighboring):
 *       scl_charmm_set_atoms()   -> bins, builds the neighbor list on the device
 *       (or scl_charmm_set_atoms_from: the same from LAMMPS's arrays as they are)
 *   every step:
 *       scl_charmm_compute()     -> uploads x,q (from pinned staging, or as they
 *                                   are: params.inputs_stable),
 *                                   enqueues the packing (device, fp64 devices;
 *                                   else host), force kernels and read-back;
 *                                   returns at once
 *       ... host does other work (bonds, kspace) ...
 *       scl_charmm_finish()      -> waits, adds forces, reduces energy/virial in double
 *
 * Units are the caller's (LAMMPS real units: kcal/mol, Angstrom, e).
 * Types are 0-based in scl_charmm_set_atoms (LAMMPS type t is t-1);
 * scl_charmm_set_atoms_from takes LAMMPS's arrays as they are.
 *
 * Errors: atoms closer than 0.01 Angstrom are reported by finish as
 * SCL_ERR_INPUT ("atoms i and j overlap"), as are non-finite coordinates or
 * charges (set_atoms; for compute's x and q by finish where the device packs
 * them, fp64 devices, naming the smallest such atom index, else by compute),
 * types out of range (set_atoms), and (single, mixed) an atom passed to
 * compute more than one list cutoff outside the bounding box of the atoms of
 * the last set_atoms (at least that: the fixed-point range is a power of
 * two; the list would be stale anyway), reported like non-finite input.
 *
 * Changes since the first contract: the params fields neighbor_capacity,
 * max_device_bytes (0 = automatic), mixed_tally_double, inner_skin (0 =
 * automatic), host_pack, host_threads and inputs_stable, all set by
 * scl_charmm_params_default (additive); scl_charmm_set_atoms_from (the
 * caller's arrays as they are: 32-bit tags, 1-based types) beside
 * scl_charmm_set_atoms;
 * mixed_tally_double now defaults to 0 (tallying steps use the float pair
 * math of force-only steps), and double precision no longer refuses forces
 * beyond 2^30.
 */
#ifndef STREAMCL_CHARMM_H
#define STREAMCL_CHARMM_H

#include "streamcl.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Measured against the double reference (tests/pair, PoCL and the H200): RMS
 * relative force error ~7e-7 single, ~4-5e-7 mixed (rhodopsin 32k and 256k:
 * 4.1e-7, 5.3e-7 on the H200), ~1e-10 double; energies/virial ~1e-8 of the sum
 * of |pair energies| in single and mixed (bound tested: 1e-6), ~1e-14 in
 * double and in mixed with mixed_tally_double.
 * Single and mixed pack positions as 32-bit fixed point relative to an
 * origin in the box (steps of ~3e-8 A for a 100 A box): pair distances are
 * exact integer differences rounded once to float, and the cutoff tests are
 * exact on them. */
/* The precision of the engine is the library's scl_precision (streamcl.h);
 * here it means:
 *   SCL_PREC_SINGLE  float math, float accumulation
 *   SCL_PREC_MIXED   float pair math, double accumulation (float without fp64)
 *                    of forces, energies and virial alike (per pair, or of
 *                    float partial sums over 8 pairs where the tuner finds
 *                    that faster: plan value fsum): a step that tallies costs
 *                    about what a force-only step does (see
 *                    mixed_tally_double for double pair math on those steps)
 *   SCL_PREC_DOUBLE  double math (device needs fp64); sums as integers (whole
 *                    part + fraction in 2^-32 units, 64 bits each): bitwise
 *                    identical for any launch plan, no practical range limit */

typedef struct {
    int ntypes;             /* number of atom types, >= 1 */
    /* ntypes*ntypes row-major, symmetric, already mixed: lj epsilon and sigma
     * of the pair (i,j). An entry with epsilon 0 and sigma 0 means "no LJ". */
    const double *epsilon;
    const double *sigma;
    double cut_lj_inner;    /* r_in: start of the CHARMM switch */
    double cut_lj;          /* r_c: LJ cutoff (> r_in) */
    double cut_coul;        /* Coulomb cutoff (LAMMPS: defaults to cut_lj) */
    double qqrd2e;          /* Coulomb conversion (LAMMPS force->qqrd2e) */
    double g_ewald;         /* Ewald splitting parameter from the kspace solver */
    double special_lj[4];   /* [0] = 1 (non-bonded), [1..3] for 1-2, 1-3, 1-4 */
    double special_coul[4];
    double skin;            /* neighbor skin added to max(cut_lj, cut_coul) */
    scl_precision precision;
    /* Launch parameters; 0 = let the tuner choose (or defaults when tune = 0). */
    int threads_per_atom;   /* 0 (tuned), or 1, 2, 4, 8, 16 or 32: scl_charmm_tpa_valid */
    int chunks;             /* number of atom chunks per step, >= 1 */
    int work_group;         /* work-group size */
    int tune;               /* 1: time candidates on the first step, cache the plan */
    /* Limits; 0 = automatic. Lists grow past neighbor_capacity on overflow. */
    int neighbor_capacity;  /* initial slots per atom (default: estimated from density) */
    size_t max_device_bytes; /* device memory the engine may use (default: 3/4 of it) */
    /* Mixed precision only: steps that tally energy/virial do their pair math in
     * float like force-only steps (0, default: energies/virial ~1e-8 of the sum
     * of |pair energies|) or in double on the exact positions (1: ~1e-12, at
     * the cost of double pair math on those steps, every step under a
     * barostat). */
    int mixed_tally_double;
    /* Dynamic pruning: the force kernels run over an inner list of the pairs
     * closer than the cutoff + inner_skin, derived on the device from the
     * full list (cutoff + skin) and redone whenever an atom has moved more
     * than inner_skin/2 since (checked on the host every step). Forces do
     * not change: pairs outside the inner list are beyond the cutoff. 0 =
     * automatic (skin/4), < 0 = off. Off also when both lists do not fit the
     * device memory at once. */
    double inner_skin;
    /* 1: pack positions on the host even where the device could (tests and
     * comparisons; the device packs on fp64 devices by default). */
    int host_pack;
    /* The force kernel kind: NULL or "" = the tuner's choice on this device
     * (each kind that runs here is planned, the fastest kept); "charmm" (lanes
     * per atom over full lists, for GPUs), "cpu" (a block of atoms per
     * work-item, 8 neighbors per SIMD vector, for CPU cores) or "cluster"
     * (cluster-pair lists of 8 x 8 atoms built on the device, for GPUs;
     * fp64 devices). */
    const char *kernel;
    /* "cpu" kind: 1 = full lists, 2 = half lists (each pair once, blocks
     * coloured so that no two of one launch write the same atom), 0 = tuned. */
    int lists;
    /* Work-items per local atom of the device list build and prune: 1, 2, 4
     * or 8; 0 = automatic (8 on GPUs, 1 on CPUs). It changes the order of
     * the pairs in the lists (and so float rounding in the sums), nothing
     * else. */
    int list_lanes;
    /* Host threads of the engine's own host work: adding the forces (finish;
     * 0 = 1 on CPU devices, whose own threads run the kernels on the same
     * cores, and OpenMP's default elsewhere; one thread per 8192 atoms at
     * most) and copies of the caller's arrays into pinned staging (0 = 1: on
     * an H200's host 8 and 16 threads copied slower than one; one thread per
     * 256 KB at most). Ranks sharing a node pass their share of its cores
     * (the library reads no environment). */
    int host_threads;
    /* The x and q given to scl_charmm_compute:
     *   0 (default): the caller may change them once compute returns; they
     *     are copied into pinned staging inside compute;
     *   1: the caller keeps them unchanged until scl_charmm_finish returns
     *     (LAMMPS does, between pair compute and pre_reverse): they go up
     *     straight from the caller's memory, no copy (on an H200 the
     *     driver's non-blocking write from pageable memory cost the calling
     *     thread less than the copy: 0.11 vs 0.26 ms a step at 75k atoms);
     *   2: the same as 1 (an earlier "even on GPUs").
     * set_atoms's arrays (which the caller keeps anyway) go up by the same
     * rule. */
    int inputs_stable;
} scl_charmm_params;

/* Default parameters: mixed precision, tuning on, special factors all 1. */
void scl_charmm_params_default(scl_charmm_params *p);
/* 1 when threads_per_atom may be tpa (front ends check their keyword with
 * it: the engine's list of legal values is the one list), else 0. */
int scl_charmm_tpa_valid(int tpa);

typedef struct scl_charmm scl_charmm;

/* Create an engine on ctx. Validates parameters (r_in < r_c, finite positive
 * cutoffs, coefficients present and finite, fp64 for SCL_PREC_DOUBLE). */
scl_status scl_charmm_create(scl_context *ctx, const scl_charmm_params *p, scl_charmm **out);
void scl_charmm_free(scl_charmm *eng);

/* The atom set changed: store it and rebuild the neighbor list (cutoff
 * max(cut_lj, cut_coul) + skin) on the device. The arrays go up to the
 * device while the call returns early: keep them unchanged until the next
 * scl_charmm_finish returns (LAMMPS's are; a list overflow found then is
 * regrown and the step recomputed before finish returns).
 *   x       3*(nlocal+nghost) positions
 *   type    nlocal+nghost types, 0-based, < ntypes
 *   tag     nlocal+nghost global atom ids (a ghost carries its original's id);
 *           NULL: the index is the id
 *   nspecial 3*nlocal cumulative counts per local atom, as LAMMPS's
 *           atom->nspecial: [n12, n12+n13, n12+n13+n14]   (NULL: no specials)
 *   special nlocal*maxspecial tags of the 1-2, then 1-3, then 1-4 partners
 * A pair (i,j) whose tag[j] is in i's special list gets kind 1, 2 or 3 and the
 * factors special_lj/coul[kind]; kind 0 pairs with factor 0 stay in the list
 * because the Coulomb correction still applies to them. */
scl_status scl_charmm_set_atoms(scl_charmm *eng, int nlocal, int nghost, const double *x,
                                const int *type, const int64_t *tag, const int *nspecial,
                                const int64_t *special, int maxspecial);

/* The atom arrays as the caller holds them, for scl_charmm_set_atoms_from:
 * LAMMPS's own arrays go in as they are (atom->x[0], atom->type,
 * atom->tag, atom->nspecial[0], atom->special[0]); the engine copies them
 * into pinned staging (or uploads them directly, see inputs_stable) and
 * converts types and tags on the device, with no per-atom host loop.
 * Checks: x finite, types in type_base .. type_base + ntypes - 1, special
 * counts cumulative within maxspecial (reported by set_atoms), tags and
 * the special tags within the counts >= 0 (reported by the next
 * scl_charmm_finish, before any force is added: the check runs behind the
 * list build). */
typedef struct {
    int nlocal, nghost;
    const double *x;      /* 3*(nlocal+nghost) positions */
    const int *type;      /* nlocal+nghost types */
    int type_base;        /* the first type: 0, or 1 (LAMMPS) */
    /* Tags and special tags are tag_bytes wide: 4 (int32_t, LAMMPS's tagint
     * in its default smallbig build) or 8 (int64_t, -DLAMMPS_BIGBIG). */
    int tag_bytes;
    const void *tag;      /* nlocal+nghost global ids (NULL: the index is the id) */
    /* Rows of 3 cumulative counts [n12, n12+n13, n12+n13+n14] per local atom
     * (NULL: no specials), and rows of maxspecial special tags per local atom
     * (LAMMPS: contiguous nmax x maxspecial; only the first nlocal rows and
     * in them the first n12+n13+n14 entries are read). */
    const int *nspecial;
    const void *special;
    int maxspecial;
} scl_charmm_atoms;

/* scl_charmm_set_atoms for arrays described by atoms (same contract: keep
 * them unchanged until the next scl_charmm_finish returns). Bitwise the same
 * lists, forces and energies as scl_charmm_set_atoms with the arrays
 * converted (0-based int types, int64_t tags). */
scl_status scl_charmm_set_atoms_from(scl_charmm *eng, const scl_charmm_atoms *atoms);

/* Half the lengths of the periodic box (0: that dimension is not periodic),
 * for the set_atoms calls that follow. A special partner (by tag) farther
 * than that in some periodic dimension is a periodic image of the bonded
 * atom, not the bonded atom, and interacts in full: LAMMPS's rule
 * (Domain::minimum_image_check in its neighbor build), which matters where
 * the list cutoff exceeds half the box. Without this call every atom with a
 * partner's tag is special. */
scl_status scl_charmm_set_box(scl_charmm *eng, const double half_box[3]);

/* Start a step with new positions and charges of all nlocal+nghost atoms (same
 * order as the last set_atoms). eflag/vflag: compute energies / the global
 * virial this step. eatom/vatom: per-atom energy / 6-component virial. The
 * call returns once the device work is queued. */
scl_status scl_charmm_compute(scl_charmm *eng, const double *x, const double *q, int eflag,
                              int vflag, int eatom, int vatom);

typedef struct {
    double evdwl;      /* LJ energy (0 when eflag was 0) */
    double ecoul;      /* real-space Coulomb energy */
    double virial[6];  /* xx, yy, zz, xy, xz, yz (0 when vflag was 0) */
} scl_charmm_result;

/* Wait for the step started by compute and ADD its forces to f (3*nlocal).
 * eatom_out (nlocal) and vatom_out (6*nlocal) are added to when requested in
 * compute, may be NULL otherwise. result may be NULL. */
scl_status scl_charmm_finish(scl_charmm *eng, double *f, scl_charmm_result *result,
                             double *eatom_out, double *vatom_out);

/* The positions of the pending step on the device, for other modules of
 * the same context to read instead of uploading x again (e.g.
 * scl_bonded_compute_start_device): a stream of doubles whose first
 * 3 * *natoms elements are the x given to scl_charmm_compute, in the
 * caller's order (natoms = nlocal + nghost of the last set_atoms). Work
 * queued on the context's queue after compute and before the next compute
 * reads this step's x. NULL (and *natoms 0) when no step is pending or the
 * engine packs positions on the host (devices without fp64, host_pack). */
const scl_stream *scl_charmm_positions(const scl_charmm *eng, int *natoms);
/* The same stream and layout, pending or finished: x and q of the last
 * compute, until the next set_atoms or compute (for work after the step's
 * finish, e.g. constraints in LAMMPS's post_force, while x is unchanged).
 * NULL (and *natoms 0) when no compute followed the last set_atoms or the
 * engine packs on the host. */
const scl_stream *scl_charmm_last_positions(const scl_charmm *eng, int *natoms);

/* ---- ghost rows from the owned rows on the device (one rank) ----
 * Where every ghost is a periodic image of an owned atom (LAMMPS on one
 * rank), the steps between two set_atoms need only the owned atoms' x: a
 * kernel fills each ghost row as its source row plus its image's box
 * shifts, added one swap at a time in the order LAMMPS's forward_comm adds
 * them (x swaps, then y, then z; a y swap of a triclinic box shifts x by
 * xy, a z swap x by xz and y by yz), so the rows are bitwise the ones the
 * caller's forward communication computes. The first compute after each
 * set_atoms uploads every row as before; q goes up again only when the
 * caller's q changed (compared on the host). Off until enabled again after
 * each set_atoms. Needs device packing (fp64 devices, not host_pack). */
typedef struct {
    double prd[3];     /* box lengths (LAMMPS xprd, yprd, zprd) */
    double xy, xz, yz; /* tilt factors (triclinic only) */
    int triclinic;
} scl_charmm_box;
/* Enable the gather for the atom set of the last set_atoms: src (nghost
 * ints) the owned index (< nlocal) each ghost is an image of (LAMMPS:
 * atom->map of its tag), x the set's positions (as given to set_atoms) and
 * box the box they are in. The images are derived here and checked: every
 * ghost row the kernel would write from x must equal x's to rounding (1e-12
 * of the longest box length: LAMMPS's borders of a triclinic box go through
 * lamda coordinates, its forward_comm, whose arithmetic the kernel repeats,
 * does not), else the gather stays off for this atom set: *usable 0 and
 * SCL_OK (the caller keeps uploading every row). SCL_ERR_UNSUPPORTED where
 * the engine packs on the host. */
scl_status scl_charmm_set_ghost_sources(scl_charmm *eng, const double *x, const int *src,
                                        const scl_charmm_box *box, int *usable);
/* The box of the next compute's positions (LAMMPS: it changes every step
 * under a barostat). Required before each compute while the gather is on. */
scl_status scl_charmm_set_ghost_box(scl_charmm *eng, const scl_charmm_box *box);
/* Steps whose ghost rows the device gathered, since create (reports). */
long scl_charmm_ghost_steps(const scl_charmm *eng);
/* Owned rows already on the device (x resident between steps, e.g.
 * scl_integrate_positions): while set, each gathered compute copies rows
 * [0, nlocal) of x from `x` (a stream of SCL_DOUBLE on the engine's
 * context, 3 per row, the caller's order, at least 3 * nlocal values) on the
 * device instead of uploading the caller's; the caller's x is then not read
 * on those steps (it still must be non-NULL: the first compute after each
 * set_atoms uploads every row from it). NULL: upload again. The same forces
 * bit for bit as with those rows uploaded. SCL_ERR_ARGUMENT for a stream of
 * another type. Checked against nlocal at each compute. */
scl_status scl_charmm_set_position_source(scl_charmm *eng, const scl_stream *x);
/* Copy rows [first, first + count) of the last compute's device x (3
 * doubles a row, the caller's order) into out; blocks (tests: the gathered
 * ghost rows against the caller's). SCL_ERR_ARGUMENT when the engine holds
 * no device x or the range is outside it. */
scl_status scl_charmm_read_positions(scl_charmm *eng, int first, int count, double *out);

/* One force download per step for several modules of one context (LAMMPS:
 * the bonded terms add into the pair's forces). With a hook set, compute
 * does not queue the force read-back: finish calls hook(user, force, type,
 * nlocal, extra_rows) first, which queues work adding into the step's
 * device forces (4 values per row: x, y, z, unused; type SCL_DOUBLE or
 * SCL_FLOAT; rows [0, nlocal) the owned atoms in the caller's order, then
 * extra_rows rows it may write, e.g. forces on ghost atoms) and returns
 * the extra rows it wrote (0 if none, -1 after scl_fail: finish fails),
 * then queues the one read-back of the owned and written extra rows and
 * waits. Called again if finish recomputes the step (the force kernels
 * rewrite the owned rows). A hook set applies from the next compute and
 * stays until replaced; NULL removes it at once, from the step in flight
 * too (whose finish then reads the forces alone). extra_rows takes effect
 * at the next scl_charmm_set_atoms. */
typedef int (*scl_charmm_force_hook)(void *user, scl_stream *force, scl_type type, int nlocal,
                                     int extra_rows);
scl_status scl_charmm_set_force_hook(scl_charmm *eng, scl_charmm_force_hook hook, void *user,
                                     int extra_rows);
/* The step in flight calls (hook, user) in its finish: the extra rows it
 * may write; -1 when no step is in flight or it has another hook. */
int scl_charmm_hook_rows(const scl_charmm *eng, scl_charmm_force_hook hook, const void *user);
/* The type of the force rows the hook is given (SCL_FLOAT or SCL_DOUBLE,
 * fixed by the precision and the device at create): what the other
 * modules build their adding kernels for at set-up (scl_bonded_prepare_rows,
 * scl_pppm_prepare_rows, scl_shake_prepare_rows), so a step compiles nothing. */
scl_type scl_charmm_force_type(const scl_charmm *eng);
/* The extra rows the hook wrote in the last finished step, as read back
 * (4 values of *type per row), until the next compute; NULL (*rows 0)
 * when it wrote none. */
const void *scl_charmm_extra_forces(const scl_charmm *eng, int *rows, scl_type *type);

/* Facts of the last steps, for reports ("Device Time Info"). */
typedef struct {
    long steps, rebuilds;
    long neighbors;            /* pairs in the current list, padding excluded */
    long list_capacity;        /* slots per atom incl. padding (multiple of 8) */
    int threads_per_atom, chunks, work_group; /* the plan in use */
    double t_neighbor, t_upload, t_force, t_download, t_host_reduce; /* seconds, summed */
    long prunes;               /* inner-list prunes (params.inner_skin), summed */
    long inner_neighbors;      /* slots of the inner lists at the last prune, padding included */
    char kernel[16];           /* the force kernel kind in use ("charmm", "cpu") */
    int lists;                 /* "cpu" kind: 1 full, 2 half lists */
    int blocks, colours, launches; /* "cpu" kind: blocks of atoms, colours (half lists), launches per step */
    long cluster_pairs;            /* "cluster" kind: cluster pairs (8 x 8 atoms) of its lists */
    /* host part of set_atoms, summed (binning, binned arrays, upload
     * enqueues; not the list build): wall seconds, and CPU seconds of the
     * calling thread (insensitive to other load on the host) */
    double t_set_atoms_host, t_set_atoms_cpu;
} scl_charmm_stats;
scl_status scl_charmm_stats_get(scl_charmm *eng, scl_charmm_stats *stats);

/* What the "cluster" kind's force launches walk (benchmarks: reads the
 * lists back and counts on the host, no step may be in flight; all 0 with
 * another kind). The lists are those the next launch binds: the inner
 * (pruned) lists once pruned. Pair slots = 64 entries. */
typedef struct {
    long entries;        /* cluster pairs (8 x 8 atoms) of the lists the launches bind */
    long mask_pairs;     /* atom pairs their masks keep */
    long cut_pairs;      /* of those, within the force cutoff at the last positions */
    long warp_steps;     /* steps of 32 work-items (32/tpa i x tpa j atoms) with a kept pair */
    long warp_steps_all; /* all such steps of the entries (2 per entry from tpa 4 up) */
    long launches_inner, launches_full; /* force launches on the inner / unpruned lists */
} scl_charmm_cluster_stats;
scl_status scl_charmm_cluster_stats_get(scl_charmm *eng, scl_charmm_cluster_stats *stats);

/* Build the neighbor list of the atoms of the last set_atoms on the host,
 * brute force, and compare with the device list (tests). *mismatches counts
 * (i, j, kind) entries present in one list but not the other. */
scl_status scl_charmm_check_neighbors(scl_charmm *eng, long *mismatches);

/* ---- several GPUs per node ---- */

/* The GPU a rank uses: node-local rank round robin over the first
 * min(ngpus_wanted, ngpus_present) GPUs of the node (ngpus_wanted 0: all).
 * Returns its position among the GPUs present (0-based), or -1 when there
 * is none or an argument is negative. A pure function (tests). */
int scl_charmm_rank_gpu(int local_rank, int ngpus_wanted, int ngpus_present);
/* The same as a device spec ("PLATFORM:DEVICE") for scl_context_options,
 * from the devices this process sees; *ngpus_used (optional) receives the
 * number of GPUs the ranks are spread over. SCL_ERR_NO_DEVICE when there is
 * no GPU. */
scl_status scl_charmm_rank_device(int local_rank, int ngpus_wanted, char *spec, size_t len,
                                  int *ngpus_used, char *err, size_t errlen);

/* ---- plain C double-precision reference (the test oracle, CPU baseline) ---- */

/* Same inputs and outputs as set_atoms + compute + finish, O(N) cell list,
 * double throughout, OpenMP-parallel over atoms when available. f, eatom and
 * vatom (optional) are ADDED to. */
scl_status scl_charmm_reference(const scl_charmm_params *p, int nlocal, int nghost,
                                const double *x, const double *q, const int *type,
                                const int64_t *tag, const int *nspecial, const int64_t *special,
                                int maxspecial, double *f, scl_charmm_result *result,
                                double *eatom, double *vatom, char *err, size_t errlen);

/* ---- helpers for standalone use (no LAMMPS) ---- */

/* Wrap atoms into the periodic box [lo, hi) and append ghost images of every
 * atom within `cutoff` of a face, LAMMPS-style (the box must be wider than the
 * cutoff). On return *x_all, *type_all, *q_all, *tag_all hold nlocal + *nghost
 * entries (malloc'd; free with free()). The local atoms are the first nlocal,
 * in their order, wrapped. tag NULL: tags are index + 1. */
scl_status scl_periodic_ghosts(const double lo[3], const double hi[3], double cutoff,
                               int nlocal, const double *x, const int *type, const double *q,
                               const int64_t *tag, int *nghost, double **x_all, int **type_all,
                               double **q_all, int64_t **tag_all, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
