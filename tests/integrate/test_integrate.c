/* The resident velocity Verlet (streamcl/integrate.h) against its plain C
 * reference: several steps of initial/final half steps with force rows of
 * double and of float, a velocity scaling, the kinetic tensor and the largest
 * displacement; bad inputs refused. Tolerances: x and v within 1e-13
 * relative (the same double operations, contraction off: a CPU device is
 * bit for bit, a GPU's division may differ in the last bit), sums 1e-12. */
#include "streamcl/integrate.h"
#include "test_util.h"

enum { N = 1000, STEPS = 5 };

static double rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / (double)(1u << 24) - 0.5;
}

/* |a - b| within tol of max(|b|, 1e-3); NaN fails */
static int close_to(double a, double b, double tol)
{
    double scale = fabs(b) > 1e-3 ? fabs(b) : 1e-3;
    return fabs(a - b) <= tol * scale;
}

static void fill(double *x, double *v, double *m, double *f4, unsigned seed)
{
    for (int i = 0; i < N; i++) {
        for (int d = 0; d < 3; d++) {
            x[3 * i + d] = 40.0 * rnd(&seed);
            v[3 * i + d] = 0.01 * rnd(&seed);
            f4[4 * i + d] = 50.0 * rnd(&seed);
        }
        f4[4 * i + 3] = 0.0;
        m[i] = i % 3 == 0 ? 1.008 : i % 3 == 1 ? 12.011 : 15.9994;
    }
}

static int max_bad(const double *a, const double *b, size_t n, double tol)
{
    for (size_t k = 0; k < n; k++)
        if (!close_to(a[k], b[k], tol)) return (int)k;
    return -1;
}

/* STEPS steps on the device and in the reference; f of type ft */
static void run_steps(scl_context *ctx, scl_type ft)
{
    static double x[3 * N], v[3 * N], m[N], f4[4 * N], xr[3 * N], vr[3 * N], dtfm[N];
    static double xd[3 * N], vd[3 * N], x0[3 * N];
    static float f4f[4 * N];
    fill(x, v, m, f4, ft == SCL_FLOAT ? 7u : 3u);
    for (int k = 0; k < 4 * N; k++) {
        f4f[k] = (float)f4[k];
        if (ft == SCL_FLOAT) f4[k] = (double)f4f[k];   /* the reference sees the rounded rows */
    }
    scl_integrate_options o;
    scl_integrate_options_default(&o);
    o.dt = 2.0, o.ftm2v = 4.184e-4, o.force_type = ft;
    scl_integrate *it = NULL;
    CHECK_OK(ctx, scl_integrate_create(ctx, &o, &it));
    if (!it) return;
    scl_stream *f = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "test.f", ft, 4 * N, 1, 1, 0, &f));
    CHECK_OK(ctx, scl_stream_write(f, ft == SCL_FLOAT ? (const void *)f4f : (const void *)f4, 1, NULL));
    CHECK_OK(ctx, scl_integrate_set_atoms(it, N, x, v, m));
    CHECK(scl_integrate_count(it) == N, "count %d", scl_integrate_count(it));
    memcpy(xr, x, sizeof x), memcpy(vr, v, sizeof v), memcpy(x0, x, sizeof x);
    for (int i = 0; i < N; i++) dtfm[i] = 0.5 * o.dt * o.ftm2v / m[i];
    const double scale[3] = {0.999, 1.001, 0.9995};
    for (int s = 0; s < STEPS; s++) {
        CHECK_OK(ctx, scl_integrate_initial(it, f));
        scl_integrate_reference(1, N, xr, vr, f4, dtfm, o.dt);
        CHECK_OK(ctx, scl_integrate_final(it, f));
        scl_integrate_reference(2, N, xr, vr, f4, dtfm, o.dt);
        CHECK_OK(ctx, scl_integrate_scale_v(it, scale));
        for (int i = 0; i < N; i++)
            for (int d = 0; d < 3; d++) vr[3 * i + d] *= scale[d];
    }
    CHECK_OK(ctx, scl_integrate_read(it, xd, vd));
    int bx = max_bad(xd, xr, 3 * N, 1e-13), bv = max_bad(vd, vr, 3 * N, 1e-13);
    CHECK(bx < 0, "%s rows: x[%d] %.17g vs %.17g", ft == SCL_FLOAT ? "float" : "double", bx,
          bx < 0 ? 0.0 : xd[bx], bx < 0 ? 0.0 : xr[bx]);
    CHECK(bv < 0, "%s rows: v[%d] %.17g vs %.17g", ft == SCL_FLOAT ? "float" : "double", bv,
          bv < 0 ? 0.0 : vd[bv], bv < 0 ? 0.0 : vr[bv]);
    double mvv[6], want[6] = {0, 0, 0, 0, 0, 0}, d2 = -1, want_d2 = 0;
    for (int i = 0; i < N; i++) {
        const double *w = vr + 3 * i;
        want[0] += m[i] * w[0] * w[0], want[1] += m[i] * w[1] * w[1], want[2] += m[i] * w[2] * w[2];
        want[3] += m[i] * w[0] * w[1], want[4] += m[i] * w[0] * w[2], want[5] += m[i] * w[1] * w[2];
        double dd = 0;
        for (int d = 0; d < 3; d++) dd += (xr[3 * i + d] - x0[3 * i + d]) * (xr[3 * i + d] - x0[3 * i + d]);
        if (dd > want_d2) want_d2 = dd;
    }
    CHECK_OK(ctx, scl_integrate_kinetic(it, mvv));
    for (int c = 0; c < 6; c++)
        CHECK(close_to(mvv[c], want[c], 1e-12), "mvv[%d] %.17g vs %.17g", c, mvv[c], want[c]);
    CHECK_OK(ctx, scl_integrate_max_displacement(it, &d2));
    CHECK(close_to(d2, want_d2, 1e-12) && d2 > 0, "max displacement^2 %.17g vs %.17g", d2, want_d2);
    scl_stream_free(f);
    scl_integrate_free(it);
}

static void refusals(scl_context *ctx)
{
    scl_integrate_options o;
    scl_integrate_options_default(&o);
    scl_integrate *it = NULL;
    o.dt = 0;
    CHECK(scl_integrate_create(ctx, &o, &it) == SCL_ERR_ARGUMENT && !it, "dt 0 accepted");
    scl_integrate_options_default(&o);
    o.precision = SCL_PREC_SINGLE;
    CHECK(scl_integrate_create(ctx, &o, &it) == SCL_ERR_UNSUPPORTED && !it, "single accepted");
    scl_integrate_options_default(&o);
    CHECK_OK(ctx, scl_integrate_create(ctx, &o, &it));
    if (!it) return;
    double x[6] = {0, 0, 0, 1, 1, NAN}, v[6] = {0}, m[2] = {1, 1};
    CHECK(scl_integrate_set_atoms(it, 2, x, v, m) == SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "atom 1"), "NaN x accepted: %s", scl_last_error(ctx));
    x[5] = 1, m[0] = 0;
    CHECK(scl_integrate_set_atoms(it, 2, x, v, m) == SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "atom 0"), "zero mass accepted: %s", scl_last_error(ctx));
    m[0] = 1;
    CHECK_OK(ctx, scl_integrate_set_atoms(it, 2, x, v, m));
    scl_stream *small = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "test.small", SCL_DOUBLE, 4, 1, 1, 0, &small));
    CHECK(scl_integrate_initial(it, small) == SCL_ERR_ARGUMENT, "short force rows accepted");
    scl_stream_free(small);
    CHECK_OK(ctx, scl_integrate_set_atoms(it, 0, NULL, NULL, NULL));
    double mvv[6], d2 = -1;
    CHECK_OK(ctx, scl_integrate_kinetic(it, mvv));
    CHECK_OK(ctx, scl_integrate_max_displacement(it, &d2));
    CHECK(mvv[0] == 0 && d2 == 0, "no atoms: mvv %g d2 %g", mvv[0], d2);
    scl_integrate_free(it);
}

int main(void)
{
    scl_context *ctx = test_context();
    if (!scl_device(ctx)->fp64) {
        SKIP("the device lacks fp64 (x and v are double)");
        scl_context_free(ctx);
        return test_summary("integrate_device_vs_reference");
    }
    run_steps(ctx, SCL_DOUBLE);
    run_steps(ctx, SCL_FLOAT);
    refusals(ctx);
    scl_context_free(ctx);
    return test_summary("integrate_device_vs_reference");
}
