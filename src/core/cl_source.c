/* Reading kernel signatures out of OpenCL C source, so that arguments can be
 * bound by name and checked by type. A small preprocessor evaluates the
 * file's conditionals with the build's -D options (so `typedef double real`
 * under `#if PREC == 2` resolves exactly as the compiler saw it), records
 * object-like macros and typedefs, and then reads each __kernel's parameter
 * list. Only what signatures need is understood; anything else is passed by. */
#include "cl_source.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MACROS 512
#define MAX_TYPEDEFS 256

typedef struct {
    char name[SCL_SRC_NAME];
    char *value; /* NULL for function-like macros */
} macro;

typedef struct {
    char name[SCL_SRC_NAME];
    char *target; /* the written type, e.g. "double4" or "unsigned int" */
} typedef_entry;

struct scl_source_info {
    macro macros[MAX_MACROS];
    int nmacros;
    typedef_entry typedefs[MAX_TYPEDEFS];
    int ntypedefs;
    char *active; /* the source with inactive lines and comments blanked */
};

/* ------------------------------------------------------------ macros */

static macro *find_macro(scl_source_info *si, const char *name, size_t len)
{
    for (int i = si->nmacros - 1; i >= 0; i--)
        if (strlen(si->macros[i].name) == len && !strncmp(si->macros[i].name, name, len))
            return &si->macros[i];
    return NULL;
}

static void define_macro(scl_source_info *si, const char *name, size_t len, const char *value,
                         size_t vlen, int function_like)
{
    if (len == 0 || len >= SCL_SRC_NAME)
        return;
    macro *m = find_macro(si, name, len);
    if (!m) {
        if (si->nmacros == MAX_MACROS)
            return;
        m = &si->macros[si->nmacros++];
        memcpy(m->name, name, len);
        m->name[len] = '\0';
    } else {
        free(m->value);
    }
    m->value = NULL;
    if (!function_like) {
        m->value = malloc(vlen + 1);
        if (m->value) {
            memcpy(m->value, value, vlen);
            m->value[vlen] = '\0';
        }
    }
}

static void undefine_macro(scl_source_info *si, const char *name, size_t len)
{
    macro *m = find_macro(si, name, len);
    if (m) {
        free(m->value);
        *m = si->macros[--si->nmacros];
    }
}

/* -D options of a build option string ("-DA -DB=2 -D C=x"). */
static void define_options(scl_source_info *si, const char *options)
{
    const char *p = options;
    while (p && *p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (p[0] == '-' && p[1] == 'D') {
            p += 2;
            while (*p == ' ')
                p++;
            const char *name = p;
            while (*p && *p != '=' && *p != ' ')
                p++;
            size_t len = (size_t)(p - name);
            if (*p == '=') {
                const char *v = ++p;
                while (*p && *p != ' ')
                    p++;
                define_macro(si, name, len, v, (size_t)(p - v), 0);
            } else {
                define_macro(si, name, len, "1", 1, 0);
            }
        } else {
            while (*p && *p != ' ')
                p++;
        }
    }
}

/* ------------------------------------------------------------ #if expressions */

typedef struct {
    scl_source_info *si;
    const char *p;
    int depth;
    int error;
} expr;

static long long eval_ternary(expr *e);

static void skip_space(expr *e)
{
    while (*e->p == ' ' || *e->p == '\t')
        e->p++;
}

static int is_ident_start(int c) { return isalpha(c) || c == '_'; }
static int is_ident(int c) { return isalnum(c) || c == '_'; }

static long long eval_text(scl_source_info *si, const char *text, int depth);

static long long eval_primary(expr *e)
{
    skip_space(e);
    const char *p = e->p;
    if (*p == '(') {
        e->p++;
        long long v = eval_ternary(e);
        skip_space(e);
        if (*e->p == ')')
            e->p++;
        else
            e->error = 1;
        return v;
    }
    if (*p == '!') {
        e->p++;
        return !eval_primary(e);
    }
    if (*p == '-') {
        e->p++;
        return -eval_primary(e);
    }
    if (*p == '+') {
        e->p++;
        return eval_primary(e);
    }
    if (*p == '~') {
        e->p++;
        return ~eval_primary(e);
    }
    if (isdigit((unsigned char)*p)) {
        char *end;
        long long v = strtoll(p, &end, 0);
        while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
            end++;
        e->p = end;
        return v;
    }
    if (is_ident_start((unsigned char)*p)) {
        const char *s = p;
        while (is_ident((unsigned char)*p))
            p++;
        size_t len = (size_t)(p - s);
        e->p = p;
        if (len == 7 && !strncmp(s, "defined", 7)) {
            skip_space(e);
            int paren = *e->p == '(';
            if (paren)
                e->p++;
            skip_space(e);
            const char *n = e->p;
            while (is_ident((unsigned char)*e->p))
                e->p++;
            long long v = find_macro(e->si, n, (size_t)(e->p - n)) != NULL;
            skip_space(e);
            if (paren) {
                if (*e->p == ')')
                    e->p++;
                else
                    e->error = 1;
            }
            return v;
        }
        macro *m = find_macro(e->si, s, len);
        if (!m || !m->value)
            return 0; /* undefined identifiers are 0, as in C */
        return eval_text(e->si, m->value, e->depth + 1);
    }
    e->error = 1;
    return 0;
}

/* Binary operators by precedence level (lowest first). */
static long long eval_binary(expr *e, int level)
{
    static const char *ops[][4] = {{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="},
                                   {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"},
                                   {"*", "/", "%"}};
    const int nlevels = (int)(sizeof ops / sizeof ops[0]);
    if (level == nlevels)
        return eval_primary(e);
    long long v = eval_binary(e, level + 1);
    for (;;) {
        skip_space(e);
        const char *op = NULL;
        for (int i = 0; i < 4 && ops[level][i]; i++) {
            size_t n = strlen(ops[level][i]);
            if (!strncmp(e->p, ops[level][i], n)) {
                /* "|" must not take "||", "&" not "&&", "<" not "<<" */
                if (n == 1 && (e->p[1] == e->p[0] || (e->p[0] == '<' && e->p[1] == '=') ||
                               (e->p[0] == '>' && e->p[1] == '=')))
                    continue;
                op = ops[level][i];
                break;
            }
        }
        if (!op)
            return v;
        e->p += strlen(op);
        long long r = eval_binary(e, level + 1);
        if (!strcmp(op, "||")) v = v || r;
        else if (!strcmp(op, "&&")) v = v && r;
        else if (!strcmp(op, "|")) v |= r;
        else if (!strcmp(op, "^")) v ^= r;
        else if (!strcmp(op, "&")) v &= r;
        else if (!strcmp(op, "==")) v = v == r;
        else if (!strcmp(op, "!=")) v = v != r;
        else if (!strcmp(op, "<=")) v = v <= r;
        else if (!strcmp(op, ">=")) v = v >= r;
        else if (!strcmp(op, "<")) v = v < r;
        else if (!strcmp(op, ">")) v = v > r;
        else if (!strcmp(op, "<<")) v = (r >= 0 && r < 63) ? v << r : 0;
        else if (!strcmp(op, ">>")) v = (r >= 0 && r < 63) ? v >> r : 0;
        else if (!strcmp(op, "+")) v += r;
        else if (!strcmp(op, "-")) v -= r;
        else if (!strcmp(op, "*")) v *= r;
        else if (!strcmp(op, "/")) v = r ? v / r : 0;
        else if (!strcmp(op, "%")) v = r ? v % r : 0;
    }
}

static long long eval_ternary(expr *e)
{
    if (e->depth > 32) {
        e->error = 1;
        return 0;
    }
    long long c = eval_binary(e, 0);
    skip_space(e);
    if (*e->p != '?')
        return c;
    e->p++;
    long long a = eval_ternary(e);
    skip_space(e);
    if (*e->p == ':')
        e->p++;
    long long b = eval_ternary(e);
    return c ? a : b;
}

static long long eval_text(scl_source_info *si, const char *text, int depth)
{
    expr e = {si, text, depth, 0};
    if (depth > 32)
        return 0;
    return eval_ternary(&e);
}

/* ------------------------------------------------------------ preprocessing */

/* Blank comments (keeping newlines) so lines and tokens stay where they were. */
static void strip_comments(char *s)
{
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                *p++ = ' ';
            if (!*p)
                break;
        } else if (p[0] == '/' && p[1] == '*') {
            *p++ = ' ';
            *p = ' ';
            while (p[1] && !(p[1] == '*' && p[2] == '/')) {
                p++;
                if (*p != '\n')
                    *p = ' ';
            }
            if (p[1]) {
                p[1] = ' ';
                p[2] = ' ';
                p += 2;
            } else {
                break;
            }
        }
    }
}

/* Join backslash-continued lines (the continuation becomes spaces). */
static void join_continuations(char *s)
{
    for (char *p = s; *p; p++)
        if (p[0] == '\\' && p[1] == '\n') {
            p[0] = ' ';
            p[1] = ' ';
        }
}

#define MAX_NEST 64

/* The #if nesting: whether each level's code is active, and whether a
 * branch of it was taken already (so that #elif / #else know). */
typedef struct {
    int active[MAX_NEST + 1], taken[MAX_NEST + 1], depth;
} cond_stack;

static char *skip_blanks(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int word_is(const char *word, size_t wl, const char *name)
{
    return wl == strlen(name) && !strncmp(word, name, wl);
}

/* #if / #ifdef / #ifndef / #elif / #else / #endif; 1 when word was one. */
static int directive_conditional(scl_source_info *si, cond_stack *c, const char *word, size_t wl,
                                 char *p)
{
    int on = c->active[c->depth];
    if (word_is(word, wl, "if") || word_is(word, wl, "ifdef") || word_is(word, wl, "ifndef")) {
        int v = 0;
        if (on) {
            if (wl == 2) {
                v = eval_text(si, p, 0) != 0;
            } else {
                const char *n = p;
                while (is_ident((unsigned char)*p))
                    p++;
                v = find_macro(si, n, (size_t)(p - n)) != NULL;
                if (wl == 6)
                    v = !v;
            }
        }
        if (c->depth < MAX_NEST) {
            c->depth++;
            c->active[c->depth] = on && v;
            c->taken[c->depth] = !on || v; /* an inactive parent takes every branch */
        }
    } else if (word_is(word, wl, "elif") && c->depth > 0) {
        int parent = c->active[c->depth - 1];
        int v = parent && !c->taken[c->depth] && eval_text(si, p, 0) != 0;
        c->active[c->depth] = v;
        c->taken[c->depth] = c->taken[c->depth] || v;
    } else if (word_is(word, wl, "else") && c->depth > 0) {
        c->active[c->depth] = c->active[c->depth - 1] && !c->taken[c->depth];
        c->taken[c->depth] = 1;
    } else if (word_is(word, wl, "endif") && c->depth > 0) {
        c->depth--;
    } else {
        return 0;
    }
    return 1;
}

/* #define / #undef in active code (p: after the directive's word). */
static void directive_macro(scl_source_info *si, const char *word, size_t wl, char *p)
{
    if (word_is(word, wl, "define")) {
        const char *n = p;
        while (is_ident((unsigned char)*p))
            p++;
        size_t nl = (size_t)(p - n);
        int function_like = *p == '(';
        p = skip_blanks(p);
        char *v = p, *ve = p + strlen(p);
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
            ve--;
        define_macro(si, n, nl, v, (size_t)(ve - v), function_like);
    } else if (word_is(word, wl, "undef")) {
        const char *n = p;
        while (is_ident((unsigned char)*p))
            p++;
        undefine_macro(si, n, (size_t)(p - n));
    }
}

static void run_directives(scl_source_info *si, char *s)
{
    cond_stack c = {.depth = 0};
    c.active[0] = 1;
    c.taken[0] = 1;
    char *line = s;
    while (*line) {
        char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        char *p = skip_blanks(line);
        int on = c.active[c.depth];
        if (*p == '#') {
            char saved = *end;
            *end = '\0';
            p = skip_blanks(p + 1);
            char *word = p;
            while (isalpha((unsigned char)*p))
                p++;
            size_t wl = (size_t)(p - word);
            p = skip_blanks(p);
            if (!directive_conditional(si, &c, word, wl, p) && on)
                directive_macro(si, word, wl, p);
            *end = saved;
            for (char *q = line; q < end; q++) /* directives are not code */
                *q = ' ';
        } else if (!on) {
            for (char *q = line; q < end; q++)
                *q = ' ';
        }
        line = *end ? end + 1 : end;
    }
}

/* typedef <target> <name>; in active code (not struct bodies). */
static void collect_typedefs(scl_source_info *si)
{
    const char *p = si->active;
    while ((p = strstr(p, "typedef")) != NULL) {
        if ((p > si->active && is_ident((unsigned char)p[-1])) || is_ident((unsigned char)p[7])) {
            p += 7;
            continue;
        }
        const char *semi = strchr(p, ';');
        if (!semi)
            break;
        const char *brace = memchr(p, '{', (size_t)(semi - p));
        const char *name_end = semi;
        while (name_end > p && isspace((unsigned char)name_end[-1]))
            name_end--;
        const char *name = name_end;
        while (name > p && is_ident((unsigned char)name[-1]))
            name--;
        if (si->ntypedefs < MAX_TYPEDEFS && name < name_end &&
            (size_t)(name_end - name) < SCL_SRC_NAME) {
            typedef_entry *t = &si->typedefs[si->ntypedefs++];
            memcpy(t->name, name, (size_t)(name_end - name));
            t->name[name_end - name] = '\0';
            const char *tb = p + 7, *te = name;
            if (brace) { /* typedef struct {...} name: an opaque struct */
                tb = "struct";
                te = tb + 6;
            }
            while (tb < te && isspace((unsigned char)*tb))
                tb++;
            while (te > tb && isspace((unsigned char)te[-1]))
                te--;
            t->target = malloc((size_t)(te - tb) + 1);
            if (t->target) {
                memcpy(t->target, tb, (size_t)(te - tb));
                t->target[te - tb] = '\0';
            }
        }
        p = semi + 1;
    }
}

scl_source_info *scl_source_parse(const char *source, const char *options)
{
    scl_source_info *si = calloc(1, sizeof *si);
    if (!si)
        return NULL;
    si->active = strdup(source);
    if (!si->active) {
        free(si);
        return NULL;
    }
    define_options(si, options);
    strip_comments(si->active);
    join_continuations(si->active);
    run_directives(si, si->active);
    collect_typedefs(si);
    return si;
}

void scl_source_free(scl_source_info *si)
{
    if (!si)
        return;
    for (int i = 0; i < si->nmacros; i++)
        free(si->macros[i].value);
    for (int i = 0; i < si->ntypedefs; i++)
        free(si->typedefs[i].target);
    free(si->active);
    free(si);
}

/* ------------------------------------------------------------ types */

static const scl_src_type builtin_types[] = {
    {"char", 'i', 1, 1},   {"uchar", 'u', 1, 1},  {"short", 'i', 2, 1},  {"ushort", 'u', 2, 1},
    {"int", 'i', 4, 1},    {"uint", 'u', 4, 1},   {"long", 'i', 8, 1},   {"ulong", 'u', 8, 1},
    {"half", 'f', 2, 1},   {"float", 'f', 4, 1},  {"double", 'f', 8, 1}, {"size_t", 'u', 0, 1},
    {"bool", 'b', 0, 1},   {"void", 'v', 0, 0},
};

/* A resolved type name: scalar or vector builtin ("float4"), or unknown. */
static int builtin_type(const char *name, scl_src_type *out)
{
    char base[SCL_SRC_NAME];
    size_t n = strlen(name);
    if (n >= sizeof base)
        return 0;
    memcpy(base, name, n + 1);
    int lanes = 1;
    size_t d = n;
    while (d > 0 && isdigit((unsigned char)base[d - 1]))
        d--;
    if (d < n) {
        lanes = atoi(base + d);
        base[d] = '\0';
        if (lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16)
            return 0;
    }
    for (size_t i = 0; i < sizeof builtin_types / sizeof builtin_types[0]; i++)
        if (!strcmp(builtin_types[i].name, base)) {
            *out = builtin_types[i];
            snprintf(out->name, sizeof out->name, "%s", name);
            out->lanes = lanes;
            return 1;
        }
    return 0;
}

/* Normalise "unsigned int" -> "uint" etc.; drop qualifiers. */
static void normalise_type(const char *in, char *out, size_t outlen)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", in);
    int is_unsigned = 0, is_signed = 0, is_struct = 0;
    char last[SCL_SRC_NAME] = "";
    for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        if (!strcmp(tok, "const") || !strcmp(tok, "volatile") || !strcmp(tok, "restrict") ||
            !strcmp(tok, "__restrict") || !strcmp(tok, "__global") || !strcmp(tok, "global") ||
            !strcmp(tok, "__constant") || !strcmp(tok, "constant") || !strcmp(tok, "__local") ||
            !strcmp(tok, "local") || !strcmp(tok, "__private") || !strcmp(tok, "private"))
            continue;
        if (!strcmp(tok, "unsigned")) {
            is_unsigned = 1;
            continue;
        }
        if (!strcmp(tok, "signed")) {
            is_signed = 1;
            continue;
        }
        if (!strcmp(tok, "struct") || !strcmp(tok, "union")) {
            is_struct = 1;
            continue;
        }
        snprintf(last, sizeof last, "%s", tok);
    }
    (void)is_signed;
    if (is_struct)
        snprintf(out, outlen, "struct");
    else if (is_unsigned && (!last[0] || !strcmp(last, "int")))
        snprintf(out, outlen, "uint");
    else if (is_unsigned && !strcmp(last, "char"))
        snprintf(out, outlen, "uchar");
    else if (is_unsigned && !strcmp(last, "short"))
        snprintf(out, outlen, "ushort");
    else if (is_unsigned && !strcmp(last, "long"))
        snprintf(out, outlen, "ulong");
    else
        snprintf(out, outlen, "%s", last);
}

int scl_source_resolve_type(scl_source_info *si, const char *written, scl_src_type *out)
{
    char name[SCL_SRC_NAME];
    normalise_type(written, name, sizeof name);
    for (int depth = 0; depth < 16; depth++) {
        if (builtin_type(name, out))
            return 1;
        if (!strcmp(name, "struct"))
            break;
        const char *next = NULL;
        for (int i = si->ntypedefs - 1; i >= 0 && !next; i--)
            if (!strcmp(si->typedefs[i].name, name))
                next = si->typedefs[i].target;
        macro *m = next ? NULL : find_macro(si, name, strlen(name));
        if (!next && m && m->value)
            next = m->value;
        if (!next)
            break;
        normalise_type(next, name, sizeof name);
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->cls = '?';
    return 0;
}

/* ------------------------------------------------------------ kernel signatures */

/* Append len bytes to a growing buffer; 0 when out of memory. */
static int append(char **buf, size_t *n, size_t *cap, const char *src, size_t len)
{
    if (*n + len + 1 > *cap) {
        size_t c = 2 * (*n + len + 1);
        char *b = realloc(*buf, c);
        if (!b)
            return 0;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *n, src, len);
    *n += len;
    (*buf)[*n] = '\0';
    return 1;
}

/* Copy of text with object-like macros expanded (one level per pass, a few passes). */
static char *expand_macros(scl_source_info *si, const char *text)
{
    char *cur = strdup(text);
    for (int pass = 0; cur && pass < 4; pass++) {
        size_t cap = 0, n = 0;
        char *out = NULL;
        int changed = 0, ok = append(&out, &n, &cap, "", 0);
        for (const char *p = cur; *p && ok;) {
            if (is_ident_start((unsigned char)*p)) {
                const char *s = p;
                while (is_ident((unsigned char)*p))
                    p++;
                macro *m = find_macro(si, s, (size_t)(p - s));
                const char *rep = (m && m->value) ? m->value : NULL;
                ok = rep ? append(&out, &n, &cap, rep, strlen(rep))
                         : append(&out, &n, &cap, s, (size_t)(p - s));
                changed |= rep != NULL;
            } else {
                ok = append(&out, &n, &cap, p++, 1);
            }
        }
        free(cur);
        if (!ok) {
            free(out);
            return NULL;
        }
        cur = out;
        if (!changed)
            break;
    }
    return cur;
}

static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; (p = strstr(p, w)) != NULL; p += n)
        if ((p == s || !is_ident((unsigned char)p[-1])) && !is_ident((unsigned char)p[n]))
            return 1;
    return 0;
}

/* One parameter "const __global float4 *restrict pos". */
static int parse_param(scl_source_info *si, char *text, scl_src_param *out)
{
    memset(out, 0, sizeof *out);
    char *e = text + strlen(text);
    while (e > text && isspace((unsigned char)e[-1]))
        *--e = '\0';
    /* strip array brackets and attributes we do not need */
    char *name_end = e;
    char *name = name_end;
    while (name > text && is_ident((unsigned char)name[-1]))
        name--;
    if (name == name_end || (size_t)(name_end - name) >= SCL_SRC_NAME)
        return 0;
    memcpy(out->name, name, (size_t)(name_end - name));
    out->name[name_end - name] = '\0';
    *name = '\0';
    char *star = strchr(text, '*');
    int is_local = has_word(text, "__local") || has_word(text, "local");
    if (star) {
        *star = '\0';
        out->kind = is_local ? SCL_SRC_LOCAL_PTR : SCL_SRC_GLOBAL_PTR;
    } else {
        out->kind = SCL_SRC_VALUE;
    }
    scl_source_resolve_type(si, text, &out->type);
    return 1;
}

int scl_source_kernel(scl_source_info *si, const char *kernel_name, scl_src_param **params,
                      int *count)
{
    *params = NULL;
    *count = 0;
    size_t kl = strlen(kernel_name);
    const char *p = si->active;
    const char *open = NULL;
    while ((p = strstr(p, kernel_name)) != NULL) {
        const char *after = p + kl;
        if ((p > si->active && is_ident((unsigned char)p[-1])) || is_ident((unsigned char)*after)) {
            p = after;
            continue;
        }
        while (isspace((unsigned char)*after))
            after++;
        /* a definition: preceded (within the statement) by "kernel" and "void" */
        const char *stmt = p;
        while (stmt > si->active && stmt[-1] != ';' && stmt[-1] != '}' && stmt[-1] != '{')
            stmt--;
        while (stmt < p && isspace((unsigned char)*stmt)) /* blanked directives are long */
            stmt++;
        char head[512];
        size_t hl = (size_t)(p - stmt);
        if (*after == '(' && hl < sizeof head) {
            memcpy(head, stmt, hl);
            head[hl] = '\0';
            if ((has_word(head, "__kernel") || has_word(head, "kernel")) && has_word(head, "void")) {
                open = after;
                break;
            }
        }
        p = after;
    }
    if (!open)
        return 0;
    int level = 0;
    const char *close = open;
    for (; *close; close++) {
        if (*close == '(')
            level++;
        else if (*close == ')' && --level == 0)
            break;
    }
    if (!*close)
        return -1;
    char *list = malloc((size_t)(close - open));
    if (!list)
        return -1;
    memcpy(list, open + 1, (size_t)(close - open - 1));
    list[close - open - 1] = '\0';
    char *expanded = expand_macros(si, list);
    free(list);
    if (!expanded)
        return -1;
    int cap = 8, n = 0, ok = 1;
    scl_src_param *arr = malloc(sizeof *arr * (size_t)cap);
    char *tok = expanded;
    int empty = 1;
    for (char *q = expanded; *q; q++)
        if (!isspace((unsigned char)*q))
            empty = 0;
    while (arr && ok && !empty) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        if (n == cap) {
            cap *= 2;
            scl_src_param *a2 = realloc(arr, sizeof *arr * (size_t)cap);
            if (!a2) {
                ok = 0;
                break;
            }
            arr = a2;
        }
        if (!parse_param(si, tok, &arr[n]))
            ok = 0;
        n++;
        if (!comma)
            break;
        tok = comma + 1;
    }
    free(expanded);
    if (!arr || !ok) {
        free(arr);
        return -1;
    }
    *params = arr;
    *count = n;
    return 1;
}
