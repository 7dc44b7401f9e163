/* The structural index of a CSV batch, found many bytes at a time: where
 * each field ends (a delimiter, CR or LF outside quotes). The quote,
 * delimiter, CR and LF bytes of 64 at a time become bit masks, and the
 * inside of quoted fields is the prefix XOR of the quote mask (carry-less
 * multiplication by all ones), as in Langdale & Lemire, "Parsing gigabytes
 * of JSON per second", VLDB Journal 28 (2019), and Langdale's simdcsv.
 *
 * The index only covers what the parity of quotes reads the way the grammar
 * (csv_grammar.h) does: a batch that takes one of its lax readings, a
 * blank before an opening quote or after a closing one, a CR without an LF
 * after it outside quotes, or that ends inside quotes, is refused, and the
 * caller reads it with the grammar's full parser instead (libcsv). Vector
 * width is chosen at run time (AVX2, else SSE2, else a byte loop), never
 * from the machine that built it. */
#ifndef COLSTAT_IO_CSV_CSV_SIMD_H
#define COLSTAT_IO_CSV_CSV_SIMD_H

#include <stddef.h>
#include <stdint.h>

typedef struct csv_simd_index {
    uint32_t *end; /* the field ends, ascending; the LF of a CRLF is none */
    size_t n;      /* how many, */
    size_t lines;  /* of them a line's end (a CR or LF, not a delimiter) */
    size_t cap;    /* room for the largest batch (csv_simd_init) */
    int quoted;    /* the batch holds a quote, */
    int inner_lf;  /* an LF inside quotes, */
    int doubled;   /* a doubled quote inside quotes */
} csv_simd_index;

/* Room for batches of at most max_bytes (< 2^32). Returns 0, or -1 when
 * out of memory. */
int csv_simd_init(csv_simd_index *ix, size_t max_bytes);
void csv_simd_free(csv_simd_index *ix);

/* Indexes buf[0, n), n at most the init's max_bytes, which starts between
 * records and ends with an LF. Returns 1 when the index reads it as the
 * grammar does (ix filled), 0 when the batch needs the full parser. */
int csv_simd_scan(csv_simd_index *ix, const char *buf, size_t n,
                  unsigned char delim);

/* For the cutter (csv_cut.c): bytes that start at a field's start
 * (between records or after a delimiter), inside an unquoted field, or
 * inside a quoted one (not just after a quote: the cutter steps those). */
enum { CSV_SIMD_FIELD, CSV_SIMD_UNQUOTED, CSV_SIMD_QUOTED };

/* Over buf[0, n) from state start: the offset just after the last LF
 * outside quotes (0: none) in *last_lf, and whether the bytes end inside
 * quotes. Returns 1 when the parity of quotes reads them as the grammar
 * does (csv_simd_scan's checks, and no CR as the last byte), else 0: the
 * caller steps the grammar. */
int csv_simd_cut(const char *buf, size_t n, unsigned char delim, int start,
                 size_t *last_lf, int *inside);

/* Which kernel csv_simd_scan runs here: "avx2", "sse2" or "scalar"; and,
 * for tests, forcing one (0 avx2 if the CPU has it, 1 sse2, 2 scalar). */
const char *csv_simd_kernel(void);
void csv_simd_force(int kernel);

#endif
