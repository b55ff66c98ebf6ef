/* Opening a user's input file for the text readers (data, parameter, body,
 * basis and run files), so that every reader refuses a directory or an
 * unreadable file with the same clear message instead of a misleading parse
 * error, and reads with a bound: a NUL byte (/dev/zero, /dev/urandom, a
 * binary file) or more than the size limit (an endless stream) ends the
 * reading with an error at once instead of a hang or a memory blow-up. */
#ifndef SCL_CORE_TEXT_INPUT_H
#define SCL_CORE_TEXT_INPUT_H

#include <stddef.h>
#include <stdio.h>

/* The default limit of scl_open_text_input (max_bytes 0). */
#define SCL_TEXT_INPUT_LIMIT (1ull << 30)

/* A stream reading path (a regular file, FIFO or character device, e.g.
 * /dev/stdin), at most max_bytes (0: SCL_TEXT_INPUT_LIMIT). NULL with
 * "PATH: cannot open WHAT: reason", "PATH: is a directory, ..." or "PATH:
 * larger than the limit" in err otherwise. A read past the limit or of a NUL
 * byte fails (ferror) with errno EFBIG or EILSEQ: say why with
 * scl_text_input_why(errno). */
FILE *scl_open_text_input(const char *path, const char *what, unsigned long long max_bytes,
                          char *err, size_t errlen);
/* Why a read of a stream from scl_open_text_input failed, from its errno. */
const char *scl_text_input_why(int errnum);

#endif
