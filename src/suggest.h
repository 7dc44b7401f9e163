/* What an unknown long option probably meant: a word other tools use for
 * one of colstat's options (--percentile for --quantiles), else the
 * option nearest by edit distance. */
#ifndef COLSTAT_SRC_SUGGEST_H
#define COLSTAT_SRC_SUGGEST_H

#include <stddef.h>

/* The advice for the unknown option word[0, len) (without its "--"),
 * given the known long option names (NULL-terminated): "did you mean
 * --quantiles?", "colstat counts no distinct values", or "" when nothing
 * is near. Written to buf[cap]. */
void suggest_option(const char *word, size_t len, const char *const *names,
                    char *buf, size_t cap);

#endif
