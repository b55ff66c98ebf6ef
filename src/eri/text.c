/* Small text helpers shared by the basis and XYZ readers and messages. */
#include "eri_internal.h"
#include "core/text_input.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

scl_status eri_fail(char *err, size_t errlen, scl_status status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

scl_status eri_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    *text = NULL;
    *len = 0;
    /* basis and geometry files are small: 64 MiB bounds /dev/zero and friends */
    FILE *f = scl_open_text_input(path, "text file", 64ull << 20, err, errlen);
    if (!f)
        return SCL_ERR_IO;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f), why = errno;
    fclose(f);
    if (!buf)
        return eri_fail(err, errlen, SCL_ERR_MEMORY, "%s: out of memory reading the file", path);
    if (bad) {
        free(buf);
        return eri_fail(err, errlen, SCL_ERR_IO, "%s: read error: %s", path,
                        scl_text_input_why(why));
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return SCL_OK;
}

int eri_next_line(eri_lines *it, const char **line, size_t *n)
{
    if (it->p >= it->end)
        return 0;
    const char *s = it->p;
    const char *e = memchr(s, '\n', (size_t)(it->end - s));
    if (!e)
        e = it->end;
    it->p = e < it->end ? e + 1 : e;
    it->number++;
    size_t len = (size_t)(e - s);
    if (len && s[len - 1] == '\r')
        len--;
    *line = s;
    *n = len;
    return 1;
}

int eri_tokens(const char *line, size_t n, char *buf, size_t bufsize, char **tok, int max)
{
    size_t m = 0;
    for (; m < n && m + 1 < bufsize && line[m] != '#' && line[m] != '!'; m++)
        buf[m] = line[m] == '\0' ? ' ' : line[m];
    buf[m] = '\0';
    int count = 0;
    char *p = buf;
    while (count < max) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        tok[count++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    return count;
}

int eri_parse_double(const char *tok, double *out)
{
    char tmp[64];
    size_t n = strlen(tok);
    if (n == 0 || n >= sizeof tmp)
        return -1;
    for (size_t i = 0; i <= n; i++)
        tmp[i] = (tok[i] == 'D' || tok[i] == 'd') ? 'e' : tok[i];
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}
