/* Waveforms as gprMax evaluates them: an analytic wavelet, or the samples of
 * an #excitation_file interpolated as scipy's interp1d (the kind and fill
 * value in scl_fdtd_wave). Its own file: sources (model.c) read it, and it
 * reads nothing of the model's geometry. */
#include "streamcl/fdtd.h"

#include <math.h>

/* index of the first sample time above t (binary search); n if none */
static int above(const double *x, int n, double t)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

double scl_fdtd_wave_value(const scl_fdtd_model *m, int wi, double t)
{
    const scl_fdtd_wave *w = &m->wave[wi];
    if (w->nsamp == 0)
        return scl_wavelet_sample(&w->w, t, m->dt);
    /* the simulation's time axis: the samples cut or zero-padded to it */
    long n = w->t ? w->nsamp : m->iterations;
    if (n < 2)
        return w->fill;
#define TIME(k) (w->t ? w->t[k] : (double)(k) * m->dt)
#define VAL(k) ((k) < w->nsamp ? w->v[k] : 0.0)
    double t0 = TIME(0), t1 = TIME(n - 1);
    if (t < t0 || t > t1) {
        if (!w->extrapolate)
            return w->fill;
        long k = t < t0 ? 0 : n - 2;
        return VAL(k) + (VAL(k + 1) - VAL(k)) * (t - TIME(k)) / (TIME(k + 1) - TIME(k));
    }
    long k;
    if (w->t)
        k = above(w->t, w->nsamp, t) - 1;
    else
        k = (long)floor(t / m->dt);
    if (k < 0)
        k = 0;
    if (k > n - 2)
        k = n - 2;
    double ta = TIME(k), tb = TIME(k + 1), va = VAL(k), vb = VAL(k + 1);
    /* the sample times are exact where t sits on one */
    if (t == tb)
        return vb;
    switch (w->interp) {
    case 'p':
        return va;
    case 'x':
        return t == ta ? va : vb;
    case 'n':
        return t <= 0.5 * (ta + tb) ? va : vb;
    default:
        return va + (vb - va) * (t - ta) / (tb - ta);
    }
#undef TIME
#undef VAL
}
