/* The shortest spellings, [-]digits[point digits] in at most 8 bytes
 * after the sign, inline for a caller's per-field loop: the same double
 * parse_number_padded gives them (its first step, the core's num_short8),
 * without the call. A call out of a loop over fields makes its compiler
 * reload every value the loop keeps in memory; for the CSV reader's six
 * short columns that was about a tenth of a parse thread's instructions. */
#ifndef COLSTAT_IO_NUM_NUMBER_SHORT_H
#define COLSTAT_IO_NUM_NUMBER_SHORT_H

#include "io/num/number_core.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether fields of format f (NULL: the C locale's) may be read here; the
 * point they use in *point. */
static inline bool num_short_format(const num_format *f, char *point)
{
    *point = f ? f->decimal : '.';
    return !f || num_short8_plain(f->decimal, f->thousands, f->nnull);
}

/* The field s[0, n), NUM_PAD bytes after it readable, of a format
 * num_short_format accepted: true with *out set when it is such a
 * spelling (its integer correction is 0); false: parse_number_padded
 * must read it. */
static inline bool num_short_padded(const char *s, size_t n, char point,
                                    double *out)
{
    bool neg = s[0] == '-';
    return n - neg - 1 < 8 &&
           num_short8(num_load8(s + neg), n - neg, neg, point, out);
}

#endif
