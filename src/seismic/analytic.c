/* Closed-form solutions the tests compare against: Stokes' point force in a
 * full space and the Rayleigh-wave speed. */
#include "streamcl/seismic.h"

#include <math.h>

/* int_{a}^{b} tau * sdot(t - tau) dtau by composite Simpson (the near-field
 * term; smooth, so 2000 intervals give ~1e-10 relative accuracy). */
/* Time derivative of the wavelet (central difference; the wavelets are
 * smooth, so a step of 1e-4/f gives ~1e-9 relative accuracy). */
static double wavelet_rate(const scl_wavelet *w, double t)
{
    const double e = 1e-4 / w->freq;
    return (scl_wavelet_value(w, t + e) - scl_wavelet_value(w, t - e)) / (2 * e);
}

static double near_field(const scl_wavelet *w, double t, double a, double b)
{
    const int n = 2000;
    const double hstep = (b - a) / n;
    double sum = 0;
    for (int q = 0; q <= n; q++) {
        const double tau = a + q * hstep;
        const double wgt = (q == 0 || q == n) ? 1 : (q % 2 ? 4 : 2);
        sum += wgt * tau * wavelet_rate(w, t - tau);
    }
    return sum * hstep / 3;
}

void scl_seis_stokes_velocity(double vp, double vs, double rho, const scl_wavelet *w, int axis, double x, double y, double z, double t,
                              double v[3])
{
    const double r = sqrt(x * x + y * y + z * z), g[3] = {x / r, y / r, z / r};
    const double nf = near_field(w, t, r / vp, r / vs);
    const double fp = wavelet_rate(w, t - r / vp);
    const double fs = wavelet_rate(w, t - r / vs);
    for (int i = 0; i < 3; i++) {
        const double gg = g[i] * g[axis], d = i == axis ? 1 : 0;
        v[i] = 1 / (4 * M_PI * rho) *
               ((3 * gg - d) / (r * r * r) * nf + gg / (vp * vp * r) * fp -
                (gg - d) / (vs * vs * r) * fs);
    }
}

double scl_seis_rayleigh_ratio(double vp, double vs)
{
    /* (2 - x^2)^2 = 4 sqrt(1 - x^2 vs^2/vp^2) sqrt(1 - x^2), x = c/vs in (0.5, 1) */
    const double q = vs * vs / (vp * vp);
    double lo = 0.5, hi = 1.0;
    for (int it = 0; it < 200; it++) {
        const double x = 0.5 * (lo + hi), x2 = x * x;
        const double f = (2 - x2) * (2 - x2) - 4 * sqrt(1 - x2 * q) * sqrt(1 - x2);
        if (f < 0)
            lo = x;
        else
            hi = x;
    }
    return 0.5 * (lo + hi);
}
