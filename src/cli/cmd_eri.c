/* streamcl eri: two-electron integrals over s Gaussians on the device, the
 * unique tensor's rate, integral-direct J/K and closed-shell RHF. */
#include "commands.h"
#include "streamcl/eri.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: streamcl eri [--lattice NXxNYxNZ] [--spacing BOHR] [--xyz FILE] [--units U]\n"
            "                    [--basis sto-Ng|FILE] [--schwarz T] [--engine opencl|reference]\n"
            "                    [--tensor] [--check] [--precision double|single] [--jk N]\n"
            "                    [--scf 0|1] [--mode direct|incore] [--max-iter N] [--e-tol E]\n"
            "                    [--g-tol G] [--diis N] [--fcidump FILE] [--tune 0|1]\n"
            "                    [--plan wg=..,boys=..] [--device SPEC]\n"
            "  --lattice      hydrogen atoms on a cubic lattice (default 2x2x2)\n"
            "  --spacing      lattice spacing in bohr (default 1.4)\n"
            "  --xyz FILE     geometry from an XYZ file instead (--units angstrom (default) or bohr)\n"
            "  --basis        sto-1g .. sto-6g (hydrogen, default sto-6g) or an NWChem-format\n"
            "                 file with s shells only\n"
            "  --schwarz T    skip quartets with sqrt((ij|ij)(kl|kl)) < T (default 1e-12; 0: none)\n"
            "  --engine       opencl (default) or reference (host C in double, OpenMP)\n"
            "  --tensor       compute every unique integral once and report the rate\n"
            "  --check        compare the device tensor with the C reference (small systems)\n"
            "  --precision    of the --tensor integrals: double (default) or single (then also\n"
            "                 computed in double and the largest difference reported)\n"
            "  --jk N         time N integral-direct J/K builds (core-guess density)\n"
            "  --scf 0|1      run RHF (default 1): core guess, DIIS; energies per iteration\n"
            "  --mode         direct: J/K integral-direct every iteration (default);\n"
            "                 incore: the tensor once, J/K from it on the host\n"
            "  --e-tol/--g-tol  convergence: energy change and max |FDS-SDF| (1e-10, 1e-8)\n"
            "  --fcidump FILE   MO integrals after RHF in FCIDUMP format (at most 64 functions)\n"
            "Rates count primitive quartets of the unique, unscreened contracted quartets;\n"
            "device times are kernel event times.\n");
}

typedef struct {
    long nx, ny, nz, tensor, check, jk, scf, max_iter, diis, tune;
    double spacing, schwarz, e_tol, g_tol;
    const char *xyz, *basis, *engine, *mode, *fcidump, *device, *plan;
    int angstrom, lattice_given;
    scl_precision precision;
} eri_args;

static int parse_lattice(const char *text, eri_args *a)
{
    char extra;
    if (sscanf(text, "%ldx%ldx%ld%c", &a->nx, &a->ny, &a->nz, &extra) != 3 || a->nx < 1 ||
        a->ny < 1 || a->nz < 1 || a->nx * a->ny * a->nz > 20000) {
        fprintf(stderr,
                "streamcl eri: --lattice needs NXxNYxNZ with counts >= 1 and at most 20000 "
                "atoms, got '%s'\n",
                text);
        return -1;
    }
    return 0;
}

/* The options with a numeric value; 1 when o was one (*bad: -1 if val is
 * not valid for it). */
static int parse_number(const char *o, const char *val, eri_args *a, int *bad)
{
    if (!strcmp(o, "--lattice")) {
        *bad = parse_lattice(val, a);
        a->lattice_given = 1;
    } else if (!strcmp(o, "--spacing")) {
        *bad = cli_parse_double("eri", o, val, &a->spacing);
        if (!*bad && !(a->spacing > 1e-3)) {
            fprintf(stderr, "streamcl eri: --spacing must be > 1e-3 bohr, got '%s'\n", val);
            *bad = -1;
        }
    } else if (!strcmp(o, "--schwarz")) {
        *bad = cli_parse_double("eri", o, val, &a->schwarz);
        if (!*bad && a->schwarz < 0) {
            fprintf(stderr, "streamcl eri: --schwarz must be >= 0, got '%s'\n", val);
            *bad = -1;
        }
    } else if (!strcmp(o, "--e-tol") || !strcmp(o, "--g-tol")) {
        double *t = o[2] == 'e' ? &a->e_tol : &a->g_tol;
        *bad = cli_parse_double("eri", o, val, t);
        if (!*bad && !(*t > 0)) {
            fprintf(stderr, "streamcl eri: %s must be positive, got '%s'\n", o, val);
            *bad = -1;
        }
    } else if (!strcmp(o, "--jk"))
        *bad = cli_parse_long("eri", o, val, 0, 1000, &a->jk);
    else if (!strcmp(o, "--scf"))
        *bad = cli_parse_long("eri", o, val, 0, 1, &a->scf);
    else if (!strcmp(o, "--tune"))
        *bad = cli_parse_long("eri", o, val, 0, 1, &a->tune);
    else if (!strcmp(o, "--max-iter"))
        *bad = cli_parse_long("eri", o, val, 1, 10000, &a->max_iter);
    else if (!strcmp(o, "--diis"))
        *bad = cli_parse_long("eri", o, val, -1, 32, &a->diis);
    else
        return 0;
    return 1;
}

/* The options with a word or a path as value; as parse_number. */
static int parse_word(const char *o, const char *val, eri_args *a, int *bad)
{
    if (!strcmp(o, "--xyz"))
        a->xyz = val;
    else if (!strcmp(o, "--units")) {
        if (!strcmp(val, "angstrom") || !strcmp(val, "bohr"))
            a->angstrom = !strcmp(val, "angstrom");
        else {
            fprintf(stderr, "streamcl eri: --units is angstrom or bohr, got '%s'\n", val);
            *bad = -1;
        }
    } else if (!strcmp(o, "--basis"))
        a->basis = val;
    else if (!strcmp(o, "--engine")) {
        if (strcmp(val, "opencl") && strcmp(val, "reference")) {
            fprintf(stderr, "streamcl eri: --engine is opencl or reference, got '%s'\n", val);
            *bad = -1;
        }
        a->engine = val;
    } else if (!strcmp(o, "--mode")) {
        if (strcmp(val, "direct") && strcmp(val, "incore")) {
            fprintf(stderr, "streamcl eri: --mode is direct or incore, got '%s'\n", val);
            *bad = -1;
        }
        a->mode = val;
    } else if (!strcmp(o, "--precision")) {
        if (!strcmp(val, "double"))
            a->precision = SCL_PREC_DOUBLE;
        else if (!strcmp(val, "single"))
            a->precision = SCL_PREC_SINGLE;
        else {
            fprintf(stderr, "streamcl eri: --precision is double or single, got '%s'\n", val);
            *bad = -1;
        }
    } else if (!strcmp(o, "--fcidump"))
        a->fcidump = val;
    else if (!strcmp(o, "--device"))
        a->device = val;
    else if (!strcmp(o, "--plan"))
        a->plan = val;
    else
        return 0;
    return 1;
}

static int parse_args(int argc, char **argv, eri_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h"))
            return 1;
        if (!strcmp(o, "--tensor")) {
            a->tensor = 1;
            continue;
        }
        if (!strcmp(o, "--check")) {
            a->check = 1;
            continue;
        }
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val) {
            fprintf(stderr, "streamcl eri: unknown or incomplete option '%s'\n", o);
            return -1;
        }
        i++;
        int bad = 0;
        if (!parse_number(o, val, a, &bad) && !parse_word(o, val, a, &bad)) {
            fprintf(stderr, "streamcl eri: unknown option '%s'\n", o);
            return -1;
        }
        if (bad)
            return -1;
    }
    if (a->xyz && a->lattice_given) {
        fprintf(stderr, "streamcl eri: --xyz and --lattice both give the atoms; choose one\n");
        return -1;
    }
    return 0;
}

static int load_basis(const char *spec, scl_eri_basis *b)
{
    char err[1024];
    int n = 0;
    char tail;
    scl_status st;
    if ((sscanf(spec, "sto-%dg%c", &n, &tail) == 1 || sscanf(spec, "STO-%dG%c", &n, &tail) == 1 ||
         sscanf(spec, "sto%dg%c", &n, &tail) == 1) &&
        access(spec, F_OK) != 0)
        st = scl_eri_basis_sto(n, b, err, sizeof err);
    else
        st = scl_eri_basis_read(spec, b, err, sizeof err);
    if (st != SCL_OK) {
        fprintf(stderr, "streamcl eri: %s\n", err);
        return -1;
    }
    return 0;
}

static void print_iteration(void *user, int iter, double energy, double de, double grad)
{
    (void)user;
    printf("  iter %3d  E = %.12f  dE = %+.3e  |FDS-SDF| = %.3e\n", iter, energy, de, grad);
    fflush(stdout);
}

static double max_abs_diff(size_t n, const double *a, const double *b)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= m))
            m = d; /* NaN propagates */
    }
    return m;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --check of J/K: the device's integral-direct J and K for the core-guess
 * density against those contracted from the C reference tensor, so that a
 * wrong work-group reduction in the J/K kernel (which the tensor never
 * passes through) fails the check. 0 when they agree to 1e-10 relative. */
static int check_jk(scl_context *ctx, const scl_eri_system *sys, const double *ref,
                    scl_eri *engine)
{
    size_t n = sys->nfunc;
    double *D = malloc(5 * n * n * sizeof *D);
    int rc = -1;
    if (!D || scl_eri_core_density(sys, D) != SCL_OK) {
        fprintf(stderr, "streamcl eri: out of memory or no core guess for the J/K check\n");
        free(D);
        return -1;
    }
    double *J = D + n * n, *K = J + n * n, *Jr = K + n * n, *Kr = Jr + n * n;
    if (scl_eri_jk(engine, D, J, K, NULL) != SCL_OK) {
        fprintf(stderr, "streamcl eri: %s\n", scl_last_error(ctx));
        free(D);
        return -1;
    }
    scl_eri_jk_from_tensor(n, ref, D, Jr, Kr);
    double dj = max_abs_diff(n * n, J, Jr), dk = max_abs_diff(n * n, K, Kr), scale = 0;
    for (size_t i = 0; i < 2 * n * n; i++)
        scale = fmax(scale, fabs(Jr[i]));
    printf("J/K device vs C reference: max |difference| %.3e (J) %.3e (K), largest |J|,|K| "
           "%.3e\n", dj, dk, scale);
    if (dj <= 1e-10 * (1 + scale) && dk <= 1e-10 * (1 + scale))
        rc = 0;
    else
        fprintf(stderr, "streamcl eri: --check: the device J/K differ from the C reference's\n");
    free(D);
    return rc;
}

/* The tensor on the device (its rate) and the optional checks. */
static int run_tensor(scl_context *ctx, const scl_eri_system *sys, const eri_args *a,
                      scl_eri *engine)
{
    size_t count = scl_eri_unique_count(sys->nfunc);
    double *t = malloc(count * sizeof *t);
    if (!t) {
        fprintf(stderr, "streamcl eri: no memory for %zu unique integrals\n", count);
        return -1;
    }
    int rc = -1;
    double secs[5];
    for (int r = 0; r < 5; r++)
        if (scl_eri_tensor(engine, r == 0 ? t : NULL, &secs[r]) != SCL_OK) {
            fprintf(stderr, "streamcl eri: %s\n", scl_last_error(ctx));
            goto done;
        }
    qsort(secs, 5, sizeof secs[0], compare);
    double sum = 0;
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(t[i])) {
            fprintf(stderr, "streamcl eri: integral %zu is not finite\n", i);
            goto done;
        }
        sum += t[i];
    }
    scl_eri_counts c = scl_eri_last_counts(engine);
    printf("tensor (%s): %zu unique integrals, %llu screened, %.4g s device (median of 5), "
           "%.4g primitive quartets/s, sum %.12e\n",
           a->precision == SCL_PREC_SINGLE ? "single" : "double", count,
           (unsigned long long)c.screened_quartets, secs[2],
           (double)c.primitive_quartets / secs[2], sum);
    if (a->precision == SCL_PREC_SINGLE) {
        scl_eri *e64 = NULL;
        scl_eri_options o;
        scl_eri_options_default(&o);
        o.schwarz = a->schwarz, o.tune = (int)a->tune, o.force = a->plan;
        double *t64 = malloc(count * sizeof *t64);
        if (!t64 || scl_eri_create(ctx, sys, &o, &e64) != SCL_OK ||
            scl_eri_tensor(e64, t64, NULL) != SCL_OK) {
            fprintf(stderr, "streamcl eri: double-precision tensor: %s\n", scl_last_error(ctx));
            free(t64);
            scl_eri_free(e64);
            goto done;
        }
        printf("single vs double: max |difference| %.3e hartree\n", max_abs_diff(count, t, t64));
        free(t64);
        scl_eri_free(e64);
    }
    if (a->check) {
        double *ref = malloc(count * sizeof *ref);
        if (!ref || scl_eri_ref_tensor(sys, a->schwarz, ref, NULL) != SCL_OK) {
            fprintf(stderr, "streamcl eri: reference tensor failed (memory)\n");
            free(ref);
            goto done;
        }
        double d = max_abs_diff(count, t, ref);
        printf("device vs C reference: max |difference| %.3e hartree\n", d);
        /* single: the integrals round to ~1e-7 relative, largest ~1 */
        double tol = a->precision == SCL_PREC_SINGLE ? 1e-5 : 1e-10;
        int bad = !(d <= tol); /* NaN fails */
        if (bad)
            fprintf(stderr, "streamcl eri: --check: the device tensor differs from the C "
                            "reference by more than %g\n", tol);
        if (!bad && a->precision == SCL_PREC_DOUBLE && check_jk(ctx, sys, ref, engine))
            bad = 1;
        free(ref);
        if (bad)
            goto done;
    }
    rc = 0;
done:
    free(t);
    return rc;
}

static int run_jk(scl_context *ctx, const scl_eri_system *sys, const eri_args *a,
                  scl_eri *engine)
{
    size_t n = sys->nfunc;
    double *D = malloc(3 * n * n * sizeof *D);
    double *secs = malloc((size_t)a->jk * sizeof *secs), *walls = malloc((size_t)a->jk * sizeof *walls);
    int rc = -1;
    if (!D || !secs || !walls || scl_eri_core_density(sys, D) != SCL_OK) {
        fprintf(stderr, "streamcl eri: out of memory or no core guess for the J/K benchmark\n");
        goto done;
    }
    for (long r = 0; r < a->jk; r++) {
        double w0 = cli_now();
        if (scl_eri_jk(engine, D, D + n * n, D + 2 * n * n, &secs[r]) != SCL_OK) {
            fprintf(stderr, "streamcl eri: %s\n", scl_last_error(ctx));
            goto done;
        }
        walls[r] = cli_now() - w0;
    }
    for (size_t i = 0; i < 2 * n * n; i++)
        if (!isfinite(D[n * n + i])) {
            fprintf(stderr, "streamcl eri: J/K has non-finite values\n");
            goto done;
        }
    qsort(secs, (size_t)a->jk, sizeof *secs, compare);
    qsort(walls, (size_t)a->jk, sizeof *walls, compare);
    scl_eri_counts c = scl_eri_last_counts(engine);
    printf("J/K integral-direct: %.4g s device, %.4g s wall (median of %ld), %.4g primitive "
           "quartets/s\n",
           secs[a->jk / 2], walls[a->jk / 2], a->jk, (double)c.primitive_quartets / secs[a->jk / 2]);
    rc = 0;
done:
    free(D);
    free(secs);
    free(walls);
    return rc;
}

static int write_fcidump(const scl_eri_system *sys, const scl_eri_scf_result *r,
                         const double *tensor, const char *path)
{
    size_t n = sys->nfunc, count = scl_eri_unique_count(n);
    double *own = NULL, *mo = malloc(count * sizeof *mo), *h = malloc(n * n * sizeof *h);
    char err[1024];
    int rc = -1;
    if (!mo || !h)
        goto done;
    if (!tensor) {
        own = malloc(count * sizeof *own);
        if (!own || scl_eri_ref_tensor(sys, 0, own, NULL) != SCL_OK)
            goto done;
        tensor = own;
    }
    if (scl_eri_ao_to_mo(n, r->coefficients, r->core_hamiltonian, tensor, h, mo) != SCL_OK)
        goto done;
    if (scl_eri_fcidump_write(path, n, sys->nelectron, h, mo, r->e_nuclear, 1e-14, err,
                              sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl eri: %s\n", err);
        goto done;
    }
    rc = 0;
done:
    if (rc && !err[0])
        fprintf(stderr, "streamcl eri: out of memory for the FCIDUMP transformation\n");
    free(own);
    free(mo);
    free(h);
    return rc;
}

static int eri_run(eri_args a, const char *fcidump_path);

int cmd_eri(int argc, char **argv)
{
    eri_args a = {.nx = 2, .ny = 2, .nz = 2, .spacing = 1.4, .schwarz = 1e-12, .scf = 1,
                  .basis = "sto-6g", .engine = "opencl", .mode = "direct", .angstrom = 1,
                  .tune = 1, .diis = 0, .precision = SCL_PREC_DOUBLE};
    int p = parse_args(argc, argv, &a);
    if (p > 0) {
        usage(stdout);
        return 0;
    }
    if (p < 0)
        return 2;
    int reference = !strcmp(a.engine, "reference");
    if (a.precision == SCL_PREC_SINGLE && (!a.tensor || reference)) {
        fprintf(stderr, "streamcl eri: --precision single applies to --tensor on the opencl "
                        "engine only (energies are always computed in double)\n");
        return 2;
    }
    if (a.jk && reference) {
        fprintf(stderr, "streamcl eri: --jk times the device's integral-direct J/K: it needs "
                        "--engine opencl\n");
        return 2;
    }
    if (a.fcidump && !a.scf) {
        fprintf(stderr, "streamcl eri: --fcidump needs the RHF orbitals (--scf 1)\n");
        return 2;
    }
    /* the output is claimed before any work: not an input, not a device
     * renamed over; committed only when the run succeeds */
    cli_outputs out;
    cli_outputs_init(&out, "eri");
    cli_input(&out, a.xyz);
    if (access(a.basis, F_OK) == 0)
        cli_input(&out, a.basis);
    const char *fcidump_path = NULL;
    int rc = 1;
    if (!a.fcidump || (fcidump_path = cli_output(&out, a.fcidump)))
        rc = eri_run(a, fcidump_path);
    if (rc == 0 && fcidump_path) {
        if (cli_outputs_commit(&out) == 0)
            printf("wrote %s (MO basis)\n", a.fcidump);
        else
            rc = 1;
    }
    cli_outputs_free(&out);
    return rc;
}

/* The system from the basis and the lattice or XYZ file; 0, or the exit
 * status after printing why not. */
static int build_system(const eri_args *a, scl_eri_system *sys)
{
    char err[1024];
    scl_eri_basis basis;
    if (load_basis(a->basis, &basis))
        return 1;
    scl_eri_atom *atoms = NULL;
    size_t natoms = 0;
    scl_status st = a->xyz ? scl_eri_xyz_read(a->xyz, a->angstrom, &atoms, &natoms, err, sizeof err)
                           : scl_eri_lattice((int)a->nx, (int)a->ny, (int)a->nz, a->spacing, 1,
                                             &atoms, &natoms, err, sizeof err);
    if (st != SCL_OK) {
        fprintf(stderr, "streamcl eri: %s\n", err);
        scl_eri_basis_free(&basis);
        return 1;
    }
    st = scl_eri_system_build(&basis, atoms, natoms, sys, err, sizeof err);
    free(atoms);
    scl_eri_basis_free(&basis);
    if (st != SCL_OK) {
        fprintf(stderr, "streamcl eri: %s%s%s\n", a->xyz ? a->xyz : "", a->xyz ? ": " : "", err);
        return 1;
    }
    if (a->fcidump && sys->nfunc > 64) {
        fprintf(stderr, "streamcl eri: --fcidump: %zu functions, at most 64\n", sys->nfunc);
        scl_eri_system_free(sys);
        return 2;
    }
    return 0;
}

/* The device engine (and --tensor, --jk on it); the engine left for the SCF
 * is in double. 0, or 1 after printing why not. */
static int run_device(const eri_args *a, const scl_eri_system *sys, scl_context **ctx_out,
                      scl_eri **engine)
{
    scl_context *ctx = *ctx_out = cli_context(a->device, 1);
    if (!ctx)
        return 1;
    scl_eri_options o;
    scl_eri_options_default(&o);
    o.schwarz = a->schwarz, o.precision = a->precision, o.tune = (int)a->tune, o.force = a->plan;
    double t0 = cli_now();
    if (scl_eri_create(ctx, sys, &o, engine) != SCL_OK) {
        fprintf(stderr, "streamcl eri: %s\n", scl_last_error(ctx));
        return 1;
    }
    char plan[128];
    printf("device: %s; plan %s (%s), set-up %.3f s\n", scl_device(ctx)->name,
           scl_plan_describe(scl_eri_plan(*engine), plan, sizeof plan),
           scl_plan_tuned(scl_eri_plan(*engine)) ? "tuned now" : "cached or default",
           cli_now() - t0);
    if (a->tensor && run_tensor(ctx, sys, a, *engine))
        return 1;
    if (a->jk && run_jk(ctx, sys, a, *engine))
        return 1;
    if (a->precision == SCL_PREC_SINGLE && a->scf) {
        /* energies stay in double: a separate FP64 engine for the SCF */
        scl_eri_free(*engine);
        *engine = NULL;
        o.precision = SCL_PREC_DOUBLE;
        if (scl_eri_create(ctx, sys, &o, engine) != SCL_OK) {
            fprintf(stderr, "streamcl eri: %s\n", scl_last_error(ctx));
            return 1;
        }
    }
    return 0;
}

/* --tensor on the reference engine; 0, or 1 after printing why not. */
static int reference_tensor(const eri_args *a, const scl_eri_system *sys, double **tensor)
{
    size_t count = scl_eri_unique_count(sys->nfunc);
    *tensor = malloc(count * sizeof **tensor);
    double t0 = cli_now();
    if (!*tensor || scl_eri_ref_tensor(sys, a->schwarz, *tensor, NULL) != SCL_OK) {
        fprintf(stderr, "streamcl eri: no memory for %zu unique integrals\n", count);
        return 1;
    }
    double wall = cli_now() - t0, sum = 0;
    for (size_t i = 0; i < count; i++)
        sum += (*tensor)[i];
    printf("tensor (C reference, double): %zu unique integrals, %.4g s wall, sum %.12e\n",
           count, wall, sum);
    return 0;
}

/* RHF, from the stored tensor (made here for --mode incore) or integral-
 * direct on the engine; 0, or 1 after printing why not. */
static int run_scf(const eri_args *a, const scl_eri_system *sys, scl_context *ctx,
                   scl_eri *engine, double **tensor, const char *fcidump_path,
                   scl_eri_scf_result *res)
{
    char err[1024];
    double t0 = cli_now();
    if (!strcmp(a->mode, "incore") && !*tensor) {
        size_t count = scl_eri_unique_count(sys->nfunc);
        *tensor = malloc(count * sizeof **tensor);
        if (!*tensor) {
            fprintf(stderr, "streamcl eri: no memory for %zu unique integrals\n", count);
            return 1;
        }
        if (engine ? scl_eri_tensor(engine, *tensor, NULL) != SCL_OK
                   : scl_eri_ref_tensor(sys, a->schwarz, *tensor, NULL) != SCL_OK) {
            fprintf(stderr, "streamcl eri: tensor: %s\n", ctx ? scl_last_error(ctx) : "memory");
            return 1;
        }
    }
    double t_tensor = cli_now() - t0;
    scl_eri_scf_options so = {.max_iter = (int)a->max_iter, .e_tol = a->e_tol,
                              .g_tol = a->g_tol, .diis = (int)a->diis, .schwarz = a->schwarz,
                              .iteration = print_iteration};
    printf("RHF (%s J/K):\n", *tensor ? "stored tensor" : "integral-direct on the device");
    if (scl_eri_rhf(sys, *tensor ? NULL : engine, *tensor, &so, res, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl eri: %s\n", err);
        return 1;
    }
    if (!isfinite(res->energy)) {
        fprintf(stderr, "streamcl eri: the energy is not finite\n");
        return 1;
    }
    printf("RHF energy: %.12f hartree (%s after %d iterations; nuclear %.12f, one-electron "
           "%.12f, two-electron %.12f)\n",
           res->energy, res->converged ? "converged" : "NOT converged", res->iterations,
           res->e_nuclear, res->e_one, res->e_two);
    printf("timings: one-electron %.3f s, tensor %.3f s, J/K %.3f s, diagonalisation+DIIS "
           "%.3f s, SCF total %.3f s\n",
           res->seconds_one_electron, t_tensor, res->seconds_jk, res->seconds_diag,
           res->seconds_total + t_tensor);
    if (!res->converged) {
        fprintf(stderr, "streamcl eri: RHF did not converge in %d iterations\n", res->iterations);
        return 1;
    }
    if (a->fcidump && write_fcidump(sys, res, *tensor, fcidump_path))
        return 1;
    return 0;
}

/* Everything after the arguments: the system, the integrals, RHF. */
static int eri_run(eri_args a, const char *fcidump_path)
{
    const int reference = !strcmp(a.engine, "reference");
    scl_eri_system sys;
    int rc = build_system(&a, &sys);
    if (rc != 0)
        return rc;
    size_t n = sys.nfunc;
    printf("system: %zu atoms, %zu functions (%s), %d electrons, %zu unique quartets, "
           "nuclear repulsion %.12f\n",
           sys.natoms, n, a.basis, sys.nelectron, scl_eri_unique_count(n),
           scl_eri_nuclear_repulsion(&sys));

    scl_context *ctx = NULL;
    scl_eri *engine = NULL;
    double *tensor = NULL;
    scl_eri_scf_result res;
    memset(&res, 0, sizeof res);
    if (!reference)
        rc = run_device(&a, &sys, &ctx, &engine);
    else if (a.tensor)
        rc = reference_tensor(&a, &sys, &tensor);
    if (rc == 0 && a.scf)
        rc = run_scf(&a, &sys, ctx, engine, &tensor, fcidump_path, &res);
    scl_eri_scf_result_free(&res);
    free(tensor);
    scl_eri_free(engine);
    scl_context_free(ctx);
    scl_eri_system_free(&sys);
    return rc;
}
