/* The run file of `streamcl seismic` (format in seismic.h). */
#include "streamcl/grid3d.h"
#include "streamcl/seismic.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RECEIVERS 100000
#define MAX_TOKENS 16

typedef struct {
    int line;
    double pos[3];
} pending_point;

typedef struct {
    scl_linereader lr;
    char dir[1024];                 /* the run file's directory, with '/' */
    int have_grid, model_kind;      /* 0 none, 1 homogeneous, 2 layered, 3 raw */
    double hom[3];
    char model_file[1200];
    long model_line, dt_line, time_line, steps_line;
    double duration;
    long steps;
    pending_point src_at[SCL_SEIS_MAX_SOURCES];
    pending_point *rec_at;
    int nrec, rec_cap;
} parse_state;

static int add_receiver(parse_state *ps, const double p[3])
{
    if (ps->nrec == MAX_RECEIVERS)
        return -1;
    if (ps->nrec == ps->rec_cap) {
        int cap = ps->rec_cap ? 2 * ps->rec_cap : 64;
        pending_point *q = realloc(ps->rec_at, (size_t)cap * sizeof *q);
        if (!q)
            return -1;
        ps->rec_at = q;
        ps->rec_cap = cap;
    }
    ps->rec_at[ps->nrec].line = (int)ps->lr.line;
    memcpy(ps->rec_at[ps->nrec].pos, p, sizeof ps->rec_at[0].pos);
    ps->nrec++;
    return 0;
}

/* Numbers tok[first .. first+n-1]. */
static int numbers(char **tok, int first, int n, double *v)
{
    for (int q = 0; q < n; q++)
        if (scl_parse_real(tok[first + q], &v[q]) != 0)
            return -1;
    return 0;
}

/* "WAVELET F AMP [DELAY]" at tok[first]. */
static scl_status parse_wavelet(parse_state *ps, char **tok, int ntok, int first,
                                scl_wavelet *w, char *err, size_t errlen)
{
    if (ntok != first + 3 && ntok != first + 4)
        return scl_linereader_fail(&ps->lr, err, errlen,
                                   "expected WAVELET FREQUENCY AMPLITUDE [DELAY] after the "
                                   "position%s",
                                   first > 4 ? " and the source's components" : "");
    const int kind = scl_wavelet_kind_from_name(tok[first]);
    if (kind < 0)
        return scl_linereader_fail(&ps->lr, err, errlen, "unknown wavelet '%s' (ricker, gaussian, "
                                   "gaussiandot, ...)", tok[first]);
    memset(w, 0, sizeof *w);
    w->kind = (scl_wavelet_kind)kind;
    if (scl_parse_real(tok[first + 1], &w->freq) != 0 || !(w->freq > 0))
        return scl_linereader_fail(&ps->lr, err, errlen, "wavelet frequency '%s' must be a "
                                   "positive number", tok[first + 1]);
    if (scl_parse_real(tok[first + 2], &w->amp) != 0)
        return scl_linereader_fail(&ps->lr, err, errlen, "bad amplitude '%s'", tok[first + 2]);
    if (ntok == first + 4) {
        if (scl_parse_real(tok[first + 3], &w->delay) != 0 || w->delay < 0)
            return scl_linereader_fail(&ps->lr, err, errlen, "delay '%s' must be a number >= 0",
                                       tok[first + 3]);
        w->delay_set = 1;
    }
    return SCL_OK;
}

/* One command of the run file: tok[0 .. ntok-1], with tok[0] its name. */
typedef scl_status (*line_fn)(parse_state *ps, scl_seis_run *run, char **tok, int ntok,
                              char *err, size_t errlen);

/* grid NX NY NZ H */
static scl_status line_grid(parse_state *ps, scl_seis_run *run, char **tok, int ntok, char *err,
                            size_t errlen)
{
    scl_linereader *lr = &ps->lr;
    double h;
    long iv;
    if (ntok != 5 || numbers(tok, 4, 1, &h) != 0)
        return scl_linereader_fail(lr, err, errlen, "expected 'grid NX NY NZ H'");
    int *dims[3] = {&run->model.nx, &run->model.ny, &run->model.nz};
    for (int a = 0; a < 3; a++) {
        if (scl_parse_int(tok[1 + a], &iv) != 0 || iv < 2 || iv > 100000)
            return scl_linereader_fail(lr, err, errlen,
                                       "grid size '%s' must be an integer in [2, 100000]",
                                       tok[1 + a]);
        *dims[a] = (int)iv;
    }
    if (!(h > 0))
        return scl_linereader_fail(lr, err, errlen, "cell size %g must be positive", h);
    run->model.h = h;
    ps->have_grid = 1;
    /* the model (vp, vs, rho as float) and the set-up's padded double
     * copies live on the host first: about 52 bytes per cell. Refused
     * here, before any of it is allocated, above half the host's memory */
    const double cells = (double)run->model.nx * run->model.ny * run->model.nz;
    const double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (host > 0 && cells * 52.0 > 0.5 * host)
        return scl_linereader_fail(lr, err, errlen,
                                   "a %d x %d x %d grid needs about %.1f GiB of host memory "
                                   "for its model and set-up; this host has %.1f GiB",
                                   run->model.nx, run->model.ny, run->model.nz,
                                   cells * 52.0 / 1073741824.0, host / 1073741824.0);
    return SCL_OK;
}

/* model homogeneous VP VS RHO: the numbers at tok[2..4]. */
static scl_status model_homogeneous(parse_state *ps, char **tok, char *err, size_t errlen)
{
    scl_linereader *lr = &ps->lr;
    const double *m = ps->hom;
    if (numbers(tok, 2, 3, ps->hom) != 0)
        return scl_linereader_fail(lr, err, errlen, "expected 'model homogeneous VP VS RHO'");
    if (m[0] > 1e10 || m[1] > 1e10 || m[2] > 1e10)
        return scl_linereader_fail(lr, err, errlen, "vp, vs and rho must be below 1e10");
    if (!(m[0] > 0) || !(m[2] > 0) || m[1] < 0)
        return scl_linereader_fail(lr, err, errlen,
                                   "vp %g and density %g must be positive, vs %g >= 0", m[0],
                                   m[2], m[1]);
    if (m[0] < 1e-6 || m[2] < 1e-6) /* stored as float */
        return scl_linereader_fail(lr, err, errlen, "vp %g and density %g must be at least 1e-6",
                                   m[0], m[2]);
    if (m[1] >= sqrt(3.0) / 2 * m[0])
        return scl_linereader_fail(lr, err, errlen,
                                   "vs %g >= (sqrt(3)/2) vp = %g gives a negative bulk "
                                   "modulus",
                                   m[1], sqrt(3.0) / 2 * m[0]);
    ps->model_kind = 1;
    return SCL_OK;
}

/* model homogeneous VP VS RHO | layered FILE | raw HEADER */
static scl_status line_model(parse_state *ps, scl_seis_run *run, char **tok, int ntok, char *err,
                             size_t errlen)
{
    (void)run;
    ps->model_line = ps->lr.line;
    if (ntok == 5 && !strcmp(tok[1], "homogeneous"))
        return model_homogeneous(ps, tok, err, errlen);
    if (ntok == 3 && (!strcmp(tok[1], "layered") || !strcmp(tok[1], "raw"))) {
        ps->model_kind = !strcmp(tok[1], "layered") ? 2 : 3;
        snprintf(ps->model_file, sizeof ps->model_file, "%s%s", tok[2][0] == '/' ? "" : ps->dir,
                 tok[2]);
        return SCL_OK;
    }
    return scl_linereader_fail(&ps->lr, err, errlen,
                               "expected 'model homogeneous VP VS RHO', 'model layered "
                               "FILE' or 'model raw HEADER'");
}

/* time SECONDS or steps N: the run's length, one of the two. */
static scl_status line_length(parse_state *ps, scl_seis_run *run, char **tok, int ntok, char *err,
                              size_t errlen)
{
    (void)run;
    scl_linereader *lr = &ps->lr;
    double v;
    long iv;
    const int is_time = !strcmp(tok[0], "time");
    const long other = is_time ? ps->steps_line : ps->time_line;
    if (is_time && (ntok != 2 || numbers(tok, 1, 1, &v) != 0 || !(v > 0)))
        return scl_linereader_fail(lr, err, errlen, "expected 'time SECONDS' (> 0)");
    if (!is_time && (ntok != 2 || scl_parse_int(tok[1], &iv) != 0 || iv < 1 || iv > 100000000))
        return scl_linereader_fail(lr, err, errlen, "expected 'steps N' (1 to 1e8)");
    if (other)
        return scl_linereader_fail(lr, err, errlen,
                                   "'%s' and '%s' (line %ld) both set the length; give one",
                                   tok[0], is_time ? "steps" : "time", other);
    if (is_time) {
        ps->duration = v;
        ps->time_line = lr->line;
    } else {
        ps->steps = iv;
        ps->steps_line = lr->line;
    }
    return SCL_OK;
}

/* dt, order, surface, pml and precision: one setting of the config each. */
static scl_status line_setting(parse_state *ps, scl_seis_run *run, char **tok, int ntok,
                               char *err, size_t errlen)
{
    scl_linereader *lr = &ps->lr;
    scl_seis_config *c = &run->config;
    const char *cmd = tok[0];
    double v;
    long iv;
    if (!strcmp(cmd, "dt")) {
        if (ntok != 2 || numbers(tok, 1, 1, &v) != 0 || !(v > 0))
            return scl_linereader_fail(lr, err, errlen, "expected 'dt SECONDS' (> 0)");
        c->dt = v;
        ps->dt_line = lr->line;
    } else if (!strcmp(cmd, "order")) {
        if (ntok != 2 || scl_parse_int(tok[1], &iv) != 0 || (iv != 2 && iv != 4))
            return scl_linereader_fail(lr, err, errlen, "expected 'order 2' or 'order 4'");
        c->order = (int)iv;
    } else if (!strcmp(cmd, "surface")) {
        if (ntok != 2 || (strcmp(tok[1], "free") && strcmp(tok[1], "absorbing")))
            return scl_linereader_fail(lr, err, errlen, "expected 'surface free|absorbing'");
        c->free_surface = !strcmp(tok[1], "free");
    } else if (!strcmp(cmd, "pml")) {
        if ((ntok != 2 && ntok != 3) || scl_parse_int(tok[1], &iv) != 0 || iv < 0 || iv > 1000)
            return scl_linereader_fail(lr, err, errlen, "expected 'pml CELLS [REFLECTION]'");
        c->pml = (int)iv;
        if (ntok == 3 && (numbers(tok, 2, 1, &v) != 0 || !(v > 0 && v < 1)))
            return scl_linereader_fail(lr, err, errlen, "pml reflection must be in (0, 1)");
        if (ntok == 3)
            c->pml_r = v;
    } else {
        if (ntok != 2 || (strcmp(tok[1], "single") && strcmp(tok[1], "double")))
            return scl_linereader_fail(lr, err, errlen, "expected 'precision single|double'");
        c->fp64 = !strcmp(tok[1], "double");
    }
    return SCL_OK;
}

/* The source kinds: the numbers after the kind (position, then the force's
 * direction or the moment tensor) end before tok[first], the wavelet. */
static const struct {
    const char *name;
    scl_seis_source_kind kind;
    int first;
} source_kinds[] = {{"force", SCL_SEIS_FORCE, 8},
                    {"explosive", SCL_SEIS_EXPLOSIVE, 5},
                    {"moment", SCL_SEIS_MOMENT, 11}};

/* source force|explosive|moment X Y Z [components] WAVELET F AMP [DELAY] */
static scl_status line_source(parse_state *ps, scl_seis_run *run, char **tok, int ntok, char *err,
                              size_t errlen)
{
    scl_linereader *lr = &ps->lr;
    scl_seis_config *c = &run->config;
    double v[9];
    if (c->nsources == SCL_SEIS_MAX_SOURCES)
        return scl_linereader_fail(lr, err, errlen, "more than %d sources", SCL_SEIS_MAX_SOURCES);
    scl_seis_source *src = &run->sources[c->nsources];
    memset(src, 0, sizeof *src);
    int first = 0;
    for (size_t k = 0; ntok >= 2 && k < sizeof source_kinds / sizeof source_kinds[0]; k++)
        if (!strcmp(tok[1], source_kinds[k].name)) {
            src->kind = source_kinds[k].kind;
            first = source_kinds[k].first;
        }
    if (!first)
        return scl_linereader_fail(lr, err, errlen, "expected 'source force|explosive|moment ...'");
    if (ntok < first || numbers(tok, 2, first - 2, v) != 0)
        return scl_linereader_fail(lr, err, errlen, "source %s: expected %d numbers after '%s'",
                                   tok[1], first - 2, tok[1]);
    if (src->kind == SCL_SEIS_FORCE) {
        memcpy(src->dir, v + 3, 3 * sizeof(double));
        if (fabs(v[3]) + fabs(v[4]) + fabs(v[5]) == 0)
            return scl_linereader_fail(lr, err, errlen, "force direction is zero");
    }
    if (src->kind == SCL_SEIS_MOMENT)
        memcpy(src->m, v + 3, 6 * sizeof(double));
    scl_status st = parse_wavelet(ps, tok, ntok, first, &src->wavelet, err, errlen);
    if (st != SCL_OK)
        return st;
    ps->src_at[c->nsources].line = (int)lr->line;
    memcpy(ps->src_at[c->nsources].pos, v, 3 * sizeof(double));
    c->nsources++;
    return SCL_OK;
}

static scl_status too_many_receivers(parse_state *ps, char *err, size_t errlen)
{
    return scl_linereader_fail(&ps->lr, err, errlen, "too many receivers (at most %d)",
                               MAX_RECEIVERS);
}

/* receiver X Y Z, or receivers X0 Y0 Z0 X1 Y1 Z1 N: N on a line. */
static scl_status line_receivers(parse_state *ps, scl_seis_run *run, char **tok, int ntok,
                                 char *err, size_t errlen)
{
    (void)run;
    double v[6];
    long iv;
    if (!strcmp(tok[0], "receiver")) {
        if (ntok != 4 || numbers(tok, 1, 3, v) != 0)
            return scl_linereader_fail(&ps->lr, err, errlen, "expected 'receiver X Y Z'");
        return add_receiver(ps, v) != 0 ? too_many_receivers(ps, err, errlen) : SCL_OK;
    }
    if (ntok != 8 || numbers(tok, 1, 6, v) != 0 || scl_parse_int(tok[7], &iv) != 0 || iv < 2 ||
        iv > MAX_RECEIVERS)
        return scl_linereader_fail(&ps->lr, err, errlen,
                                   "expected 'receivers X0 Y0 Z0 X1 Y1 Z1 N' with N >= 2");
    for (long q = 0; q < iv; q++) {
        const double t = (double)q / (double)(iv - 1);
        const double p[3] = {v[0] + t * (v[3] - v[0]), v[1] + t * (v[4] - v[1]),
                             v[2] + t * (v[5] - v[2])};
        if (add_receiver(ps, p) != 0)
            return too_many_receivers(ps, err, errlen);
    }
    return SCL_OK;
}

/* receiver_grid X0 Y0 X1 Y1 Z NX NY: NX x NY receivers on the plane z = Z. */
static scl_status line_receiver_grid(parse_state *ps, scl_seis_run *run, char **tok, int ntok,
                                     char *err, size_t errlen)
{
    (void)run;
    scl_linereader *lr = &ps->lr;
    double v[5];
    long nx_r, ny_r;
    if (ntok != 8 || numbers(tok, 1, 5, v) != 0 || scl_parse_int(tok[6], &nx_r) != 0 ||
        scl_parse_int(tok[7], &ny_r) != 0 || nx_r < 1 || ny_r < 1)
        return scl_linereader_fail(lr, err, errlen,
                                   "expected 'receiver_grid X0 Y0 X1 Y1 Z NX NY' with "
                                   "NX, NY >= 1");
    if ((double)nx_r * (double)ny_r > MAX_RECEIVERS)
        return scl_linereader_fail(lr, err, errlen,
                                   "receiver_grid %ld x %ld is %.0f receivers: at most %d", nx_r,
                                   ny_r, (double)nx_r * (double)ny_r, MAX_RECEIVERS);
    for (long b = 0; b < ny_r; b++)
        for (long a = 0; a < nx_r; a++) {
            const double ta = nx_r > 1 ? (double)a / (double)(nx_r - 1) : 0;
            const double tb = ny_r > 1 ? (double)b / (double)(ny_r - 1) : 0;
            const double p[3] = {v[0] + ta * (v[2] - v[0]), v[1] + tb * (v[3] - v[1]), v[4]};
            if (add_receiver(ps, p) != 0)
                return too_many_receivers(ps, err, errlen);
        }
    return SCL_OK;
}

/* The run file's commands and their parsers. */
static const struct {
    const char *name;
    line_fn fn;
} line_cmds[] = {
    {"grid", line_grid},
    {"model", line_model},
    {"time", line_length},
    {"steps", line_length},
    {"dt", line_setting},
    {"order", line_setting},
    {"surface", line_setting},
    {"pml", line_setting},
    {"precision", line_setting},
    {"source", line_source},
    {"receiver", line_receivers},
    {"receivers", line_receivers},
    {"receiver_grid", line_receiver_grid},
};

static scl_status parse_line(parse_state *ps, scl_seis_run *run, char **tok, int ntok, char *err,
                             size_t errlen)
{
    for (size_t k = 0; k < sizeof line_cmds / sizeof line_cmds[0]; k++)
        if (!strcmp(tok[0], line_cmds[k].name))
            return line_cmds[k].fn(ps, run, tok, ntok, err, errlen);
    return scl_linereader_fail(&ps->lr, err, errlen,
                               "unknown command '%s' (grid, model, time, steps, dt, order, "
                               "surface, pml, precision, source, receiver, receivers, "
                               "receiver_grid)",
                               tok[0]);
}

/* Positions to cells, then model, time step and the full check. */
static scl_status finish_run(parse_state *ps, scl_seis_run *run, const char *path, char *warn,
                             size_t warnlen, char *err, size_t errlen)
{
    scl_seis_model *m = &run->model;
    scl_seis_config *c = &run->config;
    scl_status st;
    char e2[1024];
    if (!ps->model_kind)
        return scl_linereader_fail(&ps->lr, err, errlen, "no 'model' line");
    if (ps->model_kind == 3) {
        const scl_seis_model want = *m;
        st = scl_seis_read_raw(ps->model_file, m, e2, sizeof e2);
        if (st != SCL_OK) {
            snprintf(err, errlen, "%s:%ld: %s", path, ps->model_line, e2);
            return st;
        }
        if (ps->have_grid && (want.nx != m->nx || want.ny != m->ny || want.nz != m->nz ||
                              want.h != m->h)) {
            snprintf(err, errlen, "%s:%ld: the raw model's grid %d x %d x %d, h %g differs from "
                     "the 'grid' line's", path, ps->model_line, m->nx, m->ny, m->nz, m->h);
            return SCL_ERR_INPUT;
        }
    } else {
        if (!ps->have_grid)
            return scl_linereader_fail(&ps->lr, err, errlen, "no 'grid' line");
        if (ps->model_kind == 1)
            st = scl_seis_model_fill(m, ps->hom[0], ps->hom[1], ps->hom[2]);
        else
            st = scl_seis_read_layered(ps->model_file, m, e2, sizeof e2);
        if (st != SCL_OK) {
            snprintf(err, errlen, "%s:%ld: %s", path, ps->model_line,
                     ps->model_kind == 1 ? "out of memory" : e2);
            return st;
        }
    }
    if (c->dt > 0) {
        const double cfl = scl_seis_cfl(m, c);
        if (cfl > 1) {
            snprintf(err, errlen,
                     "%s:%ld: dt = %g s violates the CFL condition (CFL number %.4f > 1): the "
                     "largest stable dt at order %d is %g s",
                     path, ps->dt_line, c->dt, cfl, c->order, scl_seis_dt_max(m, c->order));
            return SCL_ERR_INPUT;
        }
    } else {
        c->dt = 0.9 * scl_seis_dt_max(m, c->order);
        if (c->dt >= 1e-5)
            c->dt = floor(c->dt * 1e6) * 1e-6;
    }
    if (ps->steps > 0)
        c->steps = ps->steps;
    else if (ps->duration > 0) {
        /* checked as a double: a long window over a tiny dt overflows long */
        const double n = ceil(ps->duration / c->dt - 1e-9);
        if (!(n <= 1e8))
            return scl_linereader_fail(&ps->lr, err, errlen,
                                       "time %g s at dt %g s is %g steps: at most 1e8",
                                       ps->duration, c->dt, n);
        c->steps = (long)n;
    } else
        return scl_linereader_fail(&ps->lr, err, errlen, "no 'time' or 'steps' line");
    if (c->steps > 100000000)
        return scl_linereader_fail(&ps->lr, err, errlen, "%ld steps: at most 1e8", c->steps);

    scl_grid3d g;
    st = scl_grid3d_init(&g, m->nx - 1, m->ny - 1, m->nz - 1, m->h, m->h, m->h, 0, 1, e2, sizeof e2);
    if (st != SCL_OK) {
        snprintf(err, errlen, "%s: %s", path, e2);
        return st;
    }
    for (int q = 0; q < c->nsources; q++) {
        char what[1200];
        int ijk[3];
        snprintf(what, sizeof what, "%s:%d: source %d", path, ps->src_at[q].line, q + 1);
        const double *p = ps->src_at[q].pos;
        if ((st = scl_grid3d_locate(&g, what, p[0], p[1], p[2], ijk, err, errlen)) != SCL_OK)
            return st;
        run->sources[q].i = ijk[0];
        run->sources[q].j = ijk[1];
        run->sources[q].k = ijk[2];
    }
    run->receivers = calloc((size_t)(ps->nrec ? ps->nrec : 1), sizeof *run->receivers);
    if (!run->receivers)
        return SCL_ERR_MEMORY;
    for (int r = 0; r < ps->nrec; r++) {
        char what[1200];
        int ijk[3];
        snprintf(what, sizeof what, "%s:%d: receiver %d", path, ps->rec_at[r].line, r + 1);
        const double *p = ps->rec_at[r].pos;
        if ((st = scl_grid3d_locate(&g, what, p[0], p[1], p[2], ijk, err, errlen)) != SCL_OK)
            return st;
        run->receivers[r] = (scl_seis_receiver){ijk[0], ijk[1], ijk[2]};
    }
    c->sources = run->sources;
    c->receivers = run->receivers;
    c->nreceivers = ps->nrec;
    st = scl_seis_check(m, c, warn, warnlen, e2, sizeof e2);
    if (st != SCL_OK)
        snprintf(err, errlen, "%s: %s", path, e2);
    else if (c->nsources == 0) { /* as fdtd: a run without a source computes zeros */
        snprintf(err, errlen, "%s: no 'source' line: the run would record zeros", path);
        st = SCL_ERR_INPUT;
    }
    return st;
}

scl_status scl_seis_read_run(const char *path, scl_seis_run *run, char *warn, size_t warnlen,
                             char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    if (warn && warnlen)
        warn[0] = '\0';
    run->config.order = 4;
    run->config.free_surface = 1;
    run->config.pml = 10;
    parse_state *ps = calloc(1, sizeof *ps);
    if (!ps)
        return SCL_ERR_MEMORY;
    scl_status st = scl_linereader_open(&ps->lr, path, err, errlen);
    if (st != SCL_OK) {
        free(ps);
        return st;
    }
    const char *slash = strrchr(path, '/');
    if (slash && slash - path + 1 < (long)sizeof ps->dir)
        memcpy(ps->dir, path, (size_t)(slash - path + 1));
    char *line;
    int got;
    while (st == SCL_OK && (got = scl_linereader_next(&ps->lr, &line, err, errlen)) != 0) {
        if (got < 0) {
            st = SCL_ERR_IO;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *tok[MAX_TOKENS];
        const int ntok = scl_split_tokens(line, tok, MAX_TOKENS);
        if (ntok == 0)
            continue;
        if (ntok > MAX_TOKENS)
            st = scl_linereader_fail(&ps->lr, err, errlen, "too many words");
        else
            st = parse_line(ps, run, tok, ntok, err, errlen);
    }
    if (st == SCL_OK)
        st = finish_run(ps, run, path, warn, warnlen, err, errlen);
    scl_linereader_close(&ps->lr);
    free(ps->rec_at);
    free(ps);
    if (st != SCL_OK)
        scl_seis_run_release(run);
    return st;
}

void scl_seis_run_release(scl_seis_run *run)
{
    scl_seis_model_release(&run->model);
    free(run->receivers);
    run->receivers = NULL;
    run->config.receivers = NULL;
}
