/* gprMax input, studies: #study: gpr FILE.csv, gprMax 4's table of cases run
 * on one built geometry, here as the traces of a B-scan (one per case) with
 * each case's positions of sources and receivers. */
#include "input_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gprMax's study columns; those past the positions are refused by name. */
static const char *const study_columns[] = {
    "case_id", "object_id", "x_m", "y_m", "z_m", "active", "waveform_id", "start_s", "stop_s",
    "scale", "record", "port", "mode", "theta_deg", "phi_deg", "psi_deg", "axis", "m_x", "m_y", "m_z"};
#define STUDY_COLUMNS (int)(sizeof study_columns / sizeof study_columns[0])
#define STUDY_MAX_CASES 100000

/* Study IDs as gprMax's Study.bind_scene gives them: per kind in file order
 * (voltage_source_N, hertzian_dipole_N, magnetic_dipole_N, rx_N), a
 * receiver's own ID as its alias; called for each object command after its
 * parser with the model's source and receiver counts before it. */
scl_status fdtd_in_study_note(input *in, const command *c, int nsrc_before, int nrx_before)
{
    static const struct {
        const char *cmd, *prefix;
    } kinds[] = {{"#voltage_source", "voltage_source"}, {"#hertzian_dipole", "hertzian_dipole"},
                 {"#magnetic_dipole", "magnetic_dipole"}, {"#rx", "rx"}, {"#transmission_line", NULL}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (strcmp(c->cmd, kinds[k].cmd) != 0)
            continue;
        if (!kinds[k].prefix) {
            in->study_unmanaged = c;
            return SCL_OK;
        }
        int count = 1;
        for (int q = 0; q < in->nstudy; q++)
            count += strncmp(in->study[q].id, kinds[k].prefix, strlen(kinds[k].prefix)) == 0 &&
                     in->study[q].id[strlen(kinds[k].prefix)] == '_' &&
                     strchr("0123456789", in->study[q].id[strlen(kinds[k].prefix) + 1]) != NULL;
        fdtd_study_object *o = realloc(in->study, (size_t)(in->nstudy + 1) * sizeof *o);
        if (!o)
            return SCL_ERR_MEMORY;
        in->study = o;
        o = &in->study[in->nstudy++];
        memset(o, 0, sizeof *o);
        snprintf(o->id, sizeof o->id, "%s_%d", kinds[k].prefix, count);
        o->rx = k == 3;
        o->index = o->rx ? nrx_before : nsrc_before;
        o->cmd = c;
        if (o->rx && c->ntok >= 4)
            snprintf(o->alias, sizeof o->alias, "%s", c->tok[3]);
        return SCL_OK;
    }
    return SCL_OK;
}

/* The header's columns: col[j] the study column of field j (-1: none). */
static scl_status study_header(scl_linereader *r, char **f, int nf, int *col, char *err, size_t errlen)
{
    int seen[STUDY_COLUMNS] = {0};
    for (int j = 0; j < nf; j++) {
        col[j] = -1;
        for (int k = 0; k < STUDY_COLUMNS; k++)
            if (strcmp(f[j], study_columns[k]) == 0)
                col[j] = k;
        if (col[j] < 0)
            return scl_linereader_fail(r, err, errlen, "#study: unsupported column '%.40s' (gprMax's: case_id "
                                       "object_id x_m y_m z_m active waveform_id start_s stop_s scale ...)", f[j]);
        if (seen[col[j]]++)
            return scl_linereader_fail(r, err, errlen, "#study: column '%s' given twice", f[j]);
    }
    if (!seen[0] || !seen[1])
        return scl_linereader_fail(r, err, errlen, "#study: the columns case_id and object_id are required");
    return SCL_OK;
}

/* Fields of one CSV line split at commas, spaces trimmed (no quoting). */
static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        line[--len] = '\0';
    if (strncmp(line, "\xEF\xBB\xBF", 3) == 0) /* gprMax reads utf-8-sig */
        line += 3;
    for (char *p = line;; n++) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        char *e = p + strlen(p);
        while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
            *--e = '\0';
        if (n < max)
            f[n] = p;
        if (!comma)
            return n + 1;
        p = comma + 1;
    }
}

/* The case of case_id (cases in order of first appearance), made if new. */
static int study_case(char (**ids)[64], int *ncases, const char *id)
{
    for (int q = 0; q < *ncases; q++)
        if (strcmp((*ids)[q], id) == 0)
            return q;
    if (*ncases >= STUDY_MAX_CASES)
        return -1;
    char (*n)[64] = realloc(*ids, (size_t)(*ncases + 1) * sizeof *n);
    if (!n)
        return -1;
    *ids = n;
    snprintf(n[*ncases], sizeof n[0], "%s", id);
    return (*ncases)++;
}

/* One row: object_id's position in its case (or its baseline kept). */
static scl_status study_row(const input *in, scl_linereader *r, char **f, int nf, const int *col,
                            const scl_fdtd_model *m, int *obj, double p[3], int *has_pos, char *err,
                            size_t errlen)
{
    const char *v[STUDY_COLUMNS] = {0};
    for (int j = 0; j < nf; j++)
        v[col[j]] = f[j];
    if (!v[0] || !v[0][0] || !v[1] || !v[1][0])
        return scl_linereader_fail(r, err, errlen, "#study: case_id and object_id are required");
    for (int k = 5; k < STUDY_COLUMNS; k++)
        if (v[k] && v[k][0])
            return scl_linereader_fail(r, err, errlen, "#study: column '%s' is not supported yet (positions "
                                       "only: x_m y_m z_m)", study_columns[k]);
    *obj = -1;
    for (int q = 0; q < in->nstudy; q++)
        if (strcmp(in->study[q].id, v[1]) == 0 || (in->study[q].alias[0] && strcmp(in->study[q].alias, v[1]) == 0))
            *obj = q;
    if (*obj < 0)
        return scl_linereader_fail(r, err, errlen, "#study: no object '%.60s' (gprMax's IDs: hertzian_dipole_N, "
                                   "magnetic_dipole_N, rx_N or a receiver's own ID)", v[1]);
    int given = (v[2] && v[2][0]) + (v[3] && v[3][0]) + (v[4] && v[4][0]);
    *has_pos = given == 3;
    if (given != 0 && given != 3)
        return scl_linereader_fail(r, err, errlen, "#study: x_m, y_m and z_m must be given together");
    for (int a = 0; a < 3 && *has_pos; a++)
        if (scl_parse_real(v[2 + a], &p[a]) != 0)
            return scl_linereader_fail(r, err, errlen, "#study: %s must be a finite number", study_columns[2 + a]);
    int ijk[3], base[3];
    char why[256];
    const fdtd_study_object *o = &in->study[*obj];
    const double *b = o->rx ? m->rx_pos[o->index] : m->src[o->index].pos;
    if (*has_pos && scl_grid3d_locate(&m->grid, o->rx ? "receiver" : "source", p[0], p[1], p[2], ijk, why,
                                      sizeof why) != SCL_OK)
        return scl_linereader_fail(r, err, errlen, "#study: %s: %s", o->id, why);
    if (*has_pos && m->mode2d && scl_grid3d_locate(&m->grid, "", b[0], b[1], b[2], base, why, sizeof why) == SCL_OK &&
        ijk[m->mode2d - 1] != base[m->mode2d - 1])
        return scl_linereader_fail(r, err, errlen, "#study: %s cannot move off the 2D model's live layer "
                                   "along %c", o->id, "xyz"[m->mode2d - 1]);
    return SCL_OK;
}

/* Every case's position of each source and receiver: the row's, else the
 * object's own; a source left out of a case (gprMax switches it off) is
 * refused. */
static scl_status study_positions(const input *in, const command *c, scl_fdtd_model *m, int ncases,
                                  const int *row_case, const int *row_obj, const double (*row_pos)[3],
                                  const int *row_has, int nrows, char *err, size_t errlen)
{
    int per = m->nsrc + m->nrx;
    m->case_pos = calloc((size_t)ncases * (size_t)per, sizeof *m->case_pos);
    if (!m->case_pos)
        return SCL_ERR_MEMORY;
    for (int t = 0; t < ncases; t++) {
        for (int q = 0; q < per; q++)
            memcpy(m->case_pos[(size_t)t * per + q], q < m->nsrc ? m->src[q].pos : m->rx_pos[q - m->nsrc],
                   sizeof m->case_pos[0]);
        for (int s = 0; s < in->nstudy; s++) {
            const fdtd_study_object *o = &in->study[s];
            int found = 0;
            for (int w = 0; w < nrows; w++)
                if (row_case[w] == t && row_obj[w] == s) {
                    found = 1;
                    if (row_has[w])
                        memcpy(m->case_pos[(size_t)t * per + (o->rx ? m->nsrc : 0) + o->index], row_pos[w],
                               sizeof m->case_pos[0]);
                }
            if (!found && !o->rx) {
                char why[200];
                snprintf(why, sizeof why, "case %d leaves out source %s (gprMax switches it off there): "
                         "not supported yet, list it in every case", t + 1, o->id);
                return fdtd_in_fail(in, c, err, errlen, why);
            }
        }
    }
    m->ncases = ncases;
    return SCL_OK;
}

/* The rows of the CSV file: each row's case, object and position. */
typedef struct {
    int n, ncases;
    int *cas, *obj, *has;
    double (*pos)[3];
    char (*ids)[64];
} study_rows;

static void study_rows_free(study_rows *t)
{
    free(t->cas);
    free(t->obj);
    free(t->has);
    free(t->pos);
    free(t->ids);
}

static scl_status study_read(const input *in, scl_linereader *r, const scl_fdtd_model *m, study_rows *t,
                             char *err, size_t errlen)
{
    char *line, *f[STUDY_COLUMNS + 1];
    int col[STUDY_COLUMNS], nf = 0, rc;
    scl_status s = SCL_OK;
    while (s == SCL_OK && (rc = scl_linereader_next(r, &line, err, errlen)) == 1) {
        int n = split_csv(line, f, STUDY_COLUMNS + 1);
        if (n == 1 && !f[0][0])
            continue; /* blank line */
        if (nf == 0) {
            if (n > STUDY_COLUMNS)
                return scl_linereader_fail(r, err, errlen, "#study: more than %d columns", STUDY_COLUMNS);
            nf = n;
            s = study_header(r, f, nf, col, err, errlen);
            continue;
        }
        if (n != nf)
            return scl_linereader_fail(r, err, errlen, "#study: %d fields, the header has %d", n, nf);
        int w = t->n;
        void *a = realloc(t->cas, (w + 1) * sizeof *t->cas), *b = realloc(t->obj, (w + 1) * sizeof *t->obj);
        t->cas = a ? a : t->cas;
        t->obj = b ? b : t->obj;
        void *h = realloc(t->has, (w + 1) * sizeof *t->has), *p = realloc(t->pos, (w + 1) * sizeof *t->pos);
        t->has = h ? h : t->has;
        t->pos = p ? p : t->pos;
        if (!a || !b || !h || !p)
            return SCL_ERR_MEMORY;
        s = study_row(in, r, f, nf, col, m, &t->obj[w], t->pos[w], &t->has[w], err, errlen);
        if (s == SCL_OK && (t->cas[w] = study_case(&t->ids, &t->ncases, f[0])) < 0)
            return scl_linereader_fail(r, err, errlen, "#study: out of memory or more than %d cases",
                                       STUDY_MAX_CASES);
        for (int v = 0; v < w && s == SCL_OK; v++)
            if (t->cas[v] == t->cas[w] && t->obj[v] == t->obj[w])
                s = scl_linereader_fail(r, err, errlen, "#study: object '%s' is listed more than once in case "
                                        "'%s'", in->study[t->obj[w]].id, t->ids[t->cas[w]]);
        t->n += s == SCL_OK;
    }
    if (s == SCL_OK && rc < 0)
        return SCL_ERR_IO;
    if (s == SCL_OK && t->ncases == 0)
        return scl_linereader_fail(r, err, errlen, "#study: no cases");
    return s;
}

/* #study: gpr FILE.csv (FILE relative to the input file, as gprMax). */
scl_status fdtd_in_parse_study(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    if (fdtd_in_nparams(in, c, 2, 2, err, errlen))
        return SCL_ERR_INPUT;
    if (strcmp(c->tok[0], "gpr") != 0 && strcmp(c->tok[0], "GPR") != 0)
        return fdtd_in_fail(in, c, err, errlen, "only the 'gpr' study is supported (gprMax's port, source, "
                            "plane_wave and eigenmode studies are not)");
    if (in->study_unmanaged)
        return fdtd_in_fail(in, c, err, errlen, "a study cannot manage a #transmission_line (as gprMax)");
    for (int q = 0; q < in->nstudy; q++)
        if (!strncmp(in->study[q].id, "voltage_source_", 15))
            return fdtd_in_fail(in, c, err, errlen, "a gpr study cannot manage a #voltage_source (gprMax: "
                                "a port study does)");
    if (m->src_step[0] || m->src_step[1] || m->src_step[2] || m->rx_step[0] || m->rx_step[1] || m->rx_step[2])
        return fdtd_in_fail(in, c, err, errlen, "#src_steps/#rx_steps and a study both move the objects: give one");
    char path[1200];
    const char *slash = strrchr(in->r.path, '/');
    int dir = c->tok[1][0] == '/' || !slash ? 0 : (int)(slash - in->r.path + 1);
    snprintf(path, sizeof path, "%.*s%s", dir, in->r.path, c->tok[1]);
    scl_linereader r;
    scl_status s = scl_linereader_open(&r, path, err, errlen);
    if (s != SCL_OK) {
        char why[1400];
        snprintf(why, sizeof why, "%s", err);
        return fdtd_in_fail(in, c, err, errlen, why);
    }
    study_rows t;
    memset(&t, 0, sizeof t);
    s = study_read(in, &r, m, &t, err, errlen);
    scl_linereader_close(&r);
    if (s == SCL_OK)
        s = study_positions(in, c, m, t.ncases, t.cas, t.obj, (const double(*)[3])t.pos, t.has, t.n, err, errlen);
    if (s == SCL_OK) { /* for the outputs' /study group */
        m->case_id = t.ids;
        t.ids = NULL;
        m->study_csv = realpath(path, NULL);
        if (!m->study_csv && !(m->study_csv = strdup(path)))
            s = SCL_ERR_MEMORY;
    }
    study_rows_free(&t);
    return s;
}
