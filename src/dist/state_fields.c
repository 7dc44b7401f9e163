/* The bytes of a state's fields that columns and groups share: a
 * column's statistics and histogram (state_fields.h). */
#include "src/dist/state_fields.h"

#include <math.h>
#include <string.h>

#include "io/num/parse_kind.h"
#include "src/dist/state.h"

/* --- bytes out ------------------------------------------------------- */

/* Normalised first, then balanced: each digit in [-2^31, 2^31), the
 * value's one form there (a negative sum as compact as a positive, not
 * the two's complement that fills every digit up to the top); only the
 * digits from the lowest to the highest nonzero one (a sum spans a few). */
static void put_sacc(sc_out *o, const sacc *a)
{
    sacc c = *a;
    sacc_normalize(&c);
    int64_t carry = 0;
    for (int k = 0; k < SACC_DIGITS; k++) {
        int64_t d = c.d[k] + carry;
        carry = d >= ((int64_t)1 << 31);
        c.d[k] = d - (carry << 32);
    }
    int lo = 0, hi = SACC_DIGITS - 1;
    while (lo < SACC_DIGITS && !c.d[lo])
        lo++;
    while (hi >= lo && !c.d[hi])
        hi--;
    sc_put_u64(o, lo < SACC_DIGITS ? (uint64_t)(hi - lo + 1) : 0);
    if (lo < SACC_DIGITS)
        sc_put_u64(o, (uint64_t)lo);
    for (int k = lo; k <= hi && lo < SACC_DIGITS; k++)
        sc_put_i64(o, c.d[k]);
    sc_put_u64(o, c.pos_inf);
    sc_put_u64(o, c.neg_inf);
}

static void put_csum(sc_out *o, const csum *c)
{
    sacc a;
    csum_get(c, &a);
    put_sacc(o, &a);
}

void state_put_stats(sc_out *o, const col_stats *s)
{
    const uint64_t u[] = {s->count,   s->missing,           s->invalid,
                          s->nan,     s->first_invalid_row, s->min_row,
                          s->max_row, s->min_row_int,       s->max_row_int};
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        sc_put_u64(o, u[i]);
    sc_put_i64(o, s->sum_r);
    sc_put_f64(o, s->min);
    sc_put_f64(o, s->max);
    sc_put_i64(o, s->min_corr);
    sc_put_i64(o, s->max_corr);
    sc_put_u64(o, (uint64_t)s->all_int);
    put_csum(o, &s->sum);
    put_csum(o, &s->sumsq);
    put_csum(o, &s->sumsq_corr);
}

void state_put_hist(sc_out *o, const hist *h)
{
    sc_put_u64(o, h->bins ? (uint64_t)h->nbins : 0);
    if (!h->bins)
        return;
    sc_put_f64(o, h->lo);
    sc_put_f64(o, h->hi);
    sc_put_u64(o, h->underflow);
    sc_put_u64(o, h->overflow);
    for (int i = 0; i < h->nbins; i++)
        sc_put_u64(o, h->bins[i]);
}

/* Integers below 2^53 in magnitude, every one a double: a varint. */
#define SMALL_INT 0x1p53

static int small_int(double d, int32_t r)
{
    return r == 0 && fabs(d) < SMALL_INT && d == floor(d);
}

static void put_value(sc_out *o, const char *key, size_t len, int is_text)
{
    if (is_text) {
        sc_put_u64(o, len);
        sc_put(o, key, len);
        return;
    }
    double d;
    int32_t r;
    profile_key_num(key, &d, &r);
    if (small_int(d, r)) {
        int64_t v = (int64_t)d;
        uint64_t u = (uint64_t)v;
        sc_put_u64(o, ((u << 1) ^ (v < 0 ? UINT64_MAX : 0)) + 1);
        return;
    }
    sc_put_u64(o, 0);
    sc_put_f64(o, d);
    sc_put_i64(o, r);
}

void state_put_prof(sc_out *o, const col_prof *p, int is_text, int counted)
{
    col_prof none;
    if (!p) { /* a run gives every text column a profile: not expected */
        profile_init(&none, 0);
        p = &none;
    }
    if (is_text) {
        sc_put_u64(o, p->count);
        sc_put_u64(o, p->missing);
        sc_put_u64(o, p->len_min);
        sc_put_u64(o, p->len_max);
    }
    if (!counted)
        return;
    size_t n = p->vals ? vcount_size(p->vals) : 0;
    sc_put_u64(o, n);
    for (size_t k = 0; k < n; k++) {
        size_t len;
        const char *key = vcount_key(p->vals, k, &len);
        put_value(o, key, len, is_text);
        sc_put_u64(o, vcount_count(p->vals, k));
    }
}

/* --- bytes in -------------------------------------------------------- */

/* Balanced digits, each in [-2^31, 2^31), the first and last given not 0
 * (the writer's one form); normalised, the top digit must hold the sign
 * alone (0 or -1: no sum of colstat's reaches 2^2176), so that adding
 * such sums up cannot overflow. */
static void get_sacc(sc_in *i, sacc *a)
{
    sacc_init(a);
    uint64_t n = sc_get_u64(i), lo = n ? sc_get_u64(i) : 0;
    if (n > SACC_DIGITS || lo > SACC_DIGITS - n) {
        sc_bad(i, "a sum's digits out of range");
        return;
    }
    const int64_t half = (int64_t)1 << 31;
    for (uint64_t k = lo; k < lo + n && !i->bad; k++) {
        a->d[k] = sc_get_i64(i);
        if (a->d[k] < -half || a->d[k] >= half)
            sc_bad(i, "a sum's digits not in their balanced form");
    }
    if (n && !i->bad && (!a->d[lo] || !a->d[lo + n - 1]))
        sc_bad(i, "a sum's digits not in their one encoding");
    if (!i->bad) {
        sacc_normalize(a);
        int64_t top = a->d[SACC_DIGITS - 1];
        if (top != 0 && top != -1)
            sc_bad(i, "a sum's digits past the accumulator's range");
    }
    a->pos_inf = sc_get_u64(i);
    a->neg_inf = sc_get_u64(i);
}

/* Into a csum_init'ed c; digits that are not normal never reach it. */
static void get_csum(sc_in *i, csum *c)
{
    sacc a;
    get_sacc(i, &a);
    if (!i->bad && csum_add(c, &a))
        i->bad = 1;
}

static int32_t get_corr(sc_in *i)
{
    int64_t v = sc_get_i64(i);
    if (v < INT32_MIN || v > INT32_MAX) {
        sc_bad(i, "a correction past 32 bits");
        return 0;
    }
    return (int32_t)v;
}

void state_get_stats(sc_in *i, col_stats *s)
{
    stats_init(s);
    uint64_t *u[] = {&s->count,   &s->missing,           &s->invalid,
                     &s->nan,     &s->first_invalid_row, &s->min_row,
                     &s->max_row, &s->min_row_int,       &s->max_row_int};
    for (size_t k = 0; k < sizeof u / sizeof *u; k++)
        *u[k] = sc_get_u64(i);
    s->sum_r = sc_get_i64(i);
    s->min = sc_get_f64(i);
    s->max = sc_get_f64(i);
    s->min_corr = get_corr(i);
    s->max_corr = get_corr(i);
    uint64_t all_int = sc_get_u64(i);
    if (all_int > 1) /* written as 0 or 1 */
        sc_bad(i, "an integrality flag other than 0 or 1");
    s->all_int = (int)all_int;
    get_csum(i, &s->sum);
    get_csum(i, &s->sumsq);
    get_csum(i, &s->sumsq_corr);
}

void state_get_hist(sc_in *i, hist *h)
{
    memset(h, 0, sizeof *h);
    uint64_t nbins = sc_get_u64(i);
    if (!nbins)
        return;
    double lo = sc_get_f64(i), hi = sc_get_f64(i);
    if (!i->bad && nbins > STATE_MAX_BINS)
        sc_bad(i, "a histogram of too many bins");
    if (i->bad || hist_init(h, (int)nbins, lo, hi)) {
        i->bad = 1;
        return;
    }
    h->underflow = sc_get_u64(i);
    h->overflow = sc_get_u64(i);
    for (uint64_t k = 0; k < nbins; k++)
        h->bins[k] = sc_get_u64(i);
}

/* A datetime column with zones: the offsets its extremes' rows were
 * written in (stats.h), after its histogram; other columns have none. */
void state_put_offsets(sc_out *o, unsigned char kind, const col_stats *s)
{
    if (kind != KIND_DATETIME_Z)
        return;
    sc_put_i64(o, s->min_off);
    sc_put_i64(o, s->max_off);
}

static int16_t get_offset(sc_in *i, const col_stats *s)
{
    int64_t v = sc_get_i64(i);
    if (v < -STATE_MAX_OFFSET || v > STATE_MAX_OFFSET || (v && !s->count)) {
        sc_bad(i, "a UTC offset past 23:59, or of no value");
        return 0;
    }
    return (int16_t)v;
}

void state_get_offsets(sc_in *i, unsigned char kind, col_stats *s)
{
    if (kind != KIND_DATETIME_Z)
        return;
    s->min_off = get_offset(i, s);
    s->max_off = get_offset(i, s);
}

/* A number's key from its encoding: NaN, -0, a correction out of range or
 * a small integer written as a double are no writer's. */
static void get_number(sc_in *i, unsigned char *key)
{
    double d;
    int32_t r = 0;
    uint64_t t = sc_get_u64(i);
    if (t) {
        uint64_t u = t - 1;
        int64_t v = (int64_t)((u >> 1) ^ (0 - (u & 1)));
        if (!(fabs((double)v) < SMALL_INT))
            sc_bad(i, "a value's integer past 2^53");
        d = (double)v;
    } else {
        d = sc_get_f64(i);
        int64_t c = sc_get_i64(i);
        if (c < -1024 || c > 1024 ||
            (c && !(fabs(d) <= 0x1p64 && d == floor(d))))
            sc_bad(i, "a value's correction out of range");
        r = (int32_t)(c < -1024 || c > 1024 ? 0 : c);
        if (isnan(d) || (d == 0 && signbit(d)) || small_int(d, r))
            sc_bad(i, "a value not in its one encoding");
    }
    profile_num_key(key, d, r);
}

/* The values' counts: each value once, each count at least 1. */
static void get_values(sc_in *i, col_prof *p, int is_text)
{
    uint64_t n = sc_get_u64(i);
    if (!i->bad && n > i->n - i->at) /* a value takes 2 bytes at least */
        sc_bad(i, "more values than the payload holds");
    unsigned char num[PROFILE_NUM_KEY];
    for (uint64_t k = 0; k < n && !i->bad; k++) {
        const void *key = num;
        size_t len = PROFILE_NUM_KEY;
        if (is_text) {
            uint64_t l = sc_get_u64(i);
            len = l <= i->n - i->at ? (size_t)l : 0;
            key = l <= i->n - i->at ? sc_take(i, len) : NULL;
            if (!key)
                sc_bad(i, "a value past the payload's end");
        } else {
            get_number(i, num);
        }
        uint64_t count = sc_get_u64(i);
        if (i->bad)
            return;
        if (!count)
            sc_bad(i, "a value seen no time");
        else if (vcount_add(p->vals, key, len, count))
            sc_bad(i, "out of memory");
        else if (vcount_size(p->vals) != k + 1)
            sc_bad(i, "a value given twice");
    }
}

void state_get_prof(sc_in *i, col_prof *p, int is_text, int counted)
{
    if (profile_init(p, counted)) {
        sc_bad(i, "out of memory");
        return;
    }
    if (is_text) {
        p->count = sc_get_u64(i);
        p->missing = sc_get_u64(i);
        p->len_min = sc_get_u64(i);
        p->len_max = sc_get_u64(i);
    }
    if (counted)
        get_values(i, p, is_text);
}
