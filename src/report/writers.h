/* The writers behind report_write, one per format, and the value rules
 * they share. Private to src/report*.c. */
#ifndef COLSTAT_SRC_REPORT_WRITERS_H
#define COLSTAT_SRC_REPORT_WRITERS_H

#include "report.h"
#include "tbuf.h"

/* digits: significant digits of doubles, 0 for the shortest form. */
void report_json(tbuf *b, unsigned what, uint64_t rows, const report_col *cols,
                 int ncols, const report_style *st);
/* One column object of the JSON document, and a string of n bytes. */
void report_json_column(tbuf *b, unsigned what, const report_col *c,
                        const report_style *st);
void report_json_text(tbuf *b, const char *s, size_t n);
void report_json_count(tbuf *b, uint64_t n, int bigint_string);
/* TSV and CSV: the header line, and one column's line, after the
 * group-by key fields when nkeys > 0 (key NULL: the header's names). */
int report_delim_groups_head(FILE *f, char sep, unsigned what,
                             const char *const *key_names, int nkeys,
                             const report_groups *gs, int ncols,
                             const report_style *st);
/* Groups [first, last)' lines. */
int report_delim_groups_range(FILE *f, char sep, unsigned what, int nkeys,
                              const report_groups *gs, size_t first,
                              size_t last, int ncols, const report_style *st);
void report_delim(FILE *f, char sep, unsigned what, const report_col *cols,
                  int ncols, int digits);
int report_table(FILE *f, unsigned what, const report_col *cols, int ncols,
                 const report_style *st); /* -1: out of memory */

/* One column's histogram as horizontal bars within st->width terminal
 * columns. */
void report_bars(FILE *f, const report_col *c, const report_style *st);

/* A text as the table shows it: n bytes, control bytes as '?', so that
 * a line break or a tab in a name, key or value cannot break the layout
 * (the machine formats spell them exactly). */
void report_show_text(FILE *f, const char *s, size_t n);

/* Which summary values exist: sum, mean and min/max need a value, std
 * two. */
int report_has_mean(const col_summary *s);
/* A date or datetime column, and what it answers of what was asked: no
 * sum, mean, std or histogram. */
int report_dated(const col_summary *s);
unsigned report_what(unsigned what, const col_summary *s);
/* A date column's span (max - min) as text and as exact seconds; 0 when
 * it has none (not dated, no value). */
int report_span(const col_summary *s, char *text, size_t tlen, char *secs,
                size_t slen);
int report_has_sum(const col_summary *s);
int report_has_std(const col_summary *s);
int report_has_extrema(const col_summary *s);

/* The sum, the min and the max as text: exact integer digits in an
 * integer column (is_int), else the double (format_double_digits). */
void report_sum_text(char *buf, size_t len, const col_summary *s, int digits);
void report_min_text(char *buf, size_t len, const col_summary *s, int digits);
void report_max_text(char *buf, size_t len, const col_summary *s, int digits);

/* A quantile as text: 0 when it does not exist (no value; -inf and +inf
 * both weighted), 1 for a number (exact integer digits in an integer
 * column when it is one, else to `digits` as format_double_digits), 2 for
 * inf or -inf (a JSON string), 3 for an instant in ISO 8601 (a string). */
int report_quantile_text(char *buf, size_t len, const col_summary *s,
                         const qres *q, int digits);

/* The heading of quantile i: "q0.99". */
void report_quantile_name(char *buf, size_t len, const report_col *c, size_t i);

/* A profile's value as text (profile.c): 0 a text (its bytes are v's,
 * buf untouched), 1 a finite number, 2 inf or -inf, 3 an instant in ISO
 * 8601 (a date column's); exact integer digits in an integer column. */
int report_prof_value_text(char *buf, size_t len, const report_col *c,
                           const prof_value *v, int digits);
/* Whether a column shows a profile's statistics, and its type's name. */
int report_has_profile(unsigned what, const report_col *c);
const char *report_type_name(const report_col *c);
/* The table's block of distinct values, mode and top values of each
 * column that has them, after the table. */
void report_profiles_table(FILE *f, unsigned what, const report_col *cols,
                           int ncols, const report_style *st);

/* The histogram applies when asked for and present. */
int report_has_hist(unsigned what, const report_col *c);

#endif
