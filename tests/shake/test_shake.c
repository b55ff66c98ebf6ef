/* SHAKE constraint forces: the C reference satisfies the constraints (to a
 * tight tolerance) on random clusters of all four kinds, in orthogonal and
 * triclinic periodic boxes, with clusters across the boundary and atoms
 * beyond nlocal (ghosts); the device (mixed and double, host arrays and
 * device streams) equals the reference to rounding; the inputs that must
 * fail do. Bounds: forces max |diff| <= 1e-12 of max |f| (both modes solve
 * in double), virial <= 1e-12 of the sum of |cluster virials|. */
#include "streamcl/shake.h"
#include "test_util.h"

typedef struct {
    int n, natoms;
    scl_shake_cluster *c;
    double *x, *xs;
    double *f0;         /* compare_device: the start forces */
    scl_shake_input in;
} system_t;

static void unit_vector(uint64_t *rng, double *u)
{
    double r2;
    do {
        for (int k = 0; k < 3; k++) u[k] = 2.0 * test_uniform(rng) - 1.0;
        r2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    } while (r2 < 0.05 || r2 > 1.0);
    for (int k = 0; k < 3; k++) u[k] /= sqrt(r2);
}

/* put x into the primary cell by lattice translations (a = (xprd,0,0),
 * b = (xy,yprd,0), c = (xz,yz,zprd)): the solver must find the images */
static void wrap_into(const scl_shake_box *b, double *x)
{
    const double t = b->triclinic ? 1.0 : 0.0;
    while (x[2] < 0) { x[2] += b->prd[2]; x[1] += t * b->yz; x[0] += t * b->xz; }
    while (x[2] >= b->prd[2]) { x[2] -= b->prd[2]; x[1] -= t * b->yz; x[0] -= t * b->xz; }
    while (x[1] < 0) { x[1] += b->prd[1]; x[0] += t * b->xy; }
    while (x[1] >= b->prd[1]) { x[1] -= b->prd[1]; x[0] -= t * b->xy; }
    while (x[0] < 0) x[0] += b->prd[0];
    while (x[0] >= b->prd[0]) x[0] -= b->prd[0];
}

/* ncl clusters cycling through the kinds; every 7th atom index past nlocal
 * (ghost); positions meet the constraints, xshake = x + a random move of
 * up to `move` Angstrom per atom. */
static void make_system(system_t *s, int ncl, int triclinic, double move, uint64_t *rng)
{
    memset(s, 0, sizeof *s);
    s->n = ncl;
    s->c = calloc((size_t)ncl, sizeof *s->c);
    s->natoms = 4 * ncl;
    s->x = calloc(3 * (size_t)s->natoms, sizeof(double));
    s->xs = calloc(3 * (size_t)s->natoms, sizeof(double));
    scl_shake_box *b = &s->in.box;
    b->periodic[0] = b->periodic[1] = b->periodic[2] = 1;
    b->prd[0] = 23.0;
    b->prd[1] = 19.5;
    b->prd[2] = 31.25;
    if (triclinic) {
        b->triclinic = 1;
        b->xy = 2.5;
        b->xz = -1.75;
        b->yz = 3.0;
    }
    static const double masses[] = {1.008, 12.011, 14.007, 15.9994, 32.06};
    int next = 0;
    for (int m = 0; m < ncl; m++) {
        scl_shake_cluster *c = &s->c[m];
        c->kind = 1 + m % 4;
        const int na = c->kind == 1 ? 3 : c->kind;
        for (int p = 0; p < 4; p++) c->atom[p] = p < na ? next++ : -1;
        double x0[3];
        for (int k = 0; k < 3; k++) x0[k] = b->prd[k] * test_uniform(rng);
        /* some centres right at a face, so that partners wrap */
        if (m % 5 == 0) x0[m % 3] = 0.2 * test_uniform(rng);
        double pos[4][3];
        memcpy(pos[0], x0, sizeof x0);
        c->mass[0] = masses[1 + (m / 4) % 4];
        for (int p = 1; p < na; p++) {
            double u[3];
            unit_vector(rng, u);
            if (c->kind == 1 && p == 2) {
                /* an angle cluster's second bond at 95..120 degrees from the
                 * first (near 0 or 180 the three constraints are dependent) */
                double u1[3], dd = 0.0, pr = 0.0;
                for (int k = 0; k < 3; k++) u1[k] = (pos[1][k] - x0[k]) / c->dist[0];
                for (int k = 0; k < 3; k++) pr += u[k] * u1[k];
                for (int k = 0; k < 3; k++) { u[k] -= pr * u1[k]; dd += u[k] * u[k]; }
                const double th = (95.0 + 25.0 * test_uniform(rng)) * 3.14159265358979 / 180.0;
                for (int k = 0; k < 3; k++) u[k] = cos(th) * u1[k] + sin(th) * u[k] / sqrt(dd);
            }
            c->dist[p - 1] = 0.95 + 0.2 * test_uniform(rng);
            for (int k = 0; k < 3; k++) pos[p][k] = x0[k] + c->dist[p - 1] * u[k];
            c->mass[p] = masses[(m + p) % 3 == 0 ? 1 : 0];
        }
        if (c->kind == 1) {
            double d12 = 0.0;
            for (int k = 0; k < 3; k++) d12 += (pos[1][k] - pos[2][k]) * (pos[1][k] - pos[2][k]);
            c->dist[2] = sqrt(d12);
        }
        for (int p = 0; p < na; p++) {
            double *xi = s->x + 3 * c->atom[p], *xsi = s->xs + 3 * c->atom[p];
            for (int k = 0; k < 3; k++) {
                xi[k] = pos[p][k];
                xsi[k] = pos[p][k] + move * (2.0 * test_uniform(rng) - 1.0);
            }
            wrap_into(b, xi);
            wrap_into(b, xsi);
        }
    }
    s->natoms = next;
    s->in.natoms = next;
    s->in.nlocal = next;
    s->in.x = s->x;
    s->in.xshake = s->xs;
    s->in.dtfsq = 4.0 * 48.88821291 * 48.88821291 * 1e-3 / 418.4; /* dt 2 fs, real units */
}

static void free_system(system_t *s)
{
    free(s->c);
    free(s->x);
    free(s->xs);
    free(s->f0);
}

static double max_abs(const double *a, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (!(fabs(a[i]) <= m)) m = fabs(a[i]);   /* NaN wins */
    return m;
}

/* max |a - b| / max |a| (NaN if any is NaN) */
static double rel_diff(const double *a, const double *b, size_t n)
{
    double d = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double e = fabs(a[i] - b[i]);
        if (!(e <= d)) d = e;
    }
    const double m = max_abs(a, n);
    return m > 0 ? d / m : d;
}

/* the reference's forces move xshake onto the constraints */
static void test_reference_satisfies(uint64_t *rng, int triclinic)
{
    system_t s;
    make_system(&s, 400, triclinic, 0.08, rng);
    scl_shake_options o = scl_shake_options_default();
    o.tolerance = 1e-12;
    o.max_iter = 100;
    const size_t nd = 3 * (size_t)s.natoms;
    double *f = calloc(nd, sizeof(double)), vir[6] = {0};
    int neg = -1;
    const int r = scl_shake_reference(&o, s.n, s.c, &s.in, f, vir, &neg);
    CHECK(r == 0, "reference failed at cluster %d", r - 1);
    CHECK(neg == 0, "%d negative determinants", neg);
    double worst = 0.0;
    for (int m = 0; m < s.n; m++) {
        const scl_shake_cluster *c = &s.c[m];
        const int nc = c->kind == 1 ? 3 : c->kind - 1;
        for (int q = 0; q < nc; q++) {
            const int i = c->atom[(c->kind == 1 && q == 2) ? 1 : 0];
            const int j = c->atom[(c->kind == 1 && q == 2) ? 2 : q + 1];
            const int pi = (c->kind == 1 && q == 2) ? 1 : 0, pj = (c->kind == 1 && q == 2) ? 2 : q + 1;
            double d[3];
            for (int k = 0; k < 3; k++) {
                const double xi = s.xs[3 * i + k] + s.in.dtfsq / c->mass[pi] * f[3 * i + k];
                const double xj = s.xs[3 * j + k] + s.in.dtfsq / c->mass[pj] * f[3 * j + k];
                d[k] = xi - xj;
            }
            /* nearest image (orthogonal part; the tilts are small against
             * the box and bond lengths ~1) */
            for (int n = 0; n < 3; n++) {
                const int k = 2 - n;
                const double tilt[3] = {s.in.box.xz, s.in.box.yz, 0};
                while (fabs(d[k]) > 0.5 * s.in.box.prd[k] && fabs(d[k]) < 1e6) {
                    const double sg = d[k] < 0 ? 1.0 : -1.0;
                    d[k] += sg * s.in.box.prd[k];
                    if (k == 2) { d[1] += sg * tilt[1]; d[0] += sg * tilt[0]; }
                    if (k == 1) d[0] += sg * s.in.box.xy;
                }
            }
            const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            const double e = fabs(len - c->dist[q]) / c->dist[q];
            if (!(e <= worst)) worst = e;
            if (!(e <= 1e-9) && getenv("SHAKE_DEBUG")) printf("kind %d constraint %d: %g\n", c->kind, q, e);
        }
    }
    CHECK(worst <= 1e-9, "%s box: constraint residual %.3g (relative) after SHAKE",
          triclinic ? "triclinic" : "orthogonal", worst);
    printf("reference %s: worst relative constraint residual %.3g\n",
           triclinic ? "triclinic" : "orthogonal", worst);
    free(f);
    free_system(&s);
}

/* x from a device stream (the pair engine's copy, shared): the host-f
 * solve's forces and virial bit for bit (f_up, v_up: scl_shake_solve's from
 * the same start forces s->f0); in->x unused. */
static void compare_device_x(scl_context *ctx, scl_shake *sh, const system_t *s,
                             const scl_stream *x, const double *f_up, const double v_up[6],
                             const char *what)
{
    const size_t nd = 3 * (size_t)s->natoms;
    double *f = malloc(nd * sizeof(double)), v[6] = {0};
    memcpy(f, s->f0, nd * sizeof(double));
    scl_shake_input in = s->in;
    in.x = NULL;
    CHECK_OK(ctx, scl_shake_solve_device_x(sh, &in, x, f, v));
    size_t differ = 0;
    for (size_t i = 0; i < nd; i++) differ += memcmp(&f[i], &f_up[i], sizeof(double)) != 0;
    CHECK(differ == 0, "%s device x: %zu of %zu forces differ from the upload's", what, differ, nd);
    CHECK(!memcmp(v, v_up, sizeof v), "%s device x: the virial differs from the upload's", what);
    in.natoms = s->natoms + 1;   /* beyond the stream */
    CHECK(scl_shake_solve_device_x(sh, &in, x, f, NULL) == SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "x_dev holds"),
          "%s device x: a short stream accepted (%s)", what, scl_last_error(ctx));
    CHECK(scl_shake_solve_device_x(sh, &s->in, NULL, f, NULL) == SCL_ERR_ARGUMENT,
          "%s device x: NULL stream accepted", what);
    free(f);
}

static void compare_device(scl_context *ctx, uint64_t *rng, scl_precision prec, int triclinic,
                           int ghosts)
{
    const char *what = prec == SCL_PREC_DOUBLE ? "double" : "mixed";
    system_t s;
    make_system(&s, 1003, triclinic, 0.05, rng);
    if (ghosts) s.in.nlocal = s.natoms - s.natoms / 7;   /* the last atoms are ghosts */
    scl_shake_options o = scl_shake_options_default();
    o.precision = prec;
    const size_t nd = 3 * (size_t)s.natoms;
    double *fr = calloc(nd, sizeof(double)), *fd = calloc(nd, sizeof(double));
    double *fs = calloc(nd, sizeof(double));
    for (size_t i = 0; i < nd; i++) fr[i] = fd[i] = fs[i] = test_uniform(rng) - 0.5;
    s.f0 = malloc(nd * sizeof(double));
    memcpy(s.f0, fd, nd * sizeof(double));
    double vr[6] = {0}, vd[6] = {0}, vs[6] = {0}, vabs[6] = {0};
    const int r = scl_shake_reference(&o, s.n, s.c, &s.in, fr, vr, NULL);
    CHECK(r == 0, "reference failed at cluster %d", r - 1);
    {   /* the virial's scale: sum of |cluster virials| (of the first 200) */
        double *ftmp = calloc(nd, sizeof(double));
        for (int m = 0; m < s.n && m < 200; m++) {
            double v1[6] = {0};
            scl_shake_reference(&o, 1, &s.c[m], &s.in, ftmp, v1, NULL);
            for (int t = 0; t < 6; t++) vabs[t] += fabs(v1[t]);
        }
        free(ftmp);
    }
    double vscale = 0.0;
    for (int t = 0; t < 6; t++) vscale = fmax(vscale, vabs[t]);

    scl_shake *sh = NULL;
    CHECK_OK(ctx, scl_shake_create(ctx, &o, &sh));
    if (!sh) goto out;
    /* set twice: the second (smaller) list reuses the buffers */
    CHECK_OK(ctx, scl_shake_set_clusters(sh, s.n, s.c));
    CHECK_OK(ctx, scl_shake_set_clusters(sh, s.n - 3, s.c));
    CHECK_OK(ctx, scl_shake_set_clusters(sh, s.n, s.c));
    CHECK(scl_shake_cluster_count(sh) == s.n, "cluster count %d", scl_shake_cluster_count(sh));
    CHECK_OK(ctx, scl_shake_solve(sh, &s.in, fd, vd));
    const double ef = rel_diff(fr, fd, nd), ev = rel_diff(vr, vd, 6) * max_abs(vr, 6) / vscale;
    size_t same = 0;
    for (size_t i = 0; i < nd; i++) same += fr[i] == fd[i];
    printf("%s %s%s: forces max rel diff %.3g (%zu of %zu bitwise equal), virial %.3g\n", what,
           triclinic ? "triclinic" : "orthogonal", ghosts ? " with ghosts" : "", ef, same, nd, ev);
    CHECK(ef <= 1e-12, "%s: device forces differ from the reference by %.3g", what, ef);
    CHECK(ev <= 1e-12, "%s: device virial differs from the reference by %.3g", what, ev);
    for (int i = s.in.nlocal; i < s.natoms; i++)
        for (int k = 0; k < 3; k++)
            CHECK(fd[3 * i + k] == fs[3 * i + k], "ghost atom %d got a force", i);

    /* device streams: forces added on the device */
    scl_stream *x = NULL, *xs = NULL, *f = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "t.x", SCL_DOUBLE, nd, 1, 1, 0, &x));
    CHECK_OK(ctx, scl_stream_create(ctx, "t.xs", SCL_DOUBLE, nd, 1, 1, 0, &xs));
    CHECK_OK(ctx, scl_stream_create(ctx, "t.f", SCL_DOUBLE, nd, 1, 1, 0, &f));
    if (x && xs && f) {
        CHECK_OK(ctx, scl_stream_write(x, s.x, 1, NULL));
        CHECK_OK(ctx, scl_stream_write(xs, s.xs, 1, NULL));
        CHECK_OK(ctx, scl_stream_write(f, fs, 1, NULL));
        CHECK_OK(ctx, scl_shake_solve_streams(sh, &s.in, x, xs, f, vs));
        CHECK_OK(ctx, scl_stream_read(f, fs, 1, NULL));
        const double es = rel_diff(fr, fs, nd), evs = rel_diff(vd, vs, 6);
        CHECK(es <= 1e-12, "%s streams: forces differ by %.3g", what, es);
        CHECK(evs == 0.0, "%s streams: virial differs from the host path by %.3g", what, evs);
        compare_device_x(ctx, sh, &s, x, fd, vd, what);
    }
    /* the unconstrained update on the device: LAMMPS's formula, owned atoms only */
    if (x && xs && f) {
        double *vh = malloc(nd * sizeof(double)), *fh = malloc(nd * sizeof(double));
        double *want = malloc(nd * sizeof(double)), *got = malloc(nd * sizeof(double));
        scl_stream *v = NULL;
        const double dtv = 2.0, dtfsq = s.in.dtfsq, sentinel = -12345.0;
        for (size_t i = 0; i < nd; i++) {
            vh[i] = 0.01 * (test_uniform(rng) - 0.5);
            fh[i] = 50.0 * (test_uniform(rng) - 0.5);
            want[i] = sentinel;
        }
        for (int m = 0; m < s.n; m++)
            for (int p = 0; p < (s.c[m].kind == 1 ? 3 : s.c[m].kind); p++) {
                const int i = s.c[m].atom[p];
                if (i >= s.in.nlocal) continue;
                const double dtfmsq = dtfsq / s.c[m].mass[p];
                for (int k = 0; k < 3; k++)
                    want[3 * i + k] = s.x[3 * i + k] + dtv * vh[3 * i + k] + dtfmsq * fh[3 * i + k];
            }
        CHECK_OK(ctx, scl_stream_create(ctx, "t.v", SCL_DOUBLE, nd, 1, 1, 0, &v));
        if (v) {
            CHECK_OK(ctx, scl_stream_write(v, vh, 1, NULL));
            CHECK_OK(ctx, scl_stream_write(f, fh, 1, NULL));
            CHECK_OK(ctx, scl_stream_fill(xs, &sentinel));
            CHECK_OK(ctx, scl_shake_unconstrained_streams(sh, s.in.nlocal, x, v, f, dtv, dtfsq, xs));
            CHECK_OK(ctx, scl_stream_read(xs, got, 1, NULL));
            size_t differ = 0;
            for (size_t i = 0; i < nd; i++) differ += !(got[i] == want[i]);
            CHECK(differ == 0, "%s: %zu of %zu unconstrained coordinates differ from LAMMPS's formula",
                  what, differ, nd);
        }
        scl_stream_free(v);
        free(vh);
        free(fh);
        free(want);
        free(got);
    }
    scl_stream_free(x);
    scl_stream_free(xs);
    scl_stream_free(f);
    scl_shake_free(sh);
out:
    free(fr);
    free(fd);
    free(fs);
    free_system(&s);
}

static void test_errors(scl_context *ctx)
{
    scl_shake *sh = NULL;
    scl_shake_options o = scl_shake_options_default();
    o.precision = SCL_PREC_SINGLE;
    CHECK(scl_shake_create(ctx, &o, &sh) == SCL_ERR_UNSUPPORTED && !sh, "single accepted");
    o = scl_shake_options_default();
    o.tolerance = NAN;
    CHECK(scl_shake_create(ctx, &o, &sh) == SCL_ERR_ARGUMENT, "NaN tolerance accepted");
    o = scl_shake_options_default();
    CHECK_OK(ctx, scl_shake_create(ctx, &o, &sh));
    if (!sh) return;
    scl_shake_cluster c[2];
    memset(c, 0, sizeof c);
    c[0].kind = 3;
    c[0].atom[0] = 0; c[0].atom[1] = 1; c[0].atom[2] = 2; c[0].atom[3] = -1;
    c[0].dist[0] = c[0].dist[1] = 1.0;
    c[0].mass[0] = c[0].mass[1] = c[0].mass[2] = 1.0;
    c[1] = c[0];
    c[1].kind = 5;
    CHECK(scl_shake_set_clusters(sh, 2, c) == SCL_ERR_ARGUMENT, "kind 5 accepted");
    c[1] = c[0];
    c[1].dist[1] = -1.0;
    CHECK(scl_shake_set_clusters(sh, 2, c) == SCL_ERR_ARGUMENT, "negative length accepted");
    CHECK(strstr(scl_last_error(ctx), "scl_shake_set_clusters") != NULL, "message: %s",
          scl_last_error(ctx));
    /* singular: s01 = s02 perpendicular to r01 and r02 */
    CHECK_OK(ctx, scl_shake_set_clusters(sh, 1, c));
    double x[9] = {0, 0, 0, -1, 0, 0, 0, -1, 0}, xs[9] = {5, 5, 5, 5, 5, 4, 5, 5, 4}, f[9] = {0};
    scl_shake_input in;
    memset(&in, 0, sizeof in);
    in.natoms = 3;
    in.nlocal = 3;
    in.x = x;
    in.xshake = xs;
    in.dtfsq = 1.0;
    CHECK(scl_shake_solve(sh, &in, f, NULL) == SCL_ERR_INPUT, "singular matrix accepted");
    CHECK(strstr(scl_last_error(ctx), "determinant") != NULL, "message: %s", scl_last_error(ctx));
    CHECK(scl_shake_reference(&o, 1, c, &in, f, NULL, NULL) == 1, "reference: singular accepted");
    /* NaN positions */
    xs[4] = 4.5;
    x[3] = NAN;
    CHECK(scl_shake_solve(sh, &in, f, NULL) == SCL_ERR_INPUT, "NaN position accepted");
    /* index beyond natoms */
    x[3] = -1;
    in.natoms = 2;
    CHECK(scl_shake_solve(sh, &in, f, NULL) == SCL_ERR_ARGUMENT, "atom beyond natoms accepted");
    /* negative determinant of a 2-atom cluster: counted, no error */
    c[0].kind = 2;
    CHECK_OK(ctx, scl_shake_set_clusters(sh, 1, c));
    double x2[6] = {1, 0, 0, 0, 0, 0}, xs2[6] = {0, 5, 0, 0, 0, 0}, f2[6] = {0};
    in.natoms = 2;
    in.nlocal = 2;
    in.x = x2;
    in.xshake = xs2;
    CHECK_OK(ctx, scl_shake_solve(sh, &in, f2, NULL));
    scl_shake_stats st;
    scl_shake_stats_get(sh, &st);
    CHECK(st.last_negative == 1, "negative determinants %d", st.last_negative);
    int neg = 0;
    double f3[6] = {0};
    scl_shake_reference(&o, 1, c, &in, f3, NULL, &neg);
    CHECK(neg == 1 && rel_diff(f3, f2, 6) == 0.0, "reference: %d negative, forces differ", neg);
    scl_shake_free(sh);
}

int main(void)
{
    uint64_t rng = test_seed();
    test_reference_satisfies(&rng, 0);
    test_reference_satisfies(&rng, 1);
    scl_context *ctx = test_context();
    if (!ctx) {
        SKIP("no OpenCL device");
        return test_summary("test_shake");
    }
    if (!scl_device(ctx)->fp64) {
        SKIP("the device lacks fp64 (the SHAKE solve is in double)");
    } else {
        compare_device(ctx, &rng, SCL_PREC_MIXED, 0, 0);
        compare_device(ctx, &rng, SCL_PREC_DOUBLE, 0, 1);
        compare_device(ctx, &rng, SCL_PREC_MIXED, 1, 1);
        test_errors(ctx);
    }
    scl_context_free(ctx);
    return test_summary("test_shake");
}
