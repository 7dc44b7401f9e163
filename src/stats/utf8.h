/* UTF-8 well-formedness, shared by text columns' lengths, the JSON
 * writer's escaping, the table's widths and the messages' escaping. */
#ifndef COLSTAT_SRC_STATS_UTF8_H
#define COLSTAT_SRC_STATS_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of the well-formed UTF-8 sequence at s (at most n; 1 for ASCII),
 * or 0 when none starts there (RFC 3629, section 4: no overlongs,
 * surrogates or code points past U+10FFFF). It reads no byte past the
 * first that breaks the sequence, so a NUL-terminated string may give n
 * as 4. */
size_t utf8_seq(const unsigned char *s, size_t n);

/* utf8_seq, with the sequence's code point in *c. */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *c);

#endif
