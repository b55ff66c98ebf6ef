/* What every force kind shares (charmm_forces.h): the coefficient tables,
 * the pair-math arguments and the build of a kernel of charmm_pair.clh. It
 * knows no kind: the kinds (charmm_lanes.c, charmm_cpu.c, charmm_cluster.c)
 * call in here, and charmm_kinds.c lists them. */
#include "pair/kinds/charmm_forces.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int charmm_forces_pair_double(const charmm_forces *fk, int tally)
{
    const scl_charmm_params *p = fk->params;
    return p->precision == SCL_PREC_DOUBLE ||
           (p->precision == SCL_PREC_MIXED && tally && p->mixed_tally_double &&
            scl_device(fk->ctx)->fp64);
}

/* Float4 and (on fp64 devices) double4 copies of lj1..lj4 per type pair:
 * float pair math reads the first, double pair math the second. */
static scl_status upload_coefficients(charmm_forces *fk)
{
    int n = fk->coeffs->ntypes;
    size_t count = (size_t)n * (size_t)n;
    int fp64 = scl_device(fk->ctx)->fp64;
    scl_status s = scl_stream_create(fk->ctx, "charmm lj coefficients", SCL_FLOAT4, count, 1, 1,
                                     SCL_STREAM_READ_ONLY, &fk->ljc);
    if (s == SCL_OK && fp64)
        s = scl_stream_create(fk->ctx, "charmm lj coefficients (double)", SCL_DOUBLE4, count, 1,
                              1, SCL_STREAM_READ_ONLY, &fk->ljc_double);
    if (s != SCL_OK)
        return s;
    float *hf = malloc(count * 4 * sizeof *hf);
    double *hd = malloc(count * 4 * sizeof *hd);
    if (!hf || !hd) {
        free(hf), free(hd);
        return scl_fail(fk->ctx, SCL_ERR_MEMORY, "scl_charmm_create", "out of host memory");
    }
    for (size_t k = 0; k < count; k++) {
        const charmm_lj *l = &fk->coeffs->lj[k];
        double v[4] = {l->lj1, l->lj2, l->lj3, l->lj4};
        for (int c = 0; c < 4; c++) {
            hd[4 * k + (size_t)c] = v[c];
            hf[4 * k + (size_t)c] = (float)v[c];
        }
    }
    s = scl_stream_write(fk->ljc, hf, 1, NULL);
    if (s == SCL_OK && fp64)
        s = scl_stream_write(fk->ljc_double, hd, 1, NULL);
    free(hf);
    free(hd);
    return s;
}

scl_status charmm_forces_init(charmm_forces *fk, scl_context *ctx, const scl_charmm_params *p,
                              const charmm_coeffs *coeffs)
{
    memset(fk, 0, sizeof *fk);
    fk->ctx = ctx;
    fk->params = p;
    fk->coeffs = coeffs;
    int fp64 = scl_device(ctx)->fp64;
    if (p->precision == SCL_PREC_DOUBLE) {
        fk->out_type = SCL_DOUBLE;
        fk->partial_type = SCL_LONG;
        fk->partial_width = 2;
    } else {
        fk->out_type = fk->partial_type =
            p->precision == SCL_PREC_MIXED && fp64 ? SCL_DOUBLE : SCL_FLOAT;
        fk->partial_width = 1;
    }
    return upload_coefficients(fk);
}

void charmm_forces_free(charmm_forces *fk)
{
    scl_stream_free(fk->ljc);
    scl_stream_free(fk->ljc_double);
    memset(fk, 0, sizeof *fk);
}

scl_status charmm_forces_bind_pair_math(const charmm_forces *fk, const charmm_nlist *nl,
                                        scl_kernel *k, int dbl)
{
    const charmm_coeffs *c = fk->coeffs;
    const scl_arg_real reals[] = {{"cut_forcesq", c->cut_forcesq}, {"cut_coulsq", c->cut_coulsq},
                 {"cut_ljsq", c->cut_ljsq},       {"cut_lj_innersq", c->cut_lj_innersq},
                 {"inv_denom_lj", c->inv_denom_lj}, {"qqrd2e", c->qqrd2e},
                 {"g_ewald", c->g_ewald},         {"min_r2", CHARMM_MIN_R * CHARMM_MIN_R},
                 {"unit", nl->unit}};
    scl_status s = scl_kernel_bind_reals(k, reals, sizeof reals / sizeof reals[0]);
    if (s == SCL_OK)
        s = charmm_set_real4(k, "special_lj", dbl, c->special_lj);
    if (s == SCL_OK)
        s = charmm_set_real4(k, "special_coul", dbl, c->special_coul);
    /* exact cutoff tests on fixed-point distances (see src/pair/kinds/charmm_pair.clh); the
     * unit is a power of two, so the quotients are exact */
    long long cut_units[2] = {0, 0};
    if (!nl->pos_double) {
        double u2 = nl->unit * nl->unit;
        cut_units[0] = (long long)ceil(c->cut_forcesq / u2);
        cut_units[1] = (long long)ceil(c->cut_coulsq / u2);
    }
    if (s == SCL_OK)
        s = scl_kernel_set_long(k, "cut_force_units", cut_units[0]);
    if (s == SCL_OK)
        s = scl_kernel_set_long(k, "cut_coul_units", cut_units[1]);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "ntypes", c->ntypes);
    return s;
}

int charmm_forces_has_fsum(const charmm_forces *fk)
{
    return fk->params->precision == SCL_PREC_MIXED && fk->out_type == SCL_DOUBLE;
}

size_t charmm_forces_scratch_bytes(const charmm_forces *fk, size_t wg)
{
    size_t acc = fk->params->precision == SCL_PREC_DOUBLE ? 16 : scl_type_size(fk->out_type);
    /* 4 per work-item for the forces, then 8 for the tallies, or with float
     * partial sums a record of 11 (src/pair/kinds/charmm_pair.clh LOCAL_SUMS) */
    return 12 * wg * acc;
}

scl_status charmm_forces_check_scratch(charmm_forces *fk, scl_kernel *k, int wg)
{
    size_t local = (size_t)wg;
    scl_status s = scl_kernel_set_local(k, "scratch", charmm_forces_scratch_bytes(fk, local));
    return s == SCL_OK ? scl_kernel_check_local(k, 1, &local) : s;
}

scl_status charmm_forces_kernel(charmm_forces *fk, const char *program, const char *name,
                                const charmm_kernel_shape *shape, const char *label,
                                scl_kernel **slot)
{
    if (*slot)
        return SCL_OK;
    char opts[200];
    /* SAME_CUTS: no per-pair Coulomb/LJ cutoff tests when both cutoffs are
     * the force cutoff; LJ0_ONE: no LJ factor for plain pairs when it is 1
     * (src/pair/kinds/charmm_pair.clh) */
    snprintf(opts, sizeof opts,
             "-DPREC=%d -DTPA=%d -DTALLY=%d -DTALLY_DOUBLE=%d -DFSUM=%d -DSAME_CUTS=%d -DPIPE=%d "
             "-DLJ0_ONE=%d",
             (int)fk->params->precision, shape->tpa, shape->tally,
             fk->params->mixed_tally_double != 0, shape->fsum > 1 ? 8 : 1,
             fk->coeffs->cut_coulsq == fk->coeffs->cut_ljsq, shape->pipe,
             fk->coeffs->special_lj[0] == 1.0);
    size_t len = strlen(opts);
    if (shape->cap > 0)
        snprintf(opts + len, sizeof opts - len, " -cl-nv-maxrregcount=%d", shape->cap);
    scl_status s = scl_kernel_create(fk->ctx, program, name, opts, slot);
    if (s != SCL_OK && shape->cap > 0) { /* a driver without the option: uncapped */
        opts[len] = '\0';
        s = scl_kernel_create(fk->ctx, program, name, opts, slot);
    }
    if (s == SCL_OK)
        scl_kernel_set_label(*slot, label);
    return s;
}
