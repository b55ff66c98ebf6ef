/* Helpers for fuzz targets: most readers take a path, so the input bytes go
 * to a per-process temporary file first (on /dev/shm when there is one). */
#ifndef SCL_FUZZ_UTIL_H
#define SCL_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_path_[256];

static void fuzz_remove_temp_(void) { remove(fuzz_path_); }

/* Writes data[0..size) to this process's temporary file and returns its path
 * (the same path on every call; the file is removed at exit). Aborts when the
 * file cannot be written: that is the harness failing, not the reader. */
static const char *fuzz_temp_file(const uint8_t *data, size_t size)
{
    if (!fuzz_path_[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_path_, sizeof fuzz_path_, "%s/streamcl-fuzz-%ld", dir, (long)getpid());
        atexit(fuzz_remove_temp_);
    }
    FILE *f = fopen(fuzz_path_, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(fuzz_path_);
        abort();
    }
    return fuzz_path_;
}

/* A reader's error message must be a terminated, non-empty string. */
static void fuzz_check_message(const char *err, size_t len)
{
    if (!memchr(err, '\0', len) || !err[0])
        abort();
}

#endif
