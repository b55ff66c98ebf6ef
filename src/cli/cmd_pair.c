/* streamcl pair-bench: the lj/charmm/coul/long engine on a realistic system
 * (a water-like box, or a LAMMPS atom_style full data file), N steps of small
 * random displacements with periodic rebuilds, per-step times of every stage,
 * and the force/energy error against the double reference, whose time on the
 * host's cores is the CPU baseline. */
#include "commands.h"
#include "streamcl/charmm_system.h"
#include "streamcl/charmm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long atoms, steps, rebuild, nx, ny, nz, tpa, chunks, wg;
    double g_ewald, displace, inner_skin;
    const char *data, *device, *precision, *kernel;
    long lists, list_lanes, host_threads, inputs_stable;
    int tune, reference, profile, host_pack, tally, old_api;
} bench_args;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: streamcl pair-bench [options]\n"
            "  --atoms N         water-like box of about N atoms (default 32000)\n"
            "  --data FILE       LAMMPS atom_style full data file instead (e.g. data.rhodo)\n"
            "  --replicate X,Y,Z copies of the system along x, y, z (default 1,1,1)\n"
            "  --steps N         timed steps (default 50)\n"
            "  --rebuild K       rebuild the neighbor list every K steps (default 10)\n"
            "  --precision P     single | mixed | double (default mixed)\n"
            "  --g-ewald G       Ewald splitting parameter (default 0.2709, rhodo's pppm 1e-4)\n"
            "  --displace D      random displacement per step in Angstrom (default 0.002)\n"
            "  --tpa N --chunks N --wg N   fix launch parameters (default: tuned)\n"
            "  --kernel K        force kernel kind: charmm (lanes per atom, GPUs), cpu (blocks\n"
            "                    of atoms, SIMD over neighbors) or cluster (cluster pairs of\n"
            "                    8 x 8 atoms, GPUs) (default: tuned)\n"
            "  --lists N         cpu kind: 1 full lists, 2 half lists (default: tuned)\n"
            "  --list-lanes N    work-items per atom of the list build and prune: 1, 2, 4, 8\n"
            "                    (default: 8 on GPUs, 1 on CPUs)\n"
            "  --no-tune         use defaults/cached plans instead of timing candidates\n"
            "  --no-reference    skip the double reference (error and CPU baseline)\n"
            "  --inner-skin S    dynamic pruning buffer in Angstrom (default skin/4; -1: off)\n"
            "  --profile         print the per-kernel/transfer device time table\n"
            "  --tally           every timed step tallies energy and virial (as under a barostat)\n"
            "  --host-pack       pack positions and bin atoms on the host (device does by default)\n"
            "  --old-api         hand the atoms over as scl_charmm_set_atoms takes them (0-based\n"
            "                    types, 64-bit tags); default: as LAMMPS holds them, through\n"
            "                    scl_charmm_set_atoms_from (1-based types, 32-bit tags, special\n"
            "                    rows of an nmax > nlocal array)\n"
            "  --host-threads N  threads of the engine's host copies and finish (default 0:\n"
            "                    1 for copies, OpenMP's default for the finish on GPUs)\n"
            "  --inputs-stable N 0: compute copies x and q into pinned staging; 1: the\n"
            "                    caller keeps them until finish, they go up as they are\n"
            "                    (default 1, as the LAMMPS plugin)\n"
            "  --device SPEC     OpenCL device (default: $STREAMCL_DEVICE, GPU, CPU)\n"
            "Cutoffs 8/10 Angstrom, skin 2, special_bonds charmm (0 0 0), as bench/in.rhodo.\n");
}

static int parse_triple(const char *text, long *x, long *y, long *z)
{
    char *end;
    *x = strtol(text, &end, 10);
    if (*end != ',')
        return -1;
    *y = strtol(end + 1, &end, 10);
    if (*end != ',')
        return -1;
    *z = strtol(end + 1, &end, 10);
    if (*end != '\0' || *x < 1 || *y < 1 || *z < 1)
        return -1;
    /* as a double: large counts would overflow the product */
    return (double)*x * (double)*y * (double)*z <= 4096 ? 0 : -2;
}

/* A switch (an option without value); 1 when o was one. */
static int parse_switch(const char *o, bench_args *a)
{
    const struct {
        const char *name;
        int *field, value;
    } switches[] = {
        {"--no-tune", &a->tune, 0},
        {"--profile", &a->profile, 1},
        {"--tally", &a->tally, 1},
        {"--host-pack", &a->host_pack, 1},
        {"--no-reference", &a->reference, 0},
        {"--old-api", &a->old_api, 1},
    };
    for (size_t k = 0; k < sizeof switches / sizeof switches[0]; k++)
        if (!strcmp(o, switches[k].name)) {
            *switches[k].field = switches[k].value;
            return 1;
        }
    return 0;
}

/* The options with a whole number in a range; 1 when o was one (*r: -1
 * when v is not valid for it). */
static int parse_count(const char *o, const char *v, bench_args *a, int *r)
{
    const struct {
        const char *name;
        long *field, min, max;
    } counts[] = {
        {"--atoms", &a->atoms, 3, 300000000},
        {"--steps", &a->steps, 1, 1000000},
        {"--rebuild", &a->rebuild, 1, 1000000},
        {"--tpa", &a->tpa, 1, 1024}, /* (the engine says which) */
        {"--chunks", &a->chunks, 1, 4096},
        {"--wg", &a->wg, 1, 4096},
        {"--lists", &a->lists, 1, 2},
        {"--host-threads", &a->host_threads, 0, 1024},
        {"--inputs-stable", &a->inputs_stable, 0, 2},
    };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        if (!strcmp(o, counts[k].name)) {
            *r = cli_parse_long("pair-bench", o, v, counts[k].min, counts[k].max,
                                counts[k].field);
            return 1;
        }
    return 0;
}

/* The other options with a value; as parse_count. */
static int parse_valued(const char *o, const char *v, bench_args *a, int *r)
{
    if (!strcmp(o, "--data")) {
        a->data = v;
    } else if (!strcmp(o, "--replicate")) {
        int t = parse_triple(v, &a->nx, &a->ny, &a->nz);
        if (t == -2)
            fprintf(stderr, "streamcl pair-bench: --replicate %s is %.0f copies: at most "
                            "4096\n", v, (double)a->nx * (double)a->ny * (double)a->nz);
        else if (t != 0)
            fprintf(stderr, "streamcl pair-bench: bad value for --replicate: '%s' "
                            "(X,Y,Z of positive integers)\n", v);
        *r = t ? -1 : 0;
    } else if (!strcmp(o, "--precision")) {
        a->precision = v;
        if (strcmp(v, "single") && strcmp(v, "mixed") && strcmp(v, "double")) {
            fprintf(stderr, "streamcl pair-bench: bad value for --precision: '%s'\n", v);
            *r = -1;
        }
    } else if (!strcmp(o, "--g-ewald")) {
        *r = cli_parse_double("pair-bench", o, v, &a->g_ewald);
    } else if (!strcmp(o, "--inner-skin")) {
        *r = cli_parse_double("pair-bench", o, v, &a->inner_skin);
    } else if (!strcmp(o, "--displace")) {
        *r = cli_parse_double("pair-bench", o, v, &a->displace);
    } else if (!strcmp(o, "--list-lanes")) {
        *r = cli_parse_long("pair-bench", o, v, 1, 8, &a->list_lanes);
        if (*r == 0 && (a->list_lanes & (a->list_lanes - 1)) != 0) {
            fprintf(stderr, "streamcl pair-bench: bad value for --list-lanes: '%s' (1, 2, 4 "
                            "or 8)\n", v);
            *r = -1;
        }
    } else if (!strcmp(o, "--device")) {
        a->device = v;
    } else if (!strcmp(o, "--kernel")) {
        a->kernel = v;
        if (strcmp(v, "charmm") && strcmp(v, "cpu") && strcmp(v, "cluster")) {
            fprintf(stderr, "streamcl pair-bench: bad value for --kernel: '%s' (charmm, "
                            "cpu or cluster)\n", v);
            *r = -1;
        }
    } else {
        return 0;
    }
    return 1;
}

static int parse_args(int argc, char **argv, bench_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = 0;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 1;
        } else if (parse_switch(o, a)) {
            continue;
        } else if (!v) {
            fprintf(stderr, "streamcl pair-bench: unknown or incomplete option '%s'\n", o);
            usage(stderr);
            return 2;
        } else if (!parse_count(o, v, a, &r) && !parse_valued(o, v, a, &r)) {
            fprintf(stderr, "streamcl pair-bench: unknown option '%s'\n", o);
            usage(stderr);
            return 2;
        }
        if (r != 0)
            return 2;
        i++;
    }
    return 0;
}

/* Deterministic per-tag, per-step displacement, so that a ghost moves with
 * the atom it is an image of. */
static double displacement(int64_t tag, long step, int dim, double scale)
{
    uint64_t h = (uint64_t)tag * 0x9E3779B97F4A7C15ULL ^ (uint64_t)step * 0xBF58476D1CE4E5B9ULL ^
                 (uint64_t)(dim + 1) * 0x94D049BB133111EBULL;
    h ^= h >> 31;
    h *= 0xD6E8FEB86CD8B979ULL;
    h ^= h >> 29;
    return scale * (2.0 * (double)(h >> 11) * (1.0 / 9007199254740992.0) - 1.0);
}

typedef struct {
    int nlocal, nghost;
    double *x, *q;
    int *type;
    int64_t *tag;
} atoms_with_ghosts;

static void awg_free(atoms_with_ghosts *w)
{
    free(w->x), free(w->q), free(w->type), free(w->tag);
    memset(w, 0, sizeof *w);
}

/* The atoms as LAMMPS holds them (what the plugin hands over): 1-based
 * types, 32-bit tags, nspecial and special with rows for nmax > nlocal
 * atoms, stale values past each row's counts. */
typedef struct {
    int *type1;
    int32_t *tag32, *nspecial, *special32;
    int nmax;
} lammps_arrays;

static void lammps_free(lammps_arrays *l)
{
    free(l->type1), free(l->tag32), free(l->nspecial), free(l->special32);
    memset(l, 0, sizeof *l);
}

static int lammps_form(const scl_charmm_system *sys, const atoms_with_ghosts *w, lammps_arrays *l)
{
    size_t n = (size_t)w->nlocal + (size_t)w->nghost, ms = (size_t)sys->maxspecial;
    lammps_free(l);
    l->nmax = w->nlocal + w->nlocal / 8 + 16;
    l->type1 = malloc((n + 1) * sizeof *l->type1);
    l->tag32 = malloc((n + 1) * sizeof *l->tag32);
    l->nspecial = malloc(3 * (size_t)l->nmax * sizeof *l->nspecial);
    l->special32 = malloc(((size_t)l->nmax * ms + 1) * sizeof *l->special32);
    if (!l->type1 || !l->tag32 || !l->nspecial || !l->special32)
        return -1;
    for (size_t i = 0; i < n; i++) {
        l->type1[i] = w->type[i] + 1;
        l->tag32[i] = (int32_t)w->tag[i]; /* the data reader keeps tags below 2^31 */
    }
    for (size_t i = 0; i < (size_t)l->nmax; i++)
        for (int k = 0; k < 3; k++)
            l->nspecial[3 * i + k] = i < (size_t)w->nlocal && sys->nspecial ? sys->nspecial[3 * i + k] : 0;
    for (size_t i = 0; i < (size_t)l->nmax * ms; i++) /* stale past the counts */
        l->special32[i] = i < (size_t)w->nlocal * ms && sys->special ? (int32_t)sys->special[i]
                                                                    : (int32_t)(i % 977) - 3;
    return 0;
}

static scl_status set_atoms(scl_charmm *eng, const bench_args *a, const scl_charmm_system *sys,
                            const atoms_with_ghosts *w, const lammps_arrays *l)
{
    if (a->old_api)
        return scl_charmm_set_atoms(eng, w->nlocal, w->nghost, w->x, w->type, w->tag,
                                    sys->nspecial, sys->special, sys->maxspecial);
    const scl_charmm_atoms at = {.nlocal = w->nlocal,
                                 .nghost = w->nghost,
                                 .x = w->x,
                                 .type = l->type1,
                                 .type_base = 1,
                                 .tag_bytes = 4,
                                 .tag = l->tag32,
                                 .nspecial = sys->nspecial ? l->nspecial : NULL,
                                 .special = l->special32,
                                 .maxspecial = sys->maxspecial};
    return scl_charmm_set_atoms_from(eng, &at);
}

static int make_ghosts(const scl_charmm_system *sys, double cutoff, atoms_with_ghosts *w)
{
    char err[256];
    awg_free(w);
    w->nlocal = sys->natoms;
    if (scl_periodic_ghosts(sys->lo, sys->hi, cutoff, sys->natoms, sys->x, sys->type, sys->q,
                            sys->tag, &w->nghost, &w->x, &w->type, &w->q, &w->tag, err,
                            sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl pair-bench: %s\n", err);
        return -1;
    }
    return 0;
}

static int load_system(const bench_args *a, scl_charmm_system *sys)
{
    scl_charmm_system base;
    if (a->data) {
        char err[512];
        if (scl_charmm_read_data(a->data, &base, err, sizeof err) != 0) {
            fprintf(stderr, "streamcl pair-bench: %s\n", err);
            return -1;
        }
    } else if (scl_charmm_water_box((int)((a->atoms + 2) / 3), 12345, &base) != 0) {
        fprintf(stderr, "streamcl pair-bench: out of memory building the water box\n");
        return -1;
    }
    if (a->nx * a->ny * a->nz == 1) {
        *sys = base;
        return 0;
    }
    int rc = scl_charmm_system_replicate(&base, (int)a->nx, (int)a->ny, (int)a->nz, sys);
    scl_charmm_system_free(&base);
    if (rc != 0)
        fprintf(stderr, "streamcl pair-bench: cannot replicate (out of memory or > 2^30 atoms)\n");
    return rc;
}

static scl_precision precision_of(const char *name)
{
    return !strcmp(name, "single") ? SCL_PREC_SINGLE
           : !strcmp(name, "double") ? SCL_PREC_DOUBLE
                                     : SCL_PREC_MIXED;
}

/* One benchmark run: its inputs, the engine, and what the steps measured. */
typedef struct {
    const bench_args *a;
    scl_charmm_system sys;
    scl_charmm_params p;
    double ghost_cut;
    scl_context *ctx;
    scl_charmm *eng;
    atoms_with_ghosts w;
    lammps_arrays lmp;
    double *f;
    scl_charmm_stats st0, st1;
    scl_charmm_cluster_stats cs; /* what the cluster kind's launches walk */
    scl_charmm_result res;
    /* host wall seconds: untimed first step, host-side moves, the loop, the
     * compute calls without rebuild, all compute calls, the tallying step,
     * set_atoms (rebuild steps) */
    double t_setup, t_host_prep, t_loop, t_compute, t_compute_all, t_compute_tally, t_sa_wall;
    double *compute_times; /* medians too: on a shared host a preempted call moves the mean */
    long n_compute;
    double t_ref, ferr, e_vdwl_err, e_coul_err; /* the reference, when run */
} bench_run;

static void bench_params(const bench_args *a, const scl_charmm_system *sys, scl_charmm_params *p)
{
    scl_charmm_params_default(p);
    p->ntypes = sys->ntypes;
    p->epsilon = sys->epsilon;
    p->sigma = sys->sigma;
    p->cut_lj_inner = 8.0;
    p->cut_lj = 10.0;
    p->cut_coul = 10.0;
    p->g_ewald = a->g_ewald;
    for (int k = 1; k < 4; k++)
        p->special_lj[k] = p->special_coul[k] = 0.0;
    p->precision = precision_of(a->precision);
    p->threads_per_atom = (int)a->tpa;
    p->chunks = (int)a->chunks;
    p->work_group = (int)a->wg;
    p->tune = a->tune;
    p->inner_skin = a->inner_skin;
    p->host_pack = a->host_pack;
    p->list_lanes = (int)a->list_lanes;
    p->kernel = a->kernel;
    p->lists = (int)a->lists;
    p->host_threads = (int)a->host_threads;
    p->inputs_stable = (int)a->inputs_stable;
}

/* The engine, the atoms with their ghosts, and the first (untimed) step,
 * which tunes the plan or loads it. *ghosts_failed: make_ghosts printed. */
static scl_status bench_setup(bench_run *b, int *ghosts_failed)
{
    const bench_args *a = b->a;
    scl_status s = b->f ? scl_charmm_create(b->ctx, &b->p, &b->eng) : SCL_ERR_MEMORY;
    if (s == SCL_OK && make_ghosts(&b->sys, b->ghost_cut, &b->w) != 0) {
        *ghosts_failed = 1;
        return s;
    }
    if (s == SCL_OK && !a->old_api && lammps_form(&b->sys, &b->w, &b->lmp) != 0)
        s = SCL_ERR_MEMORY;
    double t_first = cli_now();
    if (s == SCL_OK)
        s = set_atoms(b->eng, a, &b->sys, &b->w, &b->lmp);
    if (s == SCL_OK)
        s = scl_charmm_compute(b->eng, b->w.x, b->w.q, 0, 0, 0, 0);
    if (s == SCL_OK)
        s = scl_charmm_finish(b->eng, b->f, NULL, NULL, NULL);
    b->t_setup = cli_now() - t_first;
    return s;
}

/* Step `step`'s random moves of the atoms and ghosts (new ghosts on a
 * rebuild step); *ghosts_failed as bench_setup. */
static scl_status move_atoms(bench_run *b, long step, int rebuild, int *ghosts_failed)
{
    const bench_args *a = b->a;
    for (int i = 0; i < b->sys.natoms; i++)
        for (int d = 0; d < 3; d++)
            b->sys.x[3 * i + d] += displacement(b->sys.tag[i], step, d, a->displace);
    if (rebuild) {
        if (make_ghosts(&b->sys, b->ghost_cut, &b->w) != 0) {
            *ghosts_failed = 1;
            return SCL_OK;
        }
        if (!a->old_api && lammps_form(&b->sys, &b->w, &b->lmp) != 0)
            return SCL_ERR_MEMORY;
    } else {
        for (int i = 0; i < b->w.nlocal + b->w.nghost; i++)
            for (int d = 0; d < 3; d++)
                b->w.x[3 * i + d] += displacement(b->w.tag[i], step, d, a->displace);
    }
    return SCL_OK;
}

/* The timed steps: moves, set_atoms on rebuild steps, compute and finish. */
static scl_status timed_steps(bench_run *b, int *ghosts_failed)
{
    const bench_args *a = b->a;
    scl_status s = SCL_OK;
    cli_progress prog;
    cli_progress_start(&prog, "steps", a->steps);
    b->t_loop = cli_now();
    b->compute_times = malloc((size_t)a->steps * sizeof *b->compute_times);
    for (long step = 1; step <= a->steps && s == SCL_OK; step++) {
        double t0 = cli_now();
        int rebuild = step % a->rebuild == 0;
        s = move_atoms(b, step, rebuild, ghosts_failed);
        if (*ghosts_failed)
            return s;
        b->t_host_prep += cli_now() - t0;
        if (rebuild && s == SCL_OK) {
            double ts = cli_now();
            s = set_atoms(b->eng, a, &b->sys, &b->w, &b->lmp);
            b->t_sa_wall += cli_now() - ts;
        }
        memset(b->f, 0, 3 * (size_t)b->sys.natoms * sizeof *b->f);
        double tc = cli_now();
        if (s == SCL_OK)
            s = scl_charmm_compute(b->eng, b->w.x, b->w.q, a->tally, a->tally, 0, 0);
        b->t_compute_all += cli_now() - tc;
        if (!rebuild) { /* host wall time inside compute (pack, checks, launches) */
            b->t_compute += cli_now() - tc;
            if (b->compute_times)
                b->compute_times[b->n_compute] = cli_now() - tc;
            b->n_compute++;
        }
        if (s == SCL_OK)
            s = scl_charmm_finish(b->eng, b->f, a->tally ? &b->res : NULL, NULL, NULL);
        cli_progress_update(&prog, step);
    }
    cli_progress_end(&prog);
    b->t_loop = cli_now() - b->t_loop;
    return s;
}

/* The statistics after the loop, then energies from one more (untimed) step
 * that tallies, on the same atoms. */
static scl_status tally_step(bench_run *b)
{
    scl_status s = scl_charmm_stats_get(b->eng, &b->st1);
    if (s == SCL_OK)
        s = scl_charmm_cluster_stats_get(b->eng, &b->cs);
    double *f_tally = calloc(3 * (size_t)b->sys.natoms, sizeof *f_tally);
    if (s == SCL_OK && !f_tally)
        s = SCL_ERR_MEMORY;
    double tc = cli_now();
    if (s == SCL_OK)
        s = scl_charmm_compute(b->eng, b->w.x, b->w.q, 1, 1, 0, 0);
    b->t_compute_tally = cli_now() - tc;
    if (s == SCL_OK)
        s = scl_charmm_finish(b->eng, f_tally, &b->res, NULL, NULL);
    free(f_tally);
    return s;
}

/* The timed steps' totals: the engine's statistics after minus before. */
typedef struct {
    double nbr, up, force, down, red, sa_host; /* seconds */
    long rebuilds, n_sa;                        /* list rebuilds, set_atoms calls */
} bench_totals;

static bench_totals totals_of(const bench_run *b)
{
    const scl_charmm_stats *st0 = &b->st0, *st1 = &b->st1;
    return (bench_totals){.nbr = st1->t_neighbor - st0->t_neighbor,
                          .up = st1->t_upload - st0->t_upload,
                          .force = st1->t_force - st0->t_force,
                          .down = st1->t_download - st0->t_download,
                          .red = st1->t_host_reduce - st0->t_host_reduce,
                          .sa_host = st1->t_set_atoms_host - st0->t_set_atoms_host,
                          .rebuilds = st1->rebuilds - st0->rebuilds,
                          .n_sa = b->a->steps / b->a->rebuild};
}

/* What the cluster kind's launches walked (lists read back and counted). */
static void print_cluster_stats(const bench_run *b, double n, double t_force)
{
    const scl_charmm_cluster_stats *cs = &b->cs;
    double na = b->sys.natoms;
    printf("cluster pairs walked by the force launches: %ld (pair slots per atom %.1f walked, "
           "%.1f unpruned; %.3e walked slots/s); pairs kept by the masks %.1f per atom, within "
           "the cutoff %.1f per atom (%.0f%% of the walked slots); warp steps with a kept pair "
           "%ld of %ld (%.0f%% of their lanes busy); force launches on the inner lists %ld, "
           "on the unpruned lists %ld\n",
           cs->entries, 64.0 * (double)cs->entries / na, 64.0 * (double)b->st1.cluster_pairs / na,
           64.0 * (double)cs->entries * n / t_force, (double)cs->mask_pairs / na,
           (double)cs->cut_pairs / na, 100.0 * (double)cs->cut_pairs / (64.0 * (double)cs->entries),
           cs->warp_steps, cs->warp_steps_all,
           cs->warp_steps ? 100.0 * (double)cs->mask_pairs / (32.0 * (double)cs->warp_steps) : 0.0,
           cs->launches_inner, cs->launches_full);
}

/* The human-readable report of the timed steps. */
static void print_stats(const bench_run *b, double compute_med)
{
    const bench_args *a = b->a;
    const scl_charmm_stats *st0 = &b->st0, *st1 = &b->st1;
    int natoms = b->sys.natoms;
    double n = (double)a->steps, ms = 1e3;
    bench_totals t = totals_of(b);
    double t_nbr = t.nbr, t_up = t.up, t_force = t.force, t_down = t.down, t_red = t.red;
    long rebuilds = t.rebuilds, n_sa = t.n_sa;
    double t_sa_host = t.sa_host, t_sa_cpu = st1->t_set_atoms_cpu - st0->t_set_atoms_cpu;
    printf("plan: threads/atom %d, chunks %d, work-group %d; list %ld pairs (%.1f per atom), "
           "capacity %ld; setup+tune %.2f s\n",
           st1->threads_per_atom, st1->chunks, st1->work_group, st1->neighbors,
           (double)st1->neighbors / natoms, st1->list_capacity, b->t_setup);
    printf("per step (ms):  neighbor %.4f (%ld rebuilds, %.3f each)  upload %.4f  force %.4f  "
           "download %.4f  host-reduce %.4f  device-total %.4f  wall %.4f\n",
           t_nbr / n * ms, rebuilds, rebuilds ? t_nbr / rebuilds * ms : 0.0, t_up / n * ms,
           t_force / n * ms, t_down / n * ms, t_red / n * ms, (t_up + t_force + t_down) / n * ms,
           (b->t_loop - b->t_host_prep) / n * ms);
    printf("host time in scl_charmm_compute (ms): %.4f per step without rebuild (%ld steps; "
           "median %.4f), %.4f on the tallying step\n",
           b->n_compute ? b->t_compute / (double)b->n_compute * ms : 0.0, b->n_compute,
           compute_med * ms, b->t_compute_tally * ms);
    printf("set_atoms host ms %.3f per call (thread CPU %.3f; wall %.3f incl. list build; %ld "
           "calls)\n",
           n_sa ? t_sa_host / (double)n_sa * ms : 0.0, n_sa ? t_sa_cpu / (double)n_sa * ms : 0.0,
           n_sa ? b->t_sa_wall / (double)n_sa * ms : 0.0, n_sa);
    /* what the LAMMPS plugin reports as "Host per step": set_atoms + compute
     * (rebuild steps included) + the finish's own work, waits excluded */
    double host_step = (b->t_sa_wall + b->t_compute_all + t_red) / n;
    printf("host per step (ms): %.4f (set_atoms %.4f + compute %.4f + finish %.4f, averaged "
           "over all steps)\n",
           host_step * ms, b->t_sa_wall / n * ms, b->t_compute_all / n * ms, t_red / n * ms);
    printf("pairs/s (list pairs / force-kernel time): %.3e\n", (double)st1->neighbors * n / t_force);
    if (st1->cluster_pairs > 0)
        printf("cluster pairs: %ld built (8 x 8 atom pairs each: %.1f per atom before pruning)\n",
               st1->cluster_pairs, 64.0 * (double)st1->cluster_pairs / natoms);
    if (b->cs.entries > 0)
        print_cluster_stats(b, n, t_force);
    printf("dynamic pruning: %ld prunes in %ld steps, inner list %.1f slots per atom (full list "
           "%.1f pairs)\n",
           st1->prunes - st0->prunes, a->steps, (double)st1->inner_neighbors / natoms,
           (double)st1->neighbors / natoms);
}

/* The double reference on the same atoms: time, force and energy errors;
 * 0, or -1 after printing. */
static int check_reference(bench_run *b)
{
    const scl_charmm_system *sys = &b->sys;
    const atoms_with_ghosts *w = &b->w;
    const double *f = b->f;
    double *fref = calloc(3 * (size_t)sys->natoms, sizeof *fref);
    scl_charmm_result rref;
    char err[256];
    double t0 = cli_now();
    scl_status rs = fref ? scl_charmm_reference(&b->p, w->nlocal, w->nghost, w->x, w->q, w->type,
                                                w->tag, sys->nspecial, sys->special,
                                                sys->maxspecial, fref, &rref, NULL, NULL, err,
                                                sizeof err)
                         : SCL_ERR_MEMORY;
    b->t_ref = cli_now() - t0;
    if (rs != SCL_OK) {
        fprintf(stderr, "streamcl pair-bench: reference: %s\n", fref ? err : "out of memory");
        free(fref);
        return -1;
    }
    double num = 0, den = 0;
    for (size_t i = 0; i < 3 * (size_t)sys->natoms; i++) {
        num += (f[i] - fref[i]) * (f[i] - fref[i]);
        den += fref[i] * fref[i];
    }
    b->ferr = sqrt(num / den);
    /* the atom contributing most to the error (a single bad pair shows here) */
    size_t worst = 0;
    double worst_d2 = -1;
    for (size_t i = 0; i < (size_t)sys->natoms; i++) {
        double d2 = 0;
        for (int d = 0; d < 3; d++)
            d2 += (f[3 * i + d] - fref[3 * i + d]) * (f[3 * i + d] - fref[3 * i + d]);
        if (d2 > worst_d2)
            worst_d2 = d2, worst = i;
    }
    printf("worst atom %zu: |f - f_ref| %.3e (%.0f%% of the squared error), |f_ref| %.3e, "
           "RMS |f_ref| %.3e\n",
           worst, sqrt(worst_d2), 100.0 * worst_d2 / (num > 0 ? num : 1),
           sqrt(fref[3 * worst] * fref[3 * worst] + fref[3 * worst + 1] * fref[3 * worst + 1] +
                fref[3 * worst + 2] * fref[3 * worst + 2]),
           sqrt(den / sys->natoms));
    b->e_vdwl_err = fabs(b->res.evdwl - rref.evdwl) / fabs(rref.evdwl);
    b->e_coul_err = fabs(b->res.ecoul - rref.ecoul) / fabs(rref.ecoul);
    printf("reference (double, C, %s): %.4f ms per step; E_vdwl %.10g E_coul %.10g\n",
#ifdef _OPENMP
           "OpenMP",
#else
           "1 thread",
#endif
           b->t_ref * 1e3, rref.evdwl, rref.ecoul);
    printf("error vs reference: force RMS relative %.2e, E_vdwl %.2e, E_coul %.2e "
           "(forces: last timed step; energies: a tallying step)\n",
           b->ferr, b->e_vdwl_err, b->e_coul_err);
    free(fref);
    return 0;
}

/* The one RESULT line the bench scripts parse. */
static void print_result_line(const bench_run *b, double compute_med)
{
    const bench_args *a = b->a;
    const scl_charmm_stats *st0 = &b->st0, *st1 = &b->st1;
    const scl_charmm_cluster_stats *cs = &b->cs;
    int natoms = b->sys.natoms;
    double n = (double)a->steps, ms = 1e3;
    bench_totals t = totals_of(b);
    double t_nbr = t.nbr, t_up = t.up, t_force = t.force, t_down = t.down, t_red = t.red;
    long rebuilds = t.rebuilds, n_sa = t.n_sa;
    double t_sa_host = t.sa_host;
    double host_step = (b->t_sa_wall + b->t_compute_all + t_red) / n;
    /* device time of a list rebuild (binning + build kernels), with --profile */
    double t_bin = 0, t_build = 0, t_cl = 0, t_prune = 0;
    long c_bin = 0, c_build = 0, c_prune = 0;
    if (a->profile) {
        scl_profile_total(b->ctx, "charmm binning", &t_bin, &c_bin);
        scl_profile_total(b->ctx, "charmm neighbor build", &t_build, &c_build);
        scl_profile_total(b->ctx, "charmm list prune", &t_prune, &c_prune);
        long c_cl = 0; /* the cluster kind's lists (rebuilt from the same bins) */
        scl_profile_total(b->ctx, "charmm cluster build", &t_cl, &c_cl);
    }
    long builds = rebuilds > 0 ? rebuilds : 1;
    int per_build = a->profile && rebuilds > 0;
    printf("RESULT atoms=%d precision=%s tally=%d force_ms=%.4f device_ms=%.4f neighbor_ms=%.4f "
           "upload_ms=%.4f download_ms=%.4f reduce_ms=%.4f reference_ms=%.4f force_err=%.2e "
           "ecoul_err=%.2e evdwl_err=%.2e tpa=%d chunks=%d wg=%d prunes=%ld compute_host_ms=%.4f "
           "list_build_dev_ms=%.4f cluster_build_dev_ms=%.4f bin_dev_ms=%.4f "
           "nbr_build_dev_ms=%.4f prune_dev_ms=%.4f set_atoms_host_ms=%.4f kernel=%s "
           "lists=%d blocks=%d "
           "colours=%d launches=%d cluster_pairs=%ld walked_slots=%.1f cut_pairs=%.1f "
           "warp_steps=%ld launches_full=%ld inner_slots=%.1f host_step_ms=%.4f set_atoms_wall_ms=%.4f "
           "api=%s compute_host_med_ms=%.4f finish_host_ms=%.4f\n",
           natoms, a->precision, a->tally, t_force / n * ms, (t_up + t_force + t_down) / n * ms,
           t_nbr / n * ms, t_up / n * ms, t_down / n * ms, t_red / n * ms, b->t_ref * ms, b->ferr,
           b->e_coul_err, b->e_vdwl_err, st1->threads_per_atom, st1->chunks, st1->work_group,
           st1->prunes - st0->prunes, b->n_compute ? b->t_compute / (double)b->n_compute * ms : 0.0,
           per_build ? (t_bin + t_build + t_cl) / (double)builds * ms : NAN,
           per_build ? t_cl / (double)builds * ms : NAN,
           per_build ? t_bin / (double)builds * ms : NAN,
           per_build ? t_build / (double)builds * ms : NAN,
           a->profile && c_prune > 0 ? t_prune / (double)c_prune * ms : NAN,
           n_sa ? t_sa_host / (double)n_sa * ms : 0.0, st1->kernel, st1->lists, st1->blocks,
           st1->colours, st1->launches, st1->cluster_pairs, 64.0 * (double)cs->entries / natoms,
           (double)cs->cut_pairs / natoms, cs->warp_steps, cs->launches_full,
           (double)st1->inner_neighbors / natoms, host_step * ms,
           n_sa ? b->t_sa_wall / (double)n_sa * ms : 0.0, a->old_api ? "old" : "lammps",
           compute_med * ms, t_red / n * ms);
}

/* Everything after the context: set-up, timed steps, reports; the exit status. */
static int bench(bench_run *b)
{
    const bench_args *a = b->a;
    int ghosts_failed = 0;
    scl_status s = bench_setup(b, &ghosts_failed);
    if (ghosts_failed)
        return 1;
    if (a->profile) /* the table and the list-build figure cover the timed steps only */
        scl_profile_reset(b->ctx);
    if (s == SCL_OK)
        s = scl_charmm_stats_get(b->eng, &b->st0);
    if (s == SCL_OK)
        s = timed_steps(b, &ghosts_failed);
    if (ghosts_failed)
        return 1;
    if (s == SCL_OK)
        s = tally_step(b);
    if (s != SCL_OK) {
        fprintf(stderr, "streamcl pair-bench: %s\n", scl_last_error(b->ctx));
        return 1;
    }
    double compute_med = b->compute_times ? cli_median(b->compute_times, b->n_compute) : NAN;
    print_stats(b, compute_med);
    b->t_ref = 0, b->ferr = NAN, b->e_vdwl_err = NAN, b->e_coul_err = NAN;
    if (a->reference && check_reference(b) != 0)
        return 1;
    print_result_line(b, compute_med);
    if (a->profile)
        scl_profile_report(b->ctx, stdout);
    return 0;
}

int cmd_pair_bench(int argc, char **argv)
{
    bench_args a = {.atoms = 32000, .steps = 50, .rebuild = 10, .nx = 1, .ny = 1, .nz = 1,
                    .g_ewald = 0.2709, .displace = 0.002, .precision = "mixed", .tune = 1,
                    .reference = 1, .inputs_stable = 1};
    int pr = parse_args(argc, argv, &a);
    if (pr != 0)
        return pr == 1 ? 0 : pr;
    bench_run b = {.a = &a};
    if (load_system(&a, &b.sys) != 0)
        return 1;
    bench_params(&a, &b.sys, &b.p);
    b.ghost_cut = b.p.cut_lj + b.p.skin;

    b.ctx = cli_context(a.device, a.profile);
    if (!b.ctx) {
        scl_charmm_system_free(&b.sys);
        return 1;
    }
    const scl_device_info *dev = scl_device(b.ctx);
    printf("pair-bench: %d atoms (%s), %ld steps, rebuild every %ld, %s precision, device %s\n",
           b.sys.natoms, a.data ? a.data : "water box", a.steps, a.rebuild, a.precision, dev->name);
    b.f = malloc(3 * (size_t)b.sys.natoms * sizeof *b.f);
    int rc = bench(&b);
    free(b.compute_times);
    scl_charmm_free(b.eng);
    awg_free(&b.w);
    lammps_free(&b.lmp);
    free(b.f);
    scl_charmm_system_free(&b.sys);
    scl_context_free(b.ctx);
    return rc;
}
