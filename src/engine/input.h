/* One input of the command line: its source, its head (the first bytes:
 * dialect, header names, which fields hold numbers) and how its fields map
 * to the output columns. An input is opened when its turn comes and closed
 * as soon as nothing reads it any more, so any number of files can be
 * given. It is shared by the feed and the jobs that hold its bytes or read
 * its file: the last to let go frees it (input_hold, input_release; all on
 * the main thread). */
#ifndef COLSTAT_SRC_ENGINE_INPUT_H
#define COLSTAT_SRC_ENGINE_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "io/binary/binary_reader.h"
#include "io/csv/csv_reader.h"
#include "io/source/source.h"
#include "src/engine/account.h"
#include "src/engine/columns.h"
#include "src/engine/engine.h"

typedef struct input {
    source *src;
    char *name;              /* as messages show it */
    const binary_spec *spec; /* binary records, else CSV */
    csv_dialect dialect;
    int by_range; /* a plain binary file: jobs pread their own ranges */
    int none;     /* its part (engine_part) holds none of it: not fed */
    /* The data after the header that the head read took: the feed starts
     * with these bytes, which begin at byte data_off of the input, on
     * physical line first_line. */
    char *head;
    size_t head_len;
    int head_eof; /* the head is the whole input */
    /* The head as read from the input's start: under a part (engine_part)
     * head_len drops its bytes, which stay in head for the hints that
     * tell why no column holds numbers (every rank then says what one
     * process says). */
    size_t seen_len;
    int seen_eof;
    uint64_t seen_line; /* the physical line head[0] is on */
    uint64_t data_off, first_line;
    /* What the head shows: fields, their names ("1", "2"... without a
     * header), which hold numbers; nfields 0 for an empty CSV. */
    int nfields;
    char **names;
    unsigned char *numeric; /* CSV_TEXT, CSV_NUMBERS, CSV_UNSEEN */
    csv_why *why; /* what the sample's other texts were (NULL: unsampled) */
    int named;    /* the names come from a header line */
    char *header_line; /* dialect.repeat\'s bytes, or NULL */
    /* field -> output column, or -1 (input_map) */
    int *map;
    int nmap;
    /* --group-by: field -> key column, or -1 (input_map_keys); NULL
       without one */
    int *kmap;
    int nkmap, nkeys;
    int refs;
} input;

/* Opens path and reads its head: head_bytes, more where the first
 * records are longer (CSV), none for a plain binary file. spec: binary
 * records, or NULL for CSV with the given dialect (0 / -1 to detect);
 * scfg: how compressed input is decoded (io/source/source.h). sample: the
 * input's fields decide the default columns, from a larger sample
 * (numeric). part: the share of it to read (the head is read from the
 * start all the same), NULL for all of it. Returns CS_OK with *out (one
 * reference), or CS_EDATA. */
int input_open(const char *path, const source_config *scfg,
               const binary_spec *spec, csv_dialect dialect, size_t head_bytes,
               int sample, const engine_part *part, account *acc, input **out,
               cs_error *e);

/* --names: names[0, n) for the fields of a headerless input (CS_EUSAGE
 * when their count is not its fields'); a line of those names joined by
 * the delimiter, where a part of the input holds the file's header, is
 * then a repeated header, not a row. */
int input_give_names(input *in, char *const *names, int n, cs_error *e);

/* Whether the input holds no data rows: it ends within its head, which
 * holds nothing but blank lines and lines of its header's names (or
 * --names'), as an engine's first partition of a file may. */
int input_no_rows(const input *in);

/* A whole input held in its head (CSV) that ends inside a quoted field:
 * the error naming the line the quote opens on (CS_EDATA); else CS_OK.
 * Where no column holds numbers, that is the answer's reason. */
int input_quote_open(const input *in, cs_error *e);

/* Maps the input's fields to the columns of t. */
int input_map(input *in, const col_table *t, cs_error *e);
/* Maps the input's fields to the key columns of keys (--group-by). */
int input_map_keys(input *in, const col_table *keys, cs_error *e);

void input_hold(input *in);
void input_release(input *in); /* frees at the last reference */

#endif
