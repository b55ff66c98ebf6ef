/* Every bad input gives its own error status and a message, never NaN
 * forces or a crash: r_in >= r_c, missing coefficients, types out of range,
 * NaN/Inf coordinates and charges, overlapping atoms, malformed special
 * lists, calls out of order, and systems too large for the device memory
 * (which are chunked first and refused only when one chunk cannot fit). */
#include "charmm_test_util.h"

#include <string.h>

#define EXPECT(ctx, call, status, needle)                                                     \
    do {                                                                                    \
        scl_status st_ = (call);                                                            \
        const char *msg_ = scl_last_error(ctx);                                             \
        CHECK(st_ == (status) && strstr(msg_, needle) != NULL,                              \
              "%s -> %s (wanted %s) '%s' (wanted '%s')", #call, scl_status_name(st_),       \
              scl_status_name(status), msg_, needle);                                       \
        if (st_ == (status))                                                                \
            printf("ok: %-28s %s\n", scl_status_name(st_), msg_);                           \
    } while (0)

static scl_status create_with(scl_context *ctx, scl_charmm_params p)
{
    scl_charmm *eng = NULL;
    scl_status s = scl_charmm_create(ctx, &p, &eng);
    scl_charmm_free(eng);
    return s;
}

/* set_atoms + compute + finish on a copy with one atom changed. */
static scl_status step(scl_context *ctx, const scl_charmm_params *p, const test_atoms *a,
                       const double *x_set, const double *x_step, const double *q,
                       const int *type, double *f)
{
    scl_charmm *eng = NULL;
    scl_status s = scl_charmm_create(ctx, p, &eng);
    if (s == SCL_OK)
        s = scl_charmm_set_atoms(eng, a->nlocal, a->nghost, x_set, type, a->tag,
                                 a->sys.nspecial, a->sys.special, a->sys.maxspecial);
    if (s == SCL_OK)
        s = scl_charmm_compute(eng, x_step, q, 1, 1, 0, 0);
    if (s == SCL_OK)
        s = scl_charmm_finish(eng, f, NULL, NULL, NULL);
    scl_charmm_free(eng);
    return s;
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    test_atoms a = {0};
    CHECK(charmm_water_box(100 + (int)(50 * test_uniform(&rng)), rng, &a.sys) == 0, "water");
    CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");
    int natoms = a.nlocal + a.nghost;
    scl_charmm_params good = test_params(&a.sys, SCL_PREC_MIXED), p;

    /* parameters */
    p = good;
    p.cut_lj_inner = p.cut_lj;
    EXPECT(ctx, create_with(ctx, p), SCL_ERR_ARGUMENT, "r_in");
    p = good;
    p.cut_lj_inner = 12.0;
    EXPECT(ctx, create_with(ctx, p), SCL_ERR_ARGUMENT, "must be smaller");
    p = good;
    p.epsilon = NULL;
    EXPECT(ctx, create_with(ctx, p), SCL_ERR_ARGUMENT, "missing coefficients");
    double eps_nan[4];
    memcpy(eps_nan, a.sys.epsilon, sizeof eps_nan);
    eps_nan[3] = NAN; /* types 1 1 never set */
    p = good;
    p.epsilon = eps_nan;
    EXPECT(ctx, create_with(ctx, p), SCL_ERR_ARGUMENT, "missing or invalid coefficients");
    p = good;
    p.cut_coul = INFINITY;
    EXPECT(ctx, create_with(ctx, p), SCL_ERR_ARGUMENT, "cutoffs");
    p = good;
    p.threads_per_atom = 3;
    EXPECT(ctx, create_with(ctx, p), SCL_ERR_ARGUMENT, "threads_per_atom");

    /* atoms */
    size_t bytes = 3 * (size_t)natoms * sizeof(double);
    double *x = malloc(bytes), *f = calloc(3 * (size_t)a.nlocal, sizeof *f);
    double *q = malloc((size_t)natoms * sizeof *q);
    int *type = malloc((size_t)natoms * sizeof *type);
    memcpy(q, a.q, (size_t)natoms * sizeof *q);
    memcpy(type, a.type, (size_t)natoms * sizeof *type);
    int victim = (int)(a.nlocal * test_uniform(&rng));

    memcpy(x, a.x, bytes);
    x[3 * victim + 1] = NAN;
    EXPECT(ctx, step(ctx, &good, &a, x, x, q, type, f), SCL_ERR_INPUT, "non-finite coordinate");
    EXPECT(ctx, step(ctx, &good, &a, a.x, x, q, type, f), SCL_ERR_INPUT, "non-finite");
    memcpy(x, a.x, bytes);
    x[3 * victim] = INFINITY;
    EXPECT(ctx, step(ctx, &good, &a, a.x, x, q, type, f), SCL_ERR_INPUT, "non-finite");
    /* single/mixed positions are fixed point over the box of set_atoms plus
     * margins: an atom 1000 A away would alias, and must be refused */
    memcpy(x, a.x, bytes);
    x[3 * victim + 2] += 1000.0;
    EXPECT(ctx, step(ctx, &good, &a, a.x, x, q, type, f), SCL_ERR_INPUT, "moved more than");
    q[victim] = NAN;
    EXPECT(ctx, step(ctx, &good, &a, a.x, a.x, q, type, f), SCL_ERR_INPUT, "charge");
    q[victim] = a.q[victim];
    type[victim] = 2;
    EXPECT(ctx, step(ctx, &good, &a, a.x, a.x, q, type, f), SCL_ERR_INPUT, "type 2 outside");
    type[victim] = -1;
    EXPECT(ctx, step(ctx, &good, &a, a.x, a.x, q, type, f), SCL_ERR_INPUT, "type -1 outside");
    type[victim] = a.type[victim];

    /* overlapping atoms: a non-bonded neighbor moved onto the victim, in every precision */
    int other = (victim + 3 * (1 + (int)(5 * test_uniform(&rng)))) % a.nlocal;
    for (int prec = SCL_PREC_SINGLE; prec <= SCL_PREC_DOUBLE; prec++) {
        p = good;
        p.precision = (scl_precision)prec;
        memcpy(x, a.x, bytes);
        for (int d = 0; d < 3; d++)
            x[3 * other + d] = x[3 * victim + d] + (d == 0 ? 1e-3 : 0.0);
        memset(f, 0, 3 * (size_t)a.nlocal * sizeof *f);
        EXPECT(ctx, step(ctx, &p, &a, x, x, q, type, f), SCL_ERR_INPUT, "overlap");
        /* named by the caller's atom IDs (LAMMPS tags), not by 0-based indices */
        char want_v[48], want_o[48];
        snprintf(want_v, sizeof want_v, "ID%s %lld", "s", (long long)a.tag[victim]);
        snprintf(want_o, sizeof want_o, " %lld ", (long long)a.tag[other]);
        const char *msg = scl_last_error(ctx);
        CHECK(strstr(msg, "IDs") && (strstr(msg, want_o) || strstr(msg, want_v)),
              "overlap message does not name the atom IDs %lld/%lld: %s",
              (long long)a.tag[victim], (long long)a.tag[other], msg);
        char err[256];
        scl_status rs = scl_charmm_reference(&p, a.nlocal, a.nghost, x, q, type, a.tag,
                                             a.sys.nspecial, a.sys.special, a.sys.maxspecial,
                                             f, NULL, NULL, NULL, err, sizeof err);
        CHECK(rs == SCL_ERR_INPUT && strstr(err, "overlap"), "reference: %s", err);
    }

    /* special lists that are not cumulative */
    int *ns = malloc(3 * (size_t)a.nlocal * sizeof *ns);
    memcpy(ns, a.sys.nspecial, 3 * (size_t)a.nlocal * sizeof *ns);
    ns[3 * victim] = ns[3 * victim + 1] + 1;
    scl_charmm *eng = NULL;
    CHECK_OK(ctx, scl_charmm_create(ctx, &good, &eng));
    EXPECT(ctx,
           scl_charmm_set_atoms(eng, a.nlocal, a.nghost, a.x, a.type, a.tag, ns, a.sys.special,
                                a.sys.maxspecial),
           SCL_ERR_INPUT, "not cumulative");
    free(ns);
    /* calls out of order */
    EXPECT(ctx, scl_charmm_compute(eng, a.x, a.q, 0, 0, 0, 0), SCL_ERR_ARGUMENT, "set_atoms");
    EXPECT(ctx, scl_charmm_finish(eng, f, NULL, NULL, NULL), SCL_ERR_ARGUMENT, "compute first");
    scl_charmm_free(eng);

    /* device memory: lists of all atoms do not fit -> chunks; nothing fits -> error */
    p = good;
    /* ~70 B per atom and ~300 per local atom outside the lists, ~1000 list slots */
    p.max_device_bytes = (size_t)natoms * 80 + (size_t)a.nlocal * (400 + 1100 * 4 / 2);
    double *fref = calloc(3 * (size_t)a.nlocal, sizeof *fref);
    scl_charmm_stats st;
    memset(&st, 0, sizeof st);
    CHECK_OK(ctx, test_engine_step(ctx, &p, &a, f, NULL, NULL, NULL, &st));
    CHECK_OK(ctx, test_reference(&p, &a, fref, NULL, NULL, NULL));
    double err = rms_relative(f, fref, 3 * (size_t)a.nlocal);
    printf("ok: %zu bytes of device memory: %d chunks, force error %.2e\n", p.max_device_bytes,
           st.chunks, err);
    CHECK(st.chunks > 1 && within(err, 1e-6), "chunked run: %d chunks, error %g", st.chunks, err);
    p.max_device_bytes = 64 * 1024;
    EXPECT(ctx, test_engine_step(ctx, &p, &a, f, NULL, NULL, NULL, NULL), SCL_ERR_TOO_LARGE,
           "do not fit");

    free(fref), free(x), free(f), free(q), free(type);
    test_atoms_free(&a);
    scl_context_free(ctx);
    return test_summary("test_charmm_bad_input");
}
