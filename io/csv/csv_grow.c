/* libcsv grows a field's buffer by a fixed block (128 bytes) per call, so a
 * field of n bytes is n/128 reallocs. glibc hides that for large blocks
 * (mremap), but an allocator that copies on every realloc (AddressSanitizer's,
 * musl's) makes it quadratic: an 8 MB field took minutes. Each block keeps
 * its capacity in a header, and a request past it doubles the capacity. */
#include "io/csv/csv_grow.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The header keeps the block's bytes max_align_t-aligned. */
typedef union grow_head {
    size_t cap;
    max_align_t align;
} grow_head;

static grow_head *head_of(void *ptr)
{
    return (grow_head *)ptr - 1;
}

void *csv_grow_realloc(void *ptr, size_t size)
{
    size_t cap = ptr ? head_of(ptr)->cap : 0;
    if (ptr && size <= cap)
        return ptr;
    size_t want = cap > size / 2 ? 2 * cap : size;
    if (want < size || want > SIZE_MAX - sizeof(grow_head))
        want = size;
    if (size > SIZE_MAX - sizeof(grow_head))
        return NULL;
    grow_head *h = realloc(ptr ? head_of(ptr) : NULL, sizeof *h + want);
    if (!h && want > size)
        h = realloc(ptr ? head_of(ptr) : NULL, sizeof *h + (want = size));
    if (!h)
        return NULL;
    h->cap = want;
    return h + 1;
}

void csv_grow_free(void *ptr)
{
    if (ptr)
        free(head_of(ptr));
}

int csv_init_growing(struct csv_parser *p, unsigned char options)
{
    int rc = csv_init(p, options);
    if (rc == 0) {
        csv_set_realloc_func(p, csv_grow_realloc);
        csv_set_free_func(p, csv_grow_free);
    }
    return rc;
}
