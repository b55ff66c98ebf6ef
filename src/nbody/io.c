/* Body files: one body per line "x y z vx vy vz m" (blanks or commas), '#'
 * comments, an optional header line of names, "# n = N" declaring the count.
 * Errors name the file and line. */
#include "core/fail.h"
#include "core/text_input.h"
#include "streamcl/nbody.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_CHARS 4096

typedef struct {
    size_t n, cap;
    double *pos, *vel, *mass;
} body_list;

static void list_free(body_list *b)
{
    free(b->pos);
    free(b->vel);
    free(b->mass);
    memset(b, 0, sizeof *b);
}

static int list_push(body_list *b, const double v[7])
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        double *p = realloc(b->pos, 3 * cap * sizeof *p);
        if (p)
            b->pos = p;
        double *u = p ? realloc(b->vel, 3 * cap * sizeof *u) : NULL;
        if (u)
            b->vel = u;
        double *m = u ? realloc(b->mass, cap * sizeof *m) : NULL;
        if (!m)
            return -1;
        b->mass = m;
        b->cap = cap;
    }
    memcpy(b->pos + 3 * b->n, v, 3 * sizeof *v);
    memcpy(b->vel + 3 * b->n, v + 3, 3 * sizeof *v);
    b->mass[b->n++] = v[6];
    return 0;
}

/* "# n = 123" declares the body count; returns 1 and sets *count if so. */
static int declared_count(const char *comment, size_t *count)
{
    unsigned long long v;
    char tail;
    if (sscanf(comment, "# n = %llu %c", &v, &tail) == 1) {
        *count = (size_t)v;
        return 1;
    }
    return 0;
}

/* Parse up to 7 numbers; returns how many, or -1 on a non-number (what
 * receives the offending text). */
static int parse_numbers(char *line, double v[7], char *what, size_t whatlen)
{
    int count = 0;
    char *p = line;
    for (;;) {
        while (*p && (isspace((unsigned char)*p) || *p == ','))
            p++;
        if (!*p)
            return count;
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p) {
            size_t len = strcspn(p, " \t,\r\n");
            snprintf(what, whatlen, "%.*s", (int)(len < 40 ? len : 40), p);
            return -1;
        }
        if (count == 7)
            return 8;
        v[count++] = x;
        p = end;
        if (*p && !isspace((unsigned char)*p) && *p != ',') { /* e.g. "3x": name the token */
            char *start = p;
            while (start > line && !isspace((unsigned char)start[-1]) && start[-1] != ',')
                start--;
            size_t len = strcspn(start, " \t,\r\n");
            snprintf(what, whatlen, "%.*s", (int)(len < 40 ? len : 40), start);
            return -1;
        }
    }
}

/* One line's numbers (count of them, or -1 with the offending text in what)
 * checked and appended to b. */
static scl_status take_body(body_list *b, const double v[7], int count, const char *what,
                            const char *line, const char *path, long lineno, char *err,
                            size_t errlen)
{
    static const char *names[7] = {"x", "y", "z", "vx", "vy", "vz", "m"};
    if (count < 0) {
        scl_format_error(err, errlen, "%s:%ld: '%s' is not a number", path, lineno, what);
        return SCL_ERR_INPUT;
    }
    if (count != 7) {
        scl_format_error(err, errlen, "%s:%ld: expected 7 values (x y z vx vy vz m), found %s%d%s",
                         path, lineno, count > 7 ? "more than " : "", count > 7 ? 7 : count,
                         count < 7 && !strchr(line, '\n') ? " (truncated file?)" : "");
        return SCL_ERR_INPUT;
    }
    for (int k = 0; k < 7; k++)
        if (!isfinite(v[k])) {
            scl_format_error(err, errlen, "%s:%ld: %s is not finite", path, lineno, names[k]);
            return SCL_ERR_INPUT;
        }
    if (v[6] < 0) {
        scl_format_error(err, errlen, "%s:%ld: mass %g is negative", path, lineno, v[6]);
        return SCL_ERR_INPUT;
    }
    if (list_push(b, v)) {
        scl_format_error(err, errlen, "%s:%ld: out of memory", path, lineno);
        return SCL_ERR_MEMORY;
    }
    return SCL_OK;
}

scl_status scl_nbody_load(const char *path, size_t *n, double **pos, double **vel,
                          double **mass, char *err, size_t errlen)
{
    if (!path || !n || !pos || !vel || !mass) {
        scl_format_error(err, errlen, "scl_nbody_load: NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    FILE *f = scl_open_text_input(path, "body file", 0, err, errlen);
    if (!f)
        return SCL_ERR_IO;
    body_list b = {0};
    char line[LINE_MAX_CHARS];
    long lineno = 0;
    size_t declared = 0;
    int has_declared = 0, seen_header = 0;
    scl_status s = SCL_OK;
    while (s == SCL_OK && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            scl_format_error(err, errlen, "%s:%ld: line longer than %d characters", path, lineno,
                             LINE_MAX_CHARS - 2);
            s = SCL_ERR_INPUT;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) {
            if (declared_count(hash, &declared))
                has_declared = 1;
            *hash = '\0';
        }
        double v[7];
        char what[48] = "";
        int count = parse_numbers(line, v, what, sizeof what);
        if (count == 0)
            continue;
        const char *first = line + strspn(line, " \t");
        if (count < 0 && b.n == 0 && !seen_header && isalpha((unsigned char)*first)) {
            seen_header = 1; /* a line of column names such as "x,y,z,vx,vy,vz,m" */
            continue;
        }
        s = take_body(&b, v, count, what, line, path, lineno, err, errlen);
    }
    if (s == SCL_OK && ferror(f)) {
        scl_format_error(err, errlen, "%s:%ld: read error: %s", path, lineno + 1,
                         scl_text_input_why(errno));
        s = SCL_ERR_IO;
    }
    fclose(f);
    if (s == SCL_OK && b.n == 0) {
        scl_format_error(err, errlen, "%s:%ld: no bodies in the file", path, lineno);
        s = SCL_ERR_INPUT;
    }
    if (s == SCL_OK && has_declared && declared != b.n) {
        scl_format_error(err, errlen, "%s:%ld: the file declares n = %zu but holds %zu bodies%s",
                         path, lineno, declared, b.n, b.n < declared ? " (truncated?)" : "");
        s = SCL_ERR_INPUT;
    }
    if (s != SCL_OK) {
        list_free(&b);
        return s;
    }
    *n = b.n;
    *pos = b.pos;
    *vel = b.vel;
    *mass = b.mass;
    return SCL_OK;
}

typedef struct {
    size_t n;
    const double *pos, *vel, *mass;
} body_file;

static int write_bodies(FILE *f, const void *user)
{
    const body_file *b = user;
    if (fprintf(f, "# n = %zu\nx,y,z,vx,vy,vz,m\n", b->n) < 0)
        return -1;
    for (size_t i = 0; i < b->n; i++)
        if (fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", b->pos[3 * i],
                    b->pos[3 * i + 1], b->pos[3 * i + 2], b->vel[3 * i], b->vel[3 * i + 1],
                    b->vel[3 * i + 2], b->mass[i]) < 0)
            return -1;
    return 0;
}

scl_status scl_nbody_save(const char *path, size_t n, const double *pos, const double *vel,
                          const double *mass, char *err, size_t errlen)
{
    if (!path || !pos || !vel || !mass) {
        scl_format_error(err, errlen, "scl_nbody_save: NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    const body_file b = {n, pos, vel, mass};
    return scl_outfile_write(path, 0, write_bodies, &b, err, errlen);
}
