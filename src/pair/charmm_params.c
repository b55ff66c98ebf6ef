/* Parameters of lj/charmm/coul/long: defaults, validation, and the derived
 * coefficients (lj1..lj4, squared cutoffs, switch denominator) of LAMMPS's
 * PairLJCharmmCoulLong::init_one(). */
#include "pair/kinds/charmm_forces.h"
#include "pair/pair_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int scl_charmm_tpa_valid(int tpa) { return charmm_tpa_index(tpa) >= 0; }

void scl_charmm_params_default(scl_charmm_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->cut_lj_inner = 8.0;
    p->cut_lj = 10.0;
    p->cut_coul = 10.0;
    p->qqrd2e = 332.06371; /* LAMMPS real units */
    p->g_ewald = 0.0;
    for (int k = 0; k < 4; k++) {
        p->special_lj[k] = 1.0;
        p->special_coul[k] = 1.0;
    }
    p->skin = 2.0;
    p->precision = SCL_PREC_MIXED;
    p->tune = 1;
    p->mixed_tally_double = 0;
}

static int finite_positive(double v) { return isfinite(v) && v > 0.0; }

scl_status charmm_coeffs_init(const scl_charmm_params *p, charmm_coeffs *c, char *err,
                              size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!p)
        return scl_format_error(err, errlen, "parameters are NULL"), SCL_ERR_ARGUMENT;
    if (p->ntypes < 1 || p->ntypes > 4096)
        return scl_format_error(err, errlen, "ntypes %d outside 1..4096", p->ntypes),
               SCL_ERR_ARGUMENT;
    if (!p->epsilon || !p->sigma)
        return scl_format_error(err, errlen, "missing coefficients: epsilon or sigma is NULL"),
               SCL_ERR_ARGUMENT;
    if (!finite_positive(p->cut_lj) || !finite_positive(p->cut_coul) ||
        !isfinite(p->cut_lj_inner) || p->cut_lj_inner < 0.0)
        return scl_format_error(err, errlen,
                                "cutoffs must be finite and positive (r_in %g, r_c %g, r_coul %g)",
                                p->cut_lj_inner, p->cut_lj, p->cut_coul),
               SCL_ERR_ARGUMENT;
    if (p->cut_lj_inner >= p->cut_lj)
        return scl_format_error(err, errlen,
                                "inner LJ cutoff r_in = %g must be smaller than r_c = %g",
                                p->cut_lj_inner, p->cut_lj),
               SCL_ERR_ARGUMENT;
    if (!isfinite(p->skin) || p->skin < 0.0 || !isfinite(p->inner_skin) ||
        !isfinite(p->qqrd2e) || !isfinite(p->g_ewald) ||
        p->g_ewald < 0.0)
        return scl_format_error(err, errlen,
                                "skin %g, inner_skin %g, qqrd2e %g or g_ewald %g is invalid",
                                p->skin, p->inner_skin, p->qqrd2e, p->g_ewald),
               SCL_ERR_ARGUMENT;
    for (int k = 0; k < 4; k++)
        if (!isfinite(p->special_lj[k]) || !isfinite(p->special_coul[k]) ||
            p->special_lj[k] < 0.0 || p->special_coul[k] < 0.0 || p->special_coul[k] > 1.0)
            return scl_format_error(err, errlen,
                                    "special factors of kind %d (lj %g, coul %g) must be finite, "
                                    ">= 0, coul <= 1",
                                    k, p->special_lj[k], p->special_coul[k]),
                   SCL_ERR_ARGUMENT;
    if ((unsigned)p->precision > SCL_PREC_DOUBLE)
        return scl_format_error(err, errlen, "unknown precision %d", (int)p->precision),
               SCL_ERR_ARGUMENT;
    int n = p->ntypes;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double e = p->epsilon[i * n + j], s = p->sigma[i * n + j];
            if (!isfinite(e) || !isfinite(s) || e < 0.0 || s < 0.0)
                return scl_format_error(err, errlen,
                                        "missing or invalid coefficients for types %d %d "
                                        "(epsilon %g, sigma %g; 0-based)",
                                        i, j, e, s),
                       SCL_ERR_ARGUMENT;
            if (e != p->epsilon[j * n + i] || s != p->sigma[j * n + i])
                return scl_format_error(err, errlen,
                                        "coefficients for types %d %d are not symmetric", i, j),
                       SCL_ERR_ARGUMENT;
        }
    c->lj = malloc((size_t)n * (size_t)n * sizeof *c->lj);
    if (!c->lj)
        return scl_format_error(err, errlen, "out of host memory"), SCL_ERR_MEMORY;
    c->ntypes = n;
    for (int i = 0; i < n * n; i++) {
        double e = p->epsilon[i], s = p->sigma[i], s6 = pow(s, 6.0), s12 = s6 * s6;
        c->lj[i] = (charmm_lj){48.0 * e * s12, 24.0 * e * s6, 4.0 * e * s12, 4.0 * e * s6};
    }
    c->cut_ljsq = p->cut_lj * p->cut_lj;
    c->cut_lj_innersq = p->cut_lj_inner * p->cut_lj_inner;
    c->cut_coulsq = p->cut_coul * p->cut_coul;
    c->cut_forcesq = fmax(c->cut_ljsq, c->cut_coulsq);
    double d = c->cut_ljsq - c->cut_lj_innersq;
    c->inv_denom_lj = 1.0 / (d * d * d);
    c->cut_neigh = fmax(p->cut_lj, p->cut_coul) + p->skin;
    c->qqrd2e = p->qqrd2e;
    c->g_ewald = p->g_ewald;
    memcpy(c->special_lj, p->special_lj, sizeof c->special_lj);
    memcpy(c->special_coul, p->special_coul, sizeof c->special_coul);
    return SCL_OK;
}

void charmm_coeffs_free(charmm_coeffs *c)
{
    if (c) {
        free(c->lj);
        c->lj = NULL;
    }
}

/* Coordinates, types and tags of all atoms. */
static scl_status check_atoms_part(const scl_charmm_atoms *a, int ntypes, char *err,
                                   size_t errlen)
{
    int n = a->nlocal + a->nghost;
    if (n > 0 && (!a->x || !a->type))
        return scl_format_error(err, errlen, "positions or types are NULL"), SCL_ERR_ARGUMENT;
    for (int i = 0; i < n; i++) {
        const double *xi = a->x + 3 * (size_t)i;
        if (!isfinite(xi[0]) || !isfinite(xi[1]) || !isfinite(xi[2]))
            return scl_format_error(err, errlen, "atom %d has a non-finite coordinate (%g, %g, %g)",
                                    i, xi[0], xi[1], xi[2]),
                   SCL_ERR_INPUT;
        if (a->type[i] < a->type_base || a->type[i] - a->type_base >= ntypes)
            return scl_format_error(err, errlen, "atom %d has type %d outside %d..%d", i,
                                    a->type[i], a->type_base, a->type_base + ntypes - 1),
                   SCL_ERR_INPUT;
        int64_t t = a->tag ? charmm_tag_at(a->tag, a->tag_bytes, (size_t)i) : 0;
        if (t < 0)
            return scl_format_error(err, errlen, "atom %d has tag %lld: tags must be >= 0", i,
                                    (long long)t),
                   SCL_ERR_INPUT;
    }
    return SCL_OK;
}

/* Special counts and tags of the local atoms. */
static scl_status check_specials_part(const scl_charmm_atoms *a, char *err, size_t errlen)
{
    if (!a->nspecial)
        return SCL_OK;
    if (!a->special && a->maxspecial > 0)
        return scl_format_error(err, errlen, "nspecial given but special is NULL"),
               SCL_ERR_ARGUMENT;
    for (int i = 0; i < a->nlocal; i++) {
        const int *ns = a->nspecial + 3 * (size_t)i;
        if (ns[0] < 0 || ns[1] < ns[0] || ns[2] < ns[1] || ns[2] > a->maxspecial)
            return scl_format_error(err, errlen,
                                    "atom %d: special counts %d %d %d are not cumulative within "
                                    "maxspecial %d",
                                    i, ns[0], ns[1], ns[2], a->maxspecial),
                   SCL_ERR_INPUT;
        for (int k = 0; k < ns[2]; k++) {
            int64_t t = charmm_tag_at(a->special, a->tag_bytes,
                                      (size_t)i * (size_t)a->maxspecial + (size_t)k);
            if (t < 0)
                return scl_format_error(err, errlen,
                                        "atom %d: special partner %d has tag %lld: tags must be "
                                        ">= 0",
                                        i, k, (long long)t),
                       SCL_ERR_INPUT;
        }
    }
    return SCL_OK;
}

scl_status charmm_check_atom_arrays(const scl_charmm_atoms *a, int ntypes, char *err,
                                    size_t errlen)
{
    scl_status s = check_atoms_part(a, ntypes, err, errlen);
    return s == SCL_OK ? check_specials_part(a, err, errlen) : s;
}

scl_status charmm_check_atoms(int natoms, const double *x, const int *type, int ntypes,
                              char *err, size_t errlen)
{
    const scl_charmm_atoms a = {.nlocal = natoms, .x = x, .type = type};
    return check_atoms_part(&a, ntypes, err, errlen);
}

scl_status charmm_check_specials(int nlocal, const int *nspecial, const int64_t *special,
                                 int maxspecial, char *err, size_t errlen)
{
    const scl_charmm_atoms a = {.nlocal = nlocal, .tag_bytes = 8, .nspecial = nspecial,
                                .special = special, .maxspecial = maxspecial};
    return check_specials_part(&a, err, errlen);
}

double charmm_pair_double(const charmm_coeffs *c, double r2, double qi, double qj, int ti,
                          int tj, int kind, double *evdwl, double *ecoul)
{
    const double EWALD_F = 1.12837916709551257390; /* 2/sqrt(pi) */
    double r2inv = 1.0 / r2, forcecoul = 0.0, forcelj = 0.0;
    *evdwl = 0.0;
    *ecoul = 0.0;
    if (r2 < c->cut_coulsq) {
        double r = sqrt(r2), grij = c->g_ewald * r, expm2 = exp(-grij * grij);
        double erfc_g = erfc(grij), prefactor = c->qqrd2e * qi * qj / r;
        forcecoul = prefactor * (erfc_g + EWALD_F * grij * expm2);
        *ecoul = prefactor * erfc_g;
        if (kind) { /* remove the excluded part of the undamped Coulomb term */
            double excluded = (1.0 - c->special_coul[kind]) * prefactor;
            forcecoul -= excluded;
            *ecoul -= excluded;
        }
    }
    if (r2 < c->cut_ljsq) {
        const charmm_lj *l = &c->lj[ti * c->ntypes + tj];
        double r6inv = r2inv * r2inv * r2inv;
        forcelj = r6inv * (l->lj1 * r6inv - l->lj2);
        double philj = r6inv * (l->lj3 * r6inv - l->lj4);
        if (r2 > c->cut_lj_innersq) {
            double d = c->cut_ljsq - r2;
            double switch1 = d * d * (c->cut_ljsq + 2.0 * r2 - 3.0 * c->cut_lj_innersq) *
                             c->inv_denom_lj;
            double switch2 = 12.0 * r2 * d * (r2 - c->cut_lj_innersq) * c->inv_denom_lj;
            forcelj = forcelj * switch1 + philj * switch2;
            philj *= switch1;
        }
        forcelj *= c->special_lj[kind];
        *evdwl = philj * c->special_lj[kind];
    }
    return (forcecoul + forcelj) * r2inv;
}
