/* The benchmark's output files, through scl_outfile: complete files or none,
 * devices and FIFOs written straight. */
#include "streamcl/lbm.h"
#include "core/fail.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const float *av_vels;
    long steps;
} av_vels_file;

static int write_av_vels(FILE *f, const void *user)
{
    const av_vels_file *v = user;
    for (long t = 0; t < v->steps; t++)
        fprintf(f, "%ld:\t%.12E\n", t, (double)v->av_vels[t]);
    return 0; /* errors: the commit checks the stream */
}

scl_status scl_lbm_write_av_vels(const char *path, const float *av_vels, long steps, char *err,
                                 size_t errlen)
{
    if (!path || (!av_vels && steps > 0)) {
        scl_format_error(err, errlen, "scl_lbm_write_av_vels: NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    const av_vels_file v = {av_vels, steps};
    return scl_outfile_write(path, 0, write_av_vels, &v, err, errlen);
}

typedef struct {
    const scl_lbm_params *p;
    const unsigned char *obstacles;
    const float *ux, *uy, *speed, *pressure;
} state_file;

static int write_state(FILE *f, const void *user)
{
    const state_file *s = user;
    for (int y = 0; y < s->p->ny; y++)
        for (int x = 0; x < s->p->nx; x++) {
            size_t i = (size_t)x + (size_t)y * (size_t)s->p->nx;
            fprintf(f, "%d %d %.12E %.12E %.12E %.12E %d\n", x, y, (double)s->ux[i],
                    (double)s->uy[i], (double)s->speed[i], (double)s->pressure[i],
                    s->obstacles[i] ? 1 : 0);
        }
    return 0; /* errors: the commit checks the stream */
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
    const state_file s = {p, obstacles, ux, uy, speed, pressure};
    return scl_outfile_write(path, 0, write_state, &s, err, errlen);
}
