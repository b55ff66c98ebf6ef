/* Earth models: homogeneous, layered text description, raw float32 grids
 * described by a header file. Messages name the file and line. */
#include "streamcl/seismic.h"
#include "streamcl/grid3d.h"
#include "seismic/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static scl_status say(scl_status st, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

static scl_status model_alloc(scl_seis_model *m, char *err, size_t errlen)
{
    if (m->nx < 1 || m->ny < 1 || m->nz < 1 || m->nx > 100000 || m->ny > 100000 ||
        m->nz > 100000)
        return say(SCL_ERR_INPUT, err, errlen, "grid %d x %d x %d: each side must be in [1, 100000]",
                   m->nx, m->ny, m->nz);
    const size_t n = (size_t)m->nx * m->ny * m->nz;
    m->vp = malloc(n * sizeof(float));
    m->vs = malloc(n * sizeof(float));
    m->rho = malloc(n * sizeof(float));
    if (!m->vp || !m->vs || !m->rho) {
        scl_seis_model_release(m);
        return say(SCL_ERR_MEMORY, err, errlen, "out of host memory for a %d x %d x %d model",
                   m->nx, m->ny, m->nz);
    }
    return SCL_OK;
}

void scl_seis_model_release(scl_seis_model *m)
{
    free(m->vp);
    free(m->vs);
    free(m->rho);
    m->vp = m->vs = m->rho = NULL;
}

scl_status scl_seis_model_fill(scl_seis_model *m, double vp, double vs, double rho)
{
    scl_status st = model_alloc(m, NULL, 0);
    if (st != SCL_OK)
        return st;
    const size_t n = (size_t)m->nx * m->ny * m->nz;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n > (size_t)SEIS_PAR_MIN)
#endif
    for (size_t q = 0; q < n; q++) {
        m->vp[q] = (float)vp;
        m->vs[q] = (float)vs;
        m->rho[q] = (float)rho;
    }
    return SCL_OK;
}

/* Next content line (comments from '#' removed, blank lines skipped): 1,
 * 0 at the end, -1 on a read error (message in err). */
static int content_line(scl_linereader *r, char **text, char *err, size_t errlen)
{
    int got;
    while ((got = scl_linereader_next(r, text, err, errlen)) > 0) {
        char *hash = strchr(*text, '#');
        if (hash)
            *hash = '\0';
        const char *p = *text;
        while (isspace((unsigned char)*p))
            p++;
        if (*p)
            return 1;
    }
    return got;
}

/* Exactly n numbers on a line. */
static int parse_numbers(char *text, double *v, int n)
{
    char *tok[8];
    if (scl_split_tokens(text, tok, 8) != n)
        return 0;
    for (int q = 0; q < n; q++)
        if (scl_parse_real(tok[q], &v[q]) != 0)
            return 0;
    return 1;
}

#define MAX_LAYERS 4096

scl_status scl_seis_read_layered(const char *path, scl_seis_model *m, char *err, size_t errlen)
{
    scl_linereader lr;
    scl_status st = scl_linereader_open(&lr, path, err, errlen);
    if (st != SCL_OK)
        return st;
    double (*layer)[4] = malloc(MAX_LAYERS * sizeof *layer);
    if (!layer) {
        scl_linereader_close(&lr);
        return say(SCL_ERR_MEMORY, err, errlen, "%s: out of memory", path);
    }
    char *text;
    int nl = 0, r;
    while ((r = content_line(&lr, &text, err, errlen)) > 0) {
        double v[4];
        if (!parse_numbers(text, v, 4)) {
            st = scl_linereader_fail(&lr, err, errlen, "expected 'depth vp vs rho' (four numbers)");
            break;
        }
        if (nl == MAX_LAYERS) {
            st = scl_linereader_fail(&lr, err, errlen, "more than %d layers", MAX_LAYERS);
            break;
        }
        if (nl == 0 && v[0] != 0) {
            st = scl_linereader_fail(&lr, err, errlen, "the first layer must start at depth 0");
            break;
        }
        if (nl > 0 && !(v[0] > layer[nl - 1][0])) {
            st = scl_linereader_fail(&lr, err, errlen, "depth %g does not increase", v[0]);
            break;
        }
        if (v[1] > 1e10 || v[2] > 1e10 || v[3] > 1e10) {
            /* stored as float; no earth material comes near */
            st = scl_linereader_fail(&lr, err, errlen, "vp, vs and rho must be below 1e10");
            break;
        }
        if (!(v[1] > 0) || v[2] < 0 || !(v[3] > 0)) {
            st = scl_linereader_fail(&lr, err, errlen,
                                     "vp %g and rho %g must be positive, vs %g >= 0", v[1], v[3],
                                     v[2]);
            break;
        }
        if (v[1] < 1e-6 || v[3] < 1e-6) { /* stored as float: 1e-55 would become 0 */
            st = scl_linereader_fail(&lr, err, errlen, "vp %g and rho %g must be at least 1e-6",
                                     v[1], v[3]);
            break;
        }
        if (v[2] >= sqrt(3.0) / 2 * v[1]) {
            st = scl_linereader_fail(&lr, err, errlen,
                                     "vs %g >= (sqrt(3)/2) vp = %g gives a negative bulk modulus",
                                     v[2], sqrt(3.0) / 2 * v[1]);
            break;
        }
        memcpy(layer[nl++], v, sizeof v);
    }
    if (r < 0)
        st = SCL_ERR_IO;
    if (st == SCL_OK && nl == 0)
        st = scl_linereader_fail(&lr, err, errlen, "no layer");
    scl_linereader_close(&lr);
    if (st == SCL_OK && !(m->h > 0))
        st = say(SCL_ERR_INPUT, err, errlen, "%s: cell size h = %g must be positive", path, m->h);
    if (st == SCL_OK)
        st = model_alloc(m, err, errlen);
    if (st == SCL_OK) {
        const size_t plane = (size_t)m->nx * m->ny;
        int L = 0;
        for (int k = 0; k < m->nz; k++) {
            const double z = k * m->h; /* cell centre depth */
            while (L + 1 < nl && z >= layer[L + 1][0])
                L++;
            for (size_t q = 0; q < plane; q++) {
                m->vp[(size_t)k * plane + q] = (float)layer[L][1];
                m->vs[(size_t)k * plane + q] = (float)layer[L][2];
                m->rho[(size_t)k * plane + q] = (float)layer[L][3];
            }
        }
    }
    free(layer);
    return st;
}

/* Read n float32 little-endian values. */
static scl_status read_floats(const char *path, float *out, size_t n, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return say(SCL_ERR_IO, err, errlen, "%s: cannot open: %s", path, strerror(errno));
    unsigned char b[4];
    size_t q = 0;
    for (; q < n && fread(b, 1, 4, f) == 4; q++) {
        const uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                           (uint32_t)b[3] << 24;
        memcpy(&out[q], &u, 4);
    }
    const int extra = q == n && fgetc(f) != EOF;
    fclose(f);
    if (q != n || extra)
        return say(SCL_ERR_INPUT, err, errlen,
                   "%s: holds %s %zu float32 values; the header's grid needs %zu", path,
                   extra ? "more than" : "only", q, n);
    return SCL_OK;
}

scl_status scl_seis_read_raw(const char *header, scl_seis_model *m, char *err, size_t errlen)
{
    scl_linereader lr;
    memset(m, 0, sizeof *m);
    scl_status st = scl_linereader_open(&lr, header, err, errlen);
    if (st != SCL_OK)
        return st;
    char *text, files[3][1024] = {"", "", ""};
    const char *fkeys[3] = {"vp", "vs", "rho"};
    long lines[3] = {0, 0, 0};
    int r;
    while (st == SCL_OK && (r = content_line(&lr, &text, err, errlen)) != 0) {
        char *tok[3];
        if (r < 0) {
            st = SCL_ERR_IO;
            break;
        }
        if (scl_split_tokens(text, tok, 2) != 2) {
            st = scl_linereader_fail(&lr, err, errlen, "expected 'key value'");
            break;
        }
        const char *key = tok[0], *val = tok[1];
        int *dim = !strcmp(key, "nx") ? &m->nx : !strcmp(key, "ny") ? &m->ny
                                               : !strcmp(key, "nz") ? &m->nz : NULL;
        int fk = -1;
        for (int q = 0; q < 3; q++)
            if (!strcmp(key, fkeys[q]))
                fk = q;
        if (dim) {
            long v;
            if (scl_parse_int(val, &v) != 0 || v < 1 || v > 100000)
                st = scl_linereader_fail(&lr, err, errlen, "%s must be an integer in [1, 100000]",
                                         key);
            else
                *dim = (int)v;
        } else if (!strcmp(key, "h")) {
            if (scl_parse_real(val, &m->h) != 0 || !(m->h > 0))
                st = scl_linereader_fail(&lr, err, errlen, "h must be a positive number");
        } else if (fk >= 0) {
            /* relative to the header's directory */
            const char *slash = strrchr(header, '/');
            int dirlen = (val[0] != '/' && slash) ? (int)(slash - header + 1) : 0;
            if (snprintf(files[fk], sizeof files[fk], "%.*s%s", dirlen, header, val) >=
                (int)sizeof files[fk])
                st = scl_linereader_fail(&lr, err, errlen, "path too long");
            lines[fk] = lr.line;
        } else {
            st = scl_linereader_fail(&lr, err, errlen,
                                     "unknown key '%s' (nx, ny, nz, h, vp, vs, rho)", key);
        }
    }
    scl_linereader_close(&lr);
    if (st != SCL_OK)
        return st;
    if (!m->nx || !m->ny || !m->nz || !(m->h > 0))
        return say(SCL_ERR_INPUT, err, errlen, "%s: nx, ny, nz and h are required", header);
    for (int q = 0; q < 3; q++)
        if (!files[q][0])
            return say(SCL_ERR_INPUT, err, errlen, "%s: '%s FILE' is required", header, fkeys[q]);
    if ((size_t)m->nx * m->ny * m->nz > ((size_t)1 << 31))
        return say(SCL_ERR_INPUT, err, errlen, "%s: %d x %d x %d cells is too many", header,
                   m->nx, m->ny, m->nz);
    if ((st = model_alloc(m, err, errlen)) != SCL_OK)
        return st;
    const size_t n = (size_t)m->nx * m->ny * m->nz;
    float *dst[3] = {m->vp, m->vs, m->rho};
    for (int q = 0; q < 3 && st == SCL_OK; q++) {
        char e2[1200];
        st = read_floats(files[q], dst[q], n, e2, sizeof e2);
        if (st != SCL_OK)
            say(st, err, errlen, "%s:%ld: %s", header, lines[q], e2);
    }
    if (st != SCL_OK)
        scl_seis_model_release(m);
    return st;
}

scl_status scl_seis_model_window(const scl_seis_model *g, int axis, int lo, int n,
                                 scl_seis_model *w)
{
    const int gn[3] = {g->nx, g->ny, g->nz};
    memset(w, 0, sizeof *w);
    if (axis < 0 || axis > 2 || n < 1 || lo < 0 || lo + n > gn[axis])
        return SCL_ERR_ARGUMENT;
    int wn[3] = {gn[0], gn[1], gn[2]};
    wn[axis] = n + 4;
    const size_t cells = (size_t)wn[0] * wn[1] * wn[2];
    w->nx = wn[0];
    w->ny = wn[1];
    w->nz = wn[2];
    w->h = g->h;
    w->vp = malloc(cells * sizeof(float));
    w->vs = malloc(cells * sizeof(float));
    w->rho = malloc(cells * sizeof(float));
    if (!w->vp || !w->vs || !w->rho) {
        scl_seis_model_release(w);
        return SCL_ERR_MEMORY;
    }
    for (int k = 0; k < wn[2]; k++)
        for (int j = 0; j < wn[1]; j++)
            for (int i = 0; i < wn[0]; i++) {
                int p[3] = {i, j, k};
                p[axis] += lo - 2; /* past the walls: the outer plane */
                p[axis] = p[axis] < 0 ? 0 : p[axis] >= gn[axis] ? gn[axis] - 1 : p[axis];
                const size_t from = (size_t)p[0] + (size_t)gn[0] * ((size_t)p[1] + (size_t)gn[1] * p[2]);
                const size_t to = (size_t)i + (size_t)wn[0] * ((size_t)j + (size_t)wn[1] * k);
                w->vp[to] = g->vp[from];
                w->vs[to] = g->vs[from];
                w->rho[to] = g->rho[from];
            }
    return SCL_OK;
}
