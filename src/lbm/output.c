/* The benchmark's output files, through scl_outfile: complete files or none,
 * devices and FIFOs written straight. */
#include "streamcl/lbm.h"
#include "core/internal.h"

#include <stdio.h>
#include <string.h>

scl_status scl_lbm_write_av_vels(const char *path, const float *av_vels, long steps, char *err,
                                 size_t errlen)
{
    if (!path || (!av_vels && steps > 0)) {
        scl_format_error(err, errlen, "scl_lbm_write_av_vels: NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    scl_outfile o;
    scl_status st = scl_outfile_open(&o, path, 0, err, errlen);
    if (st != SCL_OK)
        return st;
    FILE *f = o.f;
    for (long t = 0; t < steps; t++)
        fprintf(f, "%ld:\t%.12E\n", t, (double)av_vels[t]);
    return scl_outfile_commit(&o, err, errlen);
}

scl_status scl_lbm_write_state(const char *path, const scl_lbm_params *p,
                               const unsigned char *obstacles, const float *ux, const float *uy,
                               const float *speed, const float *pressure, char *err,
                               size_t errlen)
{
    if (!path || !p || !obstacles || !ux || !uy || !speed || !pressure) {
        scl_format_error(err, errlen, "scl_lbm_write_state: NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    scl_outfile o;
    scl_status st = scl_outfile_open(&o, path, 0, err, errlen);
    if (st != SCL_OK)
        return st;
    FILE *f = o.f;
    for (int y = 0; y < p->ny; y++)
        for (int x = 0; x < p->nx; x++) {
            size_t i = (size_t)x + (size_t)y * (size_t)p->nx;
            fprintf(f, "%d %d %.12E %.12E %.12E %.12E %d\n", x, y, (double)ux[i], (double)uy[i],
                    (double)speed[i], (double)pressure[i], obstacles[i] ? 1 : 0);
        }
    return scl_outfile_commit(&o, err, errlen);
}
