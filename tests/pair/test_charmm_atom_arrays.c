/* scl_charmm_set_atoms_from with the arrays as LAMMPS holds them (1-based
 * types, 32-bit tags, special and nspecial rows of an nmax > nlocal array
 * with stale values past each row's counts; and 64-bit tags as in a bigbig
 * build) gives bitwise the forces, energies and virial of scl_charmm_set_atoms
 * with the converted arrays: on random water boxes with their bond specials,
 * over a rebuild and steps of moved atoms, for device and host binning,
 * every inputs_stable and several host thread counts. Bad arrays (negative
 * tags or special tags, bad special counts, types outside the base's range,
 * a tag width other than 4 or 8) are refused with a message naming them. */
#include "charmm_test_util.h"

#include <string.h>

/* The arrays of a test_atoms in LAMMPS's form. */
typedef struct {
    int *type1;
    void *tag, *special;
    int *nspecial;
    int nmax, tag_bytes;
} lmp_form;

static void lmp_free(lmp_form *l)
{
    free(l->type1), free(l->tag), free(l->special), free(l->nspecial);
    memset(l, 0, sizeof *l);
}

static void put_tag(void *arr, int bytes, size_t i, int64_t v)
{
    if (bytes == 4)
        ((int32_t *)arr)[i] = (int32_t)v;
    else
        ((int64_t *)arr)[i] = v;
}

static int lmp_make(const test_atoms *a, int tag_bytes, uint64_t *rng, lmp_form *l)
{
    size_t n = (size_t)(a->nlocal + a->nghost), ms = (size_t)a->sys.maxspecial;
    memset(l, 0, sizeof *l);
    l->tag_bytes = tag_bytes;
    l->nmax = a->nlocal + 1 + (int)(20 * test_uniform(rng));
    l->type1 = malloc(n * sizeof *l->type1);
    l->tag = malloc(n * (size_t)tag_bytes);
    l->nspecial = malloc(3 * (size_t)l->nmax * sizeof *l->nspecial);
    l->special = malloc(((size_t)l->nmax * ms + 1) * (size_t)tag_bytes);
    if (!l->type1 || !l->tag || !l->nspecial || !l->special)
        return -1;
    for (size_t i = 0; i < n; i++) {
        l->type1[i] = a->type[i] + 1;
        put_tag(l->tag, tag_bytes, i, a->tag[i]);
    }
    for (size_t i = 0; i < (size_t)l->nmax; i++)
        for (size_t k = 0; k < 3; k++) /* rows past nlocal: stale */
            l->nspecial[3 * i + k] =
                i < (size_t)a->nlocal ? a->sys.nspecial[3 * i + k] : -7 - (int)k;
    for (size_t i = 0; i < (size_t)l->nmax; i++)
        for (size_t k = 0; k < ms; k++) {
            int stale = i >= (size_t)a->nlocal || (int)k >= a->sys.nspecial[3 * i + 2];
            int64_t v = stale ? -1 - (int64_t)(1000 * test_uniform(rng))
                              : a->sys.special[i * ms + k];
            put_tag(l->special, tag_bytes, i * ms + k, v);
        }
    return 0;
}

static scl_charmm_atoms lmp_atoms(const test_atoms *a, const double *x, const lmp_form *l)
{
    scl_charmm_atoms at = {.nlocal = a->nlocal,
                           .nghost = a->nghost,
                           .x = x,
                           .type = l->type1,
                           .type_base = 1,
                           .tag_bytes = l->tag_bytes,
                           .tag = l->tag,
                           .nspecial = l->nspecial,
                           .special = l->special,
                           .maxspecial = a->sys.maxspecial};
    return at;
}

/* What a run gives: forces of a force-only step after set_atoms, then of a
 * tallying step at moved positions, then after a second set_atoms at those. */
typedef struct {
    double *f;
    scl_charmm_result r[2];
} outcome;

static void move(const test_atoms *a, double *x, double d)
{
    size_t n = (size_t)(a->nlocal + a->nghost);
    for (size_t i = 0; i < n; i++) /* ghosts move with their atoms: by tag */
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = a->x[3 * i + k] + d * sin(0.7 * (double)a->tag[i] + k);
}

static scl_status run(scl_context *ctx, const scl_charmm_params *p, const test_atoms *a,
                      const lmp_form *l, outcome *o)
{
    size_t n = (size_t)a->nlocal, nall = (size_t)(a->nlocal + a->nghost);
    o->f = calloc(9 * n + 1, sizeof *o->f);
    double *x2 = malloc(3 * nall * sizeof *x2);
    scl_charmm *eng = NULL;
    scl_status s = o->f && x2 ? scl_charmm_create(ctx, p, &eng) : SCL_ERR_MEMORY;
    if (s != SCL_OK) {
        free(x2);
        return s;
    }
    move(a, x2, 0.05);
    for (int set = 0; set < 2 && s == SCL_OK; set++) {
        const double *xs = set ? x2 : a->x;
        if (l) {
            scl_charmm_atoms at = lmp_atoms(a, xs, l);
            s = scl_charmm_set_atoms_from(eng, &at);
        } else {
            s = scl_charmm_set_atoms(eng, a->nlocal, a->nghost, xs, a->type, a->tag,
                                     a->sys.nspecial, a->sys.special, a->sys.maxspecial);
        }
        for (int step = 0; step < 2 - set && s == SCL_OK; step++) {
            const double *x = set == 0 && step == 1 ? x2 : xs;
            int tally = step == 1 || set == 1;
            s = scl_charmm_compute(eng, x, a->q, tally, tally, 0, 0);
            if (s == SCL_OK)
                s = scl_charmm_finish(eng, o->f + 3 * n * (size_t)(2 * set + step),
                                      tally ? &o->r[set] : NULL, NULL, NULL);
        }
    }
    scl_charmm_free(eng);
    free(x2);
    return s;
}

static void compare(scl_context *ctx, const scl_charmm_params *p, const test_atoms *a,
                    const outcome *base, const lmp_form *l, const char *what)
{
    outcome o = {0};
    scl_status s = run(ctx, p, a, l, &o);
    CHECK(s == SCL_OK, "%s: %s", what, scl_last_error(ctx));
    if (s == SCL_OK) {
        int same_f = !memcmp(o.f, base->f, 9 * (size_t)a->nlocal * sizeof *o.f);
        int same_r = !memcmp(o.r, base->r, sizeof o.r);
        int finite = isfinite(o.r[0].ecoul) && isfinite(o.r[1].evdwl);
        printf("%-44s forces %s, energies/virial %s\n", what, same_f ? "identical" : "DIFFER",
               same_r ? "identical" : "DIFFER");
        CHECK(same_f && same_r && finite, "%s: not bitwise identical to scl_charmm_set_atoms",
              what);
    }
    free(o.f);
}

#define EXPECT(ctx, status_, got, needle)                                                  \
    do {                                                                                 \
        const char *msg_ = scl_last_error(ctx);                                          \
        CHECK((got) == (status_) && strstr(msg_, needle) != NULL,                        \
              "%s: %s '%s' (wanted %s '%s')", what, scl_status_name(got), msg_,          \
              scl_status_name(status_), needle);                                         \
        if ((got) == (status_))                                                          \
            printf("ok: %-30s %s\n", what, msg_);                                        \
    } while (0)

/* set_atoms_from + compute + finish; the status of the first call that fails. */
static scl_status step_from(scl_charmm *eng, const test_atoms *a, const scl_charmm_atoms *at,
                            double *f)
{
    scl_status s = scl_charmm_set_atoms_from(eng, at);
    if (s == SCL_OK)
        s = scl_charmm_compute(eng, a->x, a->q, 0, 0, 0, 0);
    if (s == SCL_OK)
        s = scl_charmm_finish(eng, f, NULL, NULL, NULL);
    return s;
}

static void bad_input(scl_context *ctx, const scl_charmm_params *p, const test_atoms *a,
                      lmp_form *l, uint64_t *rng)
{
    scl_charmm *eng = NULL;
    double *f = calloc(3 * (size_t)a->nlocal + 1, sizeof *f);
    CHECK_OK(ctx, scl_charmm_create(ctx, p, &eng));
    if (!eng || !f) {
        free(f);
        scl_charmm_free(eng);
        return;
    }
    const char *what;
    scl_charmm_atoms at = lmp_atoms(a, a->x, l);
    size_t ms = (size_t)a->sys.maxspecial;
    int i = (int)(a->nlocal * test_uniform(rng)); /* a local atom with specials */
    while (a->sys.nspecial[3 * i + 2] == 0)
        i = (i + 1) % a->nlocal;
    int g = a->nlocal + (int)(a->nghost * test_uniform(rng));

    what = "negative tag of a ghost";
    put_tag(l->tag, l->tag_bytes, (size_t)g, -5);
    EXPECT(ctx, SCL_ERR_INPUT, step_from(eng, a, &at, f), "tag -5");
    put_tag(l->tag, l->tag_bytes, (size_t)g, a->tag[g]);
    /* no step of those atoms succeeds (the arrays are fine again by now) */
    scl_status again = scl_charmm_compute(eng, a->x, a->q, 0, 0, 0, 0);
    if (again == SCL_OK)
        again = scl_charmm_finish(eng, f, NULL, NULL, NULL);
    CHECK(again != SCL_OK, "a step after the bad tags succeeded");

    what = "negative special tag";
    put_tag(l->special, l->tag_bytes, (size_t)i * ms + 0, -3);
    EXPECT(ctx, SCL_ERR_INPUT, step_from(eng, a, &at, f), "special partner 0 has tag -3");
    put_tag(l->special, l->tag_bytes, (size_t)i * ms + 0, a->sys.special[(size_t)i * ms]);

    what = "negative special count";
    l->nspecial[3 * i] = -1;
    EXPECT(ctx, SCL_ERR_INPUT, step_from(eng, a, &at, f), "special counts -1");
    l->nspecial[3 * i] = a->sys.nspecial[3 * i];

    what = "special count past maxspecial";
    l->nspecial[3 * i + 2] = (int)ms + 1;
    EXPECT(ctx, SCL_ERR_INPUT, step_from(eng, a, &at, f), "not cumulative within maxspecial");
    l->nspecial[3 * i + 2] = a->sys.nspecial[3 * i + 2];

    what = "type 0 with type_base 1";
    l->type1[g] = 0;
    EXPECT(ctx, SCL_ERR_INPUT, step_from(eng, a, &at, f), "type 0 outside 1..");
    l->type1[g] = a->type[g] + 1;

    what = "tag_bytes 2";
    at.tag_bytes = 2;
    EXPECT(ctx, SCL_ERR_ARGUMENT, step_from(eng, a, &at, f), "tag_bytes 2");
    at.tag_bytes = l->tag_bytes;

    what = "good arrays after the bad ones";
    memset(f, 0, 3 * (size_t)a->nlocal * sizeof *f);
    scl_status s = step_from(eng, a, &at, f);
    CHECK(s == SCL_OK, "%s: %s", what, scl_last_error(ctx));
    /* steps on those atoms: a NaN coordinate in one is reported by its finish
     * only (the flags of alternate steps are cleared by the step before) */
    size_t nall = (size_t)(a->nlocal + a->nghost);
    double *xb = malloc(3 * nall * sizeof *xb);
    for (int step = 0; xb && s == SCL_OK && step < 5; step++) {
        memcpy(xb, a->x, 3 * nall * sizeof *xb);
        if (step == 2)
            xb[3 * (size_t)g + 1] = NAN;
        scl_status c = scl_charmm_compute(eng, xb, a->q, step & 1, 0, 0, 0);
        if (c == SCL_OK)
            c = scl_charmm_finish(eng, f, NULL, NULL, NULL);
        what = step == 2 ? "a NaN coordinate in a later step" : "the steps around it";
        if (step == 2)
            EXPECT(ctx, SCL_ERR_INPUT, c, "non-finite");
        else
            CHECK(c == SCL_OK, "step %d: %s", step, scl_last_error(ctx));
    }
    free(xb);
    free(f);
    scl_charmm_free(eng);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    const scl_device_info *dev = scl_device(ctx);
    test_atoms a = {0};
    int nmol = 120 + (int)(130 * test_uniform(&rng));
    CHECK(charmm_water_box(nmol, rng, &a.sys) == 0, "water box");
    CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");
    CHECK(a.sys.maxspecial > 0 && a.sys.nspecial, "the water box has no specials");
    lmp_form l32, l64;
    CHECK(lmp_make(&a, 4, &rng, &l32) == 0 && lmp_make(&a, 8, &rng, &l64) == 0, "memory");
    if (test_failed)
        return test_summary("test_charmm_atom_arrays");
    printf("%d atoms + %d ghosts, maxspecial %d, nmax %d\n", a.nlocal, a.nghost,
           a.sys.maxspecial, l32.nmax);
    for (int prec = SCL_PREC_MIXED; prec <= SCL_PREC_DOUBLE; prec++) {
        if (prec == SCL_PREC_DOUBLE && !dev->fp64) {
            SKIP("double precision: %s has no fp64", dev->name);
            continue;
        }
        for (int host = 0; host < 2; host++) {
            scl_charmm_params p = test_params(&a.sys, (scl_precision)prec);
            p.chunks = 2; /* the plan's other values: defaults (tune 0), valid everywhere */
            p.host_pack = host;
            outcome base = {0};
            scl_status s = run(ctx, &p, &a, NULL, &base);
            CHECK(s == SCL_OK, "scl_charmm_set_atoms run: %s", scl_last_error(ctx));
            if (s != SCL_OK) {
                free(base.f);
                continue;
            }
            const char *pn = prec == SCL_PREC_DOUBLE ? "double" : "mixed";
            char what[96];
            snprintf(what, sizeof what, "%s%s, 32-bit tags", pn, host ? " host-pack" : "");
            compare(ctx, &p, &a, &base, &l32, what);
            snprintf(what, sizeof what, "%s%s, 64-bit tags", pn, host ? " host-pack" : "");
            compare(ctx, &p, &a, &base, &l64, what);
            for (int stable = 0; stable <= 2 && !host; stable++) {
                p.inputs_stable = stable;
                p.host_threads = 1 + 2 * stable; /* 1, 3, 5 */
                snprintf(what, sizeof what, "%s, inputs_stable %d, %d host threads", pn, stable,
                         p.host_threads);
                compare(ctx, &p, &a, &base, &l32, what);
            }
            free(base.f);
            if (prec == SCL_PREC_MIXED) {
                p.inputs_stable = 0;
                p.host_threads = 0;
                bad_input(ctx, &p, &a, host ? &l64 : &l32, &rng);
            }
        }
    }
    /* a system whose copies are spread over threads (one per 256 KB) */
    test_atoms big = {0};
    lmp_form lb;
    CHECK(charmm_water_box(3000, rng + 1, &big.sys) == 0 && test_add_ghosts(&big, 12.0) == 0 &&
              lmp_make(&big, 4, &rng, &lb) == 0,
          "big water box");
    if (!test_failed) {
        scl_charmm_params p = test_params(&big.sys, SCL_PREC_MIXED);
        outcome base = {0};
        scl_status s = run(ctx, &p, &big, NULL, &base);
        CHECK(s == SCL_OK, "scl_charmm_set_atoms run (big): %s", scl_last_error(ctx));
        p.host_threads = 4;
        char what[96];
        snprintf(what, sizeof what, "mixed, %d + %d atoms, copies on 4 threads", big.nlocal,
                 big.nghost);
        if (s == SCL_OK)
            compare(ctx, &p, &big, &base, &lb, what);
        free(base.f);
    }
    lmp_free(&lb);
    test_atoms_free(&big);
    lmp_free(&l32);
    lmp_free(&l64);
    test_atoms_free(&a);
    scl_context_free(ctx);
    return test_summary("test_charmm_atom_arrays");
}
