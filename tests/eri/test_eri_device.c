/* The OpenCL engine against the C reference: unique tensors (every Boys
 * variant, Boys widths 1, 2 and 4 with primitive-pair counts that leave a
 * partial group, several work-group sizes, padded primitive pairs), integral-
 * direct J/K against contractions of the explicit tensor, RHF energies, the
 * Schwarz screening bound, and the single-precision error. */
#include "test_util.h"
#include "streamcl/eri.h"

#include <string.h>

static scl_context *ctx;

static void build(const char *basis_text, const scl_eri_atom *atoms, size_t n,
                  scl_eri_system *s)
{
    char err[512];
    scl_eri_basis b;
    if (basis_text[0] == 's')
        CHECK(scl_eri_basis_sto(basis_text[4] - '0', &b, err, sizeof err) == SCL_OK, "%s", err);
    else
        CHECK(scl_eri_basis_parse(basis_text, strlen(basis_text), "mixed", &b, err, sizeof err) ==
                  SCL_OK,
              "%s", err);
    CHECK(scl_eri_system_build(&b, atoms, n, s, err, sizeof err) == SCL_OK, "%s", err);
    scl_eri_basis_free(&b);
}

static double max_diff(size_t n, const double *a, const double *b)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= m))
            m = d;
    }
    return m;
}

/* Tensor and J/K of one system with one forced plan against the reference. */
static void compare(const scl_eri_system *s, const char *force, uint64_t *seed)
{
    size_t n = s->nfunc, count = scl_eri_unique_count(n);
    double *ref = malloc(count * sizeof *ref), *dev = malloc(count * sizeof *dev);
    double *D = malloc(5 * n * n * sizeof *D), *J = D + n * n, *K = J + n * n, *Jr = K + n * n,
           *Kr = Jr + n * n;
    CHECK(scl_eri_ref_tensor(s, 0, ref, NULL) == SCL_OK, "reference");
    scl_eri *e = NULL;
    scl_eri_options o;
    scl_eri_options_default(&o);
    o.force = force;
    CHECK_OK(ctx, scl_eri_create(ctx, s, &o, &e));
    if (!e)
        goto done;
    CHECK_OK(ctx, scl_eri_tensor(e, dev, NULL));
    double dt = max_diff(count, dev, ref);
    scl_eri_counts c = scl_eri_last_counts(e);
    CHECK(c.unique_quartets == count && c.screened_quartets == 0, "counts %llu",
          (unsigned long long)c.unique_quartets);
    /* a random symmetric density */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            D[i * n + j] = D[j * n + i] = 2 * test_uniform(seed) - 1;
    CHECK_OK(ctx, scl_eri_jk(e, D, J, K, NULL));
    scl_eri_jk_from_tensor(n, ref, D, Jr, Kr);
    double dj = max_diff(n * n, J, Jr), dk = max_diff(n * n, K, Kr);
    printf("%zu functions, plan %s: tensor %.3e, J %.3e, K %.3e (max |difference|)\n", n, force,
           dt, dj, dk);
    CHECK(dt <= 1e-12, "tensor differs by %.3e", dt);
    CHECK(dj <= 1e-11 && dk <= 1e-11, "J %.3e K %.3e", dj, dk);
done:
    scl_eri_free(e);
    free(ref);
    free(dev);
    free(D);
}

static void jitter_lattice(int nx, int ny, int nz, double h, double amp, uint64_t *seed,
                           scl_eri_atom **atoms, size_t *n)
{
    char err[256];
    CHECK(scl_eri_lattice(nx, ny, nz, h, 1, atoms, n, err, sizeof err) == SCL_OK, "%s", err);
    for (size_t a = 0; a < *n; a++)
        for (int d = 0; d < 3; d++)
            (*atoms)[a].xyz[d] += amp * (2 * test_uniform(seed) - 1);
}

static double rhf(const scl_eri_system *s, scl_eri *e, const double *tensor, double schwarz,
                  double **density)
{
    char err[512];
    scl_eri_scf_result r;
    scl_eri_scf_options o = {.schwarz = schwarz, .e_tol = 1e-12, .g_tol = 1e-9};
    scl_status st = scl_eri_rhf(s, e, tensor, &o, &r, err, sizeof err);
    CHECK(st == SCL_OK && r.converged, "%s", err);
    double energy = st == SCL_OK ? r.energy : NAN;
    if (density && st == SCL_OK) {
        *density = r.density;
        r.density = NULL;
    }
    scl_eri_scf_result_free(&r);
    return energy;
}

/* Dropping a unique quartet q (multiplicity m) changes E2 = 1/2 sum D D [(ij|kl) - 1/2 (ik|jl)]
 * by at most m |q| (|D_ij D_kl| / 2 + max(|D_ik D_jl|, |D_il D_jk|) / 4), |q| <= Q_ij Q_kl:
 * the first-order bound on the energy change that screening causes. */
static double screening_bound(const scl_eri_system *s, const double *D, double threshold,
                              size_t *screened)
{
    size_t n = s->nfunc, np = n * (n + 1) / 2;
    double *Q = malloc(np * sizeof *Q), bound = 0;
    scl_eri_ref_schwarz(s, Q);
    *screened = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            for (size_t k = 0; k < n; k++)
                for (size_t l = 0; l <= k; l++) {
                    size_t ij = i * (i + 1) / 2 + j, kl = k * (k + 1) / 2 + l;
                    if (kl > ij || Q[ij] * Q[kl] >= threshold)
                        continue;
                    double m = (i == j ? 1 : 2) * (k == l ? 1 : 2) * (ij == kl ? 1 : 2);
                    double x = test_max(fabs(D[i * n + k] * D[j * n + l]), fabs(D[i * n + l] * D[j * n + k]));
                    bound += m * Q[ij] * Q[kl] * (fabs(D[i * n + j] * D[k * n + l]) / 2 + x / 4);
                    (*screened)++;
                }
    free(Q);
    return bound;
}

int main(void)
{
    uint64_t seed = test_seed();
    ctx = test_context();
    if (!scl_device(ctx)->fp64) {
        printf("device without fp64: skipped\n");
        scl_context_free(ctx);
        return 77;
    }
    scl_eri_atom *atoms;
    size_t na;
    scl_eri_system s;

    /* a jittered 2x2x2 lattice, STO-3G and STO-6G, every Boys variant */
    jitter_lattice(2, 2, 2, 1.4, 0.3, &seed, &atoms, &na);
    build("sto-3g", atoms, na, &s);
    compare(&s, "wg=64,boys=0", &seed);
    compare(&s, "wg=32,boys=1", &seed);
    compare(&s, "wg=64,boys=2,vw=1", &seed);
    compare(&s, "wg=64,boys=2,vw=4", &seed);
    scl_eri_system_free(&s);
    build("sto-6g", atoms, na, &s);
    compare(&s, "wg=128,boys=0,types=0", &seed);
    compare(&s, "wg=128,boys=2,types=1,vw=4", &seed);
    compare(&s, "wg=32,boys=2,types=1,vw=2", &seed);
    compare(&s, "wg=64,boys=2,types=0,vw=4", &seed);
    scl_eri_system_free(&s);
    free(atoms);
    /* more pairs than a work-group: runs of equal k cross group boundaries */
    jitter_lattice(3, 3, 2, 1.5, 0.2, &seed, &atoms, &na);
    build("sto-2g", atoms, na, &s);
    compare(&s, "wg=32,boys=2,vw=4", &seed);
    scl_eri_system_free(&s);
    free(atoms);

    /* mixed contraction lengths (padded primitive pairs), two shells on He */
    const char *mixed = "H S\n 3.42525091 0.15432897\n 0.62391373 0.53532814\n"
                        " 0.16885540 0.44463454\nHe S\n 6.36242139 0.15432897\n"
                        " 1.15892300 0.53532814\n 0.31364979 0.44463454\nHe S\n 0.3 1.0\n";
    scl_eri_atom hhe[4] = {{1, {0, 0, 0}}, {2, {0, 0, 1.5}}, {1, {1.3, 0.2, 0.1}},
                           {2, {-1.0, 1.1, 0.7}}};
    build(mixed, hhe, 4, &s);
    compare(&s, "wg=32,boys=0,vw=2", &seed);
    compare(&s, "wg=32,boys=2,vw=4", &seed);
    /* RHF: device direct vs the host tensor */
    double e_dev = NAN, e_ref = rhf(&s, NULL, NULL, 0, NULL);
    scl_eri *e = NULL;
    scl_eri_options o;
    scl_eri_options_default(&o);
    o.force = "wg=64,boys=0";
    CHECK_OK(ctx, scl_eri_create(ctx, &s, &o, &e));
    if (e)
        e_dev = rhf(&s, e, NULL, 0, NULL);
    printf("H2He2 (mixed basis) RHF: device %.12f, reference %.12f\n", e_dev, e_ref);
    CHECK(fabs(e_dev - e_ref) <= 1e-10, "RHF differs by %.3e", e_dev - e_ref);
    scl_eri_free(e);
    scl_eri_system_free(&s);

    /* screening: a 1x2x10 ladder, threshold 1e-7 */
    CHECK(scl_eri_lattice(1, 2, 10, 1.6, 1, &atoms, &na, (char[256]){0}, 256) == SCL_OK, "lattice");
    build("sto-3g", atoms, na, &s);
    free(atoms);
    double *D = NULL, threshold = 1e-7;
    double e0 = rhf(&s, NULL, NULL, 0, &D);
    e = NULL;
    scl_eri_options_default(&o);
    o.schwarz = threshold, o.force = "wg=64,boys=2";
    CHECK_OK(ctx, scl_eri_create(ctx, &s, &o, &e));
    double e1 = e ? rhf(&s, e, NULL, 0, NULL) : NAN;
    size_t screened = 0;
    double bound = D ? screening_bound(&s, D, threshold, &screened) : NAN;
    scl_eri_counts c = e ? scl_eri_last_counts(e) : (scl_eri_counts){0};
    printf("screening %g: %llu of %llu quartets skipped (bound count %zu), |dE| = %.3e, bound "
           "%.3e\n",
           threshold, (unsigned long long)c.screened_quartets,
           (unsigned long long)c.unique_quartets, screened, fabs(e1 - e0), bound);
    CHECK(c.screened_quartets > 0 && c.screened_quartets == screened, "screened %llu vs %zu",
          (unsigned long long)c.screened_quartets, screened);
    CHECK(fabs(e1 - e0) <= bound, "|dE| %.3e exceeds the bound %.3e", fabs(e1 - e0), bound);
    CHECK(bound < 1e-4, "bound %.3e", bound);
    scl_eri_free(e);
    free(D);

    /* single precision: integrals only, error documented (table and register Boys) */
    size_t count = scl_eri_unique_count(s.nfunc);
    double *t32 = malloc(count * sizeof *t32), *t64 = malloc(count * sizeof *t64);
    CHECK(scl_eri_ref_tensor(&s, 0, t64, NULL) == SCL_OK, "reference");
    const char *single[] = {"wg=64,boys=0", "wg=64,boys=2,vw=4"};
    for (int v = 0; v < 2; v++) {
        e = NULL;
        scl_eri_options_default(&o);
        o.precision = SCL_PREC_SINGLE, o.force = single[v];
        CHECK_OK(ctx, scl_eri_create(ctx, &s, &o, &e));
        if (e) {
            CHECK_OK(ctx, scl_eri_tensor(e, t32, NULL));
            double d = max_diff(count, t32, t64);
            printf("single precision tensor (%s): max |difference| %.3e\n", single[v], d);
            CHECK(d > 0 && d < 1e-5, "single precision error %.3e (%s)", d, single[v]);
            CHECK(scl_eri_jk(e, t64, t64, t64, NULL) == SCL_ERR_UNSUPPORTED, "FP32 J/K accepted");
        }
        scl_eri_free(e);
    }
    free(t32);
    free(t64);
    scl_eri_system_free(&s);
    scl_context_free(ctx);
    return test_summary("eri_device");
}
