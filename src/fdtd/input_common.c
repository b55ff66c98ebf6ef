/* The helpers every command parser of the gprMax reader shares (parameters,
 * messages naming file and line, cells of a box, arrays that grow): below
 * input.c's table of commands and each concern's input_*.c. */
#include "input_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "Position of x y z" in metres: non-negative and finite. */
int fdtd_in_reals(const input *in, const command *c, int first, int count, double *out, char *err,
                  size_t errlen)
{
    (void)in; /* the command names its own file */
    for (int q = 0; q < count; q++)
        if (scl_parse_real(c->tok[first + q], &out[q]) != 0) {
            snprintf(err, errlen, "%s:%ld: %s: parameter %d ('%s') is not a finite number",
                     c->file, c->line, c->cmd, first + q + 1, c->tok[first + q]);
            return -1;
        }
    return 0;
}

scl_status fdtd_in_fail(const input *in, const command *c, char *err, size_t errlen,
                        const char *why)
{
    (void)in; /* the command names its own file */
    snprintf(err, errlen, "%s:%ld: %s: %s", c->file, c->line, c->cmd, why);
    return SCL_ERR_INPUT;
}

/* Require between lo and hi parameters. */
int fdtd_in_nparams(const input *in, const command *c, int lo, int hi, char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    if (c->ntok < lo || c->ntok > hi) {
        if (lo == hi)
            snprintf(err, errlen, "%s:%ld: %s needs %d parameters, got %d", c->file, c->line,
                     c->cmd, lo, c->ntok);
        else
            snprintf(err, errlen, "%s:%ld: %s needs %d to %d parameters, got %d", c->file,
                     c->line, c->cmd, lo, hi, c->ntok);
        return -1;
    }
    return 0;
}

int fdtd_in_material_of(const input *in, const command *c, const scl_fdtd_model *m, const char *name,
                        char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    int id = scl_fdtd_find_material(m, name);
    if (id < 0)
        snprintf(err, errlen, "%s:%ld: %s: material '%s' is not defined (#material)", c->file,
                 c->line, c->cmd, name);
    return id;
}

int fdtd_in_averaging_flag(const input *in, const command *c, int idx, char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    if (c->ntok <= idx)
        return 1;
    if (strcmp(c->tok[idx], "y") == 0)
        return 1;
    if (strcmp(c->tok[idx], "n") == 0)
        return 0;
    snprintf(err, errlen, "%s:%ld: %s: averaging is 'y' or 'n', got '%s'", c->file, c->line,
             c->cmd, c->tok[idx]);
    return -1;
}

/* Cell range [lo, hi) of a box given in metres; the box must lie in the domain. */
scl_status fdtd_in_box_cells(const input *in, const command *c, const scl_grid3d *g,
                             const double *p, int lo[3], int hi[3], char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    double d[3] = {g->dx, g->dy, g->dz}, ext[3] = {g->nx * g->dx, g->ny * g->dy, g->nz * g->dz};
    int n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        if (p[a] < 0 || p[a + 3] > ext[a] * (1 + 1e-9) || p[a] > p[a + 3]) {
            snprintf(err, errlen,
                     "%s:%ld: %s: %c from %g to %g m is not inside the domain [0, %g] m (or lower > upper)",
                     c->file, c->line, c->cmd, "xyz"[a], p[a], p[a + 3], ext[a]);
            return SCL_ERR_INPUT;
        }
        lo[a] = (int)scl_round_half_down(p[a] / d[a]);
        hi[a] = (int)scl_round_half_down(p[a + 3] / d[a]);
        if (hi[a] > n[a])
            hi[a] = n[a];
    }
    return SCL_OK;
}

int fdtd_in_is_inf(const char *tok, int *sign)
{
    char *end;
    double v = strtod(tok, &end);
    if (end == tok || *end || !isinf(v))
        return 0;
    *sign = v > 0 ? 1 : -1;
    return 1;
}

/* Cells of a gprMax range in metres (rounded as gprMax), inside the domain. */
scl_status fdtd_in_range_cells(const input *in, const command *c, const scl_fdtd_model *m,
                               int first, int lo[3], int hi[3], char *err, size_t errlen)
{
    double p[6];
    if (fdtd_in_reals(in, c, first, 6, p, err, errlen))
        return SCL_ERR_INPUT;
    return fdtd_in_box_cells(in, c, &m->grid, p, lo, hi, err, errlen);
}

/* *arrp (an array of n items of size bytes, any pointer type: read and
 * written as bytes) grown by one, item appended and n counted; unchanged
 * when out of memory */
scl_status fdtd_in_push(void *arrp, int *n, const void *item, size_t size)
{
    void *arr;
    memcpy(&arr, arrp, sizeof arr);
    char *p = realloc(arr, (size_t)(*n + 1) * size);
    if (!p)
        return SCL_ERR_MEMORY;
    memcpy(p + (size_t)(*n)++ * size, item, size);
    memcpy(arrp, &p, sizeof p);
    return SCL_OK;
}
