/* Reader of gprMax's input language (the subset in fdtd.h). Commands may come
 * in any order except objects, which are built in the order given (later ones
 * overwrite earlier ones), as in gprMax. */
#include "streamcl/fdtd.h"
#include "core/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 16

typedef struct {
    char cmd[32];
    char *tok[MAX_TOKENS];
    int ntok;
    const char *file; /* the input file or the #include_file it came from */
    long line;
    char text[512];
    char fix[6][40]; /* coordinates given as inf, resolved (2D models) */
} command;

#define MAX_INCLUDE_DEPTH 100 /* gprMax's limit */

typedef struct {
    scl_linereader r;
    command *cmds;
    int n, cap;
    char **files; /* paths of included files, for the commands' messages */
    int nfiles;
    char *chain[MAX_INCLUDE_DEPTH + 1]; /* real paths of the files being read: cycles */
} input;

/* "Position of x y z" in metres: non-negative and finite. */
static int reals(const input *in, const command *c, int first, int count, double *out, char *err,
                 size_t errlen)
{
    (void)in; /* the command names its own file */
    for (int q = 0; q < count; q++)
        if (scl_parse_real(c->tok[first + q], &out[q]) != 0) {
            snprintf(err, errlen, "%s:%ld: %s: parameter %d ('%s') is not a finite number",
                     c->file, c->line, c->cmd, first + q + 1, c->tok[first + q]);
            return -1;
        }
    return 0;
}

static scl_status fail(const input *in, const command *c, char *err, size_t errlen,
                       const char *why)
{
    (void)in; /* the command names its own file */
    snprintf(err, errlen, "%s:%ld: %s: %s", c->file, c->line, c->cmd, why);
    return SCL_ERR_INPUT;
}

/* Require between lo and hi parameters. */
static int nparams(const input *in, const command *c, int lo, int hi, char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    if (c->ntok < lo || c->ntok > hi) {
        if (lo == hi)
            snprintf(err, errlen, "%s:%ld: %s needs %d parameters, got %d", c->file, c->line,
                     c->cmd, lo, c->ntok);
        else
            snprintf(err, errlen, "%s:%ld: %s needs %d to %d parameters, got %d", c->file,
                     c->line, c->cmd, lo, hi, c->ntok);
        return -1;
    }
    return 0;
}

static const command *find(const input *in, const char *name, int *count)
{
    const command *last = NULL;
    *count = 0;
    for (int q = 0; q < in->n; q++)
        if (strcmp(in->cmds[q].cmd, name) == 0) {
            last = &in->cmds[q];
            (*count)++;
        }
    return last;
}

static const char *const known[] = {"#title", "#domain", "#dx_dy_dz", "#time_window",
                                    "#time_step_stability_factor", "#material", "#waveform",
                                    "#hertzian_dipole", "#voltage_source", "#rx", "#box",
                                    "#sphere", "#cylinder", "#pml_cells", "#messages",
                                    "#domain_mode", "#geometry_view", "#src_steps", "#rx_steps",
                                    "#rx_array", "#add_dispersion_debye",
                                    "#add_dispersion_lorentz", "#add_dispersion_drude",
                                    "#snapshot", "#plate", "#edge", "#triangle",
                                    "#cylindrical_sector", "#excitation_file",
                                    "#soil_peplinski", "#fractal_box", "#magnetic_dipole",
                                    "#pml_cfs", "#add_surface_roughness",
                                    "#geometry_objects_read", "#add_grass",
                                    "#magnetic_averaging", "#omp_threads",
                                    "#num_threads", "#transmission_line"};

/* gprMax commands refused with a reason rather than as unknown */
static const char *const refused[][2] = {
    {"#add_surface_water", "fractal surfaces are not supported yet"},
    {"#material_range", "material ranges are not supported yet (use #soil_peplinski)"},
    {"#material_list", "material lists are not supported yet (use #soil_peplinski)"},
    {"#subgrid_hsg", "sub-grids are not supported"},
};

/* Coordinates that may be inf in a 2D model and their role (gprMax 4's
 * resolve_inf_point): 'l' a range's lower end, 'u' its upper end, 'p' a
 * single point; per command, the first token of each triple. */
static const struct {
    const char *cmd;
    int first[2];
    char role[2];
} coords[] = {
    {"#box", {0, 3}, {'l', 'u'}},           {"#cylinder", {0, 3}, {'l', 'u'}},
    {"#sphere", {0, -1}, {'p', 0}},         {"#hertzian_dipole", {1, -1}, {'p', 0}},
    {"#voltage_source", {1, -1}, {'p', 0}}, {"#rx", {0, -1}, {'p', 0}},
    {"#magnetic_dipole", {1, -1}, {'p', 0}}, {"#transmission_line", {1, -1}, {'p', 0}},
    {"#geometry_view", {0, 3}, {'l', 'u'}}, {"#rx_array", {0, 3}, {'l', 'u'}},
    {"#snapshot", {0, 3}, {'l', 'u'}},      {"#plate", {0, 3}, {'l', 'u'}},
    {"#edge", {0, 3}, {'l', 'u'}},          {"#fractal_box", {0, 3}, {'l', 'u'}},
    {"#add_surface_roughness", {0, 3}, {'l', 'u'}}, {"#geometry_objects_read", {0, -1}, {'l', 0}},
    {"#add_grass", {0, 3}, {'l', 'u'}},
};

static scl_status read_lines(input *in, scl_linereader *r, const char *file, int depth, char *err,
                             size_t errlen);

/* #include_file: PATH (relative to the file naming it): its commands in its
 * place, as gprMax expands them; nesting to 100 files, no cycles. */
static scl_status include_file(input *in, scl_linereader *r, char *text, int depth, char *err,
                               size_t errlen)
{
    char *tok[2];
    if (scl_split_tokens(text, tok, 2) != 1)
        return scl_linereader_fail(r, err, errlen, "#include_file needs 1 parameter (a file)");
    if (depth >= MAX_INCLUDE_DEPTH)
        return scl_linereader_fail(r, err, errlen, "#include_file: nesting exceeds %d files",
                                   MAX_INCLUDE_DEPTH);
    char path[1024];
    const char *slash = strrchr(r->path, '/');
    int dir = tok[0][0] == '/' || !slash ? 0 : (int)(slash - r->path + 1);
    if (snprintf(path, sizeof path, "%.*s%s", dir, r->path, tok[0]) >= (int)sizeof path)
        return scl_linereader_fail(r, err, errlen, "#include_file: path too long");
    char *real = realpath(path, NULL);
    if (!real)
        return scl_linereader_fail(r, err, errlen, "#include_file: cannot open '%s'", path);
    for (int d = 0; d <= depth; d++)
        if (in->chain[d] && strcmp(in->chain[d], real) == 0) {
            free(real);
            return scl_linereader_fail(r, err, errlen, "#include_file: '%s' includes itself", path);
        }
    char **files = realloc(in->files, (size_t)(in->nfiles + 1) * sizeof *files);
    if (!files || !(files[in->nfiles] = strdup(path))) {
        if (files)
            in->files = files;
        free(real);
        return scl_linereader_fail(r, err, errlen, "out of memory");
    }
    in->files = files;
    const char *name = in->files[in->nfiles++];
    scl_linereader sub;
    scl_status s = scl_linereader_open(&sub, path, err, errlen);
    if (s == SCL_OK) {
        in->chain[depth + 1] = real;
        s = read_lines(in, &sub, name, depth + 1, err, errlen);
        in->chain[depth + 1] = NULL;
        scl_linereader_close(&sub);
    }
    free(real);
    return s;
}

static scl_status read_lines(input *in, scl_linereader *r, const char *file, int depth, char *err,
                             size_t errlen)
{
    char *line;
    int rc;
    while ((rc = scl_linereader_next(r, &line, err, errlen)) == 1) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line != '#' || line[1] == '#')
            continue; /* gprMax: lines not starting with # are comments, so are ## lines */
        char *colon = strchr(line, ':');
        if (!colon) {
            if (strncmp(line, "#end", 4) == 0 || strncmp(line, "#python", 7) == 0)
                return scl_linereader_fail(r, err, errlen,
                                           "Python blocks (#python:) are not supported");
            return scl_linereader_fail(r, err, errlen,
                                       "'%.40s': a command is '#name: parameters'", line);
        }
        *colon = '\0';
        if (strcmp(line, "#include_file") == 0) {
            scl_status s = include_file(in, r, colon + 1, depth, err, errlen);
            if (s != SCL_OK)
                return s;
            continue;
        }
        if (strcmp(line, "#python") == 0 || strcmp(line, "#end_python") == 0)
            return scl_linereader_fail(r, err, errlen,
                                       "Python blocks (#python:) are not supported");
        int ok = 0;
        for (size_t q = 0; q < sizeof known / sizeof known[0]; q++)
            ok |= strcmp(line, known[q]) == 0;
        for (size_t q = 0; q < sizeof refused / sizeof refused[0]; q++)
            if (strcmp(line, refused[q][0]) == 0)
                return scl_linereader_fail(r, err, errlen, "'%s' is not supported: %s", line,
                                           refused[q][1]);
        if (!ok)
            return scl_linereader_fail(r, err, errlen,
                                       "unknown or unsupported command '%.40s'", line);
        if (in->n == in->cap) {
            int cap = in->cap ? 2 * in->cap : 32;
            command *c = realloc(in->cmds, (size_t)cap * sizeof *c);
            if (!c) {
                scl_format_error(err, errlen, "%s: out of memory", r->path);
                return SCL_ERR_MEMORY;
            }
            in->cmds = c;
            in->cap = cap;
        }
        command *c = &in->cmds[in->n];
        snprintf(c->cmd, sizeof c->cmd, "%s", line);
        c->file = file;
        c->line = r->line;
        if (strlen(colon + 1) >= sizeof c->text)
            return scl_linereader_fail(r, err, errlen, "%s: line too long", c->cmd);
        strcpy(c->text, colon + 1); /* split once all lines are in (realloc moves them) */
        in->n++;
    }
    return rc < 0 ? SCL_ERR_IO : SCL_OK;
}

/* Tokens point into each command's own text, so split after the last realloc. */
static scl_status split_all(input *in, char *err, size_t errlen)
{
    for (int q = 0; q < in->n; q++) {
        command *c = &in->cmds[q];
        c->ntok = scl_split_tokens(c->text, c->tok, MAX_TOKENS);
        if (c->ntok > MAX_TOKENS)
            return fail(in, c, err, errlen, "too many parameters");
    }
    return SCL_OK;
}

static scl_status single(const input *in, const char *name, int required, const command **out,
                         char *err, size_t errlen)
{
    int count;
    *out = find(in, name, &count);
    if (count > 1)
        return fail(in, *out, err, errlen, "given more than once");
    if (required && count == 0) {
        snprintf(err, errlen, "%s: %s is required", in->r.path, name);
        return SCL_ERR_INPUT;
    }
    return SCL_OK;
}

static int material_of(const input *in, const command *c, const scl_fdtd_model *m, const char *name,
                       char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    int id = scl_fdtd_find_material(m, name);
    if (id < 0)
        snprintf(err, errlen, "%s:%ld: %s: material '%s' is not defined (#material)", c->file,
                 c->line, c->cmd, name);
    return id;
}

static int averaging_flag(const input *in, const command *c, int idx, char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    if (c->ntok <= idx)
        return 1;
    if (strcmp(c->tok[idx], "y") == 0)
        return 1;
    if (strcmp(c->tok[idx], "n") == 0)
        return 0;
    snprintf(err, errlen, "%s:%ld: %s: averaging is 'y' or 'n', got '%s'", c->file, c->line,
             c->cmd, c->tok[idx]);
    return -1;
}

/* Cell range [lo, hi) of a box given in metres; the box must lie in the domain. */
static scl_status box_cells(const input *in, const command *c, const scl_grid3d *g,
                            const double *p, int lo[3], int hi[3], char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    double d[3] = {g->dx, g->dy, g->dz}, ext[3] = {g->nx * g->dx, g->ny * g->dy, g->nz * g->dz};
    int n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        if (p[a] < 0 || p[a + 3] > ext[a] * (1 + 1e-9) || p[a] > p[a + 3]) {
            snprintf(err, errlen,
                     "%s:%ld: %s: %c from %g to %g m is not inside the domain [0, %g] m (or lower > upper)",
                     c->file, c->line, c->cmd, "xyz"[a], p[a], p[a + 3], ext[a]);
            return SCL_ERR_INPUT;
        }
        lo[a] = (int)scl_round_half_down(p[a] / d[a]);
        hi[a] = (int)scl_round_half_down(p[a + 3] / d[a]);
        if (hi[a] > n[a])
            hi[a] = n[a];
    }
    return SCL_OK;
}

static int is_inf(const char *tok, int *sign)
{
    char *end;
    double v = strtod(tok, &end);
    if (end == tok || *end || !isinf(v))
        return 0;
    *sign = v > 0 ? 1 : -1;
    return 1;
}

/* Replace inf coordinates by numbers, as gprMax 4 does: a range's lower end
 * is the axis origin and its upper end the axis extent; a single point on
 * the invariant axis of a 2D TM model is the live layer (index 0), on
 * another axis +inf the extent and -inf the origin. Only in 2D models. */
static scl_status resolve_inf(input *in, const scl_fdtd_model *m, char *err, size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    double ext[3] = {g->nx * g->dx, g->ny * g->dy, g->nz * g->dz};
    for (int q = 0; q < in->n; q++) {
        command *c = &in->cmds[q];
        for (size_t k = 0; k < sizeof coords / sizeof coords[0]; k++) {
            if (strcmp(c->cmd, coords[k].cmd) != 0)
                continue;
            for (int t = 0; t < 2 && coords[k].first[t] >= 0; t++)
                for (int a = 0; a < 3; a++) {
                    int i = coords[k].first[t] + a, sign;
                    if (i >= c->ntok || !is_inf(c->tok[i], &sign))
                        continue;
                    if (!m->mode2d)
                        return fail(in, c, err, errlen,
                                    "'inf' is a coordinate of 2D models only (#domain_mode: TM "
                                    "or TE with inf in #domain)");
                    char role = coords[k].role[t];
                    /* the live layer: node 0 in TM, node 1 in TE (where an
                     * #edge's inf also means, as in gprMax) */
                    double live = m->te2d ? (a == 0 ? g->dx : a == 1 ? g->dy : g->dz) : 0;
                    if (m->te2d && a == m->mode2d - 1 && strcmp(c->cmd, "#edge") == 0)
                        role = 'p';
                    double v = role == 'l' ? 0 : role == 'u' ? ext[a]
                             : a == m->mode2d - 1 ? live : sign > 0 ? ext[a] : 0;
                    char *slot = c->fix[t * 3 + a];
                    snprintf(slot, sizeof c->fix[0], "%.17g", v);
                    c->tok[i] = slot;
                }
        }
    }
    return SCL_OK;
}

/* #domain with gprMax 4's 2D rules: inf on one axis needs #domain_mode TM
 * (the default when inf is given without it) and resolves to one cell; a
 * domain one cell thick on one axis, without inf, is also 2D TM on that axis
 * (the older style); TE and 3D with inf are refused. Sets n[] and *mode2d. */
static scl_status domain_cells(const input *in, const command *dom, const command *dm,
                               const double d[3], long n[3], int *mode2d, int *te, char *err,
                               size_t errlen)
{
    int mode = 0; /* 0 none given, 'M' TM, '3' 3D */
    if (dm) {
        if (nparams(in, dm, 1, 1, err, errlen))
            return SCL_ERR_INPUT;
        const char *v = dm->tok[0];
        if (!strcmp(v, "TM") || !strcmp(v, "tm"))
            mode = 'M';
        else if (!strcmp(v, "3D") || !strcmp(v, "3d"))
            mode = '3';
        else if (!strcmp(v, "TE") || !strcmp(v, "te"))
            mode = 'E';
        else
            return fail(in, dm, err, errlen, "the mode is TM, TE or 3D");
    }
    if (nparams(in, dom, 3, 3, err, errlen))
        return SCL_ERR_INPUT;
    double D[3];
    int inf_axis = -1, sign;
    for (int a = 0; a < 3; a++) {
        if (is_inf(dom->tok[a], &sign)) {
            if (inf_axis >= 0)
                return fail(in, dom, err, errlen, "'inf' is allowed on one axis only");
            inf_axis = a;
            D[a] = d[a];
        } else if (reals(in, dom, a, 1, &D[a], err, errlen))
            return SCL_ERR_INPUT;
        else if (!(D[a] > 0))
            return fail(in, dom, err, errlen, "sizes must be positive");
    }
    if (inf_axis >= 0 && mode == '3')
        return fail(in, dom, err, errlen, "'inf' needs #domain_mode: TM or TE (the model is 3D)");
    if (inf_axis < 0 && (mode == 'M' || mode == 'E'))
        return fail(in, dom, err, errlen, "#domain_mode: TM or TE needs 'inf' on the invariant axis");
    if (inf_axis >= 0 && mode == 'E') /* gprMax: TE is two cells thick, live at node 1 */
        D[inf_axis] = 2 * d[inf_axis];
    int ones = 0, one_axis = -1;
    for (int a = 0; a < 3; a++) {
        n[a] = scl_round_half_down(D[a] / d[a]);
        if (n[a] < 1 || n[a] > 100000)
            return fail(in, dom, err, errlen, "the domain must span 1 to 100000 cells per axis");
        if (n[a] == 1) {
            ones++;
            one_axis = a;
        }
    }
    if (ones > 1)
        return fail(in, dom, err, errlen,
                    "more than one axis is one cell thick: a 2D model has one invariant axis");
    *mode2d = inf_axis >= 0 ? inf_axis + 1 : (ones == 1 && mode != '3') ? one_axis + 1 : 0;
    *te = mode == 'E';
    return SCL_OK;
}

/* Cells of a gprMax range in metres (rounded as gprMax), inside the domain. */
static scl_status range_cells(const input *in, const command *c, const scl_fdtd_model *m,
                              int first, int lo[3], int hi[3], char *err, size_t errlen)
{
    double p[6];
    if (reals(in, c, first, 6, p, err, errlen))
        return SCL_ERR_INPUT;
    return box_cells(in, c, &m->grid, p, lo, hi, err, errlen);
}

/* A receiver at p (metres), recording all six components. */
static scl_status add_rx(const input *in, const command *c, scl_fdtd_model *m, const double p[3],
                         const char *name, char *err, size_t errlen)
{
    int ijk[3];
    char why[512];
    if (scl_grid3d_locate(&m->grid, "receiver", p[0], p[1], p[2], ijk, why, sizeof why) != SCL_OK)
        return fail(in, c, err, errlen, why);
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

/* Cells whose centre satisfies inside(); the bounding box limits the scan. */
static void fill_shape(scl_fdtd_model *m, const double *geo, int cylinder, int mat, int averaging)
{
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double x[3] = {(i + 0.5) * d[0], (j + 0.5) * d[1], (k + 0.5) * d[2]};
                int in;
                if (!cylinder) {
                    double r2 = 0;
                    for (int a = 0; a < 3; a++)
                        r2 += (x[a] - geo[a]) * (x[a] - geo[a]);
                    in = r2 <= geo[3] * geo[3];
                } else {
                    /* distance to the axis segment p1-p2, within its ends */
                    double ax[3], v[3], len2 = 0, t = 0;
                    for (int a = 0; a < 3; a++) {
                        ax[a] = geo[3 + a] - geo[a];
                        v[a] = x[a] - geo[a];
                        len2 += ax[a] * ax[a];
                        t += v[a] * ax[a];
                    }
                    t = len2 > 0 ? t / len2 : 0;
                    double r2 = 0;
                    for (int a = 0; a < 3; a++)
                        r2 += pow(v[a] - t * ax[a], 2);
                    in = t >= 0 && t <= 1 && r2 <= geo[6] * geo[6];
                }
                if (in) {
                    int lo[3] = {i, j, k}, hi[3] = {i + 1, j + 1, k + 1};
                    scl_fdtd_fill_box(m, lo, hi, mat, averaging);
                }
            }
}

/* A thin object's 7 (to most) parameters, its box as cells. */
static scl_status line_cells(const input *in, const command *c, const scl_fdtd_model *m, int most,
                             int lo[3], int hi[3], char *err, size_t errlen)
{
    if (nparams(in, c, 7, most, err, errlen))
        return SCL_ERR_INPUT;
    return range_cells(in, c, m, 0, lo, hi, err, errlen);
}

/* How many axes of [lo, hi) have zero size (zero 1) or not (zero 0); *axis
 * the last of them (-1 if none). */
static int axes_where(const int lo[3], const int hi[3], int zero, int *axis)
{
    int n = 0;
    *axis = -1;
    for (int a = 0; a < 3; a++)
        if ((lo[a] == hi[a]) == zero) {
            *axis = a;
            n++;
        }
    return n;
}

/* #plate: x1 y1 z1 x2 y2 z2 mat [mat2]: zero extent on exactly one axis;
 * the faces of its cells on that plane (two materials: the first for the
 * plane's first axis' component, the second for the other's) */
static scl_status parse_plate(const input *in, const command *c, scl_fdtd_model *m, char *err,
                              size_t errlen)
{
    int lo[3], hi[3], flat;
    scl_status s = line_cells(in, c, m, 8, lo, hi, err, errlen);
    if (s != SCL_OK)
        return s;
    if (axes_where(lo, hi, 1, &flat) != 1)
        return fail(in, c, err, errlen,
                    "a plate has zero size on exactly one axis (after rounding to the grid)");
    if (m->mode2d == flat + 1)
        return fail(in, c, err, errlen,
                    "in a 2D model a plate normal to the invariant axis lies on the domain wall; "
                    "use a plate normal to another axis");
    int u = flat == 0 ? 1 : 0, w = flat == 2 ? 1 : 2, mats[3] = {0, 0, 0};
    for (int t = 0; t < c->ntok - 6; t++) {
        int id = material_of(in, c, m, c->tok[6 + t], err, errlen);
        if (id < 0)
            return SCL_ERR_INPUT;
        mats[t == 0 ? u : w] = id;
        if (c->ntok == 7)
            mats[0] = mats[1] = mats[2] = id;
    }
    m->objects++;
    for (int i = lo[u]; i < hi[u]; i++)
        for (int j = lo[w]; j < hi[w]; j++) {
            int q[3];
            q[flat] = lo[flat];
            q[u] = i;
            q[w] = j;
            if (scl_fdtd_build_face(m, flat, q, mats) != SCL_OK)
                return SCL_ERR_MEMORY;
        }
    return SCL_OK;
}

/* #edge: x1 y1 z1 x2 y2 z2 mat: along exactly one axis */
static scl_status parse_edge(const input *in, const command *c, scl_fdtd_model *m, char *err,
                             size_t errlen)
{
    int lo[3], hi[3], run;
    scl_status s = line_cells(in, c, m, 7, lo, hi, err, errlen);
    if (s != SCL_OK)
        return s;
    if (axes_where(lo, hi, 0, &run) != 1)
        return fail(in, c, err, errlen,
                    "an edge runs along exactly one axis (after rounding to the grid)");
    if (m->mode2d && !m->te2d && m->mode2d != run + 1)
        return fail(in, c, err, errlen,
                    "in a 2D TM model an edge runs along the invariant axis (others set a "
                    "component the model does not have)");
    if (m->te2d && m->mode2d == run + 1)
        return fail(in, c, err, errlen,
                    "in a 2D TE model an edge runs across the invariant axis (along it, it "
                    "sets a component held at zero)");
    int mat = material_of(in, c, m, c->tok[6], err, errlen);
    if (mat < 0)
        return SCL_ERR_INPUT;
    m->objects++;
    for (int i = lo[run]; i < hi[run]; i++) {
        int q[3] = {lo[0], lo[1], lo[2]};
        q[run] = i;
        if (scl_fdtd_build_edge(m, run, q, mat) != SCL_OK)
            return SCL_ERR_MEMORY;
    }
    return SCL_OK;
}

/* A real, or inf (sign in *inf, 0 when finite). */
static int real_or_inf(const input *in, const command *c, int t, double *v, int *inf, char *err,
                       size_t errlen)
{
    *inf = 0;
    if (is_inf(c->tok[t], inf)) {
        *v = *inf > 0 ? INFINITY : -INFINITY;
        return 0;
    }
    return reals(in, c, t, 1, v, err, errlen);
}

/* The node index of a length along axis a, in the domain; -1 (and err) if not. */
static int node_of(const input *in, const command *c, const scl_fdtd_model *m, int a, double v,
                   const char *what, char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    int n[3] = {g->nx, g->ny, g->nz};
    double q = v / d[a];
    if (!(q >= 0) || q > n[a] * (1 + 1e-9) + 1e-9) {
        snprintf(err, errlen, "%s:%ld: %s: %s %c = %g m is outside the domain [0, %g] m",
                 c->file, c->line, c->cmd, what, "xyz"[a], v, n[a] * d[a]);
        return -1;
    }
    long k = scl_round_half_down(q);
    return (int)(k > n[a] ? n[a] : k);
}

/* Lower level and thickness in cells along a (gprMax's check_thickness). */
static scl_status thickness_cells(const input *in, const command *c, const scl_fdtd_model *m,
                                  int a, double lower, double thick, int *level, int *cells,
                                  char *err, size_t errlen)
{
    double d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    if (!(thick >= 0))
        return fail(in, c, err, errlen, "the thickness must be >= 0");
    if ((*level = node_of(in, c, m, a, lower, "lower extent", err, errlen)) < 0 ||
        node_of(in, c, m, a, lower + thick, "upper extent", err, errlen) < 0)
        return SCL_ERR_INPUT;
    *cells = (int)scl_round_half_down(thick / d[a]);
    return SCL_OK;
}

/* the averaging flag and material of a volume object at tokens t, t + 1 */
static scl_status volume_material(const input *in, const command *c, const scl_fdtd_model *m,
                                  int t, int *mat, int *avg, char *err, size_t errlen)
{
    *mat = material_of(in, c, m, c->tok[t], err, errlen);
    *avg = averaging_flag(in, c, t + 1, err, errlen);
    return *mat < 0 || *avg < 0 ? SCL_ERR_INPUT : SCL_OK;
}

/* #triangle: x1 y1 z1 x2 y2 z2 x3 y3 z3 thickness mat [averaging]: vertices
 * rounded to nodes, sharing one coordinate (the normal); in a 2D model an
 * axis inf for all three is 0 and an inf thickness the domain's extent */
static scl_status parse_triangle(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                 size_t errlen)
{
    double up[3][3], thick, dv[3][3], d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int inf[3][3], tinf, n[3] = {m->grid.nx, m->grid.ny, m->grid.nz}, node[3][3];
    if (c->ntok == 13)
        return fail(in, c, err, errlen, "three materials (an anisotropic triangle) are not supported");
    if (nparams(in, c, 11, 12, err, errlen) || real_or_inf(in, c, 9, &thick, &tinf, err, errlen))
        return SCL_ERR_INPUT;
    for (int v = 0; v < 3; v++)
        for (int a = 0; a < 3; a++)
            if (real_or_inf(in, c, 3 * v + a, &up[v][a], &inf[v][a], err, errlen))
                return SCL_ERR_INPUT;
    for (int a = 0; a < 3; a++) {
        int all = inf[0][a] && inf[1][a] && inf[2][a], any = inf[0][a] || inf[1][a] || inf[2][a];
        if (any && (!all || !m->mode2d))
            return fail(in, c, err, errlen,
                        "'inf' is for 2D models, on one axis of all three vertices");
        if (all) {
            up[0][a] = up[1][a] = up[2][a] = 0;
            if (tinf)
                thick = n[a] * d[a], tinf = 0;
        }
    }
    if (tinf)
        return fail(in, c, err, errlen, "an inf thickness needs the vertices' axis inf too");
    for (int v = 0; v < 3; v++)
        for (int a = 0; a < 3; a++) {
            if ((node[v][a] = node_of(in, c, m, a, up[v][a], "vertex", err, errlen)) < 0)
                return SCL_ERR_INPUT;
            dv[v][a] = node[v][a] * d[a];
        }
    int normal = -1;
    for (int a = 2; a >= 0; a--)
        if (node[0][a] == node[1][a] && node[1][a] == node[2][a])
            normal = a;
    double e1[3], e2[3], cr = 0;
    for (int a = 0; a < 3; a++)
        e1[a] = node[1][a] - node[0][a], e2[a] = node[2][a] - node[0][a];
    for (int a = 0; a < 3; a++)
        cr += fabs(e1[(a + 1) % 3] * e2[(a + 2) % 3] - e1[(a + 2) % 3] * e2[(a + 1) % 3]);
    if (cr == 0)
        return fail(in, c, err, errlen, "the vertices must make a triangle after rounding to the grid");
    if (normal < 0)
        return fail(in, c, err, errlen,
                    "the triangle must lie in a plane normal to x, y or z (the vertices share "
                    "one coordinate)");
    int level, cells, mat, avg;
    scl_status s;
    if ((s = thickness_cells(in, c, m, normal, up[0][normal], thick, &level, &cells, err, errlen)) ||
        (s = volume_material(in, c, m, 10, &mat, &avg, err, errlen)))
        return s;
    m->objects++;
    return scl_fdtd_build_triangle(m, (const double(*)[3])dv, normal, level, cells, mat, avg) < 0
               ? SCL_ERR_MEMORY : SCL_OK;
}

/* #cylindrical_sector: normal c1 c2 extent1 extent2 r start angle mat
 * [averaging]: angles in degrees, the centre rounded to the grid */
static scl_status parse_sector(const input *in, const command *c, scl_fdtd_model *m, char *err,
                               size_t errlen)
{
    double v[7], d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int n[3] = {m->grid.nx, m->grid.ny, m->grid.nz}, inf;
    if (c->ntok == 11)
        return fail(in, c, err, errlen, "three materials (an anisotropic sector) are not supported");
    if (nparams(in, c, 9, 10, err, errlen))
        return SCL_ERR_INPUT;
    const char *nt = c->tok[0];
    if (!nt[0] || nt[1] || !strchr("xyzXYZ", nt[0]))
        return fail(in, c, err, errlen, "the normal is x, y or z");
    int a = (nt[0] | 0x20) - 'x', u = a == 0 ? 1 : 0, w = a == 2 ? 1 : 2;
    if (m->mode2d && m->mode2d != a + 1)
        return fail(in, c, err, errlen, "in a 2D model the sector's normal is the invariant axis");
    for (int t = 0; t < 7; t++) {
        if (real_or_inf(in, c, t + 1, &v[t], &inf, err, errlen))
            return SCL_ERR_INPUT;
        if (inf && (!m->mode2d || (t != 2 && t != 3)))
            return fail(in, c, err, errlen, "'inf' is for the extents of a sector in a 2D model");
        if (inf)
            v[t] = t == 2 ? 0 : n[a] * d[a];
    }
    double c1 = scl_round_half_down(v[0] / d[u]) * d[u], c2 = scl_round_half_down(v[1] / d[w]) * d[w];
    if (!(v[4] > 0))
        return fail(in, c, err, errlen, "the radius must be positive");
    if (!(v[5] >= 0 && v[5] < 360 && v[6] > 0 && v[6] < 360))
        return fail(in, c, err, errlen,
                    "the start angle is in [0, 360) degrees and the sector angle in (0, 360)");
    int level, cells, mat, avg;
    scl_status s;
    if ((s = thickness_cells(in, c, m, a, v[2], v[3] - v[2], &level, &cells, err, errlen)) ||
        (s = volume_material(in, c, m, 8, &mat, &avg, err, errlen)))
        return s;
    m->objects++;
    const double deg = 3.14159265358979323846 / 180;
    return scl_fdtd_build_sector(m, a, c1, c2, v[4], v[5] * deg, v[6] * deg, level, cells, mat, avg) < 0
               ? SCL_ERR_MEMORY : SCL_OK;
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
        fail(in, c, err, errlen,
             "the interpolation is linear, slinear, nearest, previous, next or zero (splines "
             "of higher order are not supported)");
        return -1;
    }
    if (strcmp(c->tok[2], "extrapolate") == 0) {
        if (*interp != 'l') {
            fail(in, c, err, errlen, "'extrapolate' is supported with linear interpolation only");
            return -1;
        }
        *extrap = 1;
        return 0;
    }
    return reals(in, c, 2, 1, fill, err, errlen);
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
static scl_status parse_excitation(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                   size_t errlen)
{
    char interp, path[1024], why[900], head[1024], *line, *name[EXC_COLUMNS + 1];
    int extrap, ncol;
    double fill, *data = NULL;
    if (nparams(in, c, 1, 3, err, errlen) || (c->ntok == 2 && nparams(in, c, 1, 1, err, errlen)) ||
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
        return fail(in, c, err, errlen, why);
    int rc = scl_linereader_next(&r, &line, why, sizeof why);
    snprintf(head, sizeof head, "%s", rc == 1 ? line : "");
    ncol = scl_split_tokens(head, name, EXC_COLUMNS + 1);
    if (rc != 1 || ncol < 1 || ncol > EXC_COLUMNS) {
        scl_linereader_close(&r);
        return fail(in, c, err, errlen, "the file's first line names 1 to 64 columns");
    }
    long rows = excitation_rows(&r, ncol, &data, why, sizeof why);
    scl_linereader_close(&r);
    int timed = strcmp(name[0], "time") == 0 || strcmp(name[0], "Time") == 0 ||
                strcmp(name[0], "TIME") == 0;
    if (rows < 0 || rows < 2 || (timed && ncol < 2)) {
        free(data);
        return fail(in, c, err, errlen,
                    rows < 0 ? why : "needs at least two rows of samples (and a waveform after the time column)");
    }
    scl_status s = SCL_OK;
    for (long k = 1; timed && k < rows && s == SCL_OK; k++)
        if (!(data[k * ncol] > data[(k - 1) * ncol]))
            s = fail(in, c, err, errlen, "the times must increase strictly");
    for (int col = timed; col < ncol && s == SCL_OK; col++) {
        for (int w = 0; w < m->nwave; w++)
            if (strcmp(m->wave[w].name, name[col]) == 0) {
                snprintf(why, sizeof why, "waveform '%.64s' is already defined", name[col]);
                free(data);
                return fail(in, c, err, errlen, why);
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

/* The soil's materials for nbins bins: one Debye material each, named as
 * gprMax names them (|er+se+mr+sm| with 4 decimals), reused when a material
 * of that name exists. The first index, or -1 (err). */
static int soil_materials(const input *in, const command *soil, const command *c,
                          scl_fdtd_model *m, int nbins, char *err, size_t errlen)
{
    double par[6], (*bin)[4] = malloc((size_t)nbins * sizeof *bin);
    int first = -1;
    if (!bin || reals(in, soil, 0, 6, par, err, errlen)) {
        free(bin);
        return -1;
    }
    scl_fdtd_peplinski(par, nbins, bin);
    for (int q = 0; q < nbins; q++) {
        char name[64], why[512];
        snprintf(name, sizeof name, "|%.4f+%.4f+%.4f+%.4f|", bin[q][0], bin[q][3], 1.0, 0.0);
        int id = scl_fdtd_find_material(m, name);
        if (id < 0) {
            id = scl_fdtd_add_material(m, name, bin[q][0], bin[q][3], 1, 0, why, sizeof why);
            double pole[2] = {bin[q][1], bin[q][2]};
            if (id < 0 || scl_fdtd_add_poles(m, id, SCL_FDTD_DEBYE, 1, pole, why, sizeof why)) {
                free(bin);
                fail(in, c, err, errlen, why);
                return -1;
            }
        }
        if (q == 0)
            first = id;
        else if (id != first + q) {
            free(bin);
            fail(in, c, err, errlen, "the soil's bins give materials out of order (bins too close)");
            return -1;
        }
    }
    free(bin);
    return first;
}

/* #soil_peplinski: sand clay bulk_density sand_density water_lo water_hi ID */
static scl_status check_soil(const input *in, const command *c, char *err, size_t errlen)
{
    double v[6];
    if (nparams(in, c, 7, 7, err, errlen) || reals(in, c, 0, 6, v, err, errlen))
        return SCL_ERR_INPUT;
    if (!(v[0] >= 0 && v[0] <= 1 && v[1] >= 0 && v[1] <= 1 && v[0] + v[1] <= 1))
        return fail(in, c, err, errlen, "sand and clay fractions are in [0, 1] and sum to at most 1");
    if (!(v[2] > 0 && v[3] > v[2]))
        return fail(in, c, err, errlen, "densities: 0 < bulk density < sand particle density (g/cm3)");
    if (!(v[4] > 0 && v[5] >= v[4] && v[5] <= 1))
        return fail(in, c, err, errlen, "the water volume fraction range is 0 < lower <= upper <= 1");
    return SCL_OK;
}

/* #add_surface_roughness: x1 y1 z1 x2 y2 z2 D w1 w2 lower upper ID [seed]
 * on the fractal box [blo, bhi): the surface (zero size on one axis) on
 * one of the box's faces and inside it, the limits along its normal (gprMax's
 * checks: the lower limit inside the box for an upper face, the upper one
 * for a lower face; the other in the domain). */
static scl_status parse_rough(const input *in, const command *c, const scl_fdtd_model *m,
                              const int blo[3], const int bhi[3], scl_fdtd_rough *r, char *err,
                              size_t errlen)
{
    double p[6], v[5], d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int lo[3], hi[3], n[3] = {m->grid.nx, m->grid.ny, m->grid.nz}, a;
    long seed = 0;
    scl_status s;
    if (nparams(in, c, 12, 13, err, errlen) || reals(in, c, 0, 6, p, err, errlen) ||
        reals(in, c, 6, 5, v, err, errlen))
        return SCL_ERR_INPUT;
    if ((s = box_cells(in, c, &m->grid, p, lo, hi, err, errlen)) != SCL_OK)
        return s;
    if (!(v[0] >= 0) || !(v[1] >= 0 && v[2] >= 0))
        return fail(in, c, err, errlen, "the fractal dimension and the weights must be >= 0");
    if (c->ntok == 13 && (scl_parse_int(c->tok[12], &seed) != 0 || seed < 0))
        return fail(in, c, err, errlen, "the seed is a non-negative integer");
    if (axes_where(lo, hi, 1, &a) != 1)
        return fail(in, c, err, errlen,
                    "the surface has zero size on exactly one axis (after rounding to the grid)");
    if (m->mode2d == a + 1)
        return fail(in, c, err, errlen, "in a 2D model the surface's normal cannot be the invariant axis");
    if (lo[a] != blo[a] && lo[a] != bhi[a])
        return fail(in, c, err, errlen, "the surface must lie on an outer face of its fractal box");
    r->axis = a;
    r->plus = lo[a] == bhi[a] && lo[a] != blo[a];
    r->range[0] = (int)scl_round_half_down(v[3] / d[a]);
    r->range[1] = (int)scl_round_half_down(v[4] / d[a]);
    for (int q = 0; q < 3; q++)
        if (q != a && (lo[q] < blo[q] || hi[q] > bhi[q] || hi[q] == lo[q]))
            return fail(in, c, err, errlen, "the surface must span cells inside its fractal box's face");
    if (!(fabs(v[3]) < 1e9 && fabs(v[4]) < 1e9) || r->range[0] > r->range[1] || r->range[0] < 0 ||
        r->range[1] > n[a])
        return fail(in, c, err, errlen, "the limits must be lower <= upper, inside the domain");
    if (r->plus ? r->range[0] < blo[a] : r->range[1] > bhi[a])
        return fail(in, c, err, errlen, r->plus ? "on an upper face the lower limit must be inside the fractal box"
                                                : "on a lower face the upper limit must be inside the fractal box");
    memcpy(r->lo, lo, sizeof r->lo);
    memcpy(r->hi, hi, sizeof r->hi);
    r->D = v[0];
    r->w[0] = v[1];
    r->w[1] = v[2];
    r->seed = (unsigned long long)seed;
    r->blades = 0;
    return SCL_OK;
}

#define GRASS_TAU 1.0793e-11 /* gprMax's grass: one Debye pole (er 18.5087 static, 12.7174 at infinity) */

/* #add_grass: x1 y1 z1 x2 y2 z2 D lower upper blades ID [seed] on the
 * fractal box [blo, bhi): an upper face only, the blades' heights between
 * the limits along the normal (the upper one in the domain). */
static scl_status parse_grass(const input *in, const command *c, const scl_fdtd_model *m,
                              const int blo[3], const int bhi[3], scl_fdtd_rough *r, char *err,
                              size_t errlen)
{
    double p[6], v[3], d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int lo[3], hi[3], n[3] = {m->grid.nx, m->grid.ny, m->grid.nz}, a;
    long seed = 0, blades;
    scl_status s;
    if (nparams(in, c, 11, 12, err, errlen) || reals(in, c, 0, 6, p, err, errlen) ||
        reals(in, c, 6, 3, v, err, errlen))
        return SCL_ERR_INPUT;
    if ((s = box_cells(in, c, &m->grid, p, lo, hi, err, errlen)) != SCL_OK)
        return s;
    if (!(v[0] >= 0) || !(v[1] >= 0 && v[2] >= 0))
        return fail(in, c, err, errlen, "the fractal dimension and the limits must be >= 0");
    if (c->ntok == 12 && (scl_parse_int(c->tok[11], &seed) != 0 || seed < 0))
        return fail(in, c, err, errlen, "the seed is a non-negative integer");
    if (m->te2d)
        return fail(in, c, err, errlen, "grass in 2D TE models is not supported");
    if (!(m->dt < GRASS_TAU))
        return fail(in, c, err, errlen, "the time step must be below grass's relaxation time (1.0793e-11 s)");
    if (axes_where(lo, hi, 1, &a) != 1)
        return fail(in, c, err, errlen,
                    "the surface has zero size on exactly one axis (after rounding to the grid)");
    if (m->mode2d == a + 1)
        return fail(in, c, err, errlen, "in a 2D model the surface's normal cannot be the invariant axis");
    if (lo[a] != bhi[a])
        return fail(in, c, err, errlen, "grass grows on an upper face of its fractal box (x, y or z at its upper end)");
    long cells = 1;
    for (int q = 0; q < 3; q++) {
        if (q != a && (lo[q] < blo[q] || hi[q] > bhi[q] || hi[q] == lo[q]))
            return fail(in, c, err, errlen, "the surface must span cells inside its fractal box's face");
        cells *= q != a ? hi[q] - lo[q] : 1;
    }
    if (scl_parse_int(c->tok[9], &blades) != 0 || blades < 1 || blades > cells)
        return fail(in, c, err, errlen, "the number of blades is an integer from 1 to the surface's cells");
    r->axis = a;
    r->plus = 1;
    r->range[0] = (int)scl_round_half_down(fmin(v[1], 1e9) / d[a]);
    r->range[1] = (int)scl_round_half_down(fmin(v[2], 1e9) / d[a]);
    if (r->range[0] >= r->range[1] || r->range[1] > n[a])
        return fail(in, c, err, errlen, "the height limits must be lower < upper (in cells), inside the domain");
    memcpy(r->lo, lo, sizeof r->lo);
    memcpy(r->hi, hi, sizeof r->hi);
    r->D = v[0];
    r->w[0] = r->w[1] = 1;
    r->seed = (unsigned long long)seed;
    r->blades = (int)blades;
    return SCL_OK;
}

#define MAX_ROUGH 12

/* The rough surfaces of fractal box id [blo, bhi) (one per face, from
 * anywhere in the file, as gprMax builds a box with its surfaces) and the
 * box they extend it to, [elo, ehi). */
static scl_status rough_surfaces(const input *in, const scl_fdtd_model *m, const char *id,
                                 const int blo[3], const int bhi[3], scl_fdtd_rough *r, int *nr,
                                 int elo[3], int ehi[3], char *err, size_t errlen)
{
    memcpy(elo, blo, 3 * sizeof *elo);
    memcpy(ehi, bhi, 3 * sizeof *ehi);
    *nr = 0;
    for (int q = 0; q < in->n; q++) {
        const command *c = &in->cmds[q];
        int grass = strcmp(c->cmd, "#add_grass") == 0, t = grass ? 10 : 11;
        if ((!grass && strcmp(c->cmd, "#add_surface_roughness")) || c->ntok <= t || strcmp(c->tok[t], id))
            continue;
        scl_fdtd_rough s;
        scl_status st = grass ? parse_grass(in, c, m, blo, bhi, &s, err, errlen)
                              : parse_rough(in, c, m, blo, bhi, &s, err, errlen);
        if (st != SCL_OK)
            return st;
        for (int k = 0; k < *nr; k++)
            if (r[k].axis == s.axis && r[k].plus == s.plus && !r[k].blades == !s.blades)
                return fail(in, c, err, errlen, grass ? "this face of the fractal box already has grass"
                                                      : "this face of the fractal box already has a rough surface");
        int a = s.axis;
        if (s.plus && s.range[1] > ehi[a])
            ehi[a] = s.range[1];
        if (!s.plus && s.range[0] < elo[a])
            elo[a] = s.range[0];
        r[(*nr)++] = s; /* at most one of each per face: MAX_ROUGH */
    }
    return SCL_OK;
}

/* #add_surface_roughness and #add_grass name a fractal box of the file
 * (built with it) */
static scl_status check_rough(const input *in, const command *c, scl_fdtd_model *m, char *err,
                              size_t errlen)
{
    (void)m;
    int grass = strcmp(c->cmd, "#add_grass") == 0, t = grass ? 10 : 11;
    if (nparams(in, c, t + 1, t + 2, err, errlen))
        return SCL_ERR_INPUT;
    for (int q = 0; q < in->n; q++)
        if (strcmp(in->cmds[q].cmd, "#fractal_box") == 0 && in->cmds[q].ntok >= 13 &&
            strcmp(in->cmds[q].tok[12], c->tok[t]) == 0)
            return SCL_OK;
    char why[200];
    snprintf(why, sizeof why, "fractal box '%.64s' is not defined (#fractal_box)", c->tok[t]);
    return fail(in, c, err, errlen, why);
}

/* Fill the box [lo, hi) with the soil's nb materials from first on, binned
 * from a fractal volume of the box, where mask (over the box, x fastest)
 * is 1, and with material grass where it is 3; ta: a 2D TE model's invariant axis (one layer generated and
 * copied to both cells, as gprMax), else -1. */
static scl_status fill_fractal(scl_fdtd_model *m, const int lo[3], const int hi[3],
                               const signed char *mask, const double *v, unsigned long long seed,
                               int nb, int first, int ta, int grass)
{
    int n[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}, gen[3] = {n[0], n[1], n[2]};
    if (ta >= 0)
        gen[ta] = 1;
    long cells = (long)gen[0] * gen[1] * gen[2];
    double *f = malloc((size_t)cells * sizeof *f);
    if (!f || scl_fdtd_fractal(gen, v[0], v + 1, seed, f)) {
        free(f);
        return SCL_ERR_MEMORY;
    }
    scl_fdtd_fractal_bins(f, cells, nb);
    /* cell by cell in gprMax's order (x slowest), each its own object: a
     * shared edge between two soils goes to the later cell, as there */
    for (int i = 0; i < n[0]; i++)
        for (int j = 0; j < n[1]; j++)
            for (int k = 0; k < n[2]; k++) {
                if (!mask[i + (long)n[0] * (j + (long)n[1] * k)])
                    continue;
                m->objects++;
                int p0[3] = {lo[0] + i, lo[1] + j, lo[2] + k}, p1[3] = {p0[0] + 1, p0[1] + 1, p0[2] + 1};
                int g[3] = {i, j, k};
                if (ta >= 0)
                    g[ta] = 0;
                /* the soil's materials have poles: never averaged */
                long q = g[0] + (long)gen[0] * (g[1] + (long)gen[1] * g[2]);
                int mat = mask[i + (long)n[0] * (j + (long)n[1] * k)] == 3 ? grass : first + (int)f[q];
                scl_fdtd_fill_box(m, p0, p1, mat, 0);
            }
    free(f);
    return SCL_OK;
}

/* The mask of the box [elo, ehi) that fractal box [lo, hi) grew to with
 * its rough surfaces: the box's own cells, then each surface's cut. */
static signed char *rough_mask(const int lo[3], const int hi[3], const int elo[3],
                               const int ehi[3], const scl_fdtd_rough *r, int nr, int ta)
{
    int n[3] = {ehi[0] - elo[0], ehi[1] - elo[1], ehi[2] - elo[2]};
    signed char *mask = malloc((size_t)n[0] * n[1] * n[2]);
    if (!mask)
        return NULL;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                int p[3] = {elo[0] + i, elo[1] + j, elo[2] + k}, in = 1;
                for (int a = 0; a < 3; a++)
                    in &= p[a] >= lo[a] && p[a] < hi[a];
                mask[i + (long)n[0] * (j + (long)n[1] * k)] = (signed char)in;
            }
    for (int s = 0; s < nr; s++)
        if (r[s].blades ? scl_fdtd_grass_apply(&r[s], hi[r[s].axis], elo, ehi, mask)
                        : scl_fdtd_rough_apply(&r[s], ta, elo, ehi, mask)) {
            free(mask);
            return NULL;
        }
    return mask;
}

/* gprMax's grass material (one Debye pole), made once; one named grass
 * already (the user's) is taken as it is, as there. -1 (err) if full. */
static int grass_material(const input *in, const command *c, scl_fdtd_model *m, char *err,
                          size_t errlen)
{
    char why[512];
    int id = scl_fdtd_find_material(m, "grass");
    if (id >= 0)
        return id;
    double pole[2] = {18.5087 - 12.7174, GRASS_TAU};
    id = scl_fdtd_add_material(m, "grass", 12.7174, 0, 1, 0, why, sizeof why);
    if (id < 0 || scl_fdtd_add_poles(m, id, SCL_FDTD_DEBYE, 1, pole, why, sizeof why) != SCL_OK) {
        fail(in, c, err, errlen, why);
        return -1;
    }
    return id;
}

/* #fractal_box: x1 y1 z1 x2 y2 z2 D wx wy wz nbins soil ID [seed [averaging]] */
static scl_status parse_fractal_box(const input *in, const command *c, scl_fdtd_model *m,
                                    char *err, size_t errlen)
{
    double v[4];
    int lo[3], hi[3], elo[3], ehi[3], nr;
    long nb, seed = 0;
    scl_fdtd_rough rough[MAX_ROUGH];
    scl_status s;
    if (nparams(in, c, 13, 15, err, errlen) || reals(in, c, 6, 4, v, err, errlen))
        return SCL_ERR_INPUT;
    if ((s = range_cells(in, c, m, 0, lo, hi, err, errlen)) != SCL_OK)
        return s;
    if (!(v[0] >= 0 && v[0] <= 3) || !(v[1] >= 0 && v[2] >= 0 && v[3] >= 0))
        return fail(in, c, err, errlen, "the fractal dimension is in [0, 3] and the weights >= 0");
    if (scl_parse_int(c->tok[10], &nb) != 0 || nb < 1 || nb > 200)
        return fail(in, c, err, errlen, "the number of materials is an integer from 1 to 200");
    if (c->ntok >= 14 && (scl_parse_int(c->tok[13], &seed) != 0 || seed < 0))
        return fail(in, c, err, errlen, "the seed is a non-negative integer");
    if (c->ntok == 15 && averaging_flag(in, c, 14, err, errlen) < 0)
        return SCL_ERR_INPUT;
    const command *soil = NULL;
    for (int q = 0; q < in->n; q++)
        if (strcmp(in->cmds[q].cmd, "#soil_peplinski") == 0 && in->cmds[q].ntok == 7 &&
            strcmp(in->cmds[q].tok[6], c->tok[11]) == 0)
            soil = &in->cmds[q];
    if (!soil) {
        char why[200];
        snprintf(why, sizeof why, "mixing model '%.64s' is not defined (#soil_peplinski)", c->tok[11]);
        return fail(in, c, err, errlen, why);
    }
    for (int a = 0; a < 3; a++)
        if (hi[a] - lo[a] < 1)
            return fail(in, c, err, errlen, "the box spans at least one cell per axis");
    if ((s = rough_surfaces(in, m, c->tok[12], lo, hi, rough, &nr, elo, ehi, err, errlen)) != SCL_OK)
        return s;
    int first = soil_materials(in, soil, c, m, (int)nb, err, errlen), grass = -1;
    if (first < 0)
        return SCL_ERR_INPUT;
    for (int q = 0; q < nr; q++)
        if (rough[q].blades && (grass = grass_material(in, c, m, err, errlen)) < 0)
            return SCL_ERR_INPUT;
    /* 2D TE: one layer, copied to both cells of the invariant axis (gprMax) */
    int ta = m->te2d ? m->mode2d - 1 : -1;
    signed char *mask = rough_mask(lo, hi, elo, ehi, rough, nr, ta);
    if (!mask)
        return SCL_ERR_MEMORY;
    s = fill_fractal(m, elo, ehi, mask, v, (unsigned long long)seed, (int)nb, first, ta, grass);
    free(mask);
    return s;
}

/* gprMax's #pml_cfs: three (profile direction min max) for alpha, kappa and
 * sigma, sigma's max 'None' for gprMax's automatic value. One only: two
 * make gprMax's second-order HORIPML, not supported. */
static scl_status parse_cfs(input *in, scl_fdtd_model *m, char *err, size_t errlen)
{
    static const char *const prof[] = {"constant", "linear", "quadratic", "cubic", "quartic",
                                       "quintic", "sextic", "septic", "octic"};
    int count;
    const command *c = find(in, "#pml_cfs", &count);
    if (!c)
        return SCL_OK;
    if (count > 1)
        return fail(in, c, err, errlen, "a second #pml_cfs (gprMax's second-order HORIPML) is not supported");
    if (c->ntok == 13)
        return fail(in, c, err, errlen, "PML profile identifiers (#pml_profile, #pml_slab) are not supported");
    if (nparams(in, c, 12, 12, err, errlen))
        return SCL_ERR_INPUT;
    scl_fdtd_cfs *cfs = &m->cfs;
    cfs->set = 1;
    for (int p = 0; p < 3; p++) {
        char *const *t = &c->tok[4 * p];
        double v[2] = {0, 0};
        cfs->profile[p] = -1;
        for (int k = 0; k < 9; k++)
            if (strcmp(t[0], prof[k]) == 0)
                cfs->profile[p] = k;
        if (cfs->profile[p] < 0)
            return fail(in, c, err, errlen, "a scaling profile is constant, linear, quadratic, cubic, "
                                            "quartic, quintic, sextic, septic or octic");
        if (strcmp(t[1], "forward") && strcmp(t[1], "reverse"))
            return fail(in, c, err, errlen, "a scaling direction is forward or reverse");
        cfs->reverse[p] = strcmp(t[1], "reverse") == 0;
        cfs->sigma_auto = p == 2 && (strcmp(t[3], "None") == 0 || strcmp(t[3], "none") == 0);
        if (reals(in, c, 4 * p + 2, cfs->sigma_auto ? 1 : 2, v, err, errlen))
            return SCL_ERR_INPUT;
        if (!(v[0] >= 0 && v[0] <= 1e30 && v[1] >= 0 && v[1] <= 1e30))
            return fail(in, c, err, errlen, "minimum and maximum values are zero or greater");
        cfs->min[p] = v[0];
        cfs->max[p] = v[1];
    }
    /* kappa divides the update (gprMax's zero kappa gives NaN) */
    if (!(cfs->max[1] > 0) || (cfs->profile[1] != 0 && !(cfs->min[1] > 0)))
        return fail(in, c, err, errlen, "kappa must be positive");
    return SCL_OK;
}

/* #pml_cells (gprMax's default: 10 on every face; none across a 2D model's
 * invariant axis) and #pml_cfs. */
static scl_status parse_pml(input *in, const command *pml, const command *dom, scl_fdtd_model *m,
                            const long n[3], char *err, size_t errlen)
{
    for (int f = 0; f < 6; f++)
        m->pml[f] = 10;
    if (pml) {
        long v[6];
        if (pml->ntok != 1 && pml->ntok != 6)
            return fail(in, pml, err, errlen, "needs 1 or 6 integers (x0 y0 z0 xmax ymax zmax)");
        for (int f = 0; f < pml->ntok; f++)
            if (scl_parse_int(pml->tok[f], &v[f]) != 0 || v[f] < 0 || v[f] > 1000)
                return fail(in, pml, err, errlen, "cell counts are integers in [0, 1000]");
        for (int f = 0; f < 6; f++)
            m->pml[f] = (int)(pml->ntok == 1 ? v[0] : v[f]);
    }
    if (m->mode2d)
        m->pml[m->mode2d - 1] = m->pml[m->mode2d + 2] = 0;
    for (int a = 0; a < 3; a++)
        if (m->pml[a] + m->pml[a + 3] >= (int)n[a])
            return fail(in, pml ? pml : dom, err, errlen,
                        "the PML layers fill the domain: make it larger or the PML thinner");
    return parse_cfs(in, m, err, errlen);
}

/* *arrp (an array of n items of size bytes, any pointer type: read and
 * written as bytes) grown by one, item appended and n counted; unchanged
 * when out of memory */
static scl_status push(void *arrp, int *n, const void *item, size_t size)
{
    void *arr;
    memcpy(&arr, arrp, sizeof arr);
    char *p = realloc(arr, (size_t)(*n + 1) * size);
    if (!p)
        return SCL_ERR_MEMORY;
    memcpy(p + (size_t)(*n)++ * size, item, size);
    memcpy(arrp, &p, sizeof p);
    return SCL_OK;
}

/* #dx_dy_dz, #time_step_stability_factor, #domain (+ #domain_mode): the
 * model's grid, its 2D mode and time step; the cells in n. */
static scl_status grid_setup(input *in, const command *dom, const command *dx, const command *dm,
                             const command *sf, long long max_cells, scl_fdtd_model *m, long n[3],
                             char *err, size_t errlen)
{
    scl_status s;
    double d[3], factor = 1;
    if (nparams(in, dx, 3, 3, err, errlen) || reals(in, dx, 0, 3, d, err, errlen))
        return SCL_ERR_INPUT;
    for (int a = 0; a < 3; a++)
        if (!(d[a] > 0))
            return fail(in, dx, err, errlen, "sizes must be positive");
    if (sf && (nparams(in, sf, 1, 1, err, errlen) || reals(in, sf, 0, 1, &factor, err, errlen)))
        return SCL_ERR_INPUT;
    if (sf && !(factor > 0 && factor <= 1)) {
        char why[256];
        snprintf(why, sizeof why,
                 "factor %g must be in (0, 1]: a time step above the Courant limit %.6e s is unstable",
                 factor, scl_fdtd_courant_dt(d[0], d[1], d[2]));
        return fail(in, sf, err, errlen, why);
    }
    int mode2d = 0, te = 0;
    if ((s = domain_cells(in, dom, dm, d, n, &mode2d, &te, err, errlen)) != SCL_OK)
        return s;
    if (max_cells > 0 && (double)n[0] * n[1] * n[2] > (double)max_cells) {
        char why[160];
        snprintf(why, sizeof why, "%ld x %ld x %ld cells exceed the limit of %lld", n[0], n[1], n[2],
                 max_cells);
        return fail(in, dom, err, errlen, why);
    }
    s = scl_fdtd_model_init(m, (int)n[0], (int)n[1], (int)n[2], d[0], d[1], d[2], factor, err, errlen);
    if (s != SCL_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        return fail(in, dom, err, errlen, why);
    }
    m->mode2d = mode2d;
    m->te2d = te;
    m->dt = factor * scl_fdtd_model_courant(m);
    if ((s = resolve_inf(in, m, err, errlen)) != SCL_OK)
        return s;

    return SCL_OK;
}

/* #src_steps, #rx_steps, #title and #time_window (a real number is seconds,
 * an integer iterations: gprMax) */
static scl_status run_setup(input *in, const command *ss, const command *rs, const command *title,
                            const command *tw, scl_fdtd_model *m, char *err, size_t errlen)
{
    const double d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    for (int t = 0; t < 2; t++) {
        const command *c = t ? rs : ss;
        double v[3];
        if (!c)
            continue;
        if (nparams(in, c, 3, 3, err, errlen) || reals(in, c, 0, 3, v, err, errlen))
            return SCL_ERR_INPUT;
        for (int a = 0; a < 3; a++) {
            double q = v[a] / d[a];
            if (!(fabs(q) <= 1e6))
                return fail(in, c, err, errlen, "steps must be at most 1e6 cells");
            (t ? m->rx_step : m->src_step)[a] = (int)scl_round_half_down(q);
        }
    }
    if (title)
        for (int q = 0; q < title->ntok; q++) {
            size_t len = strlen(m->title);
            snprintf(m->title + len, sizeof m->title - len, "%s%s", q ? " " : "", title->tok[q]);
        }
    if (nparams(in, tw, 1, 1, err, errlen))
        return SCL_ERR_INPUT;
    long iters;
    double win;
    if (scl_parse_int(tw->tok[0], &iters) == 0) {
        if (iters < 1)
            return fail(in, tw, err, errlen, "iterations must be >= 1");
        m->iterations = iters;
    } else if (reals(in, tw, 0, 1, &win, err, errlen) == 0) {
        if (!(win > 0))
            return fail(in, tw, err, errlen, "the time window must be positive");
        double steps = ceil(win / m->dt) + 1;
        if (!(steps <= 100000000.0)) /* checked before the conversion: no overflow */
            return fail(in, tw, err, errlen, "more than 1e8 iterations");
        m->iterations = (long)steps;
        m->time_window = win;
    } else
        return SCL_ERR_INPUT;
    if (m->iterations > 100000000L)
        return fail(in, tw, err, errlen, "more than 1e8 iterations");

    return SCL_OK;
}

/* #waveform: type amplitude frequency name */
static scl_status parse_waveform(input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    double v[2];
    if (nparams(in, c, 4, 4, err, errlen) || reals(in, c, 1, 2, v, err, errlen))
        return SCL_ERR_INPUT;
    int kind = scl_wavelet_kind_from_name(c->tok[0]);
    if (kind < 0)
        return fail(in, c, err, errlen,
                    "waveform type must be gaussian, gaussiandot, gaussiandotnorm, "
                    "gaussiandotdot, gaussiandotdotnorm, gaussianprime, gaussiandoubleprime, "
                    "ricker, gauspulse, sine, contsine or impulse (user: not supported)");
    if (!(v[1] > 0))
        return fail(in, c, err, errlen, "frequency must be positive");
    for (int w = 0; w < m->nwave; w++)
        if (strcmp(m->wave[w].name, c->tok[3]) == 0)
            return fail(in, c, err, errlen, "waveform name already defined");
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

/* Materials, waveforms, soils and excitation files first (any order in the file). */
static scl_status parse_defs(input *in, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s;
    for (int q = 0; q < in->n; q++) {
        const command *c = &in->cmds[q];
        if (strcmp(c->cmd, "#material") == 0) {
            double v[4];
            if (nparams(in, c, 5, 5, err, errlen) || reals(in, c, 0, 4, v, err, errlen))
                return SCL_ERR_INPUT;
            char why[512];
            if (scl_fdtd_add_material(m, c->tok[4], v[0], v[1], v[2], v[3], why, sizeof why) < 0)
                return fail(in, c, err, errlen, why);
        } else if (strcmp(c->cmd, "#waveform") == 0) {
            if ((s = parse_waveform(in, c, m, err, errlen)) != SCL_OK)
                return s;
        } else if (strcmp(c->cmd, "#soil_peplinski") == 0) {
            if ((s = check_soil(in, c, err, errlen)) != SCL_OK)
                return s;
        } else if (strcmp(c->cmd, "#excitation_file") == 0) {
            if ((s = parse_excitation(in, c, m, err, errlen)) != SCL_OK)
                return s;
        }
    }

    return SCL_OK;
}

/* Poles of the materials defined above (before any object uses them):
 * N, the values of each pole, then one or more materials. */
static scl_status parse_poles(input *in, scl_fdtd_model *m, char *err, size_t errlen)
{
    for (int q = 0; q < in->n; q++) {
        const command *c = &in->cmds[q];
        static const char *cmds[3] = {"#add_dispersion_debye", "#add_dispersion_lorentz",
                                      "#add_dispersion_drude"};
        int kind = -1;
        for (int k = 0; k < 3; k++)
            if (strcmp(c->cmd, cmds[k]) == 0)
                kind = k;
        if (kind < 0)
            continue;
        int per = kind == SCL_FDTD_LORENTZ ? 3 : 2;
        long np;
        if (c->ntok < 2 + per || scl_parse_int(c->tok[0], &np) != 0 || np < 1 ||
            np > SCL_FDTD_MAX_POLES || c->ntok < 2 + per * np) {
            char why[200];
            snprintf(why, sizeof why,
                     "needs the number of poles (1 to %d), %d values per pole, and one or more "
                     "materials", SCL_FDTD_MAX_POLES, per);
            return fail(in, c, err, errlen, why);
        }
        double par[3 * SCL_FDTD_MAX_POLES];
        if (reals(in, c, 1, per * (int)np, par, err, errlen))
            return SCL_ERR_INPUT;
        for (int t = 1 + per * (int)np; t < c->ntok; t++) {
            int mat = material_of(in, c, m, c->tok[t], err, errlen);
            if (mat < 0)
                return SCL_ERR_INPUT;
            char why[512];
            if (scl_fdtd_add_poles(m, mat, (scl_fdtd_pole_kind)kind, (int)np, par, why,
                                   sizeof why) != SCL_OK)
                return fail(in, c, err, errlen, why);
        }
    }

    return SCL_OK;
}

/* #box, #sphere, #cylinder */
static scl_status parse_solid(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    char why[512];
    scl_status s;
    int kind = c->cmd[1] == 'b' ? 0 : c->cmd[1] == 's' ? 1 : 2;
    int ngeo = kind == 0 ? 6 : kind == 1 ? 4 : 7;
    m->objects++; /* shared edges of objects built without averaging: the later wins */
    double geo[7];
    if (nparams(in, c, ngeo + 1, ngeo + 2, err, errlen) || reals(in, c, 0, ngeo, geo, err, errlen))
        return SCL_ERR_INPUT;
    int mat = material_of(in, c, m, c->tok[ngeo], err, errlen);
    int avg = averaging_flag(in, c, ngeo + 1, err, errlen);
    if (mat < 0 || avg < 0)
        return SCL_ERR_INPUT;
    if (kind == 0) {
        int lo[3], hi[3];
        if ((s = box_cells(in, c, &m->grid, geo, lo, hi, err, errlen)) != SCL_OK)
            return s;
        scl_fdtd_fill_box(m, lo, hi, mat, avg);
    } else {
        double r = geo[kind == 1 ? 3 : 6];
        if (!(r > 0))
            return fail(in, c, err, errlen, "radius must be positive");
        /* the centre (or both axis ends) must lie in the domain */
        for (int a = 0; a < 3; a++) {
            double ext[3] = {m->grid.nx * m->grid.dx, m->grid.ny * m->grid.dy, m->grid.nz * m->grid.dz};
            double c0 = kind == 1 ? geo[a] : fmin(geo[a], geo[3 + a]);
            double c1 = kind == 1 ? geo[a] : fmax(geo[a], geo[3 + a]);
            if (c0 < 0 || c1 > ext[a] * (1 + 1e-9)) {
                snprintf(why, sizeof why, "centre/axis %c = %g m is outside the domain [0, %g] m",
                         "xyz"[a], c0 < 0 ? c0 : c1, ext[a]);
                return fail(in, c, err, errlen, why);
            }
        }
        fill_shape(m, geo, kind == 2, mat, avg);
    }
    return SCL_OK;
}

/* The resistance of a voltage source (>= 0) or a transmission line
 * (gprMax 4: finite, in (0, z0); a line is 3D only). */
static scl_status source_resistance(const input *in, const command *c, const scl_fdtd_model *m,
                                    scl_fdtd_source *src, char *err, size_t errlen)
{
    const double z0 = SCL_FDTD_MU0 * SCL_FDTD_C0;
    if (reals(in, c, 4, 1, &src->resistance, err, errlen))
        return SCL_ERR_INPUT;
    if (src->kind == SCL_FDTD_VOLTAGE)
        return src->resistance >= 0 ? SCL_OK : fail(in, c, err, errlen, "resistance must be >= 0");
    if (m->mode2d)
        return fail(in, c, err, errlen,
                    "a transmission line cannot be used in a 2D model (as gprMax 4: its line's "
                    "step assumes the 3D time step); use #voltage_source");
    if (!(src->resistance > 0 && src->resistance < z0))
        return fail(in, c, err, errlen,
                    "the resistance must be greater than 0 and less than the impedance of free "
                    "space (376.73 Ohms)");
    return SCL_OK;
}

/* #hertzian_dipole, #magnetic_dipole, #voltage_source, #transmission_line:
 * pol x y z [R] wave [start stop] */
static scl_status parse_source(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    char why[512];
    int volt = c->cmd[1] == 'v' || c->cmd[1] == 't', mag = c->cmd[1] == 'm';
    int base = volt ? 6 : 5; /* pol x y z [R] wave [start stop] */
    if (c->cmd[1] == 'v' && c->ntok >= 9 && c->ntok <= 11)
        return fail(in, c, err, errlen, "ports (a voltage source with a port ID, spectrum limit or "
                                        "reference impedance) are not supported");
    if (nparams(in, c, base, base + 2, err, errlen))
        return SCL_ERR_INPUT;
    if (c->ntok == base + 1)
        return fail(in, c, err, errlen, "give both start and stop times, or neither");
    scl_fdtd_source src = {c->cmd[1] == 't' ? SCL_FDTD_TLINE
                           : volt          ? SCL_FDTD_VOLTAGE
                           : mag           ? SCL_FDTD_MAGNETIC
                                           : SCL_FDTD_HERTZIAN,
                           -1, {0, 0, 0}, {0, 0, 0}, -1, 0, -1, 0};
    if (strlen(c->tok[0]) == 1 && c->tok[0][0] >= 'x' && c->tok[0][0] <= 'z')
        src.pol = c->tok[0][0] - 'x';
    else
        return fail(in, c, err, errlen, "polarisation must be x, y or z");
    /* gprMax 4: in 2D the H a magnetic dipole drives must live (TM:
     * across the invariant axis, TE: along it) */
    if (mag && m->mode2d && (src.pol == m->mode2d - 1) != (m->te2d != 0))
        return fail(in, c, err, errlen, m->te2d ? "in a 2D TE model the polarisation is the invariant axis"
                                                : "in a 2D TM model the polarisation is not the invariant axis");
    if (reals(in, c, 1, 3, src.pos, err, errlen))
        return SCL_ERR_INPUT;
    if (volt && source_resistance(in, c, m, &src, err, errlen) != SCL_OK)
        return SCL_ERR_INPUT;
    const char *wname = c->tok[volt ? 5 : 4];
    for (int w = 0; w < m->nwave; w++)
        if (strcmp(m->wave[w].name, wname) == 0)
            src.wave = w;
    if (src.wave < 0) {
        snprintf(why, sizeof why, "waveform '%s' is not defined (#waveform)", wname);
        return fail(in, c, err, errlen, why);
    }
    if (c->ntok == base + 2) {
        double t[2];
        if (reals(in, c, base, 2, t, err, errlen))
            return SCL_ERR_INPUT;
        if (!(t[0] >= 0 && t[1] > t[0]))
            return fail(in, c, err, errlen, "need 0 <= start < stop");
        src.start = t[0];
        src.stop = t[1];
    }
    if (scl_grid3d_locate(&m->grid, "source", src.pos[0], src.pos[1], src.pos[2], src.ijk, why, sizeof why) != SCL_OK)
        return fail(in, c, err, errlen, why);
    return push(&m->src, &m->nsrc, &src, sizeof src);
}

/* #rx: x y z [name [outputs]] */
static scl_status parse_rx(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s;
    double p[3];
    if (c->ntok < 3 && nparams(in, c, 3, 3, err, errlen))
        return SCL_ERR_INPUT;
    if (reals(in, c, 0, 3, p, err, errlen))
        return SCL_ERR_INPUT;
    for (int o = 4; o < c->ntok; o++)
        if (strlen(c->tok[o]) != 2 || !strchr("EH", c->tok[o][0]) || !strchr("xyz", c->tok[o][1]))
            return fail(in, c, err, errlen, "outputs are Ex Ey Ez Hx Hy Hz (currents are not supported)");
    if ((s = add_rx(in, c, m, p, c->ntok >= 4 ? c->tok[3] : "", err, errlen)) != SCL_OK)
        return s;
    return SCL_OK;
}

/* The box x1 y1 z1 x2 y2 z2 and its steps dx dy dz: #snapshot's and
 * #geometry_view's (11 parameters: at least one cell per axis, sampled
 * every cell or more) or, with array, #rx_array's (9: a step of 0 only
 * along an axis the array does not extend on). */
static scl_status sampled_box(const input *in, const command *c, const scl_fdtd_model *m, int array,
                              int lo[3], int hi[3], int step[3], char *err, size_t errlen)
{
    double v[3];
    scl_status s;
    int np = array ? 9 : 11;
    if (nparams(in, c, np, np, err, errlen) || reals(in, c, 6, 3, v, err, errlen))
        return SCL_ERR_INPUT;
    if ((s = range_cells(in, c, m, 0, lo, hi, err, errlen)) != SCL_OK)
        return s;
    for (int a = 0; a < 3; a++) {
        double cq = v[a] / (a == 0 ? m->grid.dx : a == 1 ? m->grid.dy : m->grid.dz);
        step[a] = fabs(cq) <= 1e6 ? (int)scl_round_half_down(cq) : -1;
        if (array && (step[a] < 0 || (step[a] == 0 && hi[a] > lo[a])))
            return fail(in, c, err, errlen, "steps must be >= 1 cell along the array's extent");
        if (!array && step[a] < 1)
            return fail(in, c, err, errlen, "the sampling must be at least one cell");
        if (!array && hi[a] <= lo[a])
            return fail(in, c, err, errlen, "the box must span at least one cell per axis");
    }
    return SCL_OK;
}

/* #rx_array: receivers from p1 to p2 (inclusive) every step */
static scl_status parse_rx_array(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s;
    /* receivers from p1 to p2 (inclusive) every step, as gprMax */
    int lo[3], hi[3], st[3];
    if ((s = sampled_box(in, c, m, 1, lo, hi, st, err, errlen)) != SCL_OK)
        return s;
    long count = 1;
    for (int a = 0; a < 3; a++)
        count *= st[a] ? (hi[a] - lo[a]) / st[a] + 1 : 1;
    if (count > 100000)
        return fail(in, c, err, errlen, "more than 100000 receivers");
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

/* #snapshot */
static scl_status parse_snapshot(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    char why[512];
    scl_status s;
    /* x1 y1 z1 x2 y2 z2 dx dy dz T name: T an integer is the iteration,
     * a real the time, mapped to the nearest step (gprMax) */
    scl_fdtd_snapshot sn;
    memset(&sn, 0, sizeof sn);
    if ((s = sampled_box(in, c, m, 0, sn.lo, sn.hi, sn.step, err, errlen)) != SCL_OK)
        return s;
    long it;
    double t;
    if (scl_parse_int(c->tok[9], &it) == 0) {
        sn.iteration = it;
    } else if (reals(in, c, 9, 1, &t, err, errlen) == 0) {
        sn.iteration = lround(t / m->dt);
    } else
        return SCL_ERR_INPUT;
    if (sn.iteration < 0 || sn.iteration >= m->iterations) {
        snprintf(why, sizeof why, "iteration %ld is outside the run's 0 to %ld", sn.iteration,
                 m->iterations - 1);
        return fail(in, c, err, errlen, why);
    }
    const char *name = c->tok[10], *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".vtkhdf") != 0)
        return fail(in, c, err, errlen, "snapshots are written as .vtkhdf (the .h5 form is not supported)");
    if (strchr(name, '/') || strlen(name) > 200)
        return fail(in, c, err, errlen, "the file name has no directory part and at most 200 characters");
    /* INPUT_snaps/NAME.vtkhdf beside the input, as gprMax 4 */
    const char *slash = strrchr(in->r.path, '/'), *base = slash ? slash + 1 : in->r.path;
    const char *ext = strrchr(base, '.');
    int dirlen = (int)(base - in->r.path), stem = ext ? (int)(ext - base) : (int)strlen(base);
    if (snprintf(sn.file, sizeof sn.file, "%.*s%.*s_snaps/%s%s", dirlen, in->r.path, stem, base,
                 name, dot ? "" : ".vtkhdf") >= (int)sizeof sn.file)
        return fail(in, c, err, errlen, "the snapshot's file path is too long");
    return push(&m->snap, &m->nsnap, &sn, sizeof sn);
}

/* #geometry_view */
static scl_status parse_gview(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s;
    scl_fdtd_geometry_view gv;
    memset(&gv, 0, sizeof gv);
    if ((s = sampled_box(in, c, m, 0, gv.lo, gv.hi, gv.step, err, errlen)) != SCL_OK)
        return s;
    if (strcmp(c->tok[10], "f") == 0)
        return fail(in, c, err, errlen,
                    "the fine ('f', per-edge) geometry view is not supported; use 'n'");
    if (strcmp(c->tok[10], "n") != 0)
        return fail(in, c, err, errlen, "the type is 'n' (per cell) or 'f' (per edge)");
    if (strchr(c->tok[9], '/') || strlen(c->tok[9]) > 200)
        return fail(in, c, err, errlen, "the file name has no directory part and at most 200 characters");
    /* beside the input file, as gprMax 4 puts it (FILE.vtkhdf) */
    const char *slash = strrchr(in->r.path, '/');
    int dirlen = slash ? (int)(slash - in->r.path + 1) : 0;
    if (snprintf(gv.file, sizeof gv.file, "%.*s%s", dirlen, in->r.path, c->tok[9]) >=
        (int)sizeof gv.file)
        return fail(in, c, err, errlen, "the view's file path is too long");
    return push(&m->gview, &m->ngview, &gv, sizeof gv);
}

/* #messages */
static scl_status parse_messages(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    (void)m;
    if (nparams(in, c, 1, 1, err, errlen))
        return SCL_ERR_INPUT;
    /* gprMax takes y or n only */
    if (!c->tok[0][0] || c->tok[0][1] || !strchr("yYnN", c->tok[0][0]))
        return fail(in, c, err, errlen, "expected y or n");
    return SCL_OK;
}

/* #omp_threads (#num_threads, its older name): gprMax's OpenMP thread count; checked, then left to the
 * device (the OpenCL runtime picks its own threads) */
static scl_status parse_omp_threads(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                    size_t errlen)
{
    (void)m;
    long n;
    if (nparams(in, c, 1, 1, err, errlen))
        return SCL_ERR_INPUT;
    if (scl_parse_int(c->tok[0], &n) != 0 || n < 1)
        return fail(in, c, err, errlen, "expected a thread count >= 1");
    return SCL_OK;
}

/* #magnetic_averaging: harmonic (gprMax 4.0.1's default) or arithmetic
 * (older gprMax), any case, for the mr and sm of averaged H faces */
static scl_status parse_magavg(const input *in, const command *c, scl_fdtd_model *m, char *err,
                               size_t errlen)
{
    if (nparams(in, c, 1, 1, err, errlen))
        return SCL_ERR_INPUT;
    char word[16] = "";
    for (size_t q = 0; c->tok[0][q] && q + 1 < sizeof word; q++)
        word[q] = (char)tolower((unsigned char)c->tok[0][q]);
    if (strcmp(word, "harmonic") != 0 && strcmp(word, "arithmetic") != 0)
        return fail(in, c, err, errlen, "expected harmonic or arithmetic");
    m->magnetic_arithmetic = word[0] == 'a';
    return SCL_OK;
}

/* A file a command names: the path as given, else beside the input file
 * (gprMax's order). */
static void beside_input(const input *in, const char *name, char *path, size_t size)
{
    const char *slash = strrchr(in->r.path, '/');
    snprintf(path, size, "%s", name);
    FILE *probe = fopen(path, "r");
    if (probe)
        fclose(probe);
    else if (name[0] != '/' && slash)
        snprintf(path, size, "%.*s%s", (int)(slash - in->r.path + 1), in->r.path, name);
}

#define GEO_MATERIALS 256

/* The #material lines of a geometry file's materials file, added to the
 * model as gprMax names them (NAME{STEM}, STEM the file's name without
 * its extension; one already defined is reused): their model indices in
 * map, their number in *count. Other commands are refused (FILE:LINE). */
static scl_status geometry_materials(const input *in, const command *c, const char *path,
                                     scl_fdtd_model *m, int *map, int *count, char *err,
                                     size_t errlen)
{
    scl_linereader r;
    char why[900] = "", *line, *tok[8];
    if (scl_linereader_open(&r, path, why, sizeof why) != SCL_OK)
        return fail(in, c, err, errlen, why);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path, *dot = strrchr(base, '.');
    int stem = dot ? (int)(dot - base) : (int)strlen(base), rc;
    scl_status s = SCL_OK;
    *count = 0;
    while ((rc = scl_linereader_next(&r, &line, why, sizeof why)) == 1) {
        if (line[0] != '#' || line[1] == '#')
            continue; /* gprMax: other lines, and ## comments, are not commands */
        double v[4];
        char name[64], msg[600];
        if (strncmp(line, "#material:", 10) != 0)
            s = scl_linereader_fail(&r, why, sizeof why, "only #material lines are supported in a materials file");
        else if (scl_split_tokens(line + 10, tok, 7) != 5 || scl_parse_real(tok[0], &v[0]) ||
                 scl_parse_real(tok[1], &v[1]) || scl_parse_real(tok[2], &v[2]) ||
                 scl_parse_real(tok[3], &v[3]))
            s = scl_linereader_fail(&r, why, sizeof why, "#material needs er se mr sm name");
        else if (*count == GEO_MATERIALS)
            s = scl_linereader_fail(&r, why, sizeof why, "more than %d materials", GEO_MATERIALS);
        else if (snprintf(name, sizeof name, "%s{%.*s}", tok[4], stem, base) >= (int)sizeof name)
            s = scl_linereader_fail(&r, why, sizeof why, "the material's name is too long");
        else {
            int id = scl_fdtd_find_material(m, name);
            if (id < 0)
                id = scl_fdtd_add_material(m, name, v[0], v[1], v[2], v[3], msg, sizeof msg);
            if (id < 0)
                s = scl_linereader_fail(&r, why, sizeof why, "%s", msg);
            map[(*count)++] = id;
        }
        if (s != SCL_OK)
            break;
    }
    scl_linereader_close(&r);
    if (s != SCL_OK || rc < 0)
        return fail(in, c, err, errlen, why);
    return SCL_OK;
}

/* The cells of a geometry file placed at lo: each index a material of map
 * (-1: nothing), built as cells (averaging as asked); in a 2D model the
 * file's layers across the invariant axis are the model's, or its first
 * layer copied (gprMax 4 broadcasts and reduces that axis). */
static scl_status place_geometry(const input *in, const command *c, scl_fdtd_model *m,
                                 const int lo[3], const int fn[3], const int *cells,
                                 const int *map, int nmap, int avg, char *err, size_t errlen)
{
    int n[3] = {m->grid.nx, m->grid.ny, m->grid.nz}, ext[3] = {fn[0], fn[1], fn[2]};
    int inv = m->mode2d ? m->mode2d - 1 : -1;
    if (inv >= 0)
        ext[inv] = n[inv];
    for (int a = 0; a < 3; a++)
        if (lo[a] + ext[a] > n[a]) {
            char why[200];
            snprintf(why, sizeof why, "the geometry's %d cells along %c from cell %d leave the domain (%d cells)",
                     ext[a], "xyz"[a], lo[a], n[a]);
            return fail(in, c, err, errlen, why);
        }
    /* cell by cell in gprMax's order (x slowest), each its own object: a
     * shared edge goes to the later cell, as there */
    for (int i = 0; i < ext[0]; i++)
        for (int j = 0; j < ext[1]; j++)
            for (int k = 0; k < ext[2]; k++) {
                int f[3] = {i, j, k};
                if (inv >= 0 && fn[inv] != n[inv])
                    f[inv] = 0;
                int q = cells[f[0] + (long)fn[0] * (f[1] + (long)fn[1] * f[2])];
                if (q == -1)
                    continue;
                if (q < 0 || q >= nmap) {
                    char why[200];
                    snprintf(why, sizeof why, "index %d at cell (%d, %d, %d) of the file names none of its %d materials",
                             q, f[0], f[1], f[2], nmap);
                    return fail(in, c, err, errlen, why);
                }
                int p0[3] = {lo[0] + i, lo[1] + j, lo[2] + k}, p1[3] = {p0[0] + 1, p0[1] + 1, p0[2] + 1};
                m->objects++;
                scl_fdtd_fill_box(m, p0, p1, map[q], avg);
            }
    return SCL_OK;
}

/* #geometry_objects_read: x y z GEOMETRY.h5 MATERIALS.txt [averaging]: the
 * older gprMax form (an HDF5 file of cell indices and a text file of
 * #material lines), at the cell of x y z; the file's cell size must round
 * to the model's (gprMax's test) and files with per-component arrays (/ID,
 * written by #geometry_objects_write) are refused. Built without averaging
 * unless 'y' (gprMax 4's optional flag). */
static scl_status parse_geometry_read(const input *in, const command *c, scl_fdtd_model *m,
                                      char *err, size_t errlen)
{
    double p[3], fd[3], d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int lo[3], fn[3], comps, *cells = NULL, map[GEO_MATERIALS], nmap, avg = 0;
    char geo[1024], mat[1024], why[1200];
    scl_status s;
    if (nparams(in, c, 5, 6, err, errlen) || reals(in, c, 0, 3, p, err, errlen))
        return SCL_ERR_INPUT;
    if (c->ntok == 6 && (avg = averaging_flag(in, c, 5, err, errlen)) < 0)
        return SCL_ERR_INPUT;
    for (int a = 0; a < 3; a++)
        if ((lo[a] = node_of(in, c, m, a, p[a], "corner", err, errlen)) < 0)
            return SCL_ERR_INPUT;
    beside_input(in, c->tok[3], geo, sizeof geo);
    beside_input(in, c->tok[4], mat, sizeof mat);
    if ((s = scl_fdtd_read_geometry(geo, fn, fd, &cells, &comps, why, sizeof why)) != SCL_OK) {
        fail(in, c, err, errlen, why);
        return s;
    }
    for (int a = 0; a < 3 && s == SCL_OK; a++)
        if (scl_round_half_down(fd[a] / d[a]) != 1)
            s = fail(in, c, err, errlen, "the geometry file's dx_dy_dz does not match the model's cells");
    if (s == SCL_OK && comps)
        s = fail(in, c, err, errlen,
                 "geometry files with per-component arrays (/ID, /rigidE, /rigidH: written by "
                 "#geometry_objects_write) are not supported; /data alone is read");
    if (s == SCL_OK)
        s = geometry_materials(in, c, mat, m, map, &nmap, err, errlen);
    if (s == SCL_OK)
        s = place_geometry(in, c, m, lo, fn, cells, map, nmap, avg, err, errlen);
    free(cells);
    return s;
}

/* Objects in file order, sources and receivers. */
static scl_status parse_objects(input *in, scl_fdtd_model *m, char *err, size_t errlen)
{
    static const struct {
        const char *cmd;
        scl_status (*fn)(const input *, const command *, scl_fdtd_model *, char *, size_t);
    } table[] = {{"#box", parse_solid},           {"#sphere", parse_solid},
                 {"#cylinder", parse_solid},      {"#plate", parse_plate},
                 {"#edge", parse_edge},           {"#triangle", parse_triangle},
                 {"#cylindrical_sector", parse_sector}, {"#fractal_box", parse_fractal_box},
                 {"#hertzian_dipole", parse_source}, {"#voltage_source", parse_source},
                 {"#magnetic_dipole", parse_source}, {"#transmission_line", parse_source},
                 {"#rx", parse_rx},
                 {"#rx_array", parse_rx_array},   {"#snapshot", parse_snapshot},
                 {"#geometry_view", parse_gview}, {"#messages", parse_messages},
                 {"#omp_threads", parse_omp_threads}, {"#num_threads", parse_omp_threads},
                 {"#add_surface_roughness", check_rough}, {"#add_grass", check_rough},
                 {"#geometry_objects_read", parse_geometry_read}};
    for (int q = 0; q < in->n; q++)
        for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
            if (strcmp(in->cmds[q].cmd, table[k].cmd) == 0) {
                scl_status s = table[k].fn(in, &in->cmds[q], m, err, errlen);
                if (s != SCL_OK)
                    return s;
            }
    return SCL_OK;
}

static scl_status build(input *in, scl_fdtd_model *m, long long max_cells, char *err, size_t errlen)
{
    const command *dom, *dx, *tw, *sf, *pml, *title, *dm, *ss, *rs, *ma;
    scl_status s;
    if ((s = single(in, "#domain", 1, &dom, err, errlen)) || (s = single(in, "#dx_dy_dz", 1, &dx, err, errlen)) ||
        (s = single(in, "#domain_mode", 0, &dm, err, errlen)) ||
        (s = single(in, "#src_steps", 0, &ss, err, errlen)) ||
        (s = single(in, "#rx_steps", 0, &rs, err, errlen)) ||
        (s = single(in, "#time_window", 1, &tw, err, errlen)) ||
        (s = single(in, "#time_step_stability_factor", 0, &sf, err, errlen)) ||
        (s = single(in, "#pml_cells", 0, &pml, err, errlen)) || (s = single(in, "#title", 0, &title, err, errlen)) ||
        (s = single(in, "#magnetic_averaging", 0, &ma, err, errlen)))
        return s;
    long n[3];
    if ((s = grid_setup(in, dom, dx, dm, sf, max_cells, m, n, err, errlen)) != SCL_OK ||
        (s = run_setup(in, ss, rs, title, tw, m, err, errlen)) != SCL_OK ||
        (s = parse_pml(in, pml, dom, m, n, err, errlen)) != SCL_OK ||
        (s = parse_defs(in, m, err, errlen)) != SCL_OK || (s = parse_poles(in, m, err, errlen)) != SCL_OK ||
        (s = parse_objects(in, m, err, errlen)) != SCL_OK ||
        (ma && (s = parse_magavg(in, ma, m, err, errlen)) != SCL_OK))
        return s;
    if (m->nsrc == 0 && m->nrx > 0) {
        snprintf(err, errlen, "%s: no source (#hertzian_dipole, #magnetic_dipole, #voltage_source or "
                 "#transmission_line)", in->r.path);
        return SCL_ERR_INPUT;
    }
    for (int q = 0; q < m->nsrc; q++)
        if (m->src[q].stop < 0)
            m->src[q].stop = (m->iterations - 1) * m->dt;
    if (scl_fdtd_model_tlines(m) > 0 && scl_fdtd_tline_cells(m) <= SCL_FDTD_TLINE_ANT) {
        snprintf(err, errlen, "%s: a transmission line needs a run of at least 16 iterations",
                 in->r.path);
        return SCL_ERR_INPUT;
    }
    s = scl_fdtd_model_finish(m, err, errlen);
    if (s != SCL_OK) {
        char why[900];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "%s: %s", in->r.path, why);
    }
    return s;
}

scl_status scl_fdtd_read_input(const char *path, scl_fdtd_model *m, char *err, size_t errlen)
{
    return scl_fdtd_read_input_limit(path, 0, m, err, errlen);
}

scl_status scl_fdtd_read_input_limit(const char *path, long long max_cells, scl_fdtd_model *m,
                                     char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    input in;
    memset(&in, 0, sizeof in);
    scl_status s = scl_linereader_open(&in.r, path, err, errlen);
    if (s != SCL_OK)
        return s;
    in.chain[0] = realpath(path, NULL); /* NULL only where realpath fails: no cycle check for it */
    s = read_lines(&in, &in.r, in.r.path, 0, err, errlen);
    if (s == SCL_OK)
        s = split_all(&in, err, errlen);
    if (s == SCL_OK)
        s = build(&in, m, max_cells, err, errlen);
    scl_linereader_close(&in.r);
    free(in.cmds);
    for (int f = 0; f < in.nfiles; f++)
        free(in.files[f]);
    free(in.files);
    free(in.chain[0]);
    if (s != SCL_OK)
        scl_fdtd_model_free(m);
    return s;
}
