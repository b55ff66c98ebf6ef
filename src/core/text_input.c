/* See text_input.h. The bound is a stdio cookie stream (glibc's fopencookie)
 * over the descriptor: every reader keeps its fgets/fgetc loop. */
#define _GNU_SOURCE
#include "core/text_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct {
    int fd;
    unsigned long long left;
} bounded;

static ssize_t bounded_read(void *cookie, char *buf, size_t size)
{
    bounded *b = cookie;
    if (b->left == 0) { /* at the limit: the end of the file, or too large */
        char probe;
        ssize_t r;
        while ((r = read(b->fd, &probe, 1)) < 0 && errno == EINTR)
            ;
        if (r > 0)
            errno = EFBIG;
        return r > 0 ? -1 : r;
    }
    if (size > b->left)
        size = (size_t)b->left;
    ssize_t r;
    while ((r = read(b->fd, buf, size)) < 0 && errno == EINTR)
        ;
    if (r > 0) {
        if (memchr(buf, '\0', (size_t)r)) {
            errno = EILSEQ;
            return -1;
        }
        b->left -= (unsigned long long)r;
    }
    return r;
}

static int bounded_close(void *cookie)
{
    bounded *b = cookie;
    int rc = close(b->fd);
    free(b);
    return rc;
}

const char *scl_text_input_why(int errnum)
{
    if (errnum == EILSEQ)
        return "a NUL byte: not a text file";
    if (errnum == EFBIG)
        return "larger than the size limit for this input";
    return strerror(errnum);
}

FILE *scl_open_text_input(const char *path, const char *what, unsigned long long max_bytes,
                          char *err, size_t errlen)
{
    if (max_bytes == 0)
        max_bytes = SCL_TEXT_INPUT_LIMIT;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open %s: %s", path, what, strerror(errno));
        return NULL;
    }
    /* Linux opens a directory for reading; the first read fails with EISDIR */
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot read %s: %s", path, what, strerror(errno));
        close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory; expected a %s", path, what);
        close(fd);
        return NULL;
    }
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max_bytes) {
        snprintf(err, errlen, "%s: %lld bytes: larger than the %llu MiB limit for a %s", path,
                 (long long)st.st_size, max_bytes >> 20, what);
        close(fd);
        return NULL;
    }
    bounded *b = malloc(sizeof *b);
    FILE *f = NULL;
    if (b) {
        b->fd = fd;
        b->left = max_bytes;
        cookie_io_functions_t io = {bounded_read, NULL, NULL, bounded_close};
        f = fopencookie(b, "r", io);
    }
    if (!f) {
        snprintf(err, errlen, "%s: out of memory opening the %s", path, what);
        free(b);
        close(fd);
    }
    return f;
}
