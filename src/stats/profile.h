/* A column's profile: what --distinct, --mode and --top K count, and what
 * a text column shows (how many fields hold text, how many are missing,
 * their shortest and longest length). Exact: every distinct value is
 * counted (vcount.h); merged in any order, finalized once.
 *
 * Values: a text by its bytes after CSV unquoting; a number by the value
 * colstat reads (the nearest double, and in an integer column the exact
 * integer: stats.h's d + r), -0 and 0 one value. NaN enters no
 * statistic, so it is no value here either. */
#ifndef COLSTAT_SRC_STATS_PROFILE_H
#define COLSTAT_SRC_STATS_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "vcount.h"

typedef struct col_prof {
    uint64_t count, missing;   /* text: fields with text, and without */
    uint64_t len_min, len_max; /* text: characters (profile_length) */
    vcount *vals;              /* NULL: values not counted */
    /* a pass over one partition of the values (their hash's high half
       modulo nparts is part; nparts 0: every value) */
    uint32_t part, nparts;
    /* the values counted by partitions (profile_take_part): their distinct
       count, and vals holds each partition's top values */
    int parted;
    uint64_t parted_distinct;
} col_prof;

/* counting: values are counted (--distinct, --mode, --top). Returns 0,
 * or -1 when out of memory. */
int profile_init(col_prof *p, int counting);
void profile_free(col_prof *p);
void profile_clear(col_prof *p);

/* The length of a text in characters of UTF-8 (RFC 3629), or in bytes
 * when it is not well-formed UTF-8. */
uint64_t profile_length(const char *s, size_t n);

/* A text field (s NULL: missing). Returns 0, or -1 out of memory. */
int profile_add_text(col_prof *p, const char *s, size_t n);
/* Numbers v[0, n) with corrections corr (NULL: all 0), NaN skipped. */
int profile_add_numbers(col_prof *p, const double *v, const int32_t *corr,
                        size_t n);
int profile_merge(col_prof *dst, const col_prof *src); /* -1: no memory */
/* src's values alone (a partition's pass: the counts are known). */
int profile_merge_values(col_prof *dst, const col_prof *src);
/* A value's key as profiles keep it (a text's bytes, a number's key)
 * seen count times, if it is in p's partition. */
int profile_add_counted(col_prof *p, const char *key, size_t len,
                        uint64_t count, int is_text);
/* Counting one partition of the values from now on (nparts 0: all). */
void profile_partition(col_prof *p, uint32_t part, uint32_t nparts);
/* A partition's values (part, whose values it may consume) into dst:
 * their distinct count, and its k most frequent, which hold every one of
 * the k most frequent of all that is in the partition. is_text, all_int
 * as profile_finalize's. Returns 0, or -1 when out of memory. */
int profile_take_part(col_prof *dst, col_prof *part, int is_text, int all_int,
                      size_t k);
size_t profile_bytes(const col_prof *p); /* memory held */

/* A value with its count: a text's bytes, or a number d + r (r 0 unless
 * the column is an integer column). */
typedef struct prof_value {
    const char *text;
    size_t len;
    double d;
    int32_t r;
    uint64_t count;
} prof_value;

/* What a report shows. top holds the ntop most frequent values, most
 * frequent first, ties by the smaller value (numbers by value, texts
 * bytewise); top[0] is the mode. */
typedef struct prof_summary {
    int text;
    uint64_t count, missing, len_min, len_max;
    int counted; /* distinct and top are known */
    uint64_t distinct;
    size_t ntop;
    prof_value *top;
    vcount *own; /* what top's texts point into */
} prof_summary;

/* is_text: p profiles a text column; all_int: a number column reported as
 * integers (col_summary.is_int): else numbers that are one double are one
 * value. k: the values wanted in top (at least 1 when counting). p's
 * values may be consumed. Returns 0, or -1 when out of memory. */
int profile_finalize(col_prof *p, int is_text, int all_int, size_t k,
                     prof_summary *out);
void profile_summary_free(prof_summary *s);

/* As profile_finalize, but p is left whole: out's texts (and a text or
 * integer column's values) point into p's, which must outlive out (a
 * partial state's profiles are written after the report's summary is
 * made). Returns 0, or -1 when out of memory. */
int profile_summarize(const col_prof *p, int is_text, int all_int, size_t k,
                      prof_summary *out);

/* A number's key as profiles keep it (PROFILE_NUM_KEY bytes: the double,
 * -0 as 0, then the correction), and back. */
#define PROFILE_NUM_KEY 12
void profile_num_key(unsigned char *key, double d, int32_t r);
void profile_key_num(const char *key, double *d, int32_t *r);

/* The room for the distinct values' counts under --memory bytes, over
 * ncols columns: never less than a floor (a tiny --memory would split the
 * values into partitions of a handful each), and a small table's bytes a
 * column besides. */
size_t profile_budget(size_t memory, int ncols);

#endif
