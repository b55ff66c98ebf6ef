/* Shared by the eri sources: messages, text lines, primitive pair data. */
#ifndef STREAMCL_ERI_INTERNAL_H
#define STREAMCL_ERI_INTERNAL_H

#include "streamcl/eri.h"

#include <stdarg.h>
#include <stddef.h>

/* snprintf into err (may be NULL); returns status. */
scl_status eri_fail(char *err, size_t errlen, scl_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Whole file into a malloc'd, NUL-terminated buffer. */
scl_status eri_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen);

/* Iterate over lines of text: *line (not terminated; *n chars without '\n'
 * or '\r'), returns 0 at the end. */
typedef struct {
    const char *p, *end;
    int number;
} eri_lines;
int eri_next_line(eri_lines *it, const char **line, size_t *n);

/* Blank-separated tokens of one line copied to buf (cut at '#'); returns the
 * count, at most max; tok[] point into buf. */
int eri_tokens(const char *line, size_t n, char *buf, size_t bufsize, char **tok, int max);
/* Whole-token number, accepting Fortran 'D' exponents; 0 on success. */
int eri_parse_double(const char *tok, double *out);

/* Primitive pairs of every function pair i >= j, padded to the same count
 * (npp = the largest nprim_i * nprim_j; padding has K = 0, p = 1):
 * arrays of npp * npair, prim-major ([prim * npair + pair]). K holds
 * sqrt(2) pi^(5/4) c_a c_b exp(-ab/p |AB|^2) / p so that a primitive
 * quartet is K_ab K_cd / sqrt(p+q) F0(pq/(p+q) |PQ|^2). */
typedef struct {
    size_t npair, npp;
    double *p, *Px, *Py, *Pz, *K;
    size_t *nprim;      /* real primitive pairs per pair */
    int *i, *j;         /* functions of each pair */
} eri_pairs;
scl_status eri_pairs_build(const scl_eri_system *s, eri_pairs *out);
void eri_pairs_free(eri_pairs *pp);
/* Contracted (ab|cd) from pair data (pairs ab, cd). */
double eri_pair_quartet(const eri_pairs *pp, size_t ab, size_t cd);

#endif
