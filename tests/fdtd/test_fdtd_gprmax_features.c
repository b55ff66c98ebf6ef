/* The gprMax features that need no gprMax to test (fdtd_gprmax_models
 * checks them against gprMax itself):
 *  - dispersive materials (Debye, Lorentz, Drude poles side by side, 3D,
 *    CPML on every face): the OpenCL solver (fp32, and fp64 where the device
 *    has it) against the double C reference, every receiver sample within
 *    1e-4 (fp32) / 1e-10 (fp64) of the receivers' peak; the poles change
 *    the signals (by more than 1% of the peak), so the comparison sees them;
 *    the fused kernel refuses poles
 *  - B-scans: trace t of one solver restarted between traces (scl_fdtd_restart
 *    after scl_fdtd_model_trace) equals, bit for bit, a fresh solver on the
 *    model read with the source and receiver moved by hand; a move out of
 *    the domain is refused naming the trace
 *  - 2D TM models: a one-cell-thick domain gets the 2D Courant step and no
 *    PML across it; the same model with inf and #domain_mode: TM is the same
 *    model; TE and two thin axes are refused. */
#include "fdtd_test_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *write_model(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

static int read_model(const char *name, const char *text, scl_fdtd_model *m)
{
    char err[1024];
    const char *path = write_model(name, text);
    scl_status s = scl_fdtd_read_input(path, m, err, sizeof err);
    CHECK(s == SCL_OK, "%s: %s", name, err);
    remove(path);
    return s == SCL_OK ? 0 : -1;
}

static const char *dispersive =
    "#domain: 0.040 0.036 0.032\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 160\n"
    "#pml_cells: 5\n"
    "#material: 4 0.001 1 0 debye\n#add_dispersion_debye: 2 6 3e-10 2 1e-11 debye\n"
    "#material: 3 0 1 0 lorentz\n#add_dispersion_lorentz: 1 3 2e10 5e9 lorentz\n"
    "#material: 2 0 1 0 drude\n#add_dispersion_drude: 1 3e9 2e9 drude\n"
    "#waveform: gaussiandot 1 1e10 w\n#hertzian_dipole: z 0.020 0.018 0.020 w\n"
    "#rx: 0.024 0.018 0.020\n#rx: 0.020 0.018 0.012\n#rx: 0.014 0.012 0.010\n"
    "#box: 0 0 0 0.040 0.036 0.016 debye\n#box: 0.010 0.008 0.006 0.030 0.028 0.014 lorentz\n"
    "#sphere: 0.014 0.012 0.010 0.004 drude\n";

/* max |a - b| / max |b| over all receiver samples */
static double rx_diff(const scl_receivers *a, const scl_receivers *b)
{
    double d = 0, peak = 0;
    for (long i = 0; i < (long)b->n * b->ncomp * b->nt; i++) {
        double x = fabs(a->data[i] - b->data[i]);
        d = x > d || x != x ? x : d;
        peak = fabs(b->data[i]) > peak ? fabs(b->data[i]) : peak;
    }
    return peak > 0 ? d / peak : INFINITY;
}

static void dispersion(scl_context *ctx)
{
    scl_fdtd_model m, plain;
    if (read_model("disp.in", dispersive, &m) || read_model("plain.in", dispersive, &plain))
        return;
    for (int q = 0; q < plain.nmat; q++) /* the same model without its poles */
        plain.mat[q].npoles = 0, plain.mat[q].pole_se = 0;
    char err[256];
    long nt = m.iterations;
    scl_receivers ref, got, nop;
    scl_receivers_create(&ref, m.nrx, 6, nt, err, sizeof err);
    scl_receivers_create(&got, m.nrx, 6, nt, err, sizeof err);
    scl_receivers_create(&nop, m.nrx, 6, nt, err, sizeof err);
    test_solver t;
    ts_create(&t, ctx, &m, 0);
    ts_run(&t, nt, &ref);
    ts_free(&t);
    ts_create(&t, ctx, &plain, 0);
    ts_run(&t, nt, &nop);
    ts_free(&t);
    double dp = rx_diff(&nop, &ref);
    CHECK(dp > 1e-2, "the poles change the receivers by %.3e of the peak (want > 1e-2)", dp);
    static const double tol[4] = {0, 1e-4, 1e-4, 1e-10};
    for (int kind = 1; kind <= 3; kind++) {
        if (ts_create(&t, ctx, &m, kind) != 0)
            continue;
        ts_run(&t, nt, &got);
        double d = rx_diff(&got, &ref);
        CHECK(d <= tol[kind], "%s, Debye + Lorentz + Drude, CPML: receivers %.3e of the peak off the reference (tolerance %g)",
              t.label, d, tol[kind]);
        ts_free(&t);
    }
    scl_fdtd *f = NULL;
    scl_fdtd_options o = {.kernel = SCL_FDTD_FUSED, .no_tune = 1};
    scl_status s = scl_fdtd_create(ctx, &m, &o, &f);
    CHECK(s == SCL_ERR_UNSUPPORTED && strstr(scl_last_error(ctx), "dispersive"),
          "the fused kernel refuses poles: status %d, '%s'", (int)s, scl_last_error(ctx));
    scl_clear_error(ctx);
    scl_fdtd_free(f);
    scl_receivers_free(&ref);
    scl_receivers_free(&got);
    scl_receivers_free(&nop);
    scl_fdtd_model_free(&m);
    scl_fdtd_model_free(&plain);
}

static const char *bscan =
    "#domain: 0.080 0.060 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 200\n"
    "#material: 5 0.002 1 0 soil\n#waveform: ricker 1 8e9 w\n"
    "#hertzian_dipole: z 0.030 0.040 0 w\n#rx: 0.036 0.040 0\n"
    "#src_steps: 0.004 0 0\n#rx_steps: 0.004 0 0\n"
    "#box: 0 0 0 0.080 0.032 0.002 soil\n#cylinder: 0.044 0.022 0 0.044 0.022 0.002 0.004 pec\n";

static void bscan_restart(scl_context *ctx)
{
    scl_fdtd_model m;
    if (read_model("bscan.in", bscan, &m))
        return;
    CHECK(m.src_step[0] == 2 && m.rx_step[0] == 2 && m.mode2d == 3,
          "#src_steps/#rx_steps in cells %d %d, 2D mode %d", m.src_step[0], m.rx_step[0], m.mode2d);
    char err[512];
    long nt = m.iterations;
    scl_fdtd *f = NULL;
    scl_fdtd_options o = {.no_tune = 1};
    CHECK_OK(ctx, scl_fdtd_create(ctx, &m, &o, &f));
    if (!f) {
        scl_fdtd_model_free(&m);
        return;
    }
    for (int tr = 0; tr < 3; tr++) {
        CHECK(scl_fdtd_model_trace(&m, tr, err, sizeof err) == SCL_OK, "trace %d: %s", tr, err);
        if (tr > 0)
            CHECK_OK(ctx, scl_fdtd_restart(f));
        scl_receivers a, b;
        scl_receivers_create(&a, m.nrx, 6, nt, err, sizeof err);
        scl_receivers_create(&b, m.nrx, 6, nt, err, sizeof err);
        CHECK_OK(ctx, scl_fdtd_run(f, nt));
        CHECK_OK(ctx, scl_fdtd_read_receivers(f, &a));
        /* the same trace from a model written with the positions moved */
        char text[2048], src[96], rx[96];
        snprintf(src, sizeof src, "#hertzian_dipole: z %.3f 0.040 0 w", 0.030 + 0.004 * tr);
        snprintf(rx, sizeof rx, "#rx: %.3f 0.040 0", 0.036 + 0.004 * tr);
        snprintf(text, sizeof text,
                 "#domain: 0.080 0.060 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 200\n"
                 "#material: 5 0.002 1 0 soil\n#waveform: ricker 1 8e9 w\n%s\n%s\n"
                 "#box: 0 0 0 0.080 0.032 0.002 soil\n"
                 "#cylinder: 0.044 0.022 0 0.044 0.022 0.002 0.004 pec\n", src, rx);
        scl_fdtd_model moved;
        if (read_model("moved.in", text, &moved) == 0) {
            scl_fdtd *g = NULL;
            CHECK_OK(ctx, scl_fdtd_create(ctx, &moved, &o, &g));
            if (g) {
                CHECK_OK(ctx, scl_fdtd_run(g, nt));
                CHECK_OK(ctx, scl_fdtd_read_receivers(g, &b));
                double d = rx_diff(&a, &b);
                CHECK(d == 0, "trace %d after restart vs a fresh solver on the moved model: %.3e of the peak",
                      tr + 1, d);
            }
            scl_fdtd_free(g);
            scl_fdtd_model_free(&moved);
        }
        scl_receivers_free(&a);
        scl_receivers_free(&b);
    }
    scl_status s = scl_fdtd_model_trace(&m, 40, err, sizeof err);
    CHECK(s != SCL_OK && strstr(err, "trace 41") && strstr(err, "outside"),
          "a trace out of the domain is refused: '%s'", err);
    scl_fdtd_free(f);
    scl_fdtd_model_free(&m);
}

static void two_d(void)
{
    scl_fdtd_model thin, inf;
    const char *a = "#domain: 0.060 0.050 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n"
                    "#waveform: ricker 1 5e9 w\n#hertzian_dipole: z 0.030 0.030 0 w\n#rx: 0.034 0.030 0\n"
                    "#box: 0 0 0 0.060 0.020 0.002 pec\n";
    const char *b = "#domain_mode: TM\n#domain: 0.060 0.050 inf\n#dx_dy_dz: 0.002 0.002 0.002\n"
                    "#time_window: 1e-9\n#waveform: ricker 1 5e9 w\n#hertzian_dipole: z 0.030 0.030 inf w\n"
                    "#rx: 0.034 0.030 inf\n#box: 0 0 -inf 0.060 0.020 inf pec\n";
    if (read_model("thin.in", a, &thin) || read_model("inf.in", b, &inf))
        return;
    double dt2 = 1 / (SCL_FDTD_C0 * sqrt(2 / (0.002 * 0.002)));
    CHECK(thin.mode2d == 3 && fabs(thin.dt - dt2) <= 1e-15 * dt2 && thin.pml[2] == 0 &&
              thin.pml[5] == 0 && thin.pml[0] == 10,
          "one cell thick: mode %d, dt %.6e (2D %.6e), PML z %d %d, x %d", thin.mode2d, thin.dt, dt2,
          thin.pml[2], thin.pml[5], thin.pml[0]);
    int same = inf.mode2d == 3 && inf.dt == thin.dt && inf.iterations == thin.iterations &&
               inf.src[0].ijk[2] == 0 && inf.rx_ijk[0][2] == 0 && inf.grid.nz == 1;
    for (int c = 0; c < 6 && same; c++)
        same = memcmp(inf.id[c], thin.id[c], (size_t)scl_grid3d_points(&thin.grid)) == 0;
    CHECK(same, "#domain_mode: TM with inf builds the one-cell-thick model");
    scl_fdtd_model_free(&thin);
    scl_fdtd_model_free(&inf);
    static const char *refused[][2] = {
        {"#domain_mode: TE\n#domain: 0.04 0.03 0.03\n", "needs 'inf'"},
        {"#domain: 0.04 0.002 0.002\n", "more than one axis"},
        {"#domain_mode: 3D\n#domain: 0.04 0.03 inf\n", "needs #domain_mode: TM"},
        {"#domain: 0.04 0.03 0.03\n#rx: 0.01 0.01 inf\n", "2D models only"},
    };
    for (int q = 0; q < 4; q++) {
        char text[512], err[1024];
        snprintf(text, sizeof text, "%s#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n", refused[q][0]);
        const char *path = write_model("refused.in", text);
        scl_fdtd_model m;
        scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
        CHECK(s != SCL_OK && strstr(err, refused[q][1]) && strstr(err, "refused.in:"),
              "refused (%s): '%s'", refused[q][1], s == SCL_OK ? "accepted" : err);
        if (s == SCL_OK)
            scl_fdtd_model_free(&m);
        remove(path);
    }
}

int main(void)
{
    scl_context *ctx = test_context();
    two_d();
    dispersion(ctx);
    bscan_restart(ctx);
    scl_context_free(ctx);
    return test_summary("fdtd_gprmax_features");
}
