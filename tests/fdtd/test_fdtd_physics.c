/* Exact-solution tests of the Yee solver, each run on the C reference and on
 * the OpenCL solver (fp32, and fp64 where the device has it):
 *  - PEC cavity: resonant frequencies equal the discrete Yee dispersion
 *    relation (rel. error <= 1e-4), and differ from the continuous one;
 *  - lossless PEC cavity with a dielectric box: the discrete energy
 *    eps|E^n|^2 + mu H^(n-1/2).H^(n+1/2) drifts <= 1e-10 (fp64) / 1e-4 (fp32)
 *    over 10^4 steps;
 *  - CPML, 10 cells: reflection <= -40 dB at a receiver in front of the face
 *    (against a domain large enough that its walls are not seen in the window);
 *  - plane wave (periodic y, z) through a dielectric slab: |T(f)| against the
 *    analytic Fresnel (Airy) transmission within 1%.
 * Fresh random initial fields each run (seed printed). */
#include "fdtd_test_solver.h"

#include <complex.h>
#include <string.h>

static uint64_t rng;
static int nkinds = 1, kinds[4] = {0};
static const char *label_of(int kind)
{
    static const char *l[] = {"host fp64", "host fp32", "OpenCL fp32", "OpenCL fp64", "OpenCL fp32 fused", "OpenCL fp64 fused"};
    return l[kind];
}

static double blackman_harris(long n, long N)
{
    double x = 2 * M_PI * n / (N - 1);
    return 0.35875 - 0.48829 * cos(x) + 0.14128 * cos(2 * x) - 0.01168 * cos(3 * x);
}

static double dtft_mag(const double *x, long N, double w)
{
    double complex s = 0;
    for (long n = 0; n < N; n++)
        s += blackman_harris(n, N) * x[n] * cexp(-I * w * n);
    return cabs(s);
}

/* Golden-section search of the spectral peak in [a, b] (radians per step). */
static double peak(const double *x, long N, double a, double b)
{
    const double g = (sqrt(5.0) - 1) / 2;
    double c = b - g * (b - a), d = a + g * (b - a);
    double fc = dtft_mag(x, N, c), fd = dtft_mag(x, N, d);
    for (int it = 0; it < 80 && b - a > 1e-13; it++) {
        if (fc > fd) {
            b = d, d = c, fd = fc;
            c = b - g * (b - a), fc = dtft_mag(x, N, c);
        } else {
            a = c, c = d, fc = fd;
            d = a + g * (b - a), fd = dtft_mag(x, N, d);
        }
    }
    return (a + b) / 2;
}

static void random_fields(test_solver *t, const scl_fdtd_model *m, int with_h)
{
    const scl_grid3d *g = &m->grid;
    long pts = scl_grid3d_points(g);
    double *f = calloc((size_t)pts, sizeof(double));
    for (int c = 0; c < (with_h ? 6 : 3); c++) {
        memset(f, 0, (size_t)pts * sizeof(double));
        int a = c % 3, n[3] = {g->nx, g->ny, g->nz};
        for (int k = 0; k <= g->nz; k++)
            for (int j = 0; j <= g->ny; j++)
                for (int i = 0; i <= g->nx; i++) {
                    int p[3] = {i, j, k}, upd = 1;
                    for (int x = 0; x < 3; x++) {
                        int half = c < 3 ? x == a : x != a;
                        upd &= half ? p[x] < n[x] : (p[x] > 0 && p[x] < n[x]);
                    }
                    if (upd)
                        f[scl_grid3d_index(g, i, j, k)] = 2 * test_uniform(&rng) - 1;
                }
        ts_set(t, c, f);
    }
    free(f);
}

static void test_cavity(scl_context *ctx, int kind)
{
    char err[512];
    scl_fdtd_model m;
    int N[3] = {12, 9, 7};
    double d[3] = {1e-3, 1.1e-3, 0.9e-3};
    CHECK(scl_fdtd_model_init(&m, N[0], N[1], N[2], d[0], d[1], d[2], 1.0, err, sizeof err) == SCL_OK, "%s", err);
    m.nrx = 1;
    m.rx_ijk = calloc(1, sizeof *m.rx_ijk);
    m.rx_ijk[0][0] = 8, m.rx_ijk[0][1] = 6, m.rx_ijk[0][2] = 3;
    CHECK(scl_fdtd_model_finish(&m, err, sizeof err) == SCL_OK, "%s", err);
    test_solver t;
    if (ts_create(&t, ctx, &m, kind) != 0) {
        scl_fdtd_model_free(&m);
        return;
    }
    random_fields(&t, &m, 0);
    long steps = 16000;
    scl_receivers rx;
    scl_receivers_create(&rx, 1, 6, steps, err, sizeof err);
    ts_run(&t, steps, &rx);
    /* the three lowest modes with at most one zero index */
    double w[128], wc[128];
    int nm = 0;
    for (int a = 0; a <= 3; a++)
        for (int b = 0; b <= 3; b++)
            for (int c = 0; c <= 3; c++) {
                if ((a == 0) + (b == 0) + (c == 0) > 1)
                    continue;
                int q[3] = {a, b, c};
                double s = 0, sc = 0;
                for (int x = 0; x < 3; x++) {
                    double v = sin(q[x] * M_PI / (2 * N[x])) / d[x];
                    s += v * v;
                    sc += pow(q[x] * M_PI / (N[x] * d[x]), 2);
                }
                w[nm] = 2 * asin(SCL_FDTD_C0 * m.dt * sqrt(s)); /* radians per step */
                wc[nm] = SCL_FDTD_C0 * sqrt(sc) * m.dt;
                nm++;
            }
    for (int i = 0; i < nm; i++) /* sort ascending */
        for (int j = i + 1; j < nm; j++)
            if (w[j] < w[i]) {
                double tmp = w[i]; w[i] = w[j]; w[j] = tmp;
                tmp = wc[i]; wc[i] = wc[j]; wc[j] = tmp;
            }
    /* each mode shows in at least one E component at the receiver */
    const double *es[3] = {scl_receivers_series(&rx, 0, SCL_EX), scl_receivers_series(&rx, 0, SCL_EY),
                           scl_receivers_series(&rx, 0, SCL_EZ)};
    double bin = 2 * M_PI / steps;
    int checked = 0;
    for (int i = 0; i < nm && checked < 3; i++) {
        /* a mode must stand 12 bins clear of the others (degenerate pairs are one frequency) */
        int clear = 1;
        for (int j = 0; j < nm; j++)
            if (j != i && fabs(w[j] - w[i]) > 1e-12 && fabs(w[j] - w[i]) < 12 * bin)
                clear = 0;
        if (!clear || (i > 0 && w[i] - w[i - 1] < 1e-12))
            continue;
        const double *x = es[0];
        for (int c = 1; c < 3; c++)
            if (dtft_mag(es[c], steps, w[i]) > dtft_mag(x, steps, w[i]))
                x = es[c];
        double got = peak(x, steps, w[i] - 3 * bin, w[i] + 3 * bin);
        double rel = fabs(got - w[i]) / w[i], relc = fabs(got - wc[i]) / wc[i];
        CHECK(rel <= 1e-4 && isfinite(got), "%s cavity mode %d: %.9f vs discrete %.9f (rel %.2e)",
              t.label, i, got, w[i], rel);
        CHECK(relc > 10 * rel, "%s: continuous dispersion %.9f should be farther (rel %.2e)", t.label,
              wc[i], relc);
        printf("%s cavity mode %d: measured %.9f rad/step, discrete %.9f (rel %.1e), continuous rel %.1e\n",
               t.label, i, got, w[i], rel, relc);
        checked++;
    }
    scl_receivers_free(&rx);
    ts_free(&t);
    scl_fdtd_model_free(&m);
}

static double energy(const scl_fdtd_model *m, double **E, double **H0, double **H1, const double *cb,
                     const double *db)
{
    const scl_grid3d *g = &m->grid;
    double w = 0;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k <= g->nz; k++)
            for (int j = 0; j <= g->ny; j++)
                for (int i = 0; i <= g->nx; i++) {
                    long o = scl_grid3d_index(g, i, j, k);
                    int q = m->id[c][o], r = m->id[3 + c][o];
                    /* eps = dt / cb and mu = dt / db for lossless materials */
                    if (cb[q] > 0)
                        w += E[c][o] * E[c][o] / cb[q];
                    w += H0[c][o] * H1[c][o] / db[r];
                }
    return w;
}

static void test_energy(scl_context *ctx, int kind)
{
    char err[512];
    scl_fdtd_model m;
    CHECK(scl_fdtd_model_init(&m, 11, 8, 6, 1e-3, 1e-3, 1.2e-3, 0.99, err, sizeof err) == SCL_OK, "%s", err);
    int mat = scl_fdtd_add_material(&m, "glass", 1 + 5 * test_uniform(&rng), 0, 1 + test_uniform(&rng), 0, err, sizeof err);
    int lo[3] = {2, 2, 1}, hi[3] = {7, 5, 4};
    scl_fdtd_fill_box(&m, lo, hi, mat, 1);
    CHECK(scl_fdtd_model_finish(&m, err, sizeof err) == SCL_OK, "%s", err);
    test_solver t;
    if (ts_create(&t, ctx, &m, kind) != 0) {
        scl_fdtd_model_free(&m);
        return;
    }
    random_fields(&t, &m, 1);
    long pts = scl_grid3d_points(&m.grid);
    double *E[3], *H0[3], *H1[3];
    for (int c = 0; c < 3; c++) {
        E[c] = malloc(pts * sizeof(double));
        H0[c] = malloc(pts * sizeof(double));
        H1[c] = malloc(pts * sizeof(double));
    }
    double *co = malloc(4 * m.nmat * sizeof(double));
    scl_fdtd_coefficients(&m, co, co + m.nmat, co + 2 * m.nmat, co + 3 * m.nmat);
    double w0 = 0, worst = 0;
    long marks[] = {1, 2500, 5000, 7500, 10000};
    long done = 0;
    for (int q = 0; q < 5; q++) {
        ts_run(&t, marks[q] - done, NULL);
        for (int c = 0; c < 3; c++) {
            ts_get(&t, c, E[c]);
            ts_get(&t, 3 + c, H0[c]);
        }
        ts_run(&t, 1, NULL);
        for (int c = 0; c < 3; c++)
            ts_get(&t, 3 + c, H1[c]);
        done = marks[q] + 1;
        double w = energy(&m, E, H0, H1, co + m.nmat, co + 3 * m.nmat);
        if (q == 0)
            w0 = w;
        else
            worst = test_max(worst, fabs(w - w0) / w0);
    }
    double tol = (kind == 0 || kind == 3 || kind == 5) ? 1e-10 : 1e-4;
    CHECK(worst <= tol && w0 > 0, "%s energy drift %.3e > %.0e", t.label, worst, tol);
    printf("%s energy drift over 10^4 steps: %.3e (tolerance %.0e)\n", t.label, worst, tol);
    for (int c = 0; c < 3; c++) {
        free(E[c]);
        free(H0[c]);
        free(H1[c]);
    }
    free(co);
    ts_free(&t);
    scl_fdtd_model_free(&m);
}

/* Finish m, run it on solver kind for steps, Ez of receiver 0 into out; frees m. */
static void run_ez(scl_context *ctx, int kind, scl_fdtd_model *m, long steps, double *out)
{
    char err[512];
    CHECK(scl_fdtd_model_finish(m, err, sizeof err) == SCL_OK, "%s", err);
    test_solver t;
    if (ts_create(&t, ctx, m, kind) == 0) {
        scl_receivers rx;
        scl_receivers_create(&rx, 1, 6, steps, err, sizeof err);
        ts_run(&t, steps, &rx);
        memcpy(out, scl_receivers_series(&rx, 0, SCL_EZ), steps * sizeof(double));
        scl_receivers_free(&rx);
        ts_free(&t);
    }
    scl_fdtd_model_free(m);
}

/* A dipole at the centre of an n^3 box, receiver `ahead` cells along +x. */
static void dipole_run(scl_context *ctx, int kind, int n, int pml, int ahead, long steps, double *out)
{
    char err[512];
    scl_fdtd_model m;
    scl_fdtd_model_init(&m, n, n, n, 1e-3, 1e-3, 1e-3, 1.0, err, sizeof err);
    for (int f = 0; f < 6; f++)
        m.pml[f] = pml;
    m.nwave = 1;
    m.wave = calloc(1, sizeof *m.wave);
    m.wave[0].w = (scl_wavelet){SCL_WAVE_GAUSSIANDOT, 1, SCL_FDTD_C0 / 15e-3, 0, 0};
    m.nsrc = 1;
    m.src = calloc(1, sizeof *m.src);
    m.src[0] = (scl_fdtd_source){SCL_FDTD_HERTZIAN, 2, {n / 2, n / 2, n / 2}, {0, 0, 0}, 0, 0, -1, 0};
    m.nrx = 1;
    m.rx_ijk = calloc(1, sizeof *m.rx_ijk);
    m.rx_ijk[0][0] = n / 2 + ahead, m.rx_ijk[0][1] = n / 2, m.rx_ijk[0][2] = n / 2;
    run_ez(ctx, kind, &m, steps, out);
}

static void test_cpml(scl_context *ctx, int kind)
{
    long steps = 100;
    double a[100], b[100];
    /* 36^3 with 10 CPML cells: the receiver is 3 cells before the x face;
     * 64^3 PEC box: its walls echo back after (2*32-5)*sqrt(3) > 100 steps */
    dipole_run(ctx, kind, 36, 10, 5, steps, a);
    dipole_run(ctx, 0, 64, 0, 5, steps, b);
    double diff = 0, ref = 0;
    for (long n = 0; n < steps; n++) {
        diff = test_max(diff, fabs(a[n] - b[n]));
        ref = test_max(ref, fabs(b[n]));
    }
    double db = 20 * log10(diff / ref);
    CHECK(db <= -40 && ref > 0 && isfinite(db), "CPML reflection %.1f dB", db);
    printf("%s CPML (10 cells) reflection: %.1f dB\n", label_of(kind), db);
}

/* 1D plane wave: periodic 1x1 cross-section, CPML on the x ends. */
static void slab_run(scl_context *ctx, int kind, int slab, long steps, double *out)
{
    char err[512];
    scl_fdtd_model m;
    int nx = 640;
    scl_fdtd_model_init(&m, nx, 1, 1, 1e-3, 1e-3, 1e-3, 1.0, err, sizeof err);
    m.periodic[1] = m.periodic[2] = 1;
    m.pml[0] = m.pml[3] = 20;
    if (slab) {
        int mat = scl_fdtd_add_material(&m, "slab", 4, 0, 1, 0, err, sizeof err);
        int lo[3] = {300, 0, 0}, hi[3] = {340, 1, 1};
        scl_fdtd_fill_box(&m, lo, hi, mat, 1);
    }
    m.nwave = 1;
    m.wave = calloc(1, sizeof *m.wave);
    m.wave[0].w = (scl_wavelet){SCL_WAVE_GAUSSIAN, 1, 3.75e9, 0, 0};
    m.nsrc = 1;
    m.src = calloc(1, sizeof *m.src);
    m.src[0] = (scl_fdtd_source){SCL_FDTD_HERTZIAN, 2, {100, 0, 0}, {0, 0, 0}, 0, 0, -1, 0};
    m.nrx = 1;
    m.rx_ijk = calloc(1, sizeof *m.rx_ijk);
    m.rx_ijk[0][0] = 450;
    run_ez(ctx, kind, &m, steps, out);
}

static void test_fresnel(scl_context *ctx, int kind)
{
    long steps = 5000;
    double *inc = calloc(steps, sizeof(double)), *tr = calloc(steps, sizeof(double));
    slab_run(ctx, kind, 0, steps, inc);
    slab_run(ctx, kind, 1, steps, tr);
    double dt = 1e-3 / (SCL_FDTD_C0 * sqrt(3.0)), nidx = 2, L = 40e-3;
    double worst = 0;
    for (double f = 1e9; f <= 4.5e9; f += 0.5e9) {
        double complex a = 0, b = 0;
        for (long n = 0; n < steps; n++) {
            double complex e = cexp(-2 * M_PI * I * f * n * dt);
            a += inc[n] * e;
            b += tr[n] * e;
        }
        double got = cabs(b) / cabs(a);
        double delta = 2 * M_PI * f / SCL_FDTD_C0 * nidx * L;
        double r = (1 - nidx) / (1 + nidx), F = 4 * r * r / pow(1 - r * r, 2);
        double want = 1 / sqrt(1 + F * pow(sin(delta), 2));
        worst = test_max(worst, fabs(got - want) / want);
        if (!isfinite(got))
            worst = INFINITY;
    }
    CHECK(worst <= 0.01, "slab |T| worst rel error %.3e", worst);
    printf("%s Fresnel slab (n=2, 40 cells): worst |T| error %.2e over 1-4.5 GHz\n",
           label_of(kind), worst);
    free(inc);
    free(tr);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed();
    rng = seed;
    scl_context *ctx = NULL;
    if (!(argc > 1 && strcmp(argv[1], "--host-only") == 0)) {
        ctx = test_context();
        nkinds = 4;
        kinds[1] = 2;
        kinds[2] = 3;
        kinds[3] = 4;
    }
    for (int q = 0; q < nkinds; q++) {
        test_cavity(ctx, kinds[q]);
        test_energy(ctx, kinds[q]);
    }
    for (int q = 0; q < nkinds; q++)
        if (kinds[q] != 3)
            test_cpml(ctx, kinds[q]);
    for (int q = 0; q < nkinds && q < 2; q++) /* periodic: separate kernels only */
        test_fresnel(ctx, kinds[q]);
    if (ctx)
        scl_context_free(ctx);
    return test_summary("fdtd_physics");
}
