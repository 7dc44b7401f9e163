/* libcsv's field and record callbacks, the fields found by the index: a
 * feed gives exactly what csv_parse (non-strict, CSV_APPEND_NULL aside)
 * gives for the same bytes, fields and records in order, the parser's
 * state carried across feeds; but the lines the index (csv_simd.h) reads
 * as the grammar does are split 64 bytes a step, and only the rest goes
 * through libcsv a byte at a time. For the head's sample of the column
 * kinds (csv_sample), which libcsv's byte loop made a fixed 40 ms of every
 * run here. A field's text is not NUL-terminated. */
#ifndef COLSTAT_IO_CSV_CSV_FIELDS_H
#define COLSTAT_IO_CSV_CSV_FIELDS_H

#include <csv.h>
#include <stddef.h>

#include "io/csv/csv_simd.h"

typedef void (*csv_field_fn)(void *text, size_t len, void *data);
typedef void (*csv_record_fn)(int end, void *data);

typedef struct csv_fields {
    struct csv_parser p; /* the lines the index turns away */
    csv_simd_index ix;
    char *text; /* a quoted field with its doubled quotes halved */
    unsigned char delim;
    csv_field_fn field;
    csv_record_fn record;
    void *data;
} csv_fields;

/* Returns 0, or -1 when out of memory (nothing to free then). */
int csv_fields_init(csv_fields *s, unsigned char delim, csv_field_fn field,
                    csv_record_fn record, void *data);

/* Feeds buf[0, n): returns 0, or -1 where libcsv refuses the bytes (its
 * csv_error then says why). */
int csv_fields_feed(csv_fields *s, const char *buf, size_t n);

/* The input's end: the record still open, as csv_fini. */
void csv_fields_fini(csv_fields *s);
void csv_fields_free(csv_fields *s);

#endif
