/* PNG output for the commands' --png options: the core's writer, its
 * message printed. */
#include "commands.h"

#include <stdio.h>

int cli_write_png(const char *path, int w, int h, const unsigned char *rgb)
{
    char err[4400];
    if (scl_png_write_rgb(path, rgb, w, h, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl: cannot write %s\n", err);
        return -1;
    }
    return 0;
}

void cli_colormap(double t, unsigned char rgb[3])
{
    scl_png_viridis(t, rgb);
}
