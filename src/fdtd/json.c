/* A small JSON reader: recursive descent into a tree of values, depth
 * limited so a hostile file cannot exhaust the stack. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

typedef struct {
    const char *s, *p;
    char *err;
    size_t errlen;
} parser;

static int json_fail(parser *ps, const char *why)
{
    long line = 1;
    for (const char *q = ps->s; q < ps->p; q++)
        line += *q == '\n';
    snprintf(ps->err, ps->errlen, "line %ld: %s", line, why);
    return -1;
}

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

/* A string's text (after its opening quote) into a new buffer; escapes
 * resolved, \u outside ASCII kept as '?' (names here are ASCII). */
static int parse_string(parser *ps, char **out)
{
    size_t cap = 16, n = 0;
    char *b = malloc(cap);
    if (!b)
        return json_fail(ps, "out of memory");
    for (;;) {
        char c = *ps->p++;
        if (c == '\0' || (unsigned char)c < 0x20) {
            free(b);
            ps->p--;
            return json_fail(ps, "unterminated string");
        }
        if (c == '"')
            break;
        if (c == '\\') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            char e = *ps->p++;
            const char *k = e ? strchr(from, e) : NULL;
            if (k)
                c = to[k - from];
            else if (e == 'u' && strspn(ps->p, "0123456789abcdefABCDEF") >= 4) {
                long u = strtol((char[5]){ps->p[0], ps->p[1], ps->p[2], ps->p[3], 0}, NULL, 16);
                ps->p += 4;
                c = u < 0x80 ? (char)u : '?';
            } else {
                free(b);
                return json_fail(ps, "bad escape in a string");
            }
        }
        if (n + 2 > cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                return json_fail(ps, "out of memory");
            }
            b = nb;
        }
        b[n++] = c;
    }
    b[n] = '\0';
    *out = b;
    return 0;
}

static int parse_value(parser *ps, fdtd_json *v, int depth);

/* The members of an array or object, after its opening bracket. */
static int parse_members(parser *ps, fdtd_json *v, int object, int depth)
{
    const char close = object ? '}' : ']';
    int cap = 0;
    skip_ws(ps);
    if (*ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        if (v->n == cap) {
            cap = cap ? 2 * cap : 4;
            fdtd_json *ni = realloc(v->items, (size_t)cap * sizeof *ni);
            char **nk = object ? realloc(v->keys, (size_t)cap * sizeof *nk) : NULL;
            if (ni)
                v->items = ni;
            if (nk)
                v->keys = nk;
            if (!ni || (object && !nk))
                return json_fail(ps, "out of memory");
        }
        memset(&v->items[v->n], 0, sizeof v->items[0]);
        if (object) {
            skip_ws(ps);
            if (*ps->p != '"')
                return json_fail(ps, "an object's member needs a quoted name");
            ps->p++;
            if (parse_string(ps, &v->keys[v->n]) != 0)
                return -1;
            skip_ws(ps);
            if (*ps->p++ != ':') {
                free(v->keys[v->n]);
                ps->p--;
                return json_fail(ps, "':' expected after a member's name");
            }
        }
        v->n++; /* counted before parsing, so that free releases it */
        if (parse_value(ps, &v->items[v->n - 1], depth + 1) != 0)
            return -1;
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p++ == close)
            return 0;
        ps->p--;
        return json_fail(ps, object ? "',' or '}' expected" : "',' or ']' expected");
    }
}

static int parse_value(parser *ps, fdtd_json *v, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return json_fail(ps, "nested too deeply");
    skip_ws(ps);
    char c = *ps->p;
    static const struct {
        const char *word;
        fdtd_json_type type;
        double num;
    } words[] = {{"true", FDTD_JSON_BOOL, 1}, {"false", FDTD_JSON_BOOL, 0}, {"null", FDTD_JSON_NULL, 0}};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        if (strncmp(ps->p, words[w].word, strlen(words[w].word)) == 0) {
            ps->p += strlen(words[w].word);
            v->type = words[w].type;
            v->num = words[w].num;
            return 0;
        }
    if (c == '{' || c == '[') {
        ps->p++;
        v->type = c == '{' ? FDTD_JSON_OBJECT : FDTD_JSON_ARRAY;
        return parse_members(ps, v, c == '{', depth);
    }
    if (c == '"') {
        ps->p++;
        v->type = FDTD_JSON_STRING;
        return parse_string(ps, &v->str);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        v->num = strtod(ps->p, &end);
        if (end == ps->p)
            return json_fail(ps, "a number expected");
        v->type = FDTD_JSON_NUMBER;
        ps->p = end;
        return 0;
    }
    return json_fail(ps, "a value expected");
}

int fdtd_json_parse(const char *text, fdtd_json *out, char *err, size_t errlen)
{
    parser ps = {text, text, err, errlen};
    memset(out, 0, sizeof *out);
    int rc = parse_value(&ps, out, 0);
    if (rc == 0) {
        skip_ws(&ps);
        if (*ps.p)
            rc = json_fail(&ps, "text after the value");
    }
    if (rc != 0)
        fdtd_json_free(out);
    return rc;
}

void fdtd_json_free(fdtd_json *v)
{
    for (int q = 0; q < v->n; q++) {
        fdtd_json_free(&v->items[q]);
        if (v->keys)
            free(v->keys[q]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    memset(v, 0, sizeof *v);
}

const fdtd_json *fdtd_json_get(const fdtd_json *v, const char *key)
{
    if (!v || v->type != FDTD_JSON_OBJECT)
        return NULL;
    for (int q = v->n - 1; q >= 0; q--) /* the last of repeated names, as Python's json */
        if (strcmp(v->keys[q], key) == 0)
            return &v->items[q];
    return NULL;
}
