/* The library's one PNG writer (libpng), written through scl_outfile, and
 * the colour map of the pictures of magnitudes. */
#include "core/fail.h"

#include <math.h>

#ifdef STREAMCL_HAVE_PNG
#include <png.h>

/* libpng reports errors by longjmp; the structs are released here, the
 * FILE by the caller. */
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

void scl_png_viridis(double t, unsigned char rgb[3])
{
    /* piecewise linear through five viridis anchor colours */
    static const double anchors[5][3] = {{68, 1, 84},    {59, 82, 139}, {33, 145, 140},
                                         {94, 201, 98}, {253, 231, 37}};
    if (!(t >= 0)) /* also NaN */
        t = 0;
    if (t > 1)
        t = 1;
    double pos = t * 4.0;
    int k = (int)floor(pos);
    if (k > 3)
        k = 3;
    double f = pos - k;
    for (int c = 0; c < 3; c++)
        rgb[c] = (unsigned char)lround(anchors[k][c] * (1 - f) + anchors[k + 1][c] * f);
}
