/* PNG pictures of field planes, colour mapped; written by the core's
 * scl_png_write_rgb. */
#include "streamcl/grid3d.h"
#include "core/fail.h"

#include <math.h>
#include <stdlib.h>

static unsigned char clamp255(double v) { return (unsigned char)lround(v < 0 ? 0 : v > 255 ? 255 : v); }

/* Signed values: blue (-1) through white (0) to red (+1). */
static void diverging(double t, unsigned char c[3])
{
    if (t < -1)
        t = -1;
    if (t > 1)
        t = 1;
    double a = fabs(t);
    if (t < 0) {
        c[0] = clamp255(255 * (1 - a));
        c[1] = clamp255(255 * (1 - a) + 40 * a);
        c[2] = clamp255(255 - 75 * a);
    } else {
        c[0] = clamp255(255 - 75 * a);
        c[1] = clamp255(255 * (1 - a) + 20 * a);
        c[2] = clamp255(255 * (1 - a));
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

scl_status scl_png_slice(const char *path, const float *plane, int w, int h, double scale,
                         int symmetric, char *err, size_t errlen)
{
    if (!plane || w < 1 || h < 1) {
        scl_format_error(err, errlen, "%s: empty slice", path ? path : "(null)");
        return SCL_ERR_ARGUMENT;
    }
    size_t n = (size_t)w * (size_t)h;
    if (!(scale > 0)) {
        /* the 99th percentile of |value|: a source point's near field does not wash out the rest */
        float *mag = malloc(n * sizeof(float));
        if (!mag) {
            scl_format_error(err, errlen, "%s: out of host memory", path);
            return SCL_ERR_MEMORY;
        }
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (isfinite(plane[i]))
                mag[m++] = fabsf(plane[i]);
        qsort(mag, m, sizeof(float), cmp_float);
        scale = m ? mag[(size_t)(0.99 * (double)(m - 1))] : 0;
        if (!(scale > 0))
            scale = m ? mag[m - 1] : 0;
        if (!(scale > 0))
            scale = 1;
        free(mag);
    }
    /* small grids are drawn with square blocks of pixels, at least 384 on the short side */
    int f = 1;
    while ((w < h ? w : h) * f < 384 && f < 16)
        f++;
    int W = w * f, H = h * f;
    unsigned char *rgb = malloc((size_t)W * H * 3);
    if (!rgb) {
        scl_format_error(err, errlen, "%s: out of host memory", path);
        return SCL_ERR_MEMORY;
    }
    /* row 0 of the picture is the top: the last row of the plane */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double v = plane[(size_t)(h - 1 - y / f) * w + x / f];
            unsigned char *c = rgb + ((size_t)y * W + x) * 3;
            if (!isfinite(v))
                c[0] = c[1] = c[2] = 0;
            else if (symmetric)
                diverging(v / scale, c);
            else
                scl_png_viridis(fabs(v) / scale, c); /* magnitudes */
        }
    scl_status s = scl_png_write_rgb(path, rgb, W, H, err, errlen);
    free(rgb);
    return s;
}
