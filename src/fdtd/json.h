/* A small JSON reader (RFC 8259 values into a tree) for gprMax's material
 * databases (#material_from_database). Host-only: messages go to err. */
#ifndef STREAMCL_FDTD_JSON_H
#define STREAMCL_FDTD_JSON_H

#include <stddef.h>

typedef enum { FDTD_JSON_NULL, FDTD_JSON_BOOL, FDTD_JSON_NUMBER, FDTD_JSON_STRING,
               FDTD_JSON_ARRAY, FDTD_JSON_OBJECT } fdtd_json_type;

typedef struct fdtd_json {
    fdtd_json_type type;
    double num;              /* NUMBER, BOOL (0 or 1) */
    char *str;               /* STRING */
    int n;                   /* ARRAY, OBJECT: members */
    char **keys;             /* OBJECT: the members' names */
    struct fdtd_json *items; /* ARRAY, OBJECT: the members */
} fdtd_json;

/* Parses text (NUL-terminated) into *out; 0, or -1 with a message naming
 * the line in err. Free with fdtd_json_free. */
int fdtd_json_parse(const char *text, fdtd_json *out, char *err, size_t errlen);
void fdtd_json_free(fdtd_json *v);
/* An object's member named key (the last one of that name), or NULL (also
 * when v is not an object). */
const fdtd_json *fdtd_json_get(const fdtd_json *v, const char *key);

#endif
