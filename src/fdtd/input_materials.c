/* gprMax input, materials: #material (and the definitions read before any
 * object), #add_dispersion_debye/_lorentz/_drude, #magnetic_averaging. */
#include "input_internal.h"

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
