/* The OpenCL solver against the C reference on random models: awkward grid
 * sizes, random lossy materials in random boxes (averaged and not), PEC,
 * uneven CPML per face, Hertzian dipoles, hard and resistive voltage
 * sources, receivers; one case periodic in y. After 60 steps every field
 * component and every receiver sample agrees with the double reference:
 * fp64 within 1e-11 of the field's maximum (rounding order and FMA
 * contraction only), fp32 within 1e-4; separate and fused kernels. */
#include "fdtd_test_solver.h"

static uint64_t rng;

static int uniform_int(int lo, int hi) { return lo + (int)(test_uniform(&rng) * (hi - lo + 1)); }

static void random_model(scl_fdtd_model *m, int periodic)
{
    char err[512];
    int n[3] = {uniform_int(13, 23), uniform_int(9, 17), uniform_int(7, 13)};
    if (periodic)
        n[1] = uniform_int(1, 4);
    scl_fdtd_model_init(m, n[0], n[1], n[2], 1e-3 * (1 + test_uniform(&rng)), 1e-3, 1.3e-3, 0.9 + 0.1 * test_uniform(&rng), err, sizeof err);
    m->periodic[1] = periodic;
    for (int f = 0; f < 6; f++)
        m->pml[f] = (periodic && f % 3 == 1) ? 0 : uniform_int(0, 4);
    /* the resistive source (source 2) is placed first: the PEC box (q == 3)
     * stays clear of it in x (a resistor inside PEC is refused by design) */
    int rsrc[3];
    for (int a = 0; a < 3; a++)
        rsrc[a] = uniform_int(1, n[a] > 1 ? n[a] - 1 : 0);
    for (int q = 0; q < 4; q++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", q);
        int id = scl_fdtd_add_material(m, name, 1 + 8 * test_uniform(&rng), 0.05 * test_uniform(&rng),
                                       1 + test_uniform(&rng), 100 * test_uniform(&rng), err, sizeof err);
        int lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = uniform_int(0, n[a] - 1);
            hi[a] = uniform_int(lo[a] + 1, n[a]);
        }
        if (q == 3 && rsrc[0] >= 2) { /* PEC in x < rsrc - 1 */
            lo[0] = uniform_int(0, rsrc[0] - 2);
            hi[0] = uniform_int(lo[0] + 1, rsrc[0] - 1);
        } else if (q == 3) { /* PEC in x > rsrc + 1 */
            lo[0] = uniform_int(rsrc[0] + 2, n[0] - 1);
            hi[0] = uniform_int(lo[0] + 1, n[0]);
        }
        scl_fdtd_fill_box(m, lo, hi, q == 3 ? 0 : id, q != 2);
    }
    m->nwave = 2;
    m->wave = calloc(2, sizeof *m->wave);
    m->wave[0].w = (scl_wavelet){SCL_WAVE_RICKER, 1, 4e10, 0, 0};
    m->wave[1].w = (scl_wavelet){SCL_WAVE_GAUSSIANDOTNORM, 2, 6e10, 0, 0};
    m->nsrc = 3;
    m->src = calloc(3, sizeof *m->src);
    for (int s = 0; s < 3; s++) {
        scl_fdtd_source *src = &m->src[s];
        src->kind = s == 0 ? SCL_FDTD_HERTZIAN : SCL_FDTD_VOLTAGE;
        src->resistance = s == 2 ? 50 : 0;
        src->pol = uniform_int(0, 2);
        src->wave = s & 1;
        src->stop = -1;
        for (int a = 0; a < 3; a++)
            src->ijk[a] = s == 2 ? rsrc[a] : uniform_int(1, n[a] > 1 ? n[a] - 1 : 0);
        if (periodic)
            src->ijk[1] = 0;
    }
    m->nrx = 2;
    m->rx_ijk = calloc(2, sizeof *m->rx_ijk);
    m->rx_name = calloc(2, sizeof *m->rx_name);
    for (int r = 0; r < 2; r++)
        for (int a = 0; a < 3; a++)
            m->rx_ijk[r][a] = uniform_int(0, n[a]);
    CHECK(scl_fdtd_model_finish(m, err, sizeof err) == SCL_OK, "%s", err);
}

static void compare(scl_context *ctx, int periodic)
{
    scl_fdtd_model m;
    random_model(&m, periodic);
    long steps = 60, pts = scl_grid3d_points(&m.grid);
    test_solver ref, dev[4];
    ts_create(&ref, ctx, &m, 0);
    scl_receivers rref, rdev;
    char err[256];
    scl_receivers_create(&rref, 2, 6, steps, err, sizeof err);
    scl_receivers_create(&rdev, 2, 6, steps, err, sizeof err);
    ts_run(&ref, steps, &rref);
    double *a = malloc(pts * sizeof(double)), *b = malloc(pts * sizeof(double));
    for (int kind = 2; kind <= (periodic ? 3 : 5); kind++) { /* fused needs a PEC box */
        test_solver *t = &dev[kind - 2];
        if (ts_create(t, ctx, &m, kind) != 0)
            continue;
        ts_run(t, steps, &rdev);
        double tol = (kind & 1) ? 1e-11 : 1e-4, worst = 0, largest = 0;
        for (int c = 0; c < 6; c++) {
            ts_get(&ref, c, a);
            ts_get(t, c, b);
            double mx = 0, d = 0;
            for (long i = 0; i < pts; i++) {
                mx = fmax(mx, fabs(a[i]));
                d = fmax(d, fabs(a[i] - b[i]));
                if (!isfinite(b[i]))
                    d = INFINITY;
            }
            double rel = mx > 0 ? d / mx : d;
            worst = fmax(worst, rel);
            largest = fmax(largest, mx);
            /* a component may vanish in the reference (periodic y with ny = 1: no
             * Ey, Hx, Hz); then the device must give exact zeros too */
            CHECK(rel <= tol && (mx > 0 || d == 0), "%s%s component %d: rel diff %.3e (max %.3e)", t->label,
                  periodic ? " periodic" : "", c, rel, mx);
        }
        CHECK(largest > 0, "%s: every field is zero (nothing was excited)", t->label);
        double mx = 0, d = 0;
        for (long i = 0; i < 2 * 6 * steps; i++) {
            mx = fmax(mx, fabs(rref.data[i]));
            d = fmax(d, fabs(rref.data[i] - rdev.data[i]));
        }
        CHECK(d <= tol * mx * 10 && isfinite(d), "%s receivers: diff %.3e of %.3e", t->label, d, mx);
        printf("%s%s vs reference (%dx%dx%d, %d materials): worst field diff %.2e, receivers %.2e\n",
               t->label, periodic ? " periodic-y" : "", m.grid.nx, m.grid.ny, m.grid.nz, m.nmat,
               worst, mx > 0 ? d / mx : d);
        ts_free(t);
    }
    free(a);
    free(b);
    scl_receivers_free(&rref);
    scl_receivers_free(&rdev);
    ts_free(&ref);
    scl_fdtd_model_free(&m);
}

int main(void)
{
    rng = test_seed();
    scl_context *ctx = test_context();
    compare(ctx, 0);
    compare(ctx, 0);
    compare(ctx, 1);
    scl_context_free(ctx);
    return test_summary("fdtd_vs_reference");
}
