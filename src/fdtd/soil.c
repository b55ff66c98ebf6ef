/* Heterogeneous soils as gprMax builds them: Peplinski's semi-empirical
 * mixing model turned into one Debye material per bin of volumetric water
 * fraction (#soil_peplinski), and a fractal volume (#fractal_box): white
 * noise filtered in Fourier space by a power of the weighted frequency,
 * binned linearly between its extremes into the soil's materials.
 *
 * The random numbers are this file's own (splitmix64 and Box-Muller), not
 * numpy's generator: a given seed repeats here, but gives another volume
 * than gprMax's with the same seed. What is gprMax's is the statistics: the
 * filter (amplitude |w k|^-D, power spectrum slope -2D: gprMax 4.0.1's, as
 * its volumes measure, where gprMax 3 used (7 - 2D)/2), the
 * filter scaling of the weights by the smallest side, the zero mean and the
 * binning (numpy's digitize, right-closed bins: the minimum alone in the
 * first). A rough surface (#add_surface_roughness) is the same noise in two
 * dimensions, its weights unscaled, stretched linearly onto the height
 * range. */
#include "streamcl/fdtd.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

void scl_fdtd_peplinski(const double par[6], int nbins, double (*out)[4])
{
    /* water at 25 C, zero salinity (Klein and Swift 1977, gprMax's constants) */
    const double T = 25;
    double w_inf = 4.9, w_s = 88.045 - 0.4147 * T + 6.295e-4 * T * T + 1.075e-5 * T * T * T;
    double w_tau = (1.1109e-10 - 3.824e-12 * T + 6.938e-14 * T * T - 5.096e-16 * T * T * T) /
                   (2 * PI);
    double w_delta = w_s - w_inf, om = 2 * PI * 1.3e9;
    double erealw = w_inf + w_delta / (1 + pow(om * w_tau, 2));
    double S = par[0], C = par[1], rb = par[2], rs = par[3];
    const double a = 0.65;
    double es = pow(1.01 + 0.44 * rs, 2) - 0.062;
    double b1 = 1.2748 - 0.519 * S - 0.152 * C, b2 = 1.33797 - 0.603 * S - 0.166 * C;
    double sigf = 0.0467 + 0.2204 * rb - 0.411 * S + 0.6614 * C;
    for (int q = 0; q < nbins; q++) {
        /* the middle of bin q of the water range */
        double lo = par[4] + (par[5] - par[4]) * q / nbins;
        double hi = par[4] + (par[5] - par[4]) * (q + 1) / nbins;
        double mv = 0.5 * (lo + hi);
        double er = pow(1 + (rb / rs) * (pow(es, a) - 1) + pow(mv, b1) * pow(erealw, a) - mv, 1 / a);
        er = 1.15 * er - 0.68; /* 0.3 to 1.3 GHz */
        double eri = er - pow(mv, b2 / a) * w_delta;
        out[q][0] = eri;
        out[q][1] = er - eri;
        out[q][2] = w_tau;
        out[q][3] = pow(mv, b2 / a) * (sigf * (rs - rb)) / (rs * mv);
    }
}

/* ------------------------------------------------------------------ FFT */

typedef struct {
    double re, im;
} cpx;

/* in place radix-2, n a power of two; sign -1 forward, +1 inverse (unscaled) */
static void fft2(cpx *x, long n, int sign)
{
    for (long i = 1, j = 0; i < n; i++) {
        long bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            cpx t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
    for (long len = 2; len <= n; len <<= 1) {
        double ang = sign * 2 * PI / len;
        for (long i = 0; i < n; i += len)
            for (long k = 0; k < len / 2; k++) {
                double c = cos(ang * k), s = sin(ang * k);
                cpx u = x[i + k], v = x[i + k + len / 2];
                cpx w = {v.re * c - v.im * s, v.re * s + v.im * c};
                x[i + k] = (cpx){u.re + w.re, u.im + w.im};
                x[i + k + len / 2] = (cpx){u.re - w.re, u.im - w.im};
            }
    }
}

/* any n: Bluestein's chirp transform over radix-2 ones; work holds 3 m values */
static void fft_any(cpx *x, long n, int sign, cpx *work, long m)
{
    if ((n & (n - 1)) == 0) {
        fft2(x, n, sign);
        return;
    }
    cpx *a = work, *b = work + m, *w = work + 2 * m;
    memset(a, 0, (size_t)(2 * m) * sizeof *a);
    for (long k = 0; k < n; k++) {
        double ang = sign * PI * (double)((k * k) % (2 * n)) / n;
        w[k] = (cpx){cos(ang), sin(ang)};
        a[k] = (cpx){x[k].re * w[k].re - x[k].im * w[k].im, x[k].re * w[k].im + x[k].im * w[k].re};
        b[k] = (cpx){w[k].re, -w[k].im};
        if (k)
            b[m - k] = b[k];
    }
    fft2(a, m, -1);
    fft2(b, m, -1);
    for (long k = 0; k < m; k++)
        a[k] = (cpx){a[k].re * b[k].re - a[k].im * b[k].im, a[k].re * b[k].im + a[k].im * b[k].re};
    fft2(a, m, 1);
    for (long k = 0; k < n; k++) {
        cpx c = {a[k].re / m, a[k].im / m};
        x[k] = (cpx){c.re * w[k].re - c.im * w[k].im, c.re * w[k].im + c.im * w[k].re};
    }
}

/* the 3D transform, one axis at a time */
static int fft3(cpx *v, const int n[3], int sign)
{
    long big = n[0] > n[1] ? n[0] : n[1];
    big = big > n[2] ? big : n[2];
    long m = 1;
    while (m < 2 * big)
        m <<= 1;
    cpx *line = malloc((size_t)big * sizeof *line), *work = malloc((size_t)(3 * m) * sizeof *work);
    if (!line || !work) {
        free(line);
        free(work);
        return -1;
    }
    long s[3] = {1, n[0], (long)n[0] * n[1]};
    for (int a = 0; a < 3; a++) {
        int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
        for (int j = 0; j < n[b]; j++)
            for (int k = 0; k < n[c]; k++) {
                long base = j * s[b] + k * s[c];
                for (int i = 0; i < n[a]; i++)
                    line[i] = v[base + i * s[a]];
                fft_any(line, n[a], sign, work, m);
                for (int i = 0; i < n[a]; i++)
                    v[base + i * s[a]] = line[i];
            }
    }
    free(line);
    free(work);
    return 0;
}

/* ------------------------------------------------------------------ fractal */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double normal(uint64_t *s)
{
    double u = ((double)(splitmix(s) >> 11) + 0.5) / 9007199254740992.0;
    double v = (double)(splitmix(s) >> 11) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * PI * v);
}

/* Normal white noise over n cells (x fastest) filtered by |w k|^-D, k the
 * wrapped frequency, the mean (k = 0) removed; 0, or -1 out of memory. */
static int filtered_noise(const int n[3], double D, const double w[3], unsigned long long seed,
                          double *out)
{
    long cells = (long)n[0] * n[1] * n[2];
    cpx *v = malloc((size_t)cells * sizeof *v);
    if (!v)
        return -1;
    uint64_t st = seed;
    for (long q = 0; q < cells; q++)
        v[q] = (cpx){normal(&st), 0};
    if (fft3(v, n, -1)) {
        free(v);
        return -1;
    }
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                int f[3] = {i, j, k};
                double r2 = 0;
                for (int a = 0; a < 3; a++) {
                    int fa = f[a] <= n[a] / 2 ? f[a] : f[a] - n[a]; /* wrapped frequency */
                    r2 += pow(w[a] * fa, 2);
                }
                long q = i + (long)n[0] * (j + (long)n[1] * k);
                double g = r2 > 0 ? pow(r2, -0.5 * D) : 0; /* zero mean */
                v[q].re *= g;
                v[q].im *= g;
            }
    if (fft3(v, n, 1)) {
        free(v);
        return -1;
    }
    for (long q = 0; q < cells; q++)
        out[q] = v[q].re / cells;
    free(v);
    return 0;
}

int scl_fdtd_fractal(const int n[3], double D, const double weight[3], unsigned long long seed,
                     double *out)
{
    /* weights scaled by the smallest side over each side (axes one cell
     * thick left out), so the filter is isotropic in physical terms */
    int small = 0;
    for (int a = 0; a < 3; a++)
        if (n[a] > 1 && (small == 0 || n[a] < small))
            small = n[a];
    double w[3];
    for (int a = 0; a < 3; a++)
        w[a] = weight[a] * (n[a] > 1 ? (double)small / n[a] : 1);
    return filtered_noise(n, D, w, seed, out);
}

int scl_fdtd_fractal_surface(const int n[2], double D, const double weight[2],
                             unsigned long long seed, double lo, double hi, double *out)
{
    /* gprMax's surfaces take the weights as given (no scaling by the sides) */
    int n3[3] = {n[0], n[1], 1};
    double w[3] = {weight[0], weight[1], 1};
    long cells = (long)n[0] * n[1];
    if (filtered_noise(n3, D, w, seed, out))
        return -1;
    double least = INFINITY, most = -INFINITY;
    for (long q = 0; q < cells; q++) {
        least = least < out[q] ? least : out[q];
        most = most > out[q] ? most : out[q];
    }
    /* a surface of one point has no range: it sits half way */
    for (long q = 0; q < cells; q++)
        out[q] = most > least ? lo + (out[q] - least) * (hi - lo) / (most - least) : 0.5 * (lo + hi);
    return 0;
}

void scl_fdtd_fractal_bins(double *field, long cells, int nbins)
{
    double lo = INFINITY, hi = -INFINITY;
    for (long q = 0; q < cells; q++) {
        lo = fmin(lo, field[q]);
        hi = fmax(hi, field[q]);
    }
    for (long q = 0; q < cells; q++) {
        /* numpy's digitize(right=True) on linspace(lo, hi, nbins): the
         * index of the first edge >= the value */
        int bin = 0;
        if (nbins > 1 && hi > lo) {
            double step = (hi - lo) / (nbins - 1);
            double x = (field[q] - lo) / step;
            bin = (int)ceil(x - 1e-12);
            if (bin < 0)
                bin = 0;
            if (bin > nbins - 1)
                bin = nbins - 1;
        }
        field[q] = bin;
    }
}

/* ------------------------------------------------------------------ rough surfaces */

int scl_fdtd_rough_apply(const scl_fdtd_rough *s, int te_axis, const int blo[3], const int bhi[3],
                         signed char *mask)
{
    int a = s->axis, u = a == 0 ? 1 : 0, w = a == 2 ? 1 : 2;
    int n[2] = {s->hi[u] - s->lo[u], s->hi[w] - s->lo[w]}, gen[2] = {n[0], n[1]};
    /* 2D TE: one row generated and copied to both cells of the invariant
     * axis (gprMax's), so the surface does not vary along it */
    int tu = te_axis == u && n[0] == 2, tw = te_axis == w && n[1] == 2;
    if (tu)
        gen[0] = 1;
    if (tw)
        gen[1] = 1;
    double *h = malloc((size_t)gen[0] * gen[1] * sizeof *h);
    if (!h || scl_fdtd_fractal_surface(gen, s->D, s->w, s->seed, s->range[0], s->range[1], h)) {
        free(h);
        return -1;
    }
    int bn[3] = {bhi[0] - blo[0], bhi[1] - blo[1], bhi[2] - blo[2]};
    for (int i = 0; i < n[0]; i++)
        for (int j = 0; j < n[1]; j++) {
            double hij = h[(tu ? 0 : i) + (long)gen[0] * (tw ? 0 : j)];
            for (int t = s->range[0]; t < s->range[1]; t++) {
                int p[3];
                p[u] = s->lo[u] + i - blo[u];
                p[w] = s->lo[w] + j - blo[w];
                p[a] = t - blo[a];
                /* soil below the height on an upper face, above it on a
                 * lower one; the rest of the range keeps what was there */
                int soil = s->plus ? t < hij : t > hij;
                mask[p[0] + (long)bn[0] * (p[1] + (long)bn[1] * p[2])] = (signed char)soil;
            }
        }
    free(h);
    return 0;
}

/* ------------------------------------------------------------------ grass */

static double uniform(uint64_t *s)
{
    return (double)(splitmix(s) >> 11) / 9007199254740992.0;
}

/* Where the blades stand and how tall: n draws from the surface's density
 * (a fractal surface on [0, 1], normalised), each column drawn given a
 * height in [range[0], range[1]) (the last draw wins), as gprMax places
 * them; columns in gprMax's order (the plane's first axis slowest). */
static int blade_heights(const scl_fdtd_rough *s, const int n[2], uint64_t *st, int *height)
{
    long cells = (long)n[0] * n[1];
    double *d = malloc((size_t)cells * sizeof *d), *cum = malloc((size_t)cells * sizeof *cum);
    long *at = malloc((size_t)s->blades * sizeof *at);
    if (!d || !cum || !at || scl_fdtd_fractal_surface(n, s->D, s->w, s->seed, 0, 1, d)) {
        free(d);
        free(cum);
        free(at);
        return -1;
    }
    double sum = 0;
    for (long q = 0; q < cells; q++)
        sum += d[q];
    double run = 0;
    for (int i = 0; i < n[0]; i++)
        for (int j = 0; j < n[1]; j++) {
            run += sum > 0 ? d[i + (long)n[0] * j] / sum : 1.0 / cells;
            cum[(long)i * n[1] + j] = run;
        }
    for (int b = 0; b < s->blades; b++) {
        double u = uniform(st);
        long lo = 0, hi = cells; /* the number of cumulative values <= u */
        while (lo < hi) {
            long mid = (lo + hi) / 2;
            if (cum[mid] <= u)
                lo = mid + 1;
            else
                hi = mid;
        }
        at[b] = lo < cells ? lo : cells - 1;
    }
    memset(height, 0, (size_t)cells * sizeof *height);
    for (int b = 0; b < s->blades; b++)
        height[at[b]] = s->range[0] + (int)(uniform(st) * (s->range[1] - s->range[0]));
    free(d);
    free(cum);
    free(at);
    return 0;
}

/* gprMax's round_value (ties toward zero) of a signed offset */
static int offset_round(double v)
{
    long r = scl_round_half_down(fabs(v));
    return (int)(v < 0 ? -r : r);
}

typedef struct {
    const scl_fdtd_rough *s;
    int a, u, w, bn[3];
    const int *elo;
    signed char *mask;
} grass_ctx;

static signed char *grass_cell(const grass_ctx *g, int pu, int pw, int t)
{
    int p[3];
    p[g->u] = pu - g->elo[g->u];
    p[g->w] = pw - g->elo[g->w];
    p[g->a] = t - g->elo[g->a];
    if (p[g->u] < 0 || p[g->u] >= g->bn[g->u] || p[g->w] < 0 || p[g->w] >= g->bn[g->w])
        return NULL;
    return &g->mask[p[0] + (long)g->bn[0] * (p[1] + (long)g->bn[1] * p[2])];
}

/* One blade from column (cu, cw) up to height h: each cell above the soil
 * shifted by sign (cells / bend)^2 along both plane axes (gprMax draws the
 * same numbers for both: its two generators share a seed), stopping where
 * it leaves the box. */
static void grow_blade(const grass_ctx *g, int cu, int cw, int h, double bend, int sign)
{
    int cells = 0;
    for (int t = g->elo[g->a]; t < g->s->range[1]; t++) {
        const signed char *here = grass_cell(g, cu, cw, t);
        if (t >= h || !here || *here == 1)
            continue;
        int off = offset_round(sign * pow(cells / bend, 2));
        signed char *c = grass_cell(g, cu + off, cw + off, t);
        if (!c)
            break;
        *c = 3;
        cells++;
    }
}

/* Its root, down from the top of the grown box through the soil as deep as
 * the blade is tall above the box's face, wandering by a random walk. */
static void grow_root(const grass_ctx *g, int cu, int cw, int h, int face, uint64_t *st)
{
    double walk = 0;
    for (int t = g->elo[g->a] + g->bn[g->a] - 1; t > g->elo[g->a]; t--) {
        const signed char *here = grass_cell(g, cu, cw, t);
        if (!(t > 2 * face - h) || !here || *here != 1)
            continue;
        walk += -1 + 2 * uniform(st);
        int off = (int)rint(walk); /* Python's round: ties to even */
        signed char *c = grass_cell(g, cu + off, cw + off, t);
        if (!c)
            break;
        *c = 3;
    }
}

int scl_fdtd_grass_apply(const scl_fdtd_rough *s, int face, const int blo[3], const int bhi[3],
                         signed char *mask)
{
    grass_ctx g = {s, s->axis, s->axis == 0 ? 1 : 0, s->axis == 2 ? 1 : 2,
                   {bhi[0] - blo[0], bhi[1] - blo[1], bhi[2] - blo[2]}, blo, mask};
    int n[2] = {s->hi[g.u] - s->lo[g.u], s->hi[g.w] - s->lo[g.w]};
    int *height = malloc((size_t)n[0] * n[1] * sizeof *height);
    uint64_t st = s->seed ^ 0x6A09E667F3BCC908ull; /* apart from the surface's noise */
    if (!height || blade_heights(s, n, &st, height)) {
        free(height);
        return -1;
    }
    /* blades, then roots, each column in gprMax's order */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n[0]; i++)
            for (int j = 0; j < n[1]; j++) {
                int h = height[(long)i * n[1] + j];
                if (h <= 0)
                    continue;
                if (pass == 0) {
                    double bend = 10 + 20 * uniform(&st);
                    grow_blade(&g, s->lo[g.u] + i, s->lo[g.w] + j, h, bend, uniform(&st) < 0.5 ? -1 : 1);
                } else
                    grow_root(&g, s->lo[g.u] + i, s->lo[g.w] + j, h, face, &st);
            }
    free(height);
    return 0;
}
