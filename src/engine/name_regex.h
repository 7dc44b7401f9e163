/* The /REGEX/ items of --columns: a column name matched in bounded time
 * and memory, whatever the expression or the name. With PCRE2 (found at
 * configure time) a match stops at a match, depth and heap limit; without
 * it, glibc's regex (which has no bound) only sees expressions without
 * nested repetition or back-references, and names up to
 * NAME_REGEX_MAX_NAME bytes. Past a bound: a usage error (exit 2). */
#ifndef COLSTAT_SRC_ENGINE_NAME_REGEX_H
#define COLSTAT_SRC_ENGINE_NAME_REGEX_H

#include <stddef.h>

#include "io/base/error.h"

#define NAME_REGEX_MAX_NAME 4096    /* without PCRE2 */
#define NAME_REGEX_MAX_PATTERN 1024 /* bytes of an expression */

typedef struct name_regex name_regex;

/* item[0, n) is "/REGEX/" as given; file names the input in messages.
 * Returns CS_OK with *out, or CS_EUSAGE (a bad or too complex
 * expression). */
int name_regex_new(const char *item, size_t n, const char *file,
                   name_regex **out, cs_error *e);

/* 1 when name matches, 0 when not, -1 when matching it would pass a
 * bound (e filled, CS_EUSAGE). */
int name_regex_match(name_regex *r, const char *name, cs_error *e);

void name_regex_free(name_regex *r);

#endif
