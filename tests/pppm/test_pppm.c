/* PPPM particle-mesh operations: the C reference's own invariants, then the
 * device (mixed and double, orders 2-7, an odd brick) against it, bitwise
 * determinism of charge assignment, the whole-grid step (VkFFT) against a
 * direct-DFT oracle, and the inputs that must fail.
 * Tolerances: density max |diff| / max |density| <= 1e-6 (mixed), 1e-12
 * (double); per-atom force RMS relative difference <= 1e-5 / 1e-10 (the
 * issue's bounds for the plugin). */
#include "streamcl/pppm.h"
#include "test_util.h"
#include "own_assignment.h"
#include "pppm/pppm_internal.h" /* the device's Green's function, read back */

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

static size_t pppm_brick_points_test(const scl_pppm_params *p)
{
    size_t n = 1;
    for (int d = 0; d < 3; d++) n *= (size_t)(p->hi[d] - p->lo[d] + 1);
    return n;
}

/* The periodic grid point (0..nk-1 per axis, x fastest) of brick point (i,j,k). */
static size_t periodic_point(const scl_pppm_params *bp, const int nk[3], int i, int j, int k)
{
    const int g[3] = {i + bp->lo[0], j + bp->lo[1], k + bp->lo[2]};
    int w[3];
    for (int d = 0; d < 3; d++) w[d] = (g[d] % nk[d] + nk[d]) % nk[d];
    return ((size_t)w[2] * (size_t)nk[1] + (size_t)w[1]) * (size_t)nk[0] + (size_t)w[0];
}

static double rms_rel(const double *a, const double *b, size_t n)
{
    return test_rms_rel_error(a, b, n);
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
    /* the oracle: the tests' own B-spline assignment (own_assignment.h), and
     * the library's C reference against it */
    own_make_rho(&s.p, n, s.x, s.q, ref, s.npts);
    scl_pppm_reference_make_rho(&s.p, n, s.x, s.q, rho);
    CHECK_CLOSE_ARRAY("C reference density vs own B-spline assignment", s.npts, rho, ref, 0,
                      1e-12 * test_peak_n((long)s.npts, test_get_double, ref));
    for (size_t k = 0; k < s.npts; k++) rho[k] = NAN;
    CHECK_OK(ctx, scl_pppm_make_rho(p, n, s.x, s.q, rho));
    double maxd = 0.0, maxr = 0.0;
    int finite = 1;
    for (size_t k = 0; k < s.npts; k++) {
        if (!isfinite(rho[k])) finite = 0;
        maxd = test_max(maxd, fabs(rho[k] - ref[k]));
        maxr = test_max(maxr, fabs(ref[k]));
    }
    const double tol_rho = fp64 ? 1e-12 : 1e-6, tol_f = fp64 ? 1e-10 : 1e-5;
    CHECK(finite && maxd <= tol_rho * maxr, "order %d %s: density max diff %g of %g", order, prec,
          maxd, maxr);
    /* deterministic: a second assignment gives the same bits */
    CHECK_OK(ctx, scl_pppm_make_rho(p, n, s.x, s.q, rho2));
    CHECK(!memcmp(rho, rho2, s.npts * sizeof(double)), "order %d %s: density not bitwise repeatable",
          order, prec);

    {
        const double *const vd[3] = {s.vd[0], s.vd[1], s.vd[2]};
        own_fieldforce(&s.p, n, s.x, s.q, vd, fref);
        scl_pppm_reference_fieldforce(&s.p, n, s.x, s.q, s.vd[0], s.vd[1], s.vd[2], f);
        CHECK(rms_rel(f, fref, 3 * (size_t)n) <= 1e-12,
              "order %d: C reference forces vs own B-spline interpolation: rms rel %g", order,
              rms_rel(f, fref, 3 * (size_t)n));
    }
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


/* The whole-grid step (one rank) against a host oracle: the reference
 * assignment on a brick with ghosts folded periodically, a direct DFT, LAMMPS's
 * poisson_ik formulas, a direct inverse DFT, the reference interpolation on
 * the field unfolded into the same brick. Grid 9x10x8 (odd, not powers of 2),
 * or one smaller than the stencil (LAMMPS's pppm runs 4x4x4 at order 5: the
 * stencil wraps around the grid more than once). */
/* x and q from a device stream (as the pair engine's positions are shared):
 * the same forces, energy and virial bit for bit as the upload; a short or
 * misplaced stream refused. */
static void test_solve_device(scl_context *ctx, scl_pppm *p, int n, const double *x,
                              const double *q, const double *f_up, double e_up,
                              const double v_up[6])
{
    const size_t qf = 3 * (size_t)n + 5; /* q after a gap, as the pair's ghosts leave */
    double *xq = calloc(qf + (size_t)n, sizeof(double));
    memcpy(xq, x, 3 * (size_t)n * sizeof(double));
    memcpy(xq + qf, q, (size_t)n * sizeof(double));
    scl_stream *s = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "xq", SCL_DOUBLE, qf + (size_t)n, 1, 1, 0, &s));
    CHECK_OK(ctx, scl_stream_write(s, xq, 1, NULL));
    double *f = calloc(3 * (size_t)n, sizeof(double)), e = NAN, v[6];
    CHECK_OK(ctx, scl_pppm_solve_start_device(p, n, s, qf, q, 1));
    CHECK_OK(ctx, scl_pppm_solve_finish(p, f, &e, v));
    CHECK(!memcmp(f, f_up, 3 * (size_t)n * sizeof(double)), "solve from a device x: other forces");
    CHECK(!memcmp(&e, &e_up, sizeof e) && !memcmp(v, v_up, sizeof v),
          "solve from a device x: other energy %.17g (upload %.17g) or virial", e, e_up);
    CHECK(scl_pppm_solve_start_device(p, n, s, qf + 1, q, 0) == SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "xq_dev holds"),
          "a stream too short for q: %s", scl_last_error(ctx));
    CHECK(scl_pppm_solve_start_device(p, n, s, 3 * (size_t)n - 1, q, 0) == SCL_ERR_ARGUMENT,
          "q overlapping x: accepted");
    CHECK(scl_pppm_solve_start_device(p, n, NULL, qf, q, 0) == SCL_ERR_ARGUMENT, "NULL stream");
    CHECK(!scl_pppm_pending(p), "pending after refused starts");
    scl_stream_free(s);
    free(f);
    free(xq);
}

static void test_solve_grid(scl_context *ctx, int order, int fp64, uint64_t *rng, const int nk[3])
{
    const int np = nk[0] * nk[1] * nk[2], n = 150 + (int)(test_uniform(rng) * 100);
    const double prd[3] = {21.0, 23.5, 19.0}, gew = 0.3;
    const char *prec = fp64 ? "double" : "mixed";
    scl_pppm_params bp;
    memset(&bp, 0, sizeof bp);
    printf("solve grid %dx%dx%d order %d %s\n", nk[0], nk[1], nk[2], order, prec);
    bp.order = order;
    bp.fp64 = fp64;
    bp.qscale = 332.06371;
    bp.delvolinv = 1.0;
    for (int d = 0; d < 3; d++) {
        bp.boxlo[d] = -1.0 + d;
        bp.delinv[d] = nk[d] / prd[d];
        bp.delvolinv *= bp.delinv[d];
        bp.lo[d] = -order - 1;          /* ghosts for atoms up to a cell outside */
        bp.hi[d] = nk[d] + order;
    }
    double *x = malloc(3 * (size_t)n * sizeof(double)), *q = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++)   /* some atoms slightly outside the box */
            x[3 * i + d] = bp.boxlo[d] + prd[d] * (1.1 * test_uniform(rng) - 0.05);
        q[i] = test_uniform(rng) - 0.5;
    }
    /* LAMMPS's fk and a smooth positive stand-in for the Green's function */
    double *fk[3], *green = malloc((size_t)np * sizeof(double));
    for (int d = 0; d < 3; d++) {
        fk[d] = malloc((size_t)nk[d] * sizeof(double));
        for (int i = 0; i < nk[d]; i++) fk[d][i] = 2 * M_PI / prd[d] * (i - nk[d] * (2 * i / nk[d]));
    }
    for (int k = 0, m = 0; k < nk[2]; k++)
        for (int j = 0; j < nk[1]; j++)
            for (int i = 0; i < nk[0]; i++, m++) {
                const double sq = fk[0][i] * fk[0][i] + fk[1][j] * fk[1][j] + fk[2][k] * fk[2][k];
                green[m] = sq > 0 ? 4 * M_PI / sq * exp(-0.25 * sq / (gew * gew)) : 0.0;
            }
    /* oracle: periodic density */
    const size_t nb = pppm_brick_points_test(&bp);
    double *brick = malloc(nb * sizeof(double)), *rho = calloc((size_t)np, sizeof(double));
    CHECK(scl_pppm_reference_make_rho(&bp, n, x, q, brick) == 0, "solve oracle: out of range");
    const int bx = bp.hi[0] - bp.lo[0] + 1, by = bp.hi[1] - bp.lo[1] + 1, bz = bp.hi[2] - bp.lo[2] + 1;
    for (int k = 0; k < bz; k++)
        for (int j = 0; j < by; j++)
            for (int i = 0; i < bx; i++)
                rho[periodic_point(&bp, nk, i, j, k)] += brick[((size_t)k * by + j) * bx + i];
    /* direct DFT, Poisson, energy/virial, inverse DFT of i k rho G / N */
    double *vr[3], e_ref = 0, v_ref[6] = {0, 0, 0, 0, 0, 0};
    double *wre = calloc((size_t)np, sizeof(double)), *wim = calloc((size_t)np, sizeof(double));
    for (int d = 0; d < 3; d++) vr[d] = calloc((size_t)np, sizeof(double));
    for (int m = 0; m < np; m++) {
        const int i = m % nk[0], j = (m / nk[0]) % nk[1], k = m / (nk[0] * nk[1]);
        double re = 0, im = 0;
        for (int r = 0; r < np; r++) {
            const int a = r % nk[0], b = (r / nk[0]) % nk[1], c = r / (nk[0] * nk[1]);
            const double ph = -2 * M_PI * ((double)i * a / nk[0] + (double)j * b / nk[1] + (double)k * c / nk[2]);
            re += rho[r] * cos(ph);
            im += rho[r] * sin(ph);
        }
        const double eng = green[m] * (re * re + im * im) / ((double)np * np);
        const double kx = fk[0][i], ky = fk[1][j], kz = fk[2][k], sq = kx * kx + ky * ky + kz * kz;
        e_ref += eng;
        if (sq > 0) {
            const double vt = -2 * (1 / sq + 0.25 / (gew * gew));
            v_ref[0] += eng * (1 + vt * kx * kx); v_ref[1] += eng * (1 + vt * ky * ky);
            v_ref[2] += eng * (1 + vt * kz * kz); v_ref[3] += eng * vt * kx * ky;
            v_ref[4] += eng * vt * kx * kz;       v_ref[5] += eng * vt * ky * kz;
        }
        wre[m] = re * green[m] / np;
        wim[m] = im * green[m] / np;
    }
    for (int r = 0; r < np; r++) {
        const int a = r % nk[0], b = (r / nk[0]) % nk[1], c = r / (nk[0] * nk[1]);
        for (int m = 0; m < np; m++) {
            const int i = m % nk[0], j = (m / nk[0]) % nk[1], k = m / (nk[0] * nk[1]);
            const double ph = 2 * M_PI * ((double)i * a / nk[0] + (double)j * b / nk[1] + (double)k * c / nk[2]);
            /* real part of (i k (wre + i wim)) e^{i ph} = -k (wim cos + wre sin) */
            const double t = wim[m] * cos(ph) + wre[m] * sin(ph);
            vr[0][r] -= fk[0][i] * t;
            vr[1][r] -= fk[1][j] * t;
            vr[2][r] -= fk[2][k] * t;
        }
    }
    double *vb[3], *fref = calloc(3 * (size_t)n, sizeof(double));
    for (int d = 0; d < 3; d++) {
        vb[d] = malloc(nb * sizeof(double));
        for (int k = 0; k < bz; k++)
            for (int j = 0; j < by; j++)
                for (int i = 0; i < bx; i++)
                    vb[d][((size_t)k * by + j) * bx + i] = vr[d][periodic_point(&bp, nk, i, j, k)];
    }
    scl_pppm_reference_fieldforce(&bp, n, x, q, vb[0], vb[1], vb[2], fref);

    scl_pppm *p = NULL;
    CHECK_OK(ctx, scl_pppm_create(ctx, &bp, &p));
    scl_pppm_kspace ks = {nk[0], nk[1], nk[2], green, fk[0], fk[1], fk[2], gew};
    double *f = calloc(3 * (size_t)n, sizeof(double)), e = NAN, v[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    scl_status sst = p ? scl_pppm_solver_set(p, &ks) : SCL_ERR_ARGUMENT;
    if (sst == SCL_ERR_UNSUPPORTED && strstr(scl_last_error(ctx), "without VkFFT")) {
        SKIP("solve order %d %s: %s", order, prec, scl_last_error(ctx)); /* exits 77, visibly */
        scl_pppm_free(p);
        p = NULL;
    }
    if (p) {
        CHECK(sst == SCL_OK, "solver_set: %s", scl_last_error(ctx));
        CHECK_OK(ctx, scl_pppm_solve_start(p, n, x, q, 1));
        CHECK(scl_pppm_pending(p), "pending after solve_start");
        CHECK_OK(ctx, scl_pppm_solve_finish(p, f, &e, v));
        const double tol = fp64 ? 1e-10 : 1e-5, ef = rms_rel(f, fref, 3 * (size_t)n);
        const double de = fabs(e - e_ref) / fabs(e_ref);
        double dv = 0, vmax = 0;
        for (int c = 0; c < 6; c++) { /* test_max: a NaN virial must not vanish */
            dv = test_max(dv, test_absdiff(v[c], v_ref[c]));
            vmax = test_max(vmax, fabs(v_ref[c]));
        }
        CHECK(ef <= tol, "solve order %d %s: force RMS relative %g > %g", order, prec, ef, tol);
        CHECK_CLOSE("pppm energy", 0, e, e_ref, tol, 0);
        CHECK_CLOSE_ARRAY("pppm virial", 6, v, v_ref, 0, tol * vmax);
        printf("solve order %d %-6s n %3d: force rms rel %.2e, energy rel %.2e, virial rel %.2e\n",
               order, prec, n, ef, de, dv / vmax);
        /* a tally-free step gives the same forces */
        double *f2 = calloc(3 * (size_t)n, sizeof(double));
        CHECK_OK(ctx, scl_pppm_solve_start(p, n, x, q, 0));
        CHECK_OK(ctx, scl_pppm_solve_finish(p, f2, NULL, NULL));
        CHECK(!memcmp(f, f2, 3 * (size_t)n * sizeof(double)), "solve without tally: other forces");
        /* inputs kept by the caller until finish: uploaded without waiting, same forces */
        bp.inputs_stable = 1;
        CHECK_OK(ctx, scl_pppm_set_geometry(p, &bp));
        memset(f2, 0, 3 * (size_t)n * sizeof(double));
        CHECK_OK(ctx, scl_pppm_solve_start(p, n, x, q, 0));
        CHECK_OK(ctx, scl_pppm_solve_finish(p, f2, NULL, NULL));
        CHECK(!memcmp(f, f2, 3 * (size_t)n * sizeof(double)), "solve, inputs_stable: other forces");
        if (scl_device(ctx)->fp64) test_solve_device(ctx, p, n, x, q, f, e, v);
        /* an atom far outside the box */
        x[0] = bp.boxlo[0] + 3.5 * prd[0];
        CHECK_OK(ctx, scl_pppm_solve_start(p, n, x, q, 0));
        scl_status st = scl_pppm_solve_finish(p, f2, NULL, NULL);
        CHECK(st == SCL_ERR_INPUT, "solve with an atom far outside: %s", scl_status_name(st));
        free(f2);
        scl_pppm_free(p);
    }
    free(f); free(fref); free(x); free(q); free(green); free(brick); free(rho); free(wre); free(wim);
    for (int d = 0; d < 3; d++) { free(fk[d]); free(vr[d]); free(vb[d]); }
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

static void test_solve(scl_context *ctx, int order, int fp64, uint64_t *rng)
{
    static const int nk[3] = {9, 10, 8};
    test_solve_grid(ctx, order, fp64, rng, nk);
}

/* LAMMPS's PPPM::compute_gf_ik (orthogonal box, one rank: the whole grid),
 * the oracle of scl_pppm_solver_set_box: written from its formula. */
static double sinc_pow(double x, int n)
{
    if (x == 0.0) return 1.0;
    double ww = sin(x) / x, yy = 1.0;
    for (; n != 0; n >>= 1, ww *= ww)
        if (n & 1) yy *= ww;
    return yy;
}

static double green_point(const scl_pppm_kspace_box *b, int order, int kper, int lper, int mper)
{
    const int nk[3] = {b->nx, b->ny, b->nz}, nb[3] = {b->nbx, b->nby, b->nbz}, per[3] = {kper, lper, mper};
    const double prd[3] = {b->xprd, b->yprd, b->zprd_slab};
    double unitk[3], sn[3], sd[3] = {0, 0, 0}, sqk = 0;
    for (int d = 0; d < 3; d++) {
        unitk[d] = 6.28318530717958647692 / prd[d];
        const double s = sin(0.5 * unitk[d] * per[d] * prd[d] / nk[d]);
        sn[d] = s * s;
        sqk += (unitk[d] * per[d]) * (unitk[d] * per[d]);
    }
    if (sqk == 0.0) return 0.0;
    for (int l = order - 1; l >= 0; l--)
        for (int d = 0; d < 3; d++) sd[d] = b->gf_b[l] + sd[d] * sn[d];
    const double den = (sd[0] * sd[1] * sd[2]) * (sd[0] * sd[1] * sd[2]);
    double sum = 0;
    for (int a = -nb[0]; a <= nb[0]; a++)
        for (int c = -nb[1]; c <= nb[1]; c++)
            for (int e = -nb[2]; e <= nb[2]; e++) {
                const int img[3] = {a, c, e};
                double q[3], w = 1, dot1 = 0, dot2 = 0;
                for (int d = 0; d < 3; d++) {
                    q[d] = unitk[d] * (per[d] + nk[d] * img[d]);
                    w *= exp(-0.25 * (q[d] / b->g_ewald) * (q[d] / b->g_ewald)) *
                         sinc_pow(0.5 * q[d] * prd[d] / nk[d], 2 * order);
                    dot1 += unitk[d] * per[d] * q[d];
                    dot2 += q[d] * q[d];
                }
                sum += dot1 / dot2 * w;
            }
    return 12.5663706 / sqk * sum / den;
}

/* scl_pppm_solver_set_box: the device's Green's function and wave numbers
 * against the oracle, <= 1e-13 of the largest (double grids; float grids:
 * the same values rounded once, <= 1e-6); and a second box (fix npt) */
static void test_green_box(scl_context *ctx, int order, int fp64)
{
    scl_pppm_params bp;
    memset(&bp, 0, sizeof bp);
    bp.order = order;
    bp.fp64 = fp64;
    bp.qscale = 1.0;
    bp.delvolinv = 1.0;
    for (int d = 0; d < 3; d++) bp.delinv[d] = 1.0, bp.hi[d] = 8;
    scl_pppm *p = NULL;
    CHECK_OK(ctx, scl_pppm_create(ctx, &bp, &p));
    const double gf_b[7] = {1.0, -0.33, 0.081, -0.012, 0.0011, -7e-5, 3e-6};
    for (int box = 0; p && box < 2; box++) {
        scl_pppm_kspace_box b = {10 - box, 12, 9, 31.5 + box, 28.25, 24.0 - 0.5 * box, 0.27,
                                 1 + box, 1, 2 - box, gf_b};
        scl_status st = scl_pppm_solver_set_box(p, &b);
        if (st == SCL_ERR_UNSUPPORTED) {
            printf("solver_set_box order %d: skipped (%s)\n", order, scl_last_error(ctx));
            break;
        }
        CHECK(st == SCL_OK, "solver_set_box: %s", scl_last_error(ctx));
        const int np = b.nx * b.ny * b.nz, nf = b.nx + b.ny + b.nz;
        double *g = malloc(sizeof(double) * (size_t)(np + nf));
        if (fp64) {
            CHECK_OK(ctx, scl_stream_read(p->green, g, 1, NULL));
            CHECK_OK(ctx, scl_stream_read(p->fk, g + np, 1, NULL));
        } else {
            float *t = malloc(sizeof(float) * (size_t)(np + nf));
            CHECK_OK(ctx, scl_stream_read(p->green, t, 1, NULL));
            CHECK_OK(ctx, scl_stream_read(p->fk, t + np, 1, NULL));
            for (int i = 0; i < np + nf; i++) g[i] = t[i];
            free(t);
        }
        const int nk[3] = {b.nx, b.ny, b.nz};
        const double prd[3] = {b.xprd, b.yprd, b.zprd_slab};
        double gmax = 0, gdiff = 0, fdiff = 0, fmax = 0;
        for (int i = 0; i < np; i++) {
            const int k = i % b.nx, l = (i / b.nx) % b.ny, m = i / (b.nx * b.ny);
            const double want = green_point(&b, order, k - b.nx * (2 * k / b.nx),
                                            l - b.ny * (2 * l / b.ny), m - b.nz * (2 * m / b.nz));
            gmax = test_max(gmax, fabs(want));
            gdiff = test_max(gdiff, test_absdiff(g[i], want));
        }
        for (int d = 0, at = np; d < 3; d++)
            for (int i = 0; i < nk[d]; i++, at++) {
                const double want = 6.28318530717958647692 / prd[d] * (i - nk[d] * (2 * i / nk[d]));
                fmax = test_max(fmax, fabs(want));
                fdiff = test_max(fdiff, test_absdiff(g[at], want));
            }
        const double tol = fp64 ? 1e-13 : 1e-6;
        CHECK(gmax > 0 && gdiff <= tol * gmax, "set_box order %d box %d: Green's function off by "
              "%g of its largest", order, box, gdiff / gmax);
        CHECK(fdiff <= tol * fmax, "set_box order %d box %d: wave numbers off by %g", order, box,
              fdiff / fmax);
        printf("solver_set_box order %d %s box %d: Green's function %.2e, wave numbers %.2e "
               "(relative to the largest)\n", order, fp64 ? "double" : "mixed", box, gdiff / gmax,
               fdiff / fmax);
        free(g);
    }
    scl_pppm_free(p);
}

int main(void)
{
    uint64_t rng = test_seed();
    test_reference(&rng);
    scl_context *ctx = test_context();
    test_bad_params(ctx, &rng);
    const int fp64 = scl_device(ctx)->fp64;
    if (!fp64) /* the double cases cannot run here: say so, and exit 77 */
        SKIP("double precision pppm: device %s has no fp64", scl_device(ctx)->name);
    for (int order = SCL_PPPM_MIN_ORDER; order <= SCL_PPPM_MAX_ORDER; order++) {
        test_device(ctx, order, 0, &rng);
        if (fp64) test_device(ctx, order, 1, &rng);
    }
    for (int order = SCL_PPPM_MIN_ORDER; order <= SCL_PPPM_MAX_ORDER; order += 5 - (order & 1) * 2) {
        test_solve(ctx, order, 0, &rng);
        if (fp64) test_solve(ctx, order, 1, &rng);
    }
    for (int order = 2; order <= 7; order += 3) {
        test_green_box(ctx, order, 0);
        test_green_box(ctx, order, 1);
    }
    /* grids below the order (pppm/ocl refused 4x4x4 at order 5 that LAMMPS runs) */
    static const int small[2][3] = {{4, 4, 4}, {3, 5, 2}};
    test_solve_grid(ctx, 5, 0, &rng, small[0]);
    test_solve_grid(ctx, 7, fp64, &rng, small[1]);
    scl_context_free(ctx);
    return test_summary("pppm");
}
