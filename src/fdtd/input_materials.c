/* gprMax input, materials: #material (and the definitions read before any
 * object), #material_from_database, #add_dispersion_debye/_lorentz/_drude,
 * #magnetic_averaging. */
#include "input_internal.h"
#include "json.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Materials, waveforms, soils and excitation files first (any order in the file). */
scl_status fdtd_in_parse_defs(input *in, scl_fdtd_model *m, char *err, size_t errlen)
{
    scl_status s;
    for (int q = 0; q < in->n; q++) {
        const command *c = &in->cmds[q];
        if (strcmp(c->cmd, "#material") == 0) {
            double v[4];
            if (fdtd_in_nparams(in, c, 5, 5, err, errlen) || fdtd_in_reals(in, c, 0, 4, v, err, errlen))
                return SCL_ERR_INPUT;
            char why[512];
            if (scl_fdtd_add_material(m, c->tok[4], v[0], v[1], v[2], v[3], why, sizeof why) < 0)
                return fdtd_in_fail(in, c, err, errlen, why);
        } else if (strcmp(c->cmd, "#material_from_database") == 0) {
            if ((s = fdtd_in_parse_material_db(in, c, m, err, errlen)) != SCL_OK)
                return s;
        } else if (strcmp(c->cmd, "#waveform") == 0) {
            if ((s = fdtd_in_parse_waveform(in, c, m, err, errlen)) != SCL_OK)
                return s;
        } else if (strcmp(c->cmd, "#soil_peplinski") == 0) {
            if ((s = fdtd_in_check_soil(in, c, err, errlen)) != SCL_OK)
                return s;
        } else if (strcmp(c->cmd, "#excitation_file") == 0) {
            if ((s = fdtd_in_parse_excitation(in, c, m, err, errlen)) != SCL_OK)
                return s;
        }
    }

    return SCL_OK;
}

/* Poles of the materials defined above (before any object uses them):
 * N, the values of each pole, then one or more materials. */
scl_status fdtd_in_parse_poles(input *in, scl_fdtd_model *m, char *err, size_t errlen)
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
            return fdtd_in_fail(in, c, err, errlen, why);
        }
        double par[3 * SCL_FDTD_MAX_POLES];
        if (fdtd_in_reals(in, c, 1, per * (int)np, par, err, errlen))
            return SCL_ERR_INPUT;
        for (int t = 1 + per * (int)np; t < c->ntok; t++) {
            int mat = fdtd_in_material_of(in, c, m, c->tok[t], err, errlen);
            if (mat < 0)
                return SCL_ERR_INPUT;
            char why[512];
            if (scl_fdtd_add_poles(m, mat, (scl_fdtd_pole_kind)kind, (int)np, par, why,
                                   sizeof why) != SCL_OK)
                return fdtd_in_fail(in, c, err, errlen, why);
        }
    }

    return SCL_OK;
}

/* #magnetic_averaging: harmonic (gprMax 4.0.1's default) or arithmetic
 * (older gprMax), any case, for the mr and sm of averaged H faces */
scl_status fdtd_in_parse_magavg(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                size_t errlen)
{
    if (fdtd_in_nparams(in, c, 1, 1, err, errlen))
        return SCL_ERR_INPUT;
    char word[16] = "";
    for (size_t q = 0; c->tok[0][q] && q + 1 < sizeof word; q++)
        word[q] = (char)tolower((unsigned char)c->tok[0][q]);
    if (strcmp(word, "harmonic") != 0 && strcmp(word, "arithmetic") != 0)
        return fdtd_in_fail(in, c, err, errlen, "expected harmonic or arithmetic");
    m->magnetic_arithmetic = word[0] == 'a';
    return SCL_OK;
}

/* gprMax's official databases are files of its installed package, which
 * this reader does not know where to find. */
static const char *const official_dbs[] = {"fundamental", "gpr", "antenna", "bioem"};

/* The whole of a database file, NUL-terminated (malloc'ed), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size >= 0 && size < (1L << 28) && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1))) {
        if (fread(text, 1, (size_t)size, f) != (size_t)size) {
            free(text);
            text = NULL;
        } else
            text[size] = '\0';
    }
    fclose(f);
    return text;
}

/* A number member of an object: finite and at least lo; 0, or -1 with why. */
static int db_number(const fdtd_json *obj, const char *key, double lo, double *out, const char *where,
                     char *why, size_t whylen)
{
    const fdtd_json *v = fdtd_json_get(obj, key);
    if (!v || v->type != FDTD_JSON_NUMBER || !isfinite(v->num) || v->num < lo) {
        snprintf(why, whylen, "%s.%s must be a finite number of at least %g", where, key, lo);
        return -1;
    }
    *out = v->num;
    return 0;
}

/* An entry's poles as the #add_dispersion_* command's values, in its order:
 * Debye (delta er, tau), Lorentz (delta er, resonance f, damping), Drude
 * (plasma f, collision f). *kind -1: a constant material. */
static int db_poles(const fdtd_json *entry, const char *model, int *kind, int *np, double *par,
                    char *why, size_t whylen)
{
    static const struct {
        const char *model;
        int kind, per;
        const char *key[3];
        double lo[3];
    } models[] = {
        {"debye", SCL_FDTD_DEBYE, 2, {"relative_permittivity_difference", "relaxation_time_s", NULL}, {0, 1e-300, 0}},
        {"lorentz", SCL_FDTD_LORENTZ, 3,
         {"relative_permittivity_difference", "resonance_frequency_hz", "damping_coefficient_per_s"}, {0, 1e-300, 0}},
        {"drude", SCL_FDTD_DRUDE, 2, {"plasma_frequency_hz", "collision_frequency_per_s", NULL}, {1e-300, 1e-300, 0}},
    };
    *kind = -1;
    *np = 0;
    if (strcmp(model, "constant") == 0)
        return 0;
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        if (strcmp(model, models[k].model) != 0)
            continue;
        const fdtd_json *poles = fdtd_json_get(entry, "poles");
        if (!poles || poles->type != FDTD_JSON_ARRAY || poles->n < 1 || poles->n > SCL_FDTD_MAX_POLES) {
            snprintf(why, whylen, "model '%s' needs 'poles', a list of 1 to %d poles", model, SCL_FDTD_MAX_POLES);
            return -1;
        }
        for (int p = 0; p < poles->n; p++)
            for (int v = 0; v < models[k].per; v++)
                if (db_number(&poles->items[p], models[k].key[v], models[k].lo[v],
                              &par[p * models[k].per + v], "poles[]", why, whylen))
                    return -1;
        *kind = models[k].kind;
        *np = poles->n;
        return 0;
    }
    snprintf(why, whylen, "model '%s' is not supported (constant, debye, lorentz, drude)", model);
    return -1;
}

/* The material KEY of database DB as the model's material ID: its base
 * values and poles, as gprMax's build_material_from_spec makes it. */
static int db_material(const fdtd_json *root, const command *c, scl_fdtd_model *m, char *why, size_t whylen)
{
    const fdtd_json *entry = fdtd_json_get(fdtd_json_get(root, "materials"), c->tok[1]);
    if (!entry || entry->type != FDTD_JSON_OBJECT)
        return snprintf(why, whylen, "the database has no material '%s'", c->tok[1]), -1;
    const fdtd_json *model = fdtd_json_get(entry, "model"), *base = fdtd_json_get(entry, "base");
    if (!model || model->type != FDTD_JSON_STRING || !base || base->type != FDTD_JSON_OBJECT)
        return snprintf(why, whylen, "material '%s' needs 'model' and 'base'", c->tok[1]), -1;
    static const char *const keys[4] = {"relative_permittivity", "electric_conductivity_s_per_m",
                                        "relative_permeability", "magnetic_conductivity_s_per_m"};
    static const double lo[4] = {1, 0, 1, 0};
    double v[4], par[3 * SCL_FDTD_MAX_POLES];
    for (int k = 0; k < 4; k++)
        if (db_number(base, keys[k], lo[k], &v[k], "base", why, whylen))
            return -1;
    int kind, np;
    if (db_poles(entry, model->str, &kind, &np, par, why, whylen))
        return -1;
    const char *id = c->ntok == 3 ? c->tok[2] : c->tok[1];
    if (strchr(id, '+'))
        return snprintf(why, whylen, "'+' is reserved for gprMax's generated material IDs"), -1;
    int mat = scl_fdtd_add_material(m, id, v[0], v[1], v[2], v[3], why, whylen);
    if (mat < 0)
        return -1;
    if (kind >= 0 && scl_fdtd_add_poles(m, mat, (scl_fdtd_pole_kind)kind, np, par, why, whylen) != SCL_OK)
        return -1;
    return 0;
}

/* #material_from_database: DB KEY [ID]: the entry KEY of DB.json beside the
 * input file (gprMax's local databases; its official ones are refused). */
scl_status fdtd_in_parse_material_db(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                     size_t errlen)
{
    if (fdtd_in_nparams(in, c, 2, 3, err, errlen))
        return SCL_ERR_INPUT;
    char why[1600];
    for (size_t k = 0; k < sizeof official_dbs / sizeof official_dbs[0]; k++)
        if (strcmp(c->tok[0], official_dbs[k]) == 0) {
            snprintf(why, sizeof why, "'%s' is one of gprMax's installed databases, which are not read "
                     "(a copy named %s.json under another name beside the input is)", c->tok[0], c->tok[0]);
            return fdtd_in_fail(in, c, err, errlen, why);
        }
    if (strchr(c->tok[0], '/'))
        return fdtd_in_fail(in, c, err, errlen, "the database is a name (NAME.json beside the input), not a path");
    char path[1200];
    const char *slash = strrchr(in->r.path, '/');
    snprintf(path, sizeof path, "%.*s%s.json", slash ? (int)(slash - in->r.path + 1) : 0, in->r.path, c->tok[0]);
    char *text = slurp(path);
    if (!text) {
        snprintf(why, sizeof why, "cannot read the database %s", path);
        return fdtd_in_fail(in, c, err, errlen, why);
    }
    fdtd_json root;
    char jerr[300];
    int rc = fdtd_json_parse(text, &root, jerr, sizeof jerr);
    free(text);
    if (rc != 0) {
        snprintf(why, sizeof why, "%s: %s", path, jerr);
        return fdtd_in_fail(in, c, err, errlen, why);
    }
    rc = db_material(&root, c, m, why, sizeof why);
    fdtd_json_free(&root);
    return rc == 0 ? SCL_OK : fdtd_in_fail(in, c, err, errlen, why);
}
