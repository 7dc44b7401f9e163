/* Exact median and quantiles in memory independent of the input's size.
 *
 * Definition: R's type 7 (R. J. Hyndman and Y. Fan, "Sample quantiles in
 * statistical packages", The American Statistician 50(4), 1996; numpy
 * "linear", DuckDB quantile_cont): for the sorted values x_1..x_n and
 * h = (n-1) q, the quantile is x_k + (h - floor h) (x_{k+1} - x_k) with
 * k = floor(h) + 1, computed exactly and rounded once to the nearest
 * double (ties to even); x_k itself when h is an integer. q is an exact
 * decimal, so h is an exact rational.
 *
 * Selection: a multi-pass radix select over order-preserving keys
 * (qsel_key.h), after T. Alabi, J. D. Blanchard, B. Gordon and
 * R. Steinbach, "Fast k-selection algorithms for graphics processing
 * units", ACM Journal of Experimental Algorithmics 17 (2012), 4.2. Every
 * pass reads all values: pass 1 counts the keys in 2^bits bins over the
 * whole key range (or over [min, max] when the caller knows them); each
 * later pass counts, in 2^bits finer bins, only the keys inside the bins
 * that hold a target rank (one range per group of targets that share a
 * bin), so a range shrinks by 2^bits per pass. A range becomes a "collect"
 * range once the values inside fit the candidate budget: the next pass
 * hands them over, they are sorted and the ranks read off exactly. A range
 * of a single key is resolved with no further pass, however many values it
 * holds (a column of equal values, a big tie at the median). Every pass's
 * counts are plain uint64 sums: threads, devices and processes count their
 * share and add; the state is a pure function of the summed counts, so
 * equal counts give equal states everywhere.
 *
 * Bins: 2^14 per range by default. 14 bits is what a GPU block can count
 * in shared memory (2^14 32-bit counters are 64 KiB of the 227 KiB an
 * H100/H200 block may have; 2^16 would not fit), a CPU thread in its L2
 * (128 KiB of uint64), and on typical data it needs no more passes than 16
 * bits (the log of test_quantile_select: uniform, normal, lognormal, ids,
 * prices, at the scale of 10^9 values: 3 passes with bits 14..16, 4 with
 * 11..13 when pass 1 spans every key). cfg.bits takes 4..16.
 *
 * Passes: at most ceil(64 / bits) for 64-bit keys (5 with 14 bits; 4 with
 * 16), ceil(76 / bits) when values carry r; fewer when pass 1 spans only
 * [min, max]: ceil(log2(key(max) - key(min) + 1) / bits). A column of one
 * value known from min == max needs none. Ranges that cannot all have
 * 2^bits bins within max_bins get fewer bins, and may take more passes.
 *
 * Memory per column, whatever the input's size: the counts of one pass,
 * at most max(max_bins, 2 * targets) uint64 (default 2^17: 1 MiB, 8 ranges
 * of 2^14 bins), the candidates, at most max_candidates qnum (default
 * 2^16: 1 MiB), and O(quantiles) for the ranges; targets <= 2 * quantiles.
 * A caller counting in T threads holds T copies of the counts. */
#ifndef COLSTAT_SRC_STATS_QUANTILE_H
#define COLSTAT_SRC_STATS_QUANTILE_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "qsel_key.h"

/* ---- Quantile lists ---------------------------------------------------
 * A quantile q is an exact decimal num / 10^digits in [0, 1], reduced
 * (num has no trailing zero unless digits == 0), at most 18 decimals. */
typedef struct qfrac {
    uint64_t num;
    uint32_t digits;
} qfrac;

#define QLIST_MAX_DIGITS 18
#define QLIST_TEXT_MAX 24 /* "0." + 18 digits + NUL, rounded up */

typedef struct qlist {
    size_t n;
    qfrac *q; /* owned: qlist_free */
} qlist;

/* Parses "0.5,0.9,0.99": comma-separated decimals in [0, 1] (digits with
 * one optional point, optional sign, blanks around each). 0 and 1 are
 * valid (the min and the max); a repeated value (0.5 and 0.50) is kept
 * once, at its first place; the order is the order given. A bad list
 * (empty, an empty element, not a decimal, outside [0, 1], more than 18
 * decimals) gives CS_EUSAGE with e saying which element and why. */
int qlist_parse(const char *text, qlist *out, cs_error *e);
void qlist_free(qlist *l);

/* The shortest decimal text of q ("0", "0.05", "0.5", "1"): the JSON key.
 * Returns its length, as snprintf does. */
int qlist_text(qfrac q, char *buf, size_t len);

/* Where q falls among n >= 1 sorted values: h = (n-1) q, the ranks k =
 * floor(h) + 1 and, when fnum > 0, k + 1; h - floor(h) = fnum / fden
 * exactly (fnum < fden <= 10^18). */
typedef struct qrank {
    uint64_t k;
    uint64_t fnum, fden;
} qrank;

qrank qlist_rank(qfrac q, uint64_t n);

/* ---- Selection: one column, many quantiles, shared passes -----------
 * The driver's loop (see the report of the branch for CPU threads, a
 * GPU and MPI ranks):
 *
 *   s = qsel_new(q, nq, &cfg);
 *   qsel_bound(s, n, min, max, e);        optional, before the first pass
 *   while (!qsel_done(s)) {
 *       read every value: those in qsel_ranges(s) are counted
 *       (qsel_count, or qsel_find + qsel_bin) or collected (qsel_pick);
 *       qsel_add_counts(s, counts) for each share's counts;
 *       qsel_add_candidates(s, v, k, e) for each share's candidates;
 *       qsel_narrow(s, e);
 *   }
 *   qsel_result(s, i, &res) for each quantile.
 *
 * After an error the state is spent: free it. */
typedef struct qsel qsel;

typedef struct qsel_config {
    int with_r;            /* some value may carry r != 0 (integer column) */
    int bits;              /* bins per range: 2^bits, 4..16; 0: 14 */
    size_t max_bins;       /* bins of one pass, all ranges; 0: 2^17 */
    size_t max_candidates; /* values collected at once; 0: 2^16 */
} qsel_config;

/* A selection of the nq quantiles q (duplicates allowed) of one column's
 * values; NULL when out of memory. */
qsel *qsel_new(const qfrac *q, size_t nq, const qsel_config *cfg);
void qsel_free(qsel *s);

/* The column holds n values (NaN excluded) from min to max: pass 1 then
 * counts over [min, max] only and is checked against n (a column of one
 * value, or none, needs no pass at all). A min or max of either zero
 * takes in both. Without it, pass 1 covers every key and n is what it
 * counts. Call before the first pass. */
int qsel_bound(qsel *s, uint64_t n, qnum min, qnum max, cs_error *e);

int qsel_done(const qsel *s);
unsigned qsel_passes(const qsel *s); /* passes narrowed so far */

/* This pass: the ranges (sorted, disjoint), the number of bins of all
 * histogram ranges, and how many values the collect ranges hold in all.
 * Valid until the next qsel_narrow. */
const qsel_range *qsel_ranges(const qsel *s, size_t *nranges);
size_t qsel_nbins(const qsel *s);
uint64_t qsel_ncandidates(const qsel *s);
int qsel_with_r(const qsel *s);

/* The counting of one share of the input, on the CPU: counts (qsel_nbins
 * entries, zeroed by the caller) += the bins of d[i] (+ r[i]) in histogram
 * ranges; NaN skipped; r may be NULL (all 0). */
void qsel_count(const qsel *s, uint64_t *counts, const double *d,
                const int32_t *r, size_t n);

/* The values of d[0..n) (+ r) in collect ranges into out, at most room of
 * them; returns how many there are (more than room only when the input
 * changed since the last pass: qsel_changed). */
size_t qsel_pick(const qsel *s, qnum *out, size_t room, const double *d,
                 const int32_t *r, size_t n);

/* Adding a share's findings; not thread-safe (one caller at a time). */
void qsel_add_counts(qsel *s, const uint64_t *counts);
/* Optional, but then from every share of the pass: per range of
 * qsel_ranges (collect ranges included, ignored), the least and greatest
 * qsel_key of the doubles counted in it (UINT64_MAX and 0 for none). */
void qsel_add_extrema(qsel *s, const uint64_t *lo, const uint64_t *hi);
int qsel_add_candidates(qsel *s, const qnum *v, size_t n, cs_error *e);

/* Ends the pass: checks that the counts add up to what the previous pass
 * said (else CS_EDATA: the input changed between passes), resolves what
 * it can and plans the next pass. */
int qsel_narrow(qsel *s, cs_error *e);

/* The CS_EDATA error for an input that no longer holds what an earlier
 * pass counted. */
int qsel_changed(cs_error *e);

/* Every pass over values already in memory (NaN skipped); r may be NULL. */
int qsel_select_array(qsel *s, const double *d, const int32_t *r, size_t n,
                      cs_error *e);

/* Bytes of counts and candidates the largest pass needed. */
size_t qsel_peak_bytes(const qsel *s);

/* ---- Results --------------------------------------------------------- */
typedef struct qres {
    int has_value; /* 0: the column has no value (null) */
    double value;  /* rounded once; NaN (null) for -inf and +inf mixed */
    int is_int;    /* the order statistics used and the exact quantile are
                      integers in [-2^64, 2^64]: print exact, not value */
    qnum exact;    /* when is_int: that integer, as d + r (d nearest) */
    /* where the order statistics are integers: the exact quantile rounded
       to the nearest integer, halves away from zero (a date column's
       instant, to the microsecond) */
    int has_near;
    qnum near;
} qres;

/* Quantile i (in qsel_new's order) once qsel_done; -1 before. */
int qsel_result(const qsel *s, size_t i, qres *out);

/* The order statistics x_k and x_{k+1} of quantile i (x_k twice when h
 * is an integer); -1 before qsel_done or when there is no value. */
int qsel_order_stats(const qsel *s, size_t i, qnum *xk, qnum *xk1);

/* (1 - f) a + f b for a <= b and f = fnum / fden in [0, 1), exact and
 * rounded once; a itself when fnum == 0 or a and b have the same key (so
 * -0.0 stays -0.0; -0.0 and +0.0 between them give +0.0). An infinity with a
 * weight above 0 wins; -inf and +inf both weighted give NaN. */
void qvalue_interpolate(qnum a, qnum b, uint64_t fnum, uint64_t fden,
                        qres *out);

/* The decimal digits of d + r when it is an integer in [-2^64, 2^64];
 * returns the length, or 0 when it is not one or len is too small
 * (48 bytes are enough). */
int qvalue_int_text(qnum v, char *buf, size_t len);

#endif
