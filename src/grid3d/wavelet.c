/* Source wavelets, with gprMax's definitions (names, centre delays, scaling). */
#include "streamcl/grid3d.h"

#include <math.h>
#include <string.h>

static const char *const names[] = {"gaussian",          "gaussiandot", "gaussiandotnorm",
                                    "gaussiandotdot",    "gaussiandotdotnorm", "ricker",
                                    "sine",              "contsine",
                                    "gaussianprime",     "gaussiandoubleprime",
                                    "gauspulse",         "impulse"};

int scl_wavelet_kind_from_name(const char *name)
{
    for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
        if (name && strcmp(name, names[k]) == 0)
            return k;
    return -1;
}

const char *scl_wavelet_kind_name(scl_wavelet_kind kind)
{
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

/* The second-derivative family is narrower in time: gprMax centres it later
 * and uses zeta = pi^2 f^2 so that f is its peak frequency. */
static int second_family(scl_wavelet_kind k)
{
    return k == SCL_WAVE_GAUSSIANDOTDOT || k == SCL_WAVE_GAUSSIANDOTDOTNORM ||
           k == SCL_WAVE_RICKER;
}

/* gauspulse: MATLAB's gauspuls defaults as gprMax takes them (fractional
 * bandwidth 0.5 at -6 dB), centred where the envelope is down 60 dB. */
static double gauspulse_zeta(double f)
{
    return -(M_PI * f * 0.5) * (M_PI * f * 0.5) / (4 * log(pow(10.0, -6.0 / 20)));
}

double scl_wavelet_default_delay(scl_wavelet_kind kind, double freq)
{
    if (kind == SCL_WAVE_SINE || kind == SCL_WAVE_CONTSINE || kind == SCL_WAVE_IMPULSE)
        return 0;
    if (kind == SCL_WAVE_GAUSPULSE)
        return sqrt(-log(pow(10.0, -60.0 / 20)) / gauspulse_zeta(freq));
    return (second_family(kind) ? sqrt(2.0) : 1.0) / freq;
}

double scl_wavelet_value(const scl_wavelet *w, double t)
{
    double f = w->freq;
    double zeta = w->kind == SCL_WAVE_GAUSPULSE ? gauspulse_zeta(f)
                  : (second_family(w->kind) ? 1.0 : 2.0) * M_PI * M_PI * f * f;
    double tau = t - (w->delay_set ? w->delay : scl_wavelet_default_delay(w->kind, f));
    double g = exp(-zeta * tau * tau), v = 0;
    switch (w->kind) {
    case SCL_WAVE_GAUSSIAN: v = g; break;
    case SCL_WAVE_GAUSSIANDOT:
    case SCL_WAVE_GAUSSIANPRIME: v = -2 * zeta * tau * g; break;
    case SCL_WAVE_GAUSSIANDOTNORM: v = -2 * zeta * tau * g * sqrt(exp(1.0) / (2 * zeta)); break;
    case SCL_WAVE_GAUSSIANDOTDOT:
    case SCL_WAVE_GAUSSIANDOUBLEPRIME: v = 2 * zeta * (2 * zeta * tau * tau - 1) * g; break;
    case SCL_WAVE_GAUSPULSE: v = g * cos(2 * M_PI * f * tau); break;
    case SCL_WAVE_IMPULSE: v = t == 0; break;
    case SCL_WAVE_GAUSSIANDOTDOTNORM: v = (2 * zeta * tau * tau - 1) * g; break;
    case SCL_WAVE_RICKER: v = (1 - 2 * zeta * tau * tau) * g; break;
    case SCL_WAVE_SINE: v = t * f > 1 ? 0 : sin(2 * M_PI * f * t); break;
    case SCL_WAVE_CONTSINE: {
        double ramp = 0.25 * t * f;
        v = (ramp > 1 ? 1 : ramp) * sin(2 * M_PI * f * t);
        break;
    }
    }
    return w->amp * v;
}

double scl_wavelet_sample(const scl_wavelet *w, double t, double dt)
{
    if (w->kind == SCL_WAVE_IMPULSE)
        return t == 0 || t < dt ? w->amp : 0;
    return scl_wavelet_value(w, t);
}
