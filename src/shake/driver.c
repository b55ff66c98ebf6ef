/* Device driver of the SHAKE constraint forces (see streamcl/shake.h): the
 * cluster tables (sorted by kind), the per-step uploads, the solve kernel of
 * cl/shake.cl, per-work-group virial partials finished here in double. */
#include "shake_internal.h"

#include "core/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scl_shake {
    scl_context *ctx;
    scl_shake_options o;
    int wg;
    scl_kernel *solve, *scatter, *unconstrained;
    /* clusters, sorted by kind: the host copy keeps the atom indices for
     * adding the downloaded increments */
    int n, cap;
    int max_atom;                /* largest atom index of the clusters, -1 if none */
    int *kind, *atoms;           /* n, 4n */
    scl_stream *d_kind, *d_atoms, *d_dist, *d_mass;
    scl_stream *fc, *vpart, *flags;
    double *fc_host, *vpart_host;
    /* host-array path: staging of x and xshake */
    scl_stream *x, *xs;
    size_t xcap;                 /* doubles */
    /* solve_rows: its kernels by row type ([1]: double rows; built on first
     * use), v's upload, the extra rows of each owned atom (CSR) */
    scl_kernel *rows_update[2], *rows_scatter[2];
    scl_stream *v, *extra_start, *extra;
    size_t vcap, start_cap, extra_cap;
    int has_extra, extra_nlocal;
    scl_shake_stats stats;
};

scl_shake_options scl_shake_options_default(void)
{
    scl_shake_options o;
    memset(&o, 0, sizeof o);
    o.precision = SCL_PREC_MIXED;
    o.tolerance = 1e-4;
    o.max_iter = 20;
    o.work_group = 0;
    return o;
}

int scl_shake_cluster_count(const scl_shake *s) { return s ? s->n : 0; }

void scl_shake_stats_get(const scl_shake *s, scl_shake_stats *st)
{
    if (st) {
        if (s) *st = s->stats;
        else memset(st, 0, sizeof *st);
    }
}

void scl_shake_stats_reset(scl_shake *s)
{
    if (s) memset(&s->stats, 0, sizeof s->stats);
}

static void free_clusters(scl_shake *s)
{
    scl_stream *st[] = {s->d_kind, s->d_atoms, s->d_dist, s->d_mass, s->fc, s->vpart};
    for (size_t i = 0; i < sizeof st / sizeof *st; i++) scl_stream_free(st[i]);
    s->d_kind = s->d_atoms = s->d_dist = s->d_mass = s->fc = s->vpart = NULL;
    free(s->kind);
    free(s->atoms);
    free(s->fc_host);
    free(s->vpart_host);
    s->kind = s->atoms = NULL;
    s->fc_host = s->vpart_host = NULL;
    s->cap = 0;
}

void scl_shake_free(scl_shake *s)
{
    if (!s) return;
    scl_finish(s->ctx);
    free_clusters(s);
    scl_kernel_free(s->solve);
    scl_kernel_free(s->scatter);
    scl_kernel_free(s->unconstrained);
    scl_stream_free(s->flags);
    scl_stream_free(s->x);
    scl_stream_free(s->xs);
    for (int k = 0; k < 2; k++) {
        scl_kernel_free(s->rows_update[k]);
        scl_kernel_free(s->rows_scatter[k]);
    }
    scl_stream *rs[] = {s->v, s->extra_start, s->extra};
    scl_streams_free(rs, 3);
    free(s);
}

scl_status scl_shake_create(scl_context *ctx, const scl_shake_options *opt, scl_shake **out)
{
    static const char *fn = "scl_shake_create";
    if (!out) return SCL_ERR_ARGUMENT;
    *out = NULL;
    if (!ctx) return SCL_ERR_ARGUMENT;
    scl_shake_options o = opt ? *opt : scl_shake_options_default();
    if (o.precision == SCL_PREC_SINGLE)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn, "precision single is not offered: the "
                        "cluster solve is in double (use mixed or double)");
    if (o.precision != SCL_PREC_MIXED && o.precision != SCL_PREC_DOUBLE)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "precision %d is not a scl_precision",
                        (int)o.precision);
    if (!(o.tolerance > 0) || !isfinite(o.tolerance) || o.max_iter < 1)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "tolerance %g must be positive and max_iter "
                        "%d at least 1", o.tolerance, o.max_iter);
    const int wg = o.work_group ? o.work_group : 64;
    if (wg < 1 || wg > 256 || (wg & (wg - 1)))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "work_group %d is not a power of two "
                        "<= 256", o.work_group);
    if (!scl_device(ctx)->fp64)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn, "the SHAKE solve needs fp64, which "
                        "this device lacks");
    scl_shake *s = calloc(1, sizeof *s);
    if (!s) return SCL_ERR_MEMORY;
    s->ctx = ctx;
    s->o = o;
    s->wg = wg;
    s->max_atom = -1;
    char opts[32];
    snprintf(opts, sizeof opts, "-DWG=%d", wg);
    scl_status st;
    if ((st = scl_kernel_create(ctx, "shake", "shake_solve", opts, &s->solve)) ||
        (st = scl_kernel_create(ctx, "shake", "shake_scatter", opts, &s->scatter)) ||
        (st = scl_kernel_create(ctx, "shake", "shake_unconstrained", opts, &s->unconstrained)) ||
        (st = scl_stream_create(ctx, "shake.flags", SCL_INT, 3, 1, 1, 0, &s->flags))) {
        scl_shake_free(s);
        return st;
    }
    *out = s;
    return SCL_OK;
}

static int kind_atoms(int kind) { return kind == SCL_SHAKE_ANGLE ? 3 : kind; }

scl_status scl_shake_set_clusters(scl_shake *s, int n, const scl_shake_cluster *c)
{
    static const char *fn = "scl_shake_set_clusters";
    if (!s) return SCL_ERR_ARGUMENT;
    if (n < 0 || (n > 0 && !c)) return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "n %d, clusters %p", n, (const void *)c);
    for (int m = 0; m < n; m++) {
        const int k = c[m].kind;
        if (k < 1 || k > 4)
            return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "cluster %d: kind %d is not 1..4", m, k);
        int pair[3][2], nc, na;
        shake_constraints(k, pair, &nc, &na);
        for (int p = 0; p < na; p++)
            if (c[m].atom[p] < 0 || !(c[m].mass[p] > 0) || !isfinite(c[m].mass[p]))
                return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "cluster %d: atom slot %d has index "
                                "%d and mass %g", m, p, c[m].atom[p], c[m].mass[p]);
        for (int q = 0; q < nc; q++)
            if (!(c[m].dist[q] > 0) || !isfinite(c[m].dist[q]))
                return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "cluster %d: constraint %d has "
                                "length %g", m, q, c[m].dist[q]);
    }
    scl_status st = SCL_OK;
    if (n > s->cap) {
        free_clusters(s);
        const int cap = n + n / 8 + 64;
        const size_t ng = ((size_t)cap + s->wg - 1) / s->wg;
        s->kind = malloc(sizeof(int) * cap);
        s->atoms = malloc(sizeof(int) * 4 * (size_t)cap);
        s->fc_host = malloc(sizeof(double) * 12 * (size_t)cap);
        s->vpart_host = malloc(sizeof(double) * 6 * ng);
        if (!s->kind || !s->atoms || !s->fc_host || !s->vpart_host) {
            free_clusters(s);
            return SCL_ERR_MEMORY;
        }
        if ((st = scl_stream_create(s->ctx, "shake.kind", SCL_INT, cap, 1, 1, SCL_STREAM_READ_ONLY, &s->d_kind)) ||
            (st = scl_stream_create(s->ctx, "shake.atoms", SCL_INT, 4 * (size_t)cap, 1, 1, SCL_STREAM_READ_ONLY, &s->d_atoms)) ||
            (st = scl_stream_create(s->ctx, "shake.dist", SCL_DOUBLE, 3 * (size_t)cap, 1, 1, SCL_STREAM_READ_ONLY, &s->d_dist)) ||
            (st = scl_stream_create(s->ctx, "shake.mass", SCL_DOUBLE, 4 * (size_t)cap, 1, 1, SCL_STREAM_READ_ONLY, &s->d_mass)) ||
            (st = scl_stream_create(s->ctx, "shake.fc", SCL_DOUBLE, 12 * (size_t)cap, 1, 1, 0, &s->fc)) ||
            (st = scl_stream_create(s->ctx, "shake.vpart", SCL_DOUBLE, 6 * ng, 1, 1, SCL_STREAM_WRITE_ONLY, &s->vpart))) {
            free_clusters(s);
            s->n = 0;
            return st;
        }
        s->cap = cap;
    }
    s->n = n;
    s->max_atom = -1;
    if (!n) return SCL_OK;
    /* counting sort by kind */
    double *dist = malloc(sizeof(double) * 3 * (size_t)n);
    double *im = malloc(sizeof(double) * 4 * (size_t)n);
    if (!dist || !im) {
        free(dist);
        free(im);
        return SCL_ERR_MEMORY;
    }
    int start[6] = {0};
    for (int m = 0; m < n; m++) start[c[m].kind + 1]++;
    for (int k = 1; k < 6; k++) start[k] += start[k - 1];
    for (int m = 0; m < n; m++) {
        const int j = start[c[m].kind]++;
        const int na = kind_atoms(c[m].kind);
        s->kind[j] = c[m].kind;
        for (int p = 0; p < 4; p++) {
            s->atoms[4 * j + p] = p < na ? c[m].atom[p] : -1;
            im[4 * j + p] = p < na ? c[m].mass[p] : 0.0;
        }
        for (int q = 0; q < 3; q++) dist[3 * j + q] = c[m].dist[q];
        for (int p = 0; p < na; p++)
            if (c[m].atom[p] > s->max_atom) s->max_atom = c[m].atom[p];
    }
    if (!(st = scl_stream_write_range(s->d_kind, 0, n, s->kind, 1, NULL)) &&
        !(st = scl_stream_write_range(s->d_atoms, 0, 4 * (size_t)n, s->atoms, 1, NULL)) &&
        !(st = scl_stream_write_range(s->d_dist, 0, 3 * (size_t)n, dist, 1, NULL)))
        st = scl_stream_write_range(s->d_mass, 0, 4 * (size_t)n, im, 1, NULL);
    free(dist);
    free(im);
    if (st) s->n = 0;
    return st;
}

static void add_seconds(scl_shake *s, scl_event ev, double *acc)
{
    double t;
    if (ev && scl_profiling(s->ctx) && scl_event_seconds(s->ctx, ev, &t) == SCL_OK) *acc += t;
    if (ev) scl_event_release(ev);
}

static scl_status check_input(scl_shake *s, const char *fn, const scl_shake_input *in)
{
    if (!in) return SCL_ERR_ARGUMENT;
    if (!(in->dtfsq > 0) || !isfinite(in->dtfsq))
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "dtfsq %g is not a finite positive number",
                        in->dtfsq);
    for (int k = 0; k < 3; k++)
        if (in->box.periodic[k] && (!(in->box.prd[k] > 0) || !isfinite(in->box.prd[k])))
            return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "periodic box length %g in dimension %d",
                            in->box.prd[k], k);
    return SCL_OK;
}

/* queue the solve over the x / xshake streams; with download, also queue
 * the read of the per-cluster increments. Waits, then reports flags and
 * finishes the virial. */
/* Every argument of the solve kernel for this step. */
static scl_status bind_solve(scl_shake *s, const scl_shake_input *in, scl_stream *x,
                             scl_stream *xs, int tally)
{
    scl_kernel *k = s->solve;
    const scl_shake_box *b = &in->box;
    const int per = (b->periodic[0] ? 1 : 0) | (b->periodic[1] ? 2 : 0) | (b->periodic[2] ? 4 : 0);
    const scl_arg_stream streams[] = {{"kind", s->d_kind}, {"atoms", s->d_atoms},
                                      {"dist", s->d_dist}, {"mass", s->d_mass},
                                      {"x", x},            {"xs", xs},
                                      {"fc", s->fc},       {"vpart", s->vpart},
                                      {"flags", s->flags}};
    const scl_arg_int ints[] = {{"ncluster", s->n},         {"nlocal", in->nlocal},
                                {"periodic", per},          {"triclinic", b->triclinic ? 1 : 0},
                                {"max_iter", s->o.max_iter}, {"tally", tally}};
    static const char *dnames[8] = {"prdx", "prdy", "prdz", "xy", "xz", "yz", "dtfsq", "tolerance"};
    const double dvals[8] = {b->prd[0], b->prd[1], b->prd[2], b->xy, b->xz, b->yz, in->dtfsq,
                             s->o.tolerance};
    scl_status st = scl_kernel_bind(k, streams, 9, ints, 6);
    for (int i = 0; i < 8 && !st; i++) st = scl_kernel_set_double(k, dnames[i], dvals[i]);
    return st;
}

/* The constraint forces added into the device force array f. */
static scl_status launch_scatter(scl_shake *s, const scl_shake_input *in, scl_stream *f,
                                 size_t global, size_t local)
{
    const scl_arg_stream streams[] = {{"kind", s->d_kind}, {"atoms", s->d_atoms},
                                      {"fc", s->fc}, {"f", f}};
    const scl_arg_int ints[] = {{"ncluster", s->n}, {"nlocal", in->nlocal}};
    scl_status st = scl_kernel_bind(s->scatter, streams, 4, ints, 2);
    return st ? st : scl_kernel_launch(s->scatter, 1, &global, &local, NULL);
}

/* The solve's flags (read back, in order after everything): a failed
 * cluster named, the statistics counted. */
static scl_status solve_flags(scl_shake *s, const char *fn, const int flags[3])
{
    s->stats.solves++;
    s->stats.last_negative = flags[2];
    s->stats.negative_determinants += flags[2];
    if (!(flags[0] & 6))
        return SCL_OK;
    const int m = 0x7fffffff - flags[1];
    const int *a = s->atoms + 4 * (size_t)m;
    return scl_fail(s->ctx, SCL_ERR_INPUT, fn, "cluster of kind %d with atoms %d %d %d %d: %s",
                    s->kind[m], a[0], a[1], a[2], a[3],
                    (flags[0] & 2) ? "constraint matrix determinant = 0 (LAMMPS: Shake "
                                     "determinant = 0.0)"
                                   : "non-finite constraint forces (positions or "
                                     "unconstrained positions not finite?)");
}

static scl_status run_solve(scl_shake *s, const char *fn, const scl_shake_input *in,
                            scl_stream *x, scl_stream *xs, scl_stream *f, int download,
                            double virial[6])
{
    /* zeroed on the device (no upload): flags[1] holds INT_MAX - the first
     * failed cluster (atomic_max) */
    static const int zero = 0;
    scl_status st = scl_stream_fill_range(s->flags, 0, 3, &zero, NULL);
    if (!st) st = bind_solve(s, in, x, xs, virial ? 1 : 0);
    if (st) return st;
    const size_t ng = ((size_t)s->n + s->wg - 1) / s->wg;
    const size_t global = ng * s->wg, local = s->wg;
    const int prof = scl_profiling(s->ctx);
    scl_event ek = NULL, ed = NULL, ev = NULL;
    if ((st = scl_kernel_launch(s->solve, 1, &global, &local, prof ? &ek : NULL))) return st;
    if (f && (st = launch_scatter(s, in, f, global, local))) return st;
    if (download &&
        (st = scl_stream_read_range(s->fc, 0, 12 * (size_t)s->n, s->fc_host, 0, prof ? &ed : NULL)))
        return st;
    if (virial &&
        (st = scl_stream_read_range(s->vpart, 0, 6 * ng, s->vpart_host, 0, prof ? &ev : NULL)))
        return st;
    int flags[3];
    if ((st = scl_stream_read(s->flags, flags, 1, NULL))) return st;   /* in order: waits for all */
    add_seconds(s, ek, &s->stats.t_solve);
    add_seconds(s, ed, &s->stats.t_download);
    add_seconds(s, ev, &s->stats.t_download);
    if ((st = solve_flags(s, fn, flags))) return st;
    if (virial) {
        double sum[6] = {0, 0, 0, 0, 0, 0};
        for (size_t g = 0; g < ng; g++)
            for (int t = 0; t < 6; t++) sum[t] += s->vpart_host[6 * g + t];
        for (int t = 0; t < 6; t++) virial[t] += sum[t];
    }
    return SCL_OK;
}

static scl_status check_indices(scl_shake *s, const char *fn, int natoms)
{
    if (s->max_atom >= natoms)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "a cluster names atom %d of %d",
                        s->max_atom, natoms);
    return SCL_OK;
}

static scl_status solve_host_f(scl_shake *s, const char *fn, const scl_shake_input *in,
                               const scl_stream *x_dev, double *f, double virial[6]);

/* The x and xshake staging streams for nd doubles (grown, contents not kept). */
static scl_status reserve_x(scl_shake *s, size_t nd)
{
    if (nd <= s->xcap) return SCL_OK;
    scl_stream_free(s->x);
    scl_stream_free(s->xs);
    s->x = s->xs = NULL;
    s->xcap = 0;
    const size_t cap = nd + nd / 8 + 192;
    scl_status st;
    if ((st = scl_stream_create(s->ctx, "shake.x", SCL_DOUBLE, cap, 1, 1, 0, &s->x)) ||
        (st = scl_stream_create(s->ctx, "shake.xshake", SCL_DOUBLE, cap, 1, 1, 0, &s->xs)))
        return st;
    s->xcap = cap;
    return SCL_OK;
}

scl_status scl_shake_solve(scl_shake *s, const scl_shake_input *in, double *f, double virial[6])
{
    return solve_host_f(s, "scl_shake_solve", in, NULL, f, virial);
}

scl_status scl_shake_solve_device_x(scl_shake *s, const scl_shake_input *in,
                                    const scl_stream *x_dev, double *f, double virial[6])
{
    static const char *fn = "scl_shake_solve_device_x";
    if (!s) return SCL_ERR_ARGUMENT;
    if (!x_dev || scl_stream_type(x_dev) != SCL_DOUBLE)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "x_dev must be a stream of double "
                        "(scl_shake_solve uploads x)");
    if (in && in->natoms > 0 && scl_stream_count(x_dev) < 3 * (size_t)in->natoms)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "x_dev holds %zu doubles, natoms %d need %zu",
                        scl_stream_count(x_dev), in->natoms, 3 * (size_t)in->natoms);
    return solve_host_f(s, fn, in, x_dev, f, virial);
}

/* x (host, or the device copy x_dev: the same doubles, the same bits) and
 * xshake up, the per-cluster forces down and added to the owned atoms' f */
static scl_status solve_host_f(scl_shake *s, const char *fn, const scl_shake_input *in,
                               const scl_stream *x_dev, double *f, double virial[6])
{
    if (!s) return SCL_ERR_ARGUMENT;
    scl_status st = check_input(s, fn, in);
    if (st) return st;
    if (!s->n) return SCL_OK;
    if (in->natoms < 1 || (!in->x && !x_dev) || !in->xshake || !f)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "natoms %d, x, xshake and f must be given",
                        in->natoms);
    if ((st = check_indices(s, fn, in->natoms))) return st;
    const size_t nd = 3 * (size_t)in->natoms;
    if ((st = reserve_x(s, nd))) return st;
    const int prof = scl_profiling(s->ctx);
    scl_event e1 = NULL, e2 = NULL;
    st = x_dev ? scl_stream_copy(s->x, 0, x_dev, 0, nd, NULL)
               : scl_stream_write_range(s->x, 0, nd, in->x, 0, prof ? &e1 : NULL);
    if (st ||
        (st = scl_stream_write_range(s->xs, 0, nd, in->xshake, 0, prof ? &e2 : NULL))) {
        scl_finish(s->ctx);
        add_seconds(s, e1, &s->stats.t_upload);
        return st;
    }
    st = run_solve(s, fn, in, s->x, s->xs, NULL, 1, virial);
    add_seconds(s, e1, &s->stats.t_upload);
    add_seconds(s, e2, &s->stats.t_upload);
    if (st) {
        scl_finish(s->ctx);
        return st;
    }
    for (int m = 0; m < s->n; m++) {
        const int *a = s->atoms + 4 * (size_t)m;
        const double *fc = s->fc_host + 12 * (size_t)m;
        for (int p = 0; p < kind_atoms(s->kind[m]); p++)
            if (a[p] < in->nlocal)
                for (int k = 0; k < 3; k++) f[3 * a[p] + k] += fc[3 * p + k];
    }
    return SCL_OK;
}

scl_status scl_shake_solve_streams(scl_shake *s, const scl_shake_input *in, scl_stream *x,
                                   scl_stream *xshake, scl_stream *f, double virial[6])
{
    static const char *fn = "scl_shake_solve_streams";
    if (!s) return SCL_ERR_ARGUMENT;
    scl_status st = check_input(s, fn, in);
    if (st) return st;
    if (!x || !xshake || scl_stream_type(x) != SCL_DOUBLE || scl_stream_type(xshake) != SCL_DOUBLE ||
        (f && scl_stream_type(f) != SCL_DOUBLE))
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "x, xshake (and f) must be streams of double");
    size_t natoms = scl_stream_count(x) / 3;
    if (scl_stream_count(xshake) / 3 < natoms) natoms = scl_stream_count(xshake) / 3;
    if (f && scl_stream_count(f) / 3 < natoms) natoms = scl_stream_count(f) / 3;
    if (!s->n) return SCL_OK;
    if ((st = check_indices(s, fn, natoms > 0x7fffffff ? 0x7fffffff : (int)natoms))) return st;
    st = run_solve(s, fn, in, x, xshake, f, 0, virial);
    if (st) scl_finish(s->ctx);
    return st;
}

scl_status scl_shake_unconstrained_streams(scl_shake *s, int nlocal, scl_stream *x,
                                           scl_stream *v, scl_stream *f, double dtv,
                                           double dtfsq, scl_stream *xshake)
{
    static const char *fn = "scl_shake_unconstrained_streams";
    if (!s) return SCL_ERR_ARGUMENT;
    scl_stream *in[4] = {x, v, f, xshake};
    size_t natoms = (size_t)-1;
    for (int k = 0; k < 4; k++) {
        if (!in[k] || scl_stream_type(in[k]) != SCL_DOUBLE)
            return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "x, v, f and xshake must be streams of double");
        if (scl_stream_count(in[k]) / 3 < natoms) natoms = scl_stream_count(in[k]) / 3;
    }
    if (!isfinite(dtv) || !isfinite(dtfsq))
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "dtv %g, dtfsq %g", dtv, dtfsq);
    if (!s->n) return SCL_OK;
    scl_status st = check_indices(s, fn, natoms > 0x7fffffff ? 0x7fffffff : (int)natoms);
    if (st) return st;
    scl_kernel *k = s->unconstrained;
    const size_t global = ((size_t)s->n + s->wg - 1) / s->wg * s->wg, local = s->wg;
    if ((st = scl_kernel_set_int(k, "ncluster", s->n)) || (st = scl_kernel_set_int(k, "nlocal", nlocal)) ||
        (st = scl_kernel_set_stream(k, "kind", s->d_kind)) ||
        (st = scl_kernel_set_stream(k, "atoms", s->d_atoms)) ||
        (st = scl_kernel_set_stream(k, "mass", s->d_mass)) || (st = scl_kernel_set_stream(k, "x", x)) ||
        (st = scl_kernel_set_stream(k, "v", v)) || (st = scl_kernel_set_stream(k, "f", f)) ||
        (st = scl_kernel_set_double(k, "dtv", dtv)) || (st = scl_kernel_set_double(k, "dtfsq", dtfsq)) ||
        (st = scl_kernel_set_stream(k, "xs", xshake)))
        return st;
    return scl_kernel_launch(k, 1, &global, &local, NULL);
}

/* Grow a stream of type to at least count elements (contents not kept). */
static scl_status grow(scl_shake *s, scl_stream **st, size_t *cap, scl_type type, size_t count,
                       const char *label)
{
    if (*st && *cap >= count) return SCL_OK;
    scl_stream_free(*st);
    *st = NULL;
    *cap = 0;
    const size_t n = count + count / 8 + 64;
    scl_status r = scl_stream_create(s->ctx, label, type, n, 1, 1, 0, st);
    if (!r) *cap = n;
    return r;
}

scl_status scl_shake_set_extra_rows(scl_shake *s, int nlocal, const int *start, const int *rows)
{
    static const char *fn = "scl_shake_set_extra_rows";
    if (!s) return SCL_ERR_ARGUMENT;
    s->has_extra = 0;
    if (!start) return SCL_OK;
    if (nlocal < 0 || start[0] != 0)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "nlocal %d, start[0] %d (want 0)", nlocal,
                        nlocal >= 0 ? start[0] : 0);
    for (int i = 0; i < nlocal; i++)
        if (start[i + 1] < start[i])
            return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "start[%d] < start[%d]: offsets must "
                            "not decrease", i + 1, i);
    const int n = start[nlocal];
    for (int e = 0; e < n; e++)
        if (!rows || rows[e] < nlocal)
            return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "extra row %d is %d: extra rows "
                            "follow the %d owned ones", e, rows ? rows[e] : -1, nlocal);
    scl_status st = grow(s, &s->extra_start, &s->start_cap, SCL_INT, (size_t)nlocal + 1,
                         "shake.extra_start");
    if (!st) st = grow(s, &s->extra, &s->extra_cap, SCL_INT, (size_t)n + 1, "shake.extra");
    if (!st) st = scl_stream_write_range(s->extra_start, 0, (size_t)nlocal + 1, start, 1, NULL);
    if (!st && n > 0) st = scl_stream_write_range(s->extra, 0, (size_t)n, rows, 1, NULL);
    if (st) return st;
    s->has_extra = n > 0;
    s->extra_nlocal = nlocal;
    return SCL_OK;
}

static scl_status check_rows(scl_shake *s, const char *fn, const scl_shake_input *in,
                             const scl_shake_rows *r)
{
    if (!r || !r->x || !r->rows || (!r->v && !r->v_dev) || (r->rows_type != SCL_FLOAT && r->rows_type != SCL_DOUBLE) ||
        scl_stream_type(r->x) != SCL_DOUBLE || scl_stream_type(r->rows) != r->rows_type ||
        !isfinite(r->dtv))
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "x (double), rows (of rows_type, float or "
                        "double), v and a finite dtv must be given");
    if (r->v_dev && (scl_stream_type(r->v_dev) != SCL_DOUBLE ||
                     scl_stream_count(r->v_dev) < 3 * ((size_t)s->max_atom + 1)))
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "v_dev must hold doubles, 3 for each atom "
                        "up to the clusters' largest (%d)", s->max_atom);
    if (s->max_atom >= in->nlocal)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "a cluster names atom %d, not owned (nlocal "
                        "%d): this form takes clusters of owned atoms only", s->max_atom, in->nlocal);
    if (scl_stream_count(r->x) < 3 * ((size_t)s->max_atom + 1) ||
        scl_stream_count(r->rows) < 4 * (size_t)in->nlocal)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "x or rows hold fewer than the %d owned atoms",
                        in->nlocal);
    if (s->has_extra && s->extra_nlocal != in->nlocal)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn, "extra rows were set for %d owned atoms, not %d",
                        s->extra_nlocal, in->nlocal);
    return SCL_OK;
}

/* The rows kernels for float (dbl 0) or double rows, built once. */
static scl_status rows_kernels(scl_shake *s, int dbl)
{
    char opts[48];
    snprintf(opts, sizeof opts, "-DWG=%d -DROWS_DOUBLE=%d", s->wg, dbl);
    scl_kernel **kp = &s->rows_update[dbl];
    scl_status st = *kp ? SCL_OK : scl_kernel_create(s->ctx, "shake_rows", "shake_unconstrained_rows", opts, kp);
    if (!st && !s->rows_scatter[dbl])
        st = scl_kernel_create(s->ctx, "shake_rows", "shake_scatter_rows", opts, &s->rows_scatter[dbl]);
    return st;
}

scl_status scl_shake_prepare_rows(scl_shake *s, scl_type rows_type)
{
    if (!s) return SCL_ERR_ARGUMENT;
    if (rows_type != SCL_FLOAT && rows_type != SCL_DOUBLE)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, "scl_shake_prepare_rows",
                        "rows of %s: SCL_FLOAT or SCL_DOUBLE only", scl_type_name(rows_type));
    return rows_kernels(s, rows_type == SCL_DOUBLE);
}

/* The unconstrained update from the rows, queued. */
static scl_status launch_update_rows(scl_shake *s, const scl_shake_input *in,
                                     const scl_shake_rows *r, int dbl)
{
    scl_kernel **kp = &s->rows_update[dbl];
    scl_status st = rows_kernels(s, dbl);   /* (built at set-up by prepare_rows) */
    if (st) return st;
    const scl_arg_stream streams[] = {{"kind", s->d_kind},   {"atoms", s->d_atoms},
                                      {"mass", s->d_mass},   {"x", (scl_stream *)r->x},
                                      {"v", s->v},           {"rows", r->rows},
                                      {"start", s->has_extra ? s->extra_start : s->d_kind},
                                      {"extra", s->has_extra ? s->extra : s->d_kind},
                                      {"xs", s->xs}};
    const scl_arg_int ints[] = {{"ncluster", s->n}, {"nlocal", in->nlocal}, {"has_extra", s->has_extra}};
    st = scl_kernel_bind(*kp, streams, 9, ints, 3);
    if (!st) st = scl_kernel_set_double(*kp, "dtv", r->dtv);
    if (!st) st = scl_kernel_set_double(*kp, "dtfsq", in->dtfsq);
    const size_t global = ((size_t)s->n + s->wg - 1) / s->wg * s->wg, local = s->wg;
    return st ? st : scl_kernel_launch(*kp, 1, &global, &local, NULL);
}

scl_status scl_shake_solve_rows(scl_shake *s, const scl_shake_input *in, const scl_shake_rows *r,
                                double virial[6])
{
    static const char *fn = "scl_shake_solve_rows";
    if (!s) return SCL_ERR_ARGUMENT;
    scl_status st = check_input(s, fn, in);
    if (!st && s->n) st = check_rows(s, fn, in, r);
    if (st || !s->n) return st;
    const int dbl = r->rows_type == SCL_DOUBLE;
    const size_t nv = 3 * ((size_t)s->max_atom + 1);
    const int prof = scl_profiling(s->ctx);
    scl_event ev = NULL;
    if (!st) st = reserve_x(s, nv);
    if (!st) st = grow(s, &s->v, &s->vcap, SCL_DOUBLE, nv, "shake.v");
    if (!st)
        st = r->v_dev ? scl_stream_copy(s->v, 0, r->v_dev, 0, nv, prof ? &ev : NULL)
                      : scl_stream_write_range(s->v, 0, nv, r->v, 0, prof ? &ev : NULL);
    if (!st) st = launch_update_rows(s, in, r, dbl);
    if (!st) st = run_solve(s, fn, in, (scl_stream *)r->x, s->xs, NULL, 0, virial);
    add_seconds(s, ev, &s->stats.t_upload);
    const size_t global = ((size_t)s->n + s->wg - 1) / s->wg * s->wg, local = s->wg;
    const scl_arg_stream streams[] = {{"kind", s->d_kind}, {"atoms", s->d_atoms},
                                      {"fc", s->fc}, {"rows", r->rows}};
    const scl_arg_int ints[] = {{"ncluster", s->n}, {"nlocal", in->nlocal}};
    if (!st) st = scl_kernel_bind(s->rows_scatter[dbl], streams, 4, ints, 2);
    if (!st) st = scl_kernel_launch(s->rows_scatter[dbl], 1, &global, &local, NULL);
    if (st) scl_finish(s->ctx);
    return st;
}
