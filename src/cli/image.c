/* PNG output for the command's --png options (libpng), and a colour map. */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef STREAMCL_HAVE_PNG
#include <png.h>

int cli_write_png(const char *path, int w, int h, const unsigned char *rgb)
{
    /* through scl_outfile: a temporary beside the target, or a device or FIFO
     * written straight, never removed */
    static scl_outfile o; /* static: not clobbered by libpng's longjmp */
    char err[4400];
    if (scl_outfile_open(&o, path, 1, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl: %s\n", err);
        return -1;
    }
    FILE *f = o.f;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        scl_outfile_abort(&o);
        fprintf(stderr, "streamcl: libpng failed writing %s\n", path);
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
    if (scl_outfile_commit(&o, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl: %s\n", err);
        return -1;
    }
    return 0;
}
#else
int cli_write_png(const char *path, int w, int h, const unsigned char *rgb)
{
    (void)w;
    (void)h;
    (void)rgb;
    fprintf(stderr, "streamcl: cannot write %s: built without libpng (apt-get install libpng-dev)\n",
            path);
    return -1;
}
#endif

void cli_colormap(double t, unsigned char rgb[3])
{
    /* piecewise-linear through five viridis anchor colours */
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
