/* Column names as one line of text: --list-columns prints a name so that
 * a line break in it (a quoted CSV header may hold one) cannot split it,
 * and -c reads the same spelling back. A line feed is written \n, a
 * carriage return \r, and a backslash that would otherwise read as one
 * of these escapes (followed by n, r, a backslash or a line break) is
 * doubled; every other byte, other backslashes included, is itself, so
 * that names without line breaks mostly print unchanged. */
#ifndef COLSTAT_SRC_NAME_ESCAPE_H
#define COLSTAT_SRC_NAME_ESCAPE_H

#include <stdio.h>

/* Writes name, escaped, to f (no line end). */
void name_escape_write(FILE *f, const char *name);

/* The -c LIST in with its name items unescaped (\n, \r, \\; any other
 * backslash stays) into out, which has room for strlen(in) + 1 bytes.
 * Patterns (/REGEX/, !/REGEX/) are copied as they are: their
 * backslashes are the expression's. */
void name_unescape_list(const char *in, char *out);

#endif
