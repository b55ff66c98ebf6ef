/*
 * streamcl/shake.h — SHAKE bond and angle constraints on an OpenCL device:
 * the constraint forces of LAMMPS's fix shake (its shake, shake3, shake4 and
 * shake3angle), one work-item per cluster, usable without LAMMPS.
 *
 * A cluster is what fix shake builds (its shake_flag): kind 2, 3, 4 = a
 * central atom bonded to 1, 2, 3 others (constraints 0-1, 0-2, 0-3), kind 1
 * = an angle cluster of 3 atoms (constraints 0-1, 0-2, 1-2). Given the
 * positions x at the start of the step and the unconstrained positions
 * xshake the integrator would reach without constraints (LAMMPS:
 * x + dt v + dtfsq/m f), solve computes the Lagrange multipliers so that
 * the constrained positions meet the distances, with fix shake's iteration
 * (exact quadratic for 2 atoms; for 3 and 4 the linearised matrix inverse
 * plus the quadratic terms, iterated until no multiplier changes by more
 * than tolerance or max_iter sweeps), and adds lamda/dtfsq * r to the forces
 * of the cluster's owned atoms. Virial as fix shake's v_tally: each
 * cluster's virial times (owned atoms / cluster atoms).
 *
 *   scl_shake *s;
 *   scl_shake_options o = scl_shake_options_default();
 *   o.tolerance = 1e-4; o.max_iter = 20;
 *   scl_shake_create(ctx, &o, &s);
 *   on re-neighbor steps: scl_shake_set_clusters(s, n, clusters);
 *   every step:           scl_shake_solve(s, &in, f, virial);
 *   scl_shake_free(s);
 *
 * Atom indices are 0-based positions in the caller's x / xshake arrays
 * (LAMMPS: local index, owned or ghost, as atom->map gives it); atoms at
 * index >= nlocal receive no force. Periodic distances use the minimum
 * image of LAMMPS's Domain (the loop for x, one shift for xshake), also for
 * triclinic boxes.
 *
 * Precision: the per-cluster solve is in double in every mode (it is a few
 * hundred flops per cluster; float would miss LAMMPS's tolerance semantics),
 * with LAMMPS's operation order and no contraction: a CPU device reproduces
 * fix shake bit for bit, a GPU to rounding. SCL_PREC_MIXED (default) and
 * SCL_PREC_DOUBLE are the same today; SCL_PREC_SINGLE is refused. The device
 * needs fp64.
 *
 * Errors (scl_last_error names the call and the cluster): a singular
 * constraint matrix (LAMMPS: "Shake determinant = 0.0") or non-finite forces
 * are SCL_ERR_INPUT; a negative determinant of a 2-atom cluster is no error
 * (LAMMPS warns and uses 0): scl_shake_stats counts them.
 */
#ifndef STREAMCL_SHAKE_H
#define STREAMCL_SHAKE_H

#include "streamcl.h"
#include "streamcl/charmm.h" /* scl_precision */

#ifdef __cplusplus
extern "C" {
#endif

enum { SCL_SHAKE_ANGLE = 1, SCL_SHAKE_BOND2 = 2, SCL_SHAKE_BOND3 = 3, SCL_SHAKE_BOND4 = 4 };

typedef struct {
    scl_precision precision;  /* MIXED (default) or DOUBLE: the solve is in double */
    double tolerance;         /* LAMMPS fix shake tol (default 1e-4) */
    int max_iter;             /* LAMMPS fix shake iter (default 20) */
    int work_group;           /* 0: 64 (a power of two, <= 256) */
} scl_shake_options;

scl_shake_options scl_shake_options_default(void);

typedef struct {
    int kind;           /* SCL_SHAKE_ANGLE or SCL_SHAKE_BOND2..4 (LAMMPS shake_flag) */
    int atom[4];        /* central atom first (LAMMPS shake_atom order); unused: -1 */
    double dist[3];     /* constraint lengths: 0-1, 0-2, 0-3 (angle: 0-1, 0-2, 1-2) */
    double mass[4];     /* mass of each atom (unused: 0); the solve uses 1/mass as
                         * fix shake does, the unconstrained update dtfsq/mass */
} scl_shake_cluster;

typedef struct {
    int periodic[3];          /* 1 where the box is periodic */
    int triclinic;            /* 0: orthogonal (xy, xz, yz unused) */
    double prd[3];            /* box lengths (LAMMPS xprd, yprd, zprd) */
    double xy, xz, yz;        /* tilt factors */
} scl_shake_box;

/* One step's input. x and xshake hold natoms * 3 doubles (atoms as indexed
 * by the clusters, owned first: nlocal of them). */
typedef struct {
    int natoms, nlocal;
    const double *x, *xshake;
    double dtfsq;             /* LAMMPS dtfsq: dt^2 ftm2v (0.5 dt^2 ftm2v at setup) */
    scl_shake_box box;
} scl_shake_input;

typedef struct scl_shake scl_shake;

scl_status scl_shake_create(scl_context *ctx, const scl_shake_options *opt, scl_shake **out);
void scl_shake_free(scl_shake *s);

/* Replace the cluster list (LAMMPS: after each re-neighboring). Checked:
 * kinds, atom indices >= 0 for the kind's atoms, lengths and masses finite
 * and positive (SCL_ERR_ARGUMENT naming the first bad cluster). The
 * device keeps them sorted by kind (fewer divergent branches on GPUs). */
scl_status scl_shake_set_clusters(scl_shake *s, int n, const scl_shake_cluster *clusters);
int scl_shake_cluster_count(const scl_shake *s);

/* Solve every cluster and add the constraint forces to f (natoms * 3, only
 * the owned atoms of each cluster change). virial: NULL for none, else
 * virial[0..5] (xx yy zz xy xz yz) += the clusters' virial. Cluster atom
 * indices must be < in->natoms (SCL_ERR_ARGUMENT). Blocks until done. */
scl_status scl_shake_solve(scl_shake *s, const scl_shake_input *in, double *f, double virial[6]);

/* scl_shake_solve with x already on the device: x_dev, a stream of doubles
 * on s's context whose first 3 * in->natoms elements are x in the clusters'
 * numbering (e.g. scl_charmm_last_positions of the pair engine, this step's
 * x of all owned and ghost atoms), copied on the device instead of uploaded
 * (in->x is not used). xshake still goes up, f comes down as there. The
 * same results bit for bit. SCL_ERR_ARGUMENT for a stream of another
 * context or type, or too short. */
scl_status scl_shake_solve_device_x(scl_shake *s, const scl_shake_input *in,
                                    const scl_stream *x_dev, double *f, double virial[6]);

/* Device-resident form: x, xshake and f are the caller's device streams of
 * SCL_DOUBLE, natoms * 3 each (in->x, in->xshake and in->natoms are not
 * used: natoms is the streams' size / 3). The forces are added into f on the
 * device; nothing crosses to the host except, with virial, six sums per
 * work-group (and a flag word). f may be NULL: then the increments stay in
 * the object's per-cluster buffer only. */
scl_status scl_shake_solve_streams(scl_shake *s, const scl_shake_input *in, scl_stream *x,
                                   scl_stream *xshake, scl_stream *f, double virial[6]);

/* Device-resident form of LAMMPS's unconstrained update: xshake = x + dtv v
 * + dtfsq/m f for the owned (index < nlocal) atoms of the clusters, on the
 * device (streams of double, natoms * 3; other atoms' xshake untouched).
 * Queued: returns at once (a later solve on the same context runs after it). */
scl_status scl_shake_unconstrained_streams(scl_shake *s, int nlocal, scl_stream *x,
                                           scl_stream *v, scl_stream *f, double dtv,
                                           double dtfsq, scl_stream *xshake);

/* Inside another module's force rows, one rank (LAMMPS: in the pair
 * style's force hook, before the step's one force download): x is a device
 * stream of double (3 per atom, e.g. scl_charmm_last_positions), rows the
 * step's force rows (4 values of rows_type a row, SCL_FLOAT or SCL_DOUBLE,
 * owned atoms first: the pair's forces with the bonded and kspace ones
 * added), v the host velocities (uploaded: 3 doubles a row up to the
 * clusters' largest atom) or v_dev those on the device. Each owned atom's total force is its row plus
 * the extra rows scl_shake_set_extra_rows gave it (forces on its ghost
 * images, which LAMMPS's reverse communication would add); from it xshake
 * = x + dtv v + dtfsq/m f on the device, then the solve, and the constraint
 * forces added into the owned atoms' rows (rounded to float for float
 * rows). Every cluster atom must be owned (index < in->nlocal:
 * SCL_ERR_ARGUMENT otherwise). in->natoms, x and xshake are not used.
 * virial as scl_shake_solve. Waits for the solve (its flags); the forces
 * are added by work queued behind it. */
typedef struct {
    const scl_stream *x;
    scl_stream *rows;
    scl_type rows_type;
    const double *v;
    double dtv;
    /* the velocities already on the device (x, v resident, e.g.
     * scl_integrate_velocities: doubles, 3 a row, at least to the clusters'
     * largest atom), copied there instead of v's upload; NULL: upload v */
    const scl_stream *v_dev;
} scl_shake_rows;
scl_status scl_shake_solve_rows(scl_shake *s, const scl_shake_input *in, const scl_shake_rows *r,
                                double virial[6]);
/* Build now the kernels solve_rows uses for rows of rows_type (SCL_FLOAT or
 * SCL_DOUBLE), which its first call would otherwise build: at set-up, so
 * that no time step compiles a program. Once per type. */
scl_status scl_shake_prepare_rows(scl_shake *s, scl_type rows_type);
/* The extra rows of scl_shake_solve_rows: owned atom i's are rows[start[i]
 * .. start[i+1]) (each >= nlocal), start has nlocal + 1 offsets from 0.
 * start NULL: none. Kept (on the device) until set again. */
scl_status scl_shake_set_extra_rows(scl_shake *s, int nlocal, const int *start, const int *rows);

typedef struct {
    long solves;              /* solve calls */
    long negative_determinants; /* 2-atom clusters with b^2 - 4ac < 0 (LAMMPS warns), total */
    int last_negative;        /* the same in the last solve */
    double t_upload, t_solve, t_download;   /* device seconds (profiling contexts) */
} scl_shake_stats;
void scl_shake_stats_get(const scl_shake *s, scl_shake_stats *st);
void scl_shake_stats_reset(scl_shake *s);

/* ---- plain C reference (double), the test oracle ----
 * Same contract as scl_shake_solve, over clusters in the order given.
 * Returns 0, or 1 + the index of the first cluster whose matrix is singular
 * or whose forces are not finite. *negative (may be NULL) counts negative
 * 2-atom determinants. */
int scl_shake_reference(const scl_shake_options *opt, int n, const scl_shake_cluster *clusters,
                        const scl_shake_input *in, double *f, double virial[6], int *negative);

#ifdef __cplusplus
}
#endif
#endif
