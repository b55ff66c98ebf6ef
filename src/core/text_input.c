/* See text_input.h. */
#include "core/text_input.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

FILE *scl_open_text_input(const char *path, const char *what, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open %s: %s", path, what, strerror(errno));
        return NULL;
    }
    /* Linux opens a directory for reading; the first read fails with EISDIR */
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: cannot read %s: %s", path, what, strerror(errno));
        fclose(f);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory; expected a %s", path, what);
        fclose(f);
        return NULL;
    }
    return f;
}
