/* UTF-8 well-formedness, shared by text columns' lengths and the JSON
 * writer's escaping. */
#ifndef COLSTAT_SRC_STATS_UTF8_H
#define COLSTAT_SRC_STATS_UTF8_H

#include <stddef.h>

/* Bytes of the well-formed UTF-8 sequence at s (at most n; 1 for ASCII),
 * or 0 when none starts there (RFC 3629, section 4: no overlongs,
 * surrogates or code points past U+10FFFF). */
size_t utf8_seq(const unsigned char *s, size_t n);

#endif
