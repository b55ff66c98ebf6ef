/* Parameter and obstacle files of the D2Q9 benchmark. Every complaint names
 * the file and the line, so that a user can fix the input without guessing. */
#include "streamcl/lbm.h"
#include "core/fail.h"
#include "core/text_input.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_CHARS 4096

scl_status scl_lbm_check_params(const scl_lbm_params *p, char *err, size_t errlen)
{
    if (!p) {
        scl_format_error(err, errlen, "lbm parameters: NULL");
        return SCL_ERR_ARGUMENT;
    }
    const char *what = NULL;
    if (p->nx < 1 || p->nx > SCL_LBM_MAX_DIM)
        what = "nx must be in [1, 65536]";
    else if (p->ny < 2 || p->ny > SCL_LBM_MAX_DIM)
        what = "ny must be in [2, 65536] (row ny-2 is accelerated)";
    else if ((double)p->nx * (double)p->ny * SCL_LBM_Q > 4294967295.0)
        what = "nx*ny*9 exceeds 32-bit indexing";
    else if (p->max_iters < 0)
        what = "maxIters must be >= 0";
    else if (!isfinite(p->density) || p->density <= 0.0f)
        what = "density must be a finite number > 0";
    else if (!isfinite(p->accel))
        what = "accel must be finite";
    else if (!(p->omega > 0.0f && p->omega < 2.0f))
        what = "omega must be in (0, 2)";
    if (what) {
        scl_format_error(err, errlen, "lbm parameters (nx %d, ny %d, omega %g): %s", p->nx, p->ny,
                         (double)p->omega, what);
        return SCL_ERR_INPUT;
    }
    return SCL_OK;
}

/* Strip trailing blanks/newline in place; returns the first non-blank char. */
static char *trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

static int parse_int_token(const char *text, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno)
        return -1;
    *out = v;
    return 0;
}

/* A line longer than the buffer is an error rather than two lines. */
static int read_line(FILE *f, char *buf, size_t len, int *too_long)
{
    if (!fgets(buf, (int)len, f))
        return 0;
    size_t n = strlen(buf);
    *too_long = n == len - 1 && buf[n - 1] != '\n' && !feof(f);
    return 1;
}

scl_status scl_lbm_read_params(const char *path, scl_lbm_params *p, char *err, size_t errlen)
{
    static const char *names[7] = {"nx", "ny", "maxIters", "reynolds_dim",
                                   "density", "accel", "omega"};
    if (!path || !p) {
        scl_format_error(err, errlen, "scl_lbm_read_params: NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    FILE *f = scl_open_text_input(path, "parameter file", 0, err, errlen);
    if (!f)
        return SCL_ERR_IO;
    long ints[4] = {0};
    double reals[3] = {0};
    char buf[LINE_MAX_CHARS];
    scl_status st = SCL_OK;
    for (int line = 1; line <= 7 && st == SCL_OK; line++) {
        int too_long = 0;
        if (!read_line(f, buf, sizeof buf, &too_long)) {
            if (ferror(f))
                scl_format_error(err, errlen, "%s:%d: read error: %s", path, line,
                                 scl_text_input_why(errno));
            else
                scl_format_error(err, errlen, "%s:%d: file ends before %s (7 lines expected)",
                                 path, line, names[line - 1]);
            st = SCL_ERR_INPUT;
            break;
        }
        char *t = trim(buf);
        if (too_long) {
            scl_format_error(err, errlen, "%s:%d: line too long", path, line);
            st = SCL_ERR_INPUT;
        } else if (line <= 4) {
            long v;
            if (parse_int_token(t, &v) || v < -2147483647L || v > 2147483647L) {
                scl_format_error(err, errlen, "%s:%d: %s must be an integer, got '%s'", path, line,
                                 names[line - 1], t);
                st = SCL_ERR_INPUT;
            }
            ints[line - 1] = v;
        } else {
            char *end;
            errno = 0;
            double v = strtod(t, &end);
            if (end == t || *end || errno || !isfinite(v)) {
                scl_format_error(err, errlen, "%s:%d: %s must be a finite number, got '%s'", path,
                                 line, names[line - 1], t);
                st = SCL_ERR_INPUT;
            }
            reals[line - 5] = v;
        }
    }
    /* the format has exactly 7 values: more text means a different format */
    for (int line = 8; st == SCL_OK; line++) {
        int too_long = 0;
        if (!read_line(f, buf, sizeof buf, &too_long))
            break;
        char *t = trim(buf);
        if (*t || too_long) {
            scl_format_error(err, errlen, "%s:%d: unexpected text after the 7 parameters: '%.40s'",
                             path, line, t);
            st = SCL_ERR_INPUT;
        }
    }
    if (st == SCL_OK && ferror(f)) {
        scl_format_error(err, errlen, "%s: read error: %s", path, scl_text_input_why(errno));
        st = SCL_ERR_IO;
    }
    fclose(f);
    if (st != SCL_OK)
        return st;
    p->nx = (int)ints[0];
    p->ny = (int)ints[1];
    p->max_iters = (int)ints[2];
    p->reynolds_dim = (int)ints[3];
    p->density = (float)reals[0];
    p->accel = (float)reals[1];
    p->omega = (float)reals[2];
    /* name the line of the first offending value */
    static const int line_of_check[] = {1, 2, 1, 3, 5, 6, 7};
    char why[512];
    if (scl_lbm_check_params(p, why, sizeof why) != SCL_OK) {
        int line = p->nx < 1 || p->nx > SCL_LBM_MAX_DIM ? line_of_check[0]
                   : p->ny < 2 || p->ny > SCL_LBM_MAX_DIM ? line_of_check[1]
                   : (double)p->nx * p->ny * SCL_LBM_Q > 4294967295.0 ? line_of_check[2]
                   : p->max_iters < 0 ? line_of_check[3]
                   : !(p->density > 0.0f) || !isfinite(p->density) ? line_of_check[4]
                   : !isfinite(p->accel) ? line_of_check[5]
                                         : line_of_check[6];
        scl_format_error(err, errlen, "%s:%d: %s", path, line, why);
        return SCL_ERR_INPUT;
    }
    return SCL_OK;
}

scl_status scl_lbm_read_obstacles(const char *path, const scl_lbm_params *p,
                                  unsigned char *mask, char *err, size_t errlen)
{
    if (!path || !p || !mask) {
        scl_format_error(err, errlen, "scl_lbm_read_obstacles: NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    FILE *f = scl_open_text_input(path, "obstacle file", 0, err, errlen);
    if (!f)
        return SCL_ERR_IO;
    size_t ncell = (size_t)p->nx * (size_t)p->ny;
    memset(mask, 0, ncell);
    char buf[LINE_MAX_CHARS];
    scl_status st = SCL_OK;
    int too_long = 0;
    for (long line = 1; st == SCL_OK && read_line(f, buf, sizeof buf, &too_long); line++) {
        char *t = trim(buf);
        if (too_long) {
            scl_format_error(err, errlen, "%s:%ld: line too long", path, line);
            st = SCL_ERR_INPUT;
            break;
        }
        if (!*t)
            continue;
        char *tok[4] = {0};
        int ntok = 0;
        for (char *save = NULL, *w = strtok_r(t, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
            if (ntok < 4)
                tok[ntok++] = w;
            else
                ntok++;
        long v[3];
        if (ntok != 3) {
            scl_format_error(err, errlen, "%s:%ld: expected 'x y 1', got %d value%s", path, line,
                             ntok, ntok == 1 ? "" : "s");
            st = SCL_ERR_INPUT;
        } else if (parse_int_token(tok[0], &v[0]) || parse_int_token(tok[1], &v[1]) ||
                   parse_int_token(tok[2], &v[2])) {
            scl_format_error(err, errlen, "%s:%ld: expected three integers 'x y 1'", path, line);
            st = SCL_ERR_INPUT;
        } else if (v[0] < 0 || v[0] >= p->nx || v[1] < 0 || v[1] >= p->ny) {
            scl_format_error(err, errlen, "%s:%ld: cell (%ld, %ld) outside the %dx%d grid", path,
                             line, v[0], v[1], p->nx, p->ny);
            st = SCL_ERR_INPUT;
        } else if (v[2] != 1) {
            scl_format_error(err, errlen, "%s:%ld: blocked value must be 1, got %ld", path, line,
                             v[2]);
            st = SCL_ERR_INPUT;
        } else {
            mask[(size_t)v[0] + (size_t)v[1] * (size_t)p->nx] = 1;
        }
    }
    if (st == SCL_OK && ferror(f)) {
        scl_format_error(err, errlen, "%s: read error: %s", path, scl_text_input_why(errno));
        st = SCL_ERR_IO;
    }
    fclose(f);
    if (st == SCL_OK && scl_lbm_fluid_cells(p, mask) == 0) {
        scl_format_error(err, errlen, "%s: every cell is blocked; av_velocity is undefined", path);
        st = SCL_ERR_INPUT;
    }
    return st;
}
