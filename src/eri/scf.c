/* Closed-shell Hartree-Fock: core guess, DIIS (Pulay 1982) on FDS - SDF. */
#include "eri_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* C = op(A) B with op = transpose when ta; all n x n. */
static void matmul(size_t n, const double *A, int ta, const double *B, double *C)
{
    memset(C, 0, n * n * sizeof *C);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) {
            double a = ta ? A[k * n + i] : A[i * n + k];
            if (a == 0)
                continue;
            for (size_t j = 0; j < n; j++)
                C[i * n + j] += a * B[k * n + j];
        }
}

/* X = S^-1/2 (symmetric orthogonalisation); -1 if S is (nearly) singular.
 * tmp, U: n x n scratch; w: n. *smallest gets S's smallest eigenvalue. */
static int orthogonaliser(size_t n, const double *S, double *X, double *tmp, double *U, double *w,
                          double *smallest)
{
    memcpy(tmp, S, n * n * sizeof *S);
    *smallest = 0;
    if (scl_eri_eigh(n, tmp, w, U) != SCL_OK)
        return -1;
    *smallest = w[0];
    if (!(w[0] > 1e-10))
        return -1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double x = 0;
            for (size_t k = 0; k < n; k++)
                x += U[i * n + k] * U[j * n + k] / sqrt(w[k]);
            X[i * n + j] = x;
        }
    return 0;
}

/* Diagonalise F in the orthogonal basis and occupy the lowest nocc orbitals:
 * orbital energies w, coefficients C, density D = 2 C_occ C_occ^T. */
static int fock_to_density(size_t n, size_t nocc, const double *X, const double *F, double *tmp,
                           double *Fp, double *U, double *w, double *C, double *D)
{
    matmul(n, X, 1, F, tmp);
    matmul(n, tmp, 0, X, Fp);
    if (scl_eri_eigh(n, Fp, w, U) != SCL_OK)
        return -1;
    matmul(n, X, 0, U, C);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double d = 0;
            for (size_t m = 0; m < nocc; m++)
                d += C[i * n + m] * C[j * n + m];
            D[i * n + j] = 2 * d;
        }
    return 0;
}

scl_status scl_eri_core_density(const scl_eri_system *s, double *D)
{
    size_t n = s->nfunc, nn = n * n;
    double *m = malloc((8 * nn + n) * sizeof *m);
    if (!m)
        return SCL_ERR_MEMORY;
    double *S = m, *T = S + nn, *V = T + nn, *X = V + nn, *tmp = X + nn, *U = tmp + nn,
           *Fp = U + nn, *C = Fp + nn, *w = C + nn, smallest;
    scl_eri_one_electron(s, S, T, V);
    for (size_t i = 0; i < nn; i++)
        T[i] += V[i];
    scl_status st = SCL_OK;
    if (orthogonaliser(n, S, X, tmp, U, w, &smallest) ||
        fock_to_density(n, (size_t)s->nelectron / 2, X, T, tmp, Fp, U, w, C, D))
        st = SCL_ERR_INPUT;
    free(m);
    return st;
}

/* Solve the (m+1) DIIS system for the coefficients; 0 on success. */
static int diis_solve(int m, const double *B, double *c)
{
    int N = m + 1;
    double a[33 * 34];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++)
            a[i * (N + 1) + j] = i < m && j < m ? B[i * m + j] : (i == m && j == m ? 0 : -1);
        a[i * (N + 1) + N] = i == m ? -1 : 0;
    }
    for (int col = 0; col < N; col++) {
        int piv = col;
        for (int r = col + 1; r < N; r++)
            if (fabs(a[r * (N + 1) + col]) > fabs(a[piv * (N + 1) + col]))
                piv = r;
        if (fabs(a[piv * (N + 1) + col]) < 1e-300)
            return -1;
        for (int k = 0; k <= N; k++) {
            double t = a[col * (N + 1) + k];
            a[col * (N + 1) + k] = a[piv * (N + 1) + k];
            a[piv * (N + 1) + k] = t;
        }
        for (int r = 0; r < N; r++) {
            if (r == col)
                continue;
            double f = a[r * (N + 1) + col] / a[col * (N + 1) + col];
            for (int k = col; k <= N; k++)
                a[r * (N + 1) + k] -= f * a[col * (N + 1) + k];
        }
    }
    for (int i = 0; i < m; i++)
        c[i] = a[i * (N + 1) + N] / a[i * (N + 1) + i];
    return 0;
}

void scl_eri_scf_result_free(scl_eri_scf_result *r)
{
    if (!r)
        return;
    free(r->orbital_energies);
    free(r->coefficients);
    free(r->density);
    free(r->core_hamiltonian);
    r->orbital_energies = r->coefficients = r->density = r->core_hamiltonian = NULL;
}

enum { DIIS_MAX = 32 };

/* Zero fields of the options take their defaults; returns the DIIS depth. */
static int scf_defaults(scl_eri_scf_options *opt)
{
    if (opt->max_iter <= 0)
        opt->max_iter = 100;
    if (opt->e_tol <= 0)
        opt->e_tol = 1e-10;
    if (opt->g_tol <= 0)
        opt->g_tol = 1e-8;
    int ndiis = opt->diis == 0 ? 8 : opt->diis < 0 ? 0 : opt->diis;
    return ndiis > DIIS_MAX ? DIIS_MAX : ndiis;
}

/* The orbital gradient E = X^T (F D S - S D F) X; returns max |E|. */
static double scf_gradient(size_t n, const double *F, const double *D, const double *S,
                           const double *X, double *tmp, double *tmp2, double *E)
{
    matmul(n, F, 0, D, tmp);
    matmul(n, tmp, 0, S, tmp2);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            E[i * n + j] = tmp2[i * n + j] - tmp2[j * n + i]; /* (FDS)^T = SDF */
    matmul(n, X, 1, E, tmp);
    matmul(n, tmp, 0, X, E);
    double grad = 0;
    for (size_t i = 0; i < n * n; i++)
        grad = fmax(grad, fabs(E[i]));
    return grad;
}

/* The last ndiis (F, E) pairs, a ring, and the workspace to combine them. */
typedef struct {
    double *hist, *B, *Fd;
    size_t nn;
    int ndiis, nhist, next;
} diis_history;

/* Records (F, E) and replaces F by the DIIS combination of the history. */
static void diis_extrapolate(diis_history *d, double *F, const double *E)
{
    size_t nn = d->nn;
    double *hist = d->hist, *B = d->B;
    memcpy(hist + (size_t)d->next * 2 * nn, F, nn * sizeof *F);
    memcpy(hist + (size_t)d->next * 2 * nn + nn, E, nn * sizeof *E);
    d->next = (d->next + 1) % d->ndiis;
    if (d->nhist < d->ndiis)
        d->nhist++;
    int nhist = d->nhist;
    for (int a = 0; a < nhist; a++)
        for (int b = 0; b <= a; b++) {
            const double *ea = hist + (size_t)a * 2 * nn + nn, *eb = hist + (size_t)b * 2 * nn + nn;
            double dot = 0;
            for (size_t i = 0; i < nn; i++)
                dot += ea[i] * eb[i];
            B[a * nhist + b] = B[b * nhist + a] = dot;
        }
    double c[DIIS_MAX];
    if (nhist > 1 && diis_solve(nhist, B, c) == 0) {
        memset(d->Fd, 0, nn * sizeof *d->Fd);
        for (int a = 0; a < nhist; a++)
            for (size_t i = 0; i < nn; i++)
                d->Fd[i] += c[a] * hist[(size_t)a * 2 * nn + i];
        memcpy(F, d->Fd, nn * sizeof *F);
    }
}

/* Copies of the final orbitals, density and core Hamiltonian into res; -1
 * (res's arrays freed) when out of memory. */
static int store_results(scl_eri_scf_result *res, size_t n, const double *w, const double *C,
                         const double *D, const double *H)
{
    size_t nn = n * n;
    res->orbital_energies = malloc(n * sizeof(double));
    res->coefficients = malloc(nn * sizeof(double));
    res->density = malloc(nn * sizeof(double));
    res->core_hamiltonian = malloc(nn * sizeof(double));
    if (!res->orbital_energies || !res->coefficients || !res->density || !res->core_hamiltonian) {
        scl_eri_scf_result_free(res);
        return -1;
    }
    memcpy(res->orbital_energies, w, n * sizeof(double));
    memcpy(res->coefficients, C, nn * sizeof(double));
    memcpy(res->density, D, nn * sizeof(double));
    memcpy(res->core_hamiltonian, H, nn * sizeof(double));
    return 0;
}

scl_status scl_eri_rhf(const scl_eri_system *s, scl_eri *engine, const double *tensor,
                       const scl_eri_scf_options *opt_in, scl_eri_scf_result *res, char *err,
                       size_t errlen)
{
    memset(res, 0, sizeof *res);
    scl_eri_scf_options opt = opt_in ? *opt_in : (scl_eri_scf_options){0};
    int ndiis = scf_defaults(&opt);
    if (s->nelectron % 2)
        return eri_fail(err, errlen, SCL_ERR_INPUT,
                        "scl_eri_rhf: %d electrons: closed-shell RHF needs an even count",
                        s->nelectron);
    size_t n = s->nfunc, nocc = (size_t)s->nelectron / 2, nn = n * n;
    if (nocc > n)
        return eri_fail(err, errlen, SCL_ERR_INPUT,
                        "scl_eri_rhf: %zu occupied orbitals but only %zu basis functions", nocc, n);
    double t0 = now();
    /* workspace: S T V H X F Fp C D J K E tmp w + DIIS history */
    size_t nmat = 16 + 2 * (size_t)ndiis;
    double *mem = calloc(nmat * nn + n + (size_t)DIIS_MAX * DIIS_MAX, sizeof *mem);
    double *owned_tensor = NULL;
    if (!mem)
        return eri_fail(err, errlen, SCL_ERR_MEMORY, "scl_eri_rhf: out of memory (n = %zu)", n);
    double *S = mem, *T = S + nn, *V = T + nn, *H = V + nn, *X = H + nn, *F = X + nn,
           *Fp = F + nn, *C = Fp + nn, *D = C + nn, *J = D + nn, *K = J + nn, *E = K + nn,
           *tmp = E + nn, *tmp2 = tmp + nn, *U = tmp2 + nn, *Fd = U + nn, *hist = Fd + nn,
           *w = hist + 2 * (size_t)ndiis * nn, *B = w + n;
    scl_status st = SCL_OK;
    scl_eri_one_electron(s, S, T, V);
    for (size_t i = 0; i < nn; i++)
        H[i] = T[i] + V[i];
    res->e_nuclear = scl_eri_nuclear_repulsion(s);
    double smallest;
    if (orthogonaliser(n, S, X, tmp, U, w, &smallest)) {
        st = eri_fail(err, errlen, SCL_ERR_INPUT,
                      "scl_eri_rhf: the overlap matrix is singular (smallest eigenvalue %.3g): "
                      "linearly dependent basis",
                      smallest);
        goto done;
    }
    res->seconds_one_electron = now() - t0;
    if (!engine && !tensor) {
        double tt = now();
        owned_tensor = malloc(scl_eri_unique_count(n) * sizeof *owned_tensor);
        if (!owned_tensor) {
            st = eri_fail(err, errlen, SCL_ERR_MEMORY,
                          "scl_eri_rhf: no memory for the %zu unique integrals",
                          scl_eri_unique_count(n));
            goto done;
        }
        if ((st = scl_eri_ref_tensor(s, opt.schwarz, owned_tensor, NULL)) != SCL_OK) {
            eri_fail(err, errlen, st, "scl_eri_rhf: reference tensor failed");
            goto done;
        }
        tensor = owned_tensor;
        res->seconds_jk += now() - tt;
    }
    memcpy(F, H, nn * sizeof *F);
    double e_old = 0;
    diis_history dh = {.hist = hist, .B = B, .Fd = Fd, .nn = nn, .ndiis = ndiis};
    for (int it = 1; it <= opt.max_iter; it++) {
        /* diagonalise F in the orthogonal basis, occupy the lowest nocc */
        double td = now();
        if (fock_to_density(n, nocc, X, F, tmp, Fp, U, w, C, D)) {
            st = eri_fail(err, errlen, SCL_ERR_INPUT,
                          "scl_eri_rhf: iteration %d: non-finite Fock matrix", it);
            goto done;
        }
        res->seconds_diag += now() - td;
        double tj = now();
        if (engine) {
            if ((st = scl_eri_jk(engine, D, J, K, NULL)) != SCL_OK) {
                eri_fail(err, errlen, st, "scl_eri_rhf: iteration %d: device J/K failed", it);
                goto done;
            }
        } else {
            scl_eri_jk_from_tensor(n, tensor, D, J, K);
        }
        res->seconds_jk += now() - tj;
        double e1 = 0, e2 = 0;
        for (size_t i = 0; i < nn; i++) {
            F[i] = H[i] + J[i] - 0.5 * K[i];
            e1 += D[i] * H[i];
            e2 += 0.5 * D[i] * (J[i] - 0.5 * K[i]);
        }
        double energy = e1 + e2 + res->e_nuclear;
        /* gradient X^T (F D S - S D F) X */
        td = now();
        double grad = scf_gradient(n, F, D, S, X, tmp, tmp2, E);
        double de = energy - e_old;
        e_old = energy;
        res->energy = energy;
        res->e_one = e1;
        res->e_two = e2;
        res->iterations = it;
        if (!isfinite(energy) || !isfinite(grad)) {
            st = eri_fail(err, errlen, SCL_ERR_INPUT, "scl_eri_rhf: iteration %d: non-finite energy", it);
            goto done;
        }
        if (opt.iteration)
            opt.iteration(opt.user, it, energy, de, grad);
        if (fabs(de) < opt.e_tol && grad < opt.g_tol && it > 1) {
            res->converged = 1;
            res->seconds_diag += now() - td;
            break;
        }
        /* DIIS extrapolation of F */
        if (dh.ndiis)
            diis_extrapolate(&dh, F, E);
        res->seconds_diag += now() - td;
    }
    if (store_results(res, n, w, C, D, H) != 0)
        st = eri_fail(err, errlen, SCL_ERR_MEMORY, "scl_eri_rhf: out of memory for the results");
done:
    res->seconds_total = now() - t0;
    free(owned_tensor);
    free(mem);
    return st;
}
