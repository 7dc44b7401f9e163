/* Writes the results: an aligned table for people (histograms drawn as
 * bars), or TSV, CSV or JSON for programs. Numbers print in the shortest
 * form that reads back to the same double, or rounded to a number of
 * significant digits; the sum, min and max of an integer column
 * (col_summary.is_int) print as exact integers, and so do its quantiles
 * when they are integers. The JSON document follows doc/CONTRACT.md's
 * contract. */
#ifndef COLSTAT_SRC_REPORT_H
#define COLSTAT_SRC_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "src/stats/profile.h"
#include "src/stats/quantile.h"
#include "src/stats/stats.h"
#include "tbuf.h"

typedef enum out_format { FMT_TABLE, FMT_TSV, FMT_CSV, FMT_JSON } out_format;

/* The table's shape: wide (a row per column), long (a block per column, a
 * "statistic  value" line each), or auto: wide when it fits the width or
 * the output is no terminal, else long. */
typedef enum out_layout { LAYOUT_AUTO, LAYOUT_WIDE, LAYOUT_LONG } out_layout;

typedef struct report_style {
    int width;         /* terminal columns for the table and its bars */
    int tty;           /* the output is a terminal (LAYOUT_AUTO) */
    out_layout layout; /* the table's */
    int digits;        /* significant digits, 1-17; 0: shortest round trip */
    int utf8;          /* bars of block characters, else ASCII '#' */
    /* JSON: integers beyond +-2^53 (which a consumer reading numbers as
       doubles would round: jq 1.6, JavaScript) as strings, not numbers */
    int bigint_string;
    int digits_given; /* --digits: a table narrowed to fit keeps them */
} report_style;

/* The version of the JSON documents' schema (doc/CONTRACT.md), their first key:
 * raised when a key changes meaning or goes, not when one is added. */
#define REPORT_SCHEMA_VERSION 1

typedef struct report_col {
    const char *name;
    int index; /* 1-based position in the input */
    col_summary s;
    const hist *h; /* NULL unless STAT_HIST */
    /* quantiles (src/stats/quantile.h): the median with STAT_MEDIAN, and
       with STAT_QUANTILES nquant of them, of the quantiles qf (the same
       list in every column) */
    const qres *median;
    const qres *quant;
    const qfrac *qf;
    size_t nquant;
    const char *unit; /* the values' unit ("ms"), or NULL */
    col_kind kind;
    /* a text column's counts and lengths, and with STAT_PROFILE the
       distinct values (NULL: none) */
    const prof_summary *prof;
} report_col;

/* Returns 0, or -1 when writing failed (errno set). */
int report_write(FILE *f, out_format fmt, unsigned what, uint64_t rows,
                 const report_col *cols, int ncols, const report_style *st);

/* --group-by: one group's key (nkeys texts, NULL for the missing key),
 * its rows and its columns. */
typedef struct report_group {
    const char *const *key;
    const size_t *key_len;
    uint64_t rows;
    const report_col *cols;
} report_group;

/* The groups, handed out one at a time in the report's order (a million
 * groups' columns need not all exist at once): get fills *g with group i
 * (0 <= i < n, ascending), its columns valid until the next call, and
 * returns 0, or -1 when out of memory. */
typedef struct report_groups {
    size_t n;
    int (*get)(void *ctx, size_t i, report_group *g);
    void *ctx;
    /* --top K (else 0): TSV and CSV's header, written before any group's
       values are known, has K top fields */
    size_t top;
} report_groups;

/* The groups' report: JSON {"schema_version", "rows", "group_by": [names],
 * "groups": [{"key": [...], "rows": N, "columns": [...]}]}; TSV and CSV a
 * line per group and column, the key columns first; the table a block
 * per group headed by its key, appended to b (the caller's). Returns 0,
 * or -1 when get failed or b ran out of memory. */
int report_write_groups(tbuf *b, out_format fmt, unsigned what, uint64_t rows,
                        const char *const *key_names, int nkeys,
                        const report_groups *gs, int ncols,
                        const report_style *st);

/* report_write_groups in three pieces, so that the groups' text can be
 * made apart (threads, each with its own get and text) and joined in
 * order: what precedes the first group (TSV and CSV read group 0 for
 * their header), groups [first, last) as the whole document holds them,
 * and what follows the last. 0, or -1 when get failed or b ran out of
 * memory. */
int report_groups_head(tbuf *b, out_format fmt, unsigned what, uint64_t rows,
                       const char *const *key_names, int nkeys,
                       const report_groups *gs, int ncols,
                       const report_style *st);
int report_groups_range(tbuf *b, out_format fmt, unsigned what,
                        const char *const *key_names, int nkeys,
                        const report_groups *gs, size_t first, size_t last,
                        int ncols, const report_style *st);
void report_groups_tail(tbuf *b, out_format fmt, const report_groups *gs);

/* An error as one JSON document on a line (--json-errors):
 * {"schema_version": 1, "error": {"file": F, "line": N, "message": M,
 * "status": S}}, file and line null where none applies. Returns 0, or -1
 * when writing failed. */
int report_json_error(FILE *f, const char *file, unsigned long long line,
                      const char *message, int status);

/* Shortest decimal that strtod reads back as v ("inf", "-inf", "nan" for
 * the non-finite). Returns the length written (buf of 32 bytes is enough). */
int format_double(char *buf, size_t len, double v);

/* The same with at most digits significant digits (v rounded to nearest
 * when the shortest form needs more); digits 0 is format_double. */
int format_double_digits(char *buf, size_t len, double v, int digits);

/* The decimal d1.d2d3... * 10^exp10 (digits: at least one; trailing
 * zeros are dropped), with a minus sign when neg, in format_double's
 * notation. */
int format_decimal(char *buf, size_t len, int neg, const char *digits,
                   int exp10);

/* The instant us (microseconds since 1970 UTC) in ISO 8601: YYYY-MM-DD
 * with date_only, else YYYY-MM-DDTHH:MM:SS, a fraction when there is one
 * (trailing zeros left out), 'Z' with zone. Returns the length. */
int report_instant_text(char *buf, size_t cap, int64_t us, int date_only,
                        int zone);

/* The instant us as a datetime written at UTC offset off (minutes east):
 * its local time there, then 'Z' for offset 0, else +hh:mm or -hh:mm. */
int report_instant_at(char *buf, size_t cap, int64_t us, int off);

/* A span of us microseconds (>= 0): "1d 02:03:04.5" (no day part under
 * a day; date_only: "59d"); and its seconds as exact decimal text. */
void report_span_text(char *buf, size_t cap, int64_t us, int date_only);
void report_span_seconds(char *buf, size_t cap, int64_t us);

/* Terminal columns of UTF-8 text: East Asian wide and fullwidth
 * characters take two, combining marks none, bytes that are no UTF-8 one
 * each. */
int report_text_width(const char *s, size_t n);

#endif
