/* What a state read back must hold to be one that a run of colstat gives
 * (state.h). A state is untrusted input: a CRC only proves that its bytes
 * were not damaged on the way, not that colstat made them. Each invariant
 * below is one that stats.c keeps for every column of every run, so a
 * state breaking one is refused rather than merged into a wrong answer,
 * or an undefined one (counts that wrap, a signed sum that overflows).
 *
 * Per column, with rows the state's rows:
 *   name       at most STATE_MAX_NAME bytes, no NUL (checked by the reader)
 *   index      1 to STATE_MAX_COLS, no two columns alike
 *   count + missing + invalid + nan <= rows (each row gives a column one
 *              field at most: a short record's absent field is missing)
 *   first_invalid_row  0 when invalid is 0, else 0..rows (0: not known;
 *              the device's parse finds the first invalid field's line,
 *              not its row)
 *   count 0    min and max NaN, every row 0, corrections 0, sums 0
 *   count > 0  min <= max, neither NaN; min_row, max_row, min_row_int,
 *              max_row_int in 1..rows; one row for both extremes only when
 *              they are equal; corrections |r| <= 1024, nonzero only
 *              beside an integral double of at most 2^64; all_int 0 or 1,
 *              and with all_int both extremes are such integers, the
 *              least at most the greatest, |d + r| <= 2^64
 *   sum_r      |sum_r| <= 1024 * count
 *   sums       infinities at most count; +inf in the sum only when max is
 *              +inf, -inf only when min is -inf; no -inf among squares, no
 *              infinity among the corrections' squares; |sum| < 2^1088
 *              (2^64 values below 2^1024), 0 <= sumsq < 2^2112, the
 *              corrections' squares below 2^140; integers' sums are
 *              integers; a sum the key keeps (sum, mean or std) lies in n
 *              times [min, max] (n: the values not infinite)
 *   offsets    a datetime column with zones, and no other, holds its
 *              extremes' UTC offsets after its histogram (in a state of
 *              groups, after each group's): each at most 23:59 (1439
 *              minutes) either way, 0 when count is 0 (the reader checks
 *              them)
 *   hist       present exactly when the key has STAT_HIST, with the key's
 *              bins and edges (--range); underflow + overflow + bins =
 *              count. Without --range (--mpi's ranks) the key's bins when
 *              there is one.
 *   profile    a text column's facts: count + missing <= rows, the
 *              shortest length at most the longest (UINT64_MAX and 0
 *              without text); none for another column. The values'
 *              counts for every column exactly when the key has
 *              --distinct, --mode or --top: their counts add up to the
 *              column's count (a text column's texts), a text's length
 *              within the shortest and longest, a number within [min, max]
 *              (each value once, no NaN, no -0: the reader).
 * A state of groups holds its histograms in its groups, none in its
 * columns. Per group (state_groups.c), the same per column, rows of the
 * extremes within the state's rows and fields within the group's; and
 * keys of the key columns' encoding, each once, rows adding up to the
 * state's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/dist/state.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define MAX_CORR 1024

/* |value| < 2^bits: the digits from the one holding 2^bits upward are the
 * sign's alone (0 when nonnegative; all ones below a top digit of -1 when
 * negative), once normalised. */
static int sacc_within(const sacc *a, int bits)
{
    sacc n = *a;
    sacc_normalize(&n);
    int from = (bits - SACC_LSB_EXP + 31) / 32;
    int64_t top = n.d[SACC_DIGITS - 1];
    if (top != 0 && top != -1)
        return 0;
    int64_t fill = top ? 0xffffffffLL : 0;
    for (int k = from; k < SACC_DIGITS - 1; k++)
        if (n.d[k] != fill)
            return 0;
    return 1;
}

static int csum_zero(const csum *c)
{
    return !c->all && c->lo < 0 && !c->pos_inf && !c->neg_inf;
}

/* An integral double of magnitude at most 2^64 (stats.c's is_int_range). */
static int int_range(double v)
{
    return fabs(v) <= 0x1p64 && v == floor(v);
}

/* The integer view's extreme d + r. */
static i128 int_value(double d, int32_t r)
{
    return (i128)d + r;
}

static int corr_ok(double d, int32_t r)
{
    return r >= -MAX_CORR && r <= MAX_CORR && (r == 0 || int_range(d));
}

static const char *check_empty(const col_stats *s)
{
    if (!isnan(s->min) || !isnan(s->max) || s->min_row || s->max_row ||
        s->min_row_int || s->max_row_int || s->min_corr || s->max_corr)
        return "extremes without a value";
    if (s->sum_r || !csum_zero(&s->sum) || !csum_zero(&s->sumsq) ||
        !csum_zero(&s->sumsq_corr))
        return "a sum without a value";
    return NULL;
}

static const char *check_rows(const col_stats *s, uint64_t rows)
{
    const uint64_t r[] = {s->min_row, s->max_row, s->min_row_int,
                          s->max_row_int};
    for (size_t k = 0; k < sizeof r / sizeof *r; k++)
        if (r[k] < 1 || r[k] > rows)
            return "the row of an extreme past the state's rows";
    if (s->min_row == s->max_row && !(s->min == s->max))
        return "one row holding two different extremes";
    if (s->min_row_int == s->max_row_int &&
        !(s->min == s->max && s->min_corr == s->max_corr))
        return "one row holding two different extremes";
    return NULL;
}

static const char *check_extremes(const col_stats *s)
{
    if (isnan(s->min) || isnan(s->max) || !(s->min <= s->max))
        return "a min that is not at most the max";
    if (!corr_ok(s->min, s->min_corr) || !corr_ok(s->max, s->max_corr))
        return "an integer correction out of range";
    if (!s->all_int)
        return NULL;
    if (!int_range(s->min) || !int_range(s->max))
        return "integer extremes out of order or range";
    /* only now are they doubles an __int128 holds */
    i128 lo = int_value(s->min, s->min_corr);
    i128 hi = int_value(s->max, s->max_corr);
    i128 lim = (i128)1 << 64;
    if (lo > hi || lo < -lim || hi > lim)
        return "integer extremes out of order or range";
    return NULL;
}

/* No digit below 2^0 (a of integers). */
static int integral(const sacc *a)
{
    sacc n = *a;
    sacc_normalize(&n);
    for (int k = 0; k < -SACC_LSB_EXP / 32; k++)
        if (n.d[k])
            return 0;
    return 1;
}

/* The sign of a - n * x (finite parts), n <= 2^64 - 1 added as two halves
 * (sacc_add_product takes |k| < 2^63). */
static int sign_less(const sacc *a, double x, uint64_t n)
{
    sacc t = *a;
    t.pos_inf = t.neg_inf = 0;
    sacc_add_product(&t, x, -(int64_t)(n / 2));
    sacc_add_product(&t, x, -(int64_t)(n - n / 2));
    double v = sacc_value(&t);
    return (v > 0) - (v < 0);
}

/* Each finite value lies in [min, max], so their sum lies in n times
 * those (n: the values that are not infinite), where min (max) is
 * finite. */
static int sum_between(const sacc *a, const col_stats *s)
{
    uint64_t n = s->count - a->pos_inf - a->neg_inf;
    if (isfinite(s->min) && sign_less(a, s->min, n) < 0)
        return 0;
    return !(isfinite(s->max) && sign_less(a, s->max, n) > 0);
}

/* held_sum: the key's statistics keep the sum (stats.c sums only then). */
static const char *check_sums(const col_stats *s, int held_sum)
{
    u128 r = s->sum_r < 0 ? -(u128)s->sum_r : (u128)s->sum_r;
    if (r > (u128)MAX_CORR * s->count)
        return "a sum of corrections past what the count allows";
    sacc a, q, c;
    csum_get(&s->sum, &a);
    csum_get(&s->sumsq, &q);
    csum_get(&s->sumsq_corr, &c);
    sacc_normalize(&q); /* its top digit then holds the sign */
    if (a.pos_inf > s->count || s->count - a.pos_inf < a.neg_inf ||
        q.pos_inf > s->count || q.neg_inf || c.pos_inf || c.neg_inf)
        return "more infinities than values";
    if ((a.pos_inf && s->max != INFINITY) || (a.neg_inf && s->min != -INFINITY))
        return "an infinity in the sum that is not an extreme";
    if (!sacc_within(&a, 1088) || !sacc_within(&q, 2112) ||
        q.d[SACC_DIGITS - 1] < 0 || !sacc_within(&c, 140))
        return "a sum out of the range of its values";
    if (s->all_int && !(integral(&a) && integral(&q) && integral(&c)))
        return "integers whose sum is not one";
    if (held_sum && !sum_between(&a, s))
        return "a sum outside count times its extremes";
    return NULL;
}

static const char *check_counts(const col_stats *s, uint64_t rows)
{
    uint64_t n = s->count, k;
    const uint64_t more[] = {s->missing, s->invalid, s->nan};
    for (size_t i = 0; i < 3; i++) {
        if (__builtin_add_overflow(n, more[i], &k) || k > rows)
            return "more fields than the state's rows";
        n = k;
    }
    if ((s->invalid == 0 && s->first_invalid_row) ||
        s->first_invalid_row > rows)
        return "a first invalid row that does not match";
    return NULL;
}

static const char *state_check_stats(const col_stats *s, uint64_t rows,
                                     unsigned what)
{
    const char *why = check_counts(s, rows);
    if (why || s->count == 0)
        return why ? why : check_empty(s);
    if ((why = check_rows(s, rows)) || (why = check_extremes(s)))
        return why;
    return check_sums(s, (what & (STAT_SUM | STAT_MEAN | STAT_STD)) != 0);
}

static const char *state_check_hist(const state_info *info, const hist *h,
                                    uint64_t count)
{
    if (!(info->what & STAT_HIST))
        return h->bins ? "a histogram its key does not ask for" : NULL;
    /* without --range (a rank of --mpi: the whole input's edges, which
       the key does not hold) a column may have none */
    if (!info->have_range)
        return h->bins && h->nbins != info->nbins ? "a histogram other "
                                                    "than its key's"
                                                  : NULL;
    if (!h->bins || h->nbins != info->nbins || memcmp(&h->lo, &info->lo, 8) ||
        memcmp(&h->hi, &info->hi, 8))
        return "a histogram other than its key's";
    uint64_t n = h->underflow, k;
    if (__builtin_add_overflow(n, h->overflow, &n))
        return "a histogram of more values than the count";
    for (int i = 0; i < h->nbins; i++) {
        if (__builtin_add_overflow(n, h->bins[i], &k))
            return "a histogram of more values than the count";
        n = k;
    }
    return n == count ? NULL : "a histogram of other values than the count";
}

/* Whether key holds nkeys parts as the engine encodes them, no more. */
static int key_ok(const unsigned char *key, size_t len, int nkeys)
{
    size_t at = 0;
    for (int k = 0; k < nkeys; k++) {
        if (at >= len || key[at] > 1)
            return 0;
        if (!key[at++])
            continue;
        uint32_t l;
        if (len - at < 4)
            return 0;
        memcpy(&l, key + at, 4);
        at += 4;
        if (l > len - at)
            return 0;
        at += l;
    }
    return at == len;
}

static const char *check_prof(const state_info *info, const engine_column *c,
                              const col_prof *p, uint64_t rows);

/* A group's cell's profile, as a column's of the group's rows. */
static const char *check_cell_prof(const state_info *info,
                                   const engine_result *r, size_t g, size_t k)
{
    const group_table *t = &r->groups->table;
    engine_column c = r->cols[k];
    size_t at = g * (size_t)t->ncols + k;
    if (c.kind != COL_TEXT && !(info->what & STAT_PROFILE))
        return NULL;
    c.st = &t->st[at];
    return check_prof(info, &c, t->prof ? &t->prof[at] : NULL, t->rows[g]);
}

static const char *check_group(const state_info *info, const engine_result *r,
                               size_t g, int *col)
{
    const group_table *t = &r->groups->table;
    size_t nc = (size_t)t->ncols;
    const char *why = NULL;
    if (!key_ok((const unsigned char *)group_key(t, g), t->key_len[g],
                r->groups->nkeys))
        return "a key not of its key columns' encoding";
    if (t->rows[g] == 0)
        return "a group of no rows";
    for (size_t k = 0; k < nc && !why; k++) {
        const col_stats *s = &t->st[g * nc + k];
        *col = (int)k + 1;
        why = state_check_stats(s, r->rows, info->what);
        if (!why && s->count + s->missing + s->invalid + s->nan > t->rows[g])
            why = "more fields than the group's rows";
        if (!why)
            why = state_check_hist(info, &r->groups->h[g * nc + k], s->count);
        if (!why)
            why = check_cell_prof(info, r, g, k);
    }
    return why;
}

static int check_groups(const state_info *info, const engine_result *r,
                        const char *name, cs_error *e)
{
    const group_table *t = &r->groups->table;
    uint64_t rows = 0;
    for (size_t g = 0; g < t->n; g++) {
        int col = 0;
        const char *why = check_group(info, r, g, &col);
        if (!why && __builtin_add_overflow(rows, t->rows[g], &rows))
            why = "groups of more rows than the state's";
        if (why)
            return cs_fail(e, CS_EDATA, name, 0,
                           "a state that no colstat run gives: group %zu%s%.0d"
                           ": %s",
                           g + 1, col ? ", column " : "", col, why);
    }
    if (rows != r->rows)
        return cs_fail(e, CS_EDATA, name, 0,
                       "a state that no colstat run gives: its groups' rows "
                       "are not the state's");
    return CS_OK;
}

static const char *check_facts(const col_prof *p, int is_text, uint64_t rows)
{
    if (!is_text)
        return p->count || p->missing || p->len_min != UINT64_MAX || p->len_max
                   ? "text counts in a column of another kind"
                   : NULL;
    if (p->count > rows || p->missing > rows - p->count)
        return "more fields than the state's rows";
    if (p->count ? p->len_min > p->len_max
                 : p->len_min != UINT64_MAX || p->len_max)
        return "text lengths that do not match its count";
    return NULL;
}

/* One value of a column: within its lengths or extremes. */
static int value_fits(const col_prof *p, const col_stats *s, int is_text,
                      const char *key, size_t len)
{
    if (is_text) {
        uint64_t l = profile_length(key, len);
        return p->len_min <= l && l <= p->len_max;
    }
    double d;
    int32_t r;
    profile_key_num(key, &d, &r);
    return s->min <= d && d <= s->max;
}

static const char *check_prof(const state_info *info, const engine_column *c,
                              const col_prof *p, uint64_t rows)
{
    int is_text = c->kind == COL_TEXT;
    if (!p)
        return is_text                     ? "a text column without its counts"
               : info->what & STAT_PROFILE ? "no values' counts"
                                           : NULL;
    const char *why = check_facts(p, is_text, rows);
    if (why || !p->vals != !(info->what & STAT_PROFILE))
        return why ? why : "values' counts other than its key's";
    uint64_t sum = 0, want = is_text ? p->count : c->st->count;
    for (size_t k = 0; p->vals && k < vcount_size(p->vals); k++) {
        size_t len;
        const char *key = vcount_key(p->vals, k, &len);
        if (__builtin_add_overflow(sum, vcount_count(p->vals, k), &sum) ||
            !value_fits(p, c->st, is_text, key, len))
            return "values' counts that are not the column's values";
    }
    return p->vals && sum != want ? "values' counts that are not its count"
                                  : NULL;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Whether two columns have one index (-c selects a field once). */
static int indices_repeat(const engine_result *r, int *dup)
{
    int *ix = malloc((size_t)(r->ncols ? r->ncols : 1) * sizeof *ix);
    if (!ix)
        return -1;
    for (int k = 0; k < r->ncols; k++)
        ix[k] = r->cols[k].index;
    qsort(ix, (size_t)r->ncols, sizeof *ix, by_int);
    *dup = 0;
    for (int k = 1; k < r->ncols && !*dup; k++)
        *dup = ix[k] == ix[k - 1];
    free(ix);
    return 0;
}

int state_check(const state_info *info, const engine_result *r,
                const char *name, cs_error *e)
{
    int dup = 0;
    if (indices_repeat(r, &dup))
        return cs_fail(e, CS_ENOMEM, name, 0, "out of memory");
    if (dup)
        return cs_fail(e, CS_EDATA, name, 0,
                       "a state that no colstat run gives: two columns of "
                       "one index");
    for (int k = 0; k < r->ncols; k++) {
        const engine_column *c = &r->cols[k];
        const char *why = state_check_stats(c->st, r->rows, info->what);
        if (!why && info->grouped && c->h->bins)
            why = "a histogram of the whole column beside groups";
        else if (!why && !info->grouped)
            why = state_check_hist(info, c->h, c->st->count);
        const col_prof *p = r->held_raw ? &r->held_raw[c->held] : NULL;
        if (!why && info->grouped) /* its groups hold the profiles */
            why = p && (p->count || p->missing ||
                        (p->vals && vcount_size(p->vals)))
                      ? "the whole column's values beside groups"
                      : NULL;
        else if (!why)
            why = check_prof(info, c, p, r->rows);
        if (why)
            return cs_fail(e, CS_EDATA, name, 0,
                           "a state that no colstat run gives: column %d "
                           "(#%d): %s",
                           k + 1, c->index, why);
    }
    return r->groups ? check_groups(info, r, name, e) : CS_OK;
}
