/* B-scan pictures: the traces of one receiver component side by side
 * (radargram), through grid3d's PNG writer. */
#include "streamcl/fdtd.h"
#include "core/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

scl_status scl_fdtd_write_radargram(const char *path, const scl_receivers *rx, int ntraces,
                                    int receiver, int component, long iterations, char *err,
                                    size_t errlen)
{
    if (!rx || ntraces < 1 || iterations < 1 || component < 0 || component > 5 || receiver < 0 ||
        receiver >= rx[0].n) {
        scl_format_error(err, errlen, "%s: radargram needs traces, steps, a receiver and a component",
                         path ? path : "(null)");
        return SCL_ERR_ARGUMENT;
    }
    /* columns: each trace a band of equal width, about 600 pixels in all;
     * rows: one per time step, or steps averaged down to at most 1200 rows */
    int band = ntraces >= 600 ? 1 : 600 / ntraces;
    int rows = iterations > 1200 ? 1200 : (int)iterations;
    int w = band * ntraces, h = rows;
    size_t cells = (size_t)ntraces * (size_t)rows;
    double *v = malloc(cells * sizeof *v), *mag = malloc(cells * sizeof *mag);
    unsigned char *rgb = malloc((size_t)w * (size_t)h * 3);
    if (!v || !mag || !rgb) {
        free(v);
        free(mag);
        free(rgb);
        scl_format_error(err, errlen, "%s: out of host memory", path);
        return SCL_ERR_MEMORY;
    }
    for (int t = 0; t < ntraces; t++) {
        const double *s = scl_receivers_series(&rx[t], receiver, component);
        long nt = iterations < rx[t].nt ? iterations : rx[t].nt;
        for (int r = 0; r < rows; r++) {
            long a = (long)r * nt / rows, b = (long)(r + 1) * nt / rows;
            double sum = 0;
            for (long i = a; i < b; i++)
                sum += isfinite(s[i]) ? s[i] : 0;
            v[(size_t)r * ntraces + t] = b > a ? sum / (double)(b - a) : 0;
        }
    }
    /* grey scale over [-scale, scale], scale the 99.5th percentile of |v|:
     * the direct wave saturates a little and the reflections stay visible */
    for (size_t i = 0; i < cells; i++)
        mag[i] = fabs(v[i]);
    qsort(mag, cells, sizeof *mag, by_value);
    double scale = mag[(size_t)(0.995 * (double)(cells - 1))];
    if (!(scale > 0))
        scale = mag[cells - 1] > 0 ? mag[cells - 1] : 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double q = v[(size_t)y * ntraces + x / band] / scale;
            q = q > 1 ? 1 : q < -1 ? -1 : q;
            unsigned char g = (unsigned char)lround(127.5 * (1 - q)); /* positive dark */
            unsigned char *p = rgb + ((size_t)y * w + x) * 3;
            p[0] = p[1] = p[2] = g;
        }
    scl_status s = scl_png_write_rgb(path, rgb, w, h, err, errlen);
    free(v);
    free(mag);
    free(rgb);
    return s;
}
