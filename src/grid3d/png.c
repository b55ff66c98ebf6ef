/* PNG pictures of field planes (libpng), written through a temporary file. */
#include "streamcl/grid3d.h"
#include "core/internal.h"

#include <math.h>
#include <stdlib.h>

#ifdef STREAMCL_HAVE_PNG
#include <png.h>

/* libpng reports errors by longjmp; the FILE and structs are released here. */
static int write_png(FILE *f, const unsigned char *rgb, int w, int h)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h; y++)
        png_write_row(png, (png_const_bytep)(rgb + (size_t)y * (size_t)w * 3));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

scl_status scl_png_write_rgb(const char *path, const unsigned char *rgb, int w, int h,
                             char *err, size_t errlen)
{
    if (!rgb || w < 1 || h < 1) {
        scl_format_error(err, errlen, "%s: empty image", path ? path : "(null)");
        return SCL_ERR_ARGUMENT;
    }
    scl_outfile o;
    scl_status s = scl_outfile_open(&o, path, 1, err, errlen);
    if (s != SCL_OK)
        return s;
    if (write_png(o.f, rgb, w, h) != 0) {
        scl_outfile_abort(&o);
        scl_format_error(err, errlen, "%s: libpng failed", path);
        return SCL_ERR_IO;
    }
    return scl_outfile_commit(&o, err, errlen);
}
#else
scl_status scl_png_write_rgb(const char *path, const unsigned char *rgb, int w, int h,
                             char *err, size_t errlen)
{
    (void)rgb;
    (void)w;
    (void)h;
    scl_format_error(err, errlen, "%s: built without libpng (apt-get install libpng-dev)", path);
    return SCL_ERR_UNSUPPORTED;
}
#endif

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

/* Magnitudes: piecewise linear through five viridis anchors. */
static void sequential(double t, unsigned char c[3])
{
    static const double anchors[5][3] = {{68, 1, 84},    {59, 82, 139}, {33, 145, 140},
                                         {94, 201, 98}, {253, 231, 37}};
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    int k = (int)(t * 4);
    if (k > 3)
        k = 3;
    double f = t * 4 - k;
    for (int i = 0; i < 3; i++)
        c[i] = clamp255(anchors[k][i] * (1 - f) + anchors[k + 1][i] * f);
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
                sequential(fabs(v) / scale, c);
        }
    scl_status s = scl_png_write_rgb(path, rgb, W, H, err, errlen);
    free(rgb);
    return s;
}
