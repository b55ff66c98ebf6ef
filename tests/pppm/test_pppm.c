/* PPPM particle-mesh operations: the C reference's own invariants, then the
 * device (mixed and double, orders 2-7, an odd brick) against it, bitwise
 * determinism of charge assignment, and the inputs that must fail.
 * Tolerances: density max |diff| / max |density| <= 1e-6 (mixed), 1e-12
 * (double); per-atom force RMS relative difference <= 1e-5 / 1e-10 (the
 * issue's bounds for the plugin). */
#include "streamcl/pppm.h"
#include "test_util.h"

#include <string.h>

typedef struct {
    scl_pppm_params p;
    int n;
    double *x, *q, *vd[3];
    size_t npts;
} system_t;

/* atoms whose stencils stay inside a brick with lo = (-3, 2, -1) and a
 * per-dimension size that is not a power of two */
static void make_system(system_t *s, int order, int fp64, int n, uint64_t *rng)
{
    memset(s, 0, sizeof *s);
    const int size[3] = {23, 17, 29}, lo[3] = {-3, 2, -1};
    int nlower, nupper;
    scl_pppm_stencil(order, NULL, NULL, &nlower, &nupper);
    s->p.order = order;
    s->p.fp64 = fp64;
    s->p.delvolinv = 1.0;
    s->p.qscale = 332.06371;
    for (int d = 0; d < 3; d++) {
        s->p.lo[d] = lo[d];
        s->p.hi[d] = lo[d] + size[d] - 1;
        s->p.delinv[d] = 1.0 / (0.9 + 0.1 * d);
        s->p.boxlo[d] = -2.5 + d;
        s->p.delvolinv *= s->p.delinv[d];
    }
    s->n = n;
    s->x = malloc(3 * (size_t)n * sizeof(double));
    s->q = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            /* grid coordinates [lo - nlower + 0.5, hi - nupper - 0.5] */
            const double g0 = s->p.lo[d] - nlower + 0.5, g1 = s->p.hi[d] - nupper - 0.5;
            const double g = g0 + (g1 - g0) * test_uniform(rng);
            s->x[3 * i + d] = s->p.boxlo[d] + g / s->p.delinv[d];
        }
        s->q[i] = test_uniform(rng) - 0.5;
    }
    s->npts = 1;
    for (int d = 0; d < 3; d++) s->npts *= (size_t)size[d];
    for (int d = 0; d < 3; d++) {
        s->vd[d] = malloc(s->npts * sizeof(double));
        for (size_t k = 0; k < s->npts; k++) s->vd[d][k] = 2.0 * test_uniform(rng) - 1.0;
    }
}

static void free_system(system_t *s)
{
    free(s->x);
    free(s->q);
    for (int d = 0; d < 3; d++) free(s->vd[d]);
}

static void test_reference(uint64_t *rng)
{
    for (int order = SCL_PPPM_MIN_ORDER; order <= SCL_PPPM_MAX_ORDER; order++) {
        double c[SCL_PPPM_MAX_ORDER * SCL_PPPM_MAX_ORDER];
        scl_pppm_rho_coeff(order, c);
        /* the weights of any offset in [-0.5, 0.5] are >= 0 and sum to 1 */
        for (int t = 0; t < 20; t++) {
            const double dd = test_uniform(rng) - 0.5;
            double sum = 0.0, wmin = 1.0;
            for (int k = 0; k < order; k++) {
                double r = 0.0;
                for (int l = order - 1; l >= 0; l--) r = c[l * order + k] + r * dd;
                sum += r;
                if (r < wmin) wmin = r;
            }
            CHECK(fabs(sum - 1.0) < 1e-13 && wmin > -1e-15, "order %d d %g: sum %.17g min %g",
                  order, dd, sum, wmin);
        }
        /* total charge on the grid = delvolinv * sum q */
        system_t s;
        make_system(&s, order, 1, 301, rng);
        double *rho = malloc(s.npts * sizeof(double)), tot = 0.0, qt = 0.0;
        CHECK(scl_pppm_reference_make_rho(&s.p, s.n, s.x, s.q, rho) == 0, "order %d: out of range", order);
        for (size_t k = 0; k < s.npts; k++) tot += rho[k];
        for (int i = 0; i < s.n; i++) qt += s.q[i];
        CHECK(fabs(tot - s.p.delvolinv * qt) < 1e-11 * (1 + fabs(s.p.delvolinv * qt)),
              "order %d: grid charge %.15g vs %.15g", order, tot, s.p.delvolinv * qt);
        free(rho);
        free_system(&s);
    }
}

static double rms_rel(const double *a, const double *b, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
}

static void test_device(scl_context *ctx, int order, int fp64, uint64_t *rng)
{
    system_t s;
    const int n = 1000 + (int)(test_uniform(rng) * 777);
    make_system(&s, order, fp64, n, rng);
    const char *prec = fp64 ? "double" : "mixed";
    scl_pppm *p = NULL;
    CHECK_OK(ctx, scl_pppm_create(ctx, &s.p, &p));
    if (!p) { free_system(&s); return; }
    CHECK(scl_pppm_brick_count(p) == s.npts, "brick count");
    double *ref = malloc(s.npts * sizeof(double)), *rho = malloc(s.npts * sizeof(double));
    double *rho2 = malloc(s.npts * sizeof(double));
    double *fref = calloc(3 * (size_t)n, sizeof(double)), *f = calloc(3 * (size_t)n, sizeof(double));
    scl_pppm_reference_make_rho(&s.p, n, s.x, s.q, ref);
    for (size_t k = 0; k < s.npts; k++) rho[k] = NAN;
    CHECK_OK(ctx, scl_pppm_make_rho(p, n, s.x, s.q, rho));
    double maxd = 0.0, maxr = 0.0;
    int finite = 1;
    for (size_t k = 0; k < s.npts; k++) {
        if (!isfinite(rho[k])) finite = 0;
        maxd = fmax(maxd, fabs(rho[k] - ref[k]));
        maxr = fmax(maxr, fabs(ref[k]));
    }
    const double tol_rho = fp64 ? 1e-12 : 1e-6, tol_f = fp64 ? 1e-10 : 1e-5;
    CHECK(finite && maxd <= tol_rho * maxr, "order %d %s: density max diff %g of %g", order, prec,
          maxd, maxr);
    /* deterministic: a second assignment gives the same bits */
    CHECK_OK(ctx, scl_pppm_make_rho(p, n, s.x, s.q, rho2));
    CHECK(!memcmp(rho, rho2, s.npts * sizeof(double)), "order %d %s: density not bitwise repeatable",
          order, prec);

    scl_pppm_reference_fieldforce(&s.p, n, s.x, s.q, s.vd[0], s.vd[1], s.vd[2], fref);
    for (size_t i = 0; i < 3 * (size_t)n; i++) f[i] = 1.0;   /* forces are added */
    CHECK_OK(ctx, scl_pppm_fieldforce_start(p, s.vd[0], s.vd[1], s.vd[2]));
    CHECK(scl_pppm_pending(p), "pending after start");
    CHECK_OK(ctx, scl_pppm_fieldforce_finish(p, f));
    for (size_t i = 0; i < 3 * (size_t)n; i++) f[i] -= 1.0;
    const double e = rms_rel(f, fref, 3 * (size_t)n);
    CHECK(e <= tol_f, "order %d %s: force RMS relative difference %g > %g", order, prec, e, tol_f);
    printf("order %d %-6s n %4d: density max rel %.2e, force rms rel %.2e\n", order, prec, n,
           maxr > 0 ? maxd / maxr : 0.0, e);

    /* an atom whose stencil leaves the brick, then a NaN coordinate */
    const double keep = s.x[3 * 7];
    s.x[3 * 7] = s.p.boxlo[0] + (s.p.hi[0] + 0.2) / s.p.delinv[0];
    scl_status st = scl_pppm_make_rho(p, n, s.x, s.q, rho);
    CHECK(st == SCL_ERR_INPUT && strstr(scl_last_error(ctx), "out of range"),
          "out-of-brick atom: %s: %s", scl_status_name(st), scl_last_error(ctx));
    s.x[3 * 7] = NAN;
    st = scl_pppm_make_rho(p, n, s.x, s.q, rho);
    CHECK(st == SCL_ERR_INPUT, "NaN coordinate: %s", scl_status_name(st));
    s.x[3 * 7] = keep;
    CHECK_OK(ctx, scl_pppm_make_rho(p, n, s.x, s.q, rho));
    CHECK(!memcmp(rho, rho2, s.npts * sizeof(double)), "recovers after a bad step");
    /* no atoms at all: an empty grid, and finish adds nothing */
    CHECK_OK(ctx, scl_pppm_make_rho(p, 0, s.x, s.q, rho));
    int zero = 1;
    for (size_t k = 0; k < s.npts; k++) zero &= rho[k] == 0.0;
    CHECK(zero, "empty system gives a zero grid");
    CHECK_OK(ctx, scl_pppm_fieldforce_start(p, s.vd[0], s.vd[1], s.vd[2]));
    CHECK_OK(ctx, scl_pppm_fieldforce_finish(p, NULL));

    scl_pppm_free(p);
    free(ref); free(rho); free(rho2); free(fref); free(f);
    free_system(&s);
}

static void test_bad_params(scl_context *ctx, uint64_t *rng)
{
    system_t s;
    make_system(&s, 5, 0, 10, rng);
    scl_pppm *p = (scl_pppm *)&s; /* must be reset to NULL on failure */
    scl_pppm_params b = s.p;
    b.order = 8;
    CHECK(scl_pppm_create(ctx, &b, &p) == SCL_ERR_ARGUMENT && p == NULL &&
          strstr(scl_last_error(ctx), "order 8"), "order 8: %s", scl_last_error(ctx));
    b = s.p;
    b.order = 1;
    CHECK(scl_pppm_create(ctx, &b, &p) == SCL_ERR_ARGUMENT, "order 1");
    b = s.p;
    b.hi[1] = b.lo[1] - 1;
    CHECK(scl_pppm_create(ctx, &b, &p) == SCL_ERR_ARGUMENT, "empty brick");
    b = s.p;
    b.delinv[2] = NAN;
    CHECK(scl_pppm_create(ctx, &b, &p) == SCL_ERR_ARGUMENT, "NaN spacing");
    CHECK(scl_pppm_create(ctx, NULL, &p) == SCL_ERR_ARGUMENT, "NULL params");
    free_system(&s);
}

int main(void)
{
    uint64_t rng = test_seed();
    test_reference(&rng);
    scl_context *ctx = test_context();
    test_bad_params(ctx, &rng);
    for (int order = SCL_PPPM_MIN_ORDER; order <= SCL_PPPM_MAX_ORDER; order++) {
        test_device(ctx, order, 0, &rng);
        if (scl_device(ctx)->fp64) test_device(ctx, order, 1, &rng);
    }
    scl_context_free(ctx);
    return test_summary("pppm");
}
