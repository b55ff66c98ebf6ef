/* PNG output for the command's --png options (libpng), and a colour map. */
#include "commands.h"
#include "streamcl/grid3d.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* grid3d's writer: through scl_outfile (a temporary beside the target, or a
 * device or FIFO written straight, never removed) */
int cli_write_png(const char *path, int w, int h, const unsigned char *rgb)
{
    char err[1200];
    if (scl_png_write_rgb(path, rgb, w, h, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl: %s\n", err);
        return -1;
    }
    return 0;
}

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
