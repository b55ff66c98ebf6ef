/* gprMax input, outputs and run settings: #snapshot #geometry_view #messages
 * #omp_threads. */
#include "input_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* #snapshot */
scl_status fdtd_in_parse_snapshot(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    char why[512];
    scl_status s;
    /* x1 y1 z1 x2 y2 z2 dx dy dz T name: T an integer is the iteration,
     * a real the time, mapped to the nearest step (gprMax) */
    scl_fdtd_snapshot sn;
    memset(&sn, 0, sizeof sn);
    if ((s = fdtd_in_sampled_box(in, c, m, 0, sn.lo, sn.hi, sn.step, err, errlen)) != SCL_OK)
        return s;
    long it;
    double t;
    if (scl_parse_int(c->tok[9], &it) == 0) {
        sn.iteration = it;
    } else if (fdtd_in_reals(in, c, 9, 1, &t, err, errlen) == 0) {
        sn.iteration = lround(t / m->dt);
    } else
        return SCL_ERR_INPUT;
    if (sn.iteration < 0 || sn.iteration >= m->iterations) {
        snprintf(why, sizeof why, "iteration %ld is outside the run's 0 to %ld", sn.iteration,
                 m->iterations - 1);
        return fdtd_in_fail(in, c, err, errlen, why);
    }
    const char *name = c->tok[10], *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".vtkhdf") != 0)
        return fdtd_in_fail(in, c, err, errlen, "snapshots are written as .vtkhdf (the .h5 form is not supported)");
    if (strchr(name, '/') || strlen(name) > 200)
        return fdtd_in_fail(in, c, err, errlen, "the file name has no directory part and at most 200 characters");
    /* INPUT_snaps/NAME.vtkhdf beside the input, as gprMax 4 */
    const char *slash = strrchr(in->r.path, '/'), *base = slash ? slash + 1 : in->r.path;
    const char *ext = strrchr(base, '.');
    int dirlen = (int)(base - in->r.path), stem = ext ? (int)(ext - base) : (int)strlen(base);
    if (snprintf(sn.file, sizeof sn.file, "%.*s%.*s_snaps/%s%s", dirlen, in->r.path, stem, base,
                 name, dot ? "" : ".vtkhdf") >= (int)sizeof sn.file)
        return fdtd_in_fail(in, c, err, errlen, "the snapshot's file path is too long");
    return fdtd_in_push(&m->snap, &m->nsnap, &sn, sizeof sn);
}

/* #geometry_view */
scl_status fdtd_in_parse_gview(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s;
    scl_fdtd_geometry_view gv;
    memset(&gv, 0, sizeof gv);
    if ((s = fdtd_in_sampled_box(in, c, m, 0, gv.lo, gv.hi, gv.step, err, errlen)) != SCL_OK)
        return s;
    if (strcmp(c->tok[10], "f") == 0)
        return fdtd_in_fail(in, c, err, errlen,
                    "the fine ('f', per-edge) geometry view is not supported; use 'n'");
    if (strcmp(c->tok[10], "n") != 0)
        return fdtd_in_fail(in, c, err, errlen, "the type is 'n' (per cell) or 'f' (per edge)");
    if (strchr(c->tok[9], '/') || strlen(c->tok[9]) > 200)
        return fdtd_in_fail(in, c, err, errlen, "the file name has no directory part and at most 200 characters");
    /* beside the input file, as gprMax 4 puts it (FILE.vtkhdf) */
    const char *slash = strrchr(in->r.path, '/');
    int dirlen = slash ? (int)(slash - in->r.path + 1) : 0;
    if (snprintf(gv.file, sizeof gv.file, "%.*s%s", dirlen, in->r.path, c->tok[9]) >=
        (int)sizeof gv.file)
        return fdtd_in_fail(in, c, err, errlen, "the view's file path is too long");
    return fdtd_in_push(&m->gview, &m->ngview, &gv, sizeof gv);
}

/* #messages */
scl_status fdtd_in_parse_messages(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    (void)m;
    if (fdtd_in_nparams(in, c, 1, 1, err, errlen))
        return SCL_ERR_INPUT;
    /* gprMax takes y or n only */
    if (!c->tok[0][0] || c->tok[0][1] || !strchr("yYnN", c->tok[0][0]))
        return fdtd_in_fail(in, c, err, errlen, "expected y or n");
    return SCL_OK;
}

/* #omp_threads (#num_threads, its older name): gprMax's OpenMP thread count; checked, then left to the
 * device (the OpenCL runtime picks its own threads) */
scl_status fdtd_in_parse_omp_threads(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                     size_t errlen)
{
    (void)m;
    long n;
    if (fdtd_in_nparams(in, c, 1, 1, err, errlen))
        return SCL_ERR_INPUT;
    if (scl_parse_int(c->tok[0], &n) != 0 || n < 1)
        return fdtd_in_fail(in, c, err, errlen, "expected a thread count >= 1");
    return SCL_OK;
}
