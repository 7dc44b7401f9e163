/* A text the report is written into: one buffer that grows in place.
 * The JSON writer appends to it with plain stores, not stdio calls: a
 * million groups' document is a hundred million small writes, and
 * stdio's per-call cost, plus a memory stream's copies, were most of
 * its time. The caller owns a tbuf (zeroed to start) and frees it. */
#ifndef COLSTAT_SRC_REPORT_TBUF_H
#define COLSTAT_SRC_REPORT_TBUF_H

#include <stdio.h>
#include <string.h>

typedef struct tbuf {
    char *p;
    size_t len, cap;
    int bad; /* out of memory, or a stream on it failed: sticky */
} tbuf;

/* Room for n more bytes: 0, or -1 (bad set, the text kept as it was). */
int tbuf_grow(tbuf *b, size_t n);

/* Inline: these are the hundred million calls. */
static inline void tbuf_put(tbuf *b, const char *s, size_t n)
{
    /* an empty text has no buffer, and memcpy takes none, even for 0 */
    if (n == 0 || (n > b->cap - b->len && tbuf_grow(b, n)))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static inline void tbuf_putc(tbuf *b, char c)
{
    if (b->len == b->cap && tbuf_grow(b, 1))
        return;
    b->p[b->len++] = c;
}

static inline void tbuf_puts(tbuf *b, const char *s)
{
    tbuf_put(b, s, strlen(s));
}

void tbuf_printf(tbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A stdio stream that appends to b, for the writers that print (TSV,
 * CSV, the table); one thread's, as b is; fclose it before b is read.
 * NULL: no memory. */
FILE *tbuf_file(tbuf *b);

void tbuf_free(tbuf *b);

#endif
