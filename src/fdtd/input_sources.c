/* gprMax input, sources and receivers: #waveform #excitation_file
 * #hertzian_dipole #magnetic_dipole #voltage_source #transmission_line #rx
 * #rx_array. */
#include "input_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A receiver at p (metres), recording all six components. */
static scl_status add_rx(const input *in, const command *c, scl_fdtd_model *m, const double p[3],
                         const char *name, char *err, size_t errlen)
{
    int ijk[3];
    char why[512];
    if (scl_grid3d_locate(&m->grid, "receiver", p[0], p[1], p[2], ijk, why, sizeof why) != SCL_OK)
        return fdtd_in_fail(in, c, err, errlen, why);
    int r = m->nrx;
    void *a = realloc(m->rx_name, (size_t)(r + 1) * sizeof *m->rx_name);
    if (a)
        m->rx_name = a;
    void *b = realloc(m->rx_ijk, (size_t)(r + 1) * sizeof *m->rx_ijk);
    if (b)
        m->rx_ijk = b;
    void *e = realloc(m->rx_pos, (size_t)(r + 1) * sizeof *m->rx_pos);
    if (e)
        m->rx_pos = e;
    if (!a || !b || !e)
        return SCL_ERR_MEMORY;
    snprintf(m->rx_name[r], sizeof m->rx_name[r], "%s", name);
    memcpy(m->rx_ijk[r], ijk, sizeof ijk);
    memcpy(m->rx_pos[r], p, 3 * sizeof *p);
    m->nrx++;
    return SCL_OK;
}

#define EXC_COLUMNS 64

/* The interpolation of #excitation_file (scipy's interp1d kind) and its
 * fill value; 0 or -1 (err) */
static int excitation_mode(const input *in, const command *c, char *interp, int *extrap,
                           double *fill, char *err, size_t errlen)
{
    static const char *const kinds[][2] = {{"linear", "l"}, {"slinear", "l"}, {"1", "l"},
                                           {"nearest", "n"}, {"previous", "p"}, {"zero", "p"},
                                           {"0", "p"}, {"next", "x"}};
    *interp = 'l';
    *extrap = 0;
    *fill = 0;
    if (c->ntok == 1)
        return 0;
    *interp = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(c->tok[1], kinds[k][0]) == 0)
            *interp = kinds[k][1][0];
    if (!*interp) {
        fdtd_in_fail(in, c, err, errlen,
             "the interpolation is linear, slinear, nearest, previous, next or zero (splines "
             "of higher order are not supported)");
        return -1;
    }
    if (strcmp(c->tok[2], "extrapolate") == 0) {
        if (*interp != 'l') {
            fdtd_in_fail(in, c, err, errlen, "'extrapolate' is supported with linear interpolation only");
            return -1;
        }
        *extrap = 1;
        return 0;
    }
    return fdtd_in_reals(in, c, 2, 1, fill, err, errlen);
}

/* Append one waveform of samples (values and times move into the model). */
static scl_status add_sampled_wave(scl_fdtd_model *m, const char *name, int nsamp, double *t,
                                   double *v, char interp, int extrap, double fill)
{
    scl_fdtd_wave *nw = realloc(m->wave, (size_t)(m->nwave + 1) * sizeof *nw);
    if (!nw) {
        free(t);
        free(v);
        return SCL_ERR_MEMORY;
    }
    m->wave = nw;
    nw += m->nwave++;
    memset(nw, 0, sizeof *nw);
    snprintf(nw->name, sizeof nw->name, "%s", name);
    nw->nsamp = nsamp;
    nw->t = t;
    nw->v = v;
    nw->interp = interp;
    nw->extrapolate = extrap;
    nw->fill = fill;
    return SCL_OK;
}

/* Read the rows of an excitation file: ncol numbers each, into data
 * (row-major, grown as needed); the number of rows or -1 (err). */
static long excitation_rows(scl_linereader *r, int ncol, double **data, char *err, size_t errlen)
{
    long rows = 0, cap = 0;
    char *line, *tok[EXC_COLUMNS + 1];
    int rc;
    while ((rc = scl_linereader_next(r, &line, err, errlen)) == 1) {
        int nt = scl_split_tokens(line, tok, EXC_COLUMNS + 1);
        if (nt == 0)
            continue;
        if (nt != ncol) {
            scl_linereader_fail(r, err, errlen, "%d values where the header names %d columns", nt,
                                ncol);
            return -1;
        }
        if (rows == cap) {
            cap = cap ? 2 * cap : 1024;
            double *d = realloc(*data, (size_t)cap * ncol * sizeof *d);
            if (!d) {
                scl_format_error(err, errlen, "%s: out of memory", r->path);
                return -1;
            }
            *data = d;
        }
        for (int k = 0; k < ncol; k++)
            if (scl_parse_real(tok[k], &(*data)[rows * ncol + k]) != 0) {
                scl_linereader_fail(r, err, errlen, "'%s' is not a finite number", tok[k]);
                return -1;
            }
        rows++;
    }
    return rc < 0 ? -1 : rows;
}

/* #excitation_file: file [kind fill]: a header line of waveform names
 * (first 'time' for a time column), then rows of values; the path as
 * given, else beside the input file (gprMax's order). */
scl_status fdtd_in_parse_excitation(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                    size_t errlen)
{
    char interp, path[1024], why[900], head[1024], *line, *name[EXC_COLUMNS + 1];
    int extrap, ncol;
    double fill, *data = NULL;
    if (fdtd_in_nparams(in, c, 1, 3, err, errlen) || (c->ntok == 2 && fdtd_in_nparams(in, c, 1, 1, err, errlen)) ||
        excitation_mode(in, c, &interp, &extrap, &fill, err, errlen))
        return SCL_ERR_INPUT;
    const char *slash = strrchr(in->r.path, '/');
    snprintf(path, sizeof path, "%s", c->tok[0]);
    FILE *probe = fopen(path, "r");
    if (probe)
        fclose(probe);
    else if (c->tok[0][0] != '/' && slash)
        snprintf(path, sizeof path, "%.*s%s", (int)(slash - in->r.path + 1), in->r.path, c->tok[0]);
    scl_linereader r;
    if (scl_linereader_open(&r, path, why, sizeof why) != SCL_OK)
        return fdtd_in_fail(in, c, err, errlen, why);
    int rc = scl_linereader_next(&r, &line, why, sizeof why);
    snprintf(head, sizeof head, "%s", rc == 1 ? line : "");
    ncol = scl_split_tokens(head, name, EXC_COLUMNS + 1);
    if (rc != 1 || ncol < 1 || ncol > EXC_COLUMNS) {
        scl_linereader_close(&r);
        return fdtd_in_fail(in, c, err, errlen, "the file's first line names 1 to 64 columns");
    }
    long rows = excitation_rows(&r, ncol, &data, why, sizeof why);
    scl_linereader_close(&r);
    int timed = strcmp(name[0], "time") == 0 || strcmp(name[0], "Time") == 0 ||
                strcmp(name[0], "TIME") == 0;
    if (rows < 0 || rows < 2 || (timed && ncol < 2)) {
        free(data);
        return fdtd_in_fail(in, c, err, errlen,
                    rows < 0 ? why : "needs at least two rows of samples (and a waveform after the time column)");
    }
    scl_status s = SCL_OK;
    for (long k = 1; timed && k < rows && s == SCL_OK; k++)
        if (!(data[k * ncol] > data[(k - 1) * ncol]))
            s = fdtd_in_fail(in, c, err, errlen, "the times must increase strictly");
    for (int col = timed; col < ncol && s == SCL_OK; col++) {
        for (int w = 0; w < m->nwave; w++)
            if (strcmp(m->wave[w].name, name[col]) == 0) {
                snprintf(why, sizeof why, "waveform '%.64s' is already defined", name[col]);
                free(data);
                return fdtd_in_fail(in, c, err, errlen, why);
            }
        double *t = timed ? malloc((size_t)rows * sizeof *t) : NULL, *v = malloc((size_t)rows * sizeof *v);
        if (!v || (timed && !t)) {
            free(t);
            free(v);
            s = SCL_ERR_MEMORY;
            break;
        }
        for (long k = 0; k < rows; k++) {
            v[k] = data[k * ncol + col];
            if (t)
                t[k] = data[k * ncol];
        }
        s = add_sampled_wave(m, name[col], (int)rows, t, v, interp, extrap, fill);
    }
    free(data);
    return s;
}

/* #waveform: type amplitude frequency name */
scl_status fdtd_in_parse_waveform(input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    double v[2];
    if (fdtd_in_nparams(in, c, 4, 4, err, errlen) || fdtd_in_reals(in, c, 1, 2, v, err, errlen))
        return SCL_ERR_INPUT;
    int kind = scl_wavelet_kind_from_name(c->tok[0]);
    if (kind < 0)
        return fdtd_in_fail(in, c, err, errlen,
                    "waveform type must be gaussian, gaussiandot, gaussiandotnorm, "
                    "gaussiandotdot, gaussiandotdotnorm, gaussianprime, gaussiandoubleprime, "
                    "ricker, gauspulse, sine, contsine or impulse (user: not supported)");
    if (!(v[1] > 0))
        return fdtd_in_fail(in, c, err, errlen, "frequency must be positive");
    for (int w = 0; w < m->nwave; w++)
        if (strcmp(m->wave[w].name, c->tok[3]) == 0)
            return fdtd_in_fail(in, c, err, errlen, "waveform name already defined");
    scl_fdtd_wave *nw = realloc(m->wave, (size_t)(m->nwave + 1) * sizeof *nw);
    if (!nw)
        return SCL_ERR_MEMORY;
    m->wave = nw;
    memset(&nw[m->nwave], 0, sizeof *nw);
    snprintf(nw[m->nwave].name, sizeof nw->name, "%s", c->tok[3]);
    nw[m->nwave].w = (scl_wavelet){(scl_wavelet_kind)kind, v[0], v[1], 0, 0};
    m->nwave++;
    return SCL_OK;
}

/* The resistance of a voltage source (>= 0) or a transmission line
 * (gprMax 4: finite, in (0, z0); a line is 3D only). */
static scl_status source_resistance(const input *in, const command *c, const scl_fdtd_model *m,
                                    scl_fdtd_source *src, char *err, size_t errlen)
{
    const double z0 = SCL_FDTD_MU0 * SCL_FDTD_C0;
    if (fdtd_in_reals(in, c, 4, 1, &src->resistance, err, errlen))
        return SCL_ERR_INPUT;
    if (src->kind == SCL_FDTD_VOLTAGE)
        return src->resistance >= 0 ? SCL_OK : fdtd_in_fail(in, c, err, errlen, "resistance must be >= 0");
    if (m->mode2d)
        return fdtd_in_fail(in, c, err, errlen,
                    "a transmission line cannot be used in a 2D model (as gprMax 4: its line's "
                    "step assumes the 3D time step); use #voltage_source");
    if (!(src->resistance > 0 && src->resistance < z0))
        return fdtd_in_fail(in, c, err, errlen,
                    "the resistance must be greater than 0 and less than the impedance of free "
                    "space (376.73 Ohms)");
    return SCL_OK;
}

/* #hertzian_dipole, #magnetic_dipole, #voltage_source, #transmission_line:
 * pol x y z [R] wave [start stop] */
scl_status fdtd_in_parse_source(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    char why[512];
    int volt = c->cmd[1] == 'v' || c->cmd[1] == 't', mag = c->cmd[1] == 'm';
    int base = volt ? 6 : 5; /* pol x y z [R] wave [start stop] */
    if (c->cmd[1] == 'v' && c->ntok >= 9 && c->ntok <= 11)
        return fdtd_in_fail(in, c, err, errlen, "ports (a voltage source with a port ID, spectrum limit or "
                                        "reference impedance) are not supported");
    if (fdtd_in_nparams(in, c, base, base + 2, err, errlen))
        return SCL_ERR_INPUT;
    if (c->ntok == base + 1)
        return fdtd_in_fail(in, c, err, errlen, "give both start and stop times, or neither");
    scl_fdtd_source src = {c->cmd[1] == 't' ? SCL_FDTD_TLINE
                           : volt          ? SCL_FDTD_VOLTAGE
                           : mag           ? SCL_FDTD_MAGNETIC
                                           : SCL_FDTD_HERTZIAN,
                           -1, {0, 0, 0}, {0, 0, 0}, -1, 0, -1, 0};
    if (strlen(c->tok[0]) == 1 && c->tok[0][0] >= 'x' && c->tok[0][0] <= 'z')
        src.pol = c->tok[0][0] - 'x';
    else
        return fdtd_in_fail(in, c, err, errlen, "polarisation must be x, y or z");
    /* gprMax 4: in 2D the H a magnetic dipole drives must live (TM:
     * across the invariant axis, TE: along it) */
    if (mag && m->mode2d && (src.pol == m->mode2d - 1) != (m->te2d != 0))
        return fdtd_in_fail(in, c, err, errlen, m->te2d ? "in a 2D TE model the polarisation is the invariant axis"
                                                : "in a 2D TM model the polarisation is not the invariant axis");
    if (fdtd_in_reals(in, c, 1, 3, src.pos, err, errlen))
        return SCL_ERR_INPUT;
    if (volt && source_resistance(in, c, m, &src, err, errlen) != SCL_OK)
        return SCL_ERR_INPUT;
    const char *wname = c->tok[volt ? 5 : 4];
    for (int w = 0; w < m->nwave; w++)
        if (strcmp(m->wave[w].name, wname) == 0)
            src.wave = w;
    if (src.wave < 0) {
        snprintf(why, sizeof why, "waveform '%s' is not defined (#waveform)", wname);
        return fdtd_in_fail(in, c, err, errlen, why);
    }
    if (c->ntok == base + 2) {
        double t[2];
        if (fdtd_in_reals(in, c, base, 2, t, err, errlen))
            return SCL_ERR_INPUT;
        if (!(t[0] >= 0 && t[1] > t[0]))
            return fdtd_in_fail(in, c, err, errlen, "need 0 <= start < stop");
        src.start = t[0];
        src.stop = t[1];
    }
    if (scl_grid3d_locate(&m->grid, "source", src.pos[0], src.pos[1], src.pos[2], src.ijk, why, sizeof why) != SCL_OK)
        return fdtd_in_fail(in, c, err, errlen, why);
    return fdtd_in_push(&m->src, &m->nsrc, &src, sizeof src);
}

/* #rx: x y z [name [outputs]] */
scl_status fdtd_in_parse_rx(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s;
    double p[3];
    if (c->ntok < 3 && fdtd_in_nparams(in, c, 3, 3, err, errlen))
        return SCL_ERR_INPUT;
    if (fdtd_in_reals(in, c, 0, 3, p, err, errlen))
        return SCL_ERR_INPUT;
    for (int o = 4; o < c->ntok; o++)
        if (strlen(c->tok[o]) != 2 || !strchr("EH", c->tok[o][0]) || !strchr("xyz", c->tok[o][1]))
            return fdtd_in_fail(in, c, err, errlen, "outputs are Ex Ey Ez Hx Hy Hz (currents are not supported)");
    if ((s = add_rx(in, c, m, p, c->ntok >= 4 ? c->tok[3] : "", err, errlen)) != SCL_OK)
        return s;
    return SCL_OK;
}

/* The box x1 y1 z1 x2 y2 z2 and its steps dx dy dz: #snapshot's and
 * #geometry_view's (11 parameters: at least one cell per axis, sampled
 * every cell or more) or, with array, #rx_array's (9: a step of 0 only
 * along an axis the array does not extend on). */
scl_status fdtd_in_sampled_box(const input *in, const command *c, const scl_fdtd_model *m, int array,
                               int lo[3], int hi[3], int step[3], char *err, size_t errlen)
{
    double v[3];
    scl_status s;
    int np = array ? 9 : 11;
    if (fdtd_in_nparams(in, c, np, np, err, errlen) || fdtd_in_reals(in, c, 6, 3, v, err, errlen))
        return SCL_ERR_INPUT;
    if ((s = fdtd_in_range_cells(in, c, m, 0, lo, hi, err, errlen)) != SCL_OK)
        return s;
    for (int a = 0; a < 3; a++) {
        double cq = v[a] / (a == 0 ? m->grid.dx : a == 1 ? m->grid.dy : m->grid.dz);
        step[a] = fabs(cq) <= 1e6 ? (int)scl_round_half_down(cq) : -1;
        if (array && (step[a] < 0 || (step[a] == 0 && hi[a] > lo[a])))
            return fdtd_in_fail(in, c, err, errlen, "steps must be >= 1 cell along the array's extent");
        if (!array && step[a] < 1)
            return fdtd_in_fail(in, c, err, errlen, "the sampling must be at least one cell");
        if (!array && hi[a] <= lo[a])
            return fdtd_in_fail(in, c, err, errlen, "the box must span at least one cell per axis");
    }
    return SCL_OK;
}

/* #rx_array: receivers from p1 to p2 (inclusive) every step */
scl_status fdtd_in_parse_rx_array(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s;
    /* receivers from p1 to p2 (inclusive) every step, as gprMax */
    int lo[3], hi[3], st[3];
    if ((s = fdtd_in_sampled_box(in, c, m, 1, lo, hi, st, err, errlen)) != SCL_OK)
        return s;
    long count = 1;
    for (int a = 0; a < 3; a++)
        count *= st[a] ? (hi[a] - lo[a]) / st[a] + 1 : 1;
    if (count > 100000)
        return fdtd_in_fail(in, c, err, errlen, "more than 100000 receivers");
    /* x outermost, z innermost: gprMax's numbering rx1, rx2, ... */
    for (int i = lo[0]; i <= hi[0]; i += st[0] ? st[0] : hi[0] + 1)
        for (int j = lo[1]; j <= hi[1]; j += st[1] ? st[1] : hi[1] + 1)
            for (int k = lo[2]; k <= hi[2]; k += st[2] ? st[2] : hi[2] + 1) {
                double p[3] = {i * m->grid.dx, j * m->grid.dy, k * m->grid.dz};
                if ((s = add_rx(in, c, m, p, "", err, errlen)) != SCL_OK)
                    return s;
            }
    return SCL_OK;
}
