/* Device driver of the resident velocity Verlet (see streamcl/integrate.h):
 * x, v, the reference positions of the displacement check, dtf/m and m per
 * atom on the device; kernels of integrate.cl built at create. */
#include "streamcl/integrate.h"

#include "core/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_X, S_V, S_HOLD, S_DTFM, S_MASS, S_PART, NSTREAMS };
enum { K_HALF, K_SCALE, K_SUMS, NKERNELS };

struct scl_integrate {
    scl_context *ctx;
    scl_integrate_options o;
    int wg, n;
    scl_stream *s[NSTREAMS];
    scl_kernel *k[NKERNELS];
    double *part_host;   /* 7 per work-group */
};

void scl_integrate_options_default(scl_integrate_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->precision = SCL_PREC_MIXED;
    o->dt = 1.0;
    o->ftm2v = 1.0;
    o->force_type = SCL_DOUBLE;
    o->work_group = 0;
}

static scl_status check_options(scl_context *ctx, const scl_integrate_options *o, const char *fn)
{
    if (o->precision != SCL_PREC_MIXED && o->precision != SCL_PREC_DOUBLE)
        return scl_fail(ctx, o->precision == SCL_PREC_SINGLE ? SCL_ERR_UNSUPPORTED : SCL_ERR_ARGUMENT,
                        fn, "precision %d: x and v are double (use mixed or double)",
                        (int)o->precision);
    if (!(o->dt > 0) || !isfinite(o->dt) || !(o->ftm2v > 0) || !isfinite(o->ftm2v))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "dt %g and ftm2v %g must be positive and finite",
                        o->dt, o->ftm2v);
    if (o->force_type != SCL_DOUBLE && o->force_type != SCL_FLOAT)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "force_type %d is neither SCL_FLOAT nor SCL_DOUBLE",
                        (int)o->force_type);
    const int wg = o->work_group ? o->work_group : 64;
    if (wg < 1 || wg > 256 || (wg & (wg - 1)))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "work_group %d is not a power of two <= 256",
                        o->work_group);
    if (!scl_device(ctx)->fp64)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn, "x and v are double: the device needs fp64");
    return SCL_OK;
}

scl_status scl_integrate_create(scl_context *ctx, const scl_integrate_options *opt,
                                scl_integrate **out)
{
    static const char *fn = "scl_integrate_create";
    if (!out) return SCL_ERR_ARGUMENT;
    *out = NULL;
    if (!ctx) return SCL_ERR_ARGUMENT;
    scl_integrate_options o;
    scl_integrate_options_default(&o);
    if (opt) o = *opt;
    scl_status st = check_options(ctx, &o, fn);
    if (st != SCL_OK) return st;
    scl_integrate *it = scl_calloc(ctx, 1, sizeof *it, fn);
    if (!it) return SCL_ERR_MEMORY;
    it->ctx = ctx;
    it->o = o;
    it->wg = o.work_group ? o.work_group : 64;
    char opts[64];
    snprintf(opts, sizeof opts, "-DFREAL=%s -DWG=%d",
             o.force_type == SCL_FLOAT ? "float" : "double", it->wg);
    static const char *const names[NKERNELS] = {"integrate_half", "integrate_scale",
                                                "integrate_sums"};
    for (int k = 0; k < NKERNELS && st == SCL_OK; k++)
        st = scl_kernel_create(ctx, "integrate", names[k], opts, &it->k[k]);
    if (st != SCL_OK) {
        scl_integrate_free(it);
        return st;
    }
    *out = it;
    return SCL_OK;
}

void scl_integrate_free(scl_integrate *it)
{
    if (!it) return;
    scl_kernels_free(it->k, NKERNELS);
    scl_streams_free(it->s, NSTREAMS);
    free(it->part_host);
    free(it);
}

int scl_integrate_count(const scl_integrate *it) { return it ? it->n : 0; }

static int groups_of(const scl_integrate *it) { return it->n > 0 ? (it->n + it->wg - 1) / it->wg : 1; }

/* the first bad atom of the input, or -1 */
static int bad_atom(int n, const double *x, const double *v, const double *mass)
{
    for (int i = 0; i < n; i++) {
        if (!(mass[i] > 0) || !isfinite(mass[i])) return i;
        for (int d = 0; d < 3; d++)
            if (!isfinite(x[3 * i + d]) || !isfinite(v[3 * i + d])) return i;
    }
    return -1;
}

/* (re)allocate the per-atom streams for n atoms (at least one row) */
static scl_status reserve(scl_integrate *it, int n, const char *fn)
{
    static const char *const labels[NSTREAMS] = {"integrate.x",    "integrate.v",
                                                 "integrate.xhold", "integrate.dtfm",
                                                 "integrate.mass", "integrate.partials"};
    const size_t rows = n > 0 ? (size_t)n : 1;
    const size_t groups = (rows + (size_t)it->wg - 1) / (size_t)it->wg;
    const size_t count[NSTREAMS] = {3 * rows, 3 * rows, 3 * rows, rows, rows, 7 * groups};
    scl_status st = SCL_OK;
    for (int s = 0; s < NSTREAMS && st == SCL_OK; s++) {
        if (it->s[s] && scl_stream_count(it->s[s]) >= count[s]) continue;
        scl_stream_free(it->s[s]);
        it->s[s] = NULL;
        st = scl_stream_create(it->ctx, labels[s], SCL_DOUBLE, count[s], 1, 1, 0, &it->s[s]);
    }
    if (st != SCL_OK) return st;
    double *p = realloc(it->part_host, 7 * groups * sizeof *p);
    if (!p) return scl_fail(it->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    it->part_host = p;
    return SCL_OK;
}

scl_status scl_integrate_set_atoms(scl_integrate *it, int n, const double *x, const double *v,
                                   const double *mass)
{
    static const char *fn = "scl_integrate_set_atoms";
    if (!it) return SCL_ERR_ARGUMENT;
    if (n < 0 || (n > 0 && (!x || !v || !mass)))
        return scl_fail(it->ctx, SCL_ERR_ARGUMENT, fn, "n %d with x, v or mass NULL", n);
    const int bad = bad_atom(n, x, v, mass);
    if (bad >= 0)
        return scl_fail(it->ctx, SCL_ERR_ARGUMENT, fn, "atom %d: non-finite x or v, or a mass "
                        "that is not positive and finite (%g)", bad, mass[bad]);
    scl_status st = reserve(it, n, fn);
    if (st != SCL_OK) return st;
    it->n = n;
    if (n == 0) return SCL_OK;
    double *dtfm = scl_calloc(it->ctx, (size_t)n, sizeof *dtfm, fn);
    if (!dtfm) return SCL_ERR_MEMORY;
    const double dtf = 0.5 * it->o.dt * it->o.ftm2v;   /* FixNVE: dtf / mass */
    for (int i = 0; i < n; i++) dtfm[i] = dtf / mass[i];
    const size_t r = 3 * (size_t)n;
    if ((st = scl_stream_write_range(it->s[S_X], 0, r, x, 1, NULL)) == SCL_OK &&
        (st = scl_stream_write_range(it->s[S_HOLD], 0, r, x, 1, NULL)) == SCL_OK &&
        (st = scl_stream_write_range(it->s[S_V], 0, r, v, 1, NULL)) == SCL_OK &&
        (st = scl_stream_write_range(it->s[S_MASS], 0, (size_t)n, mass, 1, NULL)) == SCL_OK)
        st = scl_stream_write_range(it->s[S_DTFM], 0, (size_t)n, dtfm, 1, NULL);
    free(dtfm);
    return st;
}

static scl_status half(scl_integrate *it, const scl_stream *f, int first, const char *fn)
{
    if (!it) return SCL_ERR_ARGUMENT;
    if (it->n == 0) return SCL_OK;
    if (!f || scl_stream_type(f) != it->o.force_type || scl_stream_count(f) < 4 * (size_t)it->n)
        return scl_fail(it->ctx, SCL_ERR_ARGUMENT, fn, "the force rows must be a stream of the "
                        "options' force_type with at least 4 * %d values", it->n);
    scl_kernel *k = it->k[K_HALF];
    const scl_arg_stream streams[] = {{"x", it->s[S_X]},
                                      {"v", it->s[S_V]},
                                      {"f", (scl_stream *)f},
                                      {"dtfm", it->s[S_DTFM]}};
    const scl_arg_int ints[] = {{"n", it->n}, {"first_half", first}};
    scl_status st = scl_kernel_bind(k, streams, 4, ints, 2);
    if (st == SCL_OK) st = scl_kernel_set_double(k, "dtv", it->o.dt);
    const size_t local = 64, global = ((size_t)it->n + local - 1) / local * local;
    if (st == SCL_OK) st = scl_kernel_launch(k, 1, &global, &local, NULL);
    return st;
}

scl_status scl_integrate_initial(scl_integrate *it, const scl_stream *f)
{
    return half(it, f, 1, "scl_integrate_initial");
}

scl_status scl_integrate_final(scl_integrate *it, const scl_stream *f)
{
    return half(it, f, 0, "scl_integrate_final");
}

scl_status scl_integrate_scale_v(scl_integrate *it, const double scale[3])
{
    if (!it || !scale) return SCL_ERR_ARGUMENT;
    if (it->n == 0) return SCL_OK;
    scl_kernel *k = it->k[K_SCALE];
    const scl_arg_real reals[] = {{"sx", scale[0]}, {"sy", scale[1]}, {"sz", scale[2]}};
    const scl_arg_stream streams[] = {{"v", it->s[S_V]}};
    const scl_arg_int ints[] = {{"n", it->n}};
    scl_status st = scl_kernel_bind(k, streams, 1, ints, 1);
    if (st == SCL_OK) st = scl_kernel_bind_reals(k, reals, 3);
    const size_t local = 64, global = ((size_t)it->n + local - 1) / local * local;
    if (st == SCL_OK) st = scl_kernel_launch(k, 1, &global, &local, NULL);
    return st;
}

/* the work-group partials of `what` (0: m v v, 1: displacement), read back */
static scl_status sums(scl_integrate *it, int what)
{
    scl_kernel *k = it->k[K_SUMS];
    const scl_arg_stream streams[] = {{"x", it->s[S_X]},       {"xhold", it->s[S_HOLD]},
                                      {"v", it->s[S_V]},       {"mass", it->s[S_MASS]},
                                      {"part", it->s[S_PART]}};
    const scl_arg_int ints[] = {{"n", it->n}, {"what", what}};
    scl_status st = scl_kernel_bind(k, streams, 5, ints, 2);
    const size_t local = (size_t)it->wg, global = (size_t)groups_of(it) * local;
    if (st == SCL_OK) st = scl_kernel_launch(k, 1, &global, &local, NULL);
    if (st == SCL_OK)
        st = scl_stream_read_range(it->s[S_PART], 0, 7 * (size_t)groups_of(it), it->part_host, 1,
                                   NULL);
    return st;
}

scl_status scl_integrate_kinetic(scl_integrate *it, double mvv[6])
{
    if (!it || !mvv) return SCL_ERR_ARGUMENT;
    for (int c = 0; c < 6; c++) mvv[c] = 0.0;
    if (it->n == 0) return SCL_OK;
    scl_status st = sums(it, 0);
    if (st != SCL_OK) return st;
    for (int g = 0; g < groups_of(it); g++)
        for (int c = 0; c < 6; c++) mvv[c] += it->part_host[7 * g + c];
    return SCL_OK;
}

scl_status scl_integrate_max_displacement(scl_integrate *it, double *d2)
{
    if (!it || !d2) return SCL_ERR_ARGUMENT;
    *d2 = 0.0;
    if (it->n == 0) return SCL_OK;
    scl_status st = sums(it, 1);
    if (st != SCL_OK) return st;
    for (int g = 0; g < groups_of(it); g++)
        if (it->part_host[7 * g + 6] > *d2) *d2 = it->part_host[7 * g + 6];
    return SCL_OK;
}

scl_stream *scl_integrate_positions(scl_integrate *it) { return it ? it->s[S_X] : NULL; }
scl_stream *scl_integrate_velocities(scl_integrate *it) { return it ? it->s[S_V] : NULL; }

scl_status scl_integrate_read(scl_integrate *it, double *x, double *v)
{
    if (!it) return SCL_ERR_ARGUMENT;
    const size_t r = 3 * (size_t)it->n;
    scl_status st = SCL_OK;
    if (r > 0 && x) st = scl_stream_read_range(it->s[S_X], 0, r, x, 1, NULL);
    if (r > 0 && v && st == SCL_OK) st = scl_stream_read_range(it->s[S_V], 0, r, v, 1, NULL);
    return st;
}
