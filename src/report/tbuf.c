#include "tbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <sys/types.h>

int tbuf_grow(tbuf *b, size_t n)
{
    if (b->bad)
        return -1;
    size_t cap = b->cap ? b->cap : (size_t)1 << 16;
    while (n > cap - b->len) {
        if (cap > SIZE_MAX / 2) {
            b->bad = 1;
            return -1;
        }
        cap *= 2;
    }
    /* realloc moves a large block's pages (mremap), not its bytes */
    char *p = realloc(b->p, cap);
    if (!p) {
        b->bad = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void tbuf_printf(tbuf *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->bad = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        tbuf_put(b, small, (size_t)n);
        return;
    }
    if (tbuf_grow(b, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static ssize_t file_write(void *cookie, const char *s, size_t n)
{
    tbuf *b = cookie;
    tbuf_put(b, s, n);
    return b->bad ? -1 : (ssize_t)n;
}

/* The stream is one thread's (as b is): its calls take no lock, a
 * million groups' TSV or table being tens of millions of them. */
FILE *tbuf_file(tbuf *b)
{
    cookie_io_functions_t io = {NULL, file_write, NULL, NULL};
    FILE *f = fopencookie(b, "w", io);
    if (f)
        __fsetlocking(f, FSETLOCKING_BYCALLER);
    return f;
}

void tbuf_free(tbuf *b)
{
    free(b->p);
    *b = (tbuf){0};
}
