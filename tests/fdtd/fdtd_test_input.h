/* The frame of the gprMax input reader tests: input files in a temporary
 * folder, and bad inputs that must fail naming their file, line and reason
 * (one at a time, or a table of lines added to a common head). */
#ifndef FDTD_TEST_INPUT_H
#define FDTD_TEST_INPUT_H

#include "streamcl/fdtd.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fdtd_test_dir[] = "/tmp/fdtd_inputXXXXXX";

/* The folder's files are written by write_input; 0 when it was made. */
static inline int input_dir_make(void)
{
    return mkdtemp(fdtd_test_dir) ? 0 : -1;
}

/* 0 when the folder and its files are gone. */
static inline int input_dir_remove(void)
{
    return nftw(fdtd_test_dir, test_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline const char *write_input(const char *name, const char *text)
{
    return test_write_text(fdtd_test_dir, name, text);
}

static void expect_error(const char *what, const char *text, const char *line_tag, const char *phrase)
{
    char err[1024] = "";
    scl_fdtd_model m;
    const char *path = write_input("bad.in", text);
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_ERR_INPUT, "%s: status %d (%s)", what, s, err);
    CHECK(strstr(err, line_tag) != NULL && strstr(err, phrase) != NULL,
          "%s: message '%s' lacks '%s' / '%s'", what, err, line_tag, phrase);
}

/* A bad input: its lines after the head, where the message must point and
 * what it must say. */
typedef struct {
    const char *what, *extra, *line_tag, *phrase;
} bad_line;

static void expect_errors(const char *head, const bad_line *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char text[1024];
        int len = snprintf(text, sizeof text, "%s%s", head, b[i].extra);
        CHECK(len > 0 && (size_t)len < sizeof text, "%s: input text too long", b[i].what);
        expect_error(b[i].what, text, b[i].line_tag, b[i].phrase);
    }
}
#define EXPECT_ERRORS(head, table) expect_errors(head, table, sizeof table / sizeof table[0])

#endif
