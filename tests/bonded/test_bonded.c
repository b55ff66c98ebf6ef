/* The device bonded terms against the plain C reference on random small
 * systems of awkward sizes (term counts around the work-group size, empty
 * kinds, ghosts in terms, multi-term dihedrals, 1-4 weights 0 / 0.5 / 1),
 * newton_bond on and off, mixed (<= 1e-6) and double (<= 1e-10): forces,
 * energies, virials, per-atom energies and virials; bitwise-repeatable
 * forces; bad input reported. */
#include "streamcl/bonded.h"
#include "test_util.h"

#define MAX_TYPES 6
#define NATOM_TYPES 4

typedef struct {
    int nlocal, nall;
    double *x, *q;
    int *type;
    int nb, na, nd, ni;
    int *bonds, *angles, *dihedrals, *impropers;
} system_t;

typedef struct {
    double bond_k[MAX_TYPES], bond_r0[MAX_TYPES];
    double angle_k[MAX_TYPES], angle_theta0[MAX_TYPES], angle_k_ub[MAX_TYPES],
        angle_r_ub[MAX_TYPES];
    double dihedral_k[MAX_TYPES], dihedral_shift[MAX_TYPES], dihedral_weight[MAX_TYPES];
    int dihedral_multiplicity[MAX_TYPES];
    double improper_k[MAX_TYPES], improper_chi[MAX_TYPES];
    double lj[4][NATOM_TYPES * NATOM_TYPES];
    scl_bonded_coeffs c;
} coeffs_t;

static void make_coeffs(uint64_t *rng, coeffs_t *k, int implicit)
{
    for (int t = 0; t < MAX_TYPES; t++) {
        k->bond_k[t] = 100 + 300 * test_uniform(rng);
        k->bond_r0[t] = 1.0 + 0.5 * test_uniform(rng);
        k->angle_k[t] = 20 + 80 * test_uniform(rng);
        k->angle_theta0[t] = (100 + 20 * test_uniform(rng)) * M_PI / 180;
        k->angle_k_ub[t] = t % 2 ? 0.0 : 10 + 20 * test_uniform(rng);
        k->angle_r_ub[t] = 2.0 + 0.5 * test_uniform(rng);
        k->dihedral_k[t] = 0.1 + 2 * test_uniform(rng);
        k->dihedral_multiplicity[t] = t % 7;  /* includes 0 */
        static const double shifts[3] = {0, 180, 90};
        k->dihedral_shift[t] = shifts[t % 3];
        static const double weights[3] = {1.0, 0.0, 0.5};
        k->dihedral_weight[t] = weights[t % 3];
        k->improper_k[t] = 10 + 100 * test_uniform(rng);
        k->improper_chi[t] = (t % 2 ? 0.0 : 10 * test_uniform(rng)) * M_PI / 180;
    }
    for (int i = 0; i < NATOM_TYPES; i++)
        for (int j = 0; j <= i; j++) {
            const double eps = 0.05 + 0.1 * test_uniform(rng), sig = 2.5 + test_uniform(rng);
            const double s6 = pow(sig, 6);
            const double v[4] = {48 * eps * s6 * s6, 24 * eps * s6, 4 * eps * s6 * s6,
                                 4 * eps * s6};
            for (int a = 0; a < 4; a++)
                k->lj[a][i * NATOM_TYPES + j] = k->lj[a][j * NATOM_TYPES + i] = v[a];
        }
    k->c = (scl_bonded_coeffs){.type_base = 1,
                               .nbond_types = MAX_TYPES, .bond_k = k->bond_k, .bond_r0 = k->bond_r0,
                               .nangle_types = MAX_TYPES, .angle_k = k->angle_k,
                               .angle_theta0 = k->angle_theta0, .angle_k_ub = k->angle_k_ub,
                               .angle_r_ub = k->angle_r_ub,
                               .ndihedral_types = MAX_TYPES, .dihedral_k = k->dihedral_k,
                               .dihedral_multiplicity = k->dihedral_multiplicity,
                               .dihedral_shift = k->dihedral_shift,
                               .dihedral_weight = k->dihedral_weight,
                               .nimproper_types = MAX_TYPES, .improper_k = k->improper_k,
                               .improper_chi = k->improper_chi,
                               .natom_types = NATOM_TYPES, .lj14_1 = k->lj[0], .lj14_2 = k->lj[1],
                               .lj14_3 = k->lj[2], .lj14_4 = k->lj[3], .qqrd2e = 332.06371,
                               .implicit = implicit};
}

static void system_free(system_t *s)
{
    free(s->x);
    free(s->q);
    free(s->type);
    free(s->bonds);
    free(s->angles);
    free(s->dihedrals);
    free(s->impropers);
}

/* Atoms on a random walk (steps ~1.5 A), so that consecutive atoms make
 * sane bonds, angles and dihedrals; terms pick a random start along it
 * (ghosts, the atoms from nlocal on, included). */
static void make_system(uint64_t *rng, system_t *s, int nlocal, int nghost, int nb, int na,
                        int nd, int ni)
{
    memset(s, 0, sizeof *s);
    s->nlocal = nlocal;
    s->nall = nlocal + nghost;
    const int n = s->nall;
    s->x = malloc(sizeof(double) * 3 * n);
    s->q = malloc(sizeof(double) * n);
    s->type = malloc(sizeof(int) * n);
    double p[3] = {0, 0, 0}, prev[3] = {1, 0, 0};
    for (int i = 0; i < n; i++) {
        /* a persistent walk: atoms three apart stay > ~2 A apart (no 1-4 overlaps) */
        double d[3], r2 = 0;
        for (int a = 0; a < 3; a++) {
            d[a] = prev[a] + 1.2 * (test_uniform(rng) - 0.5);
            r2 += d[a] * d[a];
        }
        for (int a = 0; a < 3; a++)
            prev[a] = d[a] / sqrt(r2 + 1e-12);
        const double scale = (1.2 + 0.6 * test_uniform(rng)) / sqrt(r2 + 1e-12);
        for (int a = 0; a < 3; a++)
            s->x[3 * i + a] = p[a] = p[a] + d[a] * scale;
        s->q[i] = test_uniform(rng) - 0.5;
        s->type[i] = 1 + (int)(test_uniform(rng) * NATOM_TYPES);
    }
    s->nb = nb;
    s->na = na;
    s->nd = nd;
    s->ni = ni;
    s->bonds = malloc(sizeof(int) * 3 * (nb + 1));
    s->angles = malloc(sizeof(int) * 4 * (na + 1));
    s->dihedrals = malloc(sizeof(int) * 5 * (nd + 1));
    s->impropers = malloc(sizeof(int) * 5 * (ni + 1));
    const int nlists[4] = {nb, na, nd, ni}, atoms[4] = {2, 3, 4, 4};
    int *lists[4] = {s->bonds, s->angles, s->dihedrals, s->impropers};
    for (int k = 0; k < 4; k++)
        for (int t = 0; t < nlists[k]; t++) {
            int *e = lists[k] + (atoms[k] + 1) * t;
            const int start = (int)(test_uniform(rng) * (n - atoms[k] + 1));
            for (int a = 0; a < atoms[k]; a++)
                e[a] = start + a;
            if (k == 3) { /* improper: centre atom first, as CHARMM lists them */
                const int tmp = e[0];
                e[0] = e[1];
                e[1] = tmp;
            }
            /* multi-term dihedrals: every third one repeats the previous atoms */
            if (k == 2 && t > 0 && t % 3 == 0)
                memcpy(e, e - 5, sizeof(int) * 4);
            e[atoms[k]] = 1 + (int)(test_uniform(rng) * MAX_TYPES);
        }
}

static scl_bonded_topology topology(const system_t *s, int newton)
{
    scl_bonded_topology t = {s->nlocal, s->nall, newton, s->nb, s->na, s->nd, s->ni,
                             s->bonds, s->angles, s->dihedrals, s->impropers, s->type, s->q};
    return t;
}

/* NaN-safe: 0 unless |a - b| <= tol * scale */
static int close_to(double a, double b, double tol, double scale)
{
    return fabs(a - b) <= tol * scale;
}

static double max_abs(const double *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(v[i]) > m)
            m = fabs(v[i]);
    return m;
}

/* scl_bonded_compute_start_device: the owned atoms' positions from a device
 * stream give the same bits as the upload; wrong streams are refused */
static void compare_device_x(scl_context *ctx, scl_bonded *b, const system_t *s,
                             const double *f_want, const scl_bonded_result *r_want,
                             const char *label)
{
    const size_t n3 = 3 * (size_t)s->nall;
    scl_stream *xs = NULL, *xf = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "test x", SCL_DOUBLE, n3 + 3, 1, 1, 0, &xs));
    CHECK_OK(ctx, scl_stream_create(ctx, "test x float", SCL_FLOAT, n3, 1, 1, 0, &xf));
    double *f = calloc(n3, sizeof(double));
    if (!xs || !xf || !f) {
        CHECK(0, "%s: out of memory", label);
        scl_stream_free(xs);
        scl_stream_free(xf);
        free(f);
        return;
    }
    CHECK_OK(ctx, scl_stream_write_range(xs, 0, n3, s->x, 1, NULL));
    scl_bonded_result r;
    memset(&r, 0, sizeof r);
    CHECK_OK(ctx, scl_bonded_compute_start_device(b, xs, s->x, NULL, SCL_BONDED_TALLY));
    CHECK_OK(ctx, scl_bonded_compute_finish(b, f, &r));
    CHECK(memcmp(f, f_want, sizeof(double) * n3) == 0,
          "%s: forces from device positions differ from the upload's", label);
    int same = 1;
    for (int kd = 0; kd < SCL_BONDED_KINDS; kd++) {
        same = same && r.energy[kd] == r_want->energy[kd];
        for (int c = 0; c < 6; c++)
            same = same && r.virial[kd][c] == r_want->virial[kd][c];
    }
    CHECK(same && r.energy_coul == r_want->energy_coul,
          "%s: tallies from device positions differ from the upload's", label);
    CHECK(scl_bonded_compute_start_device(b, NULL, s->x, NULL, 0) == SCL_ERR_ARGUMENT,
          "%s: no stream accepted", label);
    if (s->nlocal >= 30) /* (owned atoms in some term: the copy runs) */
        CHECK(scl_bonded_compute_start_device(b, xf, s->x, NULL, 0) == SCL_ERR_ARGUMENT,
              "%s: a float stream accepted", label);
    CHECK(scl_bonded_pending(b) == 0, "%s: a refused start left an evaluation pending", label);
    scl_clear_error(ctx);
    scl_stream_free(xs);
    scl_stream_free(xf);
    free(f);
}

/* SCL_BONDED_DEVICE_FORCES: the sums added into another module's rows (here
 * made up "pair" values, float or double rows), the ghosts' written after
 * them (their rows NaN before: not read), against the downloading path's
 * forces f_want; too few rows and a plain finish refused */
static void compare_gather_into(scl_context *ctx, scl_bonded *b, const system_t *s,
                                const double *f_want, scl_type type, scl_precision prec,
                                const char *label)
{
    const int nl = s->nlocal, ng = scl_bonded_ghost_rows(b), rows = nl + ng + 2;
    const size_t n3 = 3 * (size_t)s->nall, nr = 4 * (size_t)rows;
    double *pair = malloc(sizeof(double) * nr), *back = malloc(sizeof(double) * nr);
    float *tmp = malloc(sizeof(float) * nr);
    double *f = calloc(n3, sizeof(double));
    scl_stream *rs = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "test rows", type, nr, 1, 1, 0, &rs));
    if (!pair || !back || !tmp || !f || !rs) {
        CHECK(0, "%s: out of memory", label);
        free(pair), free(back), free(tmp), free(f), scl_stream_free(rs);
        return;
    }
    for (size_t i = 0; i < nr; i++) /* float-exact values, NaN in the ghost rows */
        pair[i] = i < 4 * (size_t)nl ? (double)(float)(0.25 * (double)(i % 97) - 7.0) : NAN;
    for (size_t i = 0; i < nr; i++) tmp[i] = (float)pair[i];
    CHECK_OK(ctx, scl_stream_write(rs, type == SCL_DOUBLE ? (void *)pair : (void *)tmp, 1, NULL));
    /* built at set-up: the evaluations below build no program, make no kernel */
    CHECK_OK(ctx, scl_bonded_prepare_rows(b, type));
    CHECK(scl_bonded_prepare_rows(b, SCL_INT) == SCL_ERR_ARGUMENT, "%s: int rows prepared", label);
    scl_clear_error(ctx);
    scl_build_stats built0, built1;
    scl_build_stats_get(ctx, &built0);
    CHECK_OK(ctx, scl_bonded_compute_start(b, s->x, NULL, SCL_BONDED_DEVICE_FORCES));
    CHECK(scl_bonded_gather_into(b, rs, type, nl, ng - 1) == -1 || ng == 0,
          "%s: too few extra rows accepted", label);
    CHECK(scl_bonded_gather_into(b, rs, type, nl, ng + 2) == ng, "%s: gather_into", label);
    CHECK(scl_bonded_compute_finish(b, f, NULL) == SCL_ERR_ARGUMENT,
          "%s: a deferred evaluation finished as a plain one", label);
    CHECK_OK(ctx, scl_bonded_compute_start(b, s->x, NULL, SCL_BONDED_DEVICE_FORCES));
    CHECK_OK(ctx, scl_stream_write(rs, type == SCL_DOUBLE ? (void *)pair : (void *)tmp, 1, NULL));
    CHECK(scl_bonded_gather_into(b, rs, type, nl, ng + 2) == ng, "%s: gather_into", label);
    scl_build_stats_get(ctx, &built1);
    CHECK(built1.programs == built0.programs && built1.kernels == built0.kernels,
          "%s: gather_into after prepare_rows built %ld programs, made %ld kernels", label,
          built1.programs - built0.programs, built1.kernels - built0.kernels);
    if (type == SCL_DOUBLE) CHECK_OK(ctx, scl_stream_read(rs, back, 1, NULL));
    else {
        CHECK_OK(ctx, scl_stream_read(rs, tmp, 1, NULL));
        for (size_t i = 0; i < nr; i++) back[i] = tmp[i];
    }
    CHECK_OK(ctx, scl_bonded_compute_finish_rows(b, back + 4 * (size_t)nl, SCL_DOUBLE, f, NULL));
    /* owned: row - pair = the bonded force (rounded once with the row);
     * ghosts: finish_rows added their rows to f */
    /* f_want: float sums in mixed */
    const double tol = type == SCL_DOUBLE && prec == SCL_PREC_DOUBLE ? 1e-12 : 1e-6;
    double worst = 0, scale = max_abs(f_want, n3) + 8.0;
    for (int i = 0; i < s->nall; i++)
        for (int d = 0; d < 3; d++) {
            const double got = i < nl ? back[4 * (size_t)i + d] - pair[4 * (size_t)i + d]
                                      : f[3 * (size_t)i + d];
            worst = test_max(worst, test_absdiff(got, f_want[3 * (size_t)i + d]) / scale);
        }
    CHECK(worst <= tol, "%s: forces summed into %s rows off by %g", label,
          type == SCL_DOUBLE ? "double" : "float", worst);
    scl_clear_error(ctx);
    free(pair), free(back), free(tmp), free(f), scl_stream_free(rs);
}

static void compare(scl_context *ctx, const coeffs_t *k, const system_t *s, int newton,
                    scl_precision prec, const char *label)
{
    const double tol = prec == SCL_PREC_DOUBLE ? 1e-10 : 1e-6;
    scl_bonded_options o;
    scl_bonded_options_default(&o);
    o.precision = prec;
    scl_bonded *b = NULL;
    CHECK_OK(ctx, scl_bonded_create(ctx, &o, &b));
    if (!b)
        return;
    scl_bonded_topology t = topology(s, newton);
    CHECK_OK(ctx, scl_bonded_set_coeffs(b, &k->c));
    CHECK_OK(ctx, scl_bonded_set_topology(b, &t));
    const int n = s->nall;
    const size_t pa = (size_t)SCL_BONDED_KINDS * n;
    double *f_ref = calloc(3 * (size_t)n, sizeof(double)), *f_dev = calloc(3 * (size_t)n, sizeof(double));
    double *f_again = calloc(3 * (size_t)n, sizeof(double));
    double *e_ref = calloc(pa, sizeof(double)), *e_dev = calloc(pa, sizeof(double));
    double *v_ref = calloc(6 * pa, sizeof(double)), *v_dev = calloc(6 * pa, sizeof(double));
    scl_bonded_result rr = {.eatom = e_ref, .vatom = v_ref}, rd = {.eatom = e_dev, .vatom = v_dev};
    char err[256] = "";
    CHECK(scl_bonded_reference(&k->c, &t, s->x, f_ref, &rr, err, sizeof err) == SCL_OK, "%s", err);
    CHECK_OK(ctx, scl_bonded_compute(b, s->x, NULL, SCL_BONDED_TALLY | SCL_BONDED_PER_ATOM,
                                     f_dev, &rd));
    CHECK_OK(ctx, scl_bonded_compute(b, s->x, s->q, 0, f_again, NULL));
    /* the two halves give the same bits; one evaluation at a time */
    double *f_split = calloc(3 * (size_t)n, sizeof(double));
    scl_bonded_result r3;
    memset(&r3, 0, sizeof r3);
    CHECK_OK(ctx, scl_bonded_compute_start(b, s->x, NULL, SCL_BONDED_TALLY));
    CHECK(scl_bonded_pending(b) == 1, "%s: nothing pending after start", label);
    CHECK(scl_bonded_set_topology(b, &t) == SCL_ERR_ARGUMENT, "%s: topology while pending", label);
    CHECK(scl_bonded_compute_start(b, s->x, NULL, 0) == SCL_ERR_ARGUMENT, "%s: start twice", label);
    CHECK_OK(ctx, scl_bonded_compute_finish(b, f_split, &r3));
    CHECK(scl_bonded_pending(b) == 0, "%s: still pending after finish", label);
    CHECK(memcmp(f_split, f_again, sizeof(double) * 3 * (size_t)n) == 0,
          "%s: start/finish forces differ from compute's", label);
    CHECK(r3.energy[2] == rd.energy[2] && r3.virial[0][3] == rd.virial[0][3],
          "%s: start/finish tallies differ from compute's", label);
    compare_device_x(ctx, b, s, f_split, &r3, label);
    compare_gather_into(ctx, b, s, f_split, SCL_DOUBLE, prec, label);
    compare_gather_into(ctx, b, s, f_split, SCL_FLOAT, prec, label);
    free(f_split);
    const int ng = newton ? n : s->nlocal;
    CHECK(scl_bonded_gather_count(b) == ng, "gather count %d, want %d", scl_bonded_gather_count(b), ng);

    /* forces: per atom, relative to max(|f_ref atom|, rms |f_ref|) */
    double rms = 0;
    for (int i = 0; i < 3 * n; i++)
        rms += f_ref[i] * f_ref[i];
    rms = sqrt(rms / (n > 0 ? n : 1));
    double worst = 0;
    int bad = 0, same = 1;
    for (int i = 0; i < n; i++) {
        const double *a = f_dev + 3 * i, *r = f_ref + 3 * i;
        const double fr = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        const double scale = fr > rms ? fr : rms;
        for (int d = 0; d < 3; d++) {
            const double e = fabs(a[d] - r[d]) / (scale > 0 ? scale : 1);
            if (!(e <= tol))
                bad++;
            if (e > worst || e != e)
                worst = e;
            if (f_again[3 * i + d] != a[d])
                same = 0;
        }
        if (i >= ng)
            CHECK(a[0] == 0 && a[1] == 0 && a[2] == 0, "%s: atom %d (not gathered) got a force",
                  label, i);
    }
    CHECK(bad == 0, "%s: %d force components beyond %g (worst %.3g)", label, bad, tol, worst);
    CHECK(same, "%s: a second compute gave different force bits", label);
    printf("%s: worst force error %.3g (rms |f| %.4g)\n", label, worst, rms);

    /* energies and virials per kind, relative to the largest of the kind */
    static const char *kinds[SCL_BONDED_KINDS] = {"bond", "angle", "dihedral", "improper", "1-4"};
    for (int kd = 0; kd < SCL_BONDED_KINDS; kd++) {
        const double es = fabs(rr.energy[kd]) + (kd == 4 ? fabs(rr.energy_coul) : 0) + 1e-300;
        CHECK(close_to(rd.energy[kd], rr.energy[kd], tol, es), "%s: %s energy %.17g vs %.17g",
              label, kinds[kd], rd.energy[kd], rr.energy[kd]);
        const double vs = max_abs(rr.virial[kd], 6) + 1e-300;
        for (int c = 0; c < 6; c++)
            CHECK(close_to(rd.virial[kd][c], rr.virial[kd][c], tol, vs),
                  "%s: %s virial[%d] %.17g vs %.17g", label, kinds[kd], c, rd.virial[kd][c],
                  rr.virial[kd][c]);
        const double eas = max_abs(e_ref + (size_t)kd * n, (size_t)n) + 1e-300;
        const double vas = max_abs(v_ref + (size_t)kd * n * 6, 6 * (size_t)n) + 1e-300;
        int ebad = 0, vbad = 0;
        for (int i = 0; i < ng; i++) {
            ebad += !close_to(e_dev[(size_t)kd * n + i], e_ref[(size_t)kd * n + i], tol, eas);
            for (int c = 0; c < 6; c++)
                vbad += !close_to(v_dev[((size_t)kd * n + i) * 6 + c],
                                  v_ref[((size_t)kd * n + i) * 6 + c], tol, vas);
        }
        CHECK(ebad == 0 && vbad == 0, "%s: %s per-atom energies %d, virials %d off", label,
              kinds[kd], ebad, vbad);
    }
    CHECK(close_to(rd.energy_coul, rr.energy_coul, tol, fabs(rr.energy_coul) + 1e-300),
          "%s: 1-4 Coulomb %.17g vs %.17g", label, rd.energy_coul, rr.energy_coul);
    /* the sums of the per-atom values are the global ones (this rank's share) */
    double esum = 0;
    for (int i = 0; i < ng; i++)
        esum += e_ref[i];
    CHECK(close_to(esum, rr.energy[0], 1e-12, fabs(rr.energy[0]) + 1e-300),
          "%s: reference bond per-atom sum %.17g vs global %.17g", label, esum, rr.energy[0]);
    free(f_ref);
    free(f_dev);
    free(f_again);
    free(e_ref);
    free(e_dev);
    free(v_ref);
    free(v_dev);
    scl_bonded_free(b);
}

static void bad_input(scl_context *ctx, const coeffs_t *k, system_t *s)
{
    scl_bonded *b = NULL;
    CHECK_OK(ctx, scl_bonded_create(ctx, NULL, &b));
    if (!b)
        return;
    scl_bonded_topology t = topology(s, 1);
    CHECK(scl_bonded_set_topology(b, &t) == SCL_ERR_ARGUMENT, "topology before coefficients");
    CHECK_OK(ctx, scl_bonded_set_coeffs(b, &k->c));
    const int saved = s->angles[4 * 2 + 1];
    s->angles[4 * 2 + 1] = s->nall;
    CHECK(scl_bonded_set_topology(b, &t) == SCL_ERR_INPUT &&
              strstr(scl_last_error(ctx), "angle 2: atom index"),
          "index out of range: %s", scl_last_error(ctx));
    s->angles[4 * 2 + 1] = saved;
    const int saved_type = s->bonds[3 * 1 + 2];
    s->bonds[3 * 1 + 2] = MAX_TYPES + 1;
    CHECK(scl_bonded_set_topology(b, &t) == SCL_ERR_INPUT &&
              strstr(scl_last_error(ctx), "bond 1: type"),
          "type out of range: %s", scl_last_error(ctx));
    s->bonds[3 * 1 + 2] = saved_type;
    coeffs_t k2 = *k;
    make_coeffs(&(uint64_t){1}, &k2, 0);
    k2.bond_r0[3] = NAN;
    CHECK(scl_bonded_set_coeffs(b, &k2.c) == SCL_ERR_INPUT &&
              strstr(scl_last_error(ctx), "not finite"),
          "NaN coefficient: %s", scl_last_error(ctx));
    CHECK(scl_bonded_compute(b, s->x, NULL, 0, NULL, NULL) == SCL_ERR_ARGUMENT,
          "compute before a topology");
    scl_bonded_free(b);
}

int main(void)
{
    scl_context *ctx = test_context();
    uint64_t rng = test_seed();
    const int have_fp64 = scl_device(ctx)->fp64;
    if (!have_fp64) {
        SKIP("%s has no fp64 (the bonded module needs it)", scl_device(ctx)->name);
        scl_context_free(ctx);
        return test_summary("bonded");
    }
    coeffs_t k;
    /* sizes around the work-group (64): 1, 63, 65, 130 terms; empty kinds */
    const int shapes[][6] = {{7, 3, 1, 1, 1, 1},       {50, 17, 63, 65, 64, 1},
                             {200, 40, 130, 129, 66, 63}, {40, 0, 0, 33, 0, 5},
                             {30, 10, 0, 0, 70, 0}};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
        make_coeffs(&rng, &k, (int)(sh % 2));
        system_t s;
        const int *z = shapes[sh];
        make_system(&rng, &s, z[0], z[1], z[2], z[3], z[4], z[5]);
        for (int newton = 0; newton <= 1; newton++)
            for (int p = 0; p < 2; p++) {
                char label[96];
                snprintf(label, sizeof label, "shape %zu (%d+%d atoms, %d/%d/%d/%d) newton %d %s",
                         sh, z[0], z[1], z[2], z[3], z[4], z[5], newton, p ? "double" : "mixed");
                compare(ctx, &k, &s, newton, p ? SCL_PREC_DOUBLE : SCL_PREC_MIXED, label);
            }
        if (sh == 1)
            bad_input(ctx, &k, &s);
        system_free(&s);
    }
    /* one engine through a growing then shrinking topology (buffers reused) */
    {
        scl_bonded *b = NULL;
        CHECK_OK(ctx, scl_bonded_create(ctx, NULL, &b));
        make_coeffs(&rng, &k, 0);
        CHECK_OK(ctx, scl_bonded_set_coeffs(b, &k.c));
        const int sizes[3][2] = {{20, 10}, {300, 150}, {25, 5}};
        for (int r = 0; r < 3 && b; r++) {
            system_t s;
            make_system(&rng, &s, sizes[r][0], 4, sizes[r][1], sizes[r][1], sizes[r][1], 3);
            scl_bonded_topology t = topology(&s, 1);
            double *f1 = calloc(3 * (size_t)s.nall, sizeof(double)),
                   *f2 = calloc(3 * (size_t)s.nall, sizeof(double));
            scl_bonded_result r1, r2;
            CHECK_OK(ctx, scl_bonded_set_topology(b, &t));
            CHECK_OK(ctx, scl_bonded_compute(b, s.x, NULL, SCL_BONDED_TALLY, f1,
                                             &(scl_bonded_result){0}));
            memset(&r1, 0, sizeof r1);
            memset(&r2, 0, sizeof r2);
            CHECK_OK(ctx, scl_bonded_compute(b, s.x, NULL, SCL_BONDED_TALLY, f1, &r1));
            scl_bonded_reference(&k.c, &t, s.x, f2, &r2, NULL, 0);
            /* f1 holds two evaluations */
            int bad = 0;
            for (int i = 0; i < 3 * s.nall; i++)
                bad += !close_to(f1[i], 2 * f2[i], 1e-6, max_abs(f2, 3 * (size_t)s.nall));
            CHECK(bad == 0, "reuse round %d: %d force components off", r, bad);
            CHECK(close_to(r1.energy[2], r2.energy[2], 1e-6, fabs(r2.energy[2]) + 1e-300),
                  "reuse round %d: dihedral energy %.17g vs %.17g", r, r1.energy[2], r2.energy[2]);
            free(f1);
            free(f2);
            system_free(&s);
        }
        scl_bonded_free(b);
    }
    scl_context_free(ctx);
    return test_summary("bonded");
}
