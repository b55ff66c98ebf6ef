/* Run-file reading: lines with their numbers, for "PATH:LINE: why" messages,
 * and strict token parsing. */
#include "streamcl/grid3d.h"
#include "core/fail.h"
#include "core/text_input.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

scl_status scl_linereader_open(scl_linereader *r, const char *path, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!path) {
        scl_format_error(err, errlen, "no input file given");
        return SCL_ERR_ARGUMENT;
    }
    snprintf(r->path, sizeof r->path, "%s", path);
    r->f = scl_open_text_input(path, "run file", 64ull << 20, err, errlen);
    if (!r->f)
        return SCL_ERR_IO;
    return SCL_OK;
}

void scl_linereader_close(scl_linereader *r)
{
    if (r->f)
        fclose(r->f);
    free(r->buf);
    r->f = NULL;
    r->buf = NULL;
    r->cap = 0;
}

int scl_linereader_next(scl_linereader *r, char **line, char *err, size_t errlen)
{
    size_t len = 0;
    int c;
    if (!r->f)
        return 0;
    while ((c = fgetc(r->f)) != EOF && c != '\n') {
        if (len + 2 > r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 256;
            if (cap > (1u << 20)) {
                r->line++;
                scl_linereader_fail(r, err, errlen, "line longer than 1 MiB");
                return -1;
            }
            char *b = realloc(r->buf, cap);
            if (!b) {
                scl_format_error(err, errlen, "%s: out of memory", r->path);
                return -1;
            }
            r->buf = b;
            r->cap = cap;
        }
        if (c == '\0') {
            r->line++;
            scl_linereader_fail(r, err, errlen, "NUL byte in a text file");
            return -1;
        }
        r->buf[len++] = (char)c;
    }
    if (ferror(r->f)) {
        scl_format_error(err, errlen, "%s: read error after line %ld: %s", r->path, r->line,
                         scl_text_input_why(errno));
        return -1;
    }
    if (c == EOF && len == 0)
        return 0;
    if (!r->buf) {
        r->buf = malloc(256);
        if (!r->buf)
            return -1;
        r->cap = 256;
    }
    if (len > 0 && r->buf[len - 1] == '\r')
        len--;
    r->buf[len] = '\0';
    r->line++;
    *line = r->buf;
    return 1;
}

scl_status scl_linereader_fail(const scl_linereader *r, char *err, size_t errlen,
                               const char *fmt, ...)
{
    if (err && errlen) {
        int n = snprintf(err, errlen, "%s:%ld: ", r->path, r->line);
        if (n >= 0 && (size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return SCL_ERR_INPUT;
}

int scl_split_tokens(char *line, char **tok, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return n;
        if (n == max)
            return max + 1;
        tok[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p)
            *p++ = '\0';
    }
}

int scl_parse_real(const char *tok, double *out)
{
    char *end;
    errno = 0;
    double v = tok ? strtod(tok, &end) : 0;
    if (!tok || end == tok || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int scl_parse_int(const char *tok, long *out)
{
    char *end;
    errno = 0;
    long v = tok ? strtol(tok, &end, 10) : 0;
    if (!tok || end == tok || *end || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}
