/* Opening a user's input file for the text readers (data, parameter, body
 * files), so that every reader refuses a directory or an unreadable file
 * with the same clear message instead of a misleading parse error. */
#ifndef SCL_CORE_TEXT_INPUT_H
#define SCL_CORE_TEXT_INPUT_H

#include <stddef.h>
#include <stdio.h>

/* fopen(path, "r") of a regular file (or FIFO/character device, e.g.
 * /dev/stdin). NULL with "PATH: cannot open WHAT: reason" or "PATH: is a
 * directory, not WHAT" in err otherwise. */
FILE *scl_open_text_input(const char *path, const char *what, char *err, size_t errlen);

#endif
