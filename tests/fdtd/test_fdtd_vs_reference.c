/* The OpenCL solver against the C reference on random models: awkward grid
 * sizes, random lossy materials in random boxes (averaged and not), PEC,
 * uneven CPML per face, Hertzian dipoles, hard and resistive voltage
 * sources, receivers; one case periodic in y; one case with CPML on all six
 * faces, six different thicknesses (the fused kernel's inline CPML meets
 * every slab, edge and corner, and slabs of different planes counts). After
 * 60 steps every field component and every receiver sample agrees with the
 * double reference: fp64 within 1e-11 of the field's (E's or H's) maximum
 * (rounding order and FMA contraction only), fp32 within 1e-4; separate kernels, the fused
 * kernel with its CPML inline and (forced) as slab passes. */
#include "fdtd_test_solver.h"

#define NVARIANTS 6 /* the fused step's CPML schemes, plan values cpml=0..5 */

static uint64_t rng;

static int uniform_int(int lo, int hi) { return lo + (int)(test_uniform(&rng) * (hi - lo + 1)); }

/* all_faces: CPML of thicknesses 1..6 in random order on the six faces;
 * 2: also a long x axis, 96 or 97 cells with 6 at its high end, and y, z
 * long enough for inner rows and walks (work-groups of 32 x 2 x 4 planes:
 * the middle ones away from the slabs, the high x slab over two groups:
 * every part of the fused kernel's edge list) */
static void random_model(scl_fdtd_model *m, int periodic, int all_faces)
{
    char err[512];
    int n[3] = {uniform_int(13, 23), uniform_int(9, 17), uniform_int(7, 13)};
    if (periodic)
        n[1] = uniform_int(1, 4);
    if (all_faces)
        for (int a = 0; a < 3; a++)
            n[a] = uniform_int(14, 21);
    if (all_faces == 2) { /* inner y rows and z walks too */
        n[0] = uniform_int(96, 97);
        n[1] = uniform_int(20, 24);
        n[2] = uniform_int(26, 30);
    }
    scl_fdtd_model_init(m, n[0], n[1], n[2], 1e-3 * (1 + test_uniform(&rng)), 1e-3, 1.3e-3, 0.9 + 0.1 * test_uniform(&rng), err, sizeof err);
    m->periodic[1] = periodic;
    int perm[6] = {1, 2, 3, 4, 5, 6};
    for (int f = 5; f > 0; f--) {
        int g = uniform_int(0, f), x = perm[f];
        perm[f] = perm[g];
        perm[g] = x;
    }
    for (int f = 0; f < 6 && all_faces == 2; f++)
        if (perm[f] == 6) { /* 6 cells at the high x face */
            perm[f] = perm[3];
            perm[3] = 6;
        }
    for (int f = 0; f < 6; f++) {
        m->pml[f] = all_faces ? perm[f] : (periodic && f % 3 == 1) ? 0 : uniform_int(0, 4);
        if (f >= 3 && m->pml[f - 3] + m->pml[f] >= n[f - 3]) /* one interior cell at least */
            m->pml[f] = n[f - 3] - 1 - m->pml[f - 3];
    }
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

static void compare(scl_context *ctx, int periodic, int all_faces)
{
    scl_fdtd_model m;
    random_model(&m, periodic, all_faces);
    long steps = 60, pts = scl_grid3d_points(&m.grid);
    test_solver ref, dev[14];
    ts_create(&ref, ctx, &m, 0);
    /* the long-x case starts from random fields everywhere: a point that no
     * work-group updates keeps a stale value even where no wave arrives */
    double *init = NULL;
    if (all_faces == 2) {
        init = malloc(6 * pts * sizeof(double));
        for (long i = 0; i < 6 * pts; i++)
            init[i] = 2 * test_uniform(&rng) - 1;
        for (int c = 0; c < 6; c++)
            ts_set(&ref, c, init + c * pts);
    }
    scl_receivers rref, rdev;
    char err[256];
    scl_receivers_create(&rref, 2, 6, steps, err, sizeof err);
    scl_receivers_create(&rdev, 2, 6, steps, err, sizeof err);
    ts_run(&ref, steps, &rref);
    double *a = malloc(pts * sizeof(double)), *b = malloc(pts * sizeof(double));
    /* runs 2, 3: separate fp32/fp64; fused: 4, 5 CPML inline with the edge
     * walks apart (the default), 6, 7 slab passes, 8, 9 inline in one kernel,
     * 10, 11 shell corrections (every slab cell of the six faces, corners
     * with two or three axes' terms, one work-item each), 12, 13 the x slabs
     * inline and the shell over the y and z slabs (x slab cells of the y/z
     * shell: H's x terms from the fused pass, E's from the shell), 14, 15 the
     * same with the x edge walks apart (work-groups 32 wide: the high x slab
     * over two groups).
     * Fused with walks of 4 planes or 1 (walks start inside the z slabs: a
     * walk's first plane recomputes the corrected H below it) and work-groups
     * of 32 x 2 (edge lists along x and y of a few groups) */
    static const char *force[16] = {NULL, NULL, NULL, NULL, "kz=4,lx=32,ly=2", "kz=4,lx=32,ly=2",
                                    "cpml=0,kz=1", "cpml=0,kz=1", "cpml=2,kz=4", "cpml=2,kz=4",
                                    "cpml=3,kz=4", "cpml=3,kz=4", "cpml=4,kz=4,lx=32,ly=2",
                                    "cpml=4,kz=4,lx=32,ly=2", "cpml=5,kz=4,lx=32,ly=2",
                                    "cpml=5,kz=4,lx=32,ly=2"};
    static const char *variant[16] = {"", "", "", "", "", "", " slab passes", " slab passes",
                                      " one kernel", " one kernel", " shell", " shell",
                                      " x inline + y/z shell", " x inline + y/z shell",
                                      " x edge walks + y/z shell", " x edge walks + y/z shell"};
    for (int run = 2; run <= (periodic ? 3 : 15); run++) { /* fused needs a PEC box */
        int kind = run > 5 ? 4 + (run & 1) : run;
        test_solver *t = &dev[run - 2];
        if (ts_create_forced(t, ctx, &m, kind, force[run]) != 0)
            continue;
        for (int c = 0; c < 6 && init; c++)
            ts_set(t, c, init + c * pts);
        ts_run(t, steps, &rdev);
        double tol = (kind & 1) ? 1e-11 : 1e-4, worst = 0, largest = 0;
        double cmx[6], cd[6];
        for (int c = 0; c < 6; c++) {
            ts_get(&ref, c, a);
            ts_get(t, c, b);
            cmx[c] = cd[c] = 0;
            for (long i = 0; i < pts; i++) {
                cmx[c] = test_max(cmx[c], fabs(a[i]));
                cd[c] = test_max(cd[c], fabs(a[i] - b[i]));
                if (!isfinite(b[i]))
                    cd[c] = INFINITY;
            }
        }
        for (int c = 0; c < 6; c++) {
            /* relative to the largest component of the same field (E or H): a
             * weakly excited component carries the rounding of the strong ones */
            int f0 = c < 3 ? 0 : 3;
            double mx = test_max(cmx[f0], test_max(cmx[f0 + 1], cmx[f0 + 2])), d = cd[c];
            double rel = mx > 0 ? d / mx : d;
            worst = test_max(worst, rel);
            largest = test_max(largest, mx);
            /* a component may vanish in the reference (periodic y with ny = 1: no
             * Ey, Hx, Hz); then the device must give exact zeros too */
            CHECK(rel <= tol && (cmx[c] > 0 || d == 0), "%s%s%s component %d: rel diff %.3e (max %.3e)",
                  t->label, variant[run], periodic ? " periodic" : "", c, rel, mx);
        }
        CHECK(largest > 0, "%s: every field is zero (nothing was excited)", t->label);
        /* receivers per field and receiver: E (V/m) and H (A/m) differ by
         * ~377, so each is judged against its own peak (an Hx x1.1 passed
         * against a peak that E set, with a x10 slack) */
        double mx = 0, d = 0;
        for (int r = 0; r < 2; r++)
            for (int field = 0; field < 2; field++) {
                const double *want = scl_receivers_series(&rref, r, 3 * field);
                const double *got = scl_receivers_series(&rdev, r, 3 * field);
                char name[96];
                snprintf(name, sizeof name, "%s%s receiver %d %s (x,y,z by step)", t->label,
                         variant[run], r, field ? "H" : "E");
                CHECK_CLOSE_PEAK(name, 3 * steps, got, want, tol);
                for (long i = 0; i < 3 * steps; i++) {
                    mx = test_max(mx, fabs(want[i]));
                    d = test_max(d, test_absdiff(got[i], want[i]));
                }
            }
        printf("%s%s%s vs reference (%dx%dx%d, %d materials, CPML %d %d %d / %d %d %d): worst field "
               "diff %.2e, receivers %.2e\n",
               t->label, variant[run], periodic ? " periodic-y" : "", m.grid.nx,
               m.grid.ny, m.grid.nz, m.nmat, m.pml[0], m.pml[1], m.pml[2], m.pml[3], m.pml[4],
               m.pml[5], worst, mx > 0 ? d / mx : d);
        ts_free(t);
    }
    free(a);
    free(b);
    free(init);
    scl_receivers_free(&rref);
    scl_receivers_free(&rdev);
    ts_free(&ref);
    scl_fdtd_model_free(&m);
}

/* The x slabs inline (cpml=4, and 5: with the x edge walks apart) against
 * the shell (cpml=3) and the reference
 * with `cells` of CPML on every face, awkward sizes, lossy materials: the
 * same tolerance against the reference; against the shell, how many values
 * differ in their bits (the fused pass forms E's curl in one expression, the
 * shell in two statements, so FMA contraction may round them apart) and by
 * how much (rounding only: within the reference's tolerance). With
 * '#pragma OPENCL FP_CONTRACT OFF' atop fdtd.cl no value differs on PoCL
 * (fp32 and fp64; fp64 then equals the reference bit for bit as well). */
static void x_inline_vs_shell(scl_context *ctx, int cells)
{
    char err[512];
    scl_fdtd_model m;
    /* x long enough for a middle group of 32 off the x slabs (cpml=5's split) */
    int n[3] = {2 * cells + uniform_int(63, 69), 2 * cells + uniform_int(2, 7), 2 * cells + uniform_int(2, 6)};
    scl_fdtd_model_init(&m, n[0], n[1], n[2], 1e-3, 1.1e-3, 0.9e-3, 0.95, err, sizeof err);
    int id = scl_fdtd_add_material(&m, "soil", 4, 0.01, 1, 0, err, sizeof err);
    int lo[3] = {0, 0, 0}, hi[3] = {n[0], n[1] / 2, n[2]};
    scl_fdtd_fill_box(&m, lo, hi, id, 1);
    for (int f = 0; f < 6; f++)
        m.pml[f] = cells;
    m.nwave = 1;
    m.wave = calloc(1, sizeof *m.wave);
    m.wave[0].w = (scl_wavelet){SCL_WAVE_RICKER, 1, 6e10, 0, 0};
    m.nsrc = 1;
    m.src = calloc(1, sizeof *m.src);
    m.src[0] = (scl_fdtd_source){.kind = SCL_FDTD_HERTZIAN, .pol = uniform_int(0, 2), .stop = -1,
                                 .ijk = {n[0] / 2, n[1] / 2, n[2] / 2}};
    CHECK(scl_fdtd_model_finish(&m, err, sizeof err) == SCL_OK, "%s", err);
    long steps = 60, pts = scl_grid3d_points(&m.grid);
    test_solver ref, sh, xi;
    ts_create(&ref, ctx, &m, 0);
    ts_run(&ref, steps, NULL);
    double *a = malloc(pts * sizeof(double)), *b = malloc(pts * sizeof(double));
    double *c3 = malloc(pts * sizeof(double));
    for (int run = 0; run < 4; run++) { /* cpml=4, 5 in fp32, fp64 */
        int kind = 4 + (run & 1), v = 4 + run / 2;
        char force[64];
        snprintf(force, sizeof force, "cpml=%d,kz=4,lx=32,ly=2", v);
        if (ts_create_forced(&sh, ctx, &m, kind, "cpml=3,kz=4,lx=32,ly=2") != 0)
            continue;
        if (ts_create_forced(&xi, ctx, &m, kind, force) != 0) {
            ts_free(&sh);
            continue;
        }
        ts_run(&sh, steps, NULL);
        ts_run(&xi, steps, NULL);
        double tol = kind == 5 ? 1e-11 : 1e-4, worst = 0, apart = 0, shell = 0;
        double mx[2] = {0, 0}, d[6], d3[6], ds[6];
        long bits = 0;
        for (int c = 0; c < 6; c++) {
            ts_get(&ref, c, a);
            ts_get(&xi, c, b);
            ts_get(&sh, c, c3);
            d[c] = d3[c] = ds[c] = 0;
            for (long i = 0; i < pts; i++) {
                mx[c / 3] = test_max(mx[c / 3], fabs(a[i]));
                d[c] = test_max(d[c], test_absdiff(b[i], a[i]));
                ds[c] = test_max(ds[c], test_absdiff(c3[i], a[i]));
                d3[c] = test_max(d3[c], test_absdiff(b[i], c3[i]));
                bits += memcmp(&b[i], &c3[i], sizeof b[i]) != 0;
            }
        }
        CHECK(mx[0] > 0 && mx[1] > 0, "CPML %d: E or H zero in the reference", cells);
        for (int c = 0; c < 6; c++) { /* relative to the field's (E's or H's) largest component */
            double r = mx[c / 3] > 0 ? 1 / mx[c / 3] : 1;
            worst = test_max(worst, d[c] * r);
            apart = test_max(apart, d3[c] * r);
            shell = test_max(shell, ds[c] * r);
        }
        CHECK(worst <= tol && apart <= tol && shell <= tol,
              "%s cpml=%d CPML %d (%dx%dx%d): vs reference %.3e, vs shell %.3e, shell vs reference %.3e",
              xi.label, v, cells, n[0], n[1], n[2], worst, apart, shell);
        printf("%s CPML %d on every face (%dx%dx%d): cpml=%d (x inline + y/z shell) vs reference %.2e, "
               "vs cpml=3 %.2e (%ld of %ld values differ in their bits)\n",
               xi.label, cells, n[0], n[1], n[2], v, worst, apart, bits, 6 * pts);
        ts_free(&sh);
        ts_free(&xi);
    }
    free(a);
    free(b);
    free(c3);
    ts_free(&ref);
    scl_fdtd_model_free(&m);
}

/* A plan made without comparing the CPML variants: none reported, cpml kept. */
static void not_compared(scl_context *ctx, const scl_fdtd_model *m, const char *force, int cpml)
{
    scl_fdtd_options o = {.kernel = SCL_FDTD_FUSED, .force = force};
    scl_fdtd *f = NULL;
    CHECK_OK(ctx, scl_fdtd_create(ctx, m, &o, &f));
    for (int v = 0; v < NVARIANTS && f; v++) {
        int sh[3], refused;
        size_t limit;
        const char *why;
        CHECK(scl_fdtd_cpml_variant(f, v, sh, &refused, &limit, &why) == -1, "%s: variant %d reported",
              force, v);
    }
    CHECK(f && scl_fdtd_cpml_inline(f) == cpml, "%s: cpml=%d not kept", force, cpml);
    scl_fdtd_free(f);
}

/* Tuning per CPML variant: each variant's best step is reported (kz the
 * one shape parameter left free), the plan keeps the fastest, the
 * fields are back at rest after the timed steps; a shape refused in every
 * variant fails with the refusals named; a forced cpml makes one plan. */
static void tuned_variants(scl_context *ctx)
{
    scl_fdtd_model m;
    random_model(&m, 0, 1);
    long pts = scl_grid3d_points(&m.grid);
    scl_fdtd_options o = {.kernel = SCL_FDTD_FUSED, .force = "lx=32,ly=2"};
    scl_fdtd *f = NULL;
    CHECK_OK(ctx, scl_fdtd_create(ctx, &m, &o, &f));
    if (f) {
        double best = INFINITY;
        int fastest = -1;
        for (int v = 0; v < NVARIANTS; v++) {
            int sh[3], refused;
            size_t limit;
            const char *why;
            double t = scl_fdtd_cpml_variant(f, v, sh, &refused, &limit, &why);
            CHECK(t > 0 && isfinite(t) && sh[0] == 32 && sh[1] == 2 && sh[2] >= 1 && refused == 0 &&
                      limit >= 64,
                  "variant %d: %.3e s, shape %dx%dx%d, %d refused, limit %zu (%s)", v, t, sh[0],
                  sh[1], sh[2], refused, limit, why);
            if (t > 0 && t < best) {
                best = t;
                fastest = v;
            }
        }
        CHECK(scl_fdtd_cpml_inline(f) == fastest, "plan kept cpml=%d, fastest %d",
              scl_fdtd_cpml_inline(f), fastest);
        double *a = malloc(pts * sizeof(double)), worst = 0;
        for (int c = 0; c < 6; c++) {
            CHECK_OK(ctx, scl_fdtd_get(f, c, a));
            for (long i = 0; i < pts; i++)
                worst = test_max(worst, isfinite(a[i]) ? fabs(a[i]) : INFINITY);
        }
        CHECK(worst == 0, "fields after tuning: max %.3e (not at rest)", worst);
        printf("tuned per CPML variant: kept cpml=%d, fields at rest\n", fastest);
        free(a);
        scl_fdtd_free(f);
    }
    /* 256 x 64 = 16384 work-items: over every variant's limit on PoCL and GPUs */
    o.force = "lx=256,ly=64,kz=4";
    f = NULL;
    scl_status s = scl_fdtd_create(ctx, &m, &o, &f);
    const char *msg = scl_last_error(ctx);
    CHECK(s == SCL_ERR_UNSUPPORTED && strstr(msg, "cpml=1: 1 shapes refused") &&
              strstr(msg, "cpml=2: 1 shapes refused") && strstr(msg, "cpml=0: 1 shapes refused") &&
              strstr(msg, "cpml=3: 1 shapes refused") && strstr(msg, "cpml=4: 1 shapes refused") &&
              strstr(msg, "cpml=5: 1 shapes refused"),
          "oversized work-group: status %d, '%s'", (int)s, msg);
    scl_fdtd_free(f);
    scl_clear_error(ctx);
    /* every shape parameter forced: nothing timed, the default variant;
     * cpml forced: one plan */
    not_compared(ctx, &m, "lx=32,ly=2,kz=4", 1);
    not_compared(ctx, &m, "lx=32,ly=2,kz=4,cpml=2", 2);
    not_compared(ctx, &m, "lx=32,ly=2,kz=4,cpml=3", 3);
    not_compared(ctx, &m, "lx=32,ly=2,kz=4,cpml=4", 4);
    not_compared(ctx, &m, "lx=32,ly=2,kz=4,cpml=5", 5);
    scl_fdtd_model_free(&m);
}

int main(void)
{
    rng = test_seed();
    scl_context *ctx = test_context();
    compare(ctx, 0, 0);
    compare(ctx, 0, 0);
    compare(ctx, 1, 0);
    compare(ctx, 0, 1);
    compare(ctx, 0, 2);
    x_inline_vs_shell(ctx, 2);
    x_inline_vs_shell(ctx, 3);
    x_inline_vs_shell(ctx, 10);
    tuned_variants(ctx);
    scl_context_free(ctx);
    return test_summary("fdtd_vs_reference");
}
