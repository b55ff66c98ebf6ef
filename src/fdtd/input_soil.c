/* gprMax input, heterogeneous soils: #soil_peplinski, #fractal_box and its
 * #add_surface_roughness / #add_grass. */
#include "input_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The soil's materials for nbins bins: one Debye material each, named as
 * gprMax names them (|er+se+mr+sm| with 4 decimals), reused when a material
 * of that name exists. The first index, or -1 (err). */
static int soil_materials(const input *in, const command *soil, const command *c,
                          scl_fdtd_model *m, int nbins, char *err, size_t errlen)
{
    double par[6], (*bin)[4] = malloc((size_t)nbins * sizeof *bin);
    int first = -1;
    if (!bin || fdtd_in_reals(in, soil, 0, 6, par, err, errlen)) {
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
                fdtd_in_fail(in, c, err, errlen, why);
                return -1;
            }
        }
        if (q == 0)
            first = id;
        else if (id != first + q) {
            free(bin);
            fdtd_in_fail(in, c, err, errlen, "the soil's bins give materials out of order (bins too close)");
            return -1;
        }
    }
    free(bin);
    return first;
}

/* #soil_peplinski: sand clay bulk_density sand_density water_lo water_hi ID */
scl_status fdtd_in_check_soil(const input *in, const command *c, char *err, size_t errlen)
{
    double v[6];
    if (fdtd_in_nparams(in, c, 7, 7, err, errlen) || fdtd_in_reals(in, c, 0, 6, v, err, errlen))
        return SCL_ERR_INPUT;
    if (!(v[0] >= 0 && v[0] <= 1 && v[1] >= 0 && v[1] <= 1 && v[0] + v[1] <= 1))
        return fdtd_in_fail(in, c, err, errlen, "sand and clay fractions are in [0, 1] and sum to at most 1");
    if (!(v[2] > 0 && v[3] > v[2]))
        return fdtd_in_fail(in, c, err, errlen, "densities: 0 < bulk density < sand particle density (g/cm3)");
    if (!(v[4] > 0 && v[5] >= v[4] && v[5] <= 1))
        return fdtd_in_fail(in, c, err, errlen, "the water volume fraction range is 0 < lower <= upper <= 1");
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
    if (fdtd_in_nparams(in, c, 12, 13, err, errlen) || fdtd_in_reals(in, c, 0, 6, p, err, errlen) ||
        fdtd_in_reals(in, c, 6, 5, v, err, errlen))
        return SCL_ERR_INPUT;
    if ((s = fdtd_in_box_cells(in, c, &m->grid, p, lo, hi, err, errlen)) != SCL_OK)
        return s;
    if (!(v[0] >= 0) || !(v[1] >= 0 && v[2] >= 0))
        return fdtd_in_fail(in, c, err, errlen, "the fractal dimension and the weights must be >= 0");
    if (c->ntok == 13 && (scl_parse_int(c->tok[12], &seed) != 0 || seed < 0))
        return fdtd_in_fail(in, c, err, errlen, "the seed is a non-negative integer");
    if (fdtd_in_axes_where(lo, hi, 1, &a) != 1)
        return fdtd_in_fail(in, c, err, errlen,
                    "the surface has zero size on exactly one axis (after rounding to the grid)");
    if (m->mode2d == a + 1)
        return fdtd_in_fail(in, c, err, errlen, "in a 2D model the surface's normal cannot be the invariant axis");
    if (lo[a] != blo[a] && lo[a] != bhi[a])
        return fdtd_in_fail(in, c, err, errlen, "the surface must lie on an outer face of its fractal box");
    r->axis = a;
    r->plus = lo[a] == bhi[a] && lo[a] != blo[a];
    r->range[0] = (int)scl_round_half_down(v[3] / d[a]);
    r->range[1] = (int)scl_round_half_down(v[4] / d[a]);
    for (int q = 0; q < 3; q++)
        if (q != a && (lo[q] < blo[q] || hi[q] > bhi[q] || hi[q] == lo[q]))
            return fdtd_in_fail(in, c, err, errlen, "the surface must span cells inside its fractal box's face");
    if (!(fabs(v[3]) < 1e9 && fabs(v[4]) < 1e9) || r->range[0] > r->range[1] || r->range[0] < 0 ||
        r->range[1] > n[a])
        return fdtd_in_fail(in, c, err, errlen, "the limits must be lower <= upper, inside the domain");
    if (r->plus ? r->range[0] < blo[a] : r->range[1] > bhi[a])
        return fdtd_in_fail(in, c, err, errlen, r->plus ? "on an upper face the lower limit must be inside the fractal box"
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
    if (fdtd_in_nparams(in, c, 11, 12, err, errlen) || fdtd_in_reals(in, c, 0, 6, p, err, errlen) ||
        fdtd_in_reals(in, c, 6, 3, v, err, errlen))
        return SCL_ERR_INPUT;
    if ((s = fdtd_in_box_cells(in, c, &m->grid, p, lo, hi, err, errlen)) != SCL_OK)
        return s;
    if (!(v[0] >= 0) || !(v[1] >= 0 && v[2] >= 0))
        return fdtd_in_fail(in, c, err, errlen, "the fractal dimension and the limits must be >= 0");
    if (c->ntok == 12 && (scl_parse_int(c->tok[11], &seed) != 0 || seed < 0))
        return fdtd_in_fail(in, c, err, errlen, "the seed is a non-negative integer");
    if (m->te2d)
        return fdtd_in_fail(in, c, err, errlen, "grass in 2D TE models is not supported");
    if (!(m->dt < GRASS_TAU))
        return fdtd_in_fail(in, c, err, errlen, "the time step must be below grass's relaxation time (1.0793e-11 s)");
    if (fdtd_in_axes_where(lo, hi, 1, &a) != 1)
        return fdtd_in_fail(in, c, err, errlen,
                    "the surface has zero size on exactly one axis (after rounding to the grid)");
    if (m->mode2d == a + 1)
        return fdtd_in_fail(in, c, err, errlen, "in a 2D model the surface's normal cannot be the invariant axis");
    if (lo[a] != bhi[a])
        return fdtd_in_fail(in, c, err, errlen, "grass grows on an upper face of its fractal box (x, y or z at its upper end)");
    long cells = 1;
    for (int q = 0; q < 3; q++) {
        if (q != a && (lo[q] < blo[q] || hi[q] > bhi[q] || hi[q] == lo[q]))
            return fdtd_in_fail(in, c, err, errlen, "the surface must span cells inside its fractal box's face");
        cells *= q != a ? hi[q] - lo[q] : 1;
    }
    if (scl_parse_int(c->tok[9], &blades) != 0 || blades < 1 || blades > cells)
        return fdtd_in_fail(in, c, err, errlen, "the number of blades is an integer from 1 to the surface's cells");
    r->axis = a;
    r->plus = 1;
    r->range[0] = (int)scl_round_half_down(fmin(v[1], 1e9) / d[a]);
    r->range[1] = (int)scl_round_half_down(fmin(v[2], 1e9) / d[a]);
    if (r->range[0] >= r->range[1] || r->range[1] > n[a])
        return fdtd_in_fail(in, c, err, errlen, "the height limits must be lower < upper (in cells), inside the domain");
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
                return fdtd_in_fail(in, c, err, errlen, grass ? "this face of the fractal box already has grass"
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
scl_status fdtd_in_check_rough(const input *in, const command *c, scl_fdtd_model *m, char *err,
                               size_t errlen)
{
    (void)m;
    int grass = strcmp(c->cmd, "#add_grass") == 0, t = grass ? 10 : 11;
    if (fdtd_in_nparams(in, c, t + 1, t + 2, err, errlen))
        return SCL_ERR_INPUT;
    for (int q = 0; q < in->n; q++)
        if (strcmp(in->cmds[q].cmd, "#fractal_box") == 0 && in->cmds[q].ntok >= 13 &&
            strcmp(in->cmds[q].tok[12], c->tok[t]) == 0)
            return SCL_OK;
    char why[200];
    snprintf(why, sizeof why, "fractal box '%.64s' is not defined (#fractal_box)", c->tok[t]);
    return fdtd_in_fail(in, c, err, errlen, why);
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
        fdtd_in_fail(in, c, err, errlen, why);
        return -1;
    }
    return id;
}

/* #fractal_box: x1 y1 z1 x2 y2 z2 D wx wy wz nbins soil ID [seed [averaging]] */
scl_status fdtd_in_parse_fractal_box(const input *in, const command *c, scl_fdtd_model *m,
                                     char *err, size_t errlen)
{
    double v[4];
    int lo[3], hi[3], elo[3], ehi[3], nr;
    long nb, seed = 0;
    scl_fdtd_rough rough[MAX_ROUGH];
    scl_status s;
    if (fdtd_in_nparams(in, c, 13, 15, err, errlen) || fdtd_in_reals(in, c, 6, 4, v, err, errlen))
        return SCL_ERR_INPUT;
    if ((s = fdtd_in_range_cells(in, c, m, 0, lo, hi, err, errlen)) != SCL_OK)
        return s;
    if (!(v[0] >= 0 && v[0] <= 3) || !(v[1] >= 0 && v[2] >= 0 && v[3] >= 0))
        return fdtd_in_fail(in, c, err, errlen, "the fractal dimension is in [0, 3] and the weights >= 0");
    if (scl_parse_int(c->tok[10], &nb) != 0 || nb < 1 || nb > 200)
        return fdtd_in_fail(in, c, err, errlen, "the number of materials is an integer from 1 to 200");
    if (c->ntok >= 14 && (scl_parse_int(c->tok[13], &seed) != 0 || seed < 0))
        return fdtd_in_fail(in, c, err, errlen, "the seed is a non-negative integer");
    if (c->ntok == 15 && fdtd_in_averaging_flag(in, c, 14, err, errlen) < 0)
        return SCL_ERR_INPUT;
    const command *soil = NULL;
    for (int q = 0; q < in->n; q++)
        if (strcmp(in->cmds[q].cmd, "#soil_peplinski") == 0 && in->cmds[q].ntok == 7 &&
            strcmp(in->cmds[q].tok[6], c->tok[11]) == 0)
            soil = &in->cmds[q];
    if (!soil) {
        char why[200];
        snprintf(why, sizeof why, "mixing model '%.64s' is not defined (#soil_peplinski)", c->tok[11]);
        return fdtd_in_fail(in, c, err, errlen, why);
    }
    for (int a = 0; a < 3; a++)
        if (hi[a] - lo[a] < 1)
            return fdtd_in_fail(in, c, err, errlen, "the box spans at least one cell per axis");
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
