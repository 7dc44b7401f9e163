/* A libcsv parser whose field buffer grows geometrically. */
#ifndef COLSTAT_IO_CSV_GROW_H
#define COLSTAT_IO_CSV_GROW_H

#include <csv.h>
#include <stddef.h>

/* csv_init(p, options), then the growth below installed; 0 or csv_init's
 * failure. Free with csv_free as usual. */
int csv_init_growing(struct csv_parser *p, unsigned char options);

/* The realloc libcsv is given: keeps the capacity it handed out and
 * doubles it, so a field of n bytes costs O(log n) moves, not n/128. */
void *csv_grow_realloc(void *ptr, size_t size);
void csv_grow_free(void *ptr);

#endif
