/* Reader of gprMax's input language (the subset in fdtd.h). Commands may come
 * in any order except objects, which are built in the order given (later ones
 * overwrite earlier ones), as in gprMax. */
#include "input_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The table of commands: every gprMax command this reader takes, and the
 * parser of those built in file order (objects, sources, receivers, outputs;
 * NULL: read elsewhere, as a single-use setting or in an earlier pass, see
 * build). A command missing here is refused as unknown, with file and line. */
typedef scl_status (*command_fn)(const input *, const command *, scl_fdtd_model *, char *, size_t);
static const struct {
    const char *cmd;
    command_fn fn;
} commands[] = {
    /* single-use settings (build, grid_setup, run_setup, parse_pml) */
    {"#title", NULL}, {"#domain", NULL}, {"#domain_mode", NULL}, {"#dx_dy_dz", NULL},
    {"#time_window", NULL}, {"#time_step_stability_factor", NULL}, {"#pml_cells", NULL},
    {"#pml_cfs", NULL}, {"#src_steps", NULL}, {"#rx_steps", NULL},
    {"#magnetic_averaging", NULL}, {"#study", NULL},
    /* definitions, before any object (input_materials.c: fdtd_in_parse_defs, _poles) */
    {"#material", NULL}, {"#material_from_database", NULL}, {"#waveform", NULL}, {"#excitation_file", NULL},
    {"#soil_peplinski", NULL}, {"#add_dispersion_debye", NULL},
    {"#add_dispersion_lorentz", NULL}, {"#add_dispersion_drude", NULL},
    /* geometry (input_geometry.c, input_soil.c), in file order */
    {"#box", fdtd_in_parse_solid}, {"#sphere", fdtd_in_parse_solid},
    {"#cylinder", fdtd_in_parse_solid}, {"#plate", fdtd_in_parse_plate},
    {"#edge", fdtd_in_parse_edge}, {"#triangle", fdtd_in_parse_triangle},
    {"#cylindrical_sector", fdtd_in_parse_sector}, {"#fractal_box", fdtd_in_parse_fractal_box},
    {"#add_surface_roughness", fdtd_in_check_rough}, {"#add_grass", fdtd_in_check_rough},
    {"#geometry_objects_read", fdtd_in_parse_geometry_read},
    /* sources and receivers (input_sources.c) */
    {"#hertzian_dipole", fdtd_in_parse_source}, {"#voltage_source", fdtd_in_parse_source},
    {"#magnetic_dipole", fdtd_in_parse_source}, {"#transmission_line", fdtd_in_parse_source},
    {"#rx", fdtd_in_parse_rx}, {"#rx_array", fdtd_in_parse_rx_array},
    /* outputs and run settings (input_outputs.c) */
    {"#snapshot", fdtd_in_parse_snapshot}, {"#geometry_view", fdtd_in_parse_gview},
    {"#messages", fdtd_in_parse_messages}, {"#omp_threads", fdtd_in_parse_omp_threads},
    {"#num_threads", fdtd_in_parse_omp_threads},
};

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
        for (size_t q = 0; q < sizeof commands / sizeof commands[0]; q++)
            ok |= strcmp(line, commands[q].cmd) == 0;
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
            return fdtd_in_fail(in, c, err, errlen, "too many parameters");
    }
    return SCL_OK;
}

static scl_status single(const input *in, const char *name, int required, const command **out,
                         char *err, size_t errlen)
{
    int count;
    *out = find(in, name, &count);
    if (count > 1)
        return fdtd_in_fail(in, *out, err, errlen, "given more than once");
    if (required && count == 0) {
        snprintf(err, errlen, "%s: %s is required", in->r.path, name);
        return SCL_ERR_INPUT;
    }
    return SCL_OK;
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
                    if (i >= c->ntok || !fdtd_in_is_inf(c->tok[i], &sign))
                        continue;
                    if (!m->mode2d)
                        return fdtd_in_fail(in, c, err, errlen,
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
        if (fdtd_in_nparams(in, dm, 1, 1, err, errlen))
            return SCL_ERR_INPUT;
        const char *v = dm->tok[0];
        if (!strcmp(v, "TM") || !strcmp(v, "tm"))
            mode = 'M';
        else if (!strcmp(v, "3D") || !strcmp(v, "3d"))
            mode = '3';
        else if (!strcmp(v, "TE") || !strcmp(v, "te"))
            mode = 'E';
        else
            return fdtd_in_fail(in, dm, err, errlen, "the mode is TM, TE or 3D");
    }
    if (fdtd_in_nparams(in, dom, 3, 3, err, errlen))
        return SCL_ERR_INPUT;
    double D[3];
    int inf_axis = -1, sign;
    for (int a = 0; a < 3; a++) {
        if (fdtd_in_is_inf(dom->tok[a], &sign)) {
            if (inf_axis >= 0)
                return fdtd_in_fail(in, dom, err, errlen, "'inf' is allowed on one axis only");
            inf_axis = a;
            D[a] = d[a];
        } else if (fdtd_in_reals(in, dom, a, 1, &D[a], err, errlen))
            return SCL_ERR_INPUT;
        else if (!(D[a] > 0))
            return fdtd_in_fail(in, dom, err, errlen, "sizes must be positive");
    }
    if (inf_axis >= 0 && mode == '3')
        return fdtd_in_fail(in, dom, err, errlen, "'inf' needs #domain_mode: TM or TE (the model is 3D)");
    if (inf_axis < 0 && (mode == 'M' || mode == 'E'))
        return fdtd_in_fail(in, dom, err, errlen, "#domain_mode: TM or TE needs 'inf' on the invariant axis");
    if (inf_axis >= 0 && mode == 'E') /* gprMax: TE is two cells thick, live at node 1 */
        D[inf_axis] = 2 * d[inf_axis];
    int ones = 0, one_axis = -1;
    for (int a = 0; a < 3; a++) {
        n[a] = scl_round_half_down(D[a] / d[a]);
        if (n[a] < 1 || n[a] > 100000)
            return fdtd_in_fail(in, dom, err, errlen, "the domain must span 1 to 100000 cells per axis");
        if (n[a] == 1) {
            ones++;
            one_axis = a;
        }
    }
    if (ones > 1)
        return fdtd_in_fail(in, dom, err, errlen,
                    "more than one axis is one cell thick: a 2D model has one invariant axis");
    *mode2d = inf_axis >= 0 ? inf_axis + 1 : (ones == 1 && mode != '3') ? one_axis + 1 : 0;
    *te = mode == 'E';
    return SCL_OK;
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
        return fdtd_in_fail(in, c, err, errlen, "a second #pml_cfs (gprMax's second-order HORIPML) is not supported");
    if (c->ntok == 13)
        return fdtd_in_fail(in, c, err, errlen, "PML profile identifiers (#pml_profile, #pml_slab) are not supported");
    if (fdtd_in_nparams(in, c, 12, 12, err, errlen))
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
            return fdtd_in_fail(in, c, err, errlen, "a scaling profile is constant, linear, quadratic, cubic, "
                                            "quartic, quintic, sextic, septic or octic");
        if (strcmp(t[1], "forward") && strcmp(t[1], "reverse"))
            return fdtd_in_fail(in, c, err, errlen, "a scaling direction is forward or reverse");
        cfs->reverse[p] = strcmp(t[1], "reverse") == 0;
        cfs->sigma_auto = p == 2 && (strcmp(t[3], "None") == 0 || strcmp(t[3], "none") == 0);
        if (fdtd_in_reals(in, c, 4 * p + 2, cfs->sigma_auto ? 1 : 2, v, err, errlen))
            return SCL_ERR_INPUT;
        if (!(v[0] >= 0 && v[0] <= 1e30 && v[1] >= 0 && v[1] <= 1e30))
            return fdtd_in_fail(in, c, err, errlen, "minimum and maximum values are zero or greater");
        cfs->min[p] = v[0];
        cfs->max[p] = v[1];
    }
    /* kappa divides the update (gprMax's zero kappa gives NaN) */
    if (!(cfs->max[1] > 0) || (cfs->profile[1] != 0 && !(cfs->min[1] > 0)))
        return fdtd_in_fail(in, c, err, errlen, "kappa must be positive");
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
            return fdtd_in_fail(in, pml, err, errlen, "needs 1 or 6 integers (x0 y0 z0 xmax ymax zmax)");
        for (int f = 0; f < pml->ntok; f++)
            if (scl_parse_int(pml->tok[f], &v[f]) != 0 || v[f] < 0 || v[f] > 1000)
                return fdtd_in_fail(in, pml, err, errlen, "cell counts are integers in [0, 1000]");
        for (int f = 0; f < 6; f++)
            m->pml[f] = (int)(pml->ntok == 1 ? v[0] : v[f]);
    }
    if (m->mode2d)
        m->pml[m->mode2d - 1] = m->pml[m->mode2d + 2] = 0;
    for (int a = 0; a < 3; a++)
        if (m->pml[a] + m->pml[a + 3] >= (int)n[a])
            return fdtd_in_fail(in, pml ? pml : dom, err, errlen,
                        "the PML layers fill the domain: make it larger or the PML thinner");
    return parse_cfs(in, m, err, errlen);
}

/* #dx_dy_dz, #time_step_stability_factor, #domain (+ #domain_mode): the
 * model's grid, its 2D mode and time step; the cells in n. */
static scl_status grid_setup(input *in, const command *dom, const command *dx, const command *dm,
                             const command *sf, long long max_cells, scl_fdtd_model *m, long n[3],
                             char *err, size_t errlen)
{
    scl_status s;
    double d[3], factor = 1;
    if (fdtd_in_nparams(in, dx, 3, 3, err, errlen) || fdtd_in_reals(in, dx, 0, 3, d, err, errlen))
        return SCL_ERR_INPUT;
    for (int a = 0; a < 3; a++)
        if (!(d[a] > 0))
            return fdtd_in_fail(in, dx, err, errlen, "sizes must be positive");
    if (sf && (fdtd_in_nparams(in, sf, 1, 1, err, errlen) || fdtd_in_reals(in, sf, 0, 1, &factor, err, errlen)))
        return SCL_ERR_INPUT;
    if (sf && !(factor > 0 && factor <= 1)) {
        char why[256];
        snprintf(why, sizeof why,
                 "factor %g must be in (0, 1]: a time step above the Courant limit %.6e s is unstable",
                 factor, scl_fdtd_courant_dt(d[0], d[1], d[2]));
        return fdtd_in_fail(in, sf, err, errlen, why);
    }
    int mode2d = 0, te = 0;
    if ((s = domain_cells(in, dom, dm, d, n, &mode2d, &te, err, errlen)) != SCL_OK)
        return s;
    if (max_cells > 0 && (double)n[0] * n[1] * n[2] > (double)max_cells) {
        char why[160];
        snprintf(why, sizeof why, "%ld x %ld x %ld cells exceed the limit of %lld", n[0], n[1], n[2],
                 max_cells);
        return fdtd_in_fail(in, dom, err, errlen, why);
    }
    s = scl_fdtd_model_init(m, (int)n[0], (int)n[1], (int)n[2], d[0], d[1], d[2], factor, err, errlen);
    if (s != SCL_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        return fdtd_in_fail(in, dom, err, errlen, why);
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
        if (fdtd_in_nparams(in, c, 3, 3, err, errlen) || fdtd_in_reals(in, c, 0, 3, v, err, errlen))
            return SCL_ERR_INPUT;
        for (int a = 0; a < 3; a++) {
            double q = v[a] / d[a];
            if (!(fabs(q) <= 1e6))
                return fdtd_in_fail(in, c, err, errlen, "steps must be at most 1e6 cells");
            (t ? m->rx_step : m->src_step)[a] = (int)scl_round_half_down(q);
        }
    }
    if (title)
        for (int q = 0; q < title->ntok; q++) {
            size_t len = strlen(m->title);
            snprintf(m->title + len, sizeof m->title - len, "%s%s", q ? " " : "", title->tok[q]);
        }
    if (fdtd_in_nparams(in, tw, 1, 1, err, errlen))
        return SCL_ERR_INPUT;
    long iters;
    double win;
    if (scl_parse_int(tw->tok[0], &iters) == 0) {
        if (iters < 1)
            return fdtd_in_fail(in, tw, err, errlen, "iterations must be >= 1");
        m->iterations = iters;
    } else if (fdtd_in_reals(in, tw, 0, 1, &win, err, errlen) == 0) {
        if (!(win > 0))
            return fdtd_in_fail(in, tw, err, errlen, "the time window must be positive");
        double steps = ceil(win / m->dt) + 1;
        if (!(steps <= 100000000.0)) /* checked before the conversion: no overflow */
            return fdtd_in_fail(in, tw, err, errlen, "more than 1e8 iterations");
        m->iterations = (long)steps;
        m->time_window = win;
    } else
        return SCL_ERR_INPUT;
    if (m->iterations > 100000000L)
        return fdtd_in_fail(in, tw, err, errlen, "more than 1e8 iterations");

    return SCL_OK;
}

/* Objects in file order, sources and receivers: the table's parsers. */
static scl_status parse_objects(input *in, scl_fdtd_model *m, char *err, size_t errlen)
{
    for (int q = 0; q < in->n; q++)
        for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
            if (commands[k].fn && strcmp(in->cmds[q].cmd, commands[k].cmd) == 0) {
                int nsrc = m->nsrc, nrx = m->nrx;
                scl_status s = commands[k].fn(in, &in->cmds[q], m, err, errlen);
                if (s == SCL_OK)
                    s = fdtd_in_study_note(in, &in->cmds[q], nsrc, nrx);
                if (s != SCL_OK)
                    return s;
            }
    return SCL_OK;
}

/* #study (input_study.c): the cases' positions, the model at case 1. */
static scl_status study(input *in, const command *st, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s = fdtd_in_parse_study(in, st, m, err, errlen);
    char why[600];
    if (s == SCL_OK && (s = scl_fdtd_model_trace(m, 0, why, sizeof why)) != SCL_OK)
        return fdtd_in_fail(in, st, err, errlen, why);
    return s;
}

static scl_status build(input *in, scl_fdtd_model *m, long long max_cells, char *err, size_t errlen)
{
    const command *dom, *dx, *tw, *sf, *pml, *title, *dm, *ss, *rs, *ma, *st;
    scl_status s;
    if ((s = single(in, "#domain", 1, &dom, err, errlen)) || (s = single(in, "#dx_dy_dz", 1, &dx, err, errlen)) ||
        (s = single(in, "#domain_mode", 0, &dm, err, errlen)) ||
        (s = single(in, "#src_steps", 0, &ss, err, errlen)) ||
        (s = single(in, "#rx_steps", 0, &rs, err, errlen)) ||
        (s = single(in, "#time_window", 1, &tw, err, errlen)) ||
        (s = single(in, "#time_step_stability_factor", 0, &sf, err, errlen)) ||
        (s = single(in, "#pml_cells", 0, &pml, err, errlen)) || (s = single(in, "#title", 0, &title, err, errlen)) ||
        (s = single(in, "#magnetic_averaging", 0, &ma, err, errlen)) ||
        (s = single(in, "#study", 0, &st, err, errlen)))
        return s;
    long n[3];
    if ((s = grid_setup(in, dom, dx, dm, sf, max_cells, m, n, err, errlen)) != SCL_OK ||
        (s = run_setup(in, ss, rs, title, tw, m, err, errlen)) != SCL_OK ||
        (s = parse_pml(in, pml, dom, m, n, err, errlen)) != SCL_OK ||
        (s = fdtd_in_parse_defs(in, m, err, errlen)) != SCL_OK || (s = fdtd_in_parse_poles(in, m, err, errlen)) != SCL_OK ||
        (s = parse_objects(in, m, err, errlen)) != SCL_OK ||
        (st && (s = study(in, st, m, err, errlen)) != SCL_OK) ||
        (ma && (s = fdtd_in_parse_magavg(in, ma, m, err, errlen)) != SCL_OK))
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
    free(in.study);
    if (s != SCL_OK)
        scl_fdtd_model_free(m);
    return s;
}
