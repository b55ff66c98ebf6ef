/* The discrete energy the leapfrog velocity–stress scheme conserves. */
#include "streamcl/seismic.h"

static double harmonic4(double a, double b, double c, double d)
{
    return (a <= 0 || b <= 0 || c <= 0 || d <= 0) ? 0 : 4 / (1 / a + 1 / b + 1 / c + 1 / d);
}

double scl_seis_energy(const scl_seis_model *m, const double *const now[9],
                       const double *const prev[6])
{
    const long nx = m->nx, ny = m->ny, nz = m->nz;
    double kin = 0, pot = 0;
    for (long k = 0; k < nz; k++)
        for (long j = 0; j < ny; j++)
            for (long i = 0; i < nx; i++) {
                /* neighbours past the last cell take the last cell's material */
                const long i1 = i + 1 < nx ? i + 1 : i, j1 = j + 1 < ny ? j + 1 : j,
                           k1 = k + 1 < nz ? k + 1 : k;
#define AT(ii, jj, kk) ((ii) + nx * ((jj) + ny * (kk)))
                const long c = AT(i, j, k), nb[3] = {AT(i1, j, k), AT(i, j1, k), AT(i, j, k1)};
                for (int a = 0; a < 3; a++) {
                    const double v = now[a][c];
                    kin += 0.5 * ((double)m->rho[c] + m->rho[nb[a]]) * v * v;
                }
                double mu[4][3];
                const long sxy[4] = {AT(i, j, k), AT(i1, j, k), AT(i, j1, k), AT(i1, j1, k)};
                const long sxz[4] = {AT(i, j, k), AT(i1, j, k), AT(i, j, k1), AT(i1, j, k1)};
                const long syz[4] = {AT(i, j, k), AT(i, j1, k), AT(i, j, k1), AT(i, j1, k1)};
                const long *nodes[3] = {sxy, sxz, syz};
#undef AT
                for (int a = 0; a < 3; a++)
                    for (int q = 0; q < 4; q++)
                        mu[q][a] = (double)m->rho[nodes[a][q]] * m->vs[nodes[a][q]] * m->vs[nodes[a][q]];
                const double rho = m->rho[c], vp = m->vp[c], vs = m->vs[c];
                const double lam = rho * (vp * vp - 2 * vs * vs), mc = rho * vs * vs;
                const double t[6] = {now[3][c], now[4][c], now[5][c], now[6][c], now[7][c], now[8][c]};
                const double p[6] = {prev[0][c], prev[1][c], prev[2][c], prev[3][c], prev[4][c], prev[5][c]};
                if (mc > 0)
                    pot += (p[0] * t[0] + p[1] * t[1] + p[2] * t[2] -
                            lam / (3 * lam + 2 * mc) * (p[0] + p[1] + p[2]) * (t[0] + t[1] + t[2])) /
                           (2 * mc);
                for (int a = 0; a < 3; a++) {
                    const double ma = harmonic4(mu[0][a], mu[1][a], mu[2][a], mu[3][a]);
                    if (ma > 0)
                        pot += p[3 + a] * t[3 + a] / ma;
                }
            }
    return 0.5 * (kin + pot) * m->h * m->h * m->h;
}
