/* The benchmark's output files. Each is written beside its final name and
 * renamed only when complete, so a failure never leaves half a file. */
#include "streamcl/lbm.h"
#include "core/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static FILE *open_tmp(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen)
{
    if ((size_t)snprintf(tmp, tmplen, "%s.tmp", path) >= tmplen) {
        scl_format_error(err, errlen, "%s: path too long", path);
        return NULL;
    }
    FILE *f = fopen(tmp, "w");
    if (!f)
        scl_format_error(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
    return f;
}

/* Close, check, and move into place; removes the temporary on any failure. */
static scl_status commit(FILE *f, const char *tmp, const char *path, char *err, size_t errlen)
{
    int bad = ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    if (bad) {
        scl_format_error(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
        remove(tmp);
        return SCL_ERR_IO;
    }
    if (rename(tmp, path) != 0) {
        scl_format_error(err, errlen, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
        return SCL_ERR_IO;
    }
    return SCL_OK;
}

scl_status scl_lbm_write_av_vels(const char *path, const float *av_vels, long steps, char *err,
                                 size_t errlen)
{
    if (!path || (!av_vels && steps > 0)) {
        scl_format_error(err, errlen, "scl_lbm_write_av_vels: NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    char tmp[4200];
    FILE *f = open_tmp(path, tmp, sizeof tmp, err, errlen);
    if (!f)
        return SCL_ERR_IO;
    for (long t = 0; t < steps; t++)
        fprintf(f, "%ld:\t%.12E\n", t, (double)av_vels[t]);
    return commit(f, tmp, path, err, errlen);
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
    char tmp[4200];
    FILE *f = open_tmp(path, tmp, sizeof tmp, err, errlen);
    if (!f)
        return SCL_ERR_IO;
    for (int y = 0; y < p->ny; y++)
        for (int x = 0; x < p->nx; x++) {
            size_t i = (size_t)x + (size_t)y * (size_t)p->nx;
            fprintf(f, "%d %d %.12E %.12E %.12E %.12E %d\n", x, y, (double)ux[i], (double)uy[i],
                    (double)speed[i], (double)pressure[i], obstacles[i] ? 1 : 0);
        }
    return commit(f, tmp, path, err, errlen);
}
