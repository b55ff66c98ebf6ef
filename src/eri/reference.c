/* Plain C double reference: pair data, one- and two-electron integrals,
 * Schwarz factors, the unique tensor and J/K from it. The test oracle. */
#include "eri_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void eri_pairs_free(eri_pairs *pp)
{
    free(pp->p);
    free(pp->Px);
    free(pp->Py);
    free(pp->Pz);
    free(pp->K);
    free(pp->nprim);
    free(pp->i);
    free(pp->j);
    memset(pp, 0, sizeof *pp);
}

scl_status eri_pairs_build(const scl_eri_system *s, eri_pairs *pp)
{
    memset(pp, 0, sizeof *pp);
    size_t n = s->nfunc, npair = n * (n + 1) / 2, npp = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) {
            size_t m = (size_t)s->func[i].nprim * (size_t)s->func[j].nprim;
            if (m > npp)
                npp = m;
        }
    size_t total = npair * npp;
    pp->npair = npair;
    pp->npp = npp;
    pp->p = malloc(total * sizeof(double));
    pp->Px = malloc(total * sizeof(double));
    pp->Py = malloc(total * sizeof(double));
    pp->Pz = malloc(total * sizeof(double));
    pp->K = malloc(total * sizeof(double));
    pp->nprim = malloc(npair * sizeof(size_t));
    pp->i = malloc(npair * sizeof(int));
    pp->j = malloc(npair * sizeof(int));
    if (!pp->p || !pp->Px || !pp->Py || !pp->Pz || !pp->K || !pp->nprim || !pp->i || !pp->j) {
        eri_pairs_free(pp);
        return SCL_ERR_MEMORY;
    }
    const double kfac = sqrt(2.0) * pow(M_PI, 1.25);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) {
            size_t ij = i * (i + 1) / 2 + j, m = 0;
            const scl_eri_function *A = &s->func[i], *B = &s->func[j];
            double ab2 = 0;
            for (int d = 0; d < 3; d++)
                ab2 += (A->center[d] - B->center[d]) * (A->center[d] - B->center[d]);
            for (int a = 0; a < A->nprim; a++)
                for (int b = 0; b < B->nprim; b++, m++) {
                    double ea = A->exponent[a], eb = B->exponent[b], p = ea + eb;
                    size_t at = m * npair + ij;
                    pp->p[at] = p;
                    pp->Px[at] = (ea * A->center[0] + eb * B->center[0]) / p;
                    pp->Py[at] = (ea * A->center[1] + eb * B->center[1]) / p;
                    pp->Pz[at] = (ea * A->center[2] + eb * B->center[2]) / p;
                    pp->K[at] = kfac * A->coef[a] * B->coef[b] * exp(-ea * eb / p * ab2) / p;
                }
            pp->nprim[ij] = m;
            pp->i[ij] = (int)i;
            pp->j[ij] = (int)j;
            for (; m < npp; m++) {
                size_t at = m * npair + ij;
                pp->p[at] = 1;
                pp->Px[at] = pp->Py[at] = pp->Pz[at] = pp->K[at] = 0;
            }
        }
    return SCL_OK;
}

double eri_pair_quartet(const eri_pairs *pp, size_t ab, size_t cd)
{
    size_t np = pp->npair;
    double sum = 0;
    for (size_t a = 0; a < pp->nprim[ab]; a++) {
        double p = pp->p[a * np + ab], Px = pp->Px[a * np + ab], Py = pp->Py[a * np + ab],
               Pz = pp->Pz[a * np + ab], Kab = pp->K[a * np + ab];
        for (size_t c = 0; c < pp->nprim[cd]; c++) {
            size_t at = c * np + cd;
            double q = pp->p[at], dx = Px - pp->Px[at], dy = Py - pp->Py[at], dz = Pz - pp->Pz[at];
            double s = p + q;
            double t = p * q / s * (dx * dx + dy * dy + dz * dz);
            sum += Kab * pp->K[at] / sqrt(s) * scl_eri_boys0(t);
        }
    }
    return sum;
}

/* Direct from the contraction, without pair data (an independent path). */
double scl_eri_ref_quartet(const scl_eri_system *s, size_t i, size_t j, size_t k, size_t l)
{
    const scl_eri_function *f[4] = {&s->func[i], &s->func[j], &s->func[k], &s->func[l]};
    double sum = 0;
    for (int a = 0; a < f[0]->nprim; a++)
        for (int b = 0; b < f[1]->nprim; b++) {
            double ea = f[0]->exponent[a], eb = f[1]->exponent[b], p = ea + eb, P[3], ab2 = 0;
            for (int d = 0; d < 3; d++) {
                P[d] = (ea * f[0]->center[d] + eb * f[1]->center[d]) / p;
                ab2 += (f[0]->center[d] - f[1]->center[d]) * (f[0]->center[d] - f[1]->center[d]);
            }
            double kab = f[0]->coef[a] * f[1]->coef[b] * exp(-ea * eb / p * ab2);
            for (int c = 0; c < f[2]->nprim; c++)
                for (int e = 0; e < f[3]->nprim; e++) {
                    double ec = f[2]->exponent[c], ed = f[3]->exponent[e], q = ec + ed;
                    double cd2 = 0, pq2 = 0;
                    for (int d = 0; d < 3; d++) {
                        double Q = (ec * f[2]->center[d] + ed * f[3]->center[d]) / q;
                        cd2 += (f[2]->center[d] - f[3]->center[d]) *
                               (f[2]->center[d] - f[3]->center[d]);
                        pq2 += (P[d] - Q) * (P[d] - Q);
                    }
                    double kcd = f[2]->coef[c] * f[3]->coef[e] * exp(-ec * ed / q * cd2);
                    sum += 2 * pow(M_PI, 2.5) / (p * q * sqrt(p + q)) * kab * kcd *
                           scl_eri_boys0(p * q / (p + q) * pq2);
                }
        }
    return sum;
}

void scl_eri_ref_schwarz(const scl_eri_system *s, double *Q)
{
    eri_pairs pp;
    if (eri_pairs_build(s, &pp) == SCL_OK) {
        for (size_t ij = 0; ij < pp.npair; ij++)
            Q[ij] = sqrt(fabs(eri_pair_quartet(&pp, ij, ij)));
        eri_pairs_free(&pp);
        return;
    }
    for (size_t i = 0; i < s->nfunc; i++)
        for (size_t j = 0; j <= i; j++)
            Q[i * (i + 1) / 2 + j] = sqrt(fabs(scl_eri_ref_quartet(s, i, j, i, j)));
}

scl_status scl_eri_ref_tensor(const scl_eri_system *s, double threshold, double *unique,
                              size_t *screened)
{
    eri_pairs pp;
    scl_status st = eri_pairs_build(s, &pp);
    if (st != SCL_OK)
        return st;
    double *Q = malloc(pp.npair * sizeof *Q);
    if (!Q) {
        eri_pairs_free(&pp);
        return SCL_ERR_MEMORY;
    }
    for (size_t ij = 0; ij < pp.npair; ij++)
        Q[ij] = sqrt(fabs(eri_pair_quartet(&pp, ij, ij)));
    size_t skipped = 0;
    long npair = (long)pp.npair;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : skipped)
    for (long ij = npair - 1; ij >= 0; ij--) {
        size_t base = (size_t)ij * ((size_t)ij + 1) / 2;
        for (size_t kl = 0; kl <= (size_t)ij; kl++) {
            if (Q[ij] * Q[kl] < threshold) {
                unique[base + kl] = 0;
                skipped++;
            } else {
                unique[base + kl] = eri_pair_quartet(&pp, (size_t)ij, kl);
            }
        }
    }
    free(Q);
    eri_pairs_free(&pp);
    if (screened)
        *screened = skipped;
    return SCL_OK;
}

void scl_eri_jk_from_tensor(size_t n, const double *unique, const double *D, double *J,
                            double *K)
{
    long nn = (long)n;
#pragma omp parallel for schedule(dynamic, 1)
    for (long i = 0; i < nn; i++)
        for (size_t j = 0; j < n; j++) {
            double jv = 0, kv = 0;
            for (size_t k = 0; k < n; k++)
                for (size_t l = 0; l < n; l++) {
                    jv += unique[scl_eri_index((size_t)i, j, k, l)] * D[k * n + l];
                    kv += unique[scl_eri_index((size_t)i, k, j, l)] * D[k * n + l];
                }
            J[i * n + j] = jv;
            K[i * n + j] = kv;
        }
}

void scl_eri_one_electron(const scl_eri_system *s, double *S, double *T, double *V)
{
    size_t n = s->nfunc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) {
            const scl_eri_function *A = &s->func[i], *B = &s->func[j];
            double ab2 = 0, sv = 0, tv = 0, vv = 0;
            for (int d = 0; d < 3; d++)
                ab2 += (A->center[d] - B->center[d]) * (A->center[d] - B->center[d]);
            for (int a = 0; a < A->nprim; a++)
                for (int b = 0; b < B->nprim; b++) {
                    double ea = A->exponent[a], eb = B->exponent[b], p = ea + eb, mu = ea * eb / p;
                    double cc = A->coef[a] * B->coef[b] * exp(-mu * ab2);
                    double ov = cc * pow(M_PI / p, 1.5);
                    sv += ov;
                    tv += ov * mu * (3 - 2 * mu * ab2);
                    double P[3];
                    for (int d = 0; d < 3; d++)
                        P[d] = (ea * A->center[d] + eb * B->center[d]) / p;
                    for (size_t c = 0; c < s->natoms; c++) {
                        double pc2 = 0;
                        for (int d = 0; d < 3; d++)
                            pc2 += (P[d] - s->atoms[c].xyz[d]) * (P[d] - s->atoms[c].xyz[d]);
                        vv -= s->atoms[c].Z * cc * 2 * M_PI / p * scl_eri_boys0(p * pc2);
                    }
                }
            S[i * n + j] = S[j * n + i] = sv;
            T[i * n + j] = T[j * n + i] = tv;
            V[i * n + j] = V[j * n + i] = vv;
        }
}

double scl_eri_nuclear_repulsion(const scl_eri_system *s)
{
    double e = 0;
    for (size_t a = 0; a < s->natoms; a++)
        for (size_t b = 0; b < a; b++) {
            double r2 = 0;
            for (int d = 0; d < 3; d++)
                r2 += (s->atoms[a].xyz[d] - s->atoms[b].xyz[d]) *
                      (s->atoms[a].xyz[d] - s->atoms[b].xyz[d]);
            e += (double)s->atoms[a].Z * s->atoms[b].Z / sqrt(r2);
        }
    return e;
}
